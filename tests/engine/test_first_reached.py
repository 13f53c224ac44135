"""「最先达到」 (SPEC §3.7): who of the tied candidates first reached the top count.

A candidate's reach is the start of its last stretch at or above its final count, lasting
to the deadline. Dropping down to the final count is not reaching it, and one vote
raises one candidate only, so the seat order of ``players`` never decides. Every row
runs with the seats in the config's order and reversed: the winner must not move.

It decides the day-1 election in every rule set (最先获得投票数最多的角色当选警长) and 双身份's
tie from day 2 when no living scapegoat stands in (最先达到高票的人第一身份死亡).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.rules import PRESETS
from engine.tally import tally_day
from tests.engine.builders import DAY1, DAY2, Thread, at, change, game, vote
from tests.engine.test_properties import SETTINGS

SEATS = ("饺子", "包子", "汤圆", "月饼", "小笼包", "烧卖", "Alice", "bob_2")
# Who votes: the candidates below are 饺子 / 月饼 / 烧卖; the voters are everyone.
A, B, C = "饺子", "月饼", "烧卖"


@dataclass(frozen=True)
class Row:
    name: str
    posts: tuple[tuple, ...]  # (author, "v"|"c", target[, quoted post index[, time]])
    winner: str  # who first reached the top count
    why: str  # the reach, in words
    counts: dict[str, int]
    sheriff: str | None = None  # a sheriff from before day 1 weighs 2 (双身份 day 2 only)
    election: bool = True  # also run as the day-1 election (no sheriff then)


S = at(30, 10, 0, 0)  # one second for the same-second rows

ROWS = [
    Row("leader 5 drops to 4 by a change to the other: the leader reached 4 first",
        (("包子", "v", A), ("汤圆", "v", A), ("小笼包", "v", A), ("Alice", "v", A),  # 3: A 4
         ("bob_2", "v", A),  # 4: A 5
         ("饺子", "v", B), ("月饼", "v", B), ("烧卖", "v", B),  # 7: B 3
         ("bob_2", "c", B, 4)),  # 8: A 4, B 4 — B reaches 4 here; A has held 4 since 3
        A, "饺子 reached 4 at post 3 and never went below; 月饼 only at the change", {A: 4, B: 4}),
    Row("the same, the other way round: the candidate later in seat order leads",
        (("包子", "v", B), ("汤圆", "v", B), ("小笼包", "v", B), ("Alice", "v", B),
         ("bob_2", "v", B),
         ("饺子", "v", A), ("月饼", "v", A), ("烧卖", "v", A),
         ("bob_2", "c", A, 4)),
        B, "月饼 held 4 from post 3; 饺子 reached 4 only at the change", {A: 4, B: 4}),
    Row("both rising alternately: the first to get there",
        (("包子", "v", B), ("汤圆", "v", A), ("小笼包", "v", B), ("Alice", "v", A)),
        B, "月饼 reached 2 at post 2, 饺子 at post 3", {A: 2, B: 2}),
    Row("the leader dips below and comes back: the stretch starts again",
        (("包子", "v", A), ("汤圆", "v", A),  # 1: A 2
         ("小笼包", "v", B),  # B 1
         ("包子", "c", C, 0),  # 3: A 1
         ("Alice", "v", B),  # 4: B 2
         ("bob_2", "v", A)),  # 5: A 2 again
        B, "饺子 fell to 1 at post 3 and reached 2 again at post 5, after 月饼 (post 4)",
        {A: 2, B: 2, C: 1}),
    Row("a dip before the other arrives: the regained stretch is still first",
        (("包子", "v", A), ("汤圆", "v", A),
         ("包子", "c", C, 0),  # 2: A 1
         ("bob_2", "v", A),  # 3: A 2 again
         ("小笼包", "v", B), ("Alice", "v", B)),  # 5: B 2
        A, "饺子 regained 2 at post 3, before 月饼 reached it at post 5", {A: 2, B: 2, C: 1}),
    Row("a change away then back: who left and regained the count loses to who only dropped to it",
        (("包子", "v", A), ("汤圆", "v", A),  # 1: A 2
         ("小笼包", "v", B), ("Alice", "v", B),  # 3: B 2
         ("包子", "c", B, 0),  # 4: A 1, B 3
         ("bob_2", "v", A),  # 5: A 2 again
         ("Alice", "c", "弃权", 3)),  # 6: B 2 — a drop, not a reach
        B, "月饼 has held 2 since post 3; 饺子 fell to 1 and regained 2 at post 5", {A: 2, B: 2}),
    Row("the leader at 3 changes one voter to 弃权: it reached 2 long before",
        (("包子", "v", A), ("汤圆", "v", B), ("小笼包", "v", A),  # 2: A 2
         ("Alice", "v", B),  # 3: B 2
         ("bob_2", "v", A),  # 4: A 3
         ("bob_2", "c", "弃权", 4)),  # 5: A 2 — dropping to 2 is not reaching it
        A, "饺子 held 2 from post 2; 月饼 reached 2 at post 3", {A: 2, B: 2}),
    Row("an abstention changed to a candidate raises it like a vote",
        (("包子", "v", A), ("汤圆", "v", "弃权"),
         ("小笼包", "v", B),
         ("汤圆", "c", B, 1),  # 3: B 2
         ("Alice", "v", A)),  # 4: A 2
        B, "月饼 reached 2 with 汤圆's change from 弃权 (post 3), 饺子 at post 4", {A: 2, B: 2}),
    Row("the sheriff's weight 2 jumps a candidate to the top in one post",
        (("包子", "v", A), ("汤圆", "v", A),  # 1: A 2
         ("小笼包", "v", B),  # B 1
         ("bob_2", "v", B),  # 3: B 3 (sheriff ×2)
         ("Alice", "v", A)),  # 4: A 3
        B, "月饼 jumped from 1 to 3 at post 3; 饺子 reached 3 at post 4", {A: 3, B: 3},
        sheriff="bob_2", election=False),
    Row("the sheriff changes away from the leader, making a three-way tie",
        (("bob_2", "v", A),  # 0: A 2 (sheriff ×2)
         ("小笼包", "v", A), ("Alice", "v", A),  # 2: A 4
         ("包子", "v", B), ("汤圆", "v", B),  # 4: B 2
         ("bob_2", "c", C, 0)),  # 5: A 2, C 2 — C jumps from 0 to 2; A drops to 2
        A, "饺子 has held 2 since the sheriff's vote (post 0); 月饼 reached 2 at post 4, 烧卖 at the change",
        {A: 2, B: 2, C: 2}, sheriff="bob_2", election=False),
    Row("three-way tie: reach order, not seat order",
        (("包子", "v", C), ("汤圆", "v", B), ("小笼包", "v", A),
         ("Alice", "v", B),  # 3: B 2
         ("bob_2", "v", C),  # 4: C 2
         ("饺子", "v", A)),  # 5: A 2
        B, "月饼 2 at post 3, 烧卖 at post 4, 饺子 at post 5", {A: 2, B: 2, C: 2}),
    Row("three-way tie made by the leader's drop: the leader held it from the start",
        (("包子", "v", C), ("汤圆", "v", C),  # 1: C 2
         ("小笼包", "v", C),  # 2: C 3
         ("Alice", "v", B), ("bob_2", "v", B),  # 4: B 2
         ("饺子", "v", A),  # A 1
         ("小笼包", "c", A, 2)),  # 6: C 2, A 2
        C, "烧卖 held 2 from post 1; 月饼 reached 2 at post 4, 饺子 at the change", {A: 2, B: 2, C: 2}),
    Row("the same second: floor order decides who was first",
        (("包子", "v", B, None, S), ("汤圆", "v", A, None, S)),
        B, "both posted in the same second; 月饼's post is the lower floor", {A: 1, B: 1}),
    Row("the same second, the other floor order",
        (("包子", "v", A, None, S), ("汤圆", "v", B, None, S)),
        A, "both posted in the same second; 饺子's post is the lower floor", {A: 1, B: 1}),
]


def _tally(row: Row, seats: tuple[str, ...], ruleset: str, day: int):
    state = game(players=seats, days=(DAY1, DAY2), sheriff=row.sheriff)
    window = state.day(day)
    thread = Thread(tid=window.vote_thread, start=window.start.replace(hour=10, minute=0))
    made = []
    for author, kind, target, *rest in row.posts:
        quoted = rest[0] if rest else None
        when: datetime | None = rest[1] if len(rest) > 1 else None
        if when is not None:
            when = when.replace(day=window.deadline.day)
        quotes = () if quoted is None else (made[quoted].pid,)
        made.append(thread.post(author, vote(target) if kind == "v" else change(target), quotes=quotes, when=when))
    return tally_day(thread.ballots, state, day, PRESETS[ruleset])


SEAT_ORDERS = {"seats as listed": SEATS, "seats reversed": tuple(reversed(SEATS))}


@pytest.mark.parametrize("order", SEAT_ORDERS, ids=list(SEAT_ORDERS))
@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_first_reached__dual_tie_loses_a_life(row: Row, order: str):
    """双身份 003_…: 若最高票平票且当前没有人第一身份为替罪羊，则最先达到高票的人第一身份死亡。"""
    result = _tally(row, SEAT_ORDERS[order], "dual", 2)
    assert result.counts == row.counts
    assert result.result.out == row.winner, row.why
    tied = [p for p, n in row.counts.items() if n == max(row.counts.values())]
    assert result.result.rule == ("tie_first_reached" if len(tied) > 1 else "most_votes")


ELECTION = [r for r in ROWS if r.election]


@pytest.mark.parametrize("order", SEAT_ORDERS, ids=list(SEAT_ORDERS))
@pytest.mark.parametrize("ruleset", sorted(PRESETS))
@pytest.mark.parametrize("row", ELECTION, ids=[r.name for r in ELECTION])
def test_first_reached__day1_election(row: Row, ruleset: str, order: str):
    """14人简易 002_…: 在游戏的第一天投票结束后，最先获得投票数最多的角色当选警长 (every rule set, day 1)."""
    result = _tally(row, SEAT_ORDERS[order], ruleset, 1)
    assert result.result.sheriff == row.winner, row.why


def test_first_reached__leader_dropping_to_the_tie_keeps_its_reach():
    """The finding of issue 18: 5 → 4 by a change to the other candidate, 4 : 4. The
    leader's reach is the post that first gave it 4, not the change."""
    result = _tally(ROWS[0], SEATS, "dual", 2)
    assert result.reached == {A: 3, B: 8}
    assert result.result.detail == "饺子 最先达到4票（5楼 Alice 投票起一直保持）；月饼 于10楼 bob_2 改票时才达到"


def test_first_reached__timeline_marks_each_reach_once():
    """No two candidates share a reach: one vote raises one candidate only."""
    for row in ROWS:
        result = _tally(row, SEATS, "dual", 2)
        assert len(set(result.reached.values())) == len(result.reached), row.name
        for player, index in result.reached.items():
            event = result.timeline[index]
            assert event.after == player, (row.name, player)  # a reach is a rise for that player
            assert all(e.counts.get(player, 0) >= result.counts[player] for e in result.timeline[index:])


# Valid days, tie-prone: each of the eight seats may vote once for one of three
# candidates or 弃权, and change once (quoting its vote), in any order; a random sheriff.
CANDIDATES = (A, B, C, "弃权")
valid_day_st = st.tuples(
    st.lists(st.tuples(st.sampled_from(SEATS), st.sampled_from(CANDIDATES), st.sampled_from(CANDIDATES),
                       st.booleans()), max_size=12, unique_by=lambda v: v[0]),
    st.randoms(use_true_random=False),
    st.one_of(st.none(), st.sampled_from(SEATS)),
)


def _valid_posts(day) -> tuple[list[tuple], str | None]:
    """(author, kind, target[, quoted index]) posts: the votes in a shuffled order, each
    change somewhere after its own vote, quoting it."""
    votes, rng, sheriff = day
    order: list[tuple[str, str, str]] = [(voter, "v", target) for voter, target, _, _ in votes]
    rng.shuffle(order)
    for voter, _, new, changes in votes:
        if changes:
            after = order.index(next(p for p in order if p[:2] == (voter, "v")))
            order.insert(rng.randint(after + 1, len(order)), (voter, "c", new))
    posts: list[tuple] = []
    for voter, kind, target in order:
        if kind == "v":
            posts.append((voter, kind, target))
        else:
            posts.append((voter, kind, target, next(i for i, p in enumerate(posts) if p[:2] == (voter, "v"))))
    return posts, sheriff


@SETTINGS
@given(valid_day_st, st.randoms(use_true_random=False), st.sampled_from(["dual", "simple14"]))
def test_tally__seat_order_never_decides(day, rng: random.Random, ruleset: str):
    """Shuffling ``players`` changes no count, no reach and no result (SPEC §3.7), as a
    day-1 election and on day 2."""
    posts, sheriff = _valid_posts(day)
    seats = list(SEATS)
    rng.shuffle(seats)
    for number in (1, 2):
        row = Row("generated", tuple(posts), "", "", {}, sheriff=sheriff if number == 2 else None)
        a, b = _tally(row, SEATS, ruleset, number), _tally(row, tuple(seats), ruleset, number)
        assert all(r.valid for r in a.rulings)
        assert a.counts == b.counts and a.reached == b.reached
        assert (a.result.out, a.result.sheriff, set(a.result.tie), a.result.rule) == \
               (b.result.out, b.result.sheriff, set(b.result.tie), b.result.rule)
