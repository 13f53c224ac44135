"""Crash safety of the exactly-once protocol.

The publishing process is a real child process (forked) that SIGKILLs itself at a chosen
moment: the N-th SQL statement either database runs, or the N-th step of the fake forum
(before a request, after the forum stored a post but before the reply came back, during
a marker search). N is drawn at random from the length of an uninterrupted run, so kills
land everywhere: between BEGIN and COMMIT, between the forum storing and the outbox
recording, during recovery itself. The forum also drops connections and times out at
random. After each kill a new process starts and recovers. In the end every draft must be
published exactly once on the forum, with the pid the outbox recorded.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import signal
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from forumbot.store.outbox import DraftState, Outbox
from forumbot.store import Store
from tests.forumbot.outbox_fakes import OK, RAISE_BEFORE_STORE, STORE_THEN_RAISE, FakeForum

CST = timezone(timedelta(hours=8))
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=CST)
FORK = multiprocessing.get_context("fork")
EDITED_TID = 20


def _worker(workdir: str, kill_at: int | str | None, fault_seed: int) -> None:
    """One life of the publishing process. Never returns normally when killed."""
    ticks = 0

    def tick(name: str) -> None:
        nonlocal ticks
        ticks += 1
        if kill_at == ticks or kill_at == name:
            os.kill(os.getpid(), signal.SIGKILL)

    store = Store(Path(workdir) / "game.db")
    store.db.conn.set_trace_callback(tick)
    rng = random.Random(fault_seed)
    faults = [rng.choice([OK, OK, OK, RAISE_BEFORE_STORE, STORE_THEN_RAISE]) for _ in range(60)]
    forum = FakeForum(Path(workdir) / "forum.db", faults=faults, on_event=tick)
    forum.conn.set_trace_callback(tick)
    outbox = Outbox(store)
    outbox.recover(forum, T0)
    for round_ in range(60):
        outbox.publish_pending(forum, T0 + timedelta(seconds=round_))
        if not outbox.drafts(DraftState.APPROVED, DraftState.PUBLISHING):
            break
    store.db.conn.set_trace_callback(None)
    forum.conn.set_trace_callback(None)
    (Path(workdir) / "ticks").write_text(str(ticks))


def run_life(workdir: Path, kill_at: int | str | None, fault_seed: int) -> int:
    process = FORK.Process(target=_worker, args=(str(workdir), kill_at, fault_seed))
    process.start()
    process.join(60)
    assert process.exitcode is not None, "publisher process hung"
    return process.exitcode


def set_up_game(workdir: Path) -> tuple[list[int], int]:
    """Drafts of every kind, auto and approved manual ones, one edit-in-place."""
    forum = FakeForum(workdir / "forum.db")
    edited_pid = forum.seed_post(EDITED_TID, "计票（本楼随时更新）")
    forum.close()
    with Store(workdir / "game.db") as store:
        store.set_meta("game", "崩溃测试局")
        outbox = Outbox(store)
        ids = [outbox.create_draft("running_count", tid, f"计票 帖{tid}", now=T0).id
               for tid in (11, 12, 13)]
        ids += [outbox.create_draft("count_reply", 12, f"应{p}楼要求计票", quote_pid=p,
                                    now=T0).id for p in (301, 302)]
        for kind, body in [("final_count", "终票"), ("announcement", "公示"),
                           ("card_notice", "黄牌：汤圆")]:
            draft = outbox.create_draft(kind, 12, body, now=T0, day=2)
            outbox.approve(draft.id, "director", body + "（导演改）", now=T0)
            ids.append(draft.id)
        ids.append(outbox.create_draft("running_count", EDITED_TID, "计票 v2", now=T0,
                                       edit_pid=edited_pid).id)
    return ids, edited_pid


def ticks_of_uninterrupted_run(workdir: Path, fault_seed: int, scratch: Path) -> int:
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(workdir, scratch)
    assert run_life(scratch, None, fault_seed) == 0
    return int((scratch / "ticks").read_text())


def assert_published_exactly_once(workdir: Path, ids: list[int], edited_pid: int) -> None:
    forum = FakeForum(workdir / "forum.db")
    with Store(workdir / "game.db") as store:
        outbox = Outbox(store)
        for draft_id in ids:
            draft = outbox.get(draft_id)
            assert draft.state is DraftState.PUBLISHED, (draft.id, draft.state, draft.last_error)
            assert forum.posts_with_marker(draft.marker) == [draft.pid], draft
            message = {pid: m for pid, _t, m in forum.posts()}[draft.pid]
            assert message.startswith(draft.body)
        assert outbox.get(ids[-1]).pid == edited_pid
    assert len(forum.posts()) == len(ids)  # the replies plus the one post edited in place
    forum.close()


@pytest.mark.parametrize("kill_at", ["reply:stored", "edit:stored", "reply:before", "find:before"])
def test_outbox_crash__killed_at_a_named_moment(tmp_path: Path, kill_at: str) -> None:
    ids, edited_pid = set_up_game(tmp_path)
    fault_seed = 1 if kill_at == "find:before" else 0  # seed 1 drops a connection early
    assert run_life(tmp_path, kill_at, fault_seed) == -signal.SIGKILL
    assert run_life(tmp_path, None, 2) == 0
    assert_published_exactly_once(tmp_path, ids, edited_pid)


def test_outbox_crash__twenty_random_kills(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    kills = 0
    for scenario in range(10):
        workdir = tmp_path / f"game{scenario}"
        workdir.mkdir()
        ids, edited_pid = set_up_game(workdir)
        for _life in range(2):  # two kills per game, each at a random point of what is left
            fault_seed = rng.randrange(1000)
            total = ticks_of_uninterrupted_run(workdir, fault_seed, tmp_path / "scratch")
            kill_at = rng.randint(1, total)
            assert run_life(workdir, kill_at, fault_seed) == -signal.SIGKILL, kill_at
            kills += 1
        assert run_life(workdir, None, rng.randrange(1000)) == 0
        assert_published_exactly_once(workdir, ids, edited_pid)
    assert kills == 20
