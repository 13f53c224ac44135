"""A ruling for every vote declaration of a day, in post order (SPEC §3.2–3.5).

Checks run in issue 3's order — who, when, format, sequence, target — and the first that
fails is the reason. A void post counts for nothing and uses nothing up: only valid
rulings change what a voter may do next.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from parsers.models import ABSTAIN, DeclarationProblem, VoteDeclaration, VoteKind

from engine.ballots import Ballot, in_post_order
from engine.names import Match, NameTable, TargetMatch
from engine.events import WHY_ZH, parse_why
from engine.reasons import FROM_PROBLEM, Reason, change_window_text
from engine.rules import RuleSet
from engine.state import DayWindow, GameState, Moment, OutRecord
from engine.timing import (
    in_change_window,
    is_before_start,
    is_late,
    precision_note,
)


@dataclass(frozen=True)
class VoteRuling:
    ballot: Ballot
    pid: int
    floor: int | None
    voter: str  # the seat (for non-players: the posting account)
    account: str | None  # who posted (a substitute account shows here)
    seat: str | None  # None for the director, the bot and non-players
    kind: VoteKind
    target: str | None  # matched seat, 弃权, or None
    written: str | None  # the target as written
    weight: int  # the voter's weight at the deadline (SPEC §9: the badge, 若愚, out)
    valid: bool
    reason: Reason  # Reason.VALID when valid
    detail: str = ""
    candidates: tuple[str, ...] = ()
    time: datetime | None = None
    final: bool = False  # the voter's standing vote at the end of the day
    # Whether the vote counts at the deadline: a valid standing vote whose voter and
    # target are still in the game then (白天红牌罚下在被投票出局之前).
    counted: bool = False
    dropped: str | None = None  # a standing vote not counted: "voter_out" | "target_out"

    @property
    def void(self) -> bool:
        return not self.valid


@dataclass
class _Seat:
    vote_pid: int | None = None
    change_pids: list[int] = field(default_factory=list)


def weight_of(seat: str | None, moment: Moment | GameState, rules: RuleSet) -> int:
    """A voter's weight as the game stood at ``moment`` (the deadline, just before the
    day's own result): the sheriff then counts 2, a revealed idiot 0, a player out by
    then nothing."""
    if isinstance(moment, GameState):
        moment = moment.moment()
    if seat is None or moment.is_out(seat):
        return 0
    if seat in moment.idiots:
        return rules.idiot_weight  # S10 【若愚】: 此后白痴投票不计入总票数
    if seat == moment.sheriff:
        return rules.sheriff_weight  # 【带队】/【领导】: 警长投出的票计为两票
    return 1


def at_deadline(state: GameState, day: DayWindow) -> Moment:
    """The game at the day's deadline, before that day's own result (its vote-out and
    election are at the deadline): what weights, non-voters and the tie rule use."""
    return state.moment(day.deadline, before=True)


def day_ballots(ballots: list[Ballot] | tuple[Ballot, ...], state: GameState, day: DayWindow) -> list[Ballot]:
    """The day's vote-thread posts in post order. Posts that fall inside another day's
    window in the same thread belong to that day (one thread may serve several days)."""
    chosen = []
    for ballot in in_post_order(ballots):
        if ballot.thread != "vote":
            continue
        if day.vote_thread is not None and ballot.post.tid != day.vote_thread:
            continue
        if is_before_start(ballot, day) or is_late(ballot, day):
            if any(_inside(ballot, other) for other in state.days
                   if other.number != day.number and other.vote_thread == ballot.post.tid):
                continue
        chosen.append(ballot)
    return chosen


def _inside(ballot: Ballot, day: DayWindow) -> bool:
    return not is_before_start(ballot, day) and not is_late(ballot, day)


def rule_votes(ballots: list[Ballot] | tuple[Ballot, ...], state: GameState, day: int, rules: RuleSet) -> list[VoteRuling]:
    window = state.day(day)
    return rule_day(day_ballots(ballots, state, window), state, window, rules)


def rule_day(posts: list[Ballot], state: GameState, window: DayWindow, rules: RuleSet) -> list[VoteRuling]:
    """Rulings for posts already chosen by ``day_ballots`` (in post order)."""
    names = NameTable(state)
    by_pid = {b.pid: b for b in posts}
    seats: dict[str, _Seat] = {}
    rulings: list[VoteRuling] = []
    deadline = at_deadline(state, window)
    allowed = state.allowed_voters(window.number)
    for ballot in posts:
        post, declaration = ballot.standing
        if declaration is None:
            continue
        seat = state.seat_of(post.author)
        match = names.match(declaration.target) if declaration.target else TargetMatch(Match.UNKNOWN)
        reason, detail = _judge(ballot, declaration, seat, match, state, window, rules,
                                seats.setdefault(seat or "", _Seat()), by_pid, allowed)
        valid = reason is Reason.VALID
        if valid and seat is not None:
            record = seats[seat]
            if declaration.kind is VoteKind.VOTE:
                record.vote_pid = ballot.pid
            else:
                record.change_pids.append(ballot.pid)
        rulings.append(VoteRuling(
            ballot=ballot, pid=ballot.pid, floor=ballot.floor,
            voter=seat or (post.author or "?"), account=post.author, seat=seat,
            kind=declaration.kind, target=match.player, written=declaration.target,
            weight=weight_of(seat, deadline, rules), valid=valid, reason=reason, detail=detail,
            candidates=match.candidates, time=post.posted_at,
        ))
    return _mark_final(rulings, deadline)


def _mark_final(rulings: list[VoteRuling], deadline: Moment) -> list[VoteRuling]:
    last: dict[str, int] = {}
    for index, ruling in enumerate(rulings):
        if ruling.valid and ruling.seat is not None:
            last[ruling.seat] = index
    finals = set(last.values())
    marked = []
    for i, r in enumerate(rulings):
        if i not in finals:
            marked.append(r)
            continue
        # A daytime out before the deadline comes before the vote: the player's own
        # standing vote is dropped, and votes standing on them count for no one.
        dropped = ("voter_out" if deadline.is_out(r.seat or "") else
                   "target_out" if r.target not in (None, ABSTAIN) and deadline.is_out(r.target) else None)
        marked.append(replace(r, final=True, counted=dropped is None, dropped=dropped))
    return marked


def _judge(
    ballot: Ballot,
    declaration: VoteDeclaration,
    seat: str | None,
    match: TargetMatch,
    state: GameState,
    day: DayWindow,
    rules: RuleSet,
    record: _Seat,
    by_pid: dict[int, Ballot],
    allowed: tuple[str, ...] | None = None,
) -> tuple[Reason, str]:
    post, _ = ballot.standing
    why = state.void_reason(ballot.pid)
    if why is not None:
        return Reason.DIRECTOR_VOID, why
    # who
    if seat is None:
        role = ("导演" if post.author == state.director
                else "机器人" if post.author == state.bot else "非玩家")
        return Reason.VOTER_NOT_PLAYER, f"{post.author or '匿名'}（{role}）"
    moment = state.moment(post.posted_at)
    if moment.is_out(seat):
        return Reason.VOTER_OUT, _out_text(seat, moment.out[seat])
    if allowed is not None and seat not in allowed:
        named = "、".join(allowed) if allowed else "无人"
        return Reason.VOTER_NOT_ALLOWED, f"替罪羊指定第{day.number}日可投票：{named}"
    # when
    if is_before_start(ballot, day):
        return Reason.BEFORE_START, _join(f"投票于 {_hm(day.start)} 开始", precision_note(ballot, day.start))
    if is_late(ballot, day):
        return Reason.LATE, _join(_deadline_text(day), precision_note(ballot, day.deadline))
    # format
    problem = declaration.problem
    if problem is DeclarationProblem.NO_REASON and not rules.require_reason:
        problem = None
    if problem is not None:
        return FROM_PROBLEM[problem], declaration.line
    if not declaration.target:
        return Reason.NO_TARGET, declaration.line
    if rules.require_reason and not (declaration.reason or "").strip():
        return Reason.NO_REASON, declaration.line
    # sequence
    if declaration.kind is VoteKind.VOTE:
        if record.vote_pid is not None:
            return Reason.VOTE_AFTER_VOTE, f"已在{_where(record.vote_pid, by_pid)}有效投票"
    else:
        reason = _judge_change(post.quoted_pids, record, rules, by_pid)
        if reason is not None:
            return reason
        if day.accelerated and rules.acceleration_voids_changes:
            return Reason.CHANGE_VOIDED_BY_ACCELERATION, "进程加速后不允许改票，所有改票作废"
        if in_change_window(ballot, day, rules.change_window_minutes):
            opens = day.deadline - timedelta(minutes=rules.change_window_minutes)
            return Reason.CHANGE_IN_WINDOW, _join(
                f"{_hm(opens)} 起不得改票（{change_window_text(rules.change_window_minutes)}）",
                precision_note(ballot, day.deadline),
            )
    # target
    if match.outcome is Match.UNKNOWN:
        hint = f"；相近：{'、'.join(match.candidates)}" if match.candidates else ""
        return Reason.UNKNOWN_TARGET, f"“{declaration.target}”不是玩家{hint}"
    if match.outcome is Match.AMBIGUOUS:
        return Reason.AMBIGUOUS_TARGET, f"“{declaration.target}”可能是：{'、'.join(match.candidates)}"
    if match.player != ABSTAIN and moment.is_out(match.player):
        return Reason.TARGET_OUT, _out_text(match.player, moment.out[match.player])
    return Reason.VALID, precision_note(ballot, day.deadline)


def _out_text(player: str, record: OutRecord) -> str:
    when = f"于 {_hm(record.at)} " if record.at is not None else ""
    return f"{player} 已{when}出局（{WHY_ZH.get(parse_why(record.why), record.why)}）"


def _hm(at: datetime) -> str:
    return f"{at:%m-%d %H:%M}"


def _judge_change(
    quoted: tuple[int, ...], record: _Seat, rules: RuleSet, by_pid: dict[int, Ballot]
) -> tuple[Reason, str] | None:
    if record.vote_pid is None:
        return Reason.CHANGE_WITHOUT_VOTE, "改票前没有有效投票"
    if not quoted:
        return Reason.CHANGE_WITHOUT_QUOTE, f"应引用{_where(record.vote_pid, by_pid)}的原投票帖"
    if record.vote_pid not in quoted:
        if any(pid in record.change_pids for pid in quoted):
            return Reason.SECOND_CHANGE, "引用的是自己之前的改票"
        return Reason.CHANGE_QUOTES_OTHER_POST, (
            f"引用了{'、'.join(_where(pid, by_pid) for pid in quoted)}；"
            f"原投票在{_where(record.vote_pid, by_pid)}"
        )
    if len(record.change_pids) >= rules.max_changes:
        return Reason.SECOND_CHANGE, f"已在{_where(record.change_pids[-1], by_pid)}改过票"
    return None


def _where(pid: int, by_pid: dict[int, Ballot]) -> str:
    ballot = by_pid.get(pid)
    if ballot is None:
        return f"pid {pid}"
    who = ballot.post.author or "?"
    return f"{ballot.floor}楼（pid {pid}，{who}）" if ballot.floor else f"pid {pid}（{who}）"


def _deadline_text(day: DayWindow) -> str:
    text = f"截止时间 {_hm(day.deadline)}"
    if day.deadline_pid is not None:
        text += f"（导演截止帖 pid {day.deadline_pid}）"
    return text


def _join(*parts: str) -> str:
    return "；".join(p for p in parts if p)
