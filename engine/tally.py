"""A day's tally: weighted counts, abstentions, non-voters, the result by the rule set's
tie rule, and the timeline of valid vote events that explains it (SPEC §3.6–3.8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from parsers.models import ABSTAIN, VoteKind

from engine.ballots import Ballot
from engine.flags import Flag, post_flags, ruling_flags
from engine.rules import RuleSet, TieRule
from engine.rulings import VoteRuling, day_ballots, rule_day
from engine.state import DayWindow, GameState


@dataclass(frozen=True)
class TimelineEvent:
    """One valid vote or change and the running weighted counts right after it."""

    index: int
    pid: int
    floor: int | None
    time: datetime | None
    voter: str
    kind: VoteKind
    before: str | None  # the voter's previous target (a change), else None
    after: str  # the new target (a seat or 弃权)
    weight: int
    counts: dict[str, int]  # running counts per player (players with votes only)
    abstain: int


@dataclass(frozen=True)
class DayResult:
    out: str | None = None  # day ≥ 2: who is out (双身份: who loses a life)
    sheriff: str | None = None  # day 1: who is elected
    tie: tuple[str, ...] = ()  # the tied top candidates, in seat order (empty: no tie)
    rule: str = ""  # what decided: most_votes, no_votes, tie_sheriff_target, …
    detail: str = ""


@dataclass(frozen=True)
class TallyResult:
    day: int
    ruleset: str
    window: DayWindow
    rulings: tuple[VoteRuling, ...]
    counts: dict[str, int]  # weighted, players with at least one vote, highest first
    abstain: int  # weighted abstentions
    abstainers: tuple[str, ...]
    voters: dict[str, VoteRuling]  # seat → its standing (final valid) ruling
    non_voters: tuple[str, ...]
    result: DayResult
    timeline: tuple[TimelineEvent, ...]
    reached: dict[str, int] = field(default_factory=dict)  # player → timeline index of its reach
    flags: tuple[Flag, ...] = ()

    @property
    def total_weight(self) -> int:
        return sum(self.counts.values()) + self.abstain

    @property
    def void(self) -> tuple[VoteRuling, ...]:
        return tuple(r for r in self.rulings if not r.valid)


def tally_day(ballots: list[Ballot] | tuple[Ballot, ...], state: GameState, day: int, rules: RuleSet) -> TallyResult:
    window = state.day(day)
    posts = day_ballots(ballots, state, window)
    rulings = rule_day(posts, state, window, rules)
    voters = {r.seat: r for r in rulings if r.final and r.seat is not None}
    final: dict[str, int] = {}
    abstain = 0
    for ruling in voters.values():
        if ruling.target == ABSTAIN:
            abstain += ruling.weight
        else:
            final[ruling.target] = final.get(ruling.target, 0) + ruling.weight  # type: ignore[index]
    timeline, reached = _replay(rulings, final)
    seat_order = {p: i for i, p in enumerate(state.players)}
    counts = dict(sorted(((p, n) for p, n in final.items() if n > 0),
                         key=lambda item: (-item[1], seat_order.get(item[0], 1 << 30))))
    living = state.living(window.deadline)
    non_voters = tuple(p for p in living if p not in voters)
    abstainers = tuple(p for p in state.players if p in voters and voters[p].target == ABSTAIN)
    result = _decide(counts, reached, voters, state, window, rules, seat_order)
    flags: list[Flag] = []
    for ballot in posts:
        flags.extend(post_flags(ballot, state))
    flags.extend(ruling_flags(rulings))
    flags.sort(key=lambda f: (f.pid, f.kind))
    return TallyResult(
        day=day, ruleset=rules.name, window=window, rulings=tuple(rulings), counts=counts,
        abstain=abstain, abstainers=abstainers, voters=voters, non_voters=non_voters,
        result=result, timeline=tuple(timeline), reached=reached, flags=tuple(flags),
    )


def _replay(rulings: list[VoteRuling], final: dict[str, int]) -> tuple[list[TimelineEvent], dict[str, int]]:
    """Replay valid votes in post order. A player's reach is the event at which its
    running count LAST became equal to its final count (SPEC §3.7): a candidate who
    reaches the top, loses a vote and reaches it again reaches at the second time."""
    running: dict[str, int] = {}
    abstain = 0
    current: dict[str, str] = {}
    reached: dict[str, int] = {}
    events: list[TimelineEvent] = []
    for ruling in rulings:
        if not ruling.valid or ruling.seat is None or ruling.target is None:
            continue
        before = current.get(ruling.seat) if ruling.kind is VoteKind.CHANGE else None
        touched = []
        if before is not None:
            if before == ABSTAIN:
                abstain -= ruling.weight
            else:
                running[before] -= ruling.weight
                touched.append(before)
        if ruling.target == ABSTAIN:
            abstain += ruling.weight
        else:
            running[ruling.target] = running.get(ruling.target, 0) + ruling.weight
            touched.append(ruling.target)
        current[ruling.seat] = ruling.target
        index = len(events)
        if ruling.weight:
            for player in touched:
                if running[player] == final.get(player, 0):
                    reached[player] = index
        events.append(TimelineEvent(
            index=index, pid=ruling.pid, floor=ruling.floor, time=ruling.time, voter=ruling.seat,
            kind=ruling.kind, before=before, after=ruling.target, weight=ruling.weight,
            counts={p: n for p, n in running.items() if n}, abstain=abstain,
        ))
    return events, reached


def _decide(
    counts: dict[str, int],
    reached: dict[str, int],
    voters: dict[str, VoteRuling],
    state: GameState,
    window: DayWindow,
    rules: RuleSet,
    seat_order: dict[str, int],
) -> DayResult:
    election = window.number == 1
    if not counts:
        return DayResult(rule="no_votes", detail="no valid vote names a player")
    top = max(counts.values())
    tied = tuple(sorted((p for p, n in counts.items() if n == top), key=lambda p: seat_order.get(p, 0)))
    if len(tied) == 1:
        return _winner(election, tied[0], (), "most_votes", f"{tied[0]} {top}")
    tie_rule = rules.sheriff_tie if election else rules.elimination_tie
    if tie_rule is TieRule.SCAPEGOAT_THEN_FIRST_REACHED:
        goat = state.scapegoat
        if goat is not None and not state.is_out(goat, window.deadline):
            return _winner(election, goat, tied, "tie_scapegoat", f"替罪羊 {goat} goes instead of {', '.join(tied)}")
        tie_rule = TieRule.FIRST_REACHED
    if tie_rule is TieRule.FIRST_REACHED:
        first = min(tied, key=lambda p: reached.get(p, 1 << 30))
        return _winner(election, first, tied, "tie_first_reached",
                       f"{first} reached {top} first (event {reached.get(first)})")
    if tie_rule is TieRule.SHERIFF_TARGET:
        sheriff = state.sheriff
        ruling = voters.get(sheriff) if sheriff else None
        if ruling is not None and ruling.target in tied:
            return _winner(election, ruling.target, tied, "tie_sheriff_target",
                           f"the sheriff {sheriff} voted {ruling.target}")
        why = ("no sheriff" if sheriff is None else
               f"the sheriff {sheriff} did not vote" if ruling is None else
               f"the sheriff {sheriff} voted {ruling.target}, not among the tied")
        return DayResult(tie=tied, rule="tie_no_one", detail=why)
    return DayResult(tie=tied, rule="tie_no_one", detail="a tie: no one")


def _winner(election: bool, player: str, tied: tuple[str, ...], rule: str, detail: str) -> DayResult:
    if election:
        return DayResult(sheriff=player, tie=tied, rule=rule, detail=detail)
    return DayResult(out=player, tie=tied, rule=rule, detail=detail)
