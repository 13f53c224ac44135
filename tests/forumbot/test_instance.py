"""One agent per game: the instance lock beside the database. Unit tests of the lock,
then two real ``forumbot run`` processes started at once on one game over HTTP against
the simulator: exactly one post, the second refuses with one line naming the first."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from forumbot.agent.instance import InstanceBusy, InstanceError, InstanceLock, lock_path, probe, status_lines
from tests.forumbot.agent_process import live_game, stop, wait_for


def test_instance__a_second_lock_on_the_same_file_is_refused_naming_the_holder(tmp_path):
    path = lock_path(tmp_path / "game.sqlite")
    assert path.name == "game.sqlite.agent.lock"
    with InstanceLock.acquire(path, wait_seconds=0):
        with pytest.raises(InstanceBusy) as caught:
            InstanceLock.acquire(path, wait_seconds=0.1)
        message = str(caught.value)
        assert f"pid {os.getpid()}" in message and socket.gethostname() in message
        assert str(path) in message and "\n" not in message
        assert caught.value.holder.pid == os.getpid()
    InstanceLock.acquire(path, wait_seconds=0).release()  # released: free again


def test_instance__a_refusal_waits_to_name_a_holder_that_has_not_written_yet(tmp_path):
    """Two starts at once on a loaded machine: the winner may be paused between taking the
    lock and writing who it is, and the file may still name the previous, ended holder.
    The refused start names the process that holds the lock now."""
    import fcntl
    import json
    import threading

    path = tmp_path / "game.sqlite.agent.lock"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    path.write_text(json.dumps({"pid": int(dead), "host": socket.gethostname(), "role": "agent"}))
    fd = os.open(path, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held, the record not yet rewritten

    def write_late():
        time.sleep(0.6)  # after the refused start's own wait_seconds
        data = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "role": "agent"}).encode()
        os.pwrite(fd, data.ljust(4096), 0)

    writer = threading.Thread(target=write_late)
    writer.start()
    try:
        with pytest.raises(InstanceBusy) as caught:
            InstanceLock.acquire(path, wait_seconds=0.1)
    finally:
        writer.join()
        os.close(fd)
    assert f"pid {os.getpid()}" in str(caught.value) and f"pid {dead}" not in str(caught.value)


def test_instance__released_when_the_holder_is_killed(tmp_path):
    path = lock_path(tmp_path / "game.sqlite")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from forumbot.agent.instance import InstanceLock;"
         f"InstanceLock.acquire({str(path)!r}); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert probe(path).running and probe(path).pid == holder.pid
        with pytest.raises(InstanceBusy):
            InstanceLock.acquire(path, wait_seconds=0)
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        assert not probe(path).running, "the kernel dropped the lock with the process"
        InstanceLock.acquire(path, wait_seconds=0).release()
    finally:
        if holder.poll() is None:
            holder.kill()


def test_instance__the_record_says_what_status_shows(tmp_path):
    database = tmp_path / "game.sqlite"
    assert status_lines(database) == ["代理程序：未运行过（forumbot run 启动后才会读帖、计票、发帖）"]
    with InstanceLock.acquire(lock_path(database), since=None) as lock:
        lock.update(beat="2026-12-01T09:30:00+08:00",
                    problems={"state": {"since": "2026-12-01T09:20:00+08:00", "message": "状态无法保存：磁盘已满"}},
                    desk={"error": "端口 8765 已被占用"})
        lines = status_lines(database)
        assert lines[0].startswith(f"代理程序：运行中（pid {os.getpid()}") and "最后一轮 2026-12-01 09:30" in lines[0]
        assert "⚠ 状态无法保存：磁盘已满（自 2026-12-01 09:20 起）" in lines
        assert "⚠ 导演台未开启：端口 8765 已被占用" in lines
    assert status_lines(database) == ["代理程序：未在运行，上一轮在 2026-12-01 09:30（forumbot run 启动后才会读帖、计票、发帖）"]


def test_instance__a_folder_it_cannot_write_is_one_line(tmp_path):
    with pytest.raises(InstanceError, match="无法创建锁文件.*文件夹不存在"):
        InstanceLock.acquire(tmp_path / "missing" / "game.sqlite.agent.lock")


def test_instance__two_agents_started_at_once_publish_one_post(tmp_path):
    game = live_game(tmp_path)
    first = game.forumbot("run")
    second = game.forumbot("run")
    agents = {first.pid: first, second.pid: second}
    try:
        loser = wait_for(lambda: next((p for p in agents.values() if p.poll() is not None), None), timeout=30)
        winner = next(p for p in agents.values() if p is not loser)
        _, out, err = stop(loser)
        assert loser.returncode != 0, err
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and "Traceback" not in err, err
        assert "已有一个 forumbot 代理程序在运行" in lines[0]
        assert f"pid {winner.pid}" in lines[0] and socket.gethostname() in lines[0]

        wait_for(lambda: game.bot_posts(), timeout=30)  # the winner's running count
        # Director commands work beside the running agent; a third agent is refused too.
        status = game.cli("status")
        assert status.returncode == 0, status.stderr
        assert f"代理程序：运行中（pid {winner.pid}" in status.stdout
        once = game.cli("run", "--once")
        assert once.returncode != 0 and "已有一个 forumbot 代理程序在运行" in once.stderr
        time.sleep(1.0)  # a second poster would have posted by now
        assert winner.poll() is None
        code, _, err = stop(winner)
        assert code == 0, err
        assert len(game.bot_posts()) == 1, [p.message[:40] for p in game.bot_posts()]
    finally:
        for proc in agents.values():
            if proc.poll() is None:
                proc.kill()
        game.sim.stop()
