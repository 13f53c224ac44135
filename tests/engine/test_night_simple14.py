"""14人简易 nights, one row per seed sentence (seeds/002_…, SPEC §10.3).

Players (night_builders): wolves 饺子 包子 汤圆 月饼; 预言家 小笼包; 女巫 烧卖; 长老 馄饨;
村民 粽子 春卷 油条 豆浆 麻花 年糕 元宵. Minutes count from the night's deadline (21:30);
the wolves and the seer have 90, the witch until 08:00 (630).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from engine.events import EventKind, GameEvent, OutWhy
from tests.engine.night_builders import act, day_start, deadline, out, resolve_night, summary

KILL_OUT = "（4）指杀结算：……三、被指杀的角色出局。"
ELDER = "长寿之命<强制> —— 长老第一次被有效指杀时不会出局"
ELDER_FIRST = "（4）指杀结算：一、被指杀的角色是未被有效指杀过的长老，长老视为被有效指杀一次。二、被指杀的角色如果是<救药>的目标，此次有效指杀不会导致角色出局。"
SAVE = "救药 —— 该角色当晚不会因被指杀而出局。"
SAVE_SPENT = "<救药>使用后，女巫失去技能<救药>。"
NOT_BOTH = "<救药>发动后，在该夜晚不可发动技能<毒药>。 / <毒药>发动后，……且在该夜晚不可发动技能<救药>。"
POISON_ONCE = "<毒药>发动后，女巫失去技能<毒药>"
ELDER_POISON = "当长老因投票、女巫<毒药>而出局后，女巫、预言家将失去技能。"
WIN_STOPS = "宣布阵营获得胜利会立即终止一切结算。"


@dataclass
class Night:
    name: str
    seed: str
    actions: list
    expect: dict
    events: list = field(default_factory=list)


def pre(player: str, why: OutWhy = OutWhy.OTHER) -> GameEvent:
    """Out before the days this game knows about."""
    return GameEvent(EventKind.OUT, None, player, why)


NIGHTS = [
    Night("kill_a_villager", KILL_OUT,
          [act(1, "饺子", "杀人", "粽子", 5)],
          {"deaths": [("粽子", "out", "村民", "杀人")], "marks": [], "win": None}),
    Night("pack_order_last_of_any_wolf", "杀人 —— 游戏日夜晚，该阵营共群的角色可以共同指杀一名角色。",
          [act(1, "饺子", "杀人", "粽子", 5), act(1, "包子", "杀人", "春卷", 20)],
          {"deaths": [("春卷", "out", "村民", "杀人")],
           "reasons": [("饺子", "杀人", "superseded"), ("包子", "杀人", "counted")]}),
    Night("wolves_pass_no_kill", "狼队在关门一个半小时后仍未提交刀人目标，视为放弃出刀",
          [act(1, "饺子", "杀人", "粽子", 5), act(1, "饺子", "放弃", None, 10)],
          {"deaths": [], "reasons": [("饺子", "杀人", "superseded"), ("饺子", "放弃", "counted")]}),
    Night("no_order_by_the_phase_end", "狼队在关门一个半小时后仍未提交刀人目标，视为放弃出刀",
          [act(1, "饺子", "杀人", "粽子", 95)],
          {"deaths": [], "reasons": [("饺子", "杀人", "late")]}),
    Night("elder_first_kill_marked", ELDER,
          [act(1, "饺子", "杀人", "馄饨", 5)],
          {"deaths": [], "marks": ["馄饨"], "skills_lost": []}),
    Night("elder_mark_before_the_save", ELDER_FIRST,
          [act(1, "饺子", "杀人", "馄饨", 5), act(1, "烧卖", "救药", "馄饨", 120)],
          {"deaths": [], "marks": ["馄饨"],
           "reasons": [("饺子", "杀人", "counted"), ("烧卖", "救药", "counted")]}),
    Night("elder_mark_used_though_saved_next_kill_is_final", ELDER_FIRST + "（SPEC：a first kill on the elder uses the elder's mark even when the witch also saved him）",
          [act(1, "饺子", "杀人", "馄饨", 5), act(1, "烧卖", "救药", "馄饨", 120),
           act(2, "饺子", "杀人", "馄饨", 5)],
          {"deaths": [("馄饨", "out", "长老", "杀人")], "marks": []}),
    Night("elder_save_used_up_too", ELDER_FIRST + "（SPEC：— and the save is used up too）",
          [act(1, "饺子", "杀人", "馄饨", 5), act(1, "烧卖", "救药", "馄饨", 120),
           act(2, "饺子", "杀人", "粽子", 5), act(2, "烧卖", "救药", "粽子", 120)],
          {"deaths": [("粽子", "out", "村民", "杀人")],
           "reasons": [("饺子", "杀人", "counted"), ("烧卖", "救药", "no_skill")]}),
    Night("elder_second_kill_out_no_skill_loss", "长老第一次被有效指杀时不会出局 (the second time he is out; by 杀人 no skill is lost)",
          [act(1, "饺子", "杀人", "馄饨", 5), act(2, "饺子", "杀人", "馄饨", 5), act(2, "小笼包", "预言", "饺子", 6)],
          {"deaths": [("馄饨", "out", "长老", "杀人")], "marks": [], "skills_lost": [], "announcements": []}),
    Night("save_the_target", SAVE,
          [act(1, "饺子", "杀人", "粽子", 5), act(1, "烧卖", "救药", "粽子", 100)],
          {"deaths": [], "reasons": [("饺子", "杀人", "counted"), ("烧卖", "救药", "counted")]}),
    Night("save_spent_on_someone_else", SAVE_SPENT,
          [act(1, "饺子", "杀人", "粽子", 5), act(1, "烧卖", "救药", "春卷", 100),
           act(2, "饺子", "杀人", "春卷", 5), act(2, "烧卖", "救药", "春卷", 100)],
          {"deaths": [("春卷", "out", "村民", "杀人")], "reasons": [("饺子", "杀人", "counted"), ("烧卖", "救药", "no_skill")]},
          [out("粽子", day_start(2))]),
    Night("save_then_poison_last_stands", NOT_BOTH,
          [act(1, "饺子", "杀人", "粽子", 5), act(1, "烧卖", "救药", "粽子", 100), act(1, "烧卖", "毒药", "春卷", 110)],
          {"deaths": [("粽子", "out", "村民", "杀人"), ("春卷", "out", "村民", "毒药")],
           "reasons": [("饺子", "杀人", "counted"), ("烧卖", "救药", "superseded"), ("烧卖", "毒药", "counted")]}),
    Night("poison_then_save_last_stands", NOT_BOTH,
          [act(1, "饺子", "杀人", "粽子", 5), act(1, "烧卖", "毒药", "春卷", 100), act(1, "烧卖", "救药", "粽子", 110)],
          {"deaths": [], "reasons": [("饺子", "杀人", "counted"), ("烧卖", "毒药", "superseded"), ("烧卖", "救药", "counted")]}),
    Night("poison_once_a_game", POISON_ONCE,
          [act(1, "烧卖", "毒药", "春卷", 100), act(2, "烧卖", "毒药", "油条", 100)],
          {"deaths": [], "reasons": [("烧卖", "毒药", "no_skill")]},
          [out("春卷", day_start(2))]),
    Night("poison_ignores_the_mark", "（8）毒药结算，如女巫发动<毒药>，此时毒药生效，被毒害的角色出局。",
          [act(1, "饺子", "杀人", "馄饨", 5), act(2, "烧卖", "毒药", "馄饨", 100)],
          {"deaths": [("馄饨", "out", "长老", "毒药")]}),
    Night("elder_poisoned_witch_and_seer_lose_skills", ELDER_POISON,
          [act(1, "烧卖", "毒药", "馄饨", 100)],
          {"deaths": [("馄饨", "out", "长老", "毒药")],
           "skills_lost": [("小笼包", "预言家"), ("烧卖", "女巫")],
           "announcements": ["女巫、预言家失去技能"]}),
    Night("win_stops_the_poison", WIN_STOPS + " 狼人阵营存活的人数占总存活人数的一半或一半以上。",
          # five villagers already out: 4 wolves of 9; the kill makes it 4 of 8
          [act(1, "饺子", "杀人", "元宵", 5), act(1, "烧卖", "毒药", "汤圆", 100)],
          {"deaths": [("元宵", "out", "村民", "杀人")],
           "win": ("狼人阵营", "狼人阵营存活的人数占总存活人数的一半或一半以上")},
          [pre(p) for p in ("粽子", "春卷", "油条", "豆浆", "麻花")]),
    Night("last_wolf_poisoned_village_wins", "负 1、狼人阵营的角色全部出局。 场上仅有一个阵营尚未被判负，游戏立即结束，宣布此阵营胜利。",
          [act(1, "月饼", "杀人", "粽子", 5), act(1, "烧卖", "毒药", "月饼", 100)],
          {"deaths": [("粽子", "out", "村民", "杀人"), ("月饼", "out", "狼人", "毒药")],
           "win": ("村民阵营", "狼人阵营的角色全部出局（场上仅有村民阵营尚未被判负）")},
          [pre(p) for p in ("饺子", "包子", "汤圆")]),
    Night("seer_witch_elder_out_village_loses", "负 1、村民阵营的预言家、女巫、长老出局。",
          [act(1, "饺子", "杀人", "馄饨", 5), act(2, "饺子", "杀人", "馄饨", 5)],
          {"deaths": [("馄饨", "out", "长老", "杀人")],
           "win": ("狼人阵营", "村民阵营的预言家、女巫、长老出局（场上仅有狼人阵营尚未被判负）")},
          [out("小笼包", day_start(2), OutWhy.CARD), out("烧卖", day_start(2), OutWhy.CARD)]),
    Night("skills_lost_after_the_elder_voted_out", "当长老因投票、女巫<毒药>而出局后，女巫、预言家将失去技能。",
          [act(2, "小笼包", "预言", "饺子", 10), act(2, "烧卖", "毒药", "饺子", 100), act(2, "饺子", "杀人", "粽子", 5)],
          {"deaths": [("粽子", "out", "村民", "杀人")], "feedback": [],
           "reasons": [("饺子", "杀人", "counted"), ("小笼包", "预言", "no_skill"), ("烧卖", "毒药", "no_skill")]},
          [out("馄饨", deadline(2), OutWhy.VOTE)]),
    Night("red_carded_elder_costs_nothing", "红牌罚下出局的角色……不能发动以下技能：长老<长寿之命>",
          [act(2, "小笼包", "预言", "饺子", 10)],
          {"deaths": [], "reasons": [("小笼包", "预言", "counted")],
           "feedback": [("小笼包", "预言", "饺子", "非村民阵营"), ("烧卖", "通灵", None, ())]},
          [out("馄饨", day_start(2).replace(hour=12), OutWhy.CARD)]),
    Night("seer_feedback_factions", "若该角色属于村民阵营，反馈<村民阵营>；否则，反馈<非村民阵营>。",
          [act(1, "小笼包", "预言", "馄饨", 10), act(1, "饺子", "杀人", "粽子", 5)],
          {"feedback": [("小笼包", "预言", "馄饨", "村民阵营"), ("烧卖", "通灵", None, ("粽子",))]}),
    Night("psychic_lost_with_the_save", "女巫失去<救药>技能后，失去技能<通灵>。",
          [act(1, "饺子", "杀人", "粽子", 5), act(1, "烧卖", "救药", "粽子", 100), act(2, "饺子", "杀人", "春卷", 5)],
          {"feedback": [], "deaths": [("春卷", "out", "村民", "杀人")]}),
    Night("psychic_none_when_no_kill", "通灵<强制> —— 游戏日夜晚，反馈被指杀的角色。",
          [act(1, "小笼包", "预言", "粽子", 10)],
          {"feedback": [("小笼包", "预言", "粽子", "村民阵营"), ("烧卖", "通灵", None, ())]}),
]


@pytest.mark.parametrize("row", NIGHTS, ids=[n.name for n in NIGHTS])
def test_simple14_night__(row: Night):
    result = resolve_night("simple14", row.actions, row.events)
    got = summary(result)
    assert {k: got[k] for k in row.expect} == row.expect, row.seed
    assert result.final


def test_simple14_night__steps_are_named_in_seed_order():
    result = resolve_night("simple14", [act(1, "饺子", "杀人", "粽子", 5)])
    assert [s.name for s in result.steps] == ["狼人指杀", "指杀结算", "毒药结算", "长老出局结算"]


def test_simple14_night__win_stops_after_the_step_that_won():
    row = next(n for n in NIGHTS if n.name == "win_stops_the_poison")
    result = resolve_night("simple14", row.actions, row.events)
    assert [s.name for s in result.steps] == ["狼人指杀", "指杀结算"]
    assert result.after.in_game("汤圆")
    assert result.win.step == "指杀结算"
