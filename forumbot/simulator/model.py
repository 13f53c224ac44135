"""The simulated forum's data: users, boards, threads, posts and site settings, in memory.

Shared by both generations (X3 and 7.2). Everything is guarded by one lock because the
HTTP server is threaded. Posts keep the BBCode exactly as Discuz stores it (quote blocks
and edit stamps included); rendering is ``bbcode.py``'s job. The quote block a reply form
builds differs per generation (``quote_block``): X3 puts the author line first, 7.2 after
the excerpt, with an absolute ``redirect.php`` link to the board.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime

from forumbot.simulator.dates import quote_time
from forumbot.simulator.pm import PmStoreBase, Ucenter15, UcenterX3

GENERATIONS = ("x3", "7.2")

GROUP_MEMBER = 10  # 新手上路
GROUP_BANNED = 4  # 禁止发言
GROUP_INACTIVE = 8  # 等待验证会员
GROUP_TITLES = {GROUP_MEMBER: "新手上路", GROUP_BANNED: "禁止发言", GROUP_INACTIVE: "等待验证会员", 7: "游客"}

INVISIBLE_MODERATED = -2

# Discuz's own edit stamp, with the old one stripped before a new one is added.
EDIT_STAMP_RE = re.compile(r"^\[i=s\] 本帖最后由 .+? 于 .+? 编辑 \[/i\]\s*", re.S)
QUOTE_BLOCK_RE = re.compile(r"\[quote\].*?\[/quote\]", re.S | re.I)
BBCODE_TAG_RE = re.compile(r"\[/?[a-z]+(?:=[^\]]*)?\]", re.I)


class ForumDataError(LookupError):
    """A simulator API call named something that does not exist (user, thread, post)."""


@dataclass
class Settings:
    """Site settings a test flips; names follow Discuz's own setting names.

    Defaults are the installers' (X3.5 ``install_data.sql``, 7.2 ``install/discuz.sql``)
    except the captcha, which a fresh X3.5 asks on login and post: the simulator starts
    without it and a test turns it on (``captcha_login``/``captcha_post``; on 7.2 these are
    ``seccodestatus`` bits 2 and 4). ``newbiespan`` is in the forum's own unit: minutes on
    X3 (installer 2), hours on 7.2 (installer 0); users added without ``registered_at``
    registered long ago and are never in it. ``Settings.for_generation`` gives each
    generation's defaults.
    """

    floodctrl: int = 15
    minpostsize: int = 10
    maxpostsize: int = 10000
    mobile_api: bool = True  # X3: the 掌上论坛 plugin (api/mobile); 7.2 has none
    mobile: bool = True  # X3: allowmobile + mobileforward (phones get touch pages)
    captcha_login: bool = False
    captcha_post: bool = False
    moderate_replies: bool = False  # the forum's 审核新回复 (modnewposts = 2)
    moderate_threads: bool = False  # 审核新主题 (modnewposts ≥ 1): new threads held (displayorder -2)
    newbiespan: int = 2
    site_closed: str | None = None  # the closedreason text when closed
    dateconvert: bool = True
    login_failures_allowed: int = 5
    lockout_seconds: int = 900
    cc_protection: bool = False
    editedby: bool = True
    bbname: str = "版杀测试论坛"
    adminemail: str = "admin@example.test"
    api_v4_login_crash: bool = False  # the captured X3.5 build: v4 login logs in, then 503
    tpp: int = 20  # topicperpage: threads per forumdisplay page (both installers: 20)
    forumdisplay_off: bool = False  # a theme/plugin that breaks the listing: no table served

    @classmethod
    def for_generation(cls, discuz: str) -> "Settings":
        if discuz == "7.2":
            return cls(mobile_api=False, mobile=False, newbiespan=0, bbname="Discuz! Board",
                       adminemail="admin@example.com")
        return cls()


@dataclass
class User:
    uid: int
    name: str
    password: str
    question: tuple[int, str] | None = None
    activated: bool = True
    banned: bool = False
    registered_at: datetime | None = None  # None: long ago (past any newbie period)
    last_post_attempt: datetime | None = None  # X3's post_lock_UID (any length-checked try)
    last_post_at: datetime | None = None  # the member's lastpost (a stored, visible post)

    @property
    def groupid(self) -> int:
        if self.banned:
            return GROUP_BANNED
        if not self.activated:
            return GROUP_INACTIVE
        return GROUP_MEMBER

    @property
    def grouptitle(self) -> str:
        return GROUP_TITLES[self.groupid]


@dataclass
class Board:
    fid: int
    name: str
    # uids of the board's moderators (forum_moderator): they may close and open its
    # threads (the 版主 group's allowclosethread), and only they.
    moderators: set[int] = field(default_factory=set)
    # viewperm without the guest group (游客): forumdisplay answers a guest with the
    # no-permission message (a board the bot may only list once logged in).
    guests_barred: bool = False


@dataclass(frozen=True)
class ListedThread:
    """One row of a board listing: ``forum_thread``'s replies/lastpost/lastposter."""

    thread: Thread
    replies: int
    lastpost: datetime
    lastposter: str
    lastposter_uid: int

    @property
    def sticky(self) -> bool:
        return self.thread.displayorder > 0


@dataclass
class Thread:
    tid: int
    fid: int
    subject: str
    author: str
    authorid: int
    dateline: datetime
    closed: bool = False
    maxposition: int = 0
    views: int = 0
    # 置顶: 1 this board, 2 its category, 3 every board (global); -2: a new thread held
    # for moderation (listed to no one, its first post invisible)
    displayorder: int = 0

    @property
    def held(self) -> bool:
        return self.displayorder == INVISIBLE_MODERATED


@dataclass
class StoredPost:
    """One row of ``forum_post`` as the simulator keeps it."""

    pid: int
    tid: int
    fid: int
    author: str
    authorid: int
    message: str  # BBCode as stored
    dateline: datetime
    position: int
    first: bool
    invisible: int = 0  # 0 shown, -2 awaiting moderation (released by a moderator)
    blocked: bool = False  # 屏蔽 by a moderator
    subject: str = ""


@dataclass
class ForumData:
    """All the simulator's state; methods take the lock themselves."""

    settings: Settings = field(default_factory=Settings)
    generation: str = "x3"
    charset: str = "utf-8"
    board_url: str = ""  # 7.2 quote blocks link to BOARD/redirect.php
    users: dict[int, User] = field(default_factory=dict)
    boards: dict[int, Board] = field(default_factory=dict)
    threads: dict[int, Thread] = field(default_factory=dict)
    posts: dict[int, StoredPost] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)
    _next_uid: int = 1
    _next_fid: int = 2  # fid 1 is the category, as on a fresh install
    _next_tid: int = 1
    _next_pid: int = 1
    pms: PmStoreBase = field(init=False)  # private messages: the generation's UCenter
    flood_refusals: int = 0  # replies refused for flood control (post_flood_ctrl), for tests
    pm_flood_refusals: int = 0  # PMs refused for flood control (message_can_not_send_2), for tests

    def __post_init__(self) -> None:
        store = Ucenter15 if self.generation == "7.2" else UcenterX3
        self.pms = store(self.lock, self.charset)

    # ---- users ---------------------------------------------------------------------------
    def add_user(self, name: str, password: str, uid: int | None = None,
                 question: tuple[int, str] | None = None, activated: bool = True,
                 banned: bool = False, registered_at: datetime | None = None) -> int:
        with self.lock:
            if self.user_by_name(name) is not None:
                raise ValueError(f"user {name!r} already exists")
            if uid is None:
                uid = max([self._next_uid, *(u + 1 for u in self.users)])
            if uid in self.users:
                raise ValueError(f"uid {uid} already taken")
            self.users[uid] = User(uid, name, password, question, activated, banned,
                                   registered_at)
            self._next_uid = max(self._next_uid, uid + 1)
            return uid

    def user_by_name(self, name: str) -> User | None:
        with self.lock:
            return next((u for u in self.users.values() if u.name == name), None)

    def user(self, name: str) -> User:
        found = self.user_by_name(name)
        if found is None:
            raise ForumDataError(f"没有名为 {name!r} 的用户")
        return found

    # ---- boards and threads --------------------------------------------------------------
    def add_forum(self, name: str) -> int:
        with self.lock:
            fid = self._next_fid
            self._next_fid += 1
            self.boards[fid] = Board(fid, name)
            return fid

    def thread(self, tid: int) -> Thread:
        with self.lock:
            if tid not in self.threads:
                raise ForumDataError(f"no thread tid={tid}")
            return self.threads[tid]

    def add_thread(self, fid: int, subject: str, author: str, message: str,
                   at: datetime, held: bool = False) -> tuple[int, int]:
        """A new thread and its first post (``held``: awaiting moderation, displayorder -2
        and its first post invisible -2, as ``model_forum_thread::newthread`` stores it)."""
        with self.lock:
            if fid not in self.boards:
                raise ForumDataError(f"no forum fid={fid}")
            user = self.user(author)
            tid = self._next_tid
            self._next_tid += 1
            state = INVISIBLE_MODERATED if held else 0
            self.threads[tid] = Thread(tid, fid, subject, user.name, user.uid, at,
                                       displayorder=state)
            pid = self._store(tid, user, message, at, first=True, subject=subject,
                              invisible=state)
            return tid, pid

    def set_moderator(self, fid: int, name: str, on: bool = True) -> None:
        """Make ``name`` a moderator of board ``fid`` (or no longer, ``on=False``)."""
        with self.lock:
            if fid not in self.boards:
                raise ForumDataError(f"no forum fid={fid}")
            uid = self.user(name).uid
            if on:
                self.boards[fid].moderators.add(uid)
            else:
                self.boards[fid].moderators.discard(uid)

    def moderates(self, fid: int, user: User | None) -> bool:
        with self.lock:
            board = self.boards.get(fid)
            return user is not None and board is not None and user.uid in board.moderators

    def release_thread(self, tid: int) -> None:
        """A moderator approves a held new thread: it and its first post become visible."""
        with self.lock:
            thread = self.thread(tid)
            if not thread.held:
                raise ForumDataError(f"thread tid={tid} is not waiting for moderation")
            thread.displayorder = 0
            for post in self.thread_posts(tid):
                if post.first:
                    post.invisible = 0

    def _store(self, tid: int, user: User, message: str, at: datetime, first: bool = False,
               invisible: int = 0, subject: str = "") -> int:
        thread = self.threads[tid]
        pid = self._next_pid
        self._next_pid += 1
        thread.maxposition += 1
        self.posts[pid] = StoredPost(pid, tid, thread.fid, user.name, user.uid, message, at,
                                     thread.maxposition, first, invisible, subject=subject)
        return pid

    def add_post(self, tid: int, author: str, message: str, at: datetime,
                 quote_pid: int | None = None, invisible: int = 0) -> int:
        with self.lock:
            self.thread(tid)
            user = self.user(author)
            if quote_pid is not None:
                return self.add_quoting_post(tid, author, quote_pid, message, at, invisible)
            pid = self._store(tid, user, message, at, invisible=invisible)
            if invisible == 0 and (user.last_post_at is None or at > user.last_post_at):
                user.last_post_at = at
            return pid

    # ---- posts ---------------------------------------------------------------------------
    def post(self, pid: int) -> StoredPost:
        with self.lock:
            if pid not in self.posts:
                raise ForumDataError(f"no post pid={pid}")
            return self.posts[pid]

    def thread_posts(self, tid: int) -> list[StoredPost]:
        """Every stored post of the thread in position order (moderated ones included)."""
        with self.lock:
            return sorted((p for p in self.posts.values() if p.tid == tid),
                          key=lambda p: p.position)

    def visible_posts(self, tid: int, authorid: int | None = None) -> list[StoredPost]:
        return [p for p in self.thread_posts(tid)
                if p.invisible == 0 and (authorid is None or p.authorid == authorid)]

    def board_rows(self) -> list[tuple[Board, int, int]]:
        """Each board with its number of threads and visible posts (the forum index)."""
        with self.lock:
            rows = []
            for board in self.boards.values():
                threads = [t for t in self.threads.values() if t.fid == board.fid]
                rows.append((board, len(threads), sum(len(self.visible_posts(t.tid)) for t in threads)))
            return rows

    def board_listing(self, fid: int, *, orderby: str = "lastpost", page: int = 1,
                      tpp: int = 20) -> tuple[list[ListedThread], int, int]:
        """``forumdisplay``'s rows of board ``fid``: (rows of the page, page served, pages).

        Sticky threads first (``displayorder`` desc; global ones, 3, from every board), then
        ``orderby`` desc (``lastpost``, ``dateline``, ``replies``), ``tpp`` per page; a page
        past the end is clamped. Replies and the last post count only visible posts (a held
        reply moves nothing until released), and an edit moves nothing — as on Discuz,
        where ``forum_thread.lastpost`` changes only when a post is published."""
        with self.lock:
            listed = [t for t in self.threads.values()
                      if t.fid == fid or t.displayorder >= 3]
            wanted = {t.tid for t in listed}
            stats: dict[int, tuple[int, StoredPost]] = {}
            for post in self.posts.values():
                if post.tid not in wanted or post.invisible != 0:
                    continue
                count, last = stats.get(post.tid, (0, post))
                if (post.dateline, post.pid) >= (last.dateline, last.pid):
                    last = post
                stats[post.tid] = (count + 1, last)
            rows = []
            for thread in listed:
                if thread.tid not in stats:
                    continue
                count, last = stats[thread.tid]
                rows.append(ListedThread(thread, count - 1, last.dateline, last.author,
                                         last.authorid))
            key = {
                "dateline": lambda r: (r.thread.dateline, r.thread.tid),
                "replies": lambda r: (r.replies, r.lastpost, r.thread.tid),
            }.get(orderby, lambda r: (r.lastpost, r.thread.tid))
            rows.sort(key=lambda r: (r.thread.displayorder, key(r)), reverse=True)
            tpp = max(1, tpp)
            total = max(1, -(-len(rows) // tpp))
            page = min(max(1, page), total)
            return rows[(page - 1) * tpp: page * tpp], page, total

    def held_posts(self, tid: int | None = None) -> list[StoredPost]:
        """Replies waiting for a moderator (``invisible = -2``), oldest first."""
        with self.lock:
            return sorted((p for p in self.posts.values()
                           if p.invisible == INVISIBLE_MODERATED and tid in (None, p.tid)),
                          key=lambda p: p.pid)

    def release_post(self, pid: int) -> None:
        """A moderator approves a held reply (modcp 审核帖子 → 通过): ``invisible`` becomes 0.

        The post keeps its pid, time and position, so it appears where it was posted and
        the floors after it move up by one, as on Discuz; its author's lastpost is set."""
        with self.lock:
            post = self.post(pid)
            if post.invisible != INVISIBLE_MODERATED:
                raise ForumDataError(f"post pid={pid} is not waiting for moderation")
            post.invisible = 0
            author = self.users.get(post.authorid)
            if author is not None:
                author.last_post_at = max(filter(None, (author.last_post_at, post.dateline)))

    def snapshot(self, pid: int) -> StoredPost:
        with self.lock:
            return replace(self.post(pid))

    def edit_post(self, pid: int, message: str, at: datetime, editor: str | None = None,
                  hold: bool = False) -> None:
        """Replace the message; add the 本帖最后由 stamp like ``model_forum_post::editpost``
        (7.2: ``editpost.inc.php``, the same stamp). ``hold``: the forum moderates replies,
        so the edited reply waits for a moderator again (``edit_reply_mod_succeed``)."""
        with self.lock:
            post = self.post(pid)
            if hold:
                post.invisible = INVISIBLE_MODERATED
            name = editor or post.author
            message = EDIT_STAMP_RE.sub("", message, count=1)
            if self.settings.editedby and (at - post.dateline).total_seconds() > 60:
                message = f"[i=s] 本帖最后由 {name} 于 {quote_time(at)} 编辑 [/i]\n\n" + message
            post.message = message

    def delete_post(self, pid: int) -> None:
        with self.lock:
            self.post(pid)
            del self.posts[pid]

    def block_post(self, pid: int, blocked: bool = True) -> None:
        with self.lock:
            self.post(pid).blocked = blocked

    def quote_block(self, qpid: int) -> str:
        """The ``[quote]`` BBCode the reply form builds for ``repquote=QPID``.

        X3 (``post_newreply.php``): author line first, then the excerpt. 7.2
        (``include/newreply.inc.php``): the excerpt, then the author line and an absolute
        findpost link with the back.gif image, then two blank lines and four spaces."""
        with self.lock:
            quoted = self.post(qpid)
            if self.generation == "7.2":
                board = self.board_url
                return (f"[quote]{excerpt_d72(quoted.message, self.charset)}"
                        f"\n[size=2][color=#999999]{quoted.author} 发表于 "
                        f"{quote_time(quoted.dateline)}[/color] [url={board}redirect.php?goto="
                        f"findpost&pid={qpid}&ptid={quoted.tid}][img]{board}images/common/"
                        f"back.gif[/img][/url][/size][/quote]\n\n\n    ")
            header = (f"[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid={qpid}"
                      f"&ptid={quoted.tid}][color=#999999]{quoted.author} 发表于 "
                      f"{quote_time(quoted.dateline)}[/color][/url][/size]\n")
            return header + quote_excerpt(quoted.message) + "[/quote]"

    def add_quoting_post(self, tid: int, author: str, qpid: int, text: str, at: datetime,
                         invisible: int = 0) -> int:
        """A reply quoting ``qpid`` the way the generation's reply form stores it."""
        block = self.quote_block(qpid)
        if self.generation == "7.2":
            return self.add_post(tid, author, block + text, at, invisible=invisible)
        return self.add_post(tid, author, block + "\n\n" + text, at, invisible=invisible)

    def move_board(self, old: str, new: str) -> None:
        """The board's address changed (the simulator got its port): 7.2 stores absolute
        findpost links in quotes, so rewrite them as if the site had always been at ``new``."""
        with self.lock:
            self.board_url = new
            if old and old != new:
                for post in self.posts.values():
                    post.message = post.message.replace(old, new)


def quote_excerpt(message: str, limit: int = 100) -> str:
    """What X3's ``messagecutstr`` leaves: no nested quotes, no stamp, no BBCode, ≤100
    characters, ≤3 lines."""
    text = EDIT_STAMP_RE.sub("", message, count=1)
    text = QUOTE_BLOCK_RE.sub("", text)
    text = BBCODE_TAG_RE.sub("", text).replace("\r\n", "\n").strip("\n")
    if len(text) > limit:
        text = text[:limit] + " ..."
    return "\n".join(text.split("\n")[:3])


_D72_CLEAR = re.compile(r"\[(url|email|code|free|table|tr|td|img|swf|flash|attach|media|audio|"
                        r"payto)=?.*?\].+?\[/\1\]", re.S | re.I)
_D72_TAGS = re.compile(r"\[/?(b|i|u|p|color|size|font|align|list|indent|float)(=[^\]]*)?\]", re.I)
_D72_STAMP = re.compile(r"^\[i=s\] 本帖最后由 .*? 于 .*? 编辑 \[/i\]\n\n", re.S)
_HTML_TAG = re.compile(r"<[^>]*>")


def excerpt_d72(message: str, charset: str) -> str:
    """7.2's ``messagecutstr($message, 100)`` (``include/post.func.php``): hidden parts,
    quotes, the edit stamp and link/image/table blocks go, other BBCode tags are dropped,
    HTML stripped, cut to 100 by ``cutstr``, trimmed. Line breaks stay as posted."""
    text = re.sub(r"\[hide=?\d*\].+?\[/hide\]", "", message, flags=re.S | re.I)
    text = re.sub(r"\[quote\].*?\[/quote\]", "", text, flags=re.S | re.I)
    text = _D72_STAMP.sub("", text)
    text = _D72_TAGS.sub("", _D72_CLEAR.sub("", text))
    return cutstr_d72(_HTML_TAG.sub("", text), 100, charset).strip()


def cutstr_d72(text: str, length: int, charset: str, dot: str = " ...") -> str:
    """7.2's ``cutstr``: untouched when its bytes fit ``length``; otherwise cut where the
    count (ASCII 1, any other character 2) reaches ``length``, then ``dot``."""
    if len(text.encode(charset, "xmlcharrefreplace")) <= length:
        return text
    count = 0
    out = []
    for ch in text:
        count += 1 if ord(ch) < 0x80 else 2
        if count > length:
            break
        out.append(ch)
        if count >= length:
            break
    return "".join(out) + dot


_LENGTH_QUOTE_RE = re.compile(r"\[quote\].+?\[/quote\]", re.S | re.I)


def post_bytes(message: str, charset: str) -> int:
    """``checkpost()``'s ``minpostsize`` test (X3.5 ``function_post.php``, 7.2
    ``include/post.func.php``): ``strlen`` — bytes in the forum's charset — of the message
    with its ``[quote]…[/quote]`` blocks removed. A CJK character is 3 bytes on a UTF-8
    forum and 2 on a GBK one; characters GBK lacks arrive as ``&#NNNNN;``."""
    return len(_LENGTH_QUOTE_RE.sub("", message).encode(charset, "xmlcharrefreplace"))
