"""Reading a night action from a PM line (SPEC §10.2: ``技能 目标``, names matched as votes)."""

from __future__ import annotations

import pytest

from engine.names import NameTable
from engine.night import OrderProblem, Skill, mode_for, read_director_order, read_order
from engine.state import GameState
from tests.engine.night_builders import SIMPLE, m

STATE = GameState(players=SIMPLE).alias("老饺", "饺子")
NAMES = NameTable(STATE)


@pytest.mark.parametrize("line, skill, targets", [
    ("杀人 包子", Skill.KILL, ("包子",)),
    ("杀人：包子", Skill.KILL, ("包子",)),
    ("刀 包子", Skill.KILL, ("包子",)),
    ("杀人包子", Skill.KILL, ("包子",)),
    ("预言　汤圆", Skill.DIVINE, ("汤圆",)),
    ("救药 老饺", Skill.SAVE, ("饺子",)),
    ("解药 月饼", Skill.SAVE, ("月饼",)),
    ("毒药 月饼", Skill.POISON, ("月饼",)),
    ("放弃", Skill.PASS, ()),
    (" 放弃 ", Skill.PASS, ()),
])
def test_read_order__simple14(line, skill, targets):
    reading = read_order(line, mode_for("simple14"), NAMES)
    assert reading.ok, reading.message
    assert (reading.skill, reading.targets) == (skill, targets)


@pytest.mark.parametrize("line, problem, message", [
    ("", OrderProblem.EMPTY, "没有读到行动"),
    ("飞天 包子", OrderProblem.UNKNOWN_SKILL, "不认识的技能“飞天”"),
    ("守护 包子", OrderProblem.UNKNOWN_SKILL, "14人简易规则中没有可发送的“守护”"),
    ("通灵", OrderProblem.UNKNOWN_SKILL, "没有可发送的“通灵”"),
    ("杀人", OrderProblem.NO_TARGET, "杀人需要目标"),
    ("杀人 包子 汤圆", OrderProblem.EXTRA_TARGET, "杀人只要 1 个目标"),
    ("放弃 包子", OrderProblem.EXTRA_TARGET, "放弃不需要目标"),
    ("杀人 路人", OrderProblem.UNKNOWN_TARGET, "“路人”不是玩家"),
    ("杀人 汤", OrderProblem.UNKNOWN_TARGET, "“汤”不是玩家（是不是：汤圆）"),
    ("杀人 包", OrderProblem.AMBIGUOUS_TARGET, "“包”可能是：包子、小笼包"),
])
def test_read_order__problems(line, problem, message):
    reading = read_order(line, mode_for("simple14"), NAMES)
    assert reading.problem is problem and message in reading.message


def test_read_order__dual_shield_and_shot():
    mode = mode_for("dual")
    state = GameState(players=("甲", "乙", "丙"))
    names = NameTable(state)
    assert read_order("守护之盾 乙", mode, names).skill is Skill.SHIELD
    assert read_order("最后一枪 丙", mode, names).targets == ("丙",)
    assert read_order("最后一枪丙", mode, names).targets == ("丙",)


def test_read_director_order__names_the_actor():
    reading = read_director_order("行动 烧卖 毒药 月饼", mode_for("simple14"), NAMES)
    assert (reading.actor, reading.skill, reading.targets) == ("烧卖", Skill.POISON, ("月饼",))
    action = reading.action(1, "导演", m(1, 5), by_director=True)
    assert (action.actor, action.by_director) == ("烧卖", True)
    assert read_director_order("行动 路人 毒药 月饼", mode_for("simple14"), NAMES).problem is OrderProblem.UNKNOWN_ACTOR
