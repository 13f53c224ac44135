"""One forum session per (forum, bot account), shared by every game on it.

Discuz's flood control is per *user*: two games posting as the same account within 15 s
get refused, and each separate login spends the account's five tries per 15 minutes. So
every game of the service on the same forum and account gets the same
:class:`~forumbot.discuz.DiscuzClient`, through a :class:`GameClient` of its own:

* one login, one cookie jar (the first game's ``[bot].cookie_file``), one throttle (the
  largest ``min_request_interval_seconds`` of the games on it), one retry policy;
* one **write clock**: a reply or PM of any game waits until ``flood_seconds`` after the
  account's last one (:meth:`Session.await_write`); the scheduler avoids even that wait
  by publishing only when the clock is free (:meth:`Session.write_free`);
* one **retry budget**: when the forum cannot be reached (every retry of a request
  spent), the session is *down* for a growing while and the scheduler sends it nothing
  but one probe when that while is over (:meth:`Session.mark_down`), instead of every
  game spending its own retries on a dead forum.

What stays per game: how the game reads its threads (pages or the mobile API, kept in
its store) — a ``GameClient`` sets it on the shared client before each call — and its
page budget for one pass (a long first read is taken in parts, so other games are read
in between).

All of it is used from the service's one scheduler thread (``forumbot.service.runner``):
nothing here locks.
"""

from __future__ import annotations

import functools
import logging
import threading
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from forumbot.config.gamefile import ConfigError
from forumbot.discuz import DiscuzClient
from forumbot.discuz.errors import FloodControl, ForumUnavailable
from forumbot.game.runtime import Runtime, make_client

log = logging.getLogger("forumbot.service")

# How long a session counts as down after its Nth unreachable pass in a row: 30 s,
# doubling, at most 10 minutes (game time).
DOWN_FIRST = 30.0
DOWN_MAX = 600.0


@dataclass(frozen=True)
class SessionKey:
    base_url: str  # scheme and host in lower case, path ending in "/"
    username: str  # NFKC

    def __str__(self) -> str:
        return f"{self.username}@{self.base_url}"


def session_key(rt: Runtime) -> SessionKey:
    base = rt.config.forum.base_url or ""
    parts = urlsplit(base)
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    url = f"{parts.scheme.lower()}://{parts.netloc.lower()}{path}"
    return SessionKey(url, unicodedata.normalize("NFKC", rt.settings.bot.username).strip())


class Session:
    """The shared client of one (forum, account) and what the service knows about it."""

    def __init__(self, key: SessionKey, client: DiscuzClient, rt: Runtime, game: str, *,
                 flood_seconds: float) -> None:
        self.key = key
        self.client = client
        self.clock = rt.clock
        self.tz = rt.config.forum.tz
        self.forum = rt.config.forum
        self.bot = rt.settings.bot
        self.opened_by = game
        self.flood_seconds = flood_seconds
        self.intervals: dict[str, float] = {}  # game → its min_request_interval_seconds
        # Client clock seconds of the last reply or PM. A session opens as if it had just
        # posted: the process may have been restarted right after a post (killed, or a
        # crash), and the forum's clock for the account does not restart with it.
        self.last_write: float | None = self._now_seconds()
        self.writes: list[float] = []  # every reply/PM attempt's time (the bench reads them)
        self.down_since: datetime | None = None
        self.down_until: datetime | None = None
        self.failures = 0
        # The account's conversations with its directors, shared by its games: each read
        # once per poll, each command to its game (forumbot.notify.switchboard).
        from forumbot.notify.switchboard import Switchboard

        self.board = Switchboard(shared=True)
        # The account's boards: their listings tell every game on it which threads moved
        # (forumbot.service.boards), one request per board per poll.
        from forumbot.service.boards import BoardWatch

        self.watch = BoardWatch()

    def read_listing(self, now: datetime) -> bool:
        """Read the listing of the board most overdue, if any is due: True if one was read.
        Always the HTML listing (every forum has it; the mobile API may be off). A forum
        found unreachable marks the session down."""
        due = self.watch.due(now)
        if not due:
            return False
        client = self.client
        was = client.use_api
        client.use_api = False
        try:
            self.watch.read(client, due[0], now)
        except ForumUnavailable:
            self.mark_down(now)
        finally:
            client.use_api = was
            client.forget_unreachable()
        return True

    # ------------------------------------------------------------------ games

    def join(self, game: str, rt: Runtime) -> None:
        """Add a game; its forum settings must agree with the session's (one forum has
        one time zone and one generation). Different ``[bot]`` files are logged: the
        session keeps the first game's."""
        forum = rt.config.forum
        path = rt.config.path
        if forum.timezone != self.forum.timezone:
            raise ConfigError(f"{path}: [forum].timezone: {forum.timezone} 与同一论坛、同一账号的游戏 "
                              f"{self.opened_by} 的 {self.forum.timezone} 不同（一个论坛只有一个时区）")
        if "auto" not in (forum.discuz, self.forum.discuz) and forum.discuz != self.forum.discuz:
            raise ConfigError(f"{path}: [forum].discuz: {forum.discuz} 与同一论坛的游戏 {self.opened_by} "
                              f"的 {self.forum.discuz} 不同")
        bot = rt.settings.bot
        differs = [k for k in ("cookie_file", "password_file", "user_agent", "question_id", "password_md5")
                   if not _same_setting(getattr(bot, k), getattr(self.bot, k))]
        if differs and game != self.opened_by:
            log.warning("[bot] 的 %s 与游戏 %s 的不同；%s 的共用登录沿用游戏 %s 的设置"
                        "（同一账号的各局请用相同的 [bot] 设置：forumbot login 把登录保存到"
                        "这一局的 cookie_file）", "、".join(differs), self.opened_by,
                        self.key, self.opened_by)
        self.intervals[game] = rt.settings.agent.min_request_interval_seconds
        self._set_interval()

    def leave(self, game: str) -> bool:
        """Remove a game; True when no game is left on the session."""
        self.intervals.pop(game, None)
        if self.intervals:
            self._set_interval()
        return not self.intervals

    def _set_interval(self) -> None:
        self.client.transport.throttle.min_interval = max(self.intervals.values())

    @property
    def min_interval(self) -> float:
        return self.client.transport.throttle.min_interval

    # ------------------------------------------------------------------ the throttle

    def _now_seconds(self) -> float:
        return self.clock.now().timestamp()

    def _at(self, seconds: float) -> datetime:
        return datetime.fromtimestamp(seconds, self.tz)

    def ready_at(self) -> datetime | None:
        """When the next request may go without the throttle waiting (None: now)."""
        ready = self.client.transport.throttle.ready_at
        return None if ready is None else self._at(ready)

    # ------------------------------------------------------------------ the write clock

    def write_free_at(self) -> datetime | None:
        """When the account may post again (None: now)."""
        return None if self.last_write is None else self._at(self.last_write + self.flood_seconds)

    def write_free(self, now: datetime) -> bool:
        free = self.write_free_at()
        return free is None or now >= free

    def await_write(self) -> None:
        """Wait until the account may post (the stop event ends the wait at once)."""
        if self.last_write is None:
            return
        left = self.last_write + self.flood_seconds - self._now_seconds()
        if left > 0:
            log.info("等 %.0f 秒：%s 上次发帖不到 %g 秒（论坛的灌水限制）",
                     left, self.key.username, self.flood_seconds)
            self.client.transport.pause(left)

    def wrote(self) -> None:
        self.last_write = self._now_seconds()
        self.writes.append(self.last_write)

    def learn_flood(self, error: FloodControl) -> None:
        """The forum refused for flood control anyway: its interval is longer than ours."""
        seconds = getattr(error, "seconds", None)
        if seconds and seconds + 1 > self.flood_seconds:
            log.warning("%s：论坛的灌水间隔是 %g 秒；此后每两篇帖子间隔 %g 秒",
                        self.key, seconds, seconds + 1)
            self.flood_seconds = float(seconds) + 1

    # ------------------------------------------------------------------ reachable or not

    def available(self, now: datetime) -> bool:
        return self.down_until is None or now >= self.down_until

    def mark_down(self, now: datetime) -> None:
        """A pass found the forum unreachable (its retries spent): send nothing more for
        a while, longer each time, then one probe."""
        self.failures += 1
        if self.down_since is None:
            self.down_since = now
            log.warning("%s：论坛无法访问；这个论坛上的各局等待（每次只试探一次）",
                        self.key)
        wait = min(DOWN_FIRST * (2 ** (self.failures - 1)), DOWN_MAX)
        self.down_until = now + timedelta(seconds=wait)

    def mark_up(self, now: datetime) -> None:
        if self.down_since is not None:
            log.info("%s：论坛恢复访问（自 %s 起无法访问）", self.key,
                     self.down_since.isoformat(timespec="seconds"))
        self.down_since = self.down_until = None
        self.failures = 0


def _same_setting(a: Any, b: Any) -> bool:
    """Two games' ``[bot]`` values agree. Files are the same file however each config
    names it (``../cookies.json`` from one folder, an absolute path or a symlink from
    another): compared as files when both exist, else by their resolved paths."""
    if isinstance(a, Path) and isinstance(b, Path):
        try:
            return a.samefile(b)
        except OSError:
            return a.resolve() == b.resolve()
    return a == b


class GameClient:
    """One game's view of a shared session: everything the agent asks of its
    ``DiscuzClient``, with the game's own reading source, page budget and the session's
    write clock. Attributes not defined here are the shared client's."""

    def __init__(self, session: Session, game: str) -> None:
        self._session = session
        self.game = game
        self._use_api = False
        self.page_budget: int | None = None  # pages one read may take (None: all)

    @property
    def session(self) -> Session:
        return self._session

    @property
    def use_api(self) -> bool:
        client = self._session.client
        client.use_api = self._use_api
        return client.use_api

    @use_api.setter
    def use_api(self, on: bool) -> None:
        self._use_api = bool(on)

    def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        client = self._session.client
        client.use_api = self._use_api
        try:
            return fn(*args, **kwargs)
        finally:
            self._use_api = client.use_api  # check_api() decides it on the shared client

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._session.client, name)
        if not callable(value):
            return value

        @functools.wraps(value)
        def call(*args: Any, **kwargs: Any) -> Any:
            return self._call(value, *args, **kwargs)

        return call

    def read_new(self, cursor, *, on_page=None, max_pages: int | None = None):
        budget = max_pages if max_pages is not None else self.page_budget
        return self._call(self._session.client.read_new, cursor, on_page=on_page, max_pages=budget)

    def reply(self, *args: Any, **kwargs: Any):
        return self._write(self._session.client.reply, *args, **kwargs)

    def send_pm(self, *args: Any, **kwargs: Any):
        return self._write(self._session.client.send_pm, *args, **kwargs)

    def _write(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        session = self._session
        session.await_write()
        sent = True
        try:
            return self._call(fn, *args, **kwargs)
        except FloodControl as error:
            session.learn_flood(error)
            raise
        except ForumUnavailable as error:
            sent = error.sent  # a POST that never left did not start the forum's clock
            raise
        finally:
            if sent:
                session.wrote()

    def __repr__(self) -> str:
        return f"GameClient({self.game!r}, {self._session.key})"


class SessionPool:
    """The sessions of the service, by (forum, account)."""

    def __init__(self, *, stop: threading.Event, flood_seconds: float, password_file: Path | None = None,
                 http_factory: Callable[[], Any] | None = None) -> None:
        self.stop = stop
        self.flood_seconds = flood_seconds
        self.password_file = password_file
        self.http_factory = http_factory
        self.sessions: dict[SessionKey, Session] = {}
        self.games: dict[str, SessionKey] = {}

    def client_for(self, rt: Runtime, game: str | None = None) -> GameClient:
        """The game's client over the session of its forum and account (opened on first
        use: no request is sent until the game's agent starts)."""
        game = game or str(rt.config.path)
        if not rt.config.forum.base_url:
            raise ConfigError(f"{rt.config.path}: [forum].base_url: 缺少（机器人要知道论坛的地址）")
        key = session_key(rt)
        session = self.sessions.get(key)
        if session is None:
            http = self.http_factory() if self.http_factory is not None else None
            client = make_client(rt, http=http, stop=self.stop, password_file=self.password_file)
            session = Session(key, client, rt, game, flood_seconds=self.flood_seconds)
            self.sessions[key] = session
            log.info("打开了 %s 的论坛登录", key)
        session.join(game, rt)
        self.games[game] = key
        return GameClient(session, game)

    def session_of(self, game: str) -> Session | None:
        key = self.games.get(game)
        return self.sessions.get(key) if key is not None else None

    def release(self, game: str) -> None:
        """The game left the service: its session closes with the last game on it."""
        key = self.games.pop(game, None)
        session = self.sessions.get(key) if key is not None else None
        if session is not None and session.leave(game):
            session.client.save_session()
            session.client.http.close()
            del self.sessions[key]
            log.info("关闭了 %s 的论坛登录（已没有游戏用它）", key)

    def close(self) -> None:
        for session in self.sessions.values():
            session.client.save_session()
            session.client.http.close()
        self.sessions.clear()
        self.games.clear()


__all__ = ["GameClient", "Session", "SessionKey", "SessionPool", "session_key"]
