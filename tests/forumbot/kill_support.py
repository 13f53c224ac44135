"""One crash run of the scripted game, shared by the crash and secrets tests (it takes
about a minute: the agent in a subprocess, SIGKILLed 20 times), and the uninterrupted
in-process reference run (``forumbot.demo.play``) it is compared with."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

from forumbot.demo.play import Game, play, setup_game
from forumbot.demo.harness import HarnessSimulator, KillOptions, KillRun, run_with_kills
from forumbot.demo.scenario import GAME_START, PASSWORD, demo_plan
from forumbot.simulator import SimClock

# The same [agent] settings for both runs. A 计票 request stays answerable for 12 game
# hours, so a restart (≈ 40 game minutes at this clock factor) cannot make it too old.
AGENT = {"count_request_max_age_minutes": 720, "min_request_interval_seconds": 1,
         "poll_jitter_seconds": 30}
FACTOR = 3000.0  # a poll (600 game-s) every 0.2 s wall; the game in about 75 s
SEED = int(os.environ.get("FORUMBOT_CRASH_SEED", "5"))


def _tmp(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


@functools.cache
def crash_run() -> KillRun:
    run = run_with_kills(demo_plan(), _tmp("forumbot-crash-"),
                         KillOptions(factor=FACTOR, kills=20, window_kills=5, seed=SEED,
                                     wall_limit=240, agent=dict(AGENT)))
    run.game.sim.stop()
    return run


@functools.cache
def reference_game() -> Game:
    os.environ.setdefault("FORUMBOT_PASSWORD", PASSWORD)
    clock = SimClock(start=GAME_START - timedelta(minutes=20))
    game = setup_game(_tmp("forumbot-reference-"), clock=clock,
                      sim=HarnessSimulator(clock=clock), **AGENT)
    play(game)
    game.sim.stop()
    atexit.register(game.close)
    return game
