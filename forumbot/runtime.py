"""Everything a command needs, built from one config file: the game, the agent settings,
the store, the outbox, the templates, the clock — and, for commands that talk to the
forum, a logged-in ``DiscuzClient``.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import httpx
import jinja2

from forumbot.client import DiscuzClient
from forumbot.clock import Clock, SystemClock
from forumbot.config import GameConfig, load_config
from forumbot.outbox import Outbox
from forumbot.render import make_environment
from forumbot.secrets import PasswordSource
from forumbot.settings import Settings, load_settings
from forumbot.store import Store

log = logging.getLogger("forumbot")


@dataclass
class Runtime:
    config: GameConfig
    settings: Settings
    store: Store
    outbox: Outbox
    env: jinja2.Environment
    clock: Clock

    def close(self) -> None:
        self.store.close()


def open_runtime(config_path: str | Path, *, clock: Clock | None = None) -> Runtime:
    config = load_config(config_path)
    settings = load_settings(config)
    store = Store(settings.agent.database)
    outbox = Outbox(store, settings.policies)
    env = make_environment(settings.agent.templates)
    return Runtime(config, settings, store, outbox, env, clock or SystemClock(config.forum.tz))


def make_client(rt: Runtime, *, http: httpx.Client | None = None) -> DiscuzClient:
    """The bot's forum client. Requests are spaced in *game* time, so an accelerated
    demo clock spaces them proportionally; against a real forum the clock is real."""
    bot = rt.settings.bot
    base_url = rt.config.forum.base_url
    if not base_url:
        from forumbot.config import ConfigError

        raise ConfigError(f"{rt.config.path}: [forum].base_url: missing (the agent needs the forum's address)")
    answer = os.environ.get(bot.answer_env) if bot.question_id else None
    source = PasswordSource(password_file=bot.password_file)
    client = DiscuzClient(
        http or httpx.Client(timeout=httpx.Timeout(30.0, connect=10.0), follow_redirects=False),
        base_url,
        username=bot.username,
        password_source=source,
        question=(bot.question_id, answer or "") if bot.question_id else None,
        cookie_path=bot.cookie_file,
        min_interval=rt.settings.agent.min_request_interval_seconds,
        clock=lambda: rt.clock.now().timestamp(),
        sleep=rt.clock.sleep,
        tz=rt.config.forum.tz,
        password_md5=bot.password_md5,
        use_api=bool(bot.use_api),
    )
    return client
