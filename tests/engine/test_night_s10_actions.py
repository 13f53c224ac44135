"""S10 actions: each reason an action does not count (SPEC §10.6's codes) with the words the
sender is told, and reading S10's PM lines (金箭 甲 乙, 归群, 流弹 …)."""

from __future__ import annotations

import pytest

from engine.events import EventKind, GameEvent, OutWhy
from engine.names import NameTable
from engine.night import ActionReason, OrderProblem, Skill, mode_for, read_order
from engine.state import GameState
from tests.engine.night_builders import S10_PLAYERS, act, act0, day_start, s10_night

R = ActionReason
OUT1 = GameEvent(EventKind.OUT, day_start(2), "年糕", OutWhy.NIGHT, cause="杀人")

# (name, actions, events, which action, reason, words of the note, options)
ROWS = [
    ("actor_out", [act(2, "年糕", "放弃", None, 5)], [OUT1], 0, R.ACTOR_OUT, "已出局", None),
    ("villager_cannot_pipe", [act(1, "元宵", "吹笛", "年糕", 20)], [], 0, R.NO_SKILL, "村民没有吹笛", None),
    ("white_wolf_is_not_the_pack", [act(1, "月饼", "杀人", "年糕", 35)], [], 0, R.NO_SKILL, "白狼没有杀人", None),
    ("hunter_shot_without_trigger", [act(1, "油条", "流弹", "饺子", 35)], [], 0, R.NO_SKILL, "猎人没有流弹", None),
    ("bite_twice_in_a_pair", [act(1, "月饼", "撕咬", "年糕", 35), act(2, "月饼", "撕咬", "元宵", 35)], [OUT1], 1,
     R.NO_SKILL, "撕咬每两晚限用一次（第1~2晚已用）", None),
    ("second_divine", [act(1, "小笼包", "预言", "饺子", 31), act(1, "小笼包", "预言", "包子", 32)], [], 1, R.NO_SKILL,
     "每晚限用一次", None),
    ("arrow_after_night_0", [act(1, "麻花", "金箭", ["年糕", "元宵"], 5)], [], 0, R.NO_SKILL, "金箭只能在第零晚使用", None),
    ("kill_on_night_0", [act0("饺子", "杀人", "年糕")], [], 0, R.NO_SKILL, "第零晚只能使用金箭、归群、托孤", None),
    ("early", [act(1, "春卷", "守护", "年糕", -1)], [], 0, R.EARLY, "开始", None),
    ("late_guard", [act(1, "春卷", "守护", "年糕", 15)], [], 0, R.LATE, "夜晚1 守卫行动", None),
    ("late_pipe", [act(1, "粽子", "吹笛", "年糕", 30)], [], 0, R.LATE, "夜晚2 吹笛行动", None),
    ("late_witch", [act(1, "烧卖", "毒药", "年糕", 60)], [], 0, R.LATE, "夜晚6 女巫行动", None),
    ("target_out", [act(2, "饺子", "杀人", "年糕", 35)], [OUT1], 0, R.TARGET_OUT, "年糕 已出局", None),
    ("pipe_self", [act(1, "粽子", "吹笛", "粽子", 20)], [], 0, R.TARGET_NOT_ALLOWED, "不能对自己吹笛", None),
    ("pipe_the_mad", [act(1, "粽子", "吹笛", "年糕", 20), act(2, "粽子", "吹笛", "年糕", 20)], [], 1,
     R.TARGET_NOT_ALLOWED, "已处于癫狂状态", None),
    ("shield_once", [act(1, "春卷", "守护", "年糕", 5), act(2, "春卷", "守护", "年糕", 5)], [], 1,
     R.TARGET_NOT_ALLOWED, "每名角色只能成为该技能使用对象一次", None),
    ("mute_two_nights", [act(1, "春卷", "隔音", "年糕", 5), act(2, "春卷", "隔音", "年糕", 5)], [], 1,
     R.TARGET_NOT_ALLOWED, "不能连续两晚对同一名角色使用隔音", {"隔音": "1"}),
    ("save_not_listed", [act(1, "饺子", "杀人", "年糕", 35), act(1, "烧卖", "解药", "元宵", 50)], [], 1,
     R.TARGET_NOT_ALLOWED, "不在通灵的名单中", None),
    ("save1_self", [act(1, "饺子", "杀人", "烧卖", 35), act(1, "烧卖", "解药", "烧卖", 50)], [], 1,
     R.TARGET_NOT_ALLOWED, "不能自救", {"解药": "1"}),
    ("arrow1_self", [act0("麻花", "金箭", ["麻花", "年糕"])], [], 0, R.TARGET_NOT_ALLOWED, "须指定两名其他角色",
     {"金箭": "1"}),
    ("join_with_a_target", [act0("月饼", "归群", "饺子")], [], 0, R.TARGET_NOT_ALLOWED, "归群不需要目标", None),
    ("superseded_pack_order", [act(1, "饺子", "杀人", "年糕", 31), act(1, "包子", "杀人", "元宵", 32)], [], 0,
     R.SUPERSEDED, "被包子", None),
    ("witch_pass_supersedes", [act(1, "烧卖", "毒药", "年糕", 46), act(1, "烧卖", "放弃", None, 47)], [], 0,
     R.SUPERSEDED, "放弃", None),
]


@pytest.mark.parametrize("name, actions, events, index, reason, note, options", ROWS, ids=[r[0] for r in ROWS])
def test_s10_action_reason__(name, actions, events, index, reason, note, options):
    result = s10_night(actions, events, options=options)
    ruling = next(r for r in result.rulings if r.action == actions[index])
    assert (ruling.counted, ruling.reason) == (reason is None, reason)
    assert note in ruling.note


def test_s10_action__answer_words():
    result = s10_night([act(1, "粽子", "吹笛", "粽子", 20), act(1, "春卷", "隔音", "年糕", 5)])
    skill = result.mode.skill_name
    assert [r.describe(skill) for r in result.rulings] == [
        "已收到：隔音 年糕", "未计入：吹笛 粽子（目标不允许：不能对自己吹笛）"]


NAMES = NameTable(GameState(players=S10_PLAYERS))


@pytest.mark.parametrize("line, skill, targets", [
    ("金箭 年糕 元宵", Skill.ARROW, ("年糕", "元宵")),
    ("金箭：年糕、元宵", Skill.ARROW, ("年糕", "元宵")),
    ("归群", Skill.JOIN, ()),
    ("托孤 饺子", Skill.ENTRUST, ("饺子",)),
    ("撕咬 年糕", Skill.BITE, ("年糕",)),
    ("吹笛 年糕", Skill.PIPE, ("年糕",)),
    ("隔音 年糕", Skill.MUTE, ("年糕",)),
    ("流弹 饺子", Skill.LAST_SHOT, ("饺子",)),
    ("开枪 饺子", Skill.LAST_SHOT, ("饺子",)),
    ("若愚", Skill.FOOL, ()),
    ("孤刀 年糕", Skill.LONE_BLADE, ("年糕",)),
    ("解药 年糕", Skill.SAVE, ("年糕",)),
])
def test_s10_read_order__(line, skill, targets):
    reading = read_order(line, mode_for("s10"), NAMES)
    assert reading.ok, reading.message
    assert (reading.skill, reading.targets) == (skill, targets)


@pytest.mark.parametrize("line, problem, message", [
    ("金箭 年糕", OrderProblem.NO_TARGET, "金箭需要 2 个目标（例如 金箭 包子 汤圆）"),
    ("归群 饺子", OrderProblem.EXTRA_TARGET, "归群不需要目标"),
    ("道骨", OrderProblem.UNKNOWN_SKILL, "官方规则S10中没有可发送的“道骨”"),
    ("替罪 年糕", OrderProblem.UNKNOWN_SKILL, "不认识的技能“替罪”"),
    ("偷换 狼人", OrderProblem.UNKNOWN_SKILL, "官方规则S10中没有可发送的“偷换”"),
])
def test_s10_read_order__refused(line, problem, message):
    reading = read_order(line, mode_for("s10"), NAMES)
    assert (reading.problem, reading.message) == (problem, message)
