"""Approving, editing and rejecting while the agent publishes never causes a second send."""

from __future__ import annotations

import random
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from forumbot.discuz import ReplyResult
from forumbot.store.outbox import DraftState, InvalidTransitionError, Outbox, PublisherBusyError
from forumbot.store import Store
from tests.forumbot.outbox_fakes import FakeForum

CST = timezone(timedelta(hours=8))
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=CST)


class GatedForum(FakeForum):
    """Holds a reply mid-request until the test lets it go."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.entered = threading.Event()
        self.release = threading.Event()

    def reply(self, tid: int, message: str, *, quote_pid: int | None = None) -> ReplyResult:
        self.entered.set()
        assert self.release.wait(10)
        return super().reply(tid, message, quote_pid=quote_pid)


def test_outbox_concurrency__director_cannot_change_a_draft_being_sent(tmp_path: Path) -> None:
    db, forum_db = tmp_path / "game.db", tmp_path / "forum.db"
    with Store(db) as setup:
        draft = Outbox(setup).create_draft("final_count", 12, "终票", now=T0)
        Outbox(setup).approve(draft.id, "director", now=T0)
    errors: list[BaseException] = []
    gate = GatedForum(forum_db)
    gate.conn.close()  # each thread opens its own connection

    def agent() -> None:
        try:
            with Store(db) as store:
                forum = GatedForum(forum_db)
                forum.entered, forum.release = gate.entered, gate.release
                Outbox(store).publish_pending(forum, T0)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=agent)
    thread.start()
    try:
        assert gate.entered.wait(10)
        with Store(db) as director_store:
            director = Outbox(director_store)
            with pytest.raises(InvalidTransitionError, match="发送中"):
                director.approve(draft.id, "director", "改过的终票", now=T0)
            with pytest.raises(InvalidTransitionError, match="发送中"):
                director.reject(draft.id, "director", "算错了", now=T0)
            with pytest.raises(PublisherBusyError):
                director.publish_pending(FakeForum(forum_db), T0)
    finally:
        gate.release.set()
        thread.join(10)
    assert not errors
    forum = FakeForum(forum_db)
    [(_pid, _tid, message)] = forum.posts()
    assert message.startswith("终票")
    with Store(db) as store:
        assert Outbox(store).get(draft.id).state is DraftState.PUBLISHED


def test_outbox_concurrency__approvals_racing_the_publisher_send_each_once(tmp_path: Path) -> None:
    db, forum_db = tmp_path / "game.db", tmp_path / "forum.db"
    with Store(db) as setup:
        ids = [Outbox(setup).create_draft("announcement", 12, f"公示 {i}", now=T0).id
               for i in range(30)]
    done = threading.Event()
    failures: list[BaseException] = []

    def director() -> None:
        rng = random.Random(3)
        try:
            with Store(db) as store:
                outbox = Outbox(store)
                for draft_id in ids:
                    for round_ in range(rng.randint(1, 3)):  # approve, then maybe edit again
                        try:
                            outbox.approve(draft_id, "director", f"公示 {draft_id} v{round_}",
                                           now=T0)
                        except InvalidTransitionError:
                            break  # the publisher got there first: fine, and final
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)
        finally:
            done.set()

    def agent() -> None:
        try:
            with Store(db) as store:
                outbox, forum = Outbox(store), FakeForum(forum_db)
                while True:
                    finished = done.is_set()
                    outbox.publish_pending(forum, T0)
                    if finished:
                        return
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)

    threads = [threading.Thread(target=director), threading.Thread(target=agent)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures
    forum = FakeForum(forum_db)
    with Store(db) as store:
        outbox = Outbox(store)
        for draft_id in ids:
            draft = outbox.get(draft_id)
            assert draft.state is DraftState.PUBLISHED
            [pid] = forum.posts_with_marker(draft.marker)
            assert pid == draft.pid
            message = dict((p, m) for p, _t, m in forum.posts())[pid]
            assert message.startswith(draft.body)  # what was sent is what the row says
    assert len(forum.posts()) == len(ids)
