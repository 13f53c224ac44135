"""What every simulated Discuz does, whatever its generation: the site, the viewer, output.

``ForumBase`` holds the shared state (data, clock, charset, cookie prefix, the auth
tokens of logged-in sessions) and the helpers both generations' routes use: numbering
posts into floors and pages, the ``minpostsize`` byte count, storing or holding a reply,
the robot check. A generation (``x3/``, ``d72/``) subclasses it with its sessions, its
checks in its own order and its pages; ``server.py`` puts HTTP in front.
"""

from __future__ import annotations

import hashlib
import math
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from forumbot.simulator.clock import ForumClock
from forumbot.simulator.model import (
    INVISIBLE_MODERATED,
    ForumData,
    ForumDataError,
    StoredPost,
    Thread,
    User,
    post_bytes,
)
from forumbot.simulator.wire import Request, Response


@dataclass
class Visit:
    """Who is asking, under which session cookies, and the cookies to set in reply."""

    viewer: User | None
    formhash: str
    auth: str | None
    saltkey: str = ""
    set_cookies: list[str] = field(default_factory=list)
    robot: bool = False
    touch: bool = False  # X3 serves this request its touch (mobile) template
    pm_checked: bool = False  # the checkpm cookie: new PMs were looked for < 30 s ago


class ForumBase:
    generation = ""

    def __init__(self, data: ForumData, clock: ForumClock, charset: str, ppp: int,
                 site_url: str, cookiepre: str, authkey: str) -> None:
        self.data = data
        self.clock = clock
        self.charset = charset
        self.ppp = ppp
        self.site_url = site_url
        self.cookiepre = cookiepre
        self.authkey = authkey
        self.auth_tokens: dict[str, int] = {}
        self._lock = threading.RLock()

    # ---- the site ----------------------------------------------------------------------
    def now(self) -> datetime:
        return self.clock.now()

    def cookie(self, name: str, value: str, max_age: int | None = 2592000,
               httponly: bool = False) -> str:
        """``dsetcookie``: prefixed name; a negative age deletes (PHP writes ``deleted``)."""
        if max_age is not None and max_age < 0:
            return (f"{self.cookiepre}{name}=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; "
                    "Max-Age=0; path=/")
        text = f"{self.cookiepre}{name}={value}"
        if max_age is not None:
            expires = datetime.fromtimestamp(self.now().timestamp() + max_age, timezone.utc)
            text += f"; expires={expires:%a, %d %b %Y %H:%M:%S} GMT; Max-Age={max_age}"
        text += "; path=/"
        return text + ("; HttpOnly" if httponly else "")

    def expire_sessions(self) -> None:
        with self._lock:
            self.auth_tokens.clear()

    def viewer_for(self, auth: str | None) -> User | None:
        with self._lock:
            uid = self.auth_tokens.get(auth) if auth else None
        return self.data.users.get(uid) if uid is not None else None

    def new_auth(self, user: User, token: str) -> None:
        with self._lock:
            self.auth_tokens[token] = user.uid

    def drop_auth(self, token: str | None) -> None:
        with self._lock:
            if token:
                self.auth_tokens.pop(token, None)

    def md5_hash(self, *parts: object) -> str:
        return hashlib.md5("|".join(str(p) for p in (*parts, self.authkey)).encode()).hexdigest()

    # ---- what the generation decides -----------------------------------------------------
    def visit(self, req: Request) -> Visit:
        raise NotImplementedError

    def route_any(self, req: Request, visit: Visit) -> Response:
        raise NotImplementedError

    def form_charset(self, req: Request) -> str:
        """The charset POSTed fields are decoded with (desktop forms: the page's)."""
        return self.charset

    def cc_blocked(self, req: Request, visit: Visit) -> bool:
        return False

    # ---- output --------------------------------------------------------------------------
    def encode(self, text: str) -> bytes:
        # Characters the charset lacks go out as &#NNNNN; like a browser would send them.
        return text.encode(self.charset, "xmlcharrefreplace")

    # ---- reading -------------------------------------------------------------------------
    def thread_or_none(self, tid: int) -> Thread | None:
        try:
            return self.data.thread(tid)
        except ForumDataError:
            return None

    def post_or_none(self, pid: int) -> StoredPost | None:
        try:
            return self.data.post(pid)
        except ForumDataError:
            return None

    def banned_uids(self) -> set[int]:
        with self.data.lock:
            return {u.uid for u in self.data.users.values() if u.banned}

    def numbered(self, thread: Thread, authorid: int | None = None) -> list[tuple[StoredPost, int]]:
        """Visible posts with the floor each shows: a running count (``++$numpost``)."""
        return [(p, i + 1) for i, p in enumerate(self.data.visible_posts(thread.tid, authorid))]

    def page_of(self, thread: Thread, pid: int, ppp: int) -> int | None:
        for post, number in self.numbered(thread):
            if post.pid == pid:
                return (number - 1) // ppp + 1
        return None

    def total_pages(self, count: int, ppp: int) -> int:
        return max(1, math.ceil(count / ppp))

    # ---- posting -------------------------------------------------------------------------
    def post_size(self, text: str) -> int:
        return post_bytes(text, self.charset)

    def in_newbie_span(self, user: User, unit: timedelta) -> bool:
        """Registered less than ``newbiespan`` units ago. (Both generations also look at
        the member's ``lastpost``, which can only be later than the registration, so the
        registration decides.)"""
        span = self.data.settings.newbiespan
        if not span or user.registered_at is None:
            return False
        return self.now() - user.registered_at < span * unit

    def store_reply(self, user: User, thread: Thread, text: str) -> tuple[int, bool]:
        """Store a reply; (pid, held for moderation). A held reply gets its pid and
        ``invisible = -2`` (``post_reply_mod_succeed``), and does not count as the
        member's last post until a moderator releases it."""
        held = self.data.settings.moderate_replies
        now = self.now()
        pid = self.data.add_post(thread.tid, user.name, text, now,
                                 invisible=INVISIBLE_MODERATED if held else 0)
        return pid, held
