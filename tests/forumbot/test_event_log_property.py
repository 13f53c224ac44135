"""Property (issue 11): re-tallying from the event log gives the same results as the live
run, whatever order the events were entered in.

A generated three-day game: votes each day, and events with game times (night deaths,
daytime outs, vote-outs, 若愚, lost identities, a scapegoat and 冤死's list, badge
successions, an acceleration), each typed by the director some time after it happened
but before the final count of the first day it changes. The live run counts each day at
its final-count time with the events entered by then; afterwards every day is counted
again from the whole log — and from a second store where the same events were entered
in another order, all at the end. The three agree.
"""

from __future__ import annotations

import random
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.game.gamelog import EventSpec
from tests.forumbot.game_support import PLAYERS, at, store_game

SAFE = ("饺子", "包子")  # never leave: successors and voters that always stay valid
MORTAL = ("汤圆", "月饼", "小笼包", "烧卖")
WHYS = ("hunter", "lover", "card", "other")


def _minute(day: int, minute: int) -> datetime:
    return at(day, "09:00") + timedelta(minutes=minute)


@st.composite
def games(draw):
    ruleset = draw(st.sampled_from(["s09", "s10", "simple14", "dual"]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    votes = []
    for day in (1, 2, 3):
        for who in PLAYERS:
            if rng.random() < 0.8:
                votes.append((day, rng.randrange(30, 700), who, rng.choice(PLAYERS)))
    events: list[tuple[EventSpec, datetime, int]] = []  # (spec, game time, first day it can change)
    mortals = list(MORTAL)
    rng.shuffle(mortals)
    for player in mortals[: draw(st.integers(0, 4))]:
        day = rng.choice((2, 3))
        kind = rng.choice(("night", "day", "vote"))
        if ruleset == "dual" and rng.random() < 0.5:
            # one identity, maybe both (the second one: out)
            first = _minute(day, rng.randrange(0, 700))
            events.append((EventSpec("identity_lost", player=player, why="other", at=first), first, day))
            if rng.random() < 0.5 and day == 2:
                second = _minute(3, rng.randrange(0, 700))
                events.append((EventSpec("identity_lost", player=player, why="other", at=second), second, 3))
            continue
        if kind == "night":
            when = at(day, "09:00")
            events.append((EventSpec("out", player=player, why="night", at=when), when, day))
        elif kind == "day":
            when = _minute(day, rng.randrange(0, 750))
            events.append((EventSpec("out", player=player, why=rng.choice(WHYS), at=when), when, day))
        else:
            when = at(day, "21:30")
            events.append((EventSpec("out", player=player, why="vote", at=when), when, day + 1))
            if ruleset == "s10" and rng.random() < 0.5:
                # 若愚 changes the day's own result line (免于出局): typed before its final count
                events.append((EventSpec("idiot", player=player, at=when), when, day))
    for day in (2, 3):
        if rng.random() < 0.4:
            when = _minute(day, rng.randrange(0, 760))
            events.append((EventSpec("sheriff", player=rng.choice(SAFE), at=when), when, day))
    if rng.random() < 0.3:
        day = rng.choice((2, 3))
        when = _minute(day, rng.randrange(0, 700))
        events.append((EventSpec("accelerated", day=day, at=when), when, day))
    if ruleset == "dual":
        if rng.random() < 0.5:
            events.append((EventSpec("scapegoat", player="烧卖" if "烧卖" not in mortals[:0] else "包子",
                                     at=at(1, "08:30")), at(1, "08:30"), 1))
        if rng.random() < 0.5:
            chosen = tuple(p for p in SAFE if rng.random() < 0.7)
            when = at(2, "22:00")
            events.append((EventSpec("voters", day=3, players=chosen, at=when), when, 3))
    # typed late: some time after it happened, before the first final count it changes
    typed = []
    for spec, when, day in events:
        final = at(min(day, 3), "21:40")
        latest = max(when, final - timedelta(minutes=1))
        if latest > final:
            latest = when  # happened at the deadline, counted at once: typed right away
        delay = rng.random() * (latest - when).total_seconds()
        typed.append((spec, when + timedelta(seconds=delay)))
    return ruleset, votes, typed, rng.random()


def _digest(tally: dict) -> dict:
    votes = [(v["pid"], v["valid"], v["reason"], v["counted"], v["weight"], v["target"]) for v in tally["votes"]]
    return {"votes": votes, "counts": tally["counts"], "result": tally["result"], "non_voters": tally["non_voters"],
            "sheriff": tally["sheriff_at_deadline"]}


def _setup(tmp: Path, name: str, ruleset: str, votes):
    (tmp / name).mkdir()
    g = store_game(tmp / name, ruleset, sheriff="饺子")
    for day, minute, who, target in sorted(votes, key=lambda v: (v[0], v[1])):
        g.post(10 + 2 * day, who, f"投票对象：{target}\n投票理由：理由", _minute(day, minute))
    return g


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_event_log__retally_equals_live_run_whatever_the_entry_order(game):
    ruleset, votes, typed, seed = game
    with tempfile.TemporaryDirectory() as tmp:
        live_game = _setup(Path(tmp), "live", ruleset, votes)
        later_game = _setup(Path(tmp), "later", ruleset, votes)
        try:
            # the live run: events entered as typed, each day counted at its final count
            timeline = [(when, 0, spec) for spec, when in typed]
            timeline += [(at(day, "21:40"), 1, day) for day in (1, 2, 3)]
            live = {}
            for when, what, item in sorted(timeline, key=lambda x: (x[0], x[1])):
                if what == 0:
                    live_game.enter(item, when)
                else:
                    live_game.at(when)
                    live[item] = _digest(live_game.tally(item))
            retally = {day: _digest(live_game.tally(day)) for day in (1, 2, 3)}
            assert retally == live
            # the same events, entered in another order, all after the game
            shuffled = [spec for spec, _ in typed]
            random.Random(seed).shuffle(shuffled)
            for spec in shuffled:
                later_game.enter(spec, at(3, "23:00"))
            other = {day: _digest(later_game.tally(day)) for day in (1, 2, 3)}
            assert other == live
        finally:
            live_game.close()
            later_game.close()
