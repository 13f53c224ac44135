"""What the templates see: plain view records built from the SPEC §7 tally JSON.

Building from the stable JSON (not from engine internals) means a director's edited
template keeps working across engine changes, and the offline tally and the live agent
render the same thing.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from forumbot.wording import CARD_ZH
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
class DroppedRef:
    """A valid standing vote that counts for no one (SPEC §9): its voter or its target
    left the game before the deadline."""

    voter: str
    pid: int
    floor: int | None
    target: str | None
    why: str  # Chinese


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
    badge_vacant: bool = False  # the sheriff left and no successor is named yet: 警长：空缺
    vacated_by: str | None = None
    dropped: tuple[DroppedRef, ...] = ()
    closed: bool = False  # the deadline has passed: no time is left (「投票已截止」, not 「剩余 已截止」)
    correction: bool = False  # a corrected final count after a published one


def tally_digest(tally: dict) -> str:
    """What a running count shows, hashed: votes, counts, abstentions, non-voters, result."""
    shown = {k: tally.get(k) for k in ("votes", "counts", "abstain", "non_voters", "result")}
    return hashlib.sha256(json.dumps(shown, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


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
    "no_voters": "替罪羊指定今日无人投票",
    "tie_sheriff_target": "警长投票对象出局",
    "tie_first_reached": "按最先达到最高票判定",
    "tie_scapegoat": "替罪羊代为出局",
    "tie_no_one": "无人出局",
}


def rule_text(rule: str | None) -> str:
    return RULE_TEXT.get(rule or "", rule or "")


def decided_text(result: dict[str, Any] | None) -> str:
    """How the rule decided, in words: for 「最先达到」 the engine's sentence naming each
    tied candidate's reach (「饺子 最先达到4票（5楼 Alice 投票起一直保持）；月饼 于…时才达到」),
    so a post says who got there first and from which floor, not only the rule's name."""
    rule = (result or {}).get("rule")
    detail = str((result or {}).get("detail") or "")
    if rule == "tie_first_reached" and detail:
        return detail
    return rule_text(rule)


def tie_note(result: dict[str, Any] | None) -> str | None:
    """'平票：A、B；警长投票对象出局' when the top was tied, else None."""
    tie = (result or {}).get("tie") or []
    if len(tie) < 2:
        return None
    return f"平票：{'、'.join(tie)}；{decided_text(result)}"


def result_line(result: dict[str, Any] | None, day: int) -> str | None:
    if not result:
        return None
    note = tie_note(result)
    suffix = f"（{note}）" if note else ""
    if result.get("sheriff"):
        return f"{result['sheriff']} 当选警长{suffix}"
    if day == 1:
        return f"无人当选警长{suffix}"
    if result.get("rule") == "no_voters":
        return "替罪羊指定今日无人投票，无人出局"
    if result.get("out"):
        effect = result.get("effect")
        if effect == "idiot":
            return f"{result['out']} 得票最多，发动【若愚】，免于出局{suffix}"
        if effect == "identity_lost":
            return f"{result['out']} 身份死亡{suffix}"
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
    correction: bool = False,
) -> CountView:
    votes: list[dict[str, Any]] = list(tally.get("votes", []))
    # The engine marks each voter's standing vote, and whether it counts at the deadline.
    standing = [v for v in votes if v.get("final") and v.get("counted", True)]
    dropped = tuple(
        DroppedRef(voter=v["voter"], pid=int(v["pid"]), floor=v.get("floor"), target=v.get("target"),
                   why=("本人已于截止前出局" if v.get("dropped") == "voter_out"
                        else f"投票对象 {v.get('target')} 已于截止前出局"))
        for v in votes if v.get("final") and v.get("counted") is False
    )
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
        closed=now >= deadline,
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
        badge_vacant=bool(tally.get("badge_vacant")) and not sheriff,
        vacated_by=tally.get("vacated_by"),
        dropped=dropped,
        correction=correction,
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
class OutLine:
    """One departure in an announcement: who, 出局 or 身份死亡 (双身份), and why."""

    player: str
    what: str  # "出局" | "身份死亡"
    why: str  # Chinese: 投票 / 夜晚 / 红牌罚下 / …
    when: str | None = None  # for daytime departures: the time


@dataclass(frozen=True)
class AnnouncementView:
    day: int
    vote_day: int | None
    vote_line: str | None  # the previous day's vote result, in Chinese
    outs: tuple[OutLine, ...]  # every departure since the last announcement, in order
    night_quiet: bool  # no one left during the night
    sheriff: str | None
    badge_vacant: bool = False
    badge_note: str | None = None  # 空缺: who left it and what the director is waiting for
    cards: tuple[CardLine, ...] = ()
    alive: tuple[str, ...] = ()
    next_deadline: str | None = None
    dual: bool = False  # 双身份: say 身份死亡 / 出局
    # What the confirmed night's resolution says must be announced (所有特殊身份失去技能)
    night_notes: tuple[str, ...] = ()
    # 遗言 (player, the words as plain text: Discuz codes removed when they were kept)
    last_words: tuple[tuple[str, str], ...] = ()
    # The game ended by this morning (a faction won in the night): said instead of a deadline
    game_over: str | None = None


CARD_NAMES = {color: CARD_ZH[color] for color in ("blue", "yellow", "red")}  # the cards one gives


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
    withdrawn: bool = False  # the director takes this card back (why: the reason for that)
    # 双身份 (points): the deduction said instead of colours, the total against the send-off.
    points: int | None = None
    sendoff_points: int | None = None


@dataclass(frozen=True)
class AccelerationNoticeView:
    day: int
    voids_changes: bool  # 进程加速后不允许改票，所有改票作废
    requests: tuple[str, ...]  # who asked (in order)
    living: int
    rule: str  # the rule set's quorum, in Chinese


@dataclass(frozen=True)
class BadgeNoticeView:
    sheriff: str | None  # the new sheriff (None: no sheriff)
    previous: str | None  # who held (or left) the badge
    how: str  # "successor" | "draw" | "director"
    seed: int | None = None
    candidates: tuple[str, ...] = ()
