"""``DiscuzClient``: log in, read thread pages, reply and edit on a Discuz! forum of any
supported generation.

Nothing above this class knows which generation it talks to. The dialect (X3 or 7.2,
:mod:`forumbot.discuz.x3` / :mod:`forumbot.discuz.d72`) is given by the config or detected
from the forum's front page on first use; every operation is driven here the same way:

* a refusal the bot can cure gets one second chance — flood control: wait the interval
  the forum names; a stale formhash: read it again; an expired session: log in again;
* a failed login blocks further login attempts in this process (:attr:`login_blocked`)
  until :meth:`reset_login`: Discuz counts five failures per 15 minutes per IP and user
  name, and its lock-out shuts out every account behind the IP, players included;
* a reply's answer becomes a :class:`ReplyResult` (pid, whether the forum holds it for
  moderation) whatever its dress (ajax, 302, message page);
* a thread page the forum served as to a search robot raises :class:`RobotPage`.

Requests go through :class:`~forumbot.discuz.transport.Transport` (throttle, retry,
cookie jar, charset, stop event). The password comes from ``password_source`` at the
moment of login, lives in a local variable for one request and is never logged, stored
or put in a message.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
import unicodedata
from dataclasses import dataclass
from datetime import datetime, tzinfo
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Callable, Collection, TypeVar
from zoneinfo import ZoneInfo

import httpx

from forumbot.discuz.detect import Generation, detect_generation
from forumbot.discuz.dialect import Credentials, Dialect, Submit
from forumbot.discuz.d72 import D72Dialect
from forumbot.discuz.forms import FormPage, unwrap_ajax
from forumbot.discuz.pm import X3_WRITE_SPACING, PmDialect, PmSent
from forumbot.discuz.transport import Transport
from forumbot.discuz.useragent import DEFAULT_USER_AGENT
from forumbot.discuz.x3 import X3Dialect
from forumbot.discuz.errors import (
    BadFormHash,
    CaptchaRequired,
    FloodControl,
    ForumRefused,
    ForumUnavailable,
    LoginBlocked,
    LoginLockedOut,
    NotLoggedIn,
    PostNotFound,
    RobotForbidden,
    RobotPage,
    SiteClosed,
    UnexpectedPage,
    UnknownRefusal,
    refusal_for,
)
from forumbot.discuz.responses import ForumReply, ReplyKind, page_facts
from forumbot.discuz.retry import DEFAULT, RetryPolicy
from forumbot.discuz.session import auth_cookie
from parsers.errors import PageParseError, RobotPageError
from parsers.models import ContentNotice, Post, ThreadPage
from parsers.board import BoardPage, read_board
from parsers.pages import read_page
from parsers.pm import PmConversation, PmPage, PrivateMessage, read_pm_page

__all__ = ["DIALECTS", "DiscuzClient", "NewThreadResult", "PmSent", "ReplyResult", "ThreadCursor"]

log = logging.getLogger("forumbot.client")

DIALECTS: dict[Generation, type[Dialect]] = {Generation.X3: X3Dialect, Generation.D72: D72Dialect}
LOCKOUT_SECONDS = 15 * 60  # Discuz login_strike window
DEFAULT_FLOODCTRL = 15.0  # when the forum's flood message names no number

T = TypeVar("T")


@dataclass(frozen=True)
class ThreadCursor:
    """Where incremental reading of one thread stands."""

    tid: int
    last_page: int = 1
    last_pid: int = 0
    total_pages: int = 1
    ppp: int | None = None

    def is_new(self, post: Post) -> bool:
        """Whether ``post`` came after this cursor (pids only grow)."""
        return post.pid > self.last_pid


@dataclass(frozen=True)
class ReplyResult:
    """What the forum did with a reply. ``moderated``: stored but held for a moderator
    (invisible until released); ``pid`` is None when the forum did not name it (7.2 and
    older X3 answers to a moderated reply)."""

    pid: int | None
    moderated: bool = False
    page: int | None = None


@dataclass(frozen=True)
class NewThreadResult:
    """What the forum did with a new thread. ``tid`` None: the forum did not name it (7.2
    holding the thread for moderation); ``pid`` is its first post's when named (X3.5).
    ``moderated``: stored but invisible until a moderator releases it — never posted again."""

    tid: int | None
    pid: int | None = None
    moderated: bool = False


class DiscuzClient:
    def __init__(
        self,
        http: httpx.Client,
        base_url: str,
        *,
        username: str | None = None,
        password_source: Callable[[], str] | None = None,
        question: tuple[int, str] | None = None,
        cookie_path: Path | None = None,
        min_interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], object] | None = None,
        retry_policy: RetryPolicy = DEFAULT,
        tz: tzinfo = ZoneInfo("Asia/Shanghai"),
        charset: str | None = None,
        password_md5: bool = False,
        use_api: bool = False,
        user_agent: str = DEFAULT_USER_AGENT,
        generation: Generation | str | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.transport = Transport(
            http, base_url, user_agent=user_agent, cookie_path=cookie_path,
            min_interval=min_interval, clock=clock, sleep=sleep, retry_policy=retry_policy,
            charset=charset, stop=stop,
        )
        self.username = username
        self._password_source = password_source
        self.question = question
        # X3.5 hashes with password_hash(): send plain text. ≤X3.4 UCenter also accepts
        # the 32-hex md5 the site JS (pwmd5) sends; set this for such forums.
        self.password_md5 = password_md5
        self.tz = tz
        self._clock = clock
        self._use_api = use_api
        self.uid: int | None = None
        self._formhash: str | None = None
        self._fids: dict[int, int] = {}
        self._locked_until: float | None = None
        self._login_blocked: ForumRefused | None = None
        chosen = Generation(generation) if generation not in (None, "auto") else None
        self._dialect: Dialect | None = DIALECTS[chosen]() if chosen is not None else None
        self._logged_in = auth_cookie(self.http.cookies) is not None
        # The write clock (client clock seconds): the last stored post or PM, the last PM.
        self._last_write_at: float | None = None
        self._last_pm_at: float | None = None

    def __repr__(self) -> str:
        return f"DiscuzClient({self.base_url!r}, username={self.username!r})"

    # ------------------------------------------------------------------ state

    @property
    def http(self) -> httpx.Client:
        return self.transport.http

    @property
    def base_url(self) -> str:
        return self.transport.base_url

    @property
    def charset(self) -> str:
        return self.transport.charset

    @property
    def request_count(self) -> int:
        return self.transport.request_count

    @property
    def logged_in(self) -> bool:
        return self._logged_in and auth_cookie(self.http.cookies) is not None

    @property
    def generation(self) -> Generation | None:
        """The Discuz generation in use (None until the first request detects it)."""
        return self._dialect.generation if self._dialect is not None else None

    @property
    def use_api(self) -> bool:
        """Read threads through the mobile API (only where the generation has one)."""
        return self._use_api and (self._dialect is None or self._dialect.has_mobile_api)

    @use_api.setter
    def use_api(self, on: bool) -> None:
        self._use_api = bool(on)

    @property
    def login_blocked(self) -> ForumRefused | None:
        """The refusal of the failed login that stops further attempts, or None."""
        return self._login_blocked

    def reset_login(self) -> None:
        """Allow logging in again (the operator fixed the account). Discuz's own 15-minute
        lock-out is still honoured without asking the forum."""
        self._login_blocked = None

    def adopt_saved_session(self) -> bool:
        """Take the session another process saved in the cookie file (``forumbot login``
        after the operator fixed the account): the login block is lifted and the saved
        jar replaces this one, without a login request. True when it holds a login."""
        self._login_blocked = None
        self._locked_until = None
        store = self.transport.store
        if store is None:
            return self.logged_in
        self.http.cookies.clear()
        store.load(self.http.cookies)
        self._logged_in = auth_cookie(self.http.cookies) is not None
        self._formhash = None  # the new session's formhash is read with the next page
        self.uid = None
        return self._logged_in

    def dialect(self) -> Dialect:
        """The dialect for this forum, detected from its front page on first use."""
        if self._dialect is None:
            response, _ = self.transport.call("GET", "", follow=True)
            found = detect_generation(self.transport.text_of(response))
            if found is None:
                raise UnexpectedPage(
                    f"{self.base_url} 看起来不是 Discuz! X3 或 7.2 论坛（首页没有 generator 标记，"
                    "也没有 Discuz 的链接）；请检查 [forum].base_url，或设置 "
                    '[forum].discuz = "x3" 或 "7.2"', response=response)
            self._dialect = DIALECTS[found]()
            log.info("%s 是 Discuz! %s 论坛", self.base_url, found.value)
        return self._dialect

    def save_session(self) -> None:
        self.transport.save_session()

    @property
    def unreachable(self) -> bool:
        """A request spent its retries without reaching the forum: nothing more is sent
        until :meth:`forget_unreachable`."""
        return self.transport.unreachable is not None

    def forget_unreachable(self) -> None:
        """Try the forum again on the next request (the agent calls it after each pass)."""
        self.transport.forget_unreachable()

    # ------------------------------------------------------------------ session

    def login(self) -> int:
        """Log in; returns the uid. Raises a typed refusal otherwise — and after a failed
        attempt, :class:`LoginBlocked` without asking the forum until :meth:`reset_login`."""
        if not self.username or self._password_source is None:
            raise ValueError("登录要有用户名和密码来源（password_source）")
        if self._locked_until is not None and self._clock() < self._locked_until:
            raise LoginLockedOut(
                "论坛因失败次数过多暂时锁定了登录；暂不再尝试",
                key="login_strike",
            )
        if self._login_blocked is not None:
            raise LoginBlocked(self._login_blocked)
        try:
            return self._login()
        except ForumRefused as error:
            if not isinstance(error, (SiteClosed, BadFormHash)):
                self._login_blocked = error
                log.warning("以 %s 登录失败（%s）；账号问题解决之前不再尝试登录",
                            self.username, error.message)
            if isinstance(error, LoginLockedOut):
                self._locked_until = self._clock() + LOCKOUT_SECONDS
            raise

    def _login(self) -> int:
        dialect = self.dialect()
        response, reply = self.transport.call("GET", dialect.login_form_path())
        if reply.kind is ReplyKind.REFUSED:
            raise refusal_for(reply)
        if reply.key == "login_succeed" and auth_cookie(self.http.cookies) is not None:
            # The jar's session is still good: the forum answers 欢迎您回来 to the form.
            return self._logged_in_as(page_facts(response), formhash=None)
        form = FormPage(self.transport.text_of(response), str(response.request.url))
        if dialect.has_captcha(form.text):
            raise CaptchaRequired(
                "登录表单要求验证码；机器人不能填写验证码（论坛管理员可以让机器人所在的用户组"
                "免登录验证码）", key="captcha_required")
        submit = dialect.login_submit(form, Credentials(self.username or "", self._password(), self.question))
        try:
            response, reply = self.transport.call(
                "POST", submit.path, data=submit.fields, referer=submit.referer, idempotent=False)
        finally:
            submit.fields.clear()  # drop our only reference to the password
        if reply.kind is ReplyKind.REFUSED or reply.key == "location_activation":
            raise refusal_for(reply)
        if reply.kind is not ReplyKind.SUCCESS or auth_cookie(self.http.cookies) is None:
            raise UnknownRefusal(
                reply.message or "登录的回应里没有登录 cookie",
                key=reply.key, values=reply.values, response=response,
            )
        self.uid = int(reply.values["uid"]) if reply.values.get("uid", "").isdigit() else None
        # The formhash changes at login (DISCUZ.md §1.5): read it, and the uid, afresh.
        if dialect.after_login_path is not None:
            response, _ = self.transport.call("GET", dialect.after_login_path)
            facts = page_facts(response)
            return self._logged_in_as(facts, formhash=facts.get("formhash") or self._formhash)
        # The answer page was rendered before the login took: its formhash is a guest's.
        return self._logged_in_as(page_facts(response), formhash=None)

    def _logged_in_as(self, facts: dict[str, str], *, formhash: str | None) -> int:
        self._logged_in = True
        self._formhash = formhash
        self.uid = int(facts.get("uid", "0")) or self.uid
        if not self.uid:
            self._logged_in = False
            raise UnknownRefusal("已登录，但下一个页面显示的是游客", key="login_required")
        self.save_session()
        log.info("已以 %s 登录 %s（uid %d）", self.username, self.base_url, self.uid)
        return self.uid

    def ensure_logged_in(self) -> int | None:
        """Log in unless the jar already holds an auth cookie; returns the uid if known.
        Without credentials the client stays a guest (the forum says no to writes)."""
        if self.logged_in or not (self.username and self._password_source is not None):
            return self.uid
        return self.login()

    def _password(self) -> str:
        assert self._password_source is not None
        password = self._password_source()
        if self.password_md5:
            return hashlib.md5(password.encode("utf-8")).hexdigest()
        return password

    def _can_relogin(self) -> bool:
        return bool(self.username) and self._password_source is not None and self._login_blocked is None

    def _relogin(self, why: str) -> None:
        log.warning("登录已失效（%s）；重新登录", why)
        self._logged_in = False
        self._formhash = None
        self.login()

    # ------------------------------------------------------------------ reading

    def check_api(self) -> bool:
        """Probe ``module=check``; turns mobile-API reading on when the plugin answers.
        Generations without the API (7.2) say no without asking."""
        if not self.dialect().has_mobile_api:
            self._use_api = False
            return False
        response, _ = self.transport.call("GET", "api/mobile/index.php?version=4&module=check")
        try:
            doc = response.json()
        except ValueError:
            doc = None
        on = isinstance(doc, dict) and bool(doc.get("discuzversion") or doc.get("pluginversion"))
        if on and isinstance(doc.get("charset"), str):
            self.transport.adopt_charset(doc["charset"])
        self._use_api = on
        return on

    def fetch_page(self, tid: int, page: int = 1) -> ThreadPage:
        """One thread page (mobile API when on, HTML otherwise); re-login once if expired."""
        result = self._fetch_page_once(tid, page)
        if self._logged_in and result.viewer_uid == 0 and self._can_relogin():
            self._relogin(f"帖子 {tid} 第 {page} 页显示的是游客")
            result = self._fetch_page_once(tid, page)
            if result.viewer_uid == 0:
                raise NotLoggedIn("重新登录后仍是游客", key="login_required")
        return result

    def _fetch_page_once(self, tid: int, page: int) -> ThreadPage:
        path = self.dialect().thread_path(tid, page, api=self.use_api)
        response, reply = self.transport.call("GET", path, follow=True)
        if reply.kind is ReplyKind.REFUSED:
            # Every message viewthread can show is in the key table except the site-closed
            # reason, which is the admin's free text: an unknown message here is that.
            raise refusal_for(reply, default=SiteClosed)
        result = self._read(response, f"帖子 {tid} 第 {page} 页")
        if result.formhash:
            self._formhash = result.formhash
        fid = reply.values.get("fid") or page_facts(response).get("fid")
        if fid and fid.isdigit() and int(fid) > 0:
            self._fids[tid] = int(fid)
        return result

    def _read(self, response: httpx.Response, what: str) -> ThreadPage:
        try:
            return read_page(response.content, content_type=response.headers.get("content-type"),
                             source=str(response.request.url), tz=self.tz)
        except RobotPageError as err:
            raise RobotPage(
                f"{what}：论坛给的是给搜索引擎看的页面（帖子没有楼层链接）：Discuz 把 User-Agent "
                f"{self.transport.user_agent!r} 当成了搜索引擎；请把 [bot].user_agent 设为电脑浏览器的 "
                "User-Agent", response=response) from err
        except PageParseError as err:
            raise UnexpectedPage(f"{what}：不是能读的帖子页面：{err}", response=response) from err

    def read_board(self, fid: int, page: int = 1) -> BoardPage:
        """One page of board ``fid``'s thread listing, newest last post first (mobile API
        when on, HTML otherwise): every thread's reply count and last post in one request.

        A board the forum will not list (nonexistent, hidden from this account, site
        closed) raises its ForumRefused; a page that is no listing, UnexpectedPage. An
        expired session is logged in again once, as for thread pages."""
        result = self._read_board_once(fid, page)
        if self._logged_in and result.viewer_uid == 0 and self._can_relogin():
            self._relogin(f"版块 {fid} 的主题列表显示的是游客")
            result = self._read_board_once(fid, page)
            if result.viewer_uid == 0:
                raise NotLoggedIn("重新登录后仍是游客", key="login_required")
        return result

    def _read_board_once(self, fid: int, page: int) -> BoardPage:
        path = self.dialect().board_path(fid, page, api=self.use_api)
        response, reply = self.transport.call("GET", path, follow=True)
        if reply.kind is ReplyKind.REFUSED:
            raise refusal_for(reply, default=SiteClosed)
        try:
            board = read_board(response.content, content_type=response.headers.get("content-type"),
                               source=str(response.request.url), tz=self.tz,
                               now=_server_time(response, self.tz))
        except PageParseError as err:
            raise UnexpectedPage(f"版块 {fid} 第 {page} 页：不是能读的主题列表：{err}",
                                 response=response) from err
        if board.formhash:
            self._formhash = board.formhash
        for row in board.threads:
            if not row.sticky and board.fid:
                self._fids.setdefault(row.tid, board.fid)  # global stickies live elsewhere
        return board

    def read_new(
        self, cursor: ThreadCursor, *, on_page: Callable[[int, int], None] | None = None,
        max_pages: int | None = None,
    ) -> tuple[list[Post], ThreadCursor]:
        """Posts of every page from the cursor's last page on, and the advanced cursor.

        Returns all posts of the pages fetched (so edits of posts on the last page come
        back too); ``cursor.is_new(post)`` (the *old* cursor) tells which are new. A poll
        with nothing new costs one request: the last page, whose pids are all known and
        whose page count did not grow. A fresh ``ThreadCursor(tid)`` reads the whole
        thread; ``on_page(page, total)`` is told after each page (a progress bar).
        ``max_pages`` stops after that many pages: the cursor then stands on the last page
        read (``last_page < total_pages``) and the next call reads on from there.
        """
        first = self.fetch_page(cursor.tid, cursor.last_page)
        if first.page < cursor.last_page:
            log.info(
                "帖子 %d：要第 %d 页，论坛给了第 %d 页（有帖子被删除，页数变少了）",
                cursor.tid, cursor.last_page, first.page,
            )
        seen: dict[int, Post] = {}
        pages = [first]
        current, total = first.page, first.total_pages
        if on_page:
            on_page(current, total)
        while current < total and (max_pages is None or len(pages) < max_pages):
            following = self.fetch_page(cursor.tid, current + 1)
            if following.page <= current:  # clamped: the thread shrank meanwhile
                break
            pages.append(following)
            current, total = following.page, following.total_pages
            if on_page:
                on_page(current, total)
        for p in pages:
            for post in p.posts:
                seen.setdefault(post.pid, post)  # stuck replies repeat: dedupe by pid
        posts = list(seen.values())
        last_pid = max([cursor.last_pid, *(p.pid for p in posts)])
        new_cursor = ThreadCursor(
            tid=cursor.tid,
            last_page=current,
            last_pid=last_pid,
            total_pages=max(total, current),
            ppp=first.posts_per_page or cursor.ppp,
        )
        return posts, new_cursor

    def find_post_by_marker(
        self, tid: int, marker: str, *, since_pid: int | None = None, max_pages: int = 3,
        include_pending: bool = False,
    ) -> Post | None:
        """The bot's own newest post in ``tid`` containing ``marker`` (after a lost reply).

        A post still awaiting moderation (shown to its author marked 待审核) is not taken
        unless ``include_pending``: it is not published yet. Once a moderator releases it,
        it reads like any post and is found wherever it landed in the thread."""
        first = self.fetch_page(tid, 1)
        page_no = first.total_pages
        result = first
        for _ in range(max_pages):
            if result.page != page_no:
                result = self.fetch_page(tid, page_no)
            for post in reversed(result.posts):
                if since_pid is not None and post.pid <= since_pid:
                    continue
                if post.notice is ContentNotice.MODERATION_PENDING and not include_pending:
                    continue
                if self._is_mine(post) and (marker in post.text or marker in post.html):
                    return post
            lowest = min((p.pid for p in result.posts), default=0)
            if page_no <= 1 or (since_pid is not None and lowest <= since_pid):
                return None
            page_no -= 1
        return None

    def _is_mine(self, post: Post) -> bool:
        if self.uid and post.author_uid is not None:
            return post.author_uid == self.uid
        if self.username is None or post.author is None:
            return self.username is None
        return unicodedata.normalize("NFKC", post.author) == unicodedata.normalize("NFKC", self.username)

    # ------------------------------------------------------------------ writing

    def reply(
        self, tid: int, message: str, *, fid: int | None = None, quote_pid: int | None = None,
        wait_for_flood: bool = True,
    ) -> ReplyResult:
        """Post a reply; its pid, and whether the forum holds it for moderation.

        Never re-sent when the POST may have reached the server (ForumUnavailable with
        ``sent``): look for the marker with :meth:`find_post_by_marker` first.

        ``wait_for_flood=False``: for a message that is out of date once the forum's flood
        interval has passed (a running count, rendered for the moment it is sent): flood
        control is raised (``FloodControl``, its ``seconds``) instead of waited out and the
        same text sent again, and so is the wait X3.5 wants after a PM — nothing is sent,
        the caller waits, renders again and sends that.
        """
        self._require_login()

        def attempt() -> ReplyResult:
            dialect = self.dialect()
            self._wait_for_write_clock(pm_next=False, wait=wait_for_flood)
            submit = dialect.prepare_reply(self, tid, fid, message, quote_pid)
            reply = self._submit(submit)
            if reply.kind is ReplyKind.SUCCESS:
                self._last_write_at = self._clock()
                return _reply_result(reply)
            if reply.kind is not ReplyKind.REFUSED:
                raise UnexpectedPage(f"回复帖子 {tid}：论坛回了一个 {reply.kind} 页面")
            raise refusal_for(reply)

        return self._with_second_chances(attempt, f"回复帖子 {tid}", wait_for_flood=wait_for_flood)

    def edit(self, tid: int, pid: int, message: str, *, fid: int | None = None,
             wait_for_flood: bool = True) -> ReplyResult:
        """Replace the text of post ``pid`` (the bot's own) through the edit form. In a board
        that moderates replies the edited post is held again (``moderated``).
        ``wait_for_flood``: as for :meth:`reply`."""
        self._require_login()

        def attempt() -> ReplyResult:
            submit = self.dialect().prepare_edit(self, tid, pid, fid, message)
            result = self._submit(submit)
            if result.kind is ReplyKind.SUCCESS:
                return ReplyResult(pid=pid, moderated=result.moderated
                                   or result.values.get("reply_mod") == "1")
            if result.kind is not ReplyKind.REFUSED:
                raise UnexpectedPage(f"编辑 pid {pid}：论坛回了一个 {result.kind} 页面")
            raise refusal_for(result)

        return self._with_second_chances(attempt, f"编辑 pid {pid}", wait_for_flood=wait_for_flood)

    def new_thread(self, fid: int, subject: str, message: str, *,
                   wait_for_flood: bool = True) -> NewThreadResult:
        """Open a new thread in board ``fid``: its tid (and first pid where the forum names
        it), and whether the forum holds it for moderation.

        The refusals are a reply's (flood control waited out once unless
        ``wait_for_flood`` is off, a stale formhash read again, a lost session logged in
        again; captcha, newbie period, no permission, too long… raised). Never re-sent when
        the POST may have reached the forum (``ForumUnavailable.sent``), nor when the forum
        said it stored the thread without naming it: look for it with
        :meth:`find_thread_by_marker` first."""
        if not subject.strip():
            raise ValueError("新帖要有标题")
        if not message.strip():
            raise ValueError("新帖内容为空")
        self._require_login()

        def attempt() -> NewThreadResult:
            dialect = self.dialect()
            self._wait_for_write_clock(pm_next=False, wait=wait_for_flood)
            submit = dialect.prepare_new_thread(self, fid, subject, message)
            reply = self._submit(submit)
            if reply.kind is ReplyKind.SUCCESS:
                self._last_write_at = self._clock()
                result = _new_thread_result(reply)
                if result.tid is None and not result.moderated:
                    # Stored (the forum said so) but unnamed: the caller must look, not resend.
                    raise UnexpectedPage(f"在版块 {fid} 发新帖：论坛说已发布，却没有给出 tid")
                if result.tid is not None:
                    self._fids[result.tid] = fid
                log.info("已在版块 %d 发新帖（tid %s%s）", fid, result.tid,
                         "，等待审核" if result.moderated else "")
                return result
            if reply.kind is not ReplyKind.REFUSED:
                raise UnexpectedPage(f"在版块 {fid} 发新帖：论坛回了一个 {reply.kind} 页面")
            raise refusal_for(reply)

        return self._with_second_chances(attempt, f"在版块 {fid} 发新帖", wait_for_flood=wait_for_flood)

    def find_thread_by_marker(self, fid: int, marker: str, *, max_pages: int = 2,
                              skip: Collection[int] = ()) -> NewThreadResult | None:
        """The thread of board ``fid`` whose first post is the bot's own and carries
        ``marker`` (after a new thread whose answer was lost), or None.

        The board listing (newest activity first, :meth:`read_board`) gives the candidate
        threads: those the bot's account started, tids in ``skip`` (threads already
        known) left out; each candidate's first page is read for its first post. A thread
        held for moderation is listed to no one and is not found until released."""
        self._require_login()  # the bot's own uid tells its threads; a board may bar guests
        for page_no in range(1, max_pages + 1):
            board = self.read_board(fid, page_no)
            for row in board.threads:
                if row.tid in skip or not self._started_by_me(row.author_uid, row.author):
                    continue
                first = self.fetch_page(row.tid, 1)
                post = next((p for p in first.posts if p.floor == 1), None)
                if post is None and first.posts and first.page == 1:
                    post = first.posts[0]
                if post is not None and self._is_mine(post) and (
                        marker in post.text or marker in post.html):
                    return NewThreadResult(tid=row.tid, pid=post.pid)
            if page_no >= board.total_pages:
                break
        return None

    def _started_by_me(self, uid: int | None, name: str | None) -> bool:
        if self.uid and uid:
            return uid == self.uid
        if self.username is None or name is None:
            return self.username is None
        return unicodedata.normalize("NFKC", name) == unicodedata.normalize("NFKC", self.username)

    def may_moderate(self, fid: int) -> bool:
        """Whether the bot's account moderates board ``fid`` (so it may close its threads).

        Asks the forum's thread moderation with no thread named — nothing changes: a
        non-moderator is refused first (admin_nopermission), a moderator is told no thread
        was chosen. A group that moderates but may not close threads
        (``allowclosethread`` off) still reads as True; closing then raises
        :class:`ModerationNotAllowed`."""
        self._require_login()

        def attempt() -> bool:
            _, reply = self.transport.call("GET", self.dialect().moderation_probe_path(fid))
            if reply.kind is ReplyKind.REFUSED:
                if reply.key in ("admin_nopermission", "no_privilege_closethread"):
                    return False
                if reply.key == "admin_moderate_invalid":
                    return True
                raise refusal_for(reply)
            return reply.kind in (ReplyKind.PAGE, ReplyKind.SUCCESS)

        return self._with_second_chances(attempt, f"查看版块 {fid} 的管理权限")

    def close_thread(self, tid: int, *, fid: int | None = None) -> None:
        """Close (lock) thread ``tid``: the forum refuses replies to it from then on (X3:
        the thread's 关闭 moderation; 7.2: 关闭主题). :class:`ModerationNotAllowed` when
        the account does not moderate its board. Closing a closed thread is no error."""
        self._moderate_close(tid, fid, close=True)

    def open_thread(self, tid: int, *, fid: int | None = None) -> None:
        """Open a closed thread ``tid`` again (X3: 打开; 7.2: 打开主题)."""
        self._moderate_close(tid, fid, close=False)

    def _moderate_close(self, tid: int, fid: int | None, *, close: bool) -> None:
        self._require_login()
        what = f"{'关闭' if close else '打开'}帖子 {tid}"

        def attempt() -> None:
            board = fid or self.fid_for(tid)
            if board is None:
                self.fetch_page(tid, 1)  # the thread's board, from its page
                board = self.fid_for(tid)
            if board is None:
                raise UnexpectedPage(f"{what}：不知道它在哪个版块")
            submit = self.dialect().prepare_close(self, board, tid, close)
            reply = self._submit(submit)
            if reply.kind is ReplyKind.REFUSED:
                raise refusal_for(reply)
            # X3.5 answers 管理操作成功 (ajax); 7.2 a 302 back (admin_succeed is a quick forward).
            if reply.kind not in (ReplyKind.SUCCESS, ReplyKind.REDIRECT):
                raise UnexpectedPage(f"{what}：论坛回了一个 {reply.kind} 页面")
            log.info("已%s", what)

        self._with_second_chances(attempt, what)

    def quote_for(self, tid: int, quote_pid: int) -> str:
        """The quote block the forum's reply form puts before a reply to ``quote_pid``."""
        return self.dialect().quote_for(self, tid, quote_pid)

    def _submit(self, submit: Submit) -> ForumReply:
        _, reply = self.transport.call("POST", submit.path, data=submit.fields,
                                       referer=submit.referer, idempotent=False)
        return reply

    def _require_login(self) -> None:
        if self._login_blocked is not None:
            raise LoginBlocked(self._login_blocked)
        self.ensure_logged_in()

    def _with_second_chances(self, attempt: Callable[[], T], what: str, *,
                             wait_for_flood: bool = True) -> T:
        """Run ``attempt``; each curable refusal gets one more try: flood control after
        the interval the forum names (unless ``wait_for_flood`` is off: then it is the
        caller's to wait), a stale formhash after reading it again, a lost session after
        logging in again. Anything else, or a second time, is raised."""
        flood_waited = formhash_renewed = relogged = False
        while True:
            try:
                return attempt()
            except FloodControl as error:
                if flood_waited or not wait_for_flood:
                    raise
                wait = error.seconds or DEFAULT_FLOODCTRL
                log.warning("%s 遇到论坛的灌水限制：等 %.0f 秒后再发一次", what, wait)
                self.transport.pause(wait)
                flood_waited = True
            except BadFormHash:
                if formhash_renewed:
                    raise
                log.warning("%s 的 formhash 被拒绝：重新读取", what)
                self._formhash = None
                formhash_renewed = True
            except NotLoggedIn as error:
                if relogged or isinstance(error, LoginBlocked) or not self._can_relogin():
                    raise
                self._relogin(f"{what}被当作游客拒绝")
                relogged = True

    # ------------------------------------------------------------------ private messages

    def send_pm(self, to: int | str, text: str) -> PmSent:
        """Send ``text`` to a user by uid (``int``) or user name (``str``).

        The pmid comes back when the forum's answer names it (X3.5 popup and mobile API,
        7.2 with a uid); a send by name uses the full-page forms, which name none. A PM
        refused for flood control is sent once more after the wait (X3.5's clock is the
        one thread replies use: a PM right after a reply waits, it does not fail). Never
        re-sent when the POST may have reached the forum (``ForumUnavailable.sent``):
        look for it with :meth:`find_own_pm` first, as for a reply."""
        if isinstance(to, bool) or not isinstance(to, (int, str)) or not to:
            raise ValueError(f"发站内信要有 uid 或用户名，而不是 {to!r}")
        if not text.strip():
            raise ValueError("站内信内容为空")
        self._require_login()
        uid, name = (to, None) if isinstance(to, int) else (None, to)

        def attempt() -> PmSent:
            pm = self._pm()
            self._wait_for_write_clock(pm_next=True)
            try:
                sent = pm.send(self, uid, name, text)
            except ForumUnavailable as error:
                if error.sent:  # it may be stored: it counts on the forum's clock
                    self._last_write_at = self._last_pm_at = self._clock()
                raise
            self._last_write_at = self._last_pm_at = self._clock()
            return sent

        sent = self._with_second_chances(attempt, f"给 {to!r} 发站内信")
        log.info("已给 %s 发站内信（pmid %s，%s）", f"uid {to}" if isinstance(to, int) else to, sent.pmid, sent.via)
        return sent

    def read_conversation(self, uid: int, *, since_id: int | None = None,
                          seen_at: datetime | None = None) -> list[PrivateMessage]:
        """The messages exchanged with ``uid``, oldest first; with ``since_id`` only those
        with a higher pmid (pmids grow site-wide), fetching no more than needed. Opening a
        conversation marks it read on the forum. A message sent in the current second is
        not listed yet: it comes with the next read. ``seen_at``: when a read listed
        everything up to ``since_id`` — 7.2 then reads one date window, not three."""
        self._require_login()
        return self._with_second_chances(
            lambda: self._pm().conversation(self, uid, since_id, seen_at), f"与 uid {uid} 的站内信")

    def find_own_pm(self, uid: int, marker: str, *, since_id: int | None = None) -> PrivateMessage | None:
        """The newest message the bot sent to ``uid`` containing ``marker`` — to settle a
        send whose answer was lost, or one sent by name (no pmid), before sending again.

        None means *not listed yet*, not *not sent*: the forum lists no message of the
        current second. Conclude that a send was lost only when a read that began at
        least ``forumbot.discuz.pm.PM_SETTLE_SECONDS`` after the attempt does not show
        it (the outbox records the attempt's time before sending)."""
        for message in reversed(self.read_conversation(uid, since_id=since_id)):
            if message.own and marker in message.text:
                return message
        return None

    def unread_conversations(self) -> list[PmConversation]:
        """The inbox's conversations with unread messages (one request). Opening the
        inbox turns the forum's header indicator off, not the conversations' unread."""
        self._require_login()
        return self._with_second_chances(lambda: self._pm().unread(self), "未读站内信")

    def has_new_pm(self) -> bool:
        """Whether any conversation has an unread message (one request)."""
        return bool(self.unread_conversations())

    def _pm(self) -> PmDialect:
        return self.dialect().pm()

    def _wait_for_write_clock(self, *, pm_next: bool, wait: bool = True) -> None:
        """X3.5: a PM waits 16 s after the last post or PM (the sender's ``lastpost``);
        a thread reply waits as long after a PM (the MANIFEST's word; harmless if the
        forum would have taken it). 7.2 keeps no shared clock. ``wait=False``: the wait
        is raised as ``FloodControl`` (nothing sent) for the caller to wait out."""
        if self._dialect is None or not self._dialect.pm.shared_write_clock:
            return
        last = self._last_write_at if pm_next else self._last_pm_at
        if last is None:
            return
        remaining = X3_WRITE_SPACING - (self._clock() - last)
        if remaining > 0 and not wait:
            raise FloodControl(f"距上一条短消息不到 {X3_WRITE_SPACING:g} 秒（论坛的发帖间隔）：稍后再发",
                               key="post_flood_ctrl", values={"floodctrl": str(math.ceil(remaining))})
        if remaining > 0:
            log.info("等 %.0f 秒：论坛的灌水限制对帖子和站内信一起计时", remaining)
            self.transport.pause(remaining)

    # ------------------------------------------------------------------ what PM dialects ask

    def pm_formhash(self, page: str) -> str:
        """The session's formhash; read from ``page`` (a PM form) when not known yet."""
        if not self._formhash:
            response, reply = self.transport.call("GET", page)
            if reply.kind is ReplyKind.REFUSED:
                raise self._pm_refusal(reply)
            self._formhash = page_facts(response).get("formhash")
            if not self._formhash:
                raise UnexpectedPage(f"{page} 里没有 formhash", response=response)
        return self._formhash

    def pm_post(self, path: str, fields: dict[str, str], what: str, *, node: bool = False,
                referer: str | None = None) -> tuple[httpx.Response, ForumReply]:
        """POST a PM form; a refusal raises its exception. ``node``: the answer is a
        page fragment (7.2's new message), not a message."""
        response, reply = self.transport.call("POST", path, data=fields,
                                              referer=referer or self.base_url + path,
                                              idempotent=False)
        if reply.kind is ReplyKind.REFUSED:
            raise self._pm_refusal(reply)
        if reply.kind is not ReplyKind.SUCCESS and not (node and reply.kind is ReplyKind.PAGE):
            raise UnexpectedPage(f"{what}：论坛回了一个 {reply.kind} 页面", response=response)
        return response, reply

    def pm_page(self, path: str, what: str) -> PmPage:
        response, reply = self.transport.call("GET", path)
        if reply.kind is ReplyKind.REFUSED:
            raise self._pm_refusal(reply)
        page = self.pm_read(response, what)
        if page.formhash:
            self._formhash = page.formhash
        return page

    def pm_read(self, response: httpx.Response, what: str) -> PmPage:
        try:
            return read_pm_page(response.content, content_type=response.headers.get("content-type"),
                                source=str(response.request.url), tz=self.tz,
                                now=_server_time(response, self.tz))
        except PageParseError as err:
            raise UnexpectedPage(f"{what}：不是能读的站内信页面：{err}", response=response) from err

    def forum_now(self) -> datetime:
        return datetime.now(self.tz)

    def _pm_refusal(self, reply: ForumReply) -> ForumRefused:
        if reply.key == "robot_forbidden":
            return RobotForbidden(
                "论坛回了 403 和空页面：Discuz 把 User-Agent "
                f"{self.transport.user_agent!r} 当成了搜索引擎（7.2 的 pm.php 拒绝搜索引擎）；"
                "请把 [bot].user_agent 设为电脑浏览器的 User-Agent", key=reply.key, response=reply.response)
        return refusal_for(reply)

    # ------------------------------------------------------------------ what dialects ask

    def form(self, path: str) -> FormPage:
        response, reply = self.transport.call("GET", path)
        if reply.kind is ReplyKind.REFUSED:
            raise refusal_for(reply)
        # X3's thread moderation answers every request as ajax: the form is in the CDATA.
        return FormPage(unwrap_ajax(self.transport.text_of(response)), str(response.request.url))

    def reply_form(self, tid: int) -> FormPage:
        """The reply form of ``tid``, read and never posted (``forumbot check``): a refusal
        page raises its ForumRefused; whether it asks a captcha is :meth:`asks_captcha`."""
        if tid not in self._fids:
            self.fetch_page(tid, 1)
        return self.form(self.dialect().reply_form_path(tid, self.fid_for(tid)))

    def asks_captcha(self, form: FormPage) -> bool:
        return self.dialect().has_captcha(form.text)

    def fid_for(self, tid: int) -> int | None:
        return self._fids.get(tid)

    def formhash_for(self, tid: int) -> str:
        if self._formhash is None or tid not in self._fids:
            self.fetch_page(tid, 1)
        if not self._formhash:
            raise UnexpectedPage(f"帖子 {tid} 的页面里没有 formhash")
        return self._formhash

    def find_post(self, tid: int, pid: int) -> Post:
        path = self.dialect().findpost_path(tid, pid)
        response, reply = self.transport.call("GET", path, follow=True)
        if reply.kind is ReplyKind.REFUSED:
            raise refusal_for(reply)
        for post in self._read(response, f"查找 pid {pid}").posts:
            if post.pid == pid:
                return post
        raise PostNotFound(f"帖子 {tid} 里找不到 pid {pid}", key="post_nonexistence")


def _server_time(response: httpx.Response, tz: tzinfo) -> datetime:
    """The forum's clock from the answer's Date header (relative times are relative to
    it); the local clock when there is none."""
    try:
        return parsedate_to_datetime(response.headers["date"]).astimezone(tz)
    except (KeyError, TypeError, ValueError):
        return datetime.now(tz)


def _new_thread_result(reply: ForumReply) -> NewThreadResult:
    tid = reply.values.get("tid", "")
    pid = reply.pid if reply.pid and reply.pid > 0 else None
    return NewThreadResult(tid=int(tid) if tid.isdigit() and int(tid) > 0 else None, pid=pid,
                           moderated=reply.moderated)


def _reply_result(reply: ForumReply) -> ReplyResult:
    pid = reply.pid if reply.pid and reply.pid > 0 else None
    page = reply.values.get("page")
    # X3.5 names the pid of a held reply ({'pid':'24','reply_mod':'1'}, 回复需要审核);
    # 7.2 and older X3 answers name none. Either way it is not visible yet.
    moderated = reply.moderated or reply.values.get("reply_mod") == "1" or pid is None
    return ReplyResult(pid=pid, moderated=moderated, page=int(page) if page and page.isdigit() else None)
