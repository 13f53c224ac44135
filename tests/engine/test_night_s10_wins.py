"""S10's 胜负判定 (seeds/000_…, 4楼) in its order — 白狼, 吹笛, 情侣, 狼人, 村民 — with the prefix
digit (0 刀边 default, 1), 优先判负, 平局, and the day's triggers (若愚, 孤刀), last words.

Most rows use a 12-player game, version 26D (12	3	4	00	001	000				0	✓		26D): wolves
饺子 包子 汤圆; 吹笛 粽子; 先知 小笼包; 女巫 烧卖; 守卫 春卷; 爱神 麻花; 村民 年糕 元宵 锅贴 煎饼.
"""

from __future__ import annotations

from datetime import timedelta

from engine.events import EventKind, GameEvent, OutWhy
from engine.night import Faction, Skill, last_words_holders
from engine.state import GameState
from tests.engine.night_builders import (
    S10_PLAYERS, act, act0, day_start, days, deadline, m, s10_chronicle, s10_night, summary,
)

TWELVE = ("饺子", "包子", "汤圆", "粽子", "小笼包", "烧卖", "春卷", "麻花", "年糕", "元宵", "锅贴", "煎饼")
TWELVE_TABLE = {"饺子": "狼人", "包子": "狼人", "汤圆": "狼人", "粽子": "吹笛", "小笼包": "先知", "烧卖": "女巫",
                "春卷": "守卫", "麻花": "爱神", **{p: "村民" for p in TWELVE[8:]}}

ORDER = "注：每一步执行完毕后，执行胜负判定，顺序为〖白狼阵营〗、〖吹笛阵营〗、〖情侣阵营〗、〖狼人阵营〗与〖村民阵营〗。"
FIRST = "未曾达到判负条件且最先达到判胜条件的阵营将获得胜利。若有且只有一个阵营未达到判负条件，则该阵营获得胜利。"
DRAW = "平局 所有阵营均满足判负条件。"
WOLVES0 = "〖狼人阵营〗0负：狼人阵营所有角色均出局或处于癫狂状态。"
WOLVES1 = "〖狼人阵营〗1负：狼人阵营所有角色均出局。"
VILLAGE0 = "〖村民阵营〗0负：1.村民阵营中的特殊身份均出局；2.村民阵营中的所有村民均出局或处于癫狂状态。"
VILLAGE1 = "〖村民阵营〗1负：村民阵营中的所有角色均出局或处于癫狂状态。"
PIPER0 = "〖吹笛阵营〗0胜：所有未出局的非情侣村民与狼人均处于癫狂状态。"
PIPER1 = "〖吹笛阵营〗1胜：所有角色均处于癫狂状态。"
WHITE = "〖白狼阵营〗胜：白狼在只有5个人未出局时自身未出局。"
LOVERS = "〖情侣阵营〗负：情侣出局。"
BLADE = "【孤刀】……若该角色属于〖村民阵营〗但不为无标记的长老，且除〖村民阵营〗外的其他阵营均已判负或不存在，则该角色与之共同出局。"
FOOL = "【若愚】白痴可发动技能免于投票出局，若白痴发动此技能，则此后白痴投票不计入总票数。"


def twelve(actions=(), events=(), version="26D", night=None, **kw):
    return s10_night(actions, events, night=night, version=version, table=TWELVE_TABLE, players=TWELVE, **kw)


def chron12(actions=(), events=(), version="26D"):
    return s10_chronicle(actions, events, version=version, table=TWELVE_TABLE, players=TWELVE)


def pre(*players: str) -> list[GameEvent]:
    return [GameEvent(EventKind.OUT, None, p, OutWhy.OTHER) for p in players]


def card(player: str, day: int = 1, minutes: int = 60) -> GameEvent:
    return GameEvent(EventKind.OUT, day_start(day) + timedelta(minutes=minutes), player, OutWhy.CARD)


def win(result):
    return (result.win.faction.value, result.win.rule) if result.win else None


# --- 吹笛 ------------------------------------------------------------------------------------

def test_win__piper0_all_living_village_and_wolves_mad():
    # Mixed lovers 包子 (wolf) and 元宵 stand apart (情侣阵营, the cupid with them). 饺子 癫狂 on
    # night 1 (〖狼人阵营〗 lost), 年糕 on night 2 (〖村民阵营〗 lost: its 村民 out or mad) — the
    # lovers still stand; 小笼包 on night 3: 吹笛's 0胜.
    events = pre("汤圆", "烧卖", "春卷", "锅贴", "煎饼")
    actions = [act0("麻花", "金箭", ["包子", "元宵"]), act(1, "粽子", "吹笛", "饺子", 20),
               act(2, "粽子", "吹笛", "年糕", 20)]
    assert twelve(actions, events).win is None
    result = twelve([*actions, act(3, "粽子", "吹笛", "小笼包", 20), act(3, "包子", "杀人", "小笼包", 35)], events)
    assert win(result) == ("吹笛阵营", "所有未出局的非情侣村民与狼人均处于癫狂状态"), PIPER0 + " " + ORDER
    assert [s.name for s in result.steps][-1] == "吹笛"  # 胜利阵营确定后终止一切流程结算
    assert result.deaths == ()


def test_win__piper1_needs_everyone_else_mad():
    # 前缀 A44: the first bit 1
    events = pre("包子", "汤圆", "小笼包", "烧卖", "春卷", "元宵", "锅贴", "煎饼")  # left: 饺子 粽子 麻花 年糕
    actions = [act(1, "粽子", "吹笛", "饺子", 20), act(2, "粽子", "吹笛", "年糕", 20)]
    assert twelve(actions, events, version="A44-26D").win is None
    result = twelve([*actions, act(3, "粽子", "吹笛", "麻花", 20)], events, version="A44-26D")
    assert win(result) == ("吹笛阵营", "所有角色均处于癫狂状态"), PIPER1


# --- 狼人 and 村民, 优先判负 -----------------------------------------------------------------

def test_win__wolves0_mad_lost_and_it_stays_after_the_piper():
    # 饺子 癫狂 (the last wolf): 〖狼人阵营〗 has lost; the piper goes out, the madness lifts —
    # the loss stays (未曾达到判负条件…), and the village, the last standing, wins.
    events = pre("包子", "汤圆")
    first = twelve([act(1, "粽子", "吹笛", "饺子", 20)], events)
    assert first.win is None and Faction.WOLVES in first.mode.losses(first.after), WOLVES0
    result = twelve([act(1, "粽子", "吹笛", "饺子", 20), act(2, "饺子", "杀人", "粽子", 35)], events)
    assert win(result) == ("村民阵营", "吹笛出局；狼人阵营所有角色均出局或处于癫狂状态（场上仅有村民阵营尚未被判负）"), FIRST


def test_win__wolves1_madness_is_no_loss():
    events = pre("包子", "汤圆")
    result = twelve([act(1, "粽子", "吹笛", "饺子", 20), act(2, "饺子", "杀人", "粽子", 35)], events,
                    version="A44-26D")
    assert result.win is None and Faction.WOLVES not in result.mode.losses(result.after), WOLVES1


def test_win__village0_specials_out():
    events = pre("粽子", "小笼包", "春卷")
    result = twelve([act(1, "饺子", "杀人", "烧卖", 35)], events)
    assert win(result) == ("狼人阵营", "吹笛出局；村民阵营中的特殊身份均出局（场上仅有狼人阵营尚未被判负）"), VILLAGE0


def test_win__village0_villagers_out_or_mad():
    events = pre("年糕", "元宵", "锅贴")
    result = twelve([act(1, "粽子", "吹笛", "煎饼", 20)], events)
    assert result.mode.losses(result.after)[Faction.VILLAGE] == "村民阵营中的所有村民均出局或处于癫狂状态", VILLAGE0


def test_win__village1_needs_every_village_role():
    events = pre("粽子", "年糕", "元宵", "锅贴")
    killed = [act(1, "饺子", "杀人", "煎饼", 35)]
    assert win(twelve(killed, events))[0] == "狼人阵营"
    assert twelve(killed, events, version="A44-26D").win is None, VILLAGE1


def test_win__the_order_white_wolf_first():
    # A6D, 6 left: 饺子 月饼 粽子 小笼包 年糕 元宵. The kill leaves 5: 白狼 wins before anyone's loss.
    out = [p for p in S10_PLAYERS if p not in ("饺子", "月饼", "粽子", "小笼包", "年糕", "元宵")]
    result = s10_night([act(1, "饺子", "杀人", "元宵", 35)], pre(*out))
    assert win(result) == ("白狼阵营", "白狼在只有5个人未出局时自身未出局"), WHITE + " " + ORDER


def test_win__lovers_lose_when_out():
    # mixed lovers (a wolf and a villager): 〖情侣阵营〗; the pair killed, the rest stand
    actions = [act0("麻花", "金箭", ["饺子", "年糕"]), act(1, "包子", "杀人", "年糕", 35)]
    result = twelve(actions)
    assert [d.player for d in result.deaths] == ["年糕", "饺子"]
    assert result.mode.losses(result.after)[Faction.LOVERS] == "情侣出局" and result.win is None, LOVERS


def test_win__lovers_last_standing_win():
    # mixed lovers 饺子 (wolf) and 年糕; night 1 the pack kills the last special, night 2 the
    # last wolf of 〖狼人阵营〗: only 〖情侣阵营〗 has not lost.
    actions = [act0("麻花", "金箭", ["饺子", "年糕"]), act(1, "包子", "杀人", "小笼包", 35),
               act(2, "饺子", "杀人", "包子", 35)]
    events = [*pre("汤圆", "粽子", "烧卖", "春卷"),
              GameEvent(EventKind.OUT, day_start(2), "小笼包", OutWhy.NIGHT, cause="杀人")]
    result = twelve(actions, events)
    assert win(result) == ("情侣阵营", "吹笛出局；狼人阵营所有角色均出局或处于癫狂状态；村民阵营中的特殊身份均出局"
                                       "（场上仅有情侣阵营尚未被判负）")


# --- 平局 and 孤刀 ---------------------------------------------------------------------------

def test_win__draw_by_the_lone_blade():
    # 644-26D (有孤狼): 饺子 is 孤狼; everyone of 〖狼人阵营〗 but him and every 村民 but 煎饼 out,
    # the piper out. 饺子 voted out names 煎饼: both out together → every faction lost.
    setup = [card(p, 1, k) for k, p in enumerate(("包子", "汤圆", "粽子", "年糕", "元宵", "锅贴"), start=1)]
    vote = GameEvent(EventKind.OUT, deadline(1), "饺子", OutWhy.VOTE, seq=(0,))
    blade_out = GameEvent(EventKind.OUT, deadline(1), "煎饼", OutWhy.VOTE, cause="孤刀", seq=(1,))
    actions = [act0("饺子", "托孤", "饺子", 1), act(1, "饺子", "孤刀", "煎饼", 3)]
    c = chron12(actions, [*setup, vote], version="644-26D")
    report = c.day(1)
    assert [t.skill for t in report.triggers] == [Skill.LONE_BLADE]
    ((_, shot, outcome),) = report.proposed_shots
    assert [(d.player, d.cause) for d in outcome.deaths] == [("煎饼", "孤刀")]
    # entered: the two go out together, one win check after both
    c2 = chron12(actions, [*setup, vote, blade_out], version="644-26D")
    assert c2.win.faction is Faction.DRAW, DRAW
    assert c2.day(1).proposed_shots == () and c2.day(1).awaiting == ()  # entered: no longer proposed
    assert [r.counted for r in c2.day(1).shot_rulings] == [True]
    assert c2.win.rule.startswith("所有阵营均满足判负条件"), BLADE
    first = GameEvent(EventKind.OUT, deadline(1), "煎饼", OutWhy.VOTE, cause="孤刀", seq=(0,))
    c3 = chron12(actions, [*setup, first, GameEvent(EventKind.OUT, deadline(1), "饺子", OutWhy.VOTE, seq=(1,))],
                 version="644-26D")
    assert c3.win.faction is Faction.DRAW  # entered the other way round


def test_lone_blade__after_a_hunter_voted_out_shoots_the_lone_wolf():
    # 且即将由于投票或由于投票出局的猎人【流弹】出局时 (A6D with 644: 有孤狼)
    setup = [GameEvent(EventKind.OUT, day_start(1) + timedelta(minutes=k), p, OutWhy.CARD)
             for k, p in enumerate(("包子", "汤圆"), start=1)]
    vote = GameEvent(EventKind.OUT, deadline(1), "油条", OutWhy.VOTE)
    actions = [act0("饺子", "托孤", "饺子", 1), act(1, "油条", "流弹", "饺子", 3)]
    c = s10_chronicle(actions, [*setup, vote], version="644-A6D")
    ((trigger, _, outcome),) = c.day(1).proposed_shots
    assert [d.player for d in outcome.deaths] == ["饺子"]
    assert [(t.player, t.skill) for t in outcome.triggers] == [("饺子", Skill.LONE_BLADE)], BLADE


def test_corrected_night_keeps_the_days_facts():
    # night 1's actions poison the elder, the director's events say no one died: the elder's
    # 道骨 has not fired, so voting him out later still costs the skills.
    actions = [act(1, "烧卖", "毒药", "馄饨", 50)]
    c = s10_chronicle(actions, [GameEvent(EventKind.OUT, day_start(2), "年糕", OutWhy.NIGHT, cause="杀人"),
                                GameEvent(EventKind.OUT, deadline(2), "馄饨", OutWhy.VOTE)])
    assert c.day(2).announcements == ("所有特殊身份与普通身份失去技能",)


def test_lone_blade__not_while_another_faction_stands():
    setup = [card(p, 1, k) for k, p in enumerate(("包子", "汤圆", "年糕", "元宵", "锅贴"), start=1)]  # piper in
    vote = GameEvent(EventKind.OUT, deadline(1), "饺子", OutWhy.VOTE)
    c = chron12([act0("饺子", "托孤", "饺子", 1), act(1, "饺子", "孤刀", "煎饼", 3)], [*setup, vote],
                version="644-26D")
    ((_, _, outcome),) = c.day(1).proposed_shots
    assert outcome.deaths == () and "吹笛阵营尚未判负，无效" in outcome.notes[0]
    assert c.win is None


def test_lone_blade__no_lone_wolf_no_trigger():
    setup = [card(p, 1, k) for k, p in enumerate(("包子", "汤圆"), start=1)]
    c = chron12([], [*setup, GameEvent(EventKind.OUT, deadline(1), "饺子", OutWhy.VOTE)])
    assert c.day(1).triggers == ()


# --- 若愚 ------------------------------------------------------------------------------------

def test_fool__the_idiot_voted_out_may_stay():
    vote = GameEvent(EventKind.OUT, deadline(1), "豆浆", OutWhy.VOTE)
    c = s10_chronicle([act(1, "豆浆", "若愚", None, 2)], [vote])
    report = c.day(1)
    assert [(t.player, t.skill) for t in report.triggers] == [("豆浆", Skill.FOOL)], FOOL
    ((_, action, outcome),) = report.proposed_shots
    assert action.skill is Skill.FOOL and "免于投票出局" in outcome.notes[0]
    assert not c.position(deadline(1)).in_game("豆浆")
    # entered as the §9 idiot event at the vote's moment: the vote-out is cancelled
    c2 = s10_chronicle([act(1, "豆浆", "若愚", None, 2)],
                       [GameEvent(EventKind.IDIOT, deadline(1), "豆浆"), vote])
    assert c2.position(deadline(1)).in_game("豆浆") and c2.day(1).triggers == ()


def test_fool__once():
    first = [GameEvent(EventKind.IDIOT, deadline(1), "豆浆"), GameEvent(EventKind.OUT, deadline(1), "豆浆", OutWhy.VOTE)]
    again = GameEvent(EventKind.OUT, deadline(2), "豆浆", OutWhy.VOTE)
    c = s10_chronicle([], [*first, again])
    assert not c.position(deadline(2)).in_game("豆浆") and c.day(2).triggers == ()


def test_fool__late_answer_does_not_count():
    vote = GameEvent(EventKind.OUT, deadline(1), "豆浆", OutWhy.VOTE)
    c = s10_chronicle([act(1, "豆浆", "若愚", None, 16)], [vote])
    assert [r.reason.value for r in c.day(1).shot_rulings] == ["late"]


# --- the day's win, 流弹 by day, last words ---------------------------------------------------

def test_day__vote_out_wins():
    events = [*pre("粽子", "小笼包", "春卷"), GameEvent(EventKind.OUT, deadline(1), "烧卖", OutWhy.VOTE)]
    c = chron12([], events)
    assert c.win_at(deadline(1) - timedelta(minutes=1)) is None
    assert c.win_at(deadline(1)).faction is Faction.WOLVES


def test_day__hunter_voted_out_shoots():
    vote = GameEvent(EventKind.OUT, deadline(1), "油条", OutWhy.VOTE)
    c = s10_chronicle([act(1, "油条", "流弹", "饺子", 5)], [vote])
    ((trigger, _, outcome),) = c.day(1).proposed_shots
    assert trigger.skill is Skill.LAST_SHOT and [(d.player, d.cause) for d in outcome.deaths] == [("饺子", "流弹")]


def test_day__elder_voted_out_loses_skills():
    c = s10_chronicle([], [GameEvent(EventKind.OUT, deadline(1), "馄饨", OutWhy.VOTE)])
    assert c.day(1).announcements == ("所有特殊身份与普通身份失去技能",)


def test_day__elder_shot_by_a_village_hunter():
    vote = GameEvent(EventKind.OUT, deadline(1), "油条", OutWhy.VOTE)
    shot = GameEvent(EventKind.OUT, m(1, 5), "馄饨", OutWhy.HUNTER)
    c = s10_chronicle([], [vote, shot])
    assert c.day(1).announcements == ("所有特殊身份与普通身份失去技能",)


def test_last_words__first_n_out_wolves_and_white_wolf():
    # 前N（N为狼人+白狼总数）名出局的角色可以留下遗言 — A6D: 3 + 1
    c = s10_chronicle()
    state = GameState(players=S10_PLAYERS, days=days(3))
    for k, p in enumerate(("年糕", "元宵", "锅贴", "煎饼", "麻团")):
        state = state.put_out(p, day_start(2) + timedelta(minutes=k), "night")
    assert last_words_holders(c.mode, state, c.mode.composition_of(c.sheet)) == ("年糕", "元宵", "锅贴", "煎饼")
    assert summary(c.resolve(1))["win"] is None


def test_last_words__unversioned_needs_the_sheets_composition():
    import pytest

    from engine.night import SheetError, mode_for

    state = GameState(players=S10_PLAYERS, days=days(2)).put_out("年糕", day_start(2), "night")
    with pytest.raises(SheetError, match="S10须指定版本号"):
        last_words_holders(mode_for("s10"), state)
    c = s10_chronicle()
    assert last_words_holders(mode_for("s10"), state, c.mode.composition_of(c.sheet)) == ("年糕",)
