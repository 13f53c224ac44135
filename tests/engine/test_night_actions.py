"""An action's ruling: counted, or one reason (SPEC §10.2, §10.6's reason codes)."""

from __future__ import annotations

import pytest

from engine.events import EventKind, GameEvent, OutWhy
from engine.night import Action, ActionError, ActionReason, Skill
from tests.engine.night_builders import DUAL_HUNTER, act, chronicle, day_start, deadline, m, resolve_night

R = ActionReason

# (name, ruleset, actions, events, which action, reason, words of the note)
ROWS = [
    # who
    ("actor_out", "simple14", [act(2, "粽子", "杀人", "春卷", 5)],
     [GameEvent(EventKind.OUT, day_start(2), "粽子", OutWhy.NIGHT)], 0, R.ACTOR_OUT, "已出局"),
    ("actor_not_a_player", "simple14", [act(1, "路人", "杀人", "春卷", 5)], [], 0, R.NO_SKILL, "不是玩家"),
    ("villager_cannot_kill", "simple14", [act(1, "粽子", "杀人", "春卷", 5)], [], 0, R.NO_SKILL, "村民没有杀人"),
    ("seer_has_no_poison", "simple14", [act(1, "小笼包", "毒药", "春卷", 5)], [], 0, R.NO_SKILL, "预言家没有毒药"),
    ("save_used_up", "simple14", [act(1, "烧卖", "救药", "春卷", 5), act(2, "烧卖", "救药", "春卷", 5)], [], 1,
     R.NO_SKILL, "救药已用过"),
    ("second_divine_same_night", "simple14", [act(1, "小笼包", "预言", "饺子", 5), act(1, "小笼包", "预言", "包子", 6)],
     [], 1, R.NO_SKILL, "每晚限用一次"),
    ("pass_after_divine", "simple14", [act(1, "小笼包", "预言", "饺子", 5), act(1, "小笼包", "放弃", None, 6)],
     [], 1, R.NO_SKILL, "每晚限用一次"),
    ("villager_has_nothing_to_pass", "simple14", [act(1, "粽子", "放弃", None, 5)], [], 0, R.NO_SKILL, "没有可放弃的技能"),
    ("dual_second_identity_skill", "dual", [act(1, "戊", "最后一枪", "甲", 25)], [], 0, R.NO_SKILL, "长老没有最后一枪"),
    ("dual_skills_lost", "dual", [act(2, "丁", "守护", "己", 5)],
     [GameEvent(EventKind.IDENTITY_LOST, deadline(2), "戊", OutWhy.VOTE)], 0, R.NO_SKILL, "守卫已失去技能"),
    # when
    ("early_before_the_deadline", "simple14", [act(1, "饺子", "杀人", "春卷", -1)], [], 0, R.EARLY, "开始"),
    ("late_wolves_after_90", "simple14", [act(1, "饺子", "杀人", "春卷", 90)], [], 0, R.LATE, "狼人行动"),
    ("seer_in_time_at_89", "simple14", [act(1, "小笼包", "预言", "春卷", 89)], [], 0, None, ""),
    ("late_witch_at_0800", "simple14", [act(1, "烧卖", "毒药", "春卷", 630)], [], 0, R.LATE, "女巫行动 12-03 08:00 截止"),
    ("witch_in_time_0759", "simple14", [act(1, "烧卖", "毒药", "春卷", 629)], [], 0, None, ""),
    ("late_guard_after_10", "dual", [act(1, "丁", "守护", "己", 10)], [], 0, R.LATE, "守卫行动"),
    ("guard_early_in_the_night_is_fine", "dual", [act(1, "丁", "守护", "己", 0)], [], 0, None, ""),
    ("witch_during_the_wolves_phase_counts", "dual", [act(1, "甲", "杀人", "己", 21), act(1, "丙", "毒药", "甲", 25)],
     [], 1, None, ""),
    ("order_after_the_pack_agreed", "simple14",
     [act(1, w, "杀人", "春卷", 5 + k) for k, w in enumerate(("饺子", "包子", "汤圆", "月饼"))]
     + [act(1, "饺子", "杀人", "油条", 30)], [], 4, R.LATE, "指杀目标已于 21:38 确定"),
    # target
    ("target_out", "simple14", [act(2, "饺子", "杀人", "春卷", 5)],
     [GameEvent(EventKind.OUT, day_start(2), "春卷", OutWhy.NIGHT)], 0, R.TARGET_OUT, "春卷 已出局"),
    ("target_not_a_player", "simple14", [act(1, "饺子", "杀人", "路人", 5)], [], 0, R.TARGET_NOT_ALLOWED, "不是玩家"),
    ("no_target", "simple14", [act(1, "饺子", "杀人", None, 5)], [], 0, R.TARGET_NOT_ALLOWED, "需要一个目标"),
    ("two_targets", "simple14", [act(1, "饺子", "杀人", ["春卷", "油条"], 5)], [], 0, R.TARGET_NOT_ALLOWED, "只能有一个目标"),
    ("pass_with_a_target", "simple14", [act(1, "饺子", "放弃", "春卷", 5)], [], 0, R.TARGET_NOT_ALLOWED, "放弃不需要目标"),
    ("seer_checks_himself", "dual", [act(1, "乙", "预言", "乙", 12)], [], 0, R.TARGET_NOT_ALLOWED, "不能查验自己"),
    ("guard_same_layer_twice", "dual", [act(1, "丁", "守护", "己", 5), act(2, "丁", "守护", "己", 5)], [], 1,
     R.TARGET_NOT_ALLOWED, "已被守护过"),
    ("save_not_the_kill_target", "dual", [act(1, "甲", "杀人", "己", 25), act(1, "丙", "解药", "丁", 32)], [], 1,
     R.TARGET_NOT_ALLOWED, "不是今晚被指杀的角色"),
    ("wolves_may_kill_a_wolf", "simple14", [act(1, "饺子", "杀人", "包子", 5)], [], 0, None, ""),
    # sequence
    ("superseded_by_another_wolf", "simple14", [act(1, "饺子", "杀人", "春卷", 5), act(1, "包子", "杀人", "油条", 6)],
     [], 0, R.SUPERSEDED, "被包子 21:36 的杀人取代"),
    ("superseded_by_pass", "dual", [act(1, "甲", "杀人", "己", 21), act(1, "庚", "放弃", None, 22)], [], 0,
     R.SUPERSEDED, "被庚"),
    ("save_then_poison_simple14", "simple14", [act(1, "烧卖", "救药", "春卷", 5), act(1, "烧卖", "毒药", "油条", 6)],
     [], 0, R.SUPERSEDED, "毒药取代"),
    ("save_then_poison_dual_both_count", "dual", [act(1, "甲", "杀人", "己", 25), act(1, "丙", "解药", "己", 31),
                                                 act(1, "丙", "毒药", "甲", 32)], [], 1, None, ""),
    ("dual_save_twice_last_stands", "dual", [act(1, "甲", "杀人", "己", 25), act(1, "丙", "毒药", "丁", 31),
                                            act(1, "丙", "毒药", "甲", 32)], [], 1, R.SUPERSEDED, ""),
    ("witch_pass_supersedes_both", "dual", [act(1, "甲", "杀人", "己", 25), act(1, "丙", "解药", "己", 31),
                                           act(1, "丙", "毒药", "甲", 32), act(1, "丙", "放弃", None, 33)], [], 2,
     R.SUPERSEDED, "放弃"),
]


@pytest.mark.parametrize("name, ruleset, actions, events, index, reason, note", ROWS, ids=[r[0] for r in ROWS])
def test_action_reason__(name, ruleset, actions, events, index, reason, note):
    result = resolve_night(ruleset, actions, events)
    ruling = next(r for r in result.rulings if r.action == actions[index])
    assert (ruling.counted, ruling.reason) == (reason is None, reason)
    assert note in ruling.note


def test_action_reason__arrival_order_does_not_matter():
    actions = [act(1, "饺子", "杀人", "春卷", 5), act(1, "包子", "杀人", "油条", 6)]
    forward = resolve_night("simple14", actions)
    backward = resolve_night("simple14", list(reversed(actions)))
    assert forward.to_json() == backward.to_json()


def test_action_reason__same_second_ordered_by_the_store():
    same = m(1, 5)
    a = Action(1, "饺子", Skill.KILL, ("春卷",), same, seq=2)
    b = Action(1, "包子", Skill.KILL, ("油条",), same, seq=1)
    result = resolve_night("simple14", [a, b])
    assert [d.player for d in result.deaths] == ["春卷"]


def test_action_reason__answer_to_the_sender():
    result = resolve_night("simple14", [act(1, "饺子", "杀人", "春卷", 5), act(1, "小笼包", "杀人", "油条", 6)])
    skill = result.mode.skill_name
    assert [r.describe(skill) for r in result.rulings] == [
        "已收到：杀人 春卷",
        "未计入：杀人 油条（没有这个技能（不是该身份的、已失去或已用完）：预言家没有杀人）",
    ]


def test_action_reason__json_keys_as_the_spec():
    result = resolve_night("simple14", [act(1, "饺子", "杀人", "春卷", 5)])
    assert result.to_json()["actions"] == [{
        "actor": "饺子", "identity": "狼人", "skill": "杀人", "target": "春卷",
        "at": "2026-12-02T21:35:00+08:00", "counted": True, "reason": None,
    }]


def test_action__skill_words_and_synonyms():
    at = m(1, 5)
    assert Action.of(1, "a", "救药", "b", at).skill is Skill.SAVE
    assert Action.of(1, "a", "解药", "b", at).skill is Skill.SAVE
    assert Action.of(1, "a", "守护之盾", "b", at).skill is Skill.SHIELD
    assert Action.of(1, "a", "最后一枪", "b", at).skill is Skill.LAST_SHOT
    assert Action.of(1, "a", "放弃", None, at).targets == ()
    with pytest.raises(ActionError, match="不认识的技能"):
        Action.of(1, "a", "飞天", "b", at)
    with pytest.raises(ActionError, match="时区"):
        Action.of(1, "a", "杀人", "b", at.replace(tzinfo=None))


def test_action__skill_names_per_rule_set():
    # 双身份 calls the save 解药, 14人简易 救药.
    dual = resolve_night("dual", [act(1, "甲", "杀人", "己", 25), act(1, "丙", "救药", "己", 31)])
    simple = resolve_night("simple14", [act(1, "烧卖", "解药", "春卷", 31)])
    assert dual.to_json()["actions"][1]["skill"] == "解药"
    assert simple.to_json()["actions"][0]["skill"] == "救药"


def test_pack__disagreement_seen():
    result = resolve_night("simple14", [act(1, "饺子", "杀人", "春卷", 5), act(1, "包子", "杀人", "油条", 6)])
    assert result.disagreement
    assert [(o.wolf, o.target) for o in result.pack_orders] == [("饺子", "春卷"), ("包子", "油条")]
    agreed = resolve_night("simple14", [act(1, "饺子", "杀人", "春卷", 5), act(1, "包子", "杀人", "春卷", 6)])
    assert not agreed.disagreement


def test_pack__psychic_when_every_wolf_agrees():
    # 通灵 as soon as every living wolf named the same target, before the phase's end.
    actions = [act(1, w, "杀人", "春卷", 5 + k) for k, w in enumerate(("饺子", "包子", "汤圆", "月饼"))]
    c = chronicle("simple14", actions)
    early = c.judge(1, now=m(1, 20))
    (psychic,) = [f for f in early.feedback if f.skill is Skill.PSYCHIC]
    assert (psychic.to, psychic.result, psychic.at) == ("烧卖", ("春卷",), m(1, 8))
    none_yet = c.judge(1, now=m(1, 7))
    assert [f for f in none_yet.feedback if f.skill is Skill.PSYCHIC] == []


def test_pack__psychic_at_the_phase_end_otherwise():
    c = chronicle("simple14", [act(1, "饺子", "杀人", "春卷", 5)])
    assert [f.skill for f in c.judge(1, now=m(1, 89)).feedback] == []
    (psychic,) = c.judge(1, now=m(1, 90)).feedback
    assert psychic.at == m(1, 90) and psychic.text(lambda s: s) == "通灵：今晚被指杀的角色：春卷"


def test_divine__feedback_at_once():
    c = chronicle("simple14", [act(1, "小笼包", "预言", "饺子", 5)])
    (fb,) = c.judge(1, now=m(1, 5)).feedback
    assert (fb.to, fb.about, fb.result, fb.at) == ("小笼包", "饺子", "非村民阵营", m(1, 5))
    assert fb.text(c.mode.skill_name) == "预言：饺子 —— 非村民阵营"


def test_night__closes_when_everyone_has_acted():
    actions = [act(1, w, "杀人", "春卷", 5) for w in ("饺子", "包子", "汤圆", "月饼")] + [
        act(1, "小笼包", "预言", "饺子", 6), act(1, "烧卖", "放弃", None, 7)]
    result = resolve_night("simple14", actions, now=m(1, 8))
    assert result.closed_at == m(1, 7) and result.ready and not result.final
    assert resolve_night("simple14", actions[:-1], now=m(1, 8)).pending() == ("等待女巫行动（至 12-03 08:00）",)


def test_night__witch_may_still_change_after_the_close():
    # <救药>发动后，在该夜晚不可发动技能<毒药> — both sent, the last stands, even after the
    # night was ready to propose.
    actions = [act(1, w, "杀人", "春卷", 5) for w in ("饺子", "包子", "汤圆", "月饼")] + [
        act(1, "小笼包", "预言", "饺子", 6), act(1, "烧卖", "救药", "春卷", 7), act(1, "烧卖", "毒药", "油条", 60)]
    result = resolve_night("simple14", actions)
    assert [(d.player, d.cause) for d in result.deaths] == [("春卷", "杀人"), ("油条", "毒药")]


def test_shot__hunter_shot_target_must_be_in_the_game():
    result = resolve_night("dual", [act(1, "甲", "杀人", "戊", 25), act(1, "戊", "最后一枪", "路人", 41),
                                    act(1, "戊", "最后一枪", "甲", 42), act(1, "戊", "最后一枪", "庚", 43)],
                           table=DUAL_HUNTER)
    shots = [(r.action.target, r.reason.value if r.reason else "counted") for r in result.rulings
             if r.action.skill is Skill.LAST_SHOT]
    assert shots == [("路人", "target_not_allowed"), ("甲", "counted"), ("庚", "no_skill")]
