"""What the templates see: plain view records built from the SPEC §7 tally JSON.

Building from the stable JSON (not from engine internals) means a director's edited
template keeps working across engine changes, and the offline tally and the live agent
render the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from parsers.models import ABSTAIN


@dataclass(frozen=True)
class VoterRef:
    name: str
    pid: int
    floor: int | None
    weight: int
    kind: str


@dataclass(frozen=True)
class Row:
    target: str
    count: int
    voters: tuple[VoterRef, ...]


@dataclass(frozen=True)
class VoidRef:
    voter: str
    pid: int
    floor: int | None
    reason: str


@dataclass(frozen=True)
class CountView:
    day: int
    tid: int
    as_of: str
    deadline: str
    time_left: str
    final: bool
    counts_only: bool
    rows: tuple[Row, ...]
    abstain: tuple[VoterRef, ...]
    abstain_count: int
    void: tuple[VoidRef, ...]
    non_voters: tuple[str, ...]
    sheriff: str | None
    sheriff_weight: int
    result_line: str | None
    last_floor: int | None = None
    request_by: str | None = None


def format_time(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M")


def format_left(delta: timedelta) -> str:
    """'3小时05分' style; '已截止' once the deadline has passed."""
    seconds = int(delta.total_seconds())
    if seconds <= 0:
        return "已截止"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = []
    if days:
        parts.append(f"{days}天")
    if days or hours:
        parts.append(f"{hours}小时")
    parts.append(f"{minutes:02d}分" if (days or hours) else f"{minutes}分")
    return "".join(parts)


def _ref(vote: dict[str, Any]) -> VoterRef:
    return VoterRef(
        name=vote["voter"],
        pid=int(vote["pid"]),
        floor=vote.get("floor"),
        weight=int(vote.get("weight", 1)),
        kind=vote.get("kind", "vote"),
    )


RULE_TEXT = {
    "most_votes": "得票最多",
    "no_votes": "无有效票",
    "tie_sheriff_target": "警长投票对象出局",
    "tie_first_reached": "先达到最高票者胜出",
    "tie_scapegoat": "替罪羊代为出局",
    "tie_no_one": "无人出局",
}


def rule_text(rule: str | None) -> str:
    return RULE_TEXT.get(rule or "", rule or "")


def tie_note(result: dict[str, Any] | None) -> str | None:
    """'平票：A、B；平票，警长投票对象出局' when the top was tied, else None."""
    tie = (result or {}).get("tie") or []
    if len(tie) < 2:
        return None
    return f"平票：{'、'.join(tie)}；{rule_text(result.get('rule'))}"  # type: ignore[union-attr]


def result_line(result: dict[str, Any] | None, day: int) -> str | None:
    if not result:
        return None
    note = tie_note(result)
    suffix = f"（{note}）" if note else ""
    if result.get("sheriff"):
        return f"{result['sheriff']} 当选警长{suffix}"
    if day == 1:
        return f"无人当选警长{suffix}"
    if result.get("out"):
        return f"{result['out']} 出局{suffix}"
    if note:
        return note
    return "无人出局"


def count_view(
    tally: dict[str, Any],
    *,
    tid: int,
    now: datetime,
    deadline: datetime,
    final: bool,
    counts_only: bool,
    sheriff: str | None,
    sheriff_weight: int,
    describe_reason: Callable[[str], str],
    request_by: str | None = None,
) -> CountView:
    votes: list[dict[str, Any]] = list(tally.get("votes", []))
    standing = [v for v in votes if v.get("final")]  # the engine marks each voter's standing vote
    by_target: dict[str, list[VoterRef]] = {}
    abstain: list[VoterRef] = []
    for vote in standing:
        target = vote.get("target")
        if target == ABSTAIN:
            abstain.append(_ref(vote))
        elif target:
            by_target.setdefault(target, []).append(_ref(vote))
    counts: dict[str, int] = dict(tally.get("counts", {}))
    order = sorted(counts, key=lambda t: (-counts[t], _first_pid(by_target.get(t, []))))
    rows = tuple(
        Row(target=t, count=counts[t], voters=tuple(sorted(by_target.get(t, []), key=lambda v: v.pid)))
        for t in order
    )
    void = tuple(
        VoidRef(
            voter=v["voter"],
            pid=int(v["pid"]),
            floor=v.get("floor"),
            reason=describe_reason(v["reason"]) if v.get("reason") else "无效",
        )
        for v in votes
        if not v.get("valid") and v.get("reason") != "voter_not_player"
    )
    floors = [v.get("floor") for v in votes if v.get("floor") is not None]
    return CountView(
        day=int(tally["day"]),
        tid=tid,
        as_of=format_time(min(now, deadline) if final else now),
        deadline=format_time(deadline),
        time_left=format_left(deadline - now),
        final=final,
        counts_only=counts_only,
        rows=rows,
        abstain=tuple(sorted(abstain, key=lambda v: v.pid)),
        abstain_count=int(tally.get("abstain", len(abstain))),
        void=void,
        non_voters=tuple(tally.get("non_voters", [])),
        sheriff=sheriff,
        sheriff_weight=sheriff_weight,
        result_line=result_line(tally.get("result"), int(tally["day"])) if final else None,
        last_floor=max(floors) if floors else None,
        request_by=request_by,
    )


def _first_pid(refs: list[VoterRef]) -> int:
    return min((r.pid for r in refs), default=0)


@dataclass(frozen=True)
class CardLine:
    player: str
    card_name: str
    why: str
    sent_off: bool = False


@dataclass(frozen=True)
class AnnouncementView:
    day: int
    vote_day: int | None
    voted_out: str | None
    vote_note: str | None
    elected: str | None
    night_out: tuple[str, ...]
    sheriff: str | None
    cards: tuple[CardLine, ...] = ()
    alive: tuple[str, ...] = ()
    next_deadline: str | None = None


CARD_NAMES = {"blue": "蓝牌", "yellow": "黄牌", "red": "红牌"}


@dataclass(frozen=True)
class FloorRef:
    tid: int
    pid: int
    floor: int | None


@dataclass(frozen=True)
class CardTotals:
    blue: int
    yellow: int
    red: int
    points: int | None = None


@dataclass(frozen=True)
class CardNoticeView:
    player: str
    card_name: str
    why: str
    totals: CardTotals
    floors: tuple[FloorRef, ...] = field(default_factory=tuple)
    sent_off: bool = False
    badge_to: str | None = None
    badge_seed: int | None = None
