"""双身份 by PM over real HTTP on the simulator (Discuz! 7.2 GBK): players who have never
posted order their two identities by PM before day 1 (the bot learns their uids from the
inbox), a night's four phases played by PM with the 先知 told a first identity and the 女巫
通灵 once the pack's order is final, and a hunter's 最后一枪 after a vote-out told to the
director with the command that enters it."""

from __future__ import annotations


import pytest

from forumbot.demo.scenario import DIRECTOR, PASSWORD, DayPlan, GamePlan, _day_threads, at, night_pm, vote
from tests.forumbot.nights_support import bot_said, played_by_pm

PLAYERS = ("饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包")
SHEET = {"饺子": ["狼人", "村民"], "包子": ["先知", "狼人"], "汤圆": ["女巫", "村民"], "Alice": ["守卫", "村民"],
         "bob_2": ["长老", "猎人"], "月饼": ["狼人", "村民"], "小笼包": ["替罪羊", "村民"]}


def dual_plan() -> GamePlan:
    a = [night_pm(-5, "20:00", "汤圆", "杀人 饺子"),  # five days before: another game's, never answered
         night_pm(0, "08:45", "bob_2", "第一身份 猎人", next_day=True),  # 12-01 08:45, before day 1
         night_pm(0, "08:46", "月饼", "第一身份 女巫", next_day=True)]   # not one of his
    a += [vote(1, f"1{k}:00", who, "Alice" if who != "Alice" else "饺子", "选警长") for k, who in enumerate(PLAYERS)]
    a += [night_pm(1, "21:35", "Alice", "守护 汤圆"), night_pm(1, "21:45", "包子", "预言 饺子"),
          night_pm(1, "21:55", "饺子", "杀人 Alice"), night_pm(1, "21:56", "月饼", "杀人 Alice"),
          night_pm(1, "22:05", "汤圆", "放弃"),
          # the sheriff Alice lost an identity in the night: 【殉职】, she names the successor
          night_pm(2, "09:40", "Alice", "继任 bob_2"), night_pm(2, "09:50", "Alice", "继任 汤圆")]
    a += [vote(2, f"1{k}:00", who, "bob_2" if who != "bob_2" else "饺子", "投他") for k, who in enumerate(PLAYERS)]
    a += [night_pm(2, "21:38", "bob_2", "最后一枪 饺子")]
    days = (DayPlan(1, at(1, "09:00"), at(1, "21:30")), DayPlan(2, at(2, "09:00"), at(2, "21:30")))
    return GamePlan(PLAYERS, days, _day_threads(2), sorted(a, key=lambda x: x.when), at(2, "22:30"),
                    ruleset="dual", identities=SHEET, tell_by_pm=True)


@pytest.fixture(scope="module")
def ng():
    yield from played_by_pm(dual_plan(), "7.2", "gbk", "forumbot-dual-")


def said(game, who: str) -> list[str]:
    return bot_said(game, who)


def test_dual__orders_by_pm_before_day_one(ng):
    assert "已收到：第一身份 猎人（第二身份：长老）" in said(ng, "bob_2")
    assert "未计入：第一身份 女巫（你的身份是 狼人 / 村民）" in said(ng, "月饼")
    assert ng.rt.store.identity_orders() == {"bob_2": "hunter"}
    told = [t for t in said(ng, "小笼包") if "两个身份" in t]
    assert len(told) == 1 and "第一身份" in told[0]


def test_dual__the_night_by_pm(ng):
    assert ng.errors == []
    assert not [t for t in said(ng, "汤圆") if "杀人 饺子" in t]  # the old message was not read as an order
    assert [m["effect"] for m in ng.rt.store.night_messages("汤圆")][0] == {"result": "before_game"}
    assert "已收到：守护 汤圆" in said(ng, "Alice")
    assert "第1晚 预言：饺子 —— 狼人" in said(ng, "包子")
    # night 2: no wolf ordered — told so (possibly none), once
    assert [t for t in said(ng, "汤圆") if "通灵" in t] == ["第1晚 通灵：今晚被指杀的角色：Alice",
                                                          "第2晚 通灵：今晚被指杀的角色：无人"]
    (proposal,) = [p for p in ng.rt.store.night_proposals() if p.night == 1]
    assert proposal.state == "confirmed" and proposal.data["out"] == ["Alice"]  # her first identity


def test_dual__the_outgoing_sheriff_names_the_successor_by_pm(ng):
    asked = [t for t in said(ng, "Alice") if "继任" in t and "请回复" in t]
    assert len(asked) == 1 and "【殉职】" in asked[0]
    answers = [t for t in said(ng, "Alice") if t.startswith(("已收到：继任", "未计入：继任"))]
    assert answers[0] == "已收到：继任 bob_2（警徽移交给 bob_2）"
    assert answers[1].startswith("未计入：继任 汤圆（现在没有需要你移交的警徽")
    from forumbot.game.gamelog import badge
    from forumbot.demo.scenario import at as at_

    assert badge(ng.rt, at_(2, "12:00")).sheriff == "bob_2"


def test_dual__the_hunters_shot_after_the_vote_out_goes_to_the_director(ng):
    assert "已收到：最后一枪 饺子" in said(ng, "bob_2")
    shots = [t for t in said(ng, DIRECTOR) if "发动最后一枪 饺子" in t]
    assert len(shots) == 1 and "forumbot identity-lost 饺子 --why hunter" in shots[0]
