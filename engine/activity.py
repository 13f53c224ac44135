"""Post counts per player per day per thread, and card proposals (SPEC §5).

The engine proposes; the director decides (``engine.cards`` applies the decisions).
Every proposal names the floors behind it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.ballots import Ballot, in_post_order
from engine.flags import FlagKind, post_flags
from engine.rules import CardPolicy, RuleSet
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
    card: str | None  # suggested card ("yellow"), None when the rules name none (points: always)
    floors: tuple[int | None, ...]
    pids: tuple[int, ...]
    detail: str


@dataclass(frozen=True)
class PostCounts:
    """day → seat → thread role → number of posts (every living-or-not seat appears)."""

    by_day: dict[int, dict[str, dict[str, int]]]

    def count(self, day: int, player: str, thread: str = "discussion") -> int:
        return self.by_day.get(day, {}).get(player, {}).get(thread, 0)


THREAD_ZH = {"discussion": "讨论帖", "vote": "投票帖", "progress": "进程帖"}


def _role(ballot: Ballot, day: DayWindow) -> str | None:
    """The post's thread role on this day: only the threads the day has count."""
    return day.threads().get(ballot.post.tid)


def lurk_roles(day: DayWindow, rules: RuleSet) -> tuple[str, ...]:
    """The day's threads whose posts count against 潜水 (none: the day proposes no
    lurking card — a day without a discussion thread is not a 讨论日)."""
    have = set(day.threads().values())
    return tuple(role for role in rules.lurk_threads if role in have)


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
    living = state.living(window.deadline, before=True)
    proposals: list[Proposal] = []
    roles = lurk_roles(window, rules)
    where = "、".join(THREAD_ZH.get(r, r) for r in roles)

    def counted(number: int, player: str, threads: tuple[str, ...]) -> int:
        return sum(counts.count(number, player, role) for role in threads)

    def floors_of(player: str, threads: tuple[str, ...] | None) -> tuple[tuple[int | None, ...], tuple[int, ...]]:
        mine = [b for b, r in posts if state.seat_of(b.post.author) == player and (threads is None or r in threads)]
        return tuple(b.floor for b in mine), tuple(b.pid for b in mine)

    if not window.accelerated and roles:
        for player in living:
            n = counted(day, player, roles)
            if n < rules.lurk_posts_per_day:
                floors, pids = floors_of(player, roles)
                proposals.append(Proposal(ProposalKind.LURKING_DAY, player, day, None, floors, pids,
                                          f"第{day}日{where}发帖 {n} 帖（少于 {rules.lurk_posts_per_day} 帖）"))
    span_days = [d for d in state.days if day - rules.lurk_span_days < d.number <= day]
    if (rules.lurk_span_days > 0 and len(span_days) == rules.lurk_span_days
            and all(lurk_roles(d, rules) for d in span_days)):
        # 连续三个讨论日均不足十帖: fewer than ten on *each* of the three days. (A total under
        # ten would add nothing to the one-day rule: it always has a day under five then.)
        # Only days that have a discussion thread are 讨论日.
        span = [d.number for d in span_days]
        for player in living:
            per_day = [counted(d.number, player, lurk_roles(d, rules)) for d in span_days]
            if all(n < rules.lurk_posts_per_span for n in per_day):
                floors, pids = floors_of(player, roles or None)
                shown = "/".join(str(n) for n in per_day)
                proposals.append(Proposal(ProposalKind.LURKING_SPAN, player, day, None, floors, pids,
                                          f"第{span[0]}–{span[-1]}日讨论发帖 {shown} 帖"
                                          f"（每日均少于 {rules.lurk_posts_per_span} 帖）"))
    if not window.accelerated and window.vote_thread is not None:
        tally = tally or tally_day(ballots, state, day, rules)
        for player in tally.non_voters:
            void = [r for r in tally.rulings if r.seat == player]
            proposals.append(Proposal(
                ProposalKind.NO_VOTE, player, day,
                None if rules.card_policy is CardPolicy.POINTS else rules.no_vote_card,
                tuple(r.floor for r in void), tuple(r.pid for r in void),
                f"第{day}日没有有效投票" + (f"（{len(void)} 张废票）" if void else ""),
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
            "；".join(f"{THREAD_ZH.get(f.thread, f.thread)}{f.floor}楼：{f.detail}" for f in flags),
        ))
    # Only what the rule set punishes (双身份: 诈尸 alone; SPEC §5, docs/rulesets.md).
    proposals = [p for p in proposals if p.kind.value in rules.card_proposals]
    order = {p: i for i, p in enumerate(state.players)}
    proposals.sort(key=lambda p: (list(ProposalKind).index(p.kind), order.get(p.player, 1 << 30)))
    return proposals
