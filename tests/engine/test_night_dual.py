"""双身份 nights, one row per seed sentence (seeds/003_…, SPEC §10.3).

Players (night_builders.DUAL_TABLE), first identity first: 甲 狼人/村民, 乙 先知/狼人,
丙 女巫/村民, 丁 守卫/村民, 戊 长老/猎人, 己 村民/村民, 庚 狼人/替罪羊 (DUAL_HUNTER: 戊 猎人/长老).
Wolf faction 甲 乙 庚; the pack is 甲 庚. Minutes from the deadline: 守卫 0–10, 先知 10–20,
狼人 20–30, 女巫 30–40.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from engine.events import EventKind, GameEvent, OutWhy
from tests.engine.night_builders import (
    DUAL_HUNTER, DUAL_TABLE, act, day_start, deadline, m, out, resolve_night, summary,
)

SHIELD = "【守护之盾】游戏日夜晚，可选择一名角色，使之免疫【杀人】"
SHIELD_ONCE = "每名角色的每一层身份只能成为该技能使用对象一次，即原始第一身份和第二身份转变成的第一身份各能成为该技能使用对象一次。"
DYING = "濒死状态：……夜晚结束后，所有濒死状态（无标记的长老除外）未失去身份的角色第一身份死亡，已失去过身份的角色出局。"
ELDER = "【长寿之命】夜晚结束后，如长老处于濒死状态且无标记，长老不失去长老身份并获得一个标记。"
ELDER_LOST = "如长老因【杀人】以外的其他因素失去长老身份时，所有特殊身份失去其技能，并公示。"
SAVE = "【解药】<限定技>游戏日夜晚，可选择一名濒死状态的角色，使之进入存活状态。"
POISON = "【毒药】<限定技>游戏日夜晚，可选择一名角色，使之失去身份/出局。"
HUNTER = "【最后一枪】猎人失去猎人身份时，可在15分钟内决定一名存活角色失去当前第一身份。"
WIN_STOPS = "宣布阵营获得胜利会立即终止一切结算。"


@dataclass
class Night:
    name: str
    seed: str
    actions: list
    expect: dict
    events: list = field(default_factory=list)
    table: dict | None = None


def pre(player: str, cause: str = "杀人") -> GameEvent:
    """One identity lost before the days this game knows about."""
    return GameEvent(EventKind.IDENTITY_LOST, None, player, OutWhy.OTHER, cause=cause)


ALL_SPECIAL_LOST = [("乙", "先知"), ("丙", "女巫"), ("丁", "守卫"), ("戊", "猎人"), ("庚", "替罪羊")]

NIGHTS = [
    Night("kill_first_identity_dies", DYING,
          [act(1, "甲", "杀人", "己", 25)],
          {"deaths": [("己", "identity_lost", "村民", "杀人")], "win": None}),
    Night("kill_after_one_lost_is_out", DYING,
          [act(1, "甲", "杀人", "己", 25)],
          {"deaths": [("己", "out", "村民", "杀人")]},
          [pre("己")]),
    Night("shield_makes_immune", SHIELD,
          [act(1, "丁", "守护", "己", 5), act(1, "甲", "杀人", "己", 25)],
          {"deaths": [], "reasons": [("丁", "守护", "counted"), ("甲", "杀人", "counted")]}),
    Night("shield_once_per_layer", SHIELD_ONCE,
          [act(1, "丁", "守护之盾", "己", 5), act(1, "甲", "杀人", "己", 25),
           act(2, "丁", "守护", "己", 5), act(2, "甲", "杀人", "己", 25)],
          {"deaths": [("己", "identity_lost", "村民", "杀人")],
           "reasons": [("丁", "守护", "target_not_allowed"), ("甲", "杀人", "counted")]}),
    Night("shield_again_on_the_second_layer", SHIELD_ONCE,
          [act(1, "丁", "守护", "己", 5), act(1, "庚", "杀人", "丙", 25),
           act(2, "丙", "毒药", "己", 35),
           act(3, "丁", "守护", "己", 5), act(3, "甲", "杀人", "己", 25)],
          {"deaths": [], "reasons": [("丁", "守护", "counted"), ("甲", "杀人", "counted")]},
          [GameEvent(EventKind.IDENTITY_LOST, day_start(2), "丙", OutWhy.NIGHT, cause="杀人"),
           GameEvent(EventKind.IDENTITY_LOST, day_start(3), "己", OutWhy.NIGHT, cause="毒药")]),
    Night("elder_unmarked_keeps_identity", ELDER,
          [act(1, "甲", "杀人", "戊", 25)],
          {"deaths": [], "marks": ["戊"], "skills_lost": []}),
    Night("elder_marked_dies_by_kill_no_loss", ELDER + " " + ELDER_LOST,
          [act(1, "甲", "杀人", "戊", 25), act(2, "甲", "杀人", "戊", 25)],
          {"deaths": [("戊", "identity_lost", "长老", "杀人")], "marks": [], "skills_lost": [], "announcements": []}),
    Night("elder_poisoned_all_special_lose_skills", ELDER_LOST,
          [act(1, "丙", "毒药", "戊", 35)],
          {"deaths": [("戊", "identity_lost", "长老", "毒药")], "skills_lost": ALL_SPECIAL_LOST,
           "announcements": ["所有特殊身份失去技能"]}),
    Night("elder_lost_what_was_applied_stands", ELDER_LOST + "（SPEC：what was already applied that night stands）",
          [act(1, "丁", "守护", "丙", 5), act(1, "甲", "杀人", "己", 25),
           act(1, "丙", "解药", "己", 33), act(1, "丙", "毒药", "戊", 35)],
          {"deaths": [("戊", "identity_lost", "长老", "毒药")], "skills_lost": ALL_SPECIAL_LOST}),
    Night("skills_lost_next_night", ELDER_LOST,
          [act(1, "丙", "毒药", "戊", 35),
           act(2, "丁", "守护", "己", 5), act(2, "乙", "预言", "甲", 15), act(2, "甲", "杀人", "己", 25)],
          {"deaths": [("己", "identity_lost", "村民", "杀人")], "feedback": [],
           "reasons": [("丁", "守护", "no_skill"), ("乙", "预言", "no_skill"), ("甲", "杀人", "counted")]},
          [GameEvent(EventKind.IDENTITY_LOST, day_start(2), "戊", OutWhy.NIGHT, cause="毒药")]),
    Night("save_and_poison_in_one_night", SAVE + " " + POISON + "（SPEC：both allowed in one night）",
          [act(1, "甲", "杀人", "己", 25), act(1, "丙", "解药", "己", 32), act(1, "丙", "毒药", "庚", 34)],
          {"deaths": [("庚", "identity_lost", "狼人", "毒药")],
           "reasons": [("甲", "杀人", "counted"), ("丙", "解药", "counted"), ("丙", "毒药", "counted")]}),
    Night("save_only_the_dying", SAVE,
          [act(1, "甲", "杀人", "己", 25), act(1, "丙", "解药", "丁", 32)],
          {"deaths": [("己", "identity_lost", "村民", "杀人")], "reasons": [("甲", "杀人", "counted"), ("丙", "解药", "target_not_allowed")]}),
    Night("poison_on_the_dying_takes_both_layers", POISON + " " + DYING,
          [act(1, "甲", "杀人", "己", 25), act(1, "丙", "毒药", "己", 34)],
          {"deaths": [("己", "identity_lost", "村民", "毒药"), ("己", "out", "村民", "杀人")]}),
    Night("hunter_shot_right_after_its_death", HUNTER,
          [act(1, "甲", "杀人", "戊", 25), act(1, "戊", "最后一枪", "甲", 45)],
          {"deaths": [("戊", "identity_lost", "猎人", "杀人"), ("甲", "identity_lost", "狼人", "最后一枪")],
           "reasons": [("甲", "杀人", "counted"), ("戊", "最后一枪", "counted")]},
          table=DUAL_HUNTER),
    Night("hunter_poisoned_shot_before_night_end", HUNTER + "（SPEC：the shot's death comes right after the death that triggered it）",
          [act(1, "甲", "杀人", "己", 25), act(1, "丙", "毒药", "戊", 35), act(1, "戊", "开枪", "庚", 41)],
          {"deaths": [("戊", "identity_lost", "猎人", "毒药"), ("庚", "identity_lost", "狼人", "最后一枪"),
                      ("己", "identity_lost", "村民", "杀人")]},
          table=DUAL_HUNTER),
    Night("hunter_shot_too_late", HUNTER,
          [act(1, "甲", "杀人", "戊", 25), act(1, "戊", "最后一枪", "甲", 60)],
          {"deaths": [("戊", "identity_lost", "猎人", "杀人")], "reasons": [("甲", "杀人", "counted"), ("戊", "最后一枪", "late")]},
          table=DUAL_HUNTER),
    Night("hunter_without_skills_no_shot", HUNTER + " / " + ELDER_LOST,
          [act(1, "丙", "毒药", "戊", 35), act(2, "甲", "杀人", "戊", 25), act(2, "戊", "最后一枪", "甲", 45)],
          {"deaths": [("戊", "out", "猎人", "杀人")], "reasons": [("甲", "杀人", "counted"), ("戊", "最后一枪", "no_skill")]},
          [GameEvent(EventKind.IDENTITY_LOST, day_start(2), "戊", OutWhy.NIGHT, cause="毒药")]),
    Night("seer_sees_the_first_identity", "【预言】游戏日夜晚，可查验某一存活角色的第一身份，反馈该身份。每晚限用一次。",
          [act(1, "乙", "预言", "庚", 12), act(1, "乙", "预言", "甲", 14), act(1, "甲", "杀人", "己", 25)],
          {"reasons": [("乙", "预言", "counted"), ("乙", "预言", "no_skill"), ("甲", "杀人", "counted")],
           "feedback": [("乙", "预言", "庚", "狼人"), ("丙", "通灵", None, ("己",))]}),
    Night("psychic_names_the_shielded_target_too", "【通灵】<锁定技>游戏日夜晚，可得知当晚成为【杀人】目标的角色名单。",
          [act(1, "丁", "守护", "己", 5), act(1, "甲", "杀人", "己", 25), act(1, "丙", "解药", "己", 35)],
          {"deaths": [], "feedback": [("丙", "通灵", None, ("己",))],
           "reasons": [("丁", "守护", "counted"), ("甲", "杀人", "counted"), ("丙", "解药", "counted")]}),
    Night("only_first_identity_wolves_kill", "只有“第一身份”为狼人的玩家能够在狼群中讨论并行使狼人技能“杀人”。",
          [act(1, "乙", "杀人", "己", 22), act(1, "己", "杀人", "丙", 23)],
          {"deaths": [], "reasons": [("乙", "杀人", "no_skill"), ("己", "杀人", "no_skill")]}),
    Night("second_identity_wolf_joins_the_pack", "第一身份是先知第二身份是狼，我被狼刀了是不是就要进狼群？——是如此",
          [act(2, "乙", "杀人", "己", 22)],
          {"deaths": [("己", "identity_lost", "村民", "杀人")], "reasons": [("乙", "杀人", "counted")]},
          [pre("乙")]),
    Night("win_stops_the_night_end", WIN_STOPS + " 胜 1.村民阵营的先知、女巫、守卫、长老身份死亡。",
          # 丁's 守卫 and 戊's 长老 already dead (by 杀人); the witch poisons herself.
          [act(1, "甲", "杀人", "己", 25), act(1, "丙", "毒药", "丙", 35)],
          {"deaths": [("丙", "identity_lost", "女巫", "毒药")],
           "win": ("狼人阵营", "村民阵营的先知、女巫、守卫、长老身份死亡")},
          [pre("丁"), pre("戊")]),
    Night("village_wins_last_wolf_out", "〖村民阵营〗胜 所有狼人阵营的角色出局",
          [act(1, "庚", "杀人", "己", 25), act(1, "丙", "毒药", "庚", 35)],
          {"deaths": [("庚", "out", "替罪羊", "毒药")], "win": ("村民阵营", "所有狼人阵营的角色出局")},
          [GameEvent(EventKind.OUT, None, "甲", OutWhy.OTHER), GameEvent(EventKind.OUT, None, "乙", OutWhy.OTHER),
           pre("庚"), pre("己", "毒药")]),
    Night("villagers_all_dead_wolves_win", "胜 2.村民阵营的村民身份全部死亡。",
          [act(1, "甲", "杀人", "己", 25)],
          {"deaths": [("己", "out", "村民", "杀人")], "win": ("狼人阵营", "村民阵营的村民身份全部死亡")},
          # 丙 and 丁 out (their 村民 second identities with them), 己 down to the last 村民
          [pre("丙", "毒药"), pre("丙"), pre("丁"), pre("丁"), pre("己")]),
]


@pytest.mark.parametrize("row", NIGHTS, ids=[n.name for n in NIGHTS])
def test_dual_night__(row: Night):
    result = resolve_night("dual", row.actions, row.events, table=row.table)
    got = summary(result)
    assert {k: got[k] for k in row.expect} == row.expect, row.seed
    assert result.final


def test_dual_night__steps_are_named_in_order():
    result = resolve_night("dual", [act(1, "甲", "杀人", "己", 25)])
    assert [s.name for s in result.steps] == ["守护之盾", "狼人杀人", "解药", "毒药", "夜晚结束"]


def test_dual_night__hunter_window_open_waits():
    actions = [act(1, "甲", "杀人", "戊", 25)]
    result = resolve_night("dual", actions, table=DUAL_HUNTER, now=m(1, 45))
    assert result.ready is False and result.final is False
    assert [(t.player, f"{t.since:%H:%M}", f"{t.until:%H:%M}") for t in result.awaiting] == [("戊", "22:10", "22:25")]
    assert result.pending() == ("等待 戊 发动最后一枪（至 12-02 22:25）",)
    after = resolve_night("dual", actions, table=DUAL_HUNTER, now=m(1, 56))
    assert after.awaiting == () and after.final


def test_dual_night__hunter_passes():
    result = resolve_night("dual", [act(1, "甲", "杀人", "戊", 25), act(1, "戊", "放弃", None, 42)],
                           table=DUAL_HUNTER)
    assert [d.player for d in result.deaths] == ["戊"]
    assert summary(result)["reasons"][-1] == ("戊", "放弃", "counted")


def test_dual_night__win_after_the_poison_skips_the_rest():
    row = next(n for n in NIGHTS if n.name == "win_stops_the_night_end")
    result = resolve_night("dual", row.actions, row.events)
    assert [s.name for s in result.steps] == ["守护之盾", "狼人杀人", "解药", "毒药"]
    assert result.after.in_game("己") and result.after.layers_lost("己") == 0


def test_dual_night__deaths_as_events_identity_lost():
    result = resolve_night("dual", [act(1, "甲", "杀人", "己", 25)])
    (event,) = result.events(day_start(2))
    assert (event.kind, event.player, event.why, event.cause, event.at) == (
        EventKind.IDENTITY_LOST, "己", OutWhy.NIGHT, "杀人", day_start(2))


def test_dual_night__shot_as_event_is_hunter():
    result = resolve_night("dual", [act(1, "甲", "杀人", "戊", 25), act(1, "戊", "最后一枪", "甲", 45)],
                           table=DUAL_HUNTER)
    assert [(e.player, e.why) for e in result.events(day_start(2))] == [("戊", OutWhy.NIGHT), ("甲", OutWhy.HUNTER)]


def test_dual_night__scapegoat_loses_its_skill_with_the_elder():
    from tests.engine.night_builders import chronicle

    c = chronicle("dual", [act(1, "丙", "毒药", "戊", 35)],
                  [GameEvent(EventKind.IDENTITY_LOST, day_start(2), "戊", OutWhy.NIGHT, cause="毒药"),
                   GameEvent(EventKind.IDENTITY_LOST, None, "庚", OutWhy.OTHER, cause="杀人")])
    assert c.mode.scapegoat(c.position(deadline(1))) == "庚"
    assert c.mode.scapegoat(c.position(day_start(2))) is None
