"""The game: the config's starting state and ``[[events]]`` plus every stored event that
stands, in game time (SPEC §9), and the posts of a day as the engine's ``Ballot`` records.

This is the seam between the store (what was seen and decided) and the pure engine
(what it means): everything here is a function of stored data, so re-running it after a
restart, an alias or a correction gives the same answer the director would get by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
from datetime import datetime
from typing import Any, Iterable

from engine.ballots import Ballot
from engine.events import EventKind as GameKind
from engine.events import GameEvent, OutWhy, parse_why
from engine.report import tally_json
from engine.tally import TallyResult, tally_day
from engine.state import DayWindow, GameState, StateError
from forumbot.config.gamefile import GameConfig
from forumbot.store import Store
from forumbot.store.records import Event, EventKind
from forumbot.store.state import live_events
from parsers.models import Post
from parsers.votes import parse_vote


def engine_events(config: GameConfig, events: Iterable[Event], identities: int = 1) -> list[GameEvent]:
    """The stored events that stand, as the engine's events in game time. Rows written
    before game times were stored get §9's default for their kind and day."""
    out: list[GameEvent] = []
    standing = live_events(list(events))
    nights = {e.day: e.id for e in standing if e.kind is EventKind.NIGHT}  # the latest entry stands
    for event in standing:
        kind = event.kind
        p = event.payload
        at = event.game_at or _legacy_time(config, event)
        base = dict(ref=event.id, seq=(event.id,), note=str(p.get("note") or p.get("why_text") or ""))
        if kind in (EventKind.OUT, EventKind.IDENTITY_LOST):
            engine_kind = GameKind.OUT if kind is EventKind.OUT else GameKind.IDENTITY_LOST
            why = parse_why(p.get("why"))
            note = base.pop("note") or (p.get("why", "") if why is OutWhy.OTHER and p.get("why") not in
                                        (None, "", "other") else "")
            # cause (杀人, 毒药, 最后一枪…, SPEC §10.6): kept where the night's rules need it.
            out.append(GameEvent(engine_kind, at, p["player"], why, day=event.day, note=note,
                                 cause=str(p.get("cause") or ""), **base))
        elif kind is EventKind.NIGHT:
            if nights.get(event.day) != event.id:
                continue
            engine_kind = GameKind.IDENTITY_LOST if identities > 1 else GameKind.OUT
            for index, player in enumerate(p.get("out", [])):
                out.append(GameEvent(engine_kind, at, player, OutWhy.NIGHT, day=event.day,
                                     ref=event.id, seq=(event.id, index)))
        elif kind is EventKind.IDIOT:
            out.append(GameEvent(GameKind.IDIOT, at, p["player"], day=event.day, **base))
        elif kind is EventKind.SHERIFF:
            out.append(GameEvent(GameKind.SHERIFF, at, p.get("player"), day=event.day, **base))
        elif kind is EventKind.SCAPEGOAT:
            out.append(GameEvent(GameKind.SCAPEGOAT, at, p.get("player"), day=event.day, **base))
        elif kind is EventKind.ACCELERATE:
            if p.get("accelerated", True):
                out.append(GameEvent(GameKind.ACCELERATED, at, day=event.day, **base))
        elif kind is EventKind.VOTERS:
            out.append(GameEvent(GameKind.VOTERS, at, day=int(p.get("day", event.day)),
                                 players=tuple(p.get("players", [])), **base))
    return out


def corrections(state: GameState, events: Iterable[Event]) -> tuple[GameState, list[str]]:
    """Aliases, substitutes and posts ruled void (they hold for the whole game). One
    that no longer makes sense (an alias that is now a player's name) is skipped and
    reported, never fatal: the agent must keep counting."""
    problems: list[str] = []
    for event in live_events(list(events)):
        p = event.payload
        try:
            if event.kind is EventKind.SUBSTITUTE:
                state = state.substitute(p["old"], p["new"])
            elif event.kind is EventKind.ALIAS:
                state = state.alias(p["name"], p["player"])
            elif event.kind is EventKind.VOID:
                state = state.void_post(int(p["pid"]), p.get("why", ""))
        except StateError as exc:
            problems.append(f"事件 {event.id}：{exc}")
    return state, problems


def _legacy_time(config: GameConfig, event: Event) -> datetime | None:
    """§9's defaults for rows stored before game times were: a night at the start of
    its day, the bot's vote result and day-1 election at the deadline, the rest when
    the payload says (or when entered)."""
    p = event.payload
    try:
        window = config.state.day(event.day)
    except StateError:
        window = None
    if window is not None:
        if event.kind is EventKind.NIGHT:
            return window.start
        if event.kind is EventKind.OUT and parse_why(p.get("why")) is OutWhy.VOTE:
            return window.deadline
        if event.kind is EventKind.SHERIFF and event.actor == "bot":
            return window.deadline
        if event.kind in (EventKind.ACCELERATE, EventKind.VOTERS):
            return window.start
    return _when(p.get("at")) or event.at


def build_state(config: GameConfig, events: Iterable[Event]) -> GameState:
    """The game from the config (its starting state and ``[[events]]``) plus stored events."""
    events = list(events)
    state, _ = corrections(config.state, events)
    return state.with_events(engine_events(config, events, config.state.identities))


def current_state(config: GameConfig, store: Store) -> GameState:
    """The game: the config plus every stored event that stands, each in its game time.
    Every day is tallied against this one state, asked at the moments that matter
    (SPEC §9) — not against the records as they stood when a command was typed."""
    return build_state(config, store.events())


def state_for_day(config: GameConfig, store: Store, day: int) -> GameState:
    """The state a day is tallied with: the whole game; the engine asks it at the
    day's moments (each post's time, the deadline)."""
    return current_state(config, store)


def effective_at(event: Event) -> datetime:
    return event.game_at or _when(event.payload.get("at")) or event.at


def _when(value: object) -> datetime | None:
    if isinstance(value, str) and value:
        return datetime.fromisoformat(value)
    return None


def day_at(state: GameState, now: datetime) -> DayWindow | None:
    """The day being played at ``now``: the latest day that has started (its voting may
    be over: the night until the next day's start still belongs to it)."""
    started = [d for d in state.days if d.start <= now]
    if not started:
        return None
    # state.day() and not the raw window: it knows a day accelerated by an event.
    return state.day(max(started, key=lambda d: d.start).number)


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
# A stored post's text is plain text: what looks like HTML in it the player typed.
_declaration = lru_cache(maxsize=16384)(partial(parse_vote, plain=True))


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


def count_with(config: GameConfig, store: Store, state: GameState, number: int,
               ballots: list[Ballot] | None = None) -> DayCount:
    """Day ``number`` counted from the stored posts against ``state`` (the game as it is,
    or as it would be after a change the director is previewing)."""
    if ballots is None:
        ballots = day_ballots(store, state, state.day(number))
    result = tally_day(ballots, state, number, config.rules)
    return DayCount(state, ballots, result, tally_json(result, state, number, config.rules))


def count_day(config: GameConfig, store: Store, number: int) -> DayCount:
    return count_with(config, store, current_state(config, store), number)


def tally_with(rt: Any, state: GameState, number: int) -> dict[str, Any]:
    """The SPEC §7 tally JSON of day ``number`` against ``state`` (``rt``: a Runtime)."""
    return count_with(rt.config, rt.store, state, number).data
