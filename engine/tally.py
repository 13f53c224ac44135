"""A day's tally: weighted counts, abstentions, non-voters, the result by the rule set's
tie rule, and the timeline of valid vote events that explains it (SPEC §3.6–3.8).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from parsers.models import ABSTAIN, VoteKind

from engine.ballots import Ballot
from engine.flags import Flag, post_flags, ruling_flags
from engine.rules import RuleSet, TieRule
from engine.events import EventKind
from engine.rulings import VoteRuling, at_deadline, day_ballots, rule_day
from engine.state import DayWindow, GameState, Moment, Vacancy


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
    # What the vote does to ``out``: "out"; "identity_lost" (双身份, the first identity
    # dies); "idiot" (S10 若愚 recorded at the deadline: the idiot stays in).
    effect: str = ""


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
    sheriff: str | None = None  # the sheriff at the deadline, before the day's result
    vacancy: Vacancy | None = None  # the badge is vacant at the deadline
    allowed_voters: tuple[str, ...] | None = None  # 冤死: who may vote (None: everyone)
    dropped: tuple[VoteRuling, ...] = ()  # valid standing votes that count for no one

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
    deadline = at_deadline(state, window)
    voters = {r.seat: r for r in rulings if r.final and r.seat is not None}
    final: dict[str, int] = {}
    abstain = 0
    for ruling in voters.values():
        if not ruling.counted:
            continue
        if ruling.target == ABSTAIN:
            abstain += ruling.weight
        else:
            final[ruling.target] = final.get(ruling.target, 0) + ruling.weight  # type: ignore[index]
    timeline, reached = _replay([r for r in rulings if not deadline.is_out(r.seat or "")], final)
    seat_order = {p: i for i, p in enumerate(state.players)}
    counts = dict(sorted(((p, n) for p, n in final.items() if n > 0),
                         key=lambda item: (-item[1], seat_order.get(item[0], 1 << 30))))
    allowed = state.allowed_voters(day)
    living = [p for p in state.players if not deadline.is_out(p)]
    # Voters whose target left before the deadline did vote: they are not non-voters.
    non_voters = tuple(p for p in living if p not in voters and (allowed is None or p in allowed))
    abstainers = tuple(p for p in state.players
                       if p in voters and voters[p].counted and voters[p].target == ABSTAIN)
    counted = {seat: r for seat, r in voters.items() if r.counted}
    result = _decide(counts, reached, counted, deadline, window, rules, seat_order, allowed, timeline)
    result = _effect(result, state, window, deadline)
    flags: list[Flag] = []
    for ballot in posts:
        flags.extend(post_flags(ballot, state))
    flags.extend(ruling_flags(rulings))
    flags.sort(key=lambda f: (f.pid, f.kind))
    return TallyResult(
        day=day, ruleset=rules.name, window=window, rulings=tuple(rulings), counts=counts,
        abstain=abstain, abstainers=abstainers, voters=voters, non_voters=non_voters,
        result=result, timeline=tuple(timeline), reached=reached, flags=tuple(flags),
        sheriff=deadline.sheriff, vacancy=deadline.vacancy, allowed_voters=allowed,
        dropped=tuple(r for r in voters.values() if r.dropped),
    )


def _effect(result: DayResult, state: GameState, window: DayWindow, deadline: Moment) -> DayResult:
    """What the vote-out does: 若愚 (an idiot event at the deadline keeps the idiot in),
    双身份's first identity, or out."""
    player = result.out
    if player is None:
        return result
    saved = any(s.event.kind is EventKind.IDIOT and s.event.player == player and s.event.at == window.deadline
                for s in state.timeline.steps)
    if saved:
        return replace(result, effect="idiot")
    left = state.identities - deadline.lost.get(player, 0)
    return replace(result, effect="identity_lost" if left > 1 else "out")


def _replay(rulings: list[VoteRuling], final: dict[str, int]) -> tuple[list[TimelineEvent], dict[str, int]]:
    """Replay valid votes in post order (post time, then floor). A candidate's reach is
    the event that began its LAST stretch at or above its final count, the stretch
    lasting to the deadline (SPEC §3.7). Dropping down to the final count — a voter
    changing away from a leader at 5, leaving 4 — is not reaching it: the leader reached
    4 when it first got there and has kept it since. Only a rise starts a stretch, and
    one vote raises one candidate only, so no two candidates share a reach."""
    running: dict[str, int] = {}
    abstain = 0
    current: dict[str, str] = {}
    since: dict[str, int | None] = {}  # candidate → start of its current stretch at ≥ final
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
        for player in touched:
            goal = final.get(player, 0)
            if goal <= 0:
                continue  # no votes at the deadline: not a candidate, no reach
            if running[player] < goal:
                since[player] = None  # fell below: a later rise starts a new stretch
            elif since.get(player) is None:
                since[player] = index  # rose to the final count or more (a weight-0 vote changes nothing)
        events.append(TimelineEvent(
            index=index, pid=ruling.pid, floor=ruling.floor, time=ruling.time, voter=ruling.seat,
            kind=ruling.kind, before=before, after=ruling.target, weight=ruling.weight,
            counts={p: n for p, n in running.items() if n}, abstain=abstain,
        ))
    return events, {p: i for p, i in since.items() if i is not None}


def _decide(
    counts: dict[str, int],
    reached: dict[str, int],
    voters: dict[str, VoteRuling],
    deadline: Moment,
    window: DayWindow,
    rules: RuleSet,
    seat_order: dict[str, int],
    allowed: tuple[str, ...] | None = None,
    timeline: list[TimelineEvent] | None = None,
) -> DayResult:
    election = window.number == 1
    if allowed is not None and not allowed:
        # 冤死: 若指定人数为0，则下一天无人出局。
        return DayResult(rule="no_voters", detail="替罪羊指定今日无人投票：无人出局")
    if not counts:
        return DayResult(rule="no_votes", detail="没有指向玩家的有效票")
    top = max(counts.values())
    tied = tuple(sorted((p for p, n in counts.items() if n == top), key=lambda p: seat_order.get(p, 0)))
    if len(tied) == 1:
        return _winner(election, tied[0], (), "most_votes", f"{tied[0]} {top}票")
    tie_rule = rules.sheriff_tie if election else rules.elimination_tie
    if tie_rule is TieRule.SCAPEGOAT_THEN_FIRST_REACHED:
        goat = deadline.scapegoat
        if goat is not None and not deadline.is_out(goat):
            return _winner(election, goat, tied, "tie_scapegoat", f"替罪羊 {goat} 代替 {'、'.join(tied)}")
        tie_rule = TieRule.FIRST_REACHED
    if tie_rule is TieRule.FIRST_REACHED:
        # Reaches are distinct (one vote raises one candidate): seat order never decides.
        first = min(tied, key=lambda p: reached.get(p, 1 << 30))
        return _winner(election, first, tied, "tie_first_reached",
                       reach_text(first, tied, top, reached, timeline or []))
    if tie_rule is TieRule.SHERIFF_TARGET:
        sheriff = deadline.sheriff
        ruling = voters.get(sheriff) if sheriff else None
        if ruling is not None and ruling.target in tied:
            return _winner(election, ruling.target, tied, "tie_sheriff_target",
                           f"警长 {sheriff} 投了 {ruling.target}")
        why = ("警长空缺" if sheriff is None and deadline.vacancy is not None else
               "没有警长" if sheriff is None else
               f"警长 {sheriff} 未投票" if ruling is None else
               f"警长 {sheriff} 投的 {ruling.target} 不在平票者中")
        return DayResult(tie=tied, rule="tie_no_one", detail=why)
    return DayResult(tie=tied, rule="tie_no_one", detail="平票：无人出局")


def _winner(election: bool, player: str, tied: tuple[str, ...], rule: str, detail: str) -> DayResult:
    if election:
        return DayResult(sheriff=player, tie=tied, rule=rule, detail=detail)
    return DayResult(out=player, tie=tied, rule=rule, detail=detail)


def reach_text(first: str, tied: tuple[str, ...], top: int, reached: dict[str, int],
               timeline: list[TimelineEvent] | tuple[TimelineEvent, ...]) -> str:
    """「饺子 最先达到2票（3楼 包子 投票起一直保持）；月饼 于7楼 Alice 改票时才达到」:
    each tied candidate's reach, the winner's first."""
    def where(player: str) -> str | None:
        index = reached.get(player)
        if index is None or index >= len(timeline):
            return None
        event = timeline[index]
        post = f"{event.floor}楼" if event.floor is not None else f"第{index + 1}条有效票"
        return f"{post} {event.voter} {'改票' if event.kind is VoteKind.CHANGE else '投票'}"
    won = where(first)
    parts = [f"{first} 最先达到{top}票" + (f"（{won}起一直保持）" if won else "")]
    for player in sorted(tied, key=lambda p: reached.get(p, 1 << 30)):
        if player != first:
            at = where(player)
            parts.append(f"{player} 于{at}时才达到" if at else f"{player} 的达到时刻未能确定")
    return "；".join(parts)
