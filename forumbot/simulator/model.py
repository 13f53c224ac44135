"""The simulated forum's data: users, boards, threads, posts and site settings, in memory.

Everything is guarded by one lock because the HTTP server is threaded. Posts keep the
BBCode exactly as Discuz stores it (quote blocks and edit stamps included); rendering is
``bbcode.py``'s job.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime

from forumbot.simulator.dates import quote_time

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
    """Site settings a test flips; names follow Discuz's own setting names."""

    floodctrl: int = 15
    minpostsize: int = 10
    maxpostsize: int = 10000
    mobile_api: bool = True
    captcha_login: bool = False
    captcha_post: bool = False
    moderate_replies: bool = False
    site_closed: str | None = None  # the closedreason text when closed
    dateconvert: bool = True
    login_failures_allowed: int = 5
    lockout_seconds: int = 900
    cc_protection: bool = False
    editedby: bool = True
    bbname: str = "版杀测试论坛"
    adminemail: str = "admin@example.test"
    api_v4_login_crash: bool = False  # the captured X3.5 build: v4 login logs in, then 503


@dataclass
class User:
    uid: int
    name: str
    password: str
    question: tuple[int, str] | None = None
    activated: bool = True
    banned: bool = False
    last_post_attempt: datetime | None = None  # Discuz's post_lock_UID

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
    invisible: int = 0  # 0 shown, -2 awaiting moderation
    blocked: bool = False  # 屏蔽 by a moderator
    subject: str = ""


@dataclass
class ForumData:
    """All the simulator's state; methods take the lock themselves."""

    settings: Settings = field(default_factory=Settings)
    users: dict[int, User] = field(default_factory=dict)
    boards: dict[int, Board] = field(default_factory=dict)
    threads: dict[int, Thread] = field(default_factory=dict)
    posts: dict[int, StoredPost] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)
    _next_uid: int = 1
    _next_fid: int = 2  # fid 1 is the category, as on a fresh install
    _next_tid: int = 1
    _next_pid: int = 1

    # ---- users ---------------------------------------------------------------------------
    def add_user(self, name: str, password: str, uid: int | None = None,
                 question: tuple[int, str] | None = None, activated: bool = True,
                 banned: bool = False) -> int:
        with self.lock:
            if self.user_by_name(name) is not None:
                raise ValueError(f"user {name!r} already exists")
            if uid is None:
                uid = max([self._next_uid, *(u + 1 for u in self.users)])
            if uid in self.users:
                raise ValueError(f"uid {uid} already taken")
            self.users[uid] = User(uid, name, password, question, activated, banned)
            self._next_uid = max(self._next_uid, uid + 1)
            return uid

    def user_by_name(self, name: str) -> User | None:
        with self.lock:
            return next((u for u in self.users.values() if u.name == name), None)

    def user(self, name: str) -> User:
        found = self.user_by_name(name)
        if found is None:
            raise ForumDataError(f"no user named {name!r}")
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
                   at: datetime) -> tuple[int, int]:
        with self.lock:
            if fid not in self.boards:
                raise ForumDataError(f"no forum fid={fid}")
            user = self.user(author)
            tid = self._next_tid
            self._next_tid += 1
            self.threads[tid] = Thread(tid, fid, subject, user.name, user.uid, at)
            pid = self._store(tid, user, message, at, first=True, subject=subject)
            return tid, pid

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
                message = self.quote_block(quote_pid) + "\n\n" + message
            return self._store(tid, user, message, at, invisible=invisible)

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

    def snapshot(self, pid: int) -> StoredPost:
        with self.lock:
            return replace(self.post(pid))

    def edit_post(self, pid: int, message: str, at: datetime, editor: str | None = None) -> None:
        """Replace the message; add the 本帖最后由 stamp like ``model_forum_post::editpost``."""
        with self.lock:
            post = self.post(pid)
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
        """The ``[quote]`` BBCode the X3 reply form builds for ``repquote=QPID``."""
        with self.lock:
            quoted = self.post(qpid)
            header = (f"[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid={qpid}"
                      f"&ptid={quoted.tid}][color=#999999]{quoted.author} 发表于 "
                      f"{quote_time(quoted.dateline)}[/color][/url][/size]\n")
            return header + quote_excerpt(quoted.message) + "[/quote]"


def quote_excerpt(message: str, limit: int = 100) -> str:
    """What ``messagecutstr`` leaves: no nested quotes, no stamp, no BBCode, ≤100 chars, ≤3 lines."""
    text = EDIT_STAMP_RE.sub("", message, count=1)
    text = QUOTE_BLOCK_RE.sub("", text)
    text = BBCODE_TAG_RE.sub("", text).replace("\r\n", "\n").strip("\n")
    if len(text) > limit:
        text = text[:limit] + " ..."
    return "\n".join(text.split("\n")[:3])


def strip_quotes_for_length(message: str) -> str:
    """``minpostsize`` is checked on the message with its quote blocks removed."""
    return QUOTE_BLOCK_RE.sub("", message).strip()


def message_length(message: str) -> int:
    """Discuz's ``dstrlen``: ASCII counts 1, any other character 2 (UTF-8 and GBK alike)."""
    return sum(1 if ord(ch) < 0x80 else 2 for ch in strip_quotes_for_length(message))
