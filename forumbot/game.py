"""The game as of now: the config's starting state plus every event in the store, and the
posts of a day as the engine's ``Ballot`` records.

This is the seam between the store (what was seen and decided) and the pure engine
(what it means): everything here is a function of stored data, so re-running it after a
restart, an alias or a correction gives the same answer the director would get by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from datetime import datetime
from typing import Any, Iterable

from engine.ballots import Ballot
from engine.report import tally_json
from engine.tally import TallyResult, tally_day
from engine.state import DayWindow, GameState, StateError
from forumbot.config import GameConfig
from forumbot.store import Store
from forumbot.store.records import Event, EventKind
from parsers.models import Post
from parsers.votes import parse_vote


def apply_event(state: GameState, event: Event) -> GameState:
    """One stored event applied to the engine state (events are replayed in order)."""
    p = event.payload
    at = _when(p.get("at")) or event.at
    kind = EventKind(event.kind)
    if kind is EventKind.OUT:
        if state.out_record(p["player"]) is not None:
            return state  # already out (e.g. a red card recorded twice): nothing to change
        return state.put_out(p["player"], at, p.get("why", ""))
    if kind is EventKind.SHERIFF:
        return state.set_sheriff(p.get("player"), at, p.get("why", ""))
    if kind is EventKind.SUBSTITUTE:
        return state.substitute(p["old"], p["new"], at, p.get("why", ""))
    if kind is EventKind.ALIAS:
        return state.alias(p["name"], p["player"], p.get("why", ""))
    if kind is EventKind.IDIOT:
        return state.reveal_idiot(p["player"], at)
    if kind is EventKind.ACCELERATE:
        window = state.day(event.day)
        return state.add_day(replace(window, accelerated=bool(p.get("accelerated", True))))
    if kind is EventKind.VOID:
        return state.void_post(int(p["pid"]), p.get("why", ""))
    if kind is EventKind.NIGHT:
        for player in p.get("out", []):
            if state.out_record(player) is None:
                state = state.put_out(player, at, "夜晚出局 (night)")
        return state
    raise StateError(f"unknown event kind {event.kind!r}")


# Events that take effect at a moment of the game (someone goes out, becomes sheriff,
# reveals as the idiot) versus corrections that hold for the whole game (an alias, a
# substitute, a confirmed acceleration): a day is tallied with the first kind only as far
# as they happened before its deadline — the sheriff elected at the end of day 1 does not
# weigh on day 1's own votes — and with every correction.
TIMED = {EventKind.OUT, EventKind.SHERIFF, EventKind.NIGHT, EventKind.IDIOT}


def current_state(config: GameConfig, store: Store, *, as_of: datetime | None = None) -> GameState:
    """The game state from the config plus the stored events (up to ``as_of`` for the
    timed ones, when given)."""
    state = config.state
    for event in store.events():
        if as_of is not None and EventKind(event.kind) in TIMED and effective_at(event) >= as_of:
            continue
        state = apply_event(state, event)
    return state


def state_for_day(config: GameConfig, store: Store, day: int) -> GameState:
    """The state a day is tallied with: timed events before its deadline, all corrections."""
    deadline = config.state.day(day).deadline  # events never move a deadline
    return current_state(config, store, as_of=deadline)


def effective_at(event: Event) -> datetime:
    return _when(event.payload.get("at")) or event.at


def _when(value: object) -> datetime | None:
    if isinstance(value, str) and value:
        return datetime.fromisoformat(value)
    return None


def day_at(state: GameState, now: datetime) -> DayWindow | None:
    """The day being played at ``now``: the latest day that has started (its voting may
    be over: the night until the next day's start still belongs to it)."""
    started = [d for d in state.days if d.start <= now]
    return max(started, key=lambda d: d.start) if started else None


def thread_roles(state: GameState) -> dict[int, str]:
    roles: dict[int, str] = {}
    for day in state.days:
        for tid, role in day.threads().items():
            roles.setdefault(tid, role)
    return roles


def ballots_for(store: Store, tids: Iterable[tuple[int, str]]) -> list[Ballot]:
    """Every stored post of the given threads as a Ballot, first-seen text standing."""
    ballots: list[Ballot] = []
    for tid, role in tids:
        for first, latest in store.thread_versions(tid):
            ballots.append(_ballot(first, latest, role))
    return ballots


# The agent re-reads every post of the active days each pass: parsing the same text again
# was most of a pass's CPU (bench/game.py). parse_vote is pure, its records frozen.
_declaration = lru_cache(maxsize=16384)(parse_vote)


def _ballot(first: Post, latest: Post, role: str) -> Ballot:
    declaration = _declaration(latest.text)
    if _same_content(first, latest):
        return Ballot(post=latest, declaration=declaration, thread=role)
    return Ballot(
        post=latest,
        declaration=declaration,
        first_seen=first,
        first_declaration=_declaration(first.text),
        thread=role,
    )


def _same_content(a: Post, b: Post) -> bool:
    return a.text == b.text and a.edited_at == b.edited_at


def day_ballots(store: Store, state: GameState, day: DayWindow) -> list[Ballot]:
    return ballots_for(store, day.threads().items())


@dataclass(frozen=True)
class DayCount:
    """One day counted from the stored posts: the state it was counted with, the ballots,
    the engine's result and its SPEC §7 JSON."""

    state: GameState
    ballots: list[Ballot]
    result: TallyResult
    data: dict[str, Any]


def count_day(config: GameConfig, store: Store, number: int) -> DayCount:
    state = state_for_day(config, store, number)
    ballots = day_ballots(store, state, state.day(number))
    result = tally_day(ballots, state, number, config.rules)
    return DayCount(state, ballots, result, tally_json(result, state, number, config.rules))
