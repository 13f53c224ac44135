"""Everything a command needs, built from one config file: the game, the agent settings,
the store, the outbox, the templates, the clock — and, for commands that talk to the
forum, a logged-in ``DiscuzClient``.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import httpx
import jinja2

from forumbot.discuz import DiscuzClient
from forumbot.discuz.transport import CONNECT_TIMEOUT
from datetime import datetime

from forumbot.game.days import sync_days, with_store_days
from forumbot.game.clock import AcceleratedClock, Clock, SystemClock, wait
from forumbot.config.gamefile import GameConfig, game_key, load_config
from forumbot.store.marker import game_hash
from forumbot.store.outbox import Outbox
from forumbot.game.render import make_environment
from forumbot.config.secrets import PasswordSource
from forumbot.config.settings import Settings, load_settings
from forumbot.store import Store
from forumbot.store.base import StoreOpenError


class SharedSessions(Protocol):
    """Where ``forumbot serve`` keeps one forum session per (forum, bot account) — its
    ``forumbot.service.pool.SessionPool``: the client of the session a game shares."""

    def client_for(self, rt: "Runtime") -> DiscuzClient: ...

log = logging.getLogger("forumbot")


@dataclass
class Runtime:
    base_config: GameConfig  # the config file as read
    settings: Settings
    store: Store
    outbox: Outbox
    env: jinja2.Environment
    clock: Clock

    @property
    def config(self) -> GameConfig:
        """The game as it stands: the config with the store's days (the director's changes
        to the schedule, the threads the bot opened — ``forumbot.game.days``). Derived again
        only when the store changed: this connection wrote a day, or another one committed."""
        cached = self.__dict__.get("_days_cache")
        try:
            basis = (self.store.days_revision, self.store.db.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.ProgrammingError:  # the store is closed: the game as last read
            return cached[1] if cached is not None else self.base_config
        if cached is None or cached[0] != basis:
            cached = (basis, with_store_days(self.base_config, self.store))
            self.__dict__["_days_cache"] = cached
        return cached[1]

    def close(self) -> None:
        self.store.close()


CLOCK_ENV = "FORUMBOT_CLOCK"


def clock_from_env(value: str | None, tz) -> Clock | None:
    """``FORUMBOT_CLOCK=accelerated;origin=<ISO>;factor=<x>;wall=<unix seconds>``: game
    time runs ``factor`` times faster than wall time from ``origin`` at wall second
    ``wall``. For demos and tests that run the agent in another process than the
    simulator: both build the same clock and agree on the forum's time."""
    if not value:
        return None
    kind, _, rest = value.partition(";")
    fields = dict(part.split("=", 1) for part in rest.split(";") if "=" in part)
    if kind != "accelerated" or not {"origin", "factor", "wall"} <= set(fields):
        raise ValueError(f"{CLOCK_ENV}：应为 accelerated;origin=…;factor=…;wall=…，实际是 {value!r}")
    return AcceleratedClock(origin=datetime.fromisoformat(fields["origin"]).astimezone(tz),
                            factor=float(fields["factor"]), wall_origin=float(fields["wall"]))


def clock_to_env(clock: AcceleratedClock) -> str:
    return f"accelerated;origin={clock.origin.isoformat()};factor={clock.factor};wall={clock.wall_origin}"


class StateMissingError(StoreOpenError):
    """The game's database does not exist and the command may not create one."""


def missing_state_text(config_path: str | Path, database: Path) -> str:
    folder = database.parent
    if not folder.is_dir():
        return (f"本局的状态数据库不存在：存放它的文件夹不存在：{folder}（配置 {config_path} 的 [agent].database 是 "
                f"{database}）。若这局还没开始：先建好文件夹（mkdir -p {folder}），再 `forumbot run --config "
                f"{config_path}`；若它本来存在：请检查 [agent].database 是否写对了，或从备份恢复")
    return (f"本局的状态数据库不存在：{database}（配置 {config_path} 的 [agent].database）。这个命令只用已有的状态，"
            f"不会新建。若这局还没开始：`forumbot run --config {config_path}`（或 `forumbot init --config "
            f"{config_path}`）会新建它。若它本来存在：请检查 [agent].database 是否写对了，或从备份恢复；"
            "新建的状态若在论坛上发现这局已经发过的帖子，会暂停发帖并报警，由导演决定是否接管")


def open_runtime(config_path: str | Path, *, clock: Clock | None = None, create: bool = True,
                 scratch: bool = False) -> Runtime:
    """Everything a command needs for the game of ``config_path``. The game's database is
    created when missing only with ``create`` (``forumbot run``, ``serve``, ``init``);
    otherwise a missing one is ``StateMissingError`` — or, with ``scratch``, a store in
    memory that nothing is kept in (``check`` and ``login`` before a game's first run)."""
    config = load_config(config_path)
    settings = load_settings(config)
    database = settings.agent.database
    if not create and not Path(database).exists():
        if not scratch:
            raise StateMissingError(missing_state_text(config.path, Path(database)))
        database = ":memory:"
    store = Store(database)
    # The game's hash the markers carry: its threads' (the store's own key when the config
    # names no thread: such a game posts nothing) — forumbot.game.provenance.game_hash_for.
    outbox = Outbox(store, settings.policies, game=game_hash(game_key(config) or store.game_key))
    # The forum's address and generation (set in the config, or as the agent found it)
    # decide how the bot's posts link to other posts.
    env = make_environment(settings.agent.templates, base_url=config.forum.base_url,
                           generation=config.forum.discuz if config.forum.discuz != "auto"
                           else store.get_meta("discuz"))
    clock = clock or clock_from_env(os.environ.get(CLOCK_ENV), config.forum.tz) or SystemClock(config.forum.tz)
    # The store's days from the config (the first time: seeded), with the changes kept.
    sync_days(config, store, clock.now())
    return Runtime(config, settings, store, outbox, env, clock)


def make_client(rt: Runtime, *, http: httpx.Client | None = None,
                stop: threading.Event | None = None, pool: SharedSessions | None = None,
                password_file: Path | None = None) -> DiscuzClient:
    """The bot's forum client. Requests are spaced in *game* time, so an accelerated
    demo clock spaces them proportionally; against a real forum the clock is real. Every
    wait (throttle, retry backoff, flood control) ends at once when ``stop`` is set.

    With ``pool`` (``forumbot serve``), the client of the forum session every game of the
    same forum and bot account shares: one login, one cookie jar, one throttle and one
    flood clock (``forumbot.service.pool``). ``password_file``: where the password is
    when the game's ``[bot].password_file`` does not say (the service's own setting)."""
    if pool is not None:
        return pool.client_for(rt)
    bot = rt.settings.bot
    base_url = rt.config.forum.base_url
    if not base_url:
        from forumbot.config.gamefile import ConfigError

        raise ConfigError(f"{rt.config.path}: [forum].base_url: 缺少（机器人要知道论坛的地址）")
    answer = os.environ.get(bot.answer_env) if bot.question_id else None
    source = PasswordSource(password_file=bot.password_file or password_file)
    stop = stop if stop is not None else threading.Event()
    client = DiscuzClient(
        http or httpx.Client(timeout=httpx.Timeout(30.0, connect=CONNECT_TIMEOUT), follow_redirects=False),
        base_url,
        username=bot.username,
        password_source=source,
        question=(bot.question_id, answer or "") if bot.question_id else None,
        cookie_path=bot.cookie_file,
        min_interval=rt.settings.agent.min_request_interval_seconds,
        clock=lambda: rt.clock.now().timestamp(),
        sleep=lambda seconds: wait(rt.clock, stop, seconds),
        tz=rt.config.forum.tz,
        password_md5=bot.password_md5,
        use_api=bool(bot.use_api),
        user_agent=bot.user_agent,
        generation=rt.config.forum.discuz,
        stop=stop,
    )
    return client
