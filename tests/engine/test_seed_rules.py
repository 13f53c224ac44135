"""One table per seed rule set (../shared/seeds/), each case written from the seed's own
sentence, quoted in the case. The whole day runs through ``tally_day``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

import pytest

from engine.rules import PRESETS
from engine.tally import tally_day
from tests.engine.builders import DAY1, DAY2, Thread, at, change, game, vote

SEATS = ("饺子", "包子", "汤圆", "月饼", "小笼包", "烧卖", "Alice", "bob_2")


@dataclass
class Case:
    name: str
    seed: str  # the seed's own sentence this case checks
    posts: list[tuple]  # (author, "v"|"c", target[, quoted post index[, time]])
    expect: dict
    day: int = 2
    sheriff: str | None = None
    idiots: tuple[str, ...] = ()
    out: tuple[str, ...] = ()
    scapegoat: str | None = None
    accelerated: bool = False
    substitutes: tuple[tuple[str, str], ...] = ()
    extra: dict = field(default_factory=dict)


def run(case: Case, ruleset: str):
    rules = PRESETS[ruleset]
    day2 = replace(DAY2, accelerated=case.accelerated)
    day1 = replace(DAY1, accelerated=case.accelerated)
    state = game(players=SEATS, days=(day1, day2), sheriff=case.sheriff, scapegoat=case.scapegoat)
    for player in case.out:
        state = state.put_out(player, None, "出局")
    for player in case.idiots:
        state = state.reveal_idiot(player)
    for old, new in case.substitutes:
        state = state.substitute(old, new)
    window = state.day(case.day)
    thread = Thread(tid=window.vote_thread, start=window.start.replace(hour=10, minute=0))
    made = []
    for post in case.posts:
        author, kind, target, *rest = post
        quoted = rest[0] if rest else None
        when: datetime | None = rest[1] if len(rest) > 1 else None
        text = vote(target) if kind == "v" else change(target)
        quotes = () if quoted is None else (made[quoted].pid,)
        made.append(thread.post(author, text, quotes=quotes, when=when))
    return tally_day(thread.ballots, state, case.day, rules)


def check(result, expect: dict) -> None:
    got = {
        "counts": result.counts,
        "out": result.result.out,
        "sheriff": result.result.sheriff,
        "rule": result.result.rule,
        "tie": list(result.result.tie),
        "reasons": [r.reason.value for r in result.rulings],
        "non_voters": list(result.non_voters),
        "abstain": result.abstain,
    }
    assert {k: got[k] for k in expect} == expect


DOUBLE = [("饺子", "v", "包子"), ("汤圆", "v", "月饼"), ("月饼", "v", "汤圆")]
TIE_WITH_SHERIFF = [("饺子", "v", "包子"), ("汤圆", "v", "月饼"), ("月饼", "v", "月饼")]
TIE_WITHOUT_SHERIFF = [
    ("饺子", "v", "烧卖"),
    ("包子", "v", "月饼"), ("汤圆", "v", "月饼"), ("小笼包", "v", "月饼"),
    ("月饼", "v", "包子"), ("Alice", "v", "包子"), ("bob_2", "v", "包子"),
]
# 饺子 reaches 2, loses a vote, and reaches 2 again after 月饼 got there.
REACH_LOSE_REACH = [
    ("包子", "v", "饺子"), ("汤圆", "v", "月饼"), ("月饼", "v", "饺子"),
    ("包子", "c", "月饼", 0), ("小笼包", "v", "饺子"),
]
LEADER = "【领导】<锁定技>计算投票数量时警长投出的票计为两票，如出现警长投票对象与其他对象得票数相同且为最高，则警长投票对象出局。否则得票数同为最高的两名角色均不出局，即无人出局。"

S10 = [
    Case("sheriff vote counts twice", LEADER, DOUBLE, {"counts": {"包子": 2, "月饼": 1, "汤圆": 1}, "out": "包子"},
         sheriff="饺子"),
    Case("tie: the sheriff's target is out", LEADER, TIE_WITH_SHERIFF,
         {"counts": {"包子": 2, "月饼": 2}, "out": "包子", "rule": "tie_sheriff_target", "tie": ["包子", "月饼"]},
         sheriff="饺子"),
    Case("tie without the sheriff's target: no one", LEADER, TIE_WITHOUT_SHERIFF,
         {"out": None, "rule": "tie_no_one", "tie": ["包子", "月饼"]}, sheriff="饺子"),
    Case("tie and the sheriff abstained: no one", LEADER,
         [("饺子", "v", "弃权"), ("汤圆", "v", "月饼"), ("月饼", "v", "包子")],
         {"out": None, "rule": "tie_no_one", "abstain": 2}, sheriff="饺子"),
    Case("revealed idiot's vote counts 0", "【若愚】白痴可发动技能免于投票出局，若白痴发动此技能，则此后白痴投票不计入总票数。",
         [("汤圆", "v", "包子"), ("月饼", "v", "小笼包")],
         {"counts": {"小笼包": 1}, "out": "小笼包"}, idiots=("汤圆",)),
    Case("day 1: the most votes is sheriff, tie to who first reached", "09.计票确定警长； (no tie rule in S10: SPEC §3.6 first reached)",
         REACH_LOSE_REACH, {"sheriff": "月饼", "rule": "tie_first_reached", "out": None}, day=1),
    Case("an out player's vote does not count", "角色出局结算结束后，不能继续参与讨论、投票、行使特权。 (14人简易; S10 has no vote-format text of its own, SPEC §3)",
         [("汤圆", "v", "包子"), ("月饼", "v", "小笼包")],
         {"reasons": ["voter_out", "valid"], "out": "小笼包"}, out=("汤圆",)),
]

S09 = [
    Case("sheriff vote counts twice", LEADER, DOUBLE, {"out": "包子", "counts": {"包子": 2, "月饼": 1, "汤圆": 1}},
         sheriff="饺子"),
    Case("tie: the sheriff's target is out", LEADER, TIE_WITH_SHERIFF, {"out": "包子", "rule": "tie_sheriff_target"},
         sheriff="饺子"),
    Case("tie without the sheriff's target: no one", LEADER, TIE_WITHOUT_SHERIFF,
         {"out": None, "rule": "tie_no_one"}, sheriff="饺子"),
    Case("tie with no sheriff: no one", "否则得票数同为最高的两名角色均不出局，即无人出局。",
         [("汤圆", "v", "月饼"), ("月饼", "v", "包子")], {"out": None, "rule": "tie_no_one"}),
]

SIMPLE14 = [
    Case("sheriff vote counts twice", "带队<强制> —— 计算投票数量时警长投出的票计为两票。", DOUBLE,
         {"counts": {"包子": 2, "月饼": 1, "汤圆": 1}, "out": "包子"}, sheriff="饺子"),
    Case("tie: the sheriff's target is out", "平票则警长投票的人出局，警长不投票则无人出局。", TIE_WITH_SHERIFF,
         {"out": "包子", "rule": "tie_sheriff_target"}, sheriff="饺子"),
    Case("tie and the sheriff did not vote: no one", "平票则警长投票的人出局，警长不投票则无人出局。",
         [("汤圆", "v", "月饼"), ("月饼", "v", "包子")],
         {"out": None, "rule": "tie_no_one", "tie": ["包子", "月饼"]}, sheriff="饺子"),
    Case("election: first to reach the top count, after losing and regaining",
         "竞岗<强制> —— 在游戏的第一天投票结束后，最先获得投票数最多的角色当选警长。",
         REACH_LOSE_REACH, {"sheriff": "月饼", "rule": "tie_first_reached", "counts": {"饺子": 2, "月饼": 2}}, day=1),
    Case("accelerated day voids every change", "进程加速后不允许改票，所有改票作废。",
         [("饺子", "v", "包子"), ("汤圆", "v", "月饼"), ("饺子", "c", "月饼", 0)],
         {"counts": {"包子": 1, "月饼": 1}, "reasons": ["valid", "valid", "change_voided_by_acceleration"]},
         accelerated=True),
    Case("no change in the last hour", "白天结束前一个小时不得改票，时间以论坛发帖时间为准。",
         [("饺子", "v", "包子"), ("饺子", "c", "月饼", 0, at(30, 20, 45))],
         {"counts": {"包子": 1}, "reasons": ["valid", "change_in_window"]}),
    Case("a change must quote the original vote", "改票时必须引用原投票帖",
         [("饺子", "v", "包子"), ("汤圆", "v", "月饼"), ("饺子", "c", "月饼", 1)],
         {"counts": {"包子": 1, "月饼": 1}, "reasons": ["valid", "valid", "change_quotes_other_post"]}),
    Case("only one change", "投票后，（只）有一次改票机会",
         [("饺子", "v", "包子"), ("饺子", "c", "月饼", 0), ("饺子", "c", "汤圆", 0)],
         {"counts": {"月饼": 1}, "reasons": ["valid", "valid", "second_change"]}),
    Case("late vote", "投票截止时间是当天白天结束",
         [("饺子", "v", "包子"), ("汤圆", "v", "月饼", None, at(30, 21, 30))],
         {"counts": {"包子": 1}, "reasons": ["valid", "late"]}),
    Case("out voter", "角色出局结算结束后，不能继续参与讨论、投票、行使特权。",
         [("汤圆", "v", "包子"), ("月饼", "v", "小笼包")],
         {"counts": {"小笼包": 1}, "reasons": ["voter_out", "valid"]}, out=("汤圆",)),
    Case("abstaining is a vote", "每人一票，允许弃权，弃权也需要发投票帖，并计为一次投票（或一次改票）。",
         [("饺子", "v", "弃权"), ("汤圆", "v", "月饼")],
         {"abstain": 1, "counts": {"月饼": 1}, "non_voters": ["包子", "月饼", "小笼包", "烧卖", "Alice", "bob_2"]}),
    Case("substitute votes for the seat", "禁止两名或多名玩家使用同一账号或QQ号交替发言或投票 (替补 takes over the seat)",
         [("替补甲", "v", "月饼"), ("包子", "v", "饺子")],
         {"counts": {"月饼": 1}, "reasons": ["valid", "vote_after_vote"]}, substitutes=(("包子", "替补甲"),)),
]

SCAPEGOAT = "【冤死】<锁定技>第二天及以后，如果有两名角色票数相同且为最高，则替罪羊代替他们出局。"
FIRST_REACHED = "在第二天及以后的投票中，若最高票平票且当前没有人第一身份为替罪羊，则最先达到高票的人第一身份死亡。"

DUAL = [
    Case("a living scapegoat goes instead of the tied", SCAPEGOAT,
         [("汤圆", "v", "月饼"), ("月饼", "v", "包子")],
         {"out": "烧卖", "rule": "tie_scapegoat", "tie": ["包子", "月饼"]}, scapegoat="烧卖"),
    Case("no scapegoat: the first to reach the top count", FIRST_REACHED,
         [("汤圆", "v", "月饼"), ("月饼", "v", "包子")],
         {"out": "月饼", "rule": "tie_first_reached"}),
    Case("an out scapegoat does not count", FIRST_REACHED,
         [("汤圆", "v", "月饼"), ("月饼", "v", "包子")],
         {"out": "月饼", "rule": "tie_first_reached"}, scapegoat="烧卖", out=("烧卖",)),
    Case("the sheriff's target has no priority in a tie",
         "但是不是抢到警长就能绑票的……警长只有两票权，没有警长投票优先权",
         [("包子", "v", "月饼"), ("汤圆", "v", "月饼"), ("饺子", "v", "小笼包")],
         {"counts": {"月饼": 2, "小笼包": 2}, "out": "月饼", "rule": "tie_first_reached"}, sheriff="饺子"),
    Case("first to reach after losing and regaining the top", FIRST_REACHED, REACH_LOSE_REACH,
         {"out": "月饼", "rule": "tie_first_reached"}),
    Case("election: first to reach the top", "【竞岗】在第一天讨论日投票结束后，最先获得投票数最多的角色当选警长。",
         [("汤圆", "v", "月饼"), ("月饼", "v", "包子")], {"sheriff": "月饼"}, day=1),
    Case("sheriff vote counts twice", "【带队】<锁定技>计算投票数量时警长投出的票计为两票。", DOUBLE,
         {"out": "包子"}, sheriff="饺子"),
]


def _ids(cases: list[Case]) -> list[str]:
    return [c.name for c in cases]


@pytest.mark.parametrize("case", S10, ids=_ids(S10))
def test_tally_s10__seed_table(case: Case):
    """官方规则S10 (000_…): 【领导】…警长投出的票计为两票，如出现警长投票对象与其他对象得票数相同且为最高，
    则警长投票对象出局。否则得票数同为最高的两名角色均不出局，即无人出局。 【若愚】…此后白痴投票不计入总票数。"""
    check(run(case, "s10"), case.expect)


@pytest.mark.parametrize("case", S09, ids=_ids(S09))
def test_tally_s09__seed_table(case: Case):
    """官方规则S09 (001_…): the same 【领导】 sentence as S10."""
    check(run(case, "s09"), case.expect)


@pytest.mark.parametrize("case", SIMPLE14, ids=_ids(SIMPLE14))
def test_tally_simple14__seed_table(case: Case):
    """14人简易规则 (002_…): 明确说明投票对象和投票理由，投票后，（只）有一次改票机会，改票时必须引用原投票帖…
    白天结束前一个小时不得改票… 进程加速后不允许改票，所有改票作废。 平票则警长投票的人出局，警长不投票则无人出局。"""
    check(run(case, "simple14"), case.expect)


@pytest.mark.parametrize("case", DUAL, ids=_ids(DUAL))
def test_tally_dual__seed_table(case: Case):
    """双身份规则 (003_…): 若最高票平票且当前没有人第一身份为替罪羊，则最先达到高票的人第一身份死亡。
    【冤死】…替罪羊代替他们出局。 警长只有两票权，没有警长投票优先权。"""
    check(run(case, "dual"), case.expect)


@pytest.mark.parametrize("cases", [S10, S09, SIMPLE14, DUAL], ids=["s10", "s09", "simple14", "dual"])
def test_seed_tables__quote_real_seed_text(cases: list[Case], request):
    """Every case's quoted sentence is really in the seed documents (no paraphrase)."""
    from tests.support import SHARED

    seeds = SHARED / "seeds"
    if not seeds.is_dir():
        pytest.skip("../shared/seeds not found")
    corpus = "".join(p.read_text(encoding="utf-8") for p in seeds.glob("*.txt"))
    for case in cases:
        sentence = case.seed.split(" (")[0].split("(")[0]
        assert sentence in corpus, f"{case.name}: {sentence!r} not in the seeds"
