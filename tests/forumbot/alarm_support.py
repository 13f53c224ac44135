"""Shared setup for the alarm tests: the scripted demo game on a simulator of either
generation, and the CLI run against its config on the game's clock."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path

from click.testing import CliRunner, Result

from forumbot.cli import main
from forumbot.game.clock import AcceleratedClock
from forumbot.demo.play import Game, setup_game
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from forumbot.demo.scenario import GAME_START, PASSWORD
from forumbot.simulator import SimClock, Simulator


def game_on(tmp_path: Path, discuz: str = "x3", charset: str = "utf-8", **agent: object) -> Game:
    """The demo game (not started) on a fresh simulator; ``agent`` are [agent] keys, or
    ``bot={…}`` for [bot] keys."""
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = SimClock(start=GAME_START - timedelta(minutes=20))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    return setup_game(tmp_path, clock=clock, sim=sim, **agent)


def cli(game: Game, *args: str, password: str | None = None) -> Result:
    """``forumbot ARGS --config GAME`` in this process, its clock at the game's time
    (running 60 times faster than the wall clock: the client's 2-second spacing of
    requests is game time)."""
    clock = AcceleratedClock(origin=game.clock.now(), factor=60.0, wall_origin=time.time())
    env = {CLOCK_ENV: clock_to_env(clock)}
    if password is not None:
        env["FORUMBOT_PASSWORD"] = password
    return CliRunner().invoke(main, [*args, "--config", str(game.rt.config.path)], env=env)


def login_posts(game: Game) -> int:
    return sum(1 for r in game.sim.requests if r.method == "POST" and r.query.get("action") == "login")


def bot_messages(game: Game, thread: str) -> list[str]:
    return [m for key, _, m in game.world.bot_posts() if key == thread]


def kinds(game: Game) -> list[str]:
    return [a.kind for a in game.rt.store.alarms()]
