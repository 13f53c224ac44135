"""``forumbot.attention.attention``: everything that needs a person now, with stable keys,
a kind, a Chinese summary and when it began, most urgent first — the list the desk's
banner and the forum-PM notifications are built on."""

from __future__ import annotations

import re

from forumbot.game import director
from forumbot.game.attention import AttentionKind, attention, minute_precision_note
from forumbot.demo.play import play
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import at
from tests.forumbot.alarm_support import cli, game_on

ASCII_WORD = re.compile(r"[A-Za-z]{4,}")


def test_attention__lists_every_matter_in_order_with_stable_keys(tmp_path):
    game = game_on(tmp_path)
    try:
        game.driver.on_night = None  # the director has not entered the night yet
        play(game, until=at(1, "21:50"), approve=False)
        rt, now = game.rt, game.clock.now()
        final = next(d for d in rt.outbox.awaiting_approval() if d.kind is DraftKind.FINAL_COUNT)
        card = director.give_card(rt, "烧卖", "blue", "第1日潜水", now)
        director.approve(rt, card.draft.id, now)
        game.sim.settings.captcha_post = True
        game.agent.tick()  # the card notice is refused: an alarm and a failed post
        now = game.clock.now()

        items = attention(rt, now)
        kinds = [i.kind for i in items]
        assert kinds[:3] == [AttentionKind.ALARM, AttentionKind.FINAL_COUNT, AttentionKind.FAILED]
        assert AttentionKind.NIGHT_RESULT in kinds and AttentionKind.CARD_PROPOSAL in kinds
        assert kinds == sorted(kinds, key=list(AttentionKind).index)
        by_kind = {i.kind: i for i in items}
        [alarm] = rt.store.alarms()
        assert by_kind[AttentionKind.ALARM].key == f"alarm:{alarm.id}"
        assert by_kind[AttentionKind.ALARM].detail == alarm.text and by_kind[AttentionKind.ALARM].since == alarm.raised_at
        assert by_kind[AttentionKind.FINAL_COUNT].key == f"draft:{final.id}"
        assert by_kind[AttentionKind.FINAL_COUNT].summary == f"第1日已截止，最终计票 #{final.id} 待审批"
        assert by_kind[AttentionKind.FINAL_COUNT].command == f"forumbot approve {final.id}"
        assert by_kind[AttentionKind.FAILED].key == f"failed:{card.draft.id}"
        assert by_kind[AttentionKind.FAILED].command == f"forumbot retry {card.draft.id}"
        assert by_kind[AttentionKind.NIGHT_RESULT].key == "night:day2"
        assert by_kind[AttentionKind.NIGHT_RESULT].since == at(1, "21:30")
        for item in items:  # what a director reads is Chinese: no English words
            assert not ASCII_WORD.search(item.summary.replace("forumbot", "")), item.summary
        assert [i.key for i in attention(rt, now)] == [i.key for i in items]  # stable

        director.approve(rt, final.id, now)
        director.record_night(rt, 2, ["汤圆"], now)
        left = {i.kind for i in attention(rt, now)}
        assert AttentionKind.FINAL_COUNT not in left and AttentionKind.NIGHT_RESULT not in left
        assert '"attention"' in cli(game, "status", "--json").output
    finally:
        game.close()
        game.sim.stop()


def test_attention__a_sheriff_out_at_night_waits_for_a_successor(tmp_path):
    game = game_on(tmp_path)
    try:
        play(game, until=at(2, "09:30"))  # 饺子 elected on day 1; night 1 entered
        now = game.clock.now()
        director.put_out(game.rt, "饺子", "night", now, at=at(2, "09:00"))
        items = [i for i in attention(game.rt, now) if i.kind is AttentionKind.SUCCESSOR]
        assert len(items) == 1 and items[0].key.startswith("successor:饺子:")
        assert "指定继任者" in items[0].summary and items[0].since == at(2, "09:00")
        director.set_sheriff(game.rt, "包子", now)
        assert not [i for i in attention(game.rt, now) if i.kind is AttentionKind.SUCCESSOR]
    finally:
        game.close()
        game.sim.stop()


def test_attention__minute_precision_note_on_7_2(tmp_path):
    game = game_on(tmp_path, "7.2")
    try:
        play(game, until=at(1, "10:35"))
        note = minute_precision_note(game.rt, game.clock.now())
        assert note is not None and "deadline_pid" in note and "只精确到分钟" in note
        assert "只精确到分钟" in cli(game, "status").output
    finally:
        game.close()
        game.sim.stop()
    (tmp_path / "x3").mkdir()
    x3 = game_on(tmp_path / "x3")
    try:
        play(x3, until=at(1, "10:35"))
        assert minute_precision_note(x3.rt, x3.clock.now()) is None
    finally:
        x3.close()
        x3.sim.stop()


def test_attention__published_drafts_do_not_need_anyone(tmp_path):
    game = game_on(tmp_path)
    try:
        play(game, until=at(1, "12:00"))
        assert game.rt.outbox.drafts(DraftState.PUBLISHED)
        assert attention(game.rt, game.clock.now()) == []
    finally:
        game.close()
        game.sim.stop()
