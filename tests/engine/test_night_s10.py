"""S10 nights, one row per seed sentence (seeds/000_…, 3楼 三、身份与技能; 5楼 游戏流程).

Players (night_builders.S10_TABLE, version A6D unless a row says otherwise): wolves 饺子 包子
汤圆; 白狼 月饼; 吹笛 粽子; 先知 小笼包; 女巫 烧卖; 守卫 春卷; 长老 馄饨; 猎人 油条; 白痴 豆浆;
爱神 麻花; 村民 年糕 元宵 锅贴 煎饼 麻团 凉皮 米线 豆花. A6D's digits: 预言01, 通灵0 解药0 毒药1,
守护00 隔音0, 道骨1, 金箭0. A6E (the same identities): 预言10, 通灵0 解药0 毒药0, 守护10 隔音1,
道骨0. Minutes from the deadline: 夜晚1 守卫 0–15, 夜晚2 吹笛 15–30, 夜晚3、4、5 30–45,
夜晚6 女巫 45–60, then the hunter's 15 minutes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from engine.events import EventKind, GameEvent, OutWhy
from tests.engine.night_builders import act, act0, day_start, deadline, m, s10_chronicle, s10_night, summary

FLOW = "11.进入第N天夜晚1 … 14.进入第N天夜晚6 15.判定猎人是否出局，并等待可能的猎人行动 16.判定濒死状态的角色出局"
KILL = "【杀人1】游戏日夜晚，所有存活状态的狼人可以共同选择一名角色，使之进入濒死状态。"
SHIELD00 = "【守护00】游戏日夜晚，可选择一名角色，使之免疫【杀人】、【撕咬】，每名角色只能成为该技能使用对象一次。"
SHIELD01 = "【守护01】…使之免疫【杀人】或【撕咬】，每名角色只能成为该技能使用对象一次。"
SHIELD10 = "【守护10】…使之免疫【杀人】、【撕咬】，不能连续两晚同时对同一名角色使用。"
MUTE0 = "【隔音0】游戏日夜晚，可选择一名角色，使之免疫【吹笛】，每名角色只能成为该技能使用对象一次。"
MUTE1 = "【隔音1】…使之免疫【吹笛】，不能连续两晚同时对同一名角色使用。"
PIPE = "【吹笛】游戏日夜晚，可选择一名角色，若该角色不为情侣之一，则该角色进入癫狂状态。"
PIPE_TARGET = "吹笛 使用对象：任一存活且未癫狂"
DIVINE00 = "【预言00】…若该角色属于村民阵营，则反馈“村民阵营”，否则反馈为“非村民阵营”。每晚限用一次。"
DIVINE01 = "【预言01】游戏日夜晚，可查验某一存活角色的身份，反馈该角色所属阵营。每晚限用一次。"
DIVINE10 = "【预言10】游戏日夜晚，可查验某一存活角色的身份，反馈该角色身份。每晚限用一次。"
PSYCHIC0 = "【通灵0】<锁定技>游戏日夜晚，可得知当晚成为【杀人】、【撕咬】目标的角色名单。"
PSYCHIC1 = "【通灵1】<锁定技>游戏日夜晚，可得知当晚濒死状态的角色名单。"
SAVE0 = "【解药0】<限定技>游戏日夜晚，可选择一名【通灵】反馈的角色，使之进入存活状态。若该技能已发动，则女巫失去【通灵】。"
SAVE1 = "【解药1】<限定技>游戏日夜晚，可选择一名【通灵】反馈的其他角色，使之进入存活状态。"
POISON0 = "【毒药0】<限定技>游戏日夜晚，可选择一名角色，使之立即出局。"
POISON1 = "【毒药1】<限定技>游戏日夜晚，可选择一名角色，若女巫当晚未由于【杀人】或【撕咬】出局，则该角色出局。"
BITE = "【撕咬】每两晚（1~2、3~4等）白狼可选择一名角色，使之进入濒死状态。"
ELDER_BOTH = "【道骨】如长老在某一夜晚同时成为【杀人】与【撕咬】的使用对象，则获得一个标记。"
ELDER_MARK = "【道骨】夜晚结束后，如长老处于濒死状态且无标记，长老不出局并获得一个标记。"
ELDER_LOST0 = "【道骨0】如长老属于村民阵营，且由于村民阵营的身份发动的技能或投票致使其本人或情侣出局时，所有普通身份失去其技能，并公示。"
ELDER_LOST1 = "【道骨1】……所有特殊身份与普通身份失去其技能，并公示。"
STRAY = "【流弹】猎人出局时，可在15分钟内决定一名存活角色出局。（使用对象：任一存活/濒死）"
FOOL_LOST = "【若愚】若此技能已发动，则失去此技能时，白痴出局。"
WIN_STOPS = "胜利阵营确定后终止一切流程结算。"


@dataclass
class Night:
    name: str
    seed: str
    actions: list
    expect: dict
    events: list = field(default_factory=list)
    version: str = "A6D"
    options: dict | None = None


def pre(player: str, cause: str = "") -> GameEvent:
    """Out before the days this game knows about."""
    return GameEvent(EventKind.OUT, None, player, OutWhy.OTHER, cause=cause)


def night_out(player: str, night: int, cause: str = "杀人") -> GameEvent:
    return GameEvent(EventKind.OUT, day_start(night + 1), player, OutWhy.NIGHT, cause=cause)


LOST1 = [("小笼包", "先知"), ("烧卖", "女巫"), ("春卷", "守卫"), ("油条", "猎人"), ("豆浆", "白痴"), ("麻花", "爱神")]
LOST0 = [("油条", "猎人"), ("豆浆", "白痴"), ("麻花", "爱神")]

NIGHTS = [
    # 杀人
    Night("kill_dying_then_out", KILL + " " + FLOW,
          [act(1, "饺子", "杀人", "年糕", 35)],
          {"deaths": [("年糕", "out", "村民", "杀人")], "win": None}),
    Night("pack_order_last_of_any_wolf", KILL,
          [act(1, "饺子", "杀人", "年糕", 31), act(1, "包子", "杀人", "元宵", 40)],
          {"deaths": [("元宵", "out", "村民", "杀人")],
           "reasons": [("饺子", "杀人", "superseded"), ("包子", "杀人", "counted")]}),
    Night("kill_late_after_the_slot", KILL + "（夜晚3、4、5，持续15分钟）",
          [act(1, "饺子", "杀人", "年糕", 45)],
          {"deaths": [], "reasons": [("饺子", "杀人", "late")]}),
    Night("kill_early_in_the_guards_slot", KILL + "（夜晚3、4、5 in its own slot）",
          [act(1, "饺子", "杀人", "年糕", 10)],
          {"deaths": [("年糕", "out", "村民", "杀人")], "reasons": [("饺子", "杀人", "counted")]}),
    # 守护
    Night("shield00_immune_to_kill_and_bite", SHIELD00,
          [act(1, "春卷", "守护", "年糕", 5), act(1, "饺子", "杀人", "年糕", 35), act(1, "月饼", "撕咬", "年糕", 36)],
          {"deaths": [], "reasons": [("春卷", "守护", "counted"), ("饺子", "杀人", "counted"), ("月饼", "撕咬", "counted")]}),
    Night("shield00_once_a_game", SHIELD00,
          [act(1, "春卷", "守护", "年糕", 5), act(2, "春卷", "守护", "年糕", 5), act(2, "饺子", "杀人", "年糕", 35)],
          {"deaths": [("年糕", "out", "村民", "杀人")],
           "reasons": [("春卷", "守护", "target_not_allowed"), ("饺子", "杀人", "counted")]}),
    Night("shield01_stops_one_of_two", SHIELD01,
          [act(1, "春卷", "守护", "年糕", 5), act(1, "饺子", "杀人", "年糕", 35), act(1, "月饼", "撕咬", "年糕", 36)],
          {"deaths": [("年糕", "out", "村民", "撕咬")]}, options={"守护": "01"}),
    Night("shield01_one_attack_is_stopped", SHIELD01,
          [act(1, "春卷", "守护", "年糕", 5), act(1, "饺子", "杀人", "年糕", 35)],
          {"deaths": []}, options={"守护": "01"}),
    Night("shield10_not_two_nights_running", SHIELD10,
          [act(1, "春卷", "守护", "年糕", 5), act(2, "春卷", "守护", "年糕", 5), act(2, "饺子", "杀人", "年糕", 35)],
          {"deaths": [("年糕", "out", "村民", "杀人")], "reasons": [("春卷", "守护", "target_not_allowed"),
                                                              ("饺子", "杀人", "counted")]},
          version="A6E"),
    Night("shield10_again_after_a_night_between", SHIELD10,
          [act(1, "春卷", "守护", "年糕", 5), act(2, "春卷", "守护", "元宵", 5),
           act(3, "春卷", "守护", "年糕", 5), act(3, "饺子", "杀人", "年糕", 35)],
          {"deaths": [], "reasons": [("春卷", "守护", "counted"), ("饺子", "杀人", "counted")]},
          version="A6E"),
    # 隔音 and 吹笛
    Night("mute_makes_immune_to_the_pipe", MUTE0 + " " + PIPE,
          [act(1, "春卷", "隔音", "年糕", 5), act(1, "粽子", "吹笛", "年糕", 20)],
          {"mad": [], "reasons": [("春卷", "隔音", "counted"), ("粽子", "吹笛", "counted")]}),
    Night("mute0_once_a_game", MUTE0,
          [act(1, "春卷", "隔音", "年糕", 5), act(2, "春卷", "隔音", "年糕", 5)],
          {"reasons": [("春卷", "隔音", "target_not_allowed")]}),
    Night("mute1_not_two_nights_running", MUTE1,
          [act(1, "春卷", "隔音", "年糕", 5), act(2, "春卷", "隔音", "年糕", 5), act(3, "春卷", "隔音", "年糕", 5)],
          {"reasons": [("春卷", "隔音", "counted")]}, version="A6E"),
    Night("pipe_makes_mad", PIPE,
          [act(1, "粽子", "吹笛", "年糕", 20)],
          {"mad": ["年糕"], "deaths": []}),
    Night("pipe_on_the_mad_not_allowed", PIPE_TARGET,
          [act(1, "粽子", "吹笛", "年糕", 20), act(2, "粽子", "吹笛", "年糕", 20)],
          {"mad": ["年糕"], "reasons": [("粽子", "吹笛", "target_not_allowed")]}),
    Night("pipe_on_a_lover_no_effect", PIPE,
          [act0("麻花", "金箭", ["年糕", "元宵"]), act(1, "粽子", "吹笛", "年糕", 20)],
          {"mad": [], "reasons": [("粽子", "吹笛", "counted")]}),
    # 预言
    Night("divine01_faction", DIVINE01,
          [act(1, "小笼包", "预言", "月饼", 31), act(1, "小笼包", "预言", "饺子", 32)],
          {"feedback": [("小笼包", "预言", "月饼", "白狼阵营"), ("烧卖", "通灵", None, ())],
           "reasons": [("小笼包", "预言", "counted"), ("小笼包", "预言", "no_skill")]}),
    Night("divine00_village_or_not", DIVINE00,
          [act(1, "小笼包", "预言", "粽子", 31)],
          {"feedback": [("小笼包", "预言", "粽子", "非村民阵营"), ("烧卖", "通灵", None, ())]}, options={"预言": "00"}),
    Night("divine00_village", DIVINE00,
          [act(1, "小笼包", "预言", "豆浆", 31)],
          {"feedback": [("小笼包", "预言", "豆浆", "村民阵营"), ("烧卖", "通灵", None, ())]}, options={"预言": "00"}),
    Night("divine10_identity", DIVINE10,
          [act(1, "小笼包", "预言", "豆浆", 31)],
          {"feedback": [("小笼包", "预言", "豆浆", "白痴"), ("烧卖", "通灵", None, ())]}, version="A6E"),
    # 通灵
    Night("psychic0_kill_and_bite_targets_shielded_too", PSYCHIC0,
          [act(1, "春卷", "守护", "年糕", 5), act(1, "饺子", "杀人", "年糕", 31), act(1, "月饼", "撕咬", "元宵", 32)],
          {"feedback": [("烧卖", "通灵", None, ("年糕", "元宵"))], "deaths": [("元宵", "out", "村民", "撕咬")]}),
    Night("psychic1_only_the_dying", PSYCHIC1,
          [act(1, "春卷", "守护", "年糕", 5), act(1, "饺子", "杀人", "年糕", 31), act(1, "月饼", "撕咬", "元宵", 32)],
          {"feedback": [("烧卖", "通灵", None, ("元宵",))]}, options={"通灵": "1"}),
    # 解药
    Night("save0_from_the_list", SAVE0,
          [act(1, "饺子", "杀人", "年糕", 35), act(1, "烧卖", "解药", "年糕", 50)],
          {"deaths": [], "reasons": [("饺子", "杀人", "counted"), ("烧卖", "解药", "counted")]}),
    Night("save_not_on_the_list", SAVE0,
          [act(1, "饺子", "杀人", "年糕", 35), act(1, "烧卖", "解药", "元宵", 50)],
          {"deaths": [("年糕", "out", "村民", "杀人")],
           "reasons": [("饺子", "杀人", "counted"), ("烧卖", "解药", "target_not_allowed")]}),
    Night("save0_herself", SAVE0,
          [act(1, "饺子", "杀人", "烧卖", 35), act(1, "烧卖", "解药", "烧卖", 50)],
          {"deaths": [], "reasons": [("饺子", "杀人", "counted"), ("烧卖", "解药", "counted")]}),
    Night("save1_not_herself", SAVE1,
          [act(1, "饺子", "杀人", "烧卖", 35), act(1, "烧卖", "解药", "烧卖", 50)],
          {"deaths": [("烧卖", "out", "女巫", "杀人")], "reasons": [("饺子", "杀人", "counted"),
                                                              ("烧卖", "解药", "target_not_allowed")]},
          options={"解药": "1"}),
    Night("save_used_psychic_lost", SAVE0,
          [act(1, "饺子", "杀人", "年糕", 35), act(1, "烧卖", "解药", "年糕", 50),
           act(2, "饺子", "杀人", "元宵", 35), act(2, "烧卖", "解药", "元宵", 50)],
          {"feedback": [], "deaths": [("元宵", "out", "村民", "杀人")],
           "reasons": [("饺子", "杀人", "counted"), ("烧卖", "解药", "no_skill")]}),
    # 毒药
    Night("poison1_witch_alive_out_at_once", POISON1,
          [act(1, "饺子", "杀人", "年糕", 35), act(1, "烧卖", "毒药", "粽子", 50)],
          {"deaths": [("粽子", "out", "吹笛", "毒药"), ("年糕", "out", "村民", "杀人")]}),
    Night("poison1_witch_dying_swallows_it", POISON1 + "（带刀吞毒）",
          [act(1, "饺子", "杀人", "烧卖", 35), act(1, "烧卖", "毒药", "粽子", 50)],
          {"deaths": [("烧卖", "out", "女巫", "杀人")],
           "reasons": [("饺子", "杀人", "counted"), ("烧卖", "毒药", "counted")]}),
    Night("poison1_witch_saves_herself_then_poisons", POISON1 + " " + SAVE0,
          [act(1, "饺子", "杀人", "烧卖", 35), act(1, "烧卖", "解药", "烧卖", 48), act(1, "烧卖", "毒药", "粽子", 50)],
          {"deaths": [("粽子", "out", "吹笛", "毒药")]}),
    Night("poison0_witch_dying_still_poisons", POISON0,
          [act(1, "饺子", "杀人", "烧卖", 35), act(1, "烧卖", "毒药", "粽子", 50)],
          {"deaths": [("粽子", "out", "吹笛", "毒药"), ("烧卖", "out", "女巫", "杀人")]}, version="A6E"),
    Night("poison_once_a_game", "【毒药1】<限定技>",
          [act(1, "烧卖", "毒药", "粽子", 50), act(2, "烧卖", "毒药", "年糕", 50)],
          {"deaths": [], "reasons": [("烧卖", "毒药", "no_skill")]},
          [night_out("粽子", 1, "毒药")]),
    # 撕咬
    Night("bite_dying_then_out", BITE,
          [act(1, "月饼", "撕咬", "年糕", 33)],
          {"deaths": [("年糕", "out", "村民", "撕咬")]}),
    Night("bite_once_in_nights_1_2", BITE,
          [act(1, "月饼", "撕咬", "年糕", 33), act(2, "月饼", "撕咬", "元宵", 33)],
          {"deaths": [], "reasons": [("月饼", "撕咬", "no_skill")]},
          [night_out("年糕", 1, "撕咬")]),
    Night("bite_again_in_nights_3_4", BITE,
          [act(1, "月饼", "撕咬", "年糕", 33), act(3, "月饼", "撕咬", "元宵", 33)],
          {"deaths": [("元宵", "out", "村民", "撕咬")], "reasons": [("月饼", "撕咬", "counted")]},
          [night_out("年糕", 1, "撕咬")]),
    Night("bite_on_night_2_after_none_on_1", BITE,
          [act(2, "月饼", "撕咬", "元宵", 33)],
          {"deaths": [("元宵", "out", "村民", "撕咬")]}),
    # 道骨
    Night("elder_unmarked_dying_stays_marked", ELDER_MARK,
          [act(1, "饺子", "杀人", "馄饨", 35)],
          {"deaths": [], "marks": ["馄饨"], "skills_lost": []}),
    Night("elder_marked_dying_out_no_loss", ELDER_MARK + " " + ELDER_LOST1 + "（杀人 is not the village's）",
          [act(1, "饺子", "杀人", "馄饨", 35), act(2, "饺子", "杀人", "馄饨", 35)],
          {"deaths": [("馄饨", "out", "长老", "杀人")], "skills_lost": [], "announcements": []}),
    Night("elder_kill_and_bite_marked_and_out", ELDER_BOTH + " " + ELDER_MARK,
          [act(1, "饺子", "杀人", "馄饨", 35), act(1, "月饼", "撕咬", "馄饨", 36)],
          {"deaths": [("馄饨", "out", "长老", "杀人")], "marks": ["馄饨"], "skills_lost": []}),
    Night("elder_poisoned_dao1_special_and_ordinary_lose", ELDER_LOST1,
          [act(1, "烧卖", "毒药", "馄饨", 50)],
          {"deaths": [("馄饨", "out", "长老", "毒药")], "skills_lost": LOST1,
           "announcements": ["所有特殊身份与普通身份失去技能"]}),
    Night("elder_poisoned_dao0_ordinary_lose", ELDER_LOST0,
          [act(1, "烧卖", "毒药", "馄饨", 50)],
          {"deaths": [("馄饨", "out", "长老", "毒药")], "skills_lost": LOST0,
           "announcements": ["所有普通身份失去技能"]}, version="A6E"),
    Night("skills_lost_next_night", ELDER_LOST1,
          [act(1, "烧卖", "毒药", "馄饨", 50), act(2, "春卷", "守护", "年糕", 5), act(2, "小笼包", "预言", "饺子", 31),
           act(2, "饺子", "杀人", "年糕", 35)],
          {"deaths": [("年糕", "out", "村民", "杀人")], "feedback": [],
           "reasons": [("春卷", "守护", "no_skill"), ("小笼包", "预言", "no_skill"), ("饺子", "杀人", "counted")]},
          [night_out("馄饨", 1, "毒药")]),
    Night("revealed_idiot_losing_skills_is_out", FOOL_LOST + " " + ELDER_LOST1,
          [act(2, "烧卖", "毒药", "馄饨", 50)],
          {"deaths": [("馄饨", "out", "长老", "毒药"), ("豆浆", "out", "白痴", "若愚")]},
          [GameEvent(EventKind.IDIOT, deadline(1), "豆浆"), GameEvent(EventKind.OUT, deadline(1), "豆浆", OutWhy.VOTE)]),
    # 流弹
    Night("hunter_killed_shoots_before_the_others_go_out", STRAY + " " + FLOW,
          [act(1, "饺子", "杀人", "油条", 35), act(1, "月饼", "撕咬", "年糕", 36), act(1, "油条", "流弹", "元宵", 65)],
          {"deaths": [("油条", "out", "猎人", "杀人"), ("元宵", "out", "村民", "流弹"), ("年糕", "out", "村民", "撕咬")],
           "reasons": [("饺子", "杀人", "counted"), ("月饼", "撕咬", "counted"), ("油条", "流弹", "counted")]}),
    Night("hunter_shoots_a_dying_player", STRAY,
          [act(1, "饺子", "杀人", "油条", 35), act(1, "月饼", "撕咬", "年糕", 36), act(1, "油条", "流弹", "年糕", 65)],
          {"deaths": [("油条", "out", "猎人", "杀人"), ("年糕", "out", "村民", "流弹")]}),
    Night("hunter_poisoned_shoots_right_after", STRAY,
          [act(1, "饺子", "杀人", "年糕", 35), act(1, "烧卖", "毒药", "油条", 50), act(1, "油条", "流弹", "饺子", 62)],
          {"deaths": [("油条", "out", "猎人", "毒药"), ("饺子", "out", "狼人", "流弹"), ("年糕", "out", "村民", "杀人")]}),
    Night("hunter_without_skills_no_shot", STRAY + " / " + ELDER_LOST1,
          [act(1, "烧卖", "毒药", "馄饨", 50), act(2, "饺子", "杀人", "油条", 35), act(2, "油条", "流弹", "饺子", 65)],
          {"deaths": [("油条", "out", "猎人", "杀人")], "reasons": [("饺子", "杀人", "counted"), ("油条", "流弹", "no_skill")]},
          [night_out("馄饨", 1, "毒药")]),
    Night("hunter_shot_too_late", STRAY,
          [act(1, "饺子", "杀人", "油条", 35), act(1, "油条", "流弹", "元宵", 76)],
          {"deaths": [("油条", "out", "猎人", "杀人")], "reasons": [("饺子", "杀人", "counted"), ("油条", "流弹", "late")]}),
    # the win stops the rest
    Night("win_stops_the_night_end", WIN_STOPS + " 〖村民阵营〗0负：1.村民阵营中的特殊身份均出局",
          [act(1, "饺子", "杀人", "年糕", 35), act(1, "烧卖", "毒药", "烧卖", 50)],
          {"deaths": [("烧卖", "out", "女巫", "毒药")],
           "win": ("狼人阵营", "白狼出局；吹笛出局；村民阵营中的特殊身份均出局（场上仅有狼人阵营尚未被判负）")},
          [pre("小笼包"), pre("春卷"), pre("馄饨"), pre("月饼"), pre("粽子")]),
]


def s10_summary(result) -> dict:
    got = summary(result)
    got["mad"] = sorted(result.mode.mad(result.after))
    return got


@pytest.mark.parametrize("row", NIGHTS, ids=[n.name for n in NIGHTS])
def test_s10_night__(row: Night):
    result = s10_night(row.actions, row.events, version=row.version, options=row.options)
    got = s10_summary(result)
    assert {k: got[k] for k in row.expect} == row.expect, row.seed
    assert result.final


def test_s10_night__steps_are_named_in_the_seeds_order():
    result = s10_night([act(1, "饺子", "杀人", "年糕", 35)])
    assert [s.name for s in result.steps] == ["守护、隔音", "吹笛", "杀人、撕咬", "解药", "毒药", "猎人", "夜晚结束"]


def test_s10_night__phases_fifteen_minutes_each():
    c = s10_chronicle()
    plan = c.night(1).plan
    assert [(p.name, f"{p.start:%H:%M}", f"{p.end:%H:%M}") for p in plan.phases] == [
        ("夜晚1 守卫", "21:30", "21:45"), ("夜晚2 吹笛", "21:45", "22:00"),
        ("夜晚3、4、5 先知、狼人、白狼", "22:00", "22:15"), ("夜晚6 女巫", "22:15", "22:30")]


def test_s10_night__hunter_window_waits_then_passes():
    actions = [act(1, "饺子", "杀人", "油条", 35)]
    waiting = s10_night(actions, now=m(1, 65))
    assert waiting.ready is False and waiting.pending() == ("等待 油条 发动流弹（至 12-02 22:45）",)
    assert s10_night(actions, now=m(1, 76)).final


def test_s10_night__psychic_waits_for_the_bite():
    # 通灵 once 杀人 and 撕咬 are final: the white wolf may change within 夜晚3、4、5.
    c = s10_chronicle([act(1, w, "杀人", "年糕", 31 + k) for k, w in enumerate(("饺子", "包子", "汤圆"))])
    assert [f.skill.value for f in c.judge(1, m(1, 40)).feedback] == []
    (told,) = c.judge(1, m(1, 45)).feedback
    assert told.result == ("年糕",) and told.text(c.mode.skill_name) == "通灵：今晚成为杀人、撕咬目标的角色：年糕"


def test_s10_night__psychic_early_when_no_bite_tonight():
    actions = [act(1, "月饼", "撕咬", "元宵", 33), *[act(2, w, "杀人", "年糕", 31 + k)
                                                      for k, w in enumerate(("饺子", "包子", "汤圆"))]]
    c = s10_chronicle(actions, [night_out("元宵", 1, "撕咬")])
    (told,) = c.judge(2, m(2, 34)).feedback
    assert told.result == ("年糕",) and told.at == m(2, 33)


def test_s10_night__lover_seer_answered_when_the_night_is_settled():
    # 如果先知为情侣之一，则在此时（判定濒死状态的角色出局）而非夜晚3给出反馈
    actions = [act0("麻花", "金箭", ["小笼包", "年糕"]), act(1, "小笼包", "预言", "饺子", 31)]
    c = s10_chronicle(actions)
    assert [f for f in c.judge(1, m(1, 50)).feedback if f.skill.value == "divine"] == []
    (told,) = [f for f in c.judge(1, m(1, 75)).feedback if f.skill.value == "divine"]
    assert told.result == "狼人阵营" and told.at == m(1, 75)


def test_s10_night__piper_out_lifts_the_madness_announced():
    # 吹笛出局后，癫狂状态解除，并公示。
    actions = [act(1, "粽子", "吹笛", "年糕", 20), act(2, "饺子", "杀人", "粽子", 35)]
    result = s10_night(actions)
    assert result.mode.mad(result.before) == {"年糕"}
    assert result.mode.mad(result.after) == frozenset()
    assert result.announcements == ("吹笛出局，癫狂状态解除",)
