"""``forumbot`` as a director runs it: real subprocesses beside the simulator over HTTP.

``live_game`` serves the demo game's forum on an accelerated clock the subprocesses share
(``FORUMBOT_CLOCK``), with the day's first votes already posted, and writes its config;
``forumbot(...)`` starts a command, ``cli(...)`` runs one to the end."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Callable

from forumbot.game.clock import AcceleratedClock
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from forumbot.demo.scenario import BOT, GAME_START, PASSWORD, World, build_world, write_config
from forumbot.simulator import Simulator


@dataclass
class LiveGame:
    sim: Simulator
    world: World
    clock: AcceleratedClock
    config: Path
    database: Path
    env: dict[str, str]

    def forumbot(self, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.Popen:
        return subprocess.Popen([*prefix, sys.executable, "-m", "forumbot", *args, "--config", str(self.config)],
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL)

    def cli(self, *args: str, timeout: float = 60, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
        return subprocess.run([*prefix, sys.executable, "-m", "forumbot", *args, "--config", str(self.config)],
                              env=self.env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    def bot_posts(self, key: str = "vote1") -> list:
        return [p for p in self.sim.posts(self.world.tids[key]) if p.author == BOT]

    def vote(self, who: str, target: str, key: str = "vote1") -> int:
        return self.sim.add_post(self.world.tids[key], who, f"投票对象：{target}\n投票理由：测试")


def live_game(tmp: Path, *, state_dir: Path | None = None, factor: float = 1.0, discuz: str = "x3",
              **agent: object) -> LiveGame:
    """Day 1 at 11:00 game time, three votes in; polls every ``poll_interval_seconds``
    of game time (default 600: one pass, then a long wait)."""
    clock = AcceleratedClock(origin=GAME_START + timedelta(hours=2), factor=factor)
    sim = Simulator(clock=clock, discuz=discuz)
    world = build_world(sim)
    for who, target in (("饺子", "包子"), ("包子", "饺子"), ("汤圆", "饺子")):
        sim.add_post(world.tids["vote1"], who, f"投票对象：{target}\n投票理由：测试", at=GAME_START + timedelta(hours=1))
    base = sim.start()
    state = state_dir or tmp
    database = state / "game.sqlite"
    settings = {"poll_interval_seconds": 600, "poll_jitter_seconds": 0, "min_request_interval_seconds": 0.05,
                "running_count_interval_minutes": 0, **agent}
    config = write_config(tmp / "game.toml", world, base, database, **settings)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FORUMBOT_")}
    env.update(FORUMBOT_PASSWORD=PASSWORD, PYTHONUNBUFFERED="1")
    env[CLOCK_ENV] = clock_to_env(clock)
    return LiveGame(sim, world, clock, config, database, env)


def wait_for(check: Callable[[], object], timeout: float = 30.0, every: float = 0.05) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {check}")


def stop(proc: subprocess.Popen, timeout: float = 20) -> tuple[int, str, str]:
    """SIGTERM (a clean stop); returns (exit code, stdout, stderr)."""
    if proc.poll() is None:
        proc.terminate()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return proc.returncode, out, err
