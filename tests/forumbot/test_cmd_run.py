"""forumbot run as a director starts it: a real subprocess against the simulator over
HTTP, stopped cleanly by SIGTERM or Ctrl-C (SIGINT) in the middle of its wait."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest

from forumbot.game.clock import AcceleratedClock
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from forumbot.demo.scenario import GAME_START, PASSWORD, build_world, write_config
from forumbot.simulator import Simulator
from forumbot.store import Store


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_cmd_run__stops_cleanly_on_a_signal(tmp_path, signum):
    clock = AcceleratedClock(origin=GAME_START + timedelta(hours=2), factor=1.0)
    sim = Simulator(clock=clock)
    world = build_world(sim)
    base = sim.start()
    config = write_config(tmp_path / "game.toml", world, base, tmp_path / "game.sqlite",
                          poll_interval_seconds=600, min_request_interval_seconds=0.05)
    env = {**os.environ, "FORUMBOT_PASSWORD": PASSWORD, CLOCK_ENV: clock_to_env(clock)}
    proc = subprocess.Popen([sys.executable, "-m", "forumbot", "run", "--config", str(config)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            if any(r.query.get("mod") == "viewthread" for r in sim.requests):
                break
            time.sleep(0.05)
        time.sleep(0.5)  # the pass finishes; the agent is now waiting 600 s for the next
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        sent = time.monotonic()
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        # the agent was waiting 600 s for its next pass; a wide margin for a loaded machine
        assert time.monotonic() - sent < 60, "the stop waited for the sleep to end"
        assert "已干净地停止" in err
        with Store(tmp_path / "game.sqlite") as store:
            assert store.cursor(world.tids["vote1"]) is not None  # it had read the game
    finally:
        if proc.poll() is None:
            proc.kill()
        sim.stop()


STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\+08:00 forumbot")


def test_cmd_run__log_lines_are_stamped_in_the_forums_time_with_its_offset(tmp_path):
    """Console and log_file alike: the forum's time (Asia/Shanghai, +08:00), here the
    game clock's, never the machine's UTC."""
    from tests.forumbot.agent_process import live_game

    game = live_game(tmp_path, log_file=str(tmp_path / "forumbot.log"))
    try:
        done = game.cli("run", "--once")
        assert done.returncode == 0, done.stderr
        for text in (done.stderr, (tmp_path / "forumbot.log").read_text(encoding="utf-8")):
            lines = [line for line in text.splitlines() if " forumbot" in line]
            assert lines and all(STAMP.match(line) for line in lines), lines[:3]
            first = datetime.fromisoformat(STAMP.match(lines[0]).group(1))
            assert datetime(2026, 12, 1, 11, 0) <= first < datetime(2026, 12, 1, 11, 5)  # game time
        # Without a game clock: the wall clock, in the forum's zone.
        env = {k: v for k, v in game.env.items() if k != CLOCK_ENV}
        done = subprocess.run([sys.executable, "-m", "forumbot", "run", "--once", "--config", str(game.config)],
                              env=env, capture_output=True, text=True, timeout=60)
        line = next(line for line in done.stderr.splitlines() if " forumbot" in line)
        stamp = datetime.fromisoformat(line.split(" forumbot")[0].replace(" ", "T"))
        assert line.split(" forumbot")[0].endswith("+08:00")
        assert abs((stamp - datetime.now(timezone.utc)).total_seconds()) < 120
    finally:
        game.sim.stop()
