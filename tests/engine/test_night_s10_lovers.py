"""S10's night 0 and the lovers (seeds/000_…: 爱神【金箭】【奇缘】【复仇】, 情侣【私奔】【殉情】
【遗志】, 白狼【归群】, 孤狼【托孤】). Players as in test_night_s10 (night_builders.S10_TABLE)."""

from __future__ import annotations

from engine.events import EventKind, GameEvent, OutWhy
from engine.night import Faction, Skill
from tests.engine.night_builders import act, act0, day_start, deadline, night0, s10_chronicle, s10_night, summary

ARROW0 = "【金箭0】<锁定技>第零日夜晚，爱神须指定两名角色成为情侣，此两名角色互知共群。爱神转变为与情侣相同阵营。"
ARROW1 = "【金箭1】<锁定技>第零日夜晚，爱神须指定两名其他角色成为情侣"
ELOPE = "【私奔】若情侣的身份属于同一个阵营，情侣仍然属于该阵营；若情侣的身份不属于同一个阵营，情侣均脱离其原阵营，形成〖情侣阵营〗。"
FOLLOW = "【殉情】<锁定技>情侣中若有一人出局，另一人立即出局。"
BOND = "【奇缘】<锁定技>若情侣二人的身份类型相同，则爱神转变为与二者相同的身份类型。情侣免疫【守护】。"
REVENGE = "【复仇】<锁定技>若情侣二人均为狼人，则当狼人全部出局后，爱神获得技能【杀人】。"
WILL = "【遗志】若情侣中有狼人且情侣属于〖情侣阵营〗，当〖狼人阵营〗优先判负后，狼人阵营的狼人失去技能【杀人】，情侣获得技能【杀人】。"
JOIN = "【归群】第零日夜晚，白狼得知所有狼人的角色，并可选择与所有狼人互知共群，阵营改变为〖狼人阵营〗。"
ENTRUST = "【托孤】第零日夜晚，若〖狼人阵营〗中角色数目大于2，则〖狼人阵营〗中全体狼人可以选择一名狼人获得该身份。"
NIGHT0 = "第零晚除爱神【金箭】、白狼【归群】外，其他身份是否可以行使技能？否。"


def pre(player: str) -> GameEvent:
    return GameEvent(EventKind.OUT, None, player, OutWhy.OTHER)


def reasons(result):
    return summary(result)["reasons"]


# --- 金箭 ------------------------------------------------------------------------------------

def test_arrow__two_players_become_lovers_told_at_once():
    c = s10_chronicle([act0("麻花", "金箭", ["元宵", "年糕"], 5)])
    night = c.resolve(0)
    assert night.after.lovers == ("年糕", "元宵")  # seat order
    assert [(f.to, f.about, f.text(c.mode.skill_name)) for f in c.judge(0, night0(6)).feedback] == [
        ("元宵", "年糕", "金箭：你与 年糕 成为情侣（互知共群）"),
        ("年糕", "元宵", "金箭：你与 元宵 成为情侣（互知共群）")], ARROW0
    assert c.position(day_start(1)).lovers == ("年糕", "元宵")


def test_arrow0__the_cupid_may_name_himself():
    result = s10_night([act0("麻花", "金箭", ["麻花", "年糕"])], night=0)
    assert result.after.lovers == ("麻花", "年糕") and reasons(result) == [("麻花", "金箭", "counted")]


def test_arrow1__two_other_players():
    result = s10_night([act0("麻花", "金箭", ["麻花", "年糕"])], night=0, options={"金箭": "1"})
    assert reasons(result) == [("麻花", "金箭", "target_not_allowed")], ARROW1
    assert "须指定两名其他角色" in result.rulings[0].note and result.after.lovers == ()


def test_arrow__first_stands_once():
    result = s10_night([act0("麻花", "金箭", ["年糕", "元宵"], 1), act0("麻花", "金箭", ["锅贴", "煎饼"], 2)], night=0)
    assert reasons(result) == [("麻花", "金箭", "counted"), ("麻花", "金箭", "no_skill")]
    assert "已指定情侣（年糕、元宵）" in result.rulings[1].note


def test_arrow__targets():
    result = s10_night([act0("麻花", "金箭", ["年糕"], 1), act0("麻花", "金箭", ["年糕", "年糕"], 2),
                        act0("麻花", "金箭", ["年糕", "路人"], 3)], night=0)
    assert [(r.reason.value, r.note) for r in result.rulings] == [
        ("target_not_allowed", "金箭需要 2 个目标"), ("target_not_allowed", "两个目标须是不同的角色"),
        ("target_not_allowed", "“路人”不是玩家")]


def test_arrow__only_on_night_0_and_nothing_else_then():
    # NIGHT0
    c = s10_chronicle([act0("饺子", "杀人", "年糕", 1), act0("烧卖", "毒药", "年糕", 2),
                       act(1, "麻花", "金箭", ["年糕", "元宵"], 31)])
    zero, one = c.resolve(0), c.resolve(1)
    assert [(r.reason.value, r.note) for r in zero.rulings] == [
        ("no_skill", "第零晚只能使用金箭、归群、托孤"), ("no_skill", "第零晚只能使用金箭、归群、托孤")], NIGHT0
    assert [(r.reason.value, r.note) for r in one.rulings] == [("no_skill", "金箭只能在第零晚使用")]
    assert zero.deaths == ()


def test_arrow__none_sent_no_lovers():
    result = s10_night([act0("月饼", "放弃", None)], night=0)
    assert result.after.lovers == ()
    assert "爱神未指定情侣：本局没有情侣" in result.steps[1].outcome.notes


# --- 私奔 ------------------------------------------------------------------------------------

def test_elope__same_faction_stays_mixed_forms_the_lovers_faction():
    c = s10_chronicle([act0("麻花", "金箭", ["年糕", "元宵"])])
    p = c.position(day_start(1))
    assert [c.mode.faction_at(p, x) for x in ("年糕", "元宵", "麻花")] == [Faction.VILLAGE] * 3
    c = s10_chronicle([act0("麻花", "金箭", ["饺子", "元宵"])])
    p = c.position(day_start(1))
    # the cupid follows them: 爱神转变为与情侣相同阵营
    assert [c.mode.faction_at(p, x) for x in ("饺子", "元宵", "麻花", "包子")] == [
        Faction.LOVERS, Faction.LOVERS, Faction.LOVERS, Faction.WOLVES], ELOPE + " " + ARROW0


def test_elope__the_seer_sees_the_lovers_faction():
    result = s10_night([act0("麻花", "金箭", ["饺子", "元宵"]), act(1, "小笼包", "预言", "麻花", 31)])
    assert summary(result)["feedback"][0] == ("小笼包", "预言", "麻花", "情侣阵营")


# --- 殉情 ------------------------------------------------------------------------------------

def test_follow__at_night_the_other_goes_out_at_once():
    result = s10_night([act0("麻花", "金箭", ["年糕", "元宵"]), act(1, "饺子", "杀人", "元宵", 35)])
    assert summary(result)["deaths"] == [("元宵", "out", "村民", "杀人"), ("年糕", "out", "村民", "殉情")], FOLLOW
    assert [(e.player, e.why) for e in result.events(day_start(2))] == [("元宵", OutWhy.NIGHT), ("年糕", OutWhy.LOVER)]


def test_follow__by_day_with_the_vote_out():
    vote = GameEvent(EventKind.OUT, deadline(1), "元宵", OutWhy.VOTE)
    step = s10_chronicle([act0("麻花", "金箭", ["年糕", "元宵"])]).after(vote)  # the director's preview
    assert [(d.player, d.cause) for d in step.outcome.deaths] == [("元宵", "投票"), ("年糕", "殉情")]
    c = s10_chronicle([act0("麻花", "金箭", ["年糕", "元宵"])], [vote])
    assert not c.position(deadline(1)).in_game("年糕")
    # the director's own 殉情 event is the same news: no warning
    lover = GameEvent(EventKind.OUT, deadline(1), "年糕", OutWhy.LOVER)
    c2 = s10_chronicle([act0("麻花", "金箭", ["年糕", "元宵"]), act(1, "饺子", "杀人", "锅贴", 35)], [vote, lover])
    assert c2.resolve(1).warnings == ()


def test_follow__a_red_card_takes_the_pair():
    card = GameEvent(EventKind.OUT, deadline(1) - (deadline(1) - day_start(1)) / 2, "油条", OutWhy.CARD)
    c = s10_chronicle([act0("麻花", "金箭", ["年糕", "油条"]), act(1, "油条", "流弹", "饺子", 1)], [card])
    (step,) = c.day(1).steps
    assert [(d.player, d.cause) for d in step.outcome.deaths] == [("油条", "红牌"), ("年糕", "殉情")]
    assert step.outcome.triggers == ()  # sent off: no 流弹


# --- 奇缘 ------------------------------------------------------------------------------------

def test_bond__lovers_immune_to_the_shield():
    result = s10_night([act0("麻花", "金箭", ["年糕", "元宵"]), act(1, "春卷", "守护", "年糕", 5),
                        act(1, "饺子", "杀人", "年糕", 35)])
    assert summary(result)["deaths"] == [("年糕", "out", "村民", "杀人"), ("元宵", "out", "村民", "殉情")], BOND


def test_bond__cupid_takes_the_lovers_type():
    # A6E: 道骨0 — only 普通身份 lose skills; with 先知 and 女巫 as lovers the cupid is 特殊.
    actions = [act0("麻花", "金箭", ["小笼包", "烧卖"]), act(1, "烧卖", "毒药", "馄饨", 50)]
    result = s10_night(actions, version="A6E")
    assert summary(result)["skills_lost"] == [("油条", "猎人"), ("豆浆", "白痴")], BOND
    plain = s10_night([act0("麻花", "金箭", ["小笼包", "年糕"]), act(1, "烧卖", "毒药", "馄饨", 50)], version="A6E")
    assert summary(plain)["skills_lost"] == [("油条", "猎人"), ("豆浆", "白痴"), ("麻花", "爱神")]


def test_bond__lost_with_the_cupids_skills():
    # the elder poisoned (道骨1): the cupid loses 奇缘 — the lovers can be shielded again.
    actions = [act0("麻花", "金箭", ["年糕", "小笼包"]), act(1, "烧卖", "毒药", "馄饨", 50),
               act(2, "饺子", "杀人", "年糕", 35)]
    c = s10_chronicle(actions, [GameEvent(EventKind.OUT, day_start(2), "馄饨", OutWhy.NIGHT, cause="毒药")])
    assert c.mode.cupid_skills(c.position(day_start(2))) is False
    assert summary(c.resolve(2))["deaths"] == [("年糕", "out", "村民", "杀人"), ("小笼包", "out", "先知", "殉情")]
    kept = s10_chronicle(actions[:1] + [act(2, "春卷", "守护", "年糕", 5), actions[2]])
    assert summary(kept.resolve(2))["deaths"][0] == ("年糕", "out", "村民", "杀人")  # 情侣免疫【守护】


# --- 复仇 and 遗志 ---------------------------------------------------------------------------

def test_revenge__cupid_kills_once_the_wolf_lovers_are_gone():
    actions = [act0("麻花", "金箭", ["饺子", "包子"]), act(1, "麻花", "杀人", "年糕", 35)]
    card = GameEvent(EventKind.OUT, day_start(1), "汤圆", OutWhy.CARD)
    vote = GameEvent(EventKind.OUT, deadline(1), "饺子", OutWhy.VOTE)  # 包子 殉情 with him
    result = s10_night(actions, [card, vote])
    assert summary(result)["deaths"] == [("年糕", "out", "村民", "杀人")], REVENGE
    assert reasons(result) == [("麻花", "杀人", "counted")]
    before = s10_night(actions, [card])
    assert reasons(before) == [("麻花", "杀人", "no_skill")]


def test_will__mixed_lovers_kill_once_the_wolves_have_lost():
    # 包子 out and 汤圆 癫狂: 〖狼人阵营〗0负 (所有角色均出局或处于癫狂状态) — the lovers take 杀人.
    actions = [act0("麻花", "金箭", ["饺子", "元宵"]), act(1, "粽子", "吹笛", "汤圆", 20),
               act(2, "汤圆", "杀人", "锅贴", 31), act(2, "元宵", "杀人", "年糕", 35)]
    result = s10_night(actions, [pre("包子")])
    assert reasons(result) == [("汤圆", "杀人", "no_skill"), ("元宵", "杀人", "counted")], WILL
    assert "遗志" in result.rulings[0].note
    assert summary(result)["deaths"] == [("年糕", "out", "村民", "杀人")]


def test_will__not_before_the_wolves_lose():
    actions = [act0("麻花", "金箭", ["饺子", "元宵"]), act(1, "元宵", "杀人", "年糕", 35)]
    assert reasons(s10_night(actions, [pre("包子")])) == [("元宵", "杀人", "no_skill")]


# --- 归群 and 托孤 ---------------------------------------------------------------------------

def test_join__the_white_wolf_joins_the_wolves_faction():
    c = s10_chronicle([act0("月饼", "归群", None, 3), act(1, "小笼包", "预言", "月饼", 31)])
    assert [(f.to, f.text(c.mode.skill_name)) for f in c.judge(0, night0(4)).feedback] == [
        (w, "归群：白狼 月饼 归群，与狼人互知共群") for w in ("饺子", "包子", "汤圆")], JOIN
    assert summary(c.resolve(1))["feedback"][0] == ("小笼包", "预言", "月饼", "狼人阵营")
    assert Faction.WHITE_WOLF not in c.mode.factions(c.position(day_start(1)))


def test_join__once():
    result = s10_night([act0("月饼", "归群", None, 3), act0("月饼", "归群", None, 4)], night=0)
    assert reasons(result) == [("月饼", "归群", "counted"), ("月饼", "归群", "no_skill")]


def test_entrust__the_pack_names_a_lone_wolf():
    # 前缀 644: 有孤狼 (the prefix's second bit)
    actions = [act0("饺子", "托孤", "汤圆", 3), act0("包子", "托孤", "包子", 4)]
    c = s10_chronicle(actions, version="644-A6D")
    result = c.resolve(0)
    assert reasons(result) == [("饺子", "托孤", "superseded"), ("包子", "托孤", "counted")], ENTRUST
    from engine.night.official import fact

    assert fact(result.after, "lone") == "包子"
    assert [(f.to, f.text(c.mode.skill_name)) for f in c.judge(0).feedback] == [
        ("包子", "托孤：狼人托孤：你获得孤狼身份（【孤刀】）")]


def test_entrust__only_with_a_lone_wolf_and_only_a_wolf():
    assert [(r.reason.value, r.note) for r in s10_night([act0("饺子", "托孤", "汤圆")], night=0).rulings] == [
        ("no_skill", "本局版本没有孤狼")]
    result = s10_night([act0("饺子", "托孤", "年糕")], night=0, version="644-A6D")
    assert reasons(result) == [("饺子", "托孤", "target_not_allowed")]


def test_entrust__not_when_the_wolves_faction_has_two():
    # a wolf among mixed lovers leaves 〖狼人阵营〗: 3 wolves → 2 roles, 托孤 does nothing.
    result = s10_night([act0("麻花", "金箭", ["饺子", "年糕"]), act0("包子", "托孤", "汤圆", 5)], night=0,
                       version="644-A6D")
    from engine.night.official import fact

    assert fact(result.after, "lone") is None
    assert any("托孤无效" in n for n in result.steps[2].outcome.notes)


def test_night0__the_pack_waits_for_nothing_at_night():
    # night 0 has no 杀人: nothing for the witch, no pack order
    c = s10_chronicle([act0("麻花", "金箭", ["年糕", "元宵"])])
    assert [f.skill for f in c.judge(0).feedback] == [Skill.ARROW, Skill.ARROW]
