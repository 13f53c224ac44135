"""Post counts per player per day per thread, and card proposals (SPEC §5).

The engine proposes; the director decides (``engine.cards`` applies the decisions).
Every proposal names the floors behind it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.ballots import Ballot, in_post_order
from engine.flags import FlagKind, post_flags
from engine.rules import RuleSet
from engine.state import DayWindow, GameState
from engine.tally import TallyResult, tally_day
from engine.timing import is_before_start, is_late


class ProposalKind(StrEnum):
    LURKING_DAY = "lurking_day"  # 在未加快进程的单个讨论日不足五帖
    LURKING_SPAN = "lurking_span"  # 连续三个讨论日均不足十帖 (each of three days < 10)
    NO_VOTE = "no_vote"  # 在未加快进程的任一讨论日未投票
    ZOMBIE = "zombie"  # 诈尸
    FONT = "font"  # 字体
    EVIDENCE = "evidence"  # 贴证 (flag only)


@dataclass(frozen=True)
class Proposal:
    kind: ProposalKind
    player: str
    day: int
    card: str | None  # suggested card ("yellow"), None when the rules name none
    floors: tuple[int | None, ...]
    pids: tuple[int, ...]
    detail: str


@dataclass(frozen=True)
class PostCounts:
    """day → seat → thread role → number of posts (every living-or-not seat appears)."""

    by_day: dict[int, dict[str, dict[str, int]]]

    def count(self, day: int, player: str, thread: str = "discussion") -> int:
        return self.by_day.get(day, {}).get(player, {}).get(thread, 0)


def _role(ballot: Ballot, day: DayWindow) -> str | None:
    threads = day.threads()
    if threads:
        return threads.get(ballot.post.tid)
    return ballot.thread


def day_posts(ballots: list[Ballot] | tuple[Ballot, ...], day: DayWindow) -> list[tuple[Ballot, str]]:
    """Posts in the day's game threads within its window, with their thread role."""
    chosen = []
    for ballot in in_post_order(ballots):
        role = _role(ballot, day)
        if role is None or is_before_start(ballot, day) or is_late(ballot, day):
            continue
        chosen.append((ballot, role))
    return chosen


def post_counts(ballots: list[Ballot] | tuple[Ballot, ...], state: GameState) -> PostCounts:
    by_day: dict[int, dict[str, dict[str, int]]] = {}
    for day in state.days:
        table = {p: {"vote": 0, "discussion": 0, "progress": 0} for p in state.players}
        for ballot, role in day_posts(ballots, day):
            seat = state.seat_of(ballot.post.author)
            if seat is not None:
                table[seat][role] = table[seat].get(role, 0) + 1
        by_day[day.number] = table
    return PostCounts(by_day)


def propose_cards(
    ballots: list[Ballot] | tuple[Ballot, ...],
    state: GameState,
    day: int,
    rules: RuleSet,
    tally: TallyResult | None = None,
) -> list[Proposal]:
    window = state.day(day)
    posts = day_posts(ballots, window)
    counts = post_counts(ballots, state)
    living = state.living(window.deadline)
    proposals: list[Proposal] = []

    def floors_of(player: str, role: str | None = "discussion") -> tuple[tuple[int | None, ...], tuple[int, ...]]:
        mine = [b for b, r in posts if state.seat_of(b.post.author) == player and (role is None or r == role)]
        return tuple(b.floor for b in mine), tuple(b.pid for b in mine)

    if not window.accelerated:
        for player in living:
            n = counts.count(day, player)
            if n < rules.lurk_posts_per_day:
                floors, pids = floors_of(player)
                proposals.append(Proposal(ProposalKind.LURKING_DAY, player, day, None, floors, pids,
                                          f"{n} discussion posts (< {rules.lurk_posts_per_day})"))
    span = [d.number for d in state.days if day - rules.lurk_span_days < d.number <= day]
    if rules.lurk_span_days > 0 and len(span) == rules.lurk_span_days:
        # 连续三个讨论日均不足十帖: fewer than ten on *each* of the three days. (A total under
        # ten would add nothing to the one-day rule: it always has a day under five.)
        for player in living:
            per_day = [counts.count(d, player) for d in span]
            if all(n < rules.lurk_posts_per_span for n in per_day):
                floors, pids = floors_of(player)
                shown = "/".join(str(n) for n in per_day)
                proposals.append(Proposal(ProposalKind.LURKING_SPAN, player, day, None, floors, pids,
                                          f"days {span[0]}–{span[-1]}: {shown} discussion posts "
                                          f"(each < {rules.lurk_posts_per_span})"))
    if not window.accelerated:
        tally = tally or tally_day(ballots, state, day, rules)
        for player in tally.non_voters:
            void = [r for r in tally.rulings if r.seat == player]
            proposals.append(Proposal(
                ProposalKind.NO_VOTE, player, day, rules.no_vote_card,
                tuple(r.floor for r in void), tuple(r.pid for r in void),
                "no valid vote" + (f" ({len(void)} void)" if void else ""),
            ))
    kinds = {FlagKind.ZOMBIE: ProposalKind.ZOMBIE, FlagKind.FONT: ProposalKind.FONT,
             FlagKind.EVIDENCE: ProposalKind.EVIDENCE}
    grouped: dict[tuple[ProposalKind, str], list] = {}
    for ballot, _role_name in posts:
        for flag in post_flags(ballot, state):
            if flag.kind in kinds and flag.player is not None:
                grouped.setdefault((kinds[flag.kind], flag.player), []).append(flag)
    for (kind, player), flags in grouped.items():
        proposals.append(Proposal(
            kind, player, day, None, tuple(f.floor for f in flags), tuple(f.pid for f in flags),
            "; ".join(f"[{f.thread} floor {f.floor}] {f.detail}" for f in flags),
        ))
    order = {p: i for i, p in enumerate(state.players)}
    proposals.sort(key=lambda p: (list(ProposalKind).index(p.kind), order.get(p.player, 1 << 30)))
    return proposals
