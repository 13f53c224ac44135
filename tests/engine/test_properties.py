"""Properties of a day's tally over generated posts (hypothesis)."""

from __future__ import annotations

import random
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.rules import PRESETS
from engine.rulings import weight_of
from engine.tally import tally_day
from tests.engine.builders import DAY2, PLAYERS, Thread, change, game, vote

TARGETS = (*PLAYERS, "弃权", "路人", "包")
AUTHORS = (*PLAYERS, "导演", "路人甲")

post_st = st.tuples(
    st.sampled_from(AUTHORS),
    st.sampled_from(("v", "c", "bare", "chat")),
    st.sampled_from(TARGETS),
    st.one_of(st.none(), st.integers(min_value=0, max_value=30)),  # which earlier post to quote
    st.integers(min_value=-30, max_value=24 * 60 + 60),  # minutes after 21:30 the day before
)
day_st = st.lists(post_st, max_size=25)
state_st = st.fixed_dictionaries({
    "sheriff": st.one_of(st.none(), st.sampled_from(PLAYERS)),
    "out": st.lists(st.sampled_from(PLAYERS), max_size=2, unique=True),
    "accelerated": st.booleans(),
    "ruleset": st.sampled_from(sorted(PRESETS)),
})

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(posts, start_pid: int = 100) -> list:
    thread = Thread(first_pid=start_pid)
    base = DAY2.deadline - timedelta(hours=24, minutes=30)
    made = []
    for author, kind, target, quoted, minutes in posts:
        text = {"v": vote(target), "c": change(target), "bare": f"投票对象：{target}", "chat": "我觉得今天要出狼"}[kind]
        quotes = (made[quoted].pid,) if quoted is not None and quoted < len(made) else ()
        made.append(thread.post(author, text, quotes=quotes, when=base + timedelta(minutes=minutes)))
    return thread.ballots


def setup(params):
    from dataclasses import replace

    from tests.engine.builders import DAY1

    state = game(sheriff=params["sheriff"], days=(DAY1, replace(DAY2, accelerated=params["accelerated"])))
    for player in params["out"]:
        state = state.put_out(player, None, "出局")
    return state, PRESETS[params["ruleset"]]


def outcome(result):
    return (result.counts, result.abstain, result.non_voters, result.result,
            [(r.pid, r.valid, r.target) for r in result.rulings if r.valid])


@SETTINGS
@given(day_st, state_st)
def test_tally__removing_void_posts_changes_nothing(posts, params):
    state, rules = setup(params)
    ballots = build(posts)
    full = tally_day(ballots, state, 2, rules)
    void = {r.pid for r in full.rulings if not r.valid}
    kept = [b for b in ballots if b.pid not in void]
    assert outcome(tally_day(kept, state, 2, rules)) == outcome(full)


@SETTINGS
@given(day_st, day_st, state_st)
def test_tally__result_does_not_depend_on_invalid_posts(posts, noise, params):
    """Posts by non-players, late posts and posts with no target add nothing."""
    state, rules = setup(params)
    ballots = build(posts)
    noisy = [(author if author not in PLAYERS else "路人甲", kind, target, None, minutes) for author, kind, target, _, minutes in noise]
    late = [(author, kind, target, None, 24 * 60 + 30 + i) for i, (author, kind, target, _, _) in enumerate(noise)]
    extra = build(noisy + late, start_pid=10_000)
    assert outcome(tally_day(ballots + extra, state, 2, rules)) == outcome(tally_day(ballots, state, 2, rules))


@SETTINGS
@given(day_st, state_st)
def test_tally__weighted_total_is_sum_of_valid_voters_weights(posts, params):
    state, rules = setup(params)
    result = tally_day(build(posts), state, 2, rules)
    assert result.total_weight == sum(weight_of(seat, state, rules) for seat in result.voters)


@SETTINGS
@given(day_st, state_st, st.randoms(use_true_random=False))
def test_tally__replaying_the_same_posts_gives_the_same_result(posts, params, rnd: random.Random):
    state, rules = setup(params)
    ballots = build(posts)
    once = tally_day(ballots, state, 2, rules)
    shuffled = ballots + ballots
    rnd.shuffle(shuffled)
    assert outcome(tally_day(shuffled, state, 2, rules)) == outcome(once)
    assert [r.reason for r in tally_day(shuffled, state, 2, rules).rulings] == [r.reason for r in once.rulings]
