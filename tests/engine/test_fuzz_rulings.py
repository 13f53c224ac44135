"""End-to-end fuzzing of the rulings: generated vote threads go onto the simulated forum,
are read back from the page bytes and ruled on by ``tally_day`` with a generated game
state (sheriff, players out, accelerated day, any preset). Every declaration gets exactly
one ruling with a reason code; quoted votes and fake quote headers never make anyone but
the poster a voter; a living player's first well-formed vote for a living player counts.

Strategies: ``tests/fuzzing.py``. Budget: ``FORUMBOT_FUZZ_EXAMPLES`` (``make fuzz``).
"""

from __future__ import annotations

from hypothesis import event, given
from hypothesis import strategies as st

from engine.reasons import Reason
from engine.rules import PRESETS
from parsers.models import ABSTAIN
from tests.fuzzing import (
    DIRECTOR,
    OUTSIDER,
    ROSTER,
    Written,
    ballots_from,
    fuzz_settings,
    post_on_forum,
    read_all,
    state,
    tally,
    threads,
)

FORMAT = {Reason.NO_TARGET, Reason.TWO_TARGETS, Reason.MIXED_KINDS, Reason.BAD_FORMAT, Reason.NO_REASON}
EARLIER = {Reason.VOTER_NOT_PLAYER, Reason.VOTER_OUT, Reason.BEFORE_START, Reason.LATE}

game_states = st.fixed_dictionaries({
    "sheriff": st.one_of(st.none(), st.sampled_from(ROSTER)),
    "out": st.lists(st.sampled_from(ROSTER), max_size=3, unique=True).map(tuple),
    "accelerated": st.booleans(),
})


@fuzz_settings("rulings")
@given(threads(), st.booleans(), game_states, st.sampled_from(sorted(PRESETS)))
def test_fuzz_rulings__every_declaration_gets_one_ruling_with_a_reason(
    written: list[Written], api: bool, params: dict, ruleset: str
) -> None:
    served = post_on_forum(written, api=api)
    ballots = ballots_from(read_all(served))
    game = state(**params)
    result = tally(ballots, game, ruleset)
    by_pid = {b.pid: b for b in ballots}
    declared = {b.pid for b in ballots if b.declaration is not None}
    ruled = [r.pid for r in result.rulings]
    assert sorted(ruled) == sorted(declared), "a declaration without a ruling, or a ruling without one"

    intent = dict(zip(served.pids, written))
    first_declaration: dict[str, int] = {}
    for b in sorted(ballots, key=lambda b: b.order_key()):
        if b.declaration is not None and b.post.author is not None:
            first_declaration.setdefault(b.post.author, b.pid)

    for r in result.rulings:
        assert isinstance(r.reason, Reason)
        assert r.valid == (r.reason is Reason.VALID), r
        ballot = by_pid[r.pid]
        # the voter is whoever posted — never a name from a quote or a fake quote header
        assert r.account == ballot.post.author
        if r.valid:
            assert r.seat in ROSTER and r.seat not in params["out"], r
            assert r.target in (*ROSTER, ABSTAIN), r
        if ballot.post.author in (DIRECTOR, OUTSIDER):
            assert r.reason is Reason.VOTER_NOT_PLAYER, r
        if ballot.declaration is not None and ballot.declaration.problem is not None:
            assert not r.valid and (r.reason in FORMAT or r.reason in EARLIER), r
        w = intent.get(r.pid)
        if (w is not None and w.intent == "vote" and w.author in ROSTER
                and w.author not in params["out"] and w.target not in params["out"]
                and first_declaration.get(w.author) == r.pid):
            event("a living player's first vote, for a living player")
            assert r.valid, (w.message, r)
            assert r.target == w.target, (w.message, r)

    for pid, w in intent.items():
        if w.intent == "quoted_only":
            assert pid not in ruled  # a vote inside a quote is nobody's declaration

    # the weighted counts add up to the valid standing votes
    standing = [r for r in result.rulings if r.valid and r.final and r.target != ABSTAIN]
    assert sum(result.counts.values()) == sum(r.weight for r in standing)
