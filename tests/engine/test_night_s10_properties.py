"""S10 and S09 nights from stored actions (hypothesis), as for the other rule sets: the
order the actions arrived in does not matter, and rebuilding the game from the stored
actions and the confirmed events (a restart) gives the same proposal as carrying on."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.night import Action, NightContext, read_skill, resolve
from tests.engine.night_builders import S10_PLAYERS, day_start, deadline, m, night0, s10_chronicle

NIGHT_SKILLS = ("杀人", "撕咬", "预言", "解药", "毒药", "守护", "隔音", "吹笛", "流弹", "放弃")
ZERO_SKILLS = ("金箭", "归群", "托孤", "放弃", "杀人")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# The players who act, and a few targets (a smaller cast keeps the examples meaningful).
ACTORS = ("饺子", "包子", "月饼", "粽子", "小笼包", "烧卖", "春卷", "馄饨", "油条", "豆浆", "麻花", "年糕")
TARGETS = (*ACTORS, "元宵", "路人")


@st.composite
def s10_games(draw):
    zero = draw(st.lists(st.tuples(
        st.sampled_from(("麻花", "月饼", "饺子", "包子", "年糕")), st.sampled_from(ZERO_SKILLS),
        st.lists(st.sampled_from(TARGETS), max_size=2), st.integers(min_value=0, max_value=600),
    ), max_size=4))
    raw = draw(st.lists(st.tuples(
        st.sampled_from((1, 2)), st.sampled_from(ACTORS), st.sampled_from(NIGHT_SKILLS),
        st.one_of(st.none(), st.sampled_from(TARGETS)), st.integers(min_value=-5, max_value=80),
    ), max_size=16))
    actions = [Action(0, actor, read_skill(skill), tuple(targets), night0(minutes), seq=k)
               for k, (actor, skill, targets, minutes) in enumerate(zero)]
    actions += [Action(night, actor, read_skill(skill), () if target is None else (target,), m(night, minutes),
                       seq=100 + k) for k, (night, actor, skill, target, minutes) in enumerate(raw)]
    order = draw(st.permutations(range(len(actions))))
    version = draw(st.sampled_from(("A6D", "A6E", "E44-A6D")))
    return version, actions, [actions[i] for i in order]


@SETTINGS
@given(s10_games(), st.one_of(st.none(), st.integers(min_value=0, max_value=80)))
def test_s10_resolve__arrival_order_does_not_matter(game, minutes):
    version, actions, shuffled = game
    now = None if minutes is None else m(1, minutes)
    one = s10_chronicle(actions, version=version)
    two = s10_chronicle(shuffled, version=version)
    for night in (0, 1, 2):
        assert one.resolve(night, now).to_json() == two.resolve(night, now).to_json()
        assert one.judge(night, now).feedback == two.judge(night, now).feedback


@SETTINGS
@given(s10_games())
def test_s10_resolve__restart_gives_the_same_proposal(game):
    version, actions, shuffled = game
    first = s10_chronicle(actions, version=version)
    mode = first.mode
    night1 = first.resolve(1)
    carried = resolve(NightContext(mode, 2, mode.plan(2, deadline(2)), night1.after), actions)
    events = night1.events(day_start(2))
    restarted = s10_chronicle(shuffled, events, version=version).resolve(2)
    assert restarted.warnings == ()
    assert restarted.to_json() == carried.to_json()
    assert restarted.after == carried.after


def test_s10_properties__the_cast_is_the_table():
    assert set(ACTORS) <= set(S10_PLAYERS)


# --- S09 -------------------------------------------------------------------------------------

S09_ACTORS = ("饺子", "包子", "小笼包", "烧卖", "油条", "麻花", "粽子", "春卷", "年糕")
S09_NIGHT = ("杀人", "预言", "解药", "毒药", "流弹", "偷看", "放弃")


@st.composite
def s09_games(draw):
    zero = draw(st.lists(st.tuples(
        st.sampled_from(("麻花", "春卷", "饺子")), st.sampled_from(("金箭", "偷换", "放弃")),
        st.lists(st.sampled_from(("狼人", "村民", "年糕", "元宵", "麻花")), max_size=2),
        st.integers(min_value=0, max_value=600)), max_size=3))
    raw = draw(st.lists(st.tuples(
        st.sampled_from((1, 2)), st.sampled_from(S09_ACTORS), st.sampled_from(S09_NIGHT),
        st.one_of(st.none(), st.sampled_from((*S09_ACTORS, "元宵", "路人"))),
        st.integers(min_value=-5, max_value=65), st.booleans(),
    ), max_size=14))
    actions = [Action(0, actor, read_skill(skill), tuple(targets), night0(minutes), seq=k)
               for k, (actor, skill, targets, minutes) in enumerate(zero)]
    actions += [Action(night, actor, read_skill(skill), () if target is None or skill == "偷看" else (target,),
                       m(night, minutes), seq=100 + k, by_director=director)
                for k, (night, actor, skill, target, minutes, director) in enumerate(raw)]
    order = draw(st.permutations(range(len(actions))))
    return actions, [actions[i] for i in order]


@SETTINGS
@given(s09_games(), st.one_of(st.none(), st.integers(min_value=0, max_value=65)))
def test_s09_resolve__arrival_order_does_not_matter(game, minutes):
    from tests.engine.night_builders import s09_chronicle

    actions, shuffled = game
    now = None if minutes is None else m(1, minutes)
    one, two = s09_chronicle(actions), s09_chronicle(shuffled)
    for night in (0, 1, 2):
        assert one.resolve(night, now).to_json() == two.resolve(night, now).to_json()
        assert one.judge(night, now).feedback == two.judge(night, now).feedback


@SETTINGS
@given(s09_games())
def test_s09_resolve__restart_gives_the_same_proposal(game):
    from tests.engine.night_builders import s09_chronicle

    actions, shuffled = game
    first = s09_chronicle(actions)
    mode = first.mode
    night1 = first.resolve(1)
    carried = resolve(NightContext(mode, 2, mode.plan(2, deadline(2)), night1.after), actions)
    restarted = s09_chronicle(shuffled, night1.events(day_start(2))).resolve(2)
    assert restarted.warnings == ()
    assert restarted.to_json() == carried.to_json()
    assert restarted.after == carried.after
