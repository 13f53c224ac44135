"""``Simulator``: the Python face of a simulated Discuz! forum, X3.5 or 7.2.

    clock = SimClock(start=datetime(2026, 11, 30, 9, 0, tzinfo=BEIJING))
    sim = Simulator(clock=clock)                            # Discuz! X3.5, UTF-8
    sim = Simulator(clock=clock, discuz="7.2", charset="gbk")  # Discuz! 7.2, GBK
    sim.add_user("计票机器人", password="pw")
    fid = sim.add_forum("版杀区")
    tid = sim.add_thread(fid, "【饺子村】第一日 投票帖", author="导演", message="…")
    sim.settings.moderate_replies = True                     # a switch (see Settings)
    with sim.running() as base_url:   # "http://127.0.0.1:PORT/"
        ...
        sim.release_post(sim.held_posts(tid)[0].pid)          # a moderator approves
    sim.send_pm("导演", "计票机器人", "批准 A7K2")             # a private message (pmid)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime

from forumbot.simulator.clock import ForumClock, SimClock
from forumbot.simulator.faults import FaultPlan
from forumbot.simulator.model import GENERATIONS, ForumData, Settings, StoredPost
from forumbot.simulator.pm import PmMessage
from forumbot.simulator.server import FORUM_SERVERS, QuietServer, ServerCore, make_handler
from forumbot.simulator.wire import RequestRecord, random_token

ALLOWED_HOSTS = ("127.0.0.1", "localhost", "::1")
GENERATION_NAMES = {"x3": "x3", "x3.5": "x3", "7.2": "7.2", "72": "7.2"}


def default_cookiepre(discuz: str) -> str:
    """X3: ``random(4).'_'`` at install plus ``2132_`` at runtime; 7.2: ``random(3).'_'``."""
    return random_token(3) + "_" if discuz == "7.2" else random_token(4) + "_2132_"


class Simulator:
    def __init__(self, clock: ForumClock | None = None, charset: str = "utf-8",
                 posts_per_page: int = 10, host: str = "127.0.0.1", port: int = 0,
                 cookiepre: str | None = None, discuz: str = "x3") -> None:
        if host not in ALLOWED_HOSTS:
            raise ValueError(f"模拟论坛只监听本机回环地址，不能用 {host!r}")
        charset = charset.lower()
        if charset not in ("utf-8", "gbk"):
            raise ValueError(f"charset 必须是 'utf-8' 或 'gbk'，不能是 {charset!r}")
        discuz = GENERATION_NAMES.get(str(discuz).lower(), str(discuz))
        if discuz not in GENERATIONS:
            raise ValueError(f"discuz 必须是 {'、'.join(GENERATIONS)} 之一，不能是 {discuz!r}")
        if posts_per_page < 1:
            raise ValueError("posts_per_page must be at least 1")
        self.clock: ForumClock = clock or SimClock()
        self.discuz = discuz
        self.charset = charset
        self.posts_per_page = posts_per_page
        self.host = host
        self.port = port
        self.cookiepre = cookiepre or default_cookiepre(discuz)
        self.data = ForumData(settings=Settings.for_generation(discuz), generation=discuz,
                              charset=charset, board_url=self._site_url())
        self.faults = FaultPlan()
        self._httpd: QuietServer | None = None
        self._thread: threading.Thread | None = None
        self.server = self._make_server()

    def _make_server(self) -> ServerCore:
        cls = FORUM_SERVERS[self.discuz]
        return cls(self.data, self.clock, self.charset, self.posts_per_page, self._site_url(),
                   self.cookiepre, random_token(16), faults=self.faults)

    def _site_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    # ---- forum content ---------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        return self.data.settings

    def now(self) -> datetime:
        return self.clock.now()

    def add_user(self, name: str, password: str, uid: int | None = None,
                 question: tuple[int, str] | None = None, activated: bool = True,
                 banned: bool = False, registered_at: datetime | None = None) -> int:
        """A member. ``registered_at`` (default: long ago) matters for ``newbiespan``."""
        return self.data.add_user(name, password, uid, question, activated, banned,
                                  registered_at)

    def add_forum(self, name: str) -> int:
        return self.data.add_forum(name)

    def add_thread(self, fid: int, subject: str, author: str, message: str,
                   at: datetime | None = None) -> int:
        tid, _ = self.data.add_thread(fid, subject, author, message, at or self.now())
        return tid

    def first_pid(self, tid: int) -> int:
        return self.data.thread_posts(tid)[0].pid

    def add_post(self, tid: int, author: str, message: str, at: datetime | None = None,
                 quote_pid: int | None = None) -> int:
        """A reply stored as the forum stores it (``quote_pid``: quoted the way this
        generation's reply form quotes). Not checked against the forum's rules."""
        return self.data.add_post(tid, author, message, at or self.now(), quote_pid)

    def edit_post(self, pid: int, message: str, at: datetime | None = None,
                  editor: str | None = None) -> None:
        self.data.edit_post(pid, message, at or self.now(), editor)

    def delete_post(self, pid: int) -> None:
        self.data.delete_post(pid)

    def block_post(self, pid: int) -> None:
        self.data.block_post(pid)

    def set_moderator(self, fid: int, name: str, on: bool = True) -> None:
        """``name`` moderates board ``fid`` (版主): may close and open its threads."""
        self.data.set_moderator(fid, name, on)

    def release_thread(self, tid: int) -> None:
        """A moderator approves a new thread held for moderation."""
        self.data.release_thread(tid)

    def close_thread(self, tid: int, closed: bool = True) -> None:
        with self.data.lock:
            self.data.thread(tid).closed = closed

    def stick_thread(self, tid: int, displayorder: int = 1) -> None:
        """置顶 (1 this board, 3 every board); 0 lifts it."""
        with self.data.lock:
            self.data.thread(tid).displayorder = displayorder

    def bar_guests(self, fid: int, barred: bool = True) -> None:
        """The board's 浏览版块 permission without 游客: guests get the no-permission page."""
        with self.data.lock:
            self.data.boards[fid].guests_barred = barred

    def ban_user(self, name: str, banned: bool = True) -> None:
        with self.data.lock:
            self.data.user(name).banned = banned

    def expire_sessions(self) -> None:
        self.server.expire_sessions()

    # ---- moderation ------------------------------------------------------------------------
    def held_posts(self, tid: int | None = None) -> list[StoredPost]:
        """Copies of the replies waiting for a moderator (``settings.moderate_replies``)."""
        return [replace(p) for p in self.data.held_posts(tid)]

    def release_post(self, pid: int) -> None:
        """A moderator approves the held reply ``pid``: it shows with that pid, in its place."""
        self.data.release_post(pid)

    # ---- private messages ------------------------------------------------------------------
    def send_pm(self, sender: str, to: str, text: str, at: datetime | None = None) -> int:
        """A private message stored as this generation's UCenter stores it (not checked
        against the flood rules, and not starting the sender's flood clocks): its pmid."""
        with self.data.lock:
            a, b = self.data.user(sender), self.data.user(to)
        return self.data.pms.send(a.uid, b.uid, text, (at or self.now()).replace(microsecond=0))

    def pms_between(self, a: str, b: str) -> list[PmMessage]:
        """Copies of every private message between two users, oldest first."""
        with self.data.lock:
            ua, ub = self.data.user(a), self.data.user(b)
        return [replace(m) for m in self.data.pms.between(ua.uid, ub.uid)]

    # ---- reading back ----------------------------------------------------------------------
    def posts(self, tid: int) -> list[StoredPost]:
        """Copies of every stored post of the thread (moderated ones too), by position."""
        with self.data.lock:
            return [replace(p) for p in self.data.thread_posts(tid)]

    def post(self, pid: int) -> StoredPost:
        return self.data.snapshot(pid)

    @property
    def requests(self) -> list[RequestRecord]:
        return self.server.requests

    # ---- serving ---------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return self._site_url()

    def _bind(self) -> QuietServer:
        return QuietServer((self.host, self.port), make_handler(self))

    def start(self) -> str:
        if self._httpd is not None:
            return self.base_url
        httpd = self._bind()
        old = self._site_url()
        self.port = httpd.server_address[1]
        self.server.site_url = self._site_url()
        self.data.move_board(old, self._site_url())
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, args=(0.05,),
                                        name="discuz-simulator", daemon=True)
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    @contextmanager
    def running(self) -> Iterator[str]:
        base = self.start()
        try:
            yield base
        finally:
            self.stop()
