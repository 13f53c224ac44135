"""A day's thread opened exactly once over real HTTP, on X3.5 and 7.2 (UTF-8 and GBK),
even when the publishing process is SIGKILLed between the forum storing the new thread
and the outbox recording its tid: the next life finds the thread on the board by the
marker in its first post (``DiscuzClient.find_thread_by_marker`` over ``read_board``) and
records that tid — the simulator holds one thread, never two.

The simulator runs in this process; each life of the publisher is a forked child with its
own HTTP client, store connection and outbox, as the agent would be after a restart."""

from __future__ import annotations

import multiprocessing
import os
import signal
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from forumbot.agent.loop import ClientPublisher
from forumbot.discuz import DiscuzClient
from forumbot.store import Store
from forumbot.store.marker import read_marker
from forumbot.store.outbox import DraftState, Outbox, PublishHow
from tests.forumbot.simulator_support import Forum, make_forum

FORK = multiprocessing.get_context("fork")
BOT = "计票机器人"
SUBJECT = "【饺子村】第二日 投票帖"
BODY = "第二日白天开始，请在本帖投票。\n投票对象：玩家名\n投票理由：……"


def client_for(forum: Forum) -> DiscuzClient:
    return DiscuzClient(httpx.Client(timeout=10), forum.base, username=BOT, password_source=lambda: "pw",
                        min_interval=0, sleep=forum.clock.sleep, clock=lambda: forum.clock.now().timestamp())


def _life(forum: Forum, db: str, kill_after_store: bool, now: datetime) -> None:
    """One life of the publisher (in a child). ``kill_after_store``: SIGKILL itself the
    moment the forum answered that it stored the thread — before the outbox records it."""
    publisher = ClientPublisher(client_for(forum))
    if kill_after_store:
        opened = publisher.new_thread

        def new_thread(fid: int, subject: str, message: str):
            opened(fid, subject, message)
            os.kill(os.getpid(), signal.SIGKILL)

        publisher.new_thread = new_thread  # type: ignore[method-assign]
    with Store(Path(db)) as store:
        outbox = Outbox(store)
        outbox.recover(publisher, now)
        outbox.publish_pending(publisher, now)


def run_life(forum: Forum, db: Path, kill_after_store: bool, now: datetime) -> int:
    process = FORK.Process(target=_life, args=(forum, str(db), kill_after_store, now))
    process.start()
    process.join(120)
    assert process.exitcode is not None, "publisher process hung"
    return process.exitcode


def bot_threads(forum: Forum) -> list[int]:
    with forum.sim.data.lock:
        return sorted(t.tid for t in forum.sim.data.threads.values() if t.author == BOT)


@pytest.mark.parametrize(("discuz", "charset"), [("x3", "utf-8"), ("x3", "gbk"), ("7.2", "utf-8"), ("7.2", "gbk")])
def test_new_thread_forum__killed_after_the_forum_stored_it_is_found_not_reposted(tmp_path, discuz, charset):
    db = tmp_path / "game.sqlite"
    with make_forum(discuz, charset) as forum:
        now = forum.clock.now()
        # Other threads of the bot on the board: known ones are skipped, unknown ones read.
        forum.sim.add_thread(forum.fid, "【饺子村】第一日 讨论帖", author=BOT, message="第一日讨论")
        with Store(db) as store:
            outbox = Outbox(store)
            draft = outbox.create_new_thread(forum.fid, SUBJECT, BODY, now=now, day=2,
                                             dedupe_key="new_thread:day2:vote")
            outbox.approve(draft.id, "director", now=now)
        assert run_life(forum, db, True, now) == -signal.SIGKILL
        [stored] = [t for t in bot_threads(forum) if forum.sim.data.thread(t).subject == SUBJECT]
        with Store(db) as store:
            left = Outbox(store).get(draft.id)
            assert left.state is DraftState.PUBLISHING and left.tid == 0  # the forum has it, the store not
        forum.clock.advance(seconds=30)
        assert run_life(forum, db, False, forum.clock.now()) == 0
        with Store(db) as store:
            outbox = Outbox(store)
            done = outbox.get(draft.id)
            assert done.state is DraftState.PUBLISHED and outbox.thread_of(draft.id) == stored
            assert done.pid == forum.sim.posts(stored)[0].pid
            assert any(h.detail.get("found_by_marker") for h in outbox.history(draft.id))
        assert [t for t in bot_threads(forum) if forum.sim.data.thread(t).subject == SUBJECT] == [stored]
        first = forum.sim.posts(stored)[0].message
        assert read_marker(first).text == done.marker


@pytest.mark.parametrize(("discuz", "charset"), [("x3", "gbk"), ("7.2", "gbk")])
def test_new_thread_forum__opened_and_recorded_with_its_tid(tmp_path, discuz, charset):
    with make_forum(discuz, charset) as forum, Store(tmp_path / "g.sqlite") as store:
        now = forum.clock.now()
        outbox = Outbox(store)
        draft = outbox.create_new_thread(forum.fid, SUBJECT, BODY, now=now, day=2)
        outbox.approve(draft.id, "director", now=now)
        [sent] = outbox.publish_pending(ClientPublisher(client_for(forum)), now)
        assert sent.how is PublishHow.SENT and sent.state is DraftState.PUBLISHED
        done = outbox.get(draft.id)
        thread = forum.sim.data.thread(done.tid)
        assert (thread.subject, thread.fid, sent.tid) == (SUBJECT, forum.fid, done.tid)
        first = forum.sim.posts(done.tid)[0]
        assert done.pid == first.pid and first.message.startswith(BODY)  # 7.2's pid read from the page
