"""Properties of resolving nights from stored actions (hypothesis): the order the actions
arrived in does not matter, and rebuilding the game from the stored actions and the
confirmed events (a restart) gives the same proposal as carrying on in memory."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.night import Action, NightContext, mode_for, read_skill, resolve
from tests.engine.night_builders import DUAL, DUAL_HUNTER, SIMPLE, chronicle, day_start, deadline, m

SKILLS = {
    "simple14": ("杀人", "预言", "救药", "毒药", "放弃"),
    "dual": ("杀人", "预言", "解药", "毒药", "守护", "最后一枪", "放弃"),
}
PLAYERS = {"simple14": SIMPLE, "dual": DUAL}
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw):
    ruleset = draw(st.sampled_from(("simple14", "dual")))
    players = PLAYERS[ruleset]
    horizon = 700 if ruleset == "simple14" else 70
    raw = draw(st.lists(st.tuples(
        st.sampled_from((1, 2)),
        st.sampled_from((*players, "路人")),
        st.sampled_from(SKILLS[ruleset]),
        st.one_of(st.none(), st.sampled_from((*players, "路人"))),
        st.integers(min_value=-5, max_value=horizon),
    ), max_size=18))
    actions = [Action(night, actor, read_skill(skill), () if target is None else (target,), m(night, minutes), seq=k)
               for k, (night, actor, skill, target, minutes) in enumerate(raw)]
    order = draw(st.permutations(range(len(actions))))
    table = draw(st.sampled_from((None, DUAL_HUNTER))) if ruleset == "dual" else None
    return ruleset, actions, [actions[i] for i in order], table


@SETTINGS
@given(games(), st.one_of(st.none(), st.integers(min_value=0, max_value=700)))
def test_resolve__arrival_order_does_not_matter(game, minutes):
    ruleset, actions, shuffled, table = game
    now = None if minutes is None else m(1, minutes)
    one = chronicle(ruleset, actions, table=table)
    two = chronicle(ruleset, shuffled, table=table)
    for night in (1, 2):
        assert one.resolve(night, now).to_json() == two.resolve(night, now).to_json()
        assert one.judge(night, now).feedback == two.judge(night, now).feedback


@SETTINGS
@given(games())
def test_resolve__restart_gives_the_same_proposal(game):
    ruleset, actions, shuffled, table = game
    mode = mode_for(ruleset)
    first = chronicle(ruleset, actions, table=table)
    night1 = first.resolve(1)
    # Carrying on in memory: night 2 from the position night 1 left.
    carried = resolve(NightContext(mode, 2, mode.plan(2, deadline(2)), night1.after), actions)
    # A restart: the confirmed night 1 as events, everything rebuilt from the store.
    events = night1.events(day_start(2))
    restarted = chronicle(ruleset, shuffled, events, table=table).resolve(2)
    assert restarted.warnings == ()
    assert restarted.to_json() == carried.to_json()
    assert restarted.after == carried.after
