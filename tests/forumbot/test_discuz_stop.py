"""Stopping: SIGTERM / Ctrl-C end a run within a second even while the client waits out a
retry's backoff, the throttle or flood control; and ``run --once`` says in its exit code
that it could not reach the forum."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta

import httpx
import pytest

from forumbot.game.clock import AcceleratedClock
from forumbot.discuz import DiscuzClient
from forumbot.discuz.errors import Interrupted
from forumbot.discuz.retry import RetryPolicy
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from forumbot.demo.scenario import GAME_START, PASSWORD, build_world, write_config
from forumbot.simulator import Simulator


def refuse(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection refused", request=request)


def stopping_client(stop: threading.Event, transport, **kwargs) -> DiscuzClient:
    return DiscuzClient(httpx.Client(transport=httpx.MockTransport(transport)), "http://127.0.0.1:9/",
                        generation="x3", stop=stop, **kwargs)


def stop_after(stop: threading.Event, seconds: float) -> None:
    threading.Timer(seconds, stop.set).start()


def test_discuz_stop__backoff_ends_when_asked():
    stop = threading.Event()
    client = stopping_client(stop, refuse, min_interval=0,
                             retry_policy=RetryPolicy(max_attempts=5, base_wait=60.0, jitter=0.0))
    stop_after(stop, 0.2)
    started = time.monotonic()
    with pytest.raises(Interrupted):
        client.fetch_page(2)
    # not the 60 s of the first backoff (a wide margin: a loaded machine is slow, not 60 s slow)
    assert time.monotonic() - started < 30


def test_discuz_stop__throttle_wait_ends_when_asked_and_nothing_more_is_sent():
    sent: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url))
        return httpx.Response(503, request=request)

    stop = threading.Event()
    client = stopping_client(stop, answer, min_interval=60.0, retry_policy=RetryPolicy(max_attempts=3))
    stop_after(stop, 0.2)
    started = time.monotonic()
    with pytest.raises(Interrupted):
        client.fetch_page(2)
    assert time.monotonic() - started < 30 and len(sent) == 1  # not the 60 s throttle wait
    with pytest.raises(Interrupted):
        client.fetch_page(2)  # once stopped, no request leaves
    assert len(sent) == 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def game_config(tmp_path, base_url: str):
    sim = Simulator(clock=AcceleratedClock(origin=GAME_START + timedelta(hours=2), factor=1.0))
    world = build_world(sim)  # the game's threads; this forum is not started
    return write_config(tmp_path / "game.toml", world, base_url, tmp_path / "game.sqlite",
                        poll_interval_seconds=600, min_request_interval_seconds=0.05)


def run_forumbot(config, *args: str, clock: str | None = None) -> subprocess.Popen:
    env = {**os.environ, "FORUMBOT_PASSWORD": PASSWORD}
    env.pop(CLOCK_ENV, None)
    if clock:
        env[CLOCK_ENV] = clock
    return subprocess.Popen([sys.executable, "-m", "forumbot", "run", "--config", str(config), *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_discuz_stop__signal_ends_the_run_mid_backoff(tmp_path, signum):
    config = game_config(tmp_path, f"http://127.0.0.1:{free_port()}/")  # nothing listens there
    proc = run_forumbot(config)
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 30
        assert proc.stderr is not None
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            lines.append(line)
            if "重试 3/5" in line:  # now waiting out the backoff (2 s, 4 s, then 8, 16)
                break
        else:
            pytest.fail("".join(lines))
        time.sleep(0.3)
        sent = time.monotonic()
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=15)
        # the backoff had ~7.7 s to go; a stop that waited for it takes longer than 5 s
        assert time.monotonic() - sent < 5, "the stop waited for the backoff"
        assert proc.returncode == 0 and "已干净地停止" in err
    finally:
        if proc.poll() is None:
            proc.kill()


def test_discuz_stop__run_once_exits_nonzero_when_the_forum_is_unreachable(tmp_path):
    base = f"http://127.0.0.1:{free_port()}/"
    config = game_config(tmp_path, base)
    # An accelerated clock: the retries' 30 s of backoff pass in a fraction of a second.
    clock = AcceleratedClock(origin=GAME_START + timedelta(hours=2), factor=2000.0)
    proc = run_forumbot(config, "--once", clock=clock_to_env(clock))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert f"错误：这一轮没有完成：无法连接论坛 {base}" in err


def test_discuz_stop__run_once_exits_zero_when_the_forum_answers(tmp_path):
    clock = AcceleratedClock(origin=GAME_START + timedelta(hours=2), factor=1.0)
    sim = Simulator(clock=clock)
    world = build_world(sim)
    base = sim.start()
    try:
        config = write_config(tmp_path / "game.toml", world, base, tmp_path / "game.sqlite",
                              min_request_interval_seconds=0.05)
        proc = run_forumbot(config, "--once", clock=clock_to_env(clock))
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    finally:
        sim.stop()
