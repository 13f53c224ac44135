"""``DiscuzClient``: log in, read thread pages, reply and edit on a Discuz! forum.

Layers, outermost first (prawcore's shape):

* operations (``login``, ``fetch_page``, ``read_new``, ``reply``, ``edit``…) that know the
  Discuz endpoints and react to typed refusals (flood control → wait and retry once; bad
  formhash → re-read and retry once; expired session → log in again once);
* :func:`forumbot.retry.call_with_retry` around every single request: GETs retry with
  jittered backoff on :class:`ForumUnavailable`; a POST only when it surely never left;
* :meth:`DiscuzClient._send`: throttle, one HTTP exchange, transport errors →
  :class:`ForumUnavailable`, then :func:`forumbot.responses.classify`.

The password comes from ``password_source`` at the moment of login, lives in a local
variable for one request and is never logged, stored or put in a message.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
import unicodedata
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import Callable
from urllib.parse import urlencode, urljoin, urlsplit
from zoneinfo import ZoneInfo

import httpx
from bs4 import BeautifulSoup

from forumbot.errors import (
    BadFormHash,
    CaptchaRequired,
    FloodControl,
    ForumUnavailable,
    LoginLockedOut,
    NotLoggedIn,
    PostNotFound,
    SiteClosed,
    UnavailableReason,
    UnexpectedPage,
    UnknownRefusal,
    refusal_for,
)
from forumbot.responses import ForumReply, ReplyKind, classify, page_facts
from forumbot.retry import DEFAULT, RetryPolicy, call_with_retry
from forumbot.session import CookieStore, auth_cookie
from forumbot.throttle import Throttle
from parsers.charset import decode
from parsers.errors import PageParseError
from parsers.models import Post, ThreadPage

__all__ = ["DiscuzClient", "ReplyResult", "ThreadCursor", "build_quote"]

log = logging.getLogger("forumbot.client")

USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) forumbot/0.1"
LOCKOUT_SECONDS = 15 * 60  # Discuz login_strike window
DEFAULT_FLOODCTRL = 15.0  # when the forum's flood message names no number
_CAPTCHA = re.compile(r"updateseccode\(|updatesecqaa\(")
_LOGINHASH = re.compile(r"loginhash=(\w+)")
_MAX_REDIRECTS = 3


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
    pid: int | None  # None when the reply awaits moderation
    moderated: bool = False
    page: int | None = None


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
        sleep: Callable[[float], None] = time.sleep,
        retry_policy: RetryPolicy = DEFAULT,
        tz: tzinfo = ZoneInfo("Asia/Shanghai"),
        charset: str | None = None,
        password_md5: bool = False,
        use_api: bool = False,
    ) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/") + "/"
        self.username = username
        self._password_source = password_source
        self.question = question
        # X3.5 hashes with password_hash(): send plain text. ≤X3.4 UCenter also accepts
        # the 32-hex md5 the site JS (pwmd5) sends; set this for such forums.
        self.password_md5 = password_md5
        self.tz = tz
        self._charset_fixed = charset is not None
        self._charset = charset or "utf-8"
        self.retry_policy = retry_policy
        self._clock = clock
        self._sleep = sleep
        self.throttle = Throttle(min_interval, clock, sleep)
        self.request_count = 0
        self.use_api = use_api
        self.uid: int | None = None
        self._formhash: str | None = None
        self._fids: dict[int, int] = {}
        self._locked_until: float | None = None
        self._store = CookieStore(cookie_path) if cookie_path is not None else None
        if self._store is not None and self._store.load(self.http.cookies):
            log.info("loaded saved forum session from %s", self._store.path)
        self._logged_in = auth_cookie(self.http.cookies) is not None

    def __repr__(self) -> str:
        return f"DiscuzClient({self.base_url!r}, username={self.username!r})"

    @property
    def charset(self) -> str:
        return self._charset

    @property
    def logged_in(self) -> bool:
        return self._logged_in and auth_cookie(self.http.cookies) is not None

    # ------------------------------------------------------------------ session

    def login(self) -> int:
        """Log in with the ajax form; returns the uid. Raises a typed refusal otherwise."""
        if not self.username or self._password_source is None:
            raise ValueError("login needs a username and a password_source")
        if self._locked_until is not None and self._clock() < self._locked_until:
            raise LoginLockedOut(
                "login locked out by the forum (too many failures); not trying again yet",
                key="login_strike",
            )
        form_path = "member.php?mod=logging&action=login"
        response, reply = self._call("GET", form_path)
        if reply.kind is ReplyKind.REFUSED:
            raise refusal_for(reply)
        text, _ = decode(response.content, response.headers.get("content-type"))
        if _CAPTCHA.search(text):
            raise CaptchaRequired(
                "the login form asks for a captcha; log in by hand or relax the captcha rule",
                key="captcha_required",
                response=response,
            )
        facts = page_facts(response)
        loginhash = m.group(1) if (m := _LOGINHASH.search(text)) else "L" + "0" * 4
        questionid, answer = self.question or (0, "")
        post_path = f"member.php?mod=logging&action=login&loginsubmit=yes&loginhash={loginhash}&inajax=1"
        fields = {
            "formhash": facts.get("formhash", ""),
            "referer": self.base_url + "forum.php",
            "loginfield": "username",
            "username": self.username,
            "password": self._password(),
            "questionid": str(questionid),
            "answer": answer,
            "cookietime": "2592000",
            "loginsubmit": "true",
        }
        try:
            response, reply = self._call(
                "POST", post_path, data=fields, referer=self.base_url + form_path, idempotent=False
            )
        finally:
            fields.clear()  # drop our only reference to the password
        if reply.kind is ReplyKind.REFUSED or reply.key == "location_activation":
            error = refusal_for(reply)
            if isinstance(error, LoginLockedOut):
                self._locked_until = self._clock() + LOCKOUT_SECONDS
            raise error
        if reply.kind is not ReplyKind.SUCCESS or auth_cookie(self.http.cookies) is None:
            raise UnknownRefusal(
                reply.message or "login answered without an auth cookie",
                key=reply.key, values=reply.values, response=response,
            )
        self._logged_in = True
        self.uid = int(reply.values["uid"]) if reply.values.get("uid", "").isdigit() else None
        # The formhash changes at login (DISCUZ.md §1.5): read it, and the uid, afresh.
        response, _ = self._call("GET", "forum.php")
        facts = page_facts(response)
        self._formhash = facts.get("formhash") or self._formhash
        self.uid = int(facts.get("uid", "0")) or self.uid
        if not self.uid:
            self._logged_in = False
            raise UnknownRefusal("logged in, but the next page shows a guest", key="login_required")
        self.save_session()
        log.info("logged in to %s as %s (uid %d)", self.base_url, self.username, self.uid)
        return self.uid

    def ensure_logged_in(self) -> int | None:
        """Log in unless the jar already holds an auth cookie; returns the uid if known."""
        if self.logged_in or not self._can_relogin():
            return self.uid  # without credentials we act as a guest; the forum says no
        return self.login()

    def save_session(self) -> None:
        if self._store is not None:
            self._store.save(self.http.cookies)

    def _password(self) -> str:
        assert self._password_source is not None
        password = self._password_source()
        if self.password_md5:
            return hashlib.md5(password.encode("utf-8")).hexdigest()
        return password

    def _can_relogin(self) -> bool:
        return bool(self.username) and self._password_source is not None

    def _relogin(self, why: str) -> None:
        log.warning("session expired (%s); logging in again", why)
        self._logged_in = False
        self._formhash = None
        self.login()

    # ------------------------------------------------------------------ reading

    def check_api(self) -> bool:
        """Probe ``module=check``; turns mobile-API reading on when the plugin answers."""
        response, _ = self._call("GET", "api/mobile/index.php?version=4&module=check")
        try:
            doc = response.json()
        except ValueError:
            doc = None
        on = isinstance(doc, dict) and bool(doc.get("discuzversion") or doc.get("pluginversion"))
        if on and not self._charset_fixed and isinstance(doc.get("charset"), str):
            self._charset = doc["charset"].lower()
        self.use_api = on
        return on

    def fetch_page(self, tid: int, page: int = 1) -> ThreadPage:
        """One thread page (mobile API when on, HTML otherwise); re-login once if expired."""
        result = self._fetch_page_once(tid, page)
        if self._logged_in and result.viewer_uid == 0 and self._can_relogin():
            self._relogin(f"thread {tid} page {page} shows a guest")
            result = self._fetch_page_once(tid, page)
            if result.viewer_uid == 0:
                raise NotLoggedIn("still a guest right after logging in again", key="login_required")
        return result

    def _thread_path(self, tid: int, page: int) -> str:
        if self.use_api:
            return f"api/mobile/index.php?version=4&module=viewthread&tid={tid}&page={page}"
        return f"forum.php?mod=viewthread&tid={tid}&extra=&page={page}"

    def _fetch_page_once(self, tid: int, page: int) -> ThreadPage:
        from parsers.pages import read_page

        path = self._thread_path(tid, page)
        response, reply = self._call("GET", path, follow=True)
        if reply.kind is ReplyKind.REFUSED:
            # Every message viewthread can show is in the key table except the site-closed
            # reason, which is the admin's free text: an unknown message here is that.
            raise refusal_for(reply, default=SiteClosed)
        try:
            result = read_page(
                response.content,
                content_type=response.headers.get("content-type"),
                source=str(response.request.url),
                tz=self.tz,
            )
        except PageParseError as err:
            raise UnexpectedPage(f"not a thread page: {err}", response=response) from err
        if result.formhash:
            self._formhash = result.formhash
        fid = reply.values.get("fid") or page_facts(response).get("fid")
        if fid and fid.isdigit() and int(fid) > 0:
            self._fids[tid] = int(fid)
        return result

    def read_new(
        self, cursor: ThreadCursor, *, on_page: Callable[[int, int], None] | None = None
    ) -> tuple[list[Post], ThreadCursor]:
        """Posts of every page from the cursor's last page on, and the advanced cursor.

        Returns all posts of the pages fetched (so edits of posts on the last page come
        back too); ``cursor.is_new(post)`` (the *old* cursor) tells which are new. A poll
        with nothing new costs one request: the last page, whose pids are all known and
        whose page count did not grow. A fresh ``ThreadCursor(tid)`` reads the whole
        thread; ``on_page(page, total)`` is told after each page (a progress bar).
        """
        first = self.fetch_page(cursor.tid, cursor.last_page)
        if first.page < cursor.last_page:
            log.info(
                "thread %d: asked page %d, forum served page %d (clamped: posts were removed)",
                cursor.tid, cursor.last_page, first.page,
            )
        seen: dict[int, Post] = {}
        pages = [first]
        current, total = first.page, first.total_pages
        if on_page:
            on_page(current, total)
        while current < total:
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
        self, tid: int, marker: str, *, since_pid: int | None = None, max_pages: int = 3
    ) -> Post | None:
        """The bot's own newest post in ``tid`` containing ``marker`` (after a lost reply)."""
        first = self.fetch_page(tid, 1)
        page_no = first.total_pages
        result = first
        for _ in range(max_pages):
            if result.page != page_no:
                result = self.fetch_page(tid, page_no)
            for post in reversed(result.posts):
                if since_pid is not None and post.pid <= since_pid:
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
        self, tid: int, message: str, *, fid: int | None = None, quote_pid: int | None = None
    ) -> ReplyResult:
        """Post a reply; returns its pid (None when moderated).

        Flood control: wait the interval the forum names, retry once. Bad formhash:
        re-read it, retry once. Not logged in although we were: log in, retry once.
        Never re-sent when the POST may have reached the server (ForumUnavailable with
        ``sent``): look for the marker with :meth:`find_post_by_marker` first.
        """
        self.ensure_logged_in()
        if quote_pid is not None:
            message = self.quote_for(tid, quote_pid) + "\n\n" + message
        flood_waited = formhash_renewed = relogged = False
        while True:
            formhash = self._formhash_for(tid)
            fid = fid or self._fids.get(tid)
            fid_part = f"&fid={fid}" if fid else ""
            path = (
                f"forum.php?mod=post&action=reply{fid_part}&tid={tid}&extra=&replysubmit=yes"
                "&infloat=yes&handlekey=fastpost&inajax=1"
            )
            fields = {"formhash": formhash, "message": message, "usesig": "1", "subject": "  "}
            referer = self.base_url + f"forum.php?mod=viewthread&tid={tid}"
            _, reply = self._call("POST", path, data=fields, referer=referer, idempotent=False)
            if reply.kind is ReplyKind.SUCCESS:
                pid = reply.pid if reply.pid and reply.pid > 0 else None
                page = reply.values.get("page")
                return ReplyResult(
                    pid=pid,
                    moderated=reply.moderated or pid is None,
                    page=int(page) if page and page.isdigit() else None,
                )
            if reply.kind is not ReplyKind.REFUSED:
                raise UnexpectedPage(f"reply to thread {tid}: the forum answered a {reply.kind} page")
            error = refusal_for(reply)
            if isinstance(error, FloodControl) and not flood_waited:
                wait = error.seconds or DEFAULT_FLOODCTRL
                log.warning("flood control on thread %d: waiting %.0f s, then posting once more", tid, wait)
                self._sleep(wait)
                flood_waited = True
                continue
            if isinstance(error, BadFormHash) and not formhash_renewed:
                log.warning("formhash refused on thread %d: reading it again", tid)
                self._formhash = None
                formhash_renewed = True
                continue
            if isinstance(error, NotLoggedIn) and not relogged and self._can_relogin():
                self._relogin(f"reply to thread {tid} refused as guest")
                relogged = True
                continue
            raise error

    def edit(self, tid: int, pid: int, message: str, *, fid: int | None = None) -> None:
        """Replace the text of post ``pid`` (the bot's own) through the edit form."""
        self.ensure_logged_in()
        formhash_renewed = relogged = False
        while True:
            fid = fid or self._fids.get(tid)
            fid_part = f"&fid={fid}" if fid else ""
            form_path = f"forum.php?mod=post&action=edit{fid_part}&tid={tid}&pid={pid}&page=1"
            response, reply = self._call("GET", form_path)
            if reply.kind is ReplyKind.REFUSED:
                error = refusal_for(reply)
                if isinstance(error, NotLoggedIn) and not relogged and self._can_relogin():
                    self._relogin(f"edit form for pid {pid} refused as guest")
                    relogged = True
                    continue
                raise error
            fields = _edit_form_fields(response)
            if "formhash" not in fields:
                raise UnexpectedPage(f"edit form for pid {pid} has no formhash", response=response)
            fields.update(
                {"message": message, "wysiwyg": "0", "tid": str(tid), "pid": str(pid), "editsubmit": "true"}
            )
            _, result = self._call(
                "POST", "forum.php?mod=post&action=edit&extra=&editsubmit=yes&inajax=1",
                data=fields, referer=self.base_url + form_path,
            )
            if result.kind is ReplyKind.SUCCESS:
                return
            if result.kind is not ReplyKind.REFUSED:
                raise UnexpectedPage(f"edit of pid {pid}: the forum answered a {result.kind} page")
            error = refusal_for(result)
            if isinstance(error, BadFormHash) and not formhash_renewed:
                formhash_renewed = True
                continue
            if isinstance(error, NotLoggedIn) and not relogged and self._can_relogin():
                self._relogin(f"edit of pid {pid} refused as guest")
                relogged = True
                continue
            raise error

    def quote_for(self, tid: int, quote_pid: int) -> str:
        """The X3 reply-form quote block for ``quote_pid`` (read from its page)."""
        path = f"forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={quote_pid}"
        response, reply = self._call("GET", path, follow=True)
        if reply.kind is ReplyKind.REFUSED:
            raise refusal_for(reply)
        from parsers.pages import read_page

        try:
            found = read_page(response.content, content_type=response.headers.get("content-type"),
                              source=str(response.request.url), tz=self.tz)
        except PageParseError as err:
            raise UnexpectedPage(f"findpost for pid {quote_pid}: {err}", response=response) from err
        for post in found.posts:
            if post.pid == quote_pid:
                return build_quote(post, tz=self.tz)
        raise PostNotFound(f"post {quote_pid} not found in thread {tid}", key="post_nonexistence")

    def _formhash_for(self, tid: int) -> str:
        if self._formhash is None or tid not in self._fids:
            self.fetch_page(tid, 1)
        if not self._formhash:
            raise UnexpectedPage(f"thread {tid} page carries no formhash")
        return self._formhash

    # ------------------------------------------------------------------ transport

    def _call(
        self,
        method: str,
        path: str,
        *,
        data: dict[str, str] | None = None,
        referer: str | None = None,
        follow: bool = False,
        idempotent: bool | None = None,
    ) -> tuple[httpx.Response, ForumReply]:
        return call_with_retry(
            lambda: self._send(method, path, data=data, referer=referer, follow=follow),
            policy=self.retry_policy,
            describe=f"{method} {path}",
            idempotent=(method == "GET") if idempotent is None else idempotent,
            sleep=self._sleep,
        )

    def _send(
        self, method: str, path: str, *, data: dict[str, str] | None, referer: str | None, follow: bool
    ) -> tuple[httpx.Response, ForumReply]:
        url = urljoin(self.base_url, path)
        for _ in range(_MAX_REDIRECTS + 1):
            response = self._exchange(method, url, data=data, referer=referer)
            reply = classify(response)
            self._learn_charset(response)
            if reply.kind is ReplyKind.UNAVAILABLE:
                reason = (
                    UnavailableReason.CC_PROTECTION if reply.key == "cc_protection"
                    else UnavailableReason.SERVER_ERROR if response.status_code >= 500
                    else UnavailableReason.TRUNCATED
                )
                raise ForumUnavailable(
                    f"{method} {path}: {reply.key or 'no usable answer'} (HTTP {response.status_code})",
                    reason=reason, sent=True, response=response,
                )
            if follow and method == "GET" and reply.kind is ReplyKind.REDIRECT and reply.forward_url:
                url = urljoin(url, reply.forward_url.replace("BASE/", self.base_url))
                continue
            return response, reply
        raise ForumUnavailable(f"{method} {path}: too many redirects", reason=UnavailableReason.DROPPED, sent=True)

    def _exchange(self, method: str, url: str, *, data: dict[str, str] | None, referer: str | None) -> httpx.Response:
        headers = {"User-Agent": USER_AGENT}
        if referer:
            headers["Referer"] = referer
        content = None
        if data is not None:
            # Desktop forms are not converted server-side: GBK forums need GBK bytes;
            # characters outside the charset go as &#NNNNN; like a browser sends them.
            content = urlencode(list(data.items()), encoding=self._form_codec(), errors="xmlcharrefreplace")
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.throttle.wait()
        self.request_count += 1
        shown = _shown(url, self.base_url)
        try:
            response = self.http.request(method, url, content=content, headers=headers, follow_redirects=False)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as err:
            raise ForumUnavailable(
                f"{method} {shown}: could not connect ({type(err).__name__})",
                reason=UnavailableReason.CONNECT, sent=False, original=err,
            ) from err
        except httpx.TimeoutException as err:
            raise ForumUnavailable(
                f"{method} {shown}: timed out ({type(err).__name__})",
                reason=UnavailableReason.TIMEOUT, sent=True, original=err,
            ) from err
        except httpx.HTTPError as err:
            raise ForumUnavailable(
                f"{method} {shown}: connection lost ({type(err).__name__})",
                reason=UnavailableReason.DROPPED, sent=True, original=err,
            ) from err
        log.debug("%s %s -> %d", method, shown, response.status_code)
        return response

    def _form_codec(self) -> str:
        return {"gb18030": "gb18030", "gbk": "gbk", "gb2312": "gbk"}.get(self._charset, self._charset)

    def _learn_charset(self, response: httpx.Response) -> None:
        if self._charset_fixed:
            return
        content_type = response.headers.get("content-type", "")
        if ("html" in content_type or "xml" in content_type) and response.content:
            _, charset = decode(response.content[:4096], content_type)
            self._charset = charset


def build_quote(post: Post, *, tz: tzinfo) -> str:
    """The BBCode the X3 reply form makes for quoting ``post`` (DISCUZ.md §1.3)."""
    lines = [line for line in post.text.splitlines() if line.strip()][:3]
    excerpt = "\n".join(lines)
    if len(excerpt) > 100:
        excerpt = excerpt[:100] + " ..."
    when = post.posted_at.astimezone(tz).strftime("%Y-%m-%d %H:%M")
    author = post.author or "匿名"
    return (
        f"[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid={post.pid}&ptid={post.tid}]"
        f"[color=#999999]{author} 发表于 {when}[/color][/url][/size]\n{excerpt}[/quote]"
    )


def _edit_form_fields(response: httpx.Response) -> dict[str, str]:
    text, _ = decode(response.content, response.headers.get("content-type"))
    soup = BeautifulSoup(text, "lxml")
    form = soup.find("form", id="postform") or soup
    fields: dict[str, str] = {}
    for tag in form.find_all("input"):
        name = tag.get("name")
        kind = (tag.get("type") or "text").lower()
        if not name or kind in ("file", "button", "submit", "image"):
            continue
        if kind == "checkbox" and not tag.has_attr("checked"):
            continue
        if name in ("formhash", "posttime", "delattachop", "fid", "tid", "pid", "page", "subject",
                    "usesig", "delete", "save", "wysiwyg"):
            fields[name] = tag.get("value", "")
    return fields


def _shown(url: str, base_url: str) -> str:
    """The URL as logged: relative to the forum root (query strings never hold secrets)."""
    return url[len(base_url):] if url.startswith(base_url) else urlsplit(url).path
