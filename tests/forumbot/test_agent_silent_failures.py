"""What once failed without a word (issue 18, finding 10), over real HTTP on 127.0.0.1:

* a configured thread the forum says does not exist: an alarm in Chinese naming the
  day, the thread and the ``[[days]]`` key, and ``run --once`` exits 1 — not a quiet pass
  with every player a non-voter;
* a dead forum (a closed port): ``run --once`` ends within the bound its help states —
  one request's retries, after which the pass sends nothing more — and exits 1;
* the game's database replaced under a running agent (see the last section).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from datetime import timedelta

import pytest
from click.testing import CliRunner

from forumbot.agent import Agent
from forumbot.cli import main
from forumbot.clock import AcceleratedClock
from forumbot.discuz.transport import unreachable_bound
from forumbot.retry import DEFAULT
from forumbot.runtime import CLOCK_ENV, clock_to_env, make_client, open_runtime
from forumbot.scenario import GAME_START, PASSWORD, build_world, write_config
from forumbot.simulator import SimClock, Simulator
from tests.forumbot.agent_process import live_game


@pytest.fixture
def closed_port():
    """A port on 127.0.0.1 bound but not listening: a connection is refused at once, and
    no other process can start listening on it while the test runs."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


# ---------------------------------------------------------------- a thread that does not exist


def _day1_vote_thread(game, old: int, new: int) -> None:
    """The director's edit of day 1's ``vote_thread`` in the config."""
    text = game.config.read_text(encoding="utf-8")
    assert f'"vote_thread" = {old}\n' in text
    game.config.write_text(text.replace(f'"vote_thread" = {old}\n', f'"vote_thread" = {new}\n', 1), encoding="utf-8")


def test_missing_thread__an_alarm_naming_the_day_and_key_and_run_once_fails(tmp_path):
    game = live_game(tmp_path)
    try:
        real = game.world.tids["vote1"]
        _day1_vote_thread(game, real, 9999)  # a typo in the tid
        done = game.cli("run", "--once")
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr
        assert "论坛上没有配置里的主题 9999" in done.stderr.splitlines()[-1]

        status = game.cli("status")
        assert status.returncode == 0, status.stderr
        lines = status.stdout.splitlines()
        assert lines[1].startswith("⚠ 警报"), status.stdout  # after the agent's line: the alarm, first
        alarm = "".join(lines[1:lines.index(next(x for x in lines if x.startswith("第1日")))])  # rich wraps at 80
        assert "第1日投票帖（主题9999）在论坛上不存在" in alarm.replace(" ", ""), alarm
        assert "`vote_thread`" in alarm and "人人都是未投票" in alarm

        _day1_vote_thread(game, 9999, real)  # the director fixes it
        done = game.cli("run", "--once")
        assert done.returncode == 0, done.stderr
        status = game.cli("status")
        assert "警报" not in status.stdout and "不存在" not in status.stdout, status.stdout
    finally:
        game.sim.stop()


# ---------------------------------------------------------------- a dead forum


def _dead_forum_config(tmp_path, port: int):
    world = build_world(Simulator(clock=SimClock(start=GAME_START)))  # only its tids: never started
    return write_config(tmp_path / "game.toml", world, f"http://127.0.0.1:{port}/", tmp_path / "game.sqlite")


def test_dead_forum__a_pass_spends_one_requests_retries_then_sends_nothing(tmp_path, closed_port, monkeypatch):
    """Game time (a manual clock: the retry waits move it, nothing sleeps): the pass tries
    the first request five times and no other, within ``unreachable_bound``; the next
    pass tries afresh."""
    monkeypatch.setenv("FORUMBOT_PASSWORD", PASSWORD)
    clock = SimClock(start=GAME_START + timedelta(hours=2))
    rt = open_runtime(_dead_forum_config(tmp_path, closed_port), clock=clock)
    try:
        client = make_client(rt)
        agent = Agent(rt, client)
        began = clock.now()
        agent.start()
        report = agent.tick()
        assert report.unreachable
        assert client.request_count == DEFAULT.max_attempts  # one request, retried; nothing after it
        assert (clock.now() - began).total_seconds() <= unreachable_bound()
        assert len([e for e in report.errors if e.startswith("thread ")]) == 3  # each thread said, none sent
        agent.tick()
        assert client.request_count == 2 * DEFAULT.max_attempts  # a new pass tries the forum again
    finally:
        rt.close()


def test_dead_forum__run_once_exits_1_within_the_bound_its_help_states(tmp_path, closed_port):
    help_text = CliRunner().invoke(main, ["run", "--help"]).output
    stated = re.search(r"论坛连不上时最多约(\d+)秒就结束", re.sub(r"\s+", "", help_text))
    assert stated, help_text
    assert unreachable_bound() <= int(stated.group(1))

    config = _dead_forum_config(tmp_path, closed_port)
    # Game time 100× the wall's: the retry waits (≈30 s of game time) take a fraction of a second.
    clock = AcceleratedClock(origin=GAME_START + timedelta(hours=2), factor=100.0)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FORUMBOT_")}
    env.update(FORUMBOT_PASSWORD=PASSWORD, **{CLOCK_ENV: clock_to_env(clock)})
    done = subprocess.run([sys.executable, "-m", "forumbot", "run", "--once", "--config", str(config)],
                          env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == f"错误：这一轮没有完成：无法连接论坛 http://127.0.0.1:{closed_port}/"
    retries = [line for line in done.stderr.splitlines() if re.search(r"retry \d/\d", line)]
    assert len(retries) == DEFAULT.max_attempts - 1, done.stderr  # one request's retries, no more
