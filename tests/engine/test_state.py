"""Game state: explicit operations, each one logged for the audit trail."""

from __future__ import annotations

import pytest

from engine.activity import post_counts
from engine.names import Match, NameTable
from engine.state import StateError
from tests.engine.builders import TALK_TID, Thread, at, game


def test_state__operations_return_new_state_with_events():
    start = game()
    state = (start.put_out("汤圆", at(30, 9, 30), "夜晚出局")
             .set_sheriff("饺子", why="第一日当选")
             .reveal_idiot("包子")
             .substitute("月饼", "替补甲", at(30, 10, 0), "原玩家离开")
             .alias("饺", "饺子"))
    assert not start.is_out("汤圆") and state.is_out("汤圆")
    assert [e.kind.value for e in state.events] == ["out", "sheriff", "idiot"]
    assert state.events[0].describe() == "11-30 09:30 汤圆 夜晚出局"
    assert state.seat_of("替补甲") == "月饼" and state.seat_of("导演") is None


def test_state__out_from_the_moment():
    state = game().put_out("汤圆", at(30, 12, 0), "红牌罚下")
    assert (state.is_out("汤圆", at(30, 11, 59)), state.is_out("汤圆", at(30, 12, 0))) == (False, True)
    assert "汤圆" in state.living(at(30, 11, 0)) and "汤圆" not in state.living(at(30, 13, 0))


@pytest.mark.parametrize("op, message", [
    (lambda s: s.put_out("路人", None, ""), "“路人”不是玩家"),
    (lambda s: s.put_out("汤圆", None, "").put_out("汤圆", None, ""), "汤圆 已.*出局"),
    (lambda s: s.substitute("路人", "替补"), "“路人”不是任何座位的账号"),
    (lambda s: s.day(9), r"没有第9日（已配置：1、2）"),
    (lambda s: s.substitute("饺子", "饺子"), "“饺子”就是玩家 饺子"),
    (lambda s: s.substitute("饺子", "ＢＡＯ子".replace("ＢＡＯ", "包")), "就是玩家 包子"),
    (lambda s: s.alias("包子", "饺子"), "“包子”就是玩家 包子 的名字"),
    (lambda s: s.lose_identity("饺子", None), "只有双身份规则"),
])
def test_state__errors_name_the_thing(op, message):
    with pytest.raises(StateError, match=message):
        op(game())


def test_post_counts__substitute_posts_are_the_seats():
    talk = Thread(tid=TALK_TID, role="discussion")
    talk.post("替补甲", "我来替补了")
    talk.post("月饼", "之前的发言")
    counts = post_counts(talk.ballots, game().substitute("月饼", "替补甲"))
    assert counts.count(2, "月饼") == 2


@pytest.mark.parametrize("written, outcome, player, candidates", [
    ("饺子", Match.PLAYER, "饺子", ()),
    ("  饺子。", Match.PLAYER, "饺子", ()),
    ("饺\u200b子", Match.PLAYER, "饺子", ()),
    ("弃权", Match.ABSTAIN, "弃权", ()),
    ("饺", Match.UNKNOWN, None, ("饺子",)),
    ("包", Match.AMBIGUOUS, None, ("包子", "小笼包")),
    ("路人", Match.UNKNOWN, None, ()),
])
def test_name_table__match(written, outcome, player, candidates):
    found = NameTable(game()).match(written)
    assert (found.outcome, found.player, found.candidates) == (outcome, player, candidates)


def test_name_table__players_colliding_after_normalising_are_ambiguous():
    found = NameTable(game(players=("Bob", "bob", "饺子"))).match("BOB")
    assert (found.outcome, found.candidates) == (Match.AMBIGUOUS, ("Bob", "bob"))
