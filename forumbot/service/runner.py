"""``forumbot serve``: every game config in a folder, run by one process.

One **scheduler thread** does all the forum work and all the games' passes, one at a
time (``forumbot.service.schedule`` picks the next). That is enough: one bot account
allows one request every ``min_request_interval_seconds`` (2 s) whatever the number of
threads asking, a pass's own work is milliseconds, and a forum request is a fraction of
a second — one thread keeps the account's throttle busy with room to spare. It is also
the simplest: the shared ``DiscuzClient`` (formhash, cookie jar, flood clock), each
game's SQLite connection and the agents' state are only ever used from that thread, so
nothing needs a lock, and the order of requests is exactly the schedule's. What could
hold the thread — waiting 15 s for the account's flood clock — is avoided: a post that
would wait stays approved and its game's pass comes back when the clock is free.

The desk (``forumbot.desk.service``) serves from werkzeug's threads with its own database
connections, as it does beside ``forumbot run``; it reads the games' summaries, which
the scheduler thread replaces whole after each pass.

Every ``scan_seconds`` the folder is looked at: a new config starts a game, a changed
one reloads it, a removed one stops it (its database and lock are let go: the game can
be archived or moved). One game's failure never stops another (``forumbot.service.game``).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable, Iterator

from forumbot.game.clock import BEIJING, Clock, SystemClock, wait
from forumbot.agent.instance import InstanceBusy, InstanceLock
from forumbot.store.outbox import PublishHow
from forumbot.game.runtime import CLOCK_ENV, clock_from_env
from forumbot.service import schedule
from forumbot.service.game import GameSlot
from forumbot.service.pool import SessionPool
from forumbot.service.scanner import GameFile, scan
from forumbot.service.settings import ServiceSettings
from forumbot.service.summary import GameSummary
from forumbot.wording import os_error_zh

log = logging.getLogger("forumbot.service")

SERVICE_LOCK = ".forumbot-serve.lock"  # in the games folder: one service per folder
CURRENT_GAME: contextvars.ContextVar[str | None] = contextvars.ContextVar("forumbot_game", default=None)
# The longest the loop sleeps (game seconds) before looking at the folder and the desk's
# changes again.
MAX_IDLE = 5.0
CHANGES_EVERY = 1.0  # wall seconds between looks for the desk's (and commands') writes


class ServiceBusy(Exception):
    """Another ``forumbot serve`` runs this folder."""


@dataclass(frozen=True)
class ServiceView:
    """What the desk and ``/healthz`` read (replaced whole, never changed)."""

    games: tuple[GameSummary, ...]
    started: datetime
    now: datetime
    folder: str
    folder_error: str | None
    pid: int
    sessions: tuple[dict, ...]


class Service:
    def __init__(self, settings: ServiceSettings, *, clock: Clock | None = None,
                 http_factory: Callable[[], object] | None = None) -> None:
        self.settings = settings
        self.folder = Path(settings.games)
        self.clock = clock or clock_from_env(os.environ.get(CLOCK_ENV), BEIJING) or SystemClock(BEIJING)
        self.stop = threading.Event()
        self.pool = SessionPool(stop=self.stop, flood_seconds=settings.flood_seconds,
                                password_file=settings.password_file, http_factory=http_factory)
        self.slots: dict[str, GameSlot] = {}
        self.lock: InstanceLock | None = None
        self.started = self.clock.now()
        self.folder_error: str | None = None
        self.desk_url: str | None = None
        self.turn = 0
        self.passes = 0
        self._next_scan: datetime | None = None
        self._next_look = 0.0
        self.view = ServiceView((), self.started, self.started, str(self.folder), None, os.getpid(), ())
        self.on_pass: Callable[[GameSlot, schedule.Job], None] | None = None  # tests and the bench
        self.on_listing: Callable[[object], None] | None = None  # a board listing was read (the bench)
        self.listings = 0

    # ------------------------------------------------------------------ the service's own lock

    def acquire(self) -> None:
        """One service per folder: a second ``forumbot serve`` on it refuses, naming the first."""
        if not self.folder.is_dir():
            from forumbot.config.gamefile import ConfigError

            raise ConfigError(f"{self.settings.source or 'forumbot serve'}: [service].games: "
                              f"{self.folder} 不是文件夹（它应存放各局的配置）")
        try:
            self.lock = InstanceLock.acquire(self.folder / SERVICE_LOCK, role="service", since=self.started,
                                             wait_seconds=1.0)
        except InstanceBusy as exc:
            who = exc.holder.who() if exc.holder else "另一个进程"
            raise ServiceBusy(f"这个游戏文件夹已有一个 forumbot serve 在运行（{who}）：{self.folder}。"
                              f"同一文件夹只能运行一个服务；要换掉它，先停止那个进程") from None

    # ------------------------------------------------------------------ the loop

    def run(self, *, until: Callable[[], bool] | None = None) -> None:
        """Serve until ``stop`` is set (or ``until()`` says so)."""
        log.info("开始运行 %s 里的各局游戏（pid %d）", self.folder, os.getpid())
        try:
            while not self.stop.is_set() and not (until is not None and until()):
                if not self.step():
                    self._idle()
        finally:
            self.close()

    def step(self) -> bool:
        """Scan when due, notice the desk's changes, run the next pass: True if one ran."""
        now = self.clock.now()
        if self._next_scan is None or now >= self._next_scan:
            self.scan(now)
            self._next_scan = now + timedelta(seconds=self.settings.scan_seconds)
        if time.monotonic() >= self._next_look:  # the desk's writes: looked for once a second
            self._next_look = time.monotonic() + CHANGES_EVERY
            for slot in list(self.slots.values()):
                with self._game(slot.name):
                    slot.notice_changes(now)
        job = schedule.pick(now, self._plans(), self._sessions(now))
        if (job is None or job.rank > schedule.HOT) and self._read_listing(now):
            return True
        if job is None:
            self._publish_view(now)
            return False
        slot = self.slots[job.game]
        self.turn += 1
        with self._game(slot.name):
            log.debug("pass (%s, rank %d): threads %s", job.why, job.rank, list(job.threads) or "none")
            report = slot.run(job, self.turn)
            self.passes += 1
            if report is not None:
                self._after(slot, report)
        if self.on_pass is not None:
            self.on_pass(slot, job)
        self._publish_view(self.clock.now())
        return True

    def _read_listing(self, now: datetime) -> bool:
        """After the urgent and hot passes, before the rest: a board listing that is due
        (one per step), and what it says of each game's threads (``schedule``: a moved
        thread is a hot read, a quiet one costs nothing)."""
        for session in self.pool.sessions.values():
            if not session.available(now) or not session.watch.due(now):
                continue
            session.read_listing(now)
            statuses = session.watch
            for slot in self.slots.values():
                if slot.plan is None or slot.rt is None or not slot.rt.settings.agent.board_listing \
                        or self.pool.session_of(slot.name) is not session:
                    continue
                for thread in slot.plan.threads.values():
                    status = statuses.status(thread.tid)
                    thread.watch = status if status in (schedule.QUIET, schedule.MOVED) else None
            self.listings += 1
            if self.on_listing is not None:
                self.on_listing(session)
            self._publish_view(self.clock.now())
            return True
        return False

    def _idle(self) -> None:
        now = self.clock.now()
        due = schedule.next_due(now, self._plans(), self._sessions(now))
        for session in self.pool.sessions.values():
            at = session.watch.next_due(now)
            if at is not None and session.available(now):
                due = at if due is None else min(due, at)
        limits = [MAX_IDLE, self.settings.scan_seconds]
        if due is not None:
            limits.append(max((due - now).total_seconds(), 0.01))
        wait(self.clock, self.stop, min(limits))

    def _after(self, slot: GameSlot, report) -> None:
        """The pass's events, one line each (the game's name comes from the log format),
        and the session's reachability."""
        session = self.pool.session_of(slot.name)
        if session is not None:
            if report.unreachable:
                session.mark_down(self.clock.now())
            elif not report.errors or session.down_since is not None:
                session.mark_up(self.clock.now())
        log_events(slot, report)

    # ------------------------------------------------------------------ the folder

    def scan(self, now: datetime) -> None:
        try:
            found = scan(self.folder)
        except OSError as exc:
            if self.folder_error is None:
                log.warning("无法读取游戏文件夹 %s：%s", self.folder, os_error_zh(exc))
            self.folder_error = f"无法读取游戏文件夹 {self.folder}：{os_error_zh(exc)}"
            return
        self.folder_error = None
        for name in [n for n in self.slots if n not in found]:
            with self._game(name):
                log.info("配置已移走：不再运行这一局（它的数据库原样保留）")
                self.slots.pop(name).close()
        for name, file in found.items():
            slot = self.slots.get(name)
            if slot is not None and slot.file.signature == file.signature:
                if slot.state == "busy":
                    with self._game(name):
                        slot.acquire(desk_url=self._game_url(name))
                continue
            with self._game(name):
                if slot is not None:
                    log.info("配置有变化：重新载入这一局")
                    slot.close()
                else:
                    log.info("新的一局：%s", file.path)
                self.slots[name] = self._open(file)

    def _open(self, file: GameFile) -> GameSlot:
        slot = GameSlot(file, clock=self.clock, pool=self.pool)
        taken = {s.database.resolve(): s.name for s in self.slots.values()
                 if s.database is not None and s.name != file.name}
        slot.open(taken=taken, desk_url=self._game_url(file.name))
        session = self.pool.session_of(file.name)
        if session is not None:
            board = session.board
            board.context = self._game
            board.wake = lambda name: self._wake(name)
            board.other_names = lambda: {n: n for n, s in self.slots.items() if s.agent is None}
        return slot

    def _wake(self, name: str) -> None:
        slot = self.slots.get(name)
        if slot is not None:
            slot.wake(self.clock.now())

    def _game_url(self, name: str) -> str | None:
        if not self.desk_url:
            return None
        from urllib.parse import quote

        return f"{self.desk_url.rstrip('/')}/g/{quote(name)}/"

    # ------------------------------------------------------------------ what the scheduler sees

    def _plans(self) -> dict[str, schedule.GamePlan]:
        return {name: slot.plan for name, slot in self.slots.items() if slot.schedulable and slot.plan}

    def _sessions(self, now: datetime) -> dict:
        states = {}
        for key, session in self.pool.sessions.items():
            ready = session.ready_at()
            states[key] = schedule.SessionState(
                min_interval=session.min_interval, available=session.available(now),
                ready=ready is None or ready <= now, write_free=session.write_free(now))
        return states

    # ------------------------------------------------------------------ what others read

    def _publish_view(self, now: datetime) -> None:
        sessions = tuple({"account": str(key), "games": sorted(s.intervals),
                          "down_since": s.down_since.isoformat() if s.down_since else None,
                          "flood_seconds": s.flood_seconds}
                         for key, s in self.pool.sessions.items())
        self.view = ServiceView(tuple(self.slots[n].summary for n in sorted(self.slots)), self.started, now,
                                str(self.folder), self.folder_error, os.getpid(), sessions)

    def config_of(self, name: str) -> Path | None:
        slot = self.slots.get(name)
        return slot.file.path if slot is not None else None

    @staticmethod
    @contextlib.contextmanager
    def _game(name: str) -> Iterator[None]:
        token = CURRENT_GAME.set(name)
        try:
            yield
        finally:
            CURRENT_GAME.reset(token)

    def close(self) -> None:
        for slot in self.slots.values():
            slot.close()
        self.slots.clear()
        self.pool.close()
        if self.lock is not None:
            self.lock.release()
            self.lock = None


def log_events(slot: GameSlot, report) -> None:
    """``第2日最终计票 #12 已发布 (pid 345)``: one line per thing that happened to the game."""
    from forumbot.wording import kind_zh

    rt = slot.rt
    if rt is None:
        return
    for draft in report.drafts:
        day = f"第{draft.day}日" if draft.day else ""
        log.info("%s%s #%d 已起草（%s）", day, kind_zh(draft.kind), draft.id,
                 "待导演审批" if draft.state.value == "draft" else "自动发出")
    for outcome in report.published:
        try:
            draft = rt.outbox.get(outcome.draft_id)
        except LookupError:
            continue
        what = f"{'第%d日' % draft.day if draft.day else ''}{kind_zh(draft.kind)} #{draft.id}"
        if outcome.how in (PublishHow.SENT, PublishHow.FOUND):
            how = "已发布" if outcome.how is PublishHow.SENT else "已在论坛上找到（上次已发出）"
            held = "，等待论坛审核" if outcome.moderated else ""
            log.info("%s %s%s (pid %s)", what, how, held, outcome.pid)
        elif outcome.how is PublishHow.FAILED:
            log.warning("%s 发送失败：%s", what, outcome.error)
        elif outcome.how is PublishHow.SUPERSEDED:
            log.info("%s 不再发出：%s", what, outcome.error)
        elif outcome.how is PublishHow.RELEASED:  # a moderator let it through: no error to name
            log.info("%s 已通过论坛审核，已发布 (pid %s)", what, outcome.pid)
        else:
            log.info("%s 稍后再发%s", what, f"：{outcome.error}" if outcome.error else "")


__all__ = ["CURRENT_GAME", "SERVICE_LOCK", "Service", "ServiceBusy", "ServiceView", "log_events"]
