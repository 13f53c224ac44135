"""The tally: counts, timeline, first-reached, non-voters, flags (SPEC §3.6–3.8)."""

from __future__ import annotations

import pytest

from parsers.models import Font

from engine.flags import FlagKind, is_enlarged, is_red
from engine.reasons import Reason
from engine.rules import PRESETS
from engine.tally import tally_day
from tests.engine.builders import Thread, at, change, game, vote

RULES = PRESETS["simple14"]


def test_tally_day__timeline_shows_running_counts():
    thread = Thread()
    a = thread.post("包子", vote("饺子"))
    thread.post("汤圆", vote("月饼"))
    thread.post("包子", change("月饼"), quotes=(a.pid,))
    result = tally_day(thread.ballots, game(), 2, RULES)
    assert [(e.voter, e.before, e.after, e.counts) for e in result.timeline] == [
        ("包子", None, "饺子", {"饺子": 1}),
        ("汤圆", None, "月饼", {"饺子": 1, "月饼": 1}),
        ("包子", "饺子", "月饼", {"月饼": 2}),
    ]


def test_tally_day__reach_starts_the_last_stretch_at_the_final_count():
    """SPEC §3.7: a candidate who reaches the top, falls below it and reaches it again
    reaches at the second time (its last stretch at or above the final count)."""
    thread = Thread()
    a = thread.post("包子", vote("饺子"))  # 0: 饺子 1
    thread.post("汤圆", vote("月饼"))  # 1: 月饼 1
    thread.post("月饼", vote("饺子"))  # 2: 饺子 2
    thread.post("包子", change("月饼"), quotes=(a.pid,))  # 3: 饺子 1, 月饼 2
    thread.post("小笼包", vote("饺子"))  # 4: 饺子 2
    result = tally_day(thread.ballots, game(), 2, PRESETS["dual"])
    assert result.reached == {"饺子": 4, "月饼": 3}
    assert result.result.out == "月饼"


def test_tally_day__counts_highest_first_then_seat_order():
    thread = Thread()
    for voter, target in [("饺子", "烧卖"), ("包子", "汤圆"), ("汤圆", "烧卖"), ("月饼", "包子")]:
        thread.post(voter, vote(target))
    result = tally_day(thread.ballots, game(), 2, RULES)
    assert list(result.counts.items()) == [("烧卖", 2), ("包子", 1), ("汤圆", 1)]


def test_tally_day__non_voters_include_void_only_voters_not_out_players():
    """SPEC §3.8: a living player with no valid vote is a non-voter (only-void included)."""
    thread = Thread()
    thread.post("饺子", vote("包子"))
    thread.post("包子", "投票对象：饺子")  # no reason: void
    state = game().put_out("烧卖", None, "夜晚出局")
    result = tally_day(thread.ballots, state, 2, RULES)
    assert result.non_voters == ("包子", "汤圆", "月饼", "小笼包")


def test_tally_day__no_votes_no_result():
    result = tally_day([], game(), 2, RULES)
    assert (result.result.out, result.result.rule) == (None, "no_votes")


def test_tally_day__weighted_total_is_sum_of_voter_weights():
    thread = Thread()
    thread.post("饺子", vote("弃权", "不清楚"))
    thread.post("包子", vote("汤圆"))
    result = tally_day(thread.ballots, game(sheriff="饺子"), 2, RULES)
    assert (result.abstain, result.total_weight) == (2, 3)


def test_tally_day__flags_zombie_font_evidence_edit_target():
    thread = Thread()
    thread.post("烧卖", "我还想说两句")  # out: 诈尸
    thread.post("饺子", vote("包子"), fonts=(Font(color="Red", size="6"),))
    thread.post("包子", "看这个截图", images=("data/attachment/forum/x.png", "static/image/smiley/default/lol.gif"))
    b = thread.post("汤圆", vote("月饼"))
    thread.edit(b, vote("饺子"), at(30, 12, 0))
    thread.post("月饼", vote("包"))
    state = game().put_out("烧卖", None, "夜晚出局")
    flags = tally_day(thread.ballots, state, 2, RULES).flags
    assert [(f.kind, f.player) for f in flags] == [
        (FlagKind.ZOMBIE, "烧卖"),
        (FlagKind.FONT, "饺子"),
        (FlagKind.EVIDENCE, "包子"),
        (FlagKind.EDIT, "汤圆"),
        (FlagKind.TARGET, "月饼"),
    ]
    assert "smiley" not in flags[2].detail
    assert flags[3].reason is Reason.EDITED_TARGET
    assert flags[4].candidates == ("包子", "小笼包")


def test_tally_day__edited_before_first_seen_is_flagged():
    thread = Thread()
    thread.post("月饼", vote("小笼包"), edited_at=at(30, 10, 5))
    flags = tally_day(thread.ballots, game(), 2, RULES).flags
    assert [(f.kind, f.reason) for f in flags] == [(FlagKind.EDIT, Reason.EDITED_BEFORE_SEEN)]


def test_tally_day__out_players_vote_is_void_and_zombie():
    thread = Thread()
    thread.post("烧卖", vote("包子"))
    result = tally_day(thread.ballots, game().put_out("烧卖", None, "投票出局"), 2, RULES)
    assert result.rulings[0].reason is Reason.VOTER_OUT
    assert [f.kind for f in result.flags] == [FlagKind.ZOMBIE]
    assert result.counts == {}


@pytest.mark.parametrize("color, red", [("Red", True), ("#FF0000", True), ("#f00", True), ("rgb(230, 0, 18)", True),
                                        ("#999999", False), ("Blue", False), ("#800000", False), (None, False)])
def test_is_red__大红色(color, red):
    assert is_red(color) is red


@pytest.mark.parametrize("size, big", [("6", True), ("4", True), ("3", False), ("2", False), ("24px", True),
                                       ("14px", False), ("+2", True), (None, False)])
def test_is_enlarged__放大字体(size, big):
    assert is_enlarged(size) is big
