"""The game over several days (SPEC §9), one table per seed rule set: each case is a short
story of days and events in game time, written from the seed's own sentence (quoted in
the case and checked against ../shared/seeds/), run through ``tally_day`` day by day.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import pytest

from engine.badge import Succession, badge_status, check_successor
from engine.events import EventKind, GameEvent, OutWhy
from engine.rules import PRESETS
from engine.state import DayWindow, GameState, StateError
from engine.tally import tally_day
from tests.engine.builders import Thread, change, vote

TZ = timezone(timedelta(hours=8))
SEATS = ("饺子", "包子", "汤圆", "月饼", "小笼包", "烧卖", "Alice", "bob_2")


def t(day: int, hhmm: str) -> datetime:
    hour, minute = (int(x) for x in hhmm.split(":"))
    return datetime(2026, 12, day, hour, minute, tzinfo=TZ)


DAYS = tuple(DayWindow(n, t(n, "09:00"), t(n, "21:30"), vote_thread=100 + n) for n in (1, 2, 3))
START, DEADLINE = "09:00", "21:30"


def ev(kind: str, day: int, hhmm: str, player: str | None = None, why: str | None = None, **kw) -> GameEvent:
    return GameEvent(EventKind(kind), t(day, hhmm), player, OutWhy(why) if why else None, **kw)


@dataclass
class Story:
    name: str
    seed: str
    events: list[GameEvent]
    posts: dict[int, list[tuple]]  # day → (author, "v"|"c", target, hh:mm[, index of the quoted post])
    expect: dict[int, dict]  # day → expected values (see ``check``)
    sheriff: str | None = None
    scapegoat: str | None = None
    extra: dict = field(default_factory=dict)


def play(story: Story, ruleset: str) -> dict[int, object]:
    rules = PRESETS[ruleset]
    state = GameState(players=SEATS, director="导演", bot="计票机器人", days=DAYS, identities=rules.identities)
    if story.sheriff:
        state = state.set_sheriff(story.sheriff)
    if story.scapegoat:
        state = state.set_scapegoat(story.scapegoat)
    state = state.with_events(story.events)
    results = {}
    for day, posts in story.posts.items():
        thread = Thread(tid=100 + day, start=t(day, "09:00"), first_pid=1000 * day)
        made = []
        for author, kind, target, hhmm, *rest in posts:
            quotes = (made[rest[0]].pid,) if rest else ()
            made.append(thread.post(author, vote(target) if kind == "v" else change(target), when=t(day, hhmm),
                                    quotes=quotes))
        results[day] = tally_day(thread.ballots, state, day, rules)
    results[0] = state
    return results


def check(story: Story, ruleset: str) -> None:
    results = play(story, ruleset)
    for day, expect in story.expect.items():
        r = results[day]
        got = {
            "out": r.result.out, "sheriff": r.result.sheriff, "rule": r.result.rule, "tie": list(r.result.tie),
            "effect": r.result.effect, "counts": r.counts, "non_voters": list(r.non_voters),
            "reasons": [x.reason.value for x in r.rulings], "weights": [x.weight for x in r.rulings],
            "counted": [x.counted for x in r.rulings], "sheriff_at_deadline": r.sheriff,
        }
        assert {k: got[k] for k in expect} == expect, f"day {day}"


S10 = [
    Story("若愚: the idiot voted out stays in, weighs 0 from then, may be voted for",
          "【若愚】白痴可发动技能免于投票出局，若白痴发动此技能，则此后白痴投票不计入总票数。",
          [ev("out", 2, DEADLINE, "烧卖", "vote"), ev("idiot", 2, DEADLINE, "烧卖")],
          {2: [("包子", "v", "烧卖", "10:00"), ("汤圆", "v", "烧卖", "10:10")],
           3: [("烧卖", "v", "月饼", "10:00"), ("包子", "v", "烧卖", "10:10"), ("汤圆", "v", "月饼", "10:20")]},
          {2: {"out": "烧卖", "effect": "idiot"},
           3: {"reasons": ["valid", "valid", "valid"], "weights": [0, 1, 1], "counts": {"烧卖": 1, "月饼": 1},
               "tie": ["月饼", "烧卖"], "out": None}}),
    Story("a voted-out sheriff: no double vote until the successor is named",
          "【殉职】<锁定技>警长出局后，须选择一名未出局的角色（已发动【若愚】的白痴除外）来继任警长。",
          [ev("out", 2, DEADLINE, "饺子", "vote")],
          {2: [("包子", "v", "饺子", "10:00"), ("汤圆", "v", "饺子", "10:10")],
           3: [("包子", "v", "月饼", "10:00"), ("汤圆", "v", "小笼包", "10:10")]},
          {3: {"sheriff_at_deadline": None, "tie": ["月饼", "小笼包"], "out": None, "rule": "tie_no_one"}},
          sheriff="饺子"),
    Story("the successor named at the 殉职 weighs 2 and settles the next tie",
          "【殉职】<锁定技>警长出局后，须选择一名未出局的角色（已发动【若愚】的白痴除外）来继任警长。",
          [ev("out", 2, DEADLINE, "饺子", "vote"), ev("sheriff", 2, DEADLINE, "包子")],
          {2: [("包子", "v", "饺子", "10:00"), ("汤圆", "v", "饺子", "10:10")],
           3: [("包子", "v", "月饼", "10:00"), ("汤圆", "v", "小笼包", "10:10"), ("Alice", "v", "小笼包", "10:20")]},
          {2: {"sheriff_at_deadline": "饺子"},
           3: {"sheriff_at_deadline": "包子", "weights": [2, 1, 1], "out": "月饼", "rule": "tie_sheriff_target"}},
          sheriff="饺子"),
    Story("a night death takes effect when the night ends, whenever typed",
          "判定濒死状态的角色出局，并通知准备遗言",
          [ev("out", 3, START, "汤圆", "night")],
          {3: [("汤圆", "v", "月饼", "09:30"), ("包子", "v", "汤圆", "09:40"), ("月饼", "v", "包子", "09:50")]},
          {3: {"reasons": ["voter_out", "target_out", "valid"], "counts": {"包子": 1}, "out": "包子"}}),
    Story("a lover follows at once: both votes and the votes on them are dropped at the deadline",
          "【殉情】<锁定技>情侣中若有一人出局，另一人立即出局。",
          [ev("out", 2, "15:00", "月饼", "hunter"), ev("out", 2, "15:00", "小笼包", "lover")],
          {2: [("月饼", "v", "包子", "10:00"), ("小笼包", "v", "包子", "10:10"), ("饺子", "v", "月饼", "10:20"),
               ("汤圆", "v", "烧卖", "10:30")]},
          {2: {"reasons": ["valid"] * 4, "counted": [False, False, False, True], "counts": {"烧卖": 1},
               "out": "烧卖", "non_voters": ["包子", "烧卖", "Alice", "bob_2"]}}),
    Story("a hunter shot after the deadline changes the next day only",
          "【流弹】猎人出局时，可在15分钟内决定一名存活角色出局。",
          [ev("out", 2, DEADLINE, "包子", "vote"), ev("out", 2, "21:40", "汤圆", "hunter")],
          {2: [("饺子", "v", "包子", "10:00"), ("汤圆", "v", "包子", "10:10")],
           3: [("汤圆", "v", "月饼", "10:00")]},
          {2: {"out": "包子", "counted": [True, True]}, 3: {"reasons": ["voter_out"]}}),
]

S09 = [
    Story("a sheriff killed at night: the successor's target wins the tie",
          "【殉职】<锁定技>警长出局后，须选择一名未出局的角色来继任警长。",
          [ev("out", 3, START, "饺子", "night"), ev("sheriff", 3, START, "bob_2")],
          {3: [("bob_2", "v", "月饼", "10:00"), ("汤圆", "v", "小笼包", "10:10"), ("Alice", "v", "小笼包", "10:20")]},
          {3: {"sheriff_at_deadline": "bob_2", "out": "月饼", "rule": "tie_sheriff_target"}}, sheriff="饺子"),
    Story("a tie with the badge vacant: no one",
          "否则得票数同为最高的两名角色均不出局，即无人出局。",
          [ev("out", 3, START, "饺子", "night")],
          {3: [("bob_2", "v", "月饼", "10:00"), ("汤圆", "v", "小笼包", "10:10")]},
          {3: {"sheriff_at_deadline": None, "out": None, "rule": "tie_no_one"}}, sheriff="饺子"),
    Story("lovers leave together during the day",
          "【殉情】<锁定技>情侣中若有一人出局，另一人立即出局。",
          [ev("out", 2, "12:00", "包子", "other"), ev("out", 2, "12:00", "Alice", "lover")],
          {2: [("饺子", "v", "Alice", "10:00"), ("包子", "v", "饺子", "10:05"), ("汤圆", "v", "饺子", "10:10")]},
          {2: {"counted": [False, False, True], "out": "饺子", "counts": {"饺子": 1}}}),
]

SIMPLE14 = [
    Story("a red card before the deadline comes before the vote-out",
          "白天红牌罚下在被投票出局之前。",
          [ev("out", 2, "20:00", "月饼", "card")],
          {2: [("包子", "v", "月饼", "10:00"), ("汤圆", "v", "月饼", "10:10"), ("月饼", "v", "包子", "10:20"),
               ("烧卖", "v", "包子", "10:30")]},
          {2: {"out": "包子", "counts": {"包子": 1}, "counted": [False, False, False, True],
               "non_voters": ["饺子", "小笼包", "Alice", "bob_2"]}}),
    Story("a sent-off sheriff's badge drawn at 20:00 weighs at the deadline",
          "红牌罚下的警长警徽随机移交。",
          [ev("out", 2, "20:00", "饺子", "card"), ev("sheriff", 2, "20:00", "汤圆")],
          {2: [("饺子", "v", "包子", "10:00"), ("汤圆", "v", "月饼", "10:10"), ("包子", "v", "小笼包", "10:20")]},
          {2: {"sheriff_at_deadline": "汤圆", "weights": [0, 2, 1], "out": "月饼", "counts": {"月饼": 2, "小笼包": 1}}},
          sheriff="饺子"),
    Story("the night's deaths are out from the day's start",
          "夜晚出局的角色将在白天开始时公示。",
          [ev("out", 2, START, "烧卖", "night")],
          {2: [("烧卖", "v", "月饼", "09:01"), ("月饼", "v", "烧卖", "09:02"), ("包子", "v", "月饼", "09:03")]},
          {2: {"reasons": ["voter_out", "target_out", "valid"], "out": "月饼"}}),
    Story("acceleration confirmed late voids every change of that day",
          "进程加速后不允许改票，所有改票作废。",
          [GameEvent(EventKind.ACCELERATED, t(2, "20:00"), day=2)],
          {2: [("饺子", "v", "包子", "10:00"), ("饺子", "c", "月饼", "11:00", 0)]},
          {2: {"reasons": ["valid", "change_voided_by_acceleration"], "counts": {"包子": 1}}}),
    Story("an out player votes no more: the vote-out is at the deadline",
          "角色出局结算结束后，不能继续参与讨论、投票、行使特权。",
          [ev("out", 2, DEADLINE, "月饼", "vote")],
          {2: [("包子", "v", "月饼", "10:00"), ("月饼", "v", "包子", "21:29")],
           3: [("月饼", "v", "包子", "09:30"), ("包子", "v", "月饼", "09:40")]},
          {2: {"reasons": ["valid", "valid"], "counted": [True, True]},
           3: {"reasons": ["voter_out", "target_out"], "out": None}}),
]

DUAL = [
    Story("one identity lost: the player still votes and is voted for",
          "结算结束后，仅失去一层身份的角色还能继续参与讨论、投票、发动技能。",
          [ev("identity_lost", 2, DEADLINE, "包子", "vote")],
          {2: [("饺子", "v", "包子", "10:00")], 3: [("包子", "v", "月饼", "10:00"), ("月饼", "v", "包子", "10:10"),
                                                 ("汤圆", "v", "包子", "10:20")]},
          {2: {"out": "包子", "effect": "identity_lost"},
           3: {"reasons": ["valid", "valid", "valid"], "out": "包子", "effect": "out"}}),
    Story("the second identity lost is out",
          "已失去一层身份的角色，因游戏流程的正常进行，包括投票与成为技能的使用对象而再次失去身份，称为“出局”。",
          [ev("identity_lost", 2, DEADLINE, "包子", "vote"), ev("identity_lost", 3, START, "包子", "night")],
          {3: [("包子", "v", "月饼", "10:00"), ("月饼", "v", "包子", "10:10")]},
          {3: {"reasons": ["voter_out", "target_out"]}}),
    Story("sent off whatever the identities left",
          "罚下时与身份数量无关。",
          [ev("out", 2, "12:00", "汤圆", "card")],
          {2: [("汤圆", "v", "月饼", "12:30")]},
          {2: {"reasons": ["voter_out"]}}),
    Story("冤死: the scapegoat names who may vote; none named, no one out",
          "并可以指定下一天有那些角色可以投票，若指定人数为0，则下一天无人出局。",
          [ev("identity_lost", 2, DEADLINE, "烧卖", "vote"), GameEvent(EventKind.VOTERS, t(2, "22:00"), day=3)],
          {2: [("饺子", "v", "包子", "10:00"), ("汤圆", "v", "月饼", "10:10")],
           3: [("饺子", "v", "包子", "10:00"), ("汤圆", "v", "包子", "10:10")]},
          {2: {"out": "烧卖", "rule": "tie_scapegoat"},
           3: {"reasons": ["voter_not_allowed", "voter_not_allowed"], "out": None, "rule": "no_voters",
               "non_voters": []}},
          scapegoat="烧卖"),
    Story("冤死: only the named vote, the others are void",
          "并可以指定下一天有那些角色可以投票，若指定人数为0，则下一天无人出局。",
          [GameEvent(EventKind.VOTERS, t(2, "22:00"), day=3, players=("饺子", "Alice"))],
          {3: [("饺子", "v", "包子", "10:00"), ("汤圆", "v", "月饼", "10:10"), ("月饼", "v", "月饼", "10:20")]},
          {3: {"reasons": ["valid", "voter_not_allowed", "voter_not_allowed"], "out": "包子",
               "non_voters": ["Alice"]}}),
    Story("the scapegoat's identity died: the next tie goes to who first reached the top",
          "若最高票平票且当前没有人第一身份为替罪羊，则最先达到高票的人第一身份死亡。",
          [ev("identity_lost", 2, DEADLINE, "烧卖", "vote")],
          {2: [("饺子", "v", "包子", "10:00"), ("汤圆", "v", "月饼", "10:10")],
           3: [("饺子", "v", "包子", "10:00"), ("汤圆", "v", "月饼", "10:10")]},
          {2: {"out": "烧卖"}, 3: {"out": "包子", "rule": "tie_first_reached", "effect": "identity_lost"}},
          scapegoat="烧卖"),
    Story("the sheriff's first identity died: no double vote, the badge waits for a successor",
          "【殉职】<锁定技>警长当前第一身份死亡后，须选择一名未出局的角色来继任警长，不能选择自己的第二身份继任警长。",
          [ev("identity_lost", 3, START, "饺子", "night")],
          {3: [("饺子", "v", "包子", "10:00"), ("汤圆", "v", "月饼", "10:10")]},
          {3: {"reasons": ["valid", "valid"], "weights": [1, 1], "sheriff_at_deadline": None,
               "tie": ["包子", "月饼"], "out": "包子"}},
          sheriff="饺子"),
]


def _ids(stories: list[Story]) -> list[str]:
    return [s.name for s in stories]


@pytest.mark.parametrize("story", S10, ids=_ids(S10))
def test_days_s10__seed_table(story):
    check(story, "s10")


@pytest.mark.parametrize("story", S09, ids=_ids(S09))
def test_days_s09__seed_table(story):
    check(story, "s09")


@pytest.mark.parametrize("story", SIMPLE14, ids=_ids(SIMPLE14))
def test_days_simple14__seed_table(story):
    check(story, "simple14")


@pytest.mark.parametrize("story", DUAL, ids=_ids(DUAL))
def test_days_dual__seed_table(story):
    check(story, "dual")


@pytest.mark.parametrize("stories", [S10, S09, SIMPLE14, DUAL], ids=["s10", "s09", "simple14", "dual"])
def test_days_tables__quote_real_seed_text(stories):
    from tests.support import SHARED

    seeds = SHARED / "seeds"
    if not seeds.is_dir():
        pytest.skip("../shared/seeds not found")
    corpus = "".join(p.read_text(encoding="utf-8") for p in seeds.glob("*.txt"))
    for story in stories:
        assert story.seed in corpus, f"{story.name}: {story.seed!r} not in the seeds"


# ------------------------------------------------------------------ the badge across days


def test_badge__successors_by_rule_set():
    """S10 excludes a revealed idiot; 双身份 excludes the sheriff's own second identity; every
    rule set: a living player."""
    base = GameState(players=SEATS, days=DAYS).set_sheriff("饺子").with_events(
        [ev("idiot", 2, DEADLINE, "烧卖"), ev("out", 3, START, "饺子", "night")])
    with pytest.raises(StateError, match="若愚"):
        check_successor(base, PRESETS["s10"], "烧卖", t(3, "10:00"))
    check_successor(base, PRESETS["s09"], "烧卖", t(3, "10:00"))
    with pytest.raises(StateError, match="已出局"):
        check_successor(base, PRESETS["s09"], "饺子", t(3, "10:00"))
    dual = GameState(players=SEATS, days=DAYS, identities=2).set_sheriff("饺子").with_events(
        [ev("identity_lost", 3, START, "饺子", "night")])
    with pytest.raises(StateError, match="第二身份"):
        check_successor(dual, PRESETS["dual"], "饺子", t(3, "10:00"))


@pytest.mark.parametrize("ruleset, why, succession, draw_from", [
    ("simple14", "vote", Succession.SUCCESSOR, t(2, "22:00")),  # 关门三十分钟后仍未…随机移交
    ("simple14", "card", Succession.DRAW, t(2, "20:00")),       # 红牌罚下的警长警徽随机移交
    ("simple14", "night", Succession.SUCCESSOR, None),
    ("s10", "card", Succession.SUCCESSOR, None),                # 【殉职】 after any out
    ("dual", "card", Succession.VACANT, None),                  # 罚下…不触发相应出局技能
])
def test_badge__how_the_successor_is_found(ruleset, why, succession, draw_from):
    when = {"vote": DEADLINE, "card": "20:00", "night": START}[why]
    state = GameState(players=SEATS, days=DAYS, identities=PRESETS[ruleset].identities).set_sheriff("饺子")
    state = state.with_events([ev("out", 2, when, "饺子", why)])
    status = badge_status(state, PRESETS[ruleset], t(2, "23:00"))
    assert (status.succession, status.draw_from, status.vacancy.previous) == (succession, draw_from, "饺子")
    assert "饺子" not in status.candidates
