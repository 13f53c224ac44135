"""I/O failures a director can cause, each one line naming the path and what to do, a
non-zero exit for commands, and nothing lost: a read-only state folder, a database path
that is a folder or in a missing folder, and a disk that fills up while the agent runs
(the agent carries on reading, says so once and on ``forumbot status``, publishes nothing
it cannot record, and catches up when it can write again)."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from forumbot.demo.play import play, setup_game
from forumbot.agent.health import Health
from forumbot.agent.instance import InstanceLock, lock_path, status_lines
from forumbot.store.outbox import DraftState
from forumbot.demo.scenario import BOT, PASSWORD, at
from forumbot.store import Store
from tests.forumbot.agent_process import live_game, stop, wait_for


def _as_director() -> tuple[str, ...]:
    """Root ignores permission bits: drop the capabilities that let it (as a director's
    own account would not have them)."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only folder cannot be simulated")
    caps = "-dac_override,-dac_read_search"
    return (setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}")


def _one_line(result: subprocess.CompletedProcess) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode != 0, result
    assert "Traceback" not in result.stderr and len(lines) == 1, result.stderr
    return lines[0]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def game(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    g = live_game(tmp_path, state_dir=state)
    yield g
    if state.exists():
        os.chmod(state, 0o755)
    g.sim.stop()


def test_state__a_read_only_folder_is_one_line_for_status_and_run(game):
    Store(game.database).close()  # a game that has been running
    before = _digest(game.database)
    os.chmod(game.database.parent, 0o555)
    prefix = _as_director()
    for command in (("status",), ("drafts",), ("run", "--once")):
        line = _one_line(game.cli(*command, prefix=prefix))
        assert str(game.database.parent) in line and "不可写" in line and "chmod" in line, (command, line)
    assert _digest(game.database) == before, "nothing was changed"
    assert game.bot_posts() == [] and not lock_path(game.database).exists()


def test_state__a_database_path_that_is_a_folder(game):
    game.database.mkdir()
    for command in (("status",), ("run", "--once")):
        line = _one_line(game.cli(*command))
        assert "是一个文件夹" in line and str(game.database) in line, line


def test_state__a_database_in_a_folder_that_does_not_exist(game):
    shutil.rmtree(game.database.parent)
    line = _one_line(game.cli("status"))
    assert "文件夹不存在" in line and f"mkdir -p {game.database.parent}" in line


# ---------------------------------------------------------------- the disk fills up


def _fill(store: Store) -> None:
    """SQLite's own 'database or disk is full' from here on: the file may not grow."""
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")


def _unfill(store: Store) -> None:
    store.db.execute("PRAGMA max_page_count = 1073741823")


def test_state__a_full_disk_while_the_agent_runs(tmp_path, caplog, monkeypatch):
    """Injected: SQLite's max_page_count makes every write that needs a new page fail with
    SQLITE_FULL ('database or disk is full'), as a full disk does."""
    monkeypatch.setenv("FORUMBOT_PASSWORD", PASSWORD)
    game = setup_game(tmp_path, running_count_interval_minutes=30)
    lock = InstanceLock.acquire(lock_path(game.rt.settings.agent.database))
    game.agent.health = Health(lock)
    try:
        play(game, until=at(1, "10:40"))
        posts_before = len([p for p in game.sim.posts(game.world.tids["vote1"]) if p.author == BOT])
        _fill(game.rt.store)
        caplog.clear()
        with caplog.at_level(logging.INFO):
            play(game, until=at(1, "13:00"))  # 11:00 and 12:10 votes come in; the disk stays full
        requests = len(game.sim.requests)
        warned = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name == "forumbot.health"]
        assert len(warned) == 1 and "disk is full" in warned[0].getMessage(), [r.getMessage() for r in warned]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert [p for p in game.sim.posts(game.world.tids["vote1"]) if p.author == BOT][posts_before:] == [], \
            "nothing is published while it cannot be recorded"
        lines = status_lines(game.rt.settings.agent.database)
        assert any(line.startswith("⚠ 状态无法保存：磁盘已满") and str(game.rt.store.path) in line for line in lines)

        _unfill(game.rt.store)
        caplog.clear()
        with caplog.at_level(logging.INFO):
            play(game, until=at(1, "13:20"))
        assert len(game.sim.requests) > requests
        assert any("恢复正常" in r.getMessage() for r in caplog.records)
        assert not any(line.startswith("⚠") for line in status_lines(game.rt.settings.agent.database))
        # Nothing lost: every vote on the forum is stored and ruled; the count shows them.
        votes = [p for p in game.sim.posts(game.world.tids["vote1"]) if p.author not in (BOT, "导演")]
        assert len(votes) == 4 and all(game.rt.store.has_post(p.pid) for p in votes)
        tally = game.rt.store.tally(1).data
        assert {v["pid"] for v in tally["votes"]} >= {p.pid for p in votes}
        counts = [p for p in game.sim.posts(game.world.tids["vote1"]) if p.author == BOT]
        assert len(counts) == 1 and "[tr][td]饺子[/td][td]3[/td]" in counts[0].message
        assert game.rt.outbox.pending() == []
        assert all(d.state is DraftState.PUBLISHED for d in game.rt.outbox.drafts()
                   if d.state not in (DraftState.SUPERSEDED,))
    finally:
        lock.release()
        game.close()
        game.sim.stop()


def _mount_tmpfs(where: Path, size: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
                          capture_output=True)
    return done.returncode == 0


def _fill_up(folder: Path) -> Path:
    filler = folder / "filler"
    # Unbuffered: a buffered file would raise ENOSPC again when it is closed.
    with open(filler, "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
        except OSError:
            pass
    return filler


def test_state__a_real_full_disk_under_forumbot_run(tmp_path):
    """The same on a real (tiny tmpfs) disk, with ``forumbot run`` in a subprocess: its
    database and log file on the disk that fills up. Needs root (mount); skipped else."""
    state = tmp_path / "state"
    if not _mount_tmpfs(state, "4m"):
        pytest.skip("cannot mount a tmpfs here (needs root): the injected test covers the agent")
    game = live_game(tmp_path, state_dir=state, factor=600.0, log_file=str(state / "forumbot.log"))
    agent = None
    try:
        agent = game.forumbot("run")
        wait_for(lambda: game.bot_posts(), timeout=30)  # first pass done: posts stored, count out
        filler = _fill_up(state)
        game.vote("Alice", "饺子")
        game.vote("bob_2", "包子")
        time.sleep(4)  # several passes (one a second) on the full disk
        assert agent.poll() is None, "the agent carries on"
        status = game.cli("status")
        assert status.returncode == 0, status.stderr
        assert "⚠ 状态无法保存：磁盘已满" in status.stdout, status.stdout
        assert len(game.bot_posts()) == 1, "nothing published while it cannot be recorded"
        filler.unlink()
        wait_for(lambda: "[tr][td]饺子[/td][td]3[/td]" in game.bot_posts()[0].message, timeout=30)
        status = game.cli("status")
        assert "⚠" not in status.stdout, status.stdout
        code, _, err = stop(agent)
        assert code == 0 and "Traceback" not in err, err
        said = [line for line in err.splitlines() if "disk is full" in line and "forumbot.health" in line]
        assert len(said) == 1, err
        assert len(game.bot_posts()) == 1
    finally:
        if agent is not None and agent.poll() is None:
            agent.kill()
        game.sim.stop()
        subprocess.run(["umount", str(state)], capture_output=True)
