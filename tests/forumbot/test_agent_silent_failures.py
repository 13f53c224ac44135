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

from forumbot.agent.loop import Agent

from forumbot.notify import Notifier
from forumbot.cli import main
from forumbot.game.clock import AcceleratedClock
from forumbot.discuz.transport import unreachable_bound
from forumbot.discuz.retry import DEFAULT
from forumbot.game.runtime import CLOCK_ENV, clock_to_env, make_client, open_runtime
from forumbot.demo.scenario import GAME_START, PASSWORD, build_world, write_config
from forumbot.simulator import SimClock, Simulator
from tests.forumbot.agent_process import live_game, wait_for


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
        agent = Agent(rt, client, notifier=Notifier.for_agent)
        began = clock.now()
        agent.start()
        report = agent.tick()
        assert report.unreachable
        assert client.request_count == DEFAULT.max_attempts  # one request, retried; nothing after it
        assert (clock.now() - began).total_seconds() <= unreachable_bound()
        assert len([e for e in report.errors if e.startswith("读帖子 ")]) == 3  # each thread said, none sent
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
    retries = [line for line in done.stderr.splitlines() if re.search(r"重试 \d/\d", line)]
    assert len(retries) == DEFAULT.max_attempts - 1, done.stderr  # one request's retries, no more


# ---------------------------------------------------------------- the database emptied under the agent
#
# Why status said 「database is locked」: the emptied file looks like a new database in
# rollback-journal mode to every process but the agent, and switching it to WAL (or any
# write) waits for an exclusive lock the agent's WAL connection, which keeps a shared lock
# on the file while it is open, never gives (forumbot.store.integrity).


def _agent_record(game):
    from forumbot.agent.instance import lock_path, probe

    return probe(lock_path(game.database))


def test_database_truncated__the_agent_stops_acting_and_status_says_what_happened(tmp_path):
    game = live_game(tmp_path, poll_interval_seconds=2)  # a pass every 2 s (game time = wall time)
    agent = game.forumbot("run")
    try:
        wait_for(lambda: game.bot_posts(), timeout=60)  # the first pass read the game and posted
        os.truncate(game.database, 0)
        holder = wait_for(lambda: (h := _agent_record(game)) is not None and "database" in h.problems and h,
                          timeout=60)
        assert "在机器人运行时被截断为 0 字节" in holder.problems["database"]["message"]
        # Passes go on (the beat moves) but read, draft and post nothing.
        game.vote("月饼", "饺子")  # a new vote would draft and post a running count
        requests, posts, beat = len(game.sim.requests), len(game.bot_posts()), holder.beat
        wait_for(lambda: (h := _agent_record(game)) is not None and h.beat != beat, timeout=60)
        beat = _agent_record(game).beat
        wait_for(lambda: (h := _agent_record(game)) is not None and h.beat != beat, timeout=60)
        assert len(game.sim.requests) == requests and len(game.bot_posts()) == posts
        assert agent.poll() is None  # still running: the director decides

        status = game.cli("status", timeout=60)
        assert status.returncode == 1 and "Traceback" not in status.stderr
        assert "locked" not in status.stderr
        assert status.stdout.startswith("代理程序：运行中"), status.stdout
        assert "⚠ 游戏状态" in status.stdout and "在机器人运行时被截断为 0 字节" in status.stdout
        assert status.stderr.startswith(f"错误：游戏状态 {game.database} 已损坏：文件被截断为 0 字节"), status.stderr
        assert "从备份恢复" in status.stderr
    finally:
        agent.terminate()
        agent.communicate(timeout=30)
        game.sim.stop()


DAMAGE = {  # the file's bytes, whether -wal/-shm lie beside it → damaged?
    "empty, alone: a new database": (b"", False, None),
    "empty beside its -wal": (b"", True, "被截断为 0 字节"),
    "shorter than the header": (b"SQLite format 3\x00" + b"\x10" * 20, True, "被截断，只剩 36 字节"),
}


@pytest.mark.parametrize(("content", "companions", "what"), DAMAGE.values(), ids=DAMAGE.keys())
def test_database_damage__what_cannot_be_a_whole_database(tmp_path, content, companions, what):
    from forumbot.store import Store
    from forumbot.store.base import StoreOpenError
    from forumbot.store.integrity import damage

    path = tmp_path / "game.sqlite"
    path.write_bytes(content)
    if companions:
        (tmp_path / "game.sqlite-wal").write_bytes(b"")
    found = damage(path)
    assert found is None if what is None else found is not None and found.startswith(what), found
    if what is None:
        Store(path).close()  # SQLite's new database
        assert damage(path) is None  # and a whole one once forumbot made it
    else:
        with pytest.raises(StoreOpenError, match=f"已损坏：文件{what}"):
            Store(path)


def test_database_damage__looking_keeps_sqlites_locks(tmp_path):
    """The check runs in processes that hold the database open (the agent, the desk
    beside it, the service): it must not open and close the file, which would drop every
    POSIX lock the process holds on it. In WAL mode each connection keeps a shared lock on
    the file; without it, another process closing its connection believes it is the last
    one, checkpoints and deletes the -wal and -shm this process is still using."""
    from forumbot.store import Store
    from forumbot.store.integrity import damage, identity, identity_change

    path = tmp_path / "game.sqlite"
    store = Store(path)
    try:
        store.set_meta("probe", "1")
        assert damage(path) is None and identity_change(path, identity(path)) is None
        other = subprocess.run(
            [sys.executable, "-c", "import sqlite3, sys\n"
             "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
             "c.execute('SELECT COUNT(*) FROM sqlite_master').fetchall()\n"
             "c.close()\n", str(path)],
            capture_output=True, text=True, timeout=60)
        assert other.returncode == 0, other.stderr
        assert (tmp_path / "game.sqlite-wal").exists(), "the other process took this one for gone"
        assert store.get_meta("probe") == "1"
    finally:
        store.close()
