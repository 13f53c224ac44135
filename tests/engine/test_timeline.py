"""The game at any moment as a function of its events (SPEC §9), whatever order they were
entered in; events without effect are kept with the reason, never an error on replay."""

from __future__ import annotations



import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.events import GameEvent, OutWhy, parse_why
from engine.state import GameState, StateError
from tests.engine.test_seed_days import DAYS, SEATS, ev, t


def game(*events: GameEvent, identities: int = 1) -> GameState:
    return GameState(players=SEATS, days=DAYS, identities=identities).with_events(list(events))


def test_timeline__out_from_its_moment_on():
    state = game(ev("out", 2, "15:00", "汤圆", "hunter"))
    assert not state.is_out("汤圆", t(2, "14:59")) and state.is_out("汤圆", t(2, "15:00"))
    assert "汤圆" in state.living(t(2, "15:00"), before=True)


def test_timeline__a_daytime_out_at_the_deadline_comes_before_the_vote_out():
    """白天红牌罚下在被投票出局之前: at the same moment, the red card is applied first and the
    vote-out of the same player has no effect."""
    state = game(ev("out", 2, "21:30", "月饼", "vote"), ev("out", 2, "21:30", "月饼", "card"))
    assert state.out_record("月饼").why == "card"
    (ignored,) = state.ignored
    assert ignored.event.why is OutWhy.VOTE and "已于" in ignored.note


def test_timeline__idiot_cancels_only_the_vote_out_at_its_moment():
    state = game(ev("out", 2, "21:30", "烧卖", "vote"), ev("idiot", 2, "21:30", "烧卖"))
    assert not state.is_out("烧卖") and state.idiots_revealed == {"烧卖"}
    assert state.ignored == []  # cancelled by the rules, not a mistake
    (cancelled,) = [s for s in state.timeline.steps if s.cancelled]
    assert "若愚" in cancelled.note
    later = game(ev("out", 2, "21:30", "烧卖", "vote"), ev("idiot", 2, "21:40", "烧卖"))
    assert later.is_out("烧卖") and "已出局" in later.ignored[0].note  # too late to reveal
    night = game(ev("out", 3, "09:00", "烧卖", "night"), ev("idiot", 3, "09:00", "烧卖"))
    assert night.is_out("烧卖")  # 若愚 saves from the vote only


def test_timeline__a_successor_at_the_moment_the_sheriff_left_comes_after_the_leaving():
    state = GameState(players=SEATS, days=DAYS).set_sheriff("饺子").with_events(
        [ev("sheriff", 2, "21:30", "包子"), ev("out", 2, "21:30", "饺子", "vote")])
    assert state.sheriff == "包子" and state.vacancy is None
    assert state.sheriff_at(t(2, "21:30"), before=True) == "饺子"


def test_timeline__dual_lives_and_the_vacant_badge():
    state = GameState(players=SEATS, days=DAYS, identities=2).set_sheriff("饺子").set_scapegoat("饺子")
    state = state.with_events([ev("identity_lost", 2, "21:30", "饺子", "vote")])
    assert (state.lives("饺子"), state.is_out("饺子"), state.sheriff, state.scapegoat) == (1, False, None, None)
    assert state.vacancy.cause == "identity_lost"
    state = state.with_events([ev("identity_lost", 3, "09:00", "饺子", "night")])
    assert (state.lives("饺子"), state.is_out("饺子", t(3, "09:00"))) == (0, True)
    assert [(d.player, d.kind, d.why) for d in state.departures()] == [
        ("饺子", "identity_lost", "vote"), ("饺子", "out", "night")]


def test_timeline__departures_between_two_mornings_in_effect_order():
    state = game(ev("out", 3, "09:00", "Alice", "night"), ev("out", 2, "21:30", "包子", "vote"),
                 ev("out", 2, "15:00", "汤圆", "hunter"), ev("out", 2, "09:00", "月饼", "night"))
    assert [d.player for d in state.departures(t(2, "09:00"), t(3, "09:00"))] == ["汤圆", "包子", "Alice"]


def test_timeline__replay_never_fails_but_builders_check():
    state = game(ev("out", 2, "10:00", "汤圆", "other"), ev("out", 2, "12:00", "汤圆", "other"),
                 ev("sheriff", 2, "13:00", "汤圆"))
    assert len(state.ignored) == 2
    with pytest.raises(StateError, match="已于"):
        game(ev("out", 2, "10:00", "汤圆", "other")).put_out("汤圆", t(2, "12:00"), "other")
    with pytest.raises(StateError, match="不能任警长"):
        game(ev("out", 2, "10:00", "汤圆", "other")).set_sheriff("汤圆", t(2, "12:00"))


@pytest.mark.parametrize("text, why", [
    ("vote", OutWhy.VOTE), ("夜晚出局", OutWhy.NIGHT), ("夜晚出局 (night)", OutWhy.NIGHT), ("red", OutWhy.CARD),
    ("红牌罚下 (sent off)", OutWhy.CARD), ("殉情", OutWhy.LOVER), ("猎人开枪", OutWhy.HUNTER), ("被雷劈", OutWhy.OTHER),
])
def test_parse_why__old_and_chinese_words(text, why):
    assert parse_why(text) is why


EVENTS = [
    ev("out", 2, "09:00", "汤圆", "night"), ev("out", 2, "15:00", "月饼", "hunter"),
    ev("out", 2, "15:00", "小笼包", "lover"), ev("out", 2, "21:30", "烧卖", "vote"), ev("idiot", 2, "21:30", "烧卖"),
    ev("out", 2, "21:30", "包子", "vote"), ev("sheriff", 2, "21:30", "Alice"), ev("out", 3, "09:00", "饺子", "night"),
]


@settings(max_examples=60, deadline=None)
@given(st.permutations(EVENTS))
def test_timeline__the_same_whatever_order_entered(order):
    """Entered in any order (each with its entry order as its tiebreak), the game at every
    moment is the same."""
    a = GameState(players=SEATS, days=DAYS).set_sheriff("饺子").with_events(
        [e.with_seq(i) for i, e in enumerate(EVENTS)])
    b = GameState(players=SEATS, days=DAYS).set_sheriff("饺子").with_events(
        [e.with_seq(i) for i, e in enumerate(order)])
    for moment in (t(2, "09:00"), t(2, "15:00"), t(2, "21:30"), t(3, "09:00"), None):
        ma, mb = a.moment(moment), b.moment(moment)
        assert (set(ma.out), ma.sheriff, ma.idiots, ma.vacancy) == (set(mb.out), mb.sheriff, mb.idiots, mb.vacancy)
