"""``Simulator``: the Python face of the simulated Discuz! X3.5 forum.

    clock = SimClock(start=datetime(2026, 11, 30, 9, 0, tzinfo=BEIJING))
    sim = Simulator(clock=clock)
    sim.add_user("计票机器人", password="pw")
    fid = sim.add_forum("版杀区")
    tid = sim.add_thread(fid, "【饺子村】第一日 投票帖", author="导演", message="…")
    with sim.running() as base_url:   # "http://127.0.0.1:PORT/"
        ...
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime

from forumbot.simulator.clock import ForumClock, SimClock
from forumbot.simulator.faults import FaultPlan
from forumbot.simulator.model import ForumData, Settings, StoredPost
from forumbot.simulator.server import ForumServer, QuietServer, make_handler
from forumbot.simulator.wire import RequestRecord, random_token

ALLOWED_HOSTS = ("127.0.0.1", "localhost", "::1")


class Simulator:
    def __init__(self, clock: ForumClock | None = None, charset: str = "utf-8",
                 posts_per_page: int = 10, host: str = "127.0.0.1", port: int = 0,
                 cookiepre: str | None = None) -> None:
        if host not in ALLOWED_HOSTS:
            raise ValueError(f"the simulator only listens on loopback, not {host!r}")
        charset = charset.lower()
        if charset not in ("utf-8", "gbk"):
            raise ValueError(f"charset must be 'utf-8' or 'gbk', not {charset!r}")
        if posts_per_page < 1:
            raise ValueError("posts_per_page must be at least 1")
        self.clock: ForumClock = clock or SimClock()
        self.charset = charset
        self.posts_per_page = posts_per_page
        self.host = host
        self.port = port
        self.cookiepre = cookiepre or (random_token(4) + "_2132_")
        self.data = ForumData()
        self.faults = FaultPlan()
        self._httpd: QuietServer | None = None
        self._thread: threading.Thread | None = None
        self.server = self._make_server()

    def _make_server(self) -> ForumServer:
        return ForumServer(self.data, self.clock, self.charset, self.posts_per_page,
                           self._site_url(), self.cookiepre, random_token(16), faults=self.faults)

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
                 banned: bool = False) -> int:
        return self.data.add_user(name, password, uid, question, activated, banned)

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
        return self.data.add_post(tid, author, message, at or self.now(), quote_pid)

    def edit_post(self, pid: int, message: str, at: datetime | None = None,
                  editor: str | None = None) -> None:
        self.data.edit_post(pid, message, at or self.now(), editor)

    def delete_post(self, pid: int) -> None:
        self.data.delete_post(pid)

    def block_post(self, pid: int) -> None:
        self.data.block_post(pid)

    def close_thread(self, tid: int, closed: bool = True) -> None:
        with self.data.lock:
            self.data.thread(tid).closed = closed

    def ban_user(self, name: str, banned: bool = True) -> None:
        with self.data.lock:
            self.data.user(name).banned = banned

    def expire_sessions(self) -> None:
        self.server.expire_sessions()

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

    def start(self) -> str:
        if self._httpd is not None:
            return self.base_url
        httpd = QuietServer((self.host, self.port), make_handler(self))
        self.port = httpd.server_address[1]
        self.server.site_url = self._site_url()
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, args=(0.05,),
                                        name="discuz-simulator",
                                        daemon=True)
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
