"""forumbot run as a director starts it: a real subprocess against the simulator over
HTTP, stopped cleanly by SIGTERM or Ctrl-C (SIGINT) in the middle of its wait."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta

import pytest

from forumbot.clock import AcceleratedClock
from forumbot.runtime import CLOCK_ENV, clock_to_env
from forumbot.scenario import GAME_START, PASSWORD, build_world, write_config
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
        assert time.monotonic() - sent < 3, "the stop waited for the sleep to end"
        assert "stopped cleanly" in err
        with Store(tmp_path / "game.sqlite") as store:
            assert store.cursor(world.tids["vote1"]) is not None  # it had read the game
    finally:
        if proc.poll() is None:
            proc.kill()
        sim.stop()
