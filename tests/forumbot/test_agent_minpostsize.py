"""Issue 10 #6, minpostsize (Discuz's 帖子最小字数, default 10 bytes of the message without
its quotes: a 汉字 is 3 bytes on UTF-8, 2 on GBK), over real HTTP on the simulator:

* no bot post can be refused as too short — every kind of draft, and the edit path, with
  the shortest body the director can leave (the marker line every bot post ends with is
  longer than any default minimum);
* a player's bare 计票 is refused by the forum, so the request word is looked for anywhere
  in the player's own text: 「计票一下谢谢」 is answered;
* a forum whose minimum is longer than a post raises an alarm naming the minimum, and
  ``forumbot retry`` sends the post once the admin lowers it.
"""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from forumbot.agent.loop import ClientPublisher
from forumbot.demo.play import play
from forumbot.discuz import DiscuzClient
from forumbot.discuz.errors import MessageTooShort
from forumbot.store.outbox import DraftKind, DraftState, Outbox, PublishHow
from forumbot.demo.scenario import BOT, PASSWORD, at
from forumbot.simulator.model import post_bytes
from forumbot.store import Store
from tests.forumbot.alarm_support import cli, game_on
from tests.forumbot.simulator_support import make_forum

GENERATIONS = [("x3", "utf-8"), ("7.2", "utf-8"), ("7.2", "gbk")]


def client_for(forum, name: str, password: str = "pw") -> DiscuzClient:
    return DiscuzClient(httpx.Client(timeout=5), forum.base, username=name, password_source=lambda: password,
                        min_interval=0, sleep=forum.clock.sleep)


@pytest.mark.parametrize(("discuz", "charset"), GENERATIONS)
def test_minpostsize__no_bot_post_is_too_short_whatever_its_kind_or_path(tmp_path, discuz, charset):
    with make_forum(discuz, charset) as forum, Store(tmp_path / "game.sqlite") as store:
        assert forum.sim.settings.minpostsize == 10
        outbox = Outbox(store)
        publisher = ClientPublisher(client_for(forum, "计票机器人"))
        now = datetime(2026, 11, 30, 10, 0, tzinfo=forum.clock.now().tzinfo)
        # The new thread first: the last post sent is a reply in forum.tid, edited below.
        for kind in sorted(DraftKind, key=lambda k: k is not DraftKind.NEW_THREAD):
            if kind is DraftKind.NEW_THREAD:  # a new thread's first post: the same shortest body
                draft = outbox.create_new_thread(forum.fid, "短", "好", now=now)
            else:
                draft = outbox.create_draft(kind, forum.tid, "好", now=now)  # the shortest body there is
            if draft.state is DraftState.DRAFT:
                outbox.approve(draft.id, "director", now=now)
            [outcome] = outbox.publish_pending(publisher, now)
            assert outcome.how is PublishHow.SENT, (kind, outcome.error)
            forum.clock.advance(seconds=20)  # past flood control
            stored = forum.sim.post(outcome.pid)
            assert post_bytes(stored.message, charset) > 10
        # the edit path: a count edited in place to one character
        edited = outbox.create_draft(DraftKind.RUNNING_COUNT, forum.tid, "票", now=now, edit_pid=outcome.pid)
        [outcome] = outbox.publish_pending(publisher, now)
        assert (outcome.how, outcome.pid) == (PublishHow.SENT, edited.edit_pid)
        assert "票" in forum.sim.post(edited.edit_pid).message


@pytest.mark.parametrize(("discuz", "charset"), GENERATIONS)
def test_minpostsize__a_bare_request_is_refused_by_the_forum_a_longer_one_is_answered(tmp_path, discuz, charset):
    game = game_on(tmp_path, discuz, charset)
    try:
        play(game, until=at(1, "10:05"))
        tid = game.world.tids["vote1"]
        player = DiscuzClient(httpx.Client(timeout=5), game.sim.base_url, username="包子",
                              password_source=lambda: PASSWORD, min_interval=0, sleep=game.clock.sleep)
        with pytest.raises(MessageTooShort):
            player.reply(tid, "计票")  # 6 bytes in UTF-8, 4 in GBK: under the forum's 10
        asked = player.reply(tid, "计票一下谢谢").pid
        play(game, until=at(1, "10:25"))
        [answer] = [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.COUNT_REPLY]
        assert (answer.quote_pid, answer.state) == (asked, DraftState.PUBLISHED)
        message = game.sim.post(answer.pid).message
        assert "@包子 计票如下" in message
    finally:
        game.close()
        game.sim.stop()


def test_minpostsize__a_forum_minimum_longer_than_a_post_is_an_alarm(tmp_path):
    game = game_on(tmp_path)
    try:
        game.sim.settings.minpostsize = 5000
        play(game, until=at(1, "10:05"))
        [failed] = game.rt.outbox.drafts(DraftState.FAILED)
        [alarm] = game.rt.store.alarms()
        assert (alarm.kind, alarm.key) == ("too_short", f"too_short:{failed.id}")
        assert "5000 字节" in alarm.text and "帖子最小字数" in alarm.text and f"forumbot edit {failed.id}" in alarm.text
        game.sim.settings.minpostsize = 10  # the admin lowers it
        result = cli(game, "retry", str(failed.id))
        assert result.exit_code == 0 and "已重新批准" in result.output, result.output
        play(game, until=at(1, "10:15"))
        assert game.rt.outbox.get(failed.id).state is DraftState.PUBLISHED
        assert game.rt.store.alarms() == []
        assert [p for p in game.sim.posts(game.world.tids["vote1"]) if p.author == BOT]
    finally:
        game.close()
        game.sim.stop()
