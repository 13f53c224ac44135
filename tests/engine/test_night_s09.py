"""S09: the deal the director enters, night 0 (偷换, 金箭), the nights (预言, 杀人 and 偷看, 通灵,
解药, 毒药, 流弹), the wolves' win by votes, one row per seed sentence (seeds/001_…).

Players (night_builders.S09_TABLE): wolves 饺子 包子 汤圆; 先知 小笼包; 女巫 烧卖; 猎人 油条;
爱神 麻花; 小女孩 粽子; 盗贼 春卷 (底牌 狼人、村民); 村民 馄饨 豆浆 年糕 元宵 锅贴 煎饼 麻团 凉皮
米线 豆花 春饼 肉夹馍. Minutes from the deadline: 夜晚1 先知 0–15, 夜晚2 狼人 15–30, 夜晚3 女巫
30–45, then the hunter's 15 minutes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from engine.events import EventKind, GameEvent, OutWhy
from engine.night import Action, Faction, Identity, SheetError, Skill, deal, last_words_holders, mode_for, read_skill
from engine.state import GameState
from tests.engine.night_builders import (
    S09_PLAYERS, S09_TABLE, act, act0, day_start, days, deadline, m, night0, s09_chronicle, s09_night, summary,
)

I = Identity
CARDS = "21人共计24张身份，其中狼人4张、村民13张、先知、女巫、猎人、爱神、小女孩、盗贼各一。"
SWAP = "【偷换】第零日夜晚，盗贼将得到两张身份牌，可以选择其中一张作为自己的身份并弃置另一张，或保留盗贼身份。若两张牌均为狼人，则必须选择一张。"
DIVINE = "【预言】游戏日夜晚，可查验某一存活角色的身份，反馈该角色身份。每晚限用一次。"
PSYCHIC = "【通灵】<锁定技>游戏日夜晚，可得知当晚成为【杀人】目标的角色名单。"
SAVE = "【解药】<限定技>游戏日夜晚，可选择一名【通灵】反馈的角色，使之进入存活状态。"
POISON = "【毒药】<限定技>游戏日夜晚，可选择一名角色，若该角色不为【救药】目标，则立即出局。"
PEEK = "【偷看】……若被存活状态的捕捉到在线状态则替代当晚【杀人】目标立即出局，并跳过遗言阶段。"
KILL = "【杀人】游戏日夜晚，所有存活状态的狼人可以选择一名角色，使之进入濒死状态。"
STRAY = "【流弹】猎人出局时，可在15分钟内决定一名存活角色出局。"
ARROW = "【金箭】<锁定技>在第零日夜晚，爱神须指定两名角色成为情侣，此两名角色互知共群。"
WOLF_WIN = "〖狼人阵营〗胜：狼人阵营存活的人数可投出的票数占总票数的一半或以上。"
LEAD = "【领导】<锁定技>计算投票数量时警长投出的票计为两票"
FLOW = "13.进入第N天夜晚3，持续15分钟；14.判定猎人是否出局，并等待可能的猎人行动，持续15分钟；15.判定濒死状态的角色出局"


def pre(*players: str) -> list[GameEvent]:
    return [GameEvent(EventKind.OUT, None, p, OutWhy.OTHER) for p in players]


def peek(night: int, minutes: float) -> Action:
    """The director enters that the little girl was caught."""
    return Action(night, "粽子", Skill.PEEK, (), m(night, minutes), by_director=True)


# --- the deal ------------------------------------------------------------------------------

def test_s09_composition__the_seeds_cards():
    mode = mode_for("s09")
    assert dict(mode.composition) == {I.WOLF: 4, I.VILLAGER: 13, I.SEER: 1, I.WITCH: 1, I.HUNTER: 1, I.CUPID: 1,
                                      I.GIRL: 1, I.THIEF: 1}, CARDS
    assert mode.players_for() == 21
    # the listed cards are 23: 21 for the players and the thief's two (docs/decisions.md)
    assert sum(dict(mode.composition).values()) == 23


def test_s09_read_sheet__with_the_thiefs_two_cards():
    sheet = mode_for("s09").read_sheet(S09_TABLE, S09_PLAYERS)
    assert dict(sheet.options) == {"盗贼底牌": "狼人、村民"}
    assert mode_for("s09").cards(sheet) == (I.WOLF, I.VILLAGER)


@pytest.mark.parametrize("change, problem", [
    ({"盗贼底牌": None}, "盗贼 春卷 须有两张底牌（身份表中写“盗贼底牌”）"),
    ({"盗贼底牌": ["狼人"]}, "盗贼底牌应写成两个身份的列表（例如 [\"狼人\", \"村民\"]）"),
    ({"盗贼底牌": ["狼人", "狼人"]}, "狼人共 4 张，身份表与底牌中 5 张"),
    ({"年糕": "狼人"}, "狼人共 4 张，身份表与底牌中 5 张"),
    ({"盗贼底牌": ["狼人", "守卫"]}, "盗贼底牌：官方规则S09没有“守卫”这个身份"),
    ({"年糕": "先知"}, "先知共 1 张，身份表与底牌中 2 张"),
])
def test_s09_read_sheet__refused_with_the_reason(change, problem):
    table = {**S09_TABLE, **change}
    table = {k: v for k, v in table.items() if v is not None}
    with pytest.raises(SheetError) as caught:
        mode_for("s09").read_sheet(table, S09_PLAYERS)
    assert problem in caught.value.problems


def test_s09_deal__entered_by_the_director():
    with pytest.raises(SheetError, match="由导演发牌并录入身份表"):
        deal(S09_PLAYERS, "s09", random.Random(1))


def test_s09_briefing__the_thief_sees_its_cards():
    mode = mode_for("s09")
    sheet = mode.read_sheet(S09_TABLE, S09_PLAYERS)
    assert "你的两张底牌：狼人、村民。第零晚发送“偷换 身份”" in mode.briefing(sheet, "春卷").text()
    assert mode.briefing(sheet, "饺子").pack == ("包子", "汤圆")


# --- night 0: 偷换 and 金箭 ----------------------------------------------------------------

def test_swap__the_thief_becomes_a_wolf_and_joins_the_pack():
    c = s09_chronicle([act0("春卷", "偷换", "狼人", 3), act(1, "小笼包", "预言", "春卷", 5),
                       act(1, "春卷", "杀人", "年糕", 20)])
    zero = c.resolve(0)
    assert zero.after.current("春卷") is I.WOLF, SWAP
    assert [(f.to, f.text(c.mode.skill_name)) for f in c.judge(0, night0(4)).feedback] == [
        ("春卷", "偷换：你的身份为狼人"),
        *[(w, "偷换：盗贼 春卷 换成狼人，与你们互知共群") for w in ("饺子", "包子", "汤圆")]]
    one = c.resolve(1)
    assert summary(one)["feedback"][0] == ("小笼包", "预言", "春卷", "狼人")
    assert summary(one)["deaths"] == [("年糕", "out", "村民", "杀人")]
    assert c.mode.faction_at(c.position(day_start(1)), "春卷") is Faction.WOLVES
    assert c.sheet.first("春卷") is I.THIEF  # the deal itself (the reveal) is unchanged


def test_swap__keep_the_thief():
    result = s09_night([act0("春卷", "放弃", None, 3)], night=0)
    assert result.after.current("春卷") is I.THIEF and summary(result)["reasons"] == [("春卷", "放弃", "counted")]


@pytest.mark.parametrize("actions, reason, note", [
    ([act0("春卷", "偷换", "先知", 3)], "target_not_allowed", "只能选择两张底牌之一：狼人、村民"),
    ([act0("春卷", "偷换", "村民", 3), act0("春卷", "偷换", "狼人", 4)], "no_skill", "每晚限用一次"),
    ([act(1, "春卷", "偷换", "狼人", 3)], "no_skill", "偷换只能在第零晚使用"),
])
def test_swap__refused(actions, reason, note):
    result = s09_night(actions)
    ruling = result.rulings[-1]
    assert (ruling.reason.value, note in ruling.note) == (reason, True), SWAP


def test_swap__two_wolves_must_choose():
    table = {**S09_TABLE, "汤圆": "村民", "盗贼底牌": ["狼人", "狼人"]}
    passed = s09_night([act0("春卷", "放弃", None, 3)], night=0, table=table)
    assert summary(passed)["reasons"] == [("春卷", "放弃", "target_not_allowed")]
    assert "两张底牌均为狼人，必须选择一张" in passed.rulings[0].note
    assert passed.after.current("春卷") is I.WOLF  # none chosen by day 1: the first card
    assert any("未选择：取第一张" in n for n in passed.steps[0].outcome.notes)


def test_arrow__two_players_may_include_the_cupid():
    result = s09_night([act0("麻花", "金箭", ["麻花", "年糕"], 3)], night=0)
    assert result.after.lovers == ("麻花", "年糕"), ARROW
    c = s09_chronicle([act0("麻花", "金箭", ["饺子", "年糕"], 3)])
    # S09's cupid does not follow the lovers: it stays in the village
    assert c.mode.faction_at(c.position(day_start(1)), "麻花") is Faction.VILLAGE
    assert c.mode.faction_at(c.position(day_start(1)), "年糕") is Faction.LOVERS


# --- nights ------------------------------------------------------------------------------------


@dataclass
class Night:
    name: str
    seed: str
    actions: list
    expect: dict
    events: list = field(default_factory=list)


NIGHTS = [
    Night("kill_dying_then_out", KILL + " " + FLOW,
          [act(1, "饺子", "杀人", "年糕", 20)],
          {"deaths": [("年糕", "out", "村民", "杀人")], "feedback": [("烧卖", "通灵", None, ("年糕",))]}),
    Night("kill_late", KILL, [act(1, "饺子", "杀人", "年糕", 30)], {"deaths": [], "reasons": [("饺子", "杀人", "late")]}),
    Night("divine_identity", DIVINE,
          [act(1, "小笼包", "预言", "粽子", 5), act(1, "小笼包", "预言", "饺子", 6)],
          {"feedback": [("小笼包", "预言", "粽子", "小女孩"), ("烧卖", "通灵", None, ())],
           "reasons": [("小笼包", "预言", "counted"), ("小笼包", "预言", "no_skill")]}),
    Night("save_the_kill_target", SAVE,
          [act(1, "饺子", "杀人", "年糕", 20), act(1, "烧卖", "解药", "年糕", 35)],
          {"deaths": []}),
    Night("save_herself", SAVE,
          [act(1, "饺子", "杀人", "烧卖", 20), act(1, "烧卖", "解药", "烧卖", 35)],
          {"deaths": []}),
    Night("save_not_listed", SAVE,
          [act(1, "饺子", "杀人", "年糕", 20), act(1, "烧卖", "解药", "元宵", 35)],
          {"deaths": [("年糕", "out", "村民", "杀人")], "reasons": [("饺子", "杀人", "counted"),
                                                              ("烧卖", "解药", "target_not_allowed")]}),
    Night("poison_out_at_once", POISON,
          [act(1, "饺子", "杀人", "年糕", 20), act(1, "烧卖", "毒药", "饺子", 35)],
          {"deaths": [("饺子", "out", "狼人", "毒药"), ("年糕", "out", "村民", "杀人")]}),
    Night("poison_on_the_save_target_nothing", POISON,
          [act(1, "饺子", "杀人", "年糕", 20), act(1, "烧卖", "解药", "年糕", 35), act(1, "烧卖", "毒药", "年糕", 36)],
          {"deaths": [], "reasons": [("饺子", "杀人", "counted"), ("烧卖", "解药", "counted"), ("烧卖", "毒药", "counted")]}),
    Night("girl_caught_instead_of_the_target", PEEK,
          [act(1, "饺子", "杀人", "年糕", 20), peek(1, 22)],
          {"deaths": [("粽子", "out", "小女孩", "偷看")], "feedback": [("烧卖", "通灵", None, ("粽子",))]}),
    Night("girl_peek_by_her_own_pm_not_counted", PEEK + "（SPEC：小女孩 is entered by the director）",
          [act(1, "粽子", "偷看", None, 22)],
          {"deaths": [], "reasons": [("粽子", "偷看", "no_skill")]}),
    Night("hunter_killed_shoots", STRAY + " " + FLOW,
          [act(1, "饺子", "杀人", "油条", 20), act(1, "油条", "流弹", "饺子", 50)],
          {"deaths": [("油条", "out", "猎人", "杀人"), ("饺子", "out", "狼人", "流弹")]}),
    Night("lovers_follow", "【殉情】<锁定技>情侣中若有一人出局，另一人立即出局。",
          [act0("麻花", "金箭", ["年糕", "元宵"]), act(1, "饺子", "杀人", "年糕", 20)],
          {"deaths": [("年糕", "out", "村民", "杀人"), ("元宵", "out", "村民", "殉情")]}),
]


@pytest.mark.parametrize("row", NIGHTS, ids=[n.name for n in NIGHTS])
def test_s09_night__(row: Night):
    result = s09_night(row.actions, row.events)
    got = summary(result)
    assert {k: got[k] for k in row.expect} == row.expect, row.seed
    assert result.final


def test_s09_night__phases_fifteen_minutes_each():
    plan = s09_chronicle().night(1).plan
    assert [(p.name, f"{p.start:%H:%M}", f"{p.end:%H:%M}") for p in plan.phases] == [
        ("夜晚1 先知", "21:30", "21:45"), ("夜晚2 狼人", "21:45", "22:00"), ("夜晚3 女巫", "22:00", "22:15")]
    assert [s.name for s in s09_night([act(1, "饺子", "杀人", "年糕", 20)]).steps] == [
        "杀人、偷看", "解药", "毒药", "猎人", "夜晚结束"]


def test_s09_night__psychic_waits_for_the_wolves_phase_while_the_girl_lives():
    c = s09_chronicle([act(1, w, "杀人", "年糕", 16 + k) for k, w in enumerate(("饺子", "包子", "汤圆"))])
    assert c.judge(1, m(1, 20)).feedback == ()
    (told,) = c.judge(1, m(1, 30)).feedback
    assert told.result == ("年糕",), PSYCHIC


def test_s09_last_words__every_one_out_but_the_caught_girl():
    # 判定濒死状态的角色出局，并通知准备遗言; 小女孩…跳过遗言阶段; a red card none.
    state = GameState(players=S09_PLAYERS, days=days(3))
    state = state.add(GameEvent(EventKind.OUT, day_start(2), "粽子", OutWhy.NIGHT, cause="偷看"))
    state = state.put_out("年糕", day_start(2), "night")
    state = state.put_out("元宵", deadline(2) - (deadline(2) - day_start(2)) / 2, "card")
    state = state.put_out("锅贴", deadline(2), "vote")
    assert last_words_holders(mode_for("s09"), state) == ("年糕", "锅贴")


# --- winning ---------------------------------------------------------------------------------

VILLAGE_OUT = ("小笼包", "烧卖", "油条", "麻花", "粽子", "春卷", "馄饨", "豆浆", "年糕", "元宵", "锅贴", "煎饼",
               "麻团", "凉皮")


def test_s09_win__wolves_by_votes():
    # 7 left (饺子 包子 汤圆 + 米线 豆花 春饼 肉夹馍): 3 of 7 votes, not half; the kill makes 3 of 6.
    events = pre(*VILLAGE_OUT)
    assert s09_chronicle([], events).win is None
    result = s09_night([act(1, "饺子", "杀人", "米线", 20)], events)
    assert (result.win.faction, result.win.rule) == (Faction.WOLVES, "狼人阵营存活的人数可投出的票数占总票数的一半或以上"), WOLF_WIN


def test_s09_win__the_sheriffs_two_votes():
    # 8 left with a wolf sheriff: 3 + 1 of 9 votes — not yet; 4 of 9 + the kill: 4 of 8.
    events = pre(*VILLAGE_OUT[:-1])
    badge = GameEvent(EventKind.SHERIFF, deadline(1) - (deadline(1) - day_start(1)) / 2, "饺子")
    assert s09_chronicle([], [*events, badge]).win is None
    assert s09_night([act(1, "饺子", "杀人", "米线", 20)], events).win is None  # 3 of 7 without the badge
    result = s09_night([act(1, "饺子", "杀人", "米线", 20)], [*events, badge])
    assert result.win.faction is Faction.WOLVES, LEAD + " " + WOLF_WIN


def test_s09_win__the_last_wolf_out():
    events = pre("饺子", "包子")
    result = s09_night([act(1, "汤圆", "杀人", "年糕", 20), act(1, "烧卖", "毒药", "汤圆", 35)], events)
    assert (result.win.faction, result.win.rule) == (
        Faction.VILLAGE, "狼人阵营所有角色均出局（场上仅有村民阵营尚未被判负）")
    assert [d.player for d in result.deaths] == ["汤圆"]  # 胜利阵营确定后终止一切流程结算


def test_s09_win__the_thief_turned_wolf_counts_for_the_wolves():
    events = [GameEvent(EventKind.OUT, day_start(1) + k * (deadline(1) - day_start(1)) / 4, p, OutWhy.CARD)
              for k, p in enumerate(("饺子", "包子", "汤圆"), start=1)]
    c = s09_chronicle([act0("春卷", "偷换", "狼人", 3)], events)
    assert c.win is None and c.mode.pack(c.position(deadline(1))) == ("春卷",)
    assert s09_chronicle([act0("春卷", "偷换", "村民", 3)], events).win.faction is Faction.VILLAGE


def test_s09_properties__skills_named():
    assert {read_skill(w) for w in ("偷换", "偷看", "流弹", "金箭")} == {Skill.SWAP, Skill.PEEK, Skill.LAST_SHOT,
                                                                    Skill.ARROW}
