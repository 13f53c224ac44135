"""The marker line over real HTTP on the simulator, on X3.5 (thread pages and the mobile API)
and 7.2 (UTF-8 and GBK): the new line (「机器人标记 …」) reads back from every form of the
post, and a post of the form before schema 9 (「forumbot:fb-…」), left by a game upgraded
mid-way, is still found — an interrupted draft of that time is settled by it, not sent
again."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from forumbot.agent.loop import ClientPublisher
from forumbot.discuz import DiscuzClient, ThreadCursor
from forumbot.store.marker import game_hash, read_marker
from forumbot.store.outbox import DraftKind, DraftState, Outbox, PublishHow
from forumbot.store import Store
from tests.forumbot.simulator_support import make_forum

READS = [("x3", "utf-8", False), ("x3", "utf-8", True), ("x3", "gbk", False), ("7.2", "utf-8", False),
         ("7.2", "gbk", False)]


def client_for(forum, *, api: bool) -> DiscuzClient:
    return DiscuzClient(httpx.Client(timeout=5), forum.base, username="计票机器人", password_source=lambda: "pw",
                        min_interval=0, sleep=forum.clock.sleep, use_api=api)


def read_back(client: DiscuzClient, tid: int, pid: int):
    posts, _ = client.read_new(ThreadCursor(tid))
    return next(p for p in posts if p.pid == pid)


@pytest.mark.parametrize(("discuz", "charset", "api"), READS)
def test_marker_forum__the_new_line_reads_back_from_text_and_html(tmp_path, discuz, charset, api):
    with make_forum(discuz, charset) as forum, Store(tmp_path / "g.sqlite") as store:
        now = datetime(2026, 11, 30, 10, 0, tzinfo=forum.clock.now().tzinfo)
        outbox = Outbox(store)
        draft = outbox.create_draft(DraftKind.FINAL_COUNT, forum.tid, "【最终计票】第1日", now=now, day=1)
        outbox.approve(draft.id, "director", now=now)
        client = client_for(forum, api=api)
        [sent] = outbox.publish_pending(ClientPublisher(client), now)
        assert sent.how is PublishHow.SENT
        post = read_back(client, forum.tid, sent.pid)
        assert "机器人标记" in post.text
        for form in (post.text, post.html):
            found = read_marker(form)
            assert found is not None and found.text == draft.marker
            assert (found.state, found.kind, found.day) == (store.state_id, "final_count", 1)


@pytest.mark.parametrize(("discuz", "charset", "api"), READS)
def test_marker_forum__a_post_of_the_old_form_is_found_and_not_sent_again(tmp_path, discuz, charset, api):
    with make_forum(discuz, charset) as forum, Store(tmp_path / "g.sqlite") as store:
        now = datetime(2026, 11, 30, 10, 0, tzinfo=forum.clock.now().tzinfo)
        outbox = Outbox(store)
        draft = outbox.create_draft(DraftKind.FINAL_COUNT, forum.tid, "【最终计票】第1日", now=now, day=1)
        legacy = f"fb-{game_hash(store.game_key)}-{draft.id}-0b5e2d"
        # What an older forumbot left: the draft claimed (publishing, one attempt) with its
        # marker, and the post on the forum with the old line — then it was killed.
        store.db.execute("UPDATE outbox SET marker = ?, state = 'publishing', attempts = 1 WHERE id = ?",
                         (legacy, draft.id))
        pid = forum.sim.add_post(forum.tid, "计票机器人",
                                 f"【最终计票】第1日\n[size=1][color=#999999]forumbot:{legacy}[/color][/size]")
        client = client_for(forum, api=api)
        client.ensure_logged_in()
        post = read_back(client, forum.tid, pid)
        for form in (post.text, post.html):
            assert read_marker(form).text == legacy
        before = len(forum.sim.posts(forum.tid))
        [outcome] = outbox.recover(ClientPublisher(client), now)
        assert (outcome.how, outcome.pid) == (PublishHow.FOUND, pid)
        assert outbox.get(draft.id).state is DraftState.PUBLISHED
        assert len(forum.sim.posts(forum.tid)) == before
