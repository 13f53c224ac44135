"""The director's game log, as library calls (SPEC §9): enter what happened with the game
time it took effect, see beforehand what that changes, take it back or correct it.

    spec = EventSpec("out", player="包子", why="card", at=t)
    impact = preview(rt, spec, now)        # which days' rulings and results change, which
    print("\\n".join(impact.lines()))      # drafts go stale — nothing written yet
    applied = enter(rt, spec, now)          # the event, the audit line, the follow-ups

``retract``/``correct`` (and their ``preview_…``) take an event back or replace it; the
history keeps every row. After any change every started day is re-tallied: waiting final
counts and announcements that no longer match are replaced by fresh drafts, a published
post that is now wrong is reported (never touched), and the vote result recorded from a
final count follows the count that stands (``settle_result``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.acceleration import acceleration_requests
from engine.badge import Succession, badge_status, check_successor, draw
from engine.events import EventKind as GameKind
from engine.events import GameEvent, OutWhy, parse_why
from engine.reasons import describe_zh
from engine.state import DayWindow, GameState, StateError
from forumbot.game import announce
from forumbot.game.state import build_state, count_with, current_state, day_at, day_ballots
from forumbot.store.outbox import Draft, DraftState
from forumbot.game.runtime import Runtime
from forumbot.store.records import Event, EventKind
from forumbot.store.state import live_events, standing_ids
from forumbot.game.views import BadgeNoticeView, result_line
from forumbot.wording import draft_kind_zh, vote_ruling_zh

DIRECTOR = "director"


class DirectorError(Exception):
    """A director command that cannot be carried out; the message (Chinese) says why."""


# ================================================================= what the director enters

KINDS = ("out", "identity_lost", "idiot", "sheriff", "scapegoat", "accelerated", "voters", "night",
         "alias", "substitute", "void")


@dataclass(frozen=True)
class EventSpec:
    """What the director says happened. ``at`` is the game time it took effect; left
    out, SPEC §9's default for the kind is used (a night death at the start of the day
    after that night, a vote-out at its deadline, 若愚 at the deadline of the vote that
    put the idiot out, a successor sheriff when the badge fell vacant, anything else:
    now)."""

    kind: str
    player: str | None = None  # out, identity_lost, idiot, sheriff, scapegoat; alias: the player; substitute: the seat's account
    why: str | None = None  # out / identity_lost: vote, night, card, lover, hunter, other
    at: datetime | None = None
    day: int | None = None  # the day it is about (night: the morning after it; voters, accelerated)
    players: tuple[str, ...] = ()  # night: who, in order; voters: who may vote (empty: no one)
    name: str | None = None  # alias: the name as written; substitute: the new account
    pid: int | None = None  # void
    note: str = ""  # the director's words (void: the reason shown with the vote)
    extra: dict[str, Any] = field(default_factory=dict)  # more payload (a draw's seed and candidates)


@dataclass(frozen=True)
class Planned:
    kind: EventKind
    day: int
    payload: dict[str, Any]
    game_at: datetime | None
    summary: str  # Chinese, one line: what will be recorded
    warnings: tuple[str, ...]
    state: GameState  # the game with the change


# ================================================================= what a change does


@dataclass(frozen=True)
class RulingChange:
    pid: int
    floor: int | None
    voter: str
    before: str  # Chinese
    after: str


@dataclass(frozen=True)
class DayImpact:
    day: int
    result_before: str
    result_after: str
    counts_before: dict[str, int]
    counts_after: dict[str, int]
    non_voters_before: tuple[str, ...]
    non_voters_after: tuple[str, ...]
    rulings: tuple[RulingChange, ...]
    tally_after: dict[str, Any] = field(compare=False, repr=False, default_factory=dict)
    result_dict_before: dict[str, Any] = field(compare=False, repr=False, default_factory=dict)
    result_dict_after: dict[str, Any] = field(compare=False, repr=False, default_factory=dict)

    @property
    def result_changed(self) -> bool:
        return self.result_dict_before != self.result_dict_after

    def lines(self) -> list[str]:
        out = [f"第{self.day}日："]
        if self.result_before != self.result_after:
            out.append(f"  结果：{self.result_before} → {self.result_after}")
        else:
            out.append(f"  结果不变：{self.result_after}")
        if self.counts_before != self.counts_after:
            out.append(f"  票数：{_counts(self.counts_before)} → {_counts(self.counts_after)}")
        if self.non_voters_before != self.non_voters_after:
            out.append(f"  未投票：{'、'.join(self.non_voters_before) or '无'} → "
                       f"{'、'.join(self.non_voters_after) or '无'}")
        for c in self.rulings:
            where = f"{c.floor}楼" if c.floor else f"pid {c.pid}"
            out.append(f"  {where} {c.voter}：{c.before} → {c.after}")
        return out


@dataclass(frozen=True)
class DraftImpact:
    draft: Draft
    published: bool  # True: on the forum already (the director is told; it is never edited)
    what: str  # Chinese

    def line(self) -> str:
        return self.what


@dataclass(frozen=True)
class Impact:
    summary: str
    warnings: tuple[str, ...] = ()
    days: tuple[DayImpact, ...] = ()  # only days whose rulings, counts or result change
    drafts: tuple[DraftImpact, ...] = ()
    effects: tuple[str, ...] = ()  # other events that lose (or regain) their effect
    badge: str | None = None  # the badge after, when it changes

    @property
    def stale_published(self) -> tuple[DraftImpact, ...]:
        return tuple(d for d in self.drafts if d.published)

    def lines(self) -> list[str]:
        """What the director reads before confirming (Chinese)."""
        out = [f"将记录：{self.summary}"]
        out += [f"注意：{w}" for w in self.warnings]
        for day in self.days:
            out += day.lines()
        if not self.days:
            out.append("已开始各日的计票与结果都不变。")
        out += [f"事件：{e}" for e in self.effects]
        if self.badge:
            out.append(self.badge)  # already 「警长：…」 (BadgeStatus.describe)
        for d in self.drafts:
            out.append(d.line())
        return out


@dataclass(frozen=True)
class Applied:
    event: Event
    impact: Impact
    redrafted: tuple[Draft, ...] = ()
    notices: tuple[Draft, ...] = ()
    settled: tuple[str, ...] = ()  # vote results recorded or taken back

    def lines(self) -> list[str]:
        out = [f"已记录事件 #{self.event.id}：{self.impact.summary}"]
        out += [f"已重新起草 #{d.id}（{draft_kind_zh(d.kind)}，第{d.day}日），待审批" for d in self.redrafted]
        out += [f"通知草稿 #{d.id}（{draft_kind_zh(d.kind)}）待审批" for d in self.notices]
        out += list(self.settled)
        for d in self.impact.stale_published:
            out.append(d.line())
        return out


# ================================================================= reading


@dataclass(frozen=True)
class EventView:
    """One stored event as the director sees it in the log."""

    id: int
    kind: str
    day: int
    game_at: datetime | None
    entered_at: datetime
    actor: str
    summary: str  # Chinese
    live: bool
    taken_by: int | None  # the retraction or correction that took it back
    corrects: int | None
    payload: dict[str, Any]


def list_events(rt: Runtime) -> list[EventView]:
    """Every stored event (retractions included), oldest first, with its game time, who
    entered it and when, and whether it stands."""
    events = rt.store.events()
    standing = standing_ids(events)
    takers: dict[int, int] = {}
    for e in events:
        for target in (e.retracts, e.corrects):
            if target is not None and standing[e.id]:
                takers[target] = e.id
    views = []
    for e in events:
        live = standing[e.id]
        views.append(EventView(
            id=e.id, kind=e.kind.value, day=e.day, game_at=e.game_at or _payload_time(e),
            entered_at=e.at, actor=e.actor, summary=describe_event(e), live=live,
            taken_by=takers.get(e.id) if not live else None, corrects=e.corrects, payload=dict(e.payload),
        ))
    return views


def _payload_time(e: Event) -> datetime | None:
    value = e.payload.get("at")
    return datetime.fromisoformat(value) if isinstance(value, str) and value else None


def describe_event(e: Event) -> str:
    """One line in Chinese for a stored event."""
    p = e.payload
    k = e.kind
    if k is EventKind.OUT:
        why = parse_why(p.get("why"))
        from engine.events import WHY_ZH

        return f"{p.get('player')} {WHY_ZH[why]}" + (f"（{p['note']}）" if p.get("note") else "")
    if k is EventKind.IDENTITY_LOST:
        from engine.events import WHY_IDENTITY_ZH

        return f"{p.get('player')} {WHY_IDENTITY_ZH[parse_why(p.get('why'))]}"
    if k is EventKind.NIGHT:
        return f"第{e.day}日前夜：" + ("、".join(p.get("out", [])) or "平安夜")
    if k is EventKind.IDIOT:
        return f"{p.get('player')} 发动【若愚】"
    if k is EventKind.SHERIFF:
        how = "（随机移交，随机种子 %s）" % p["seed"] if p.get("seed") is not None else ""
        return (f"警长：{p['player']}" if p.get("player") else "警长：无") + how
    if k is EventKind.SCAPEGOAT:
        return f"替罪羊：{p.get('player') or '无'}"
    if k is EventKind.ACCELERATE:
        return f"第{e.day}日加速"
    if k is EventKind.VOTERS:
        return f"第{p.get('day', e.day)}日可投票：{'、'.join(p.get('players', [])) or '无人'}"
    if k is EventKind.ALIAS:
        return f"别名“{p.get('name')}”→ {p.get('player')}"
    if k is EventKind.SUBSTITUTE:
        return f"{p.get('new')} 接替 {p.get('old')}"
    if k is EventKind.VOID:
        return f"pid {p.get('pid')} 判为废票（{p.get('why', '')}）"
    if k is EventKind.RETRACT:
        return f"撤销事件 #{p.get('event')}（{p.get('why', '')}）"
    return k.value


def badge(rt: Runtime, now: datetime):
    """The badge now (``engine.badge.BadgeStatus``): the sheriff, or the vacancy, how a
    successor is found under the rule set, who may take it, when a draw is offered."""
    return badge_status(current_state(rt.config, rt.store), rt.config.rules, now)


# ================================================================= planning


def _player(state: GameState, name: str | None) -> str:
    from parsers.text import normalise_name

    if name is None or not str(name).strip():
        raise DirectorError("缺少玩家名")
    if name in state.players:
        return name
    wanted = normalise_name(name)
    matches = [p for p in state.players if normalise_name(p) == wanted]
    if len(matches) == 1:
        return matches[0]
    raise DirectorError(f"“{name}”不是玩家（玩家：{'、'.join(state.players)}）")


def _day(state: GameState, number: int | None, now: datetime) -> DayWindow:
    if number is not None:
        try:
            return state.day(number)
        except StateError as exc:
            raise DirectorError(str(exc)) from None
    current = day_at(state, now)
    if current is None:
        raise DirectorError("还没有任何一天开始：请用 --day 指定")
    return current


def _filed_day(state: GameState, at: datetime | None, now: datetime) -> int:
    current = day_at(state, at or now)
    return current.number if current is not None else 0


def _why(value: str | None) -> OutWhy:
    if value is None:
        raise DirectorError("请说明出局原因：vote（投票）/ night（夜晚）/ card（罚下）/ lover（殉情）/ "
                            "hunter（猎人）/ other（其他）")
    text = value.strip().lower()
    if text == "red":
        return OutWhy.CARD
    try:
        return OutWhy(text)
    except ValueError:
        why = parse_why(value)
        if why is OutWhy.OTHER and text not in ("其他", "出局"):
            raise DirectorError(f"未知的出局原因“{value}”（vote / night / card / lover / hunter / other）") from None
        return why


def _last_day_before(state: GameState, now: datetime, *, ended: bool) -> DayWindow | None:
    days = [d for d in state.days if (d.deadline if ended else d.start) <= now]
    return max(days, key=lambda d: d.number) if days else None


def _out_time(state: GameState, why: OutWhy, day: int | None, now: datetime) -> datetime:
    """SPEC §9: a night death at the start of the day after that night; a vote-out at its
    deadline; a daytime out now (the director gives ``at`` when it was earlier)."""
    if why is OutWhy.NIGHT:
        window = state.day(day) if day is not None else _last_day_before(state, now, ended=False)
        return window.start if window is not None else now
    if why is OutWhy.VOTE:
        window = state.day(day) if day is not None else _last_day_before(state, now, ended=True)
        if window is None:
            raise DirectorError("还没有哪一天的投票截止：投票出局请用 --day 指定")
        return window.deadline
    return now


def _idiot_time(rt: Runtime, state: GameState, player: str, now: datetime) -> datetime:
    """若愚 takes effect at the vote that put the idiot out: the deadline of the latest
    ended day whose result is this player (its final count may still be waiting)."""
    for window in sorted((d for d in state.days if d.deadline <= now), key=lambda d: -d.number):
        if window.vote_thread is None:
            continue
        result = count_with(rt.config, rt.store, state, window.number).data.get("result") or {}
        if result.get("out") == player:
            return window.deadline
        if any(e.kind in (GameKind.OUT, GameKind.IDENTITY_LOST) and e.player == player
               and e.why is OutWhy.VOTE and e.at == window.deadline for e in state.events):
            return window.deadline
    return now


def plan(rt: Runtime, spec: EventSpec, now: datetime, *, base: GameState | None = None,
         corrects: int | None = None) -> Planned:
    """Check ``spec`` against the game and fill in its defaults; nothing is written.
    Raises ``DirectorError`` (in Chinese) when it cannot be carried out."""
    state = base or current_state(rt.config, rt.store)
    rules = rt.config.rules
    now = now.replace(microsecond=0)  # game times are the forum's: to the second
    kind = spec.kind.replace("-", "_")
    if kind not in KINDS:
        raise DirectorError(f"未知的事件种类“{spec.kind}”（{'、'.join(KINDS)}）")
    warnings: list[str] = []
    payload: dict[str, Any] = {}
    if spec.note:
        payload["note"] = spec.note
    payload.update(spec.extra)
    if corrects is not None:
        payload["corrects"] = corrects
    try:
        if kind in ("out", "identity_lost"):
            player = _player(state, spec.player)
            why = _why(spec.why)
            if kind == "identity_lost" and state.identities < 2:
                raise DirectorError("只有双身份规则有“身份死亡”；本局请用出局（out）")
            if kind == "out" and state.identities > 1 and why is not OutWhy.CARD:
                warnings.append("双身份：出局会去掉该角色全部身份；只失去一层身份请用 identity-lost")
            at = spec.at or _out_time(state, why, spec.day, now)
            gkind = GameKind.OUT if kind == "out" else GameKind.IDENTITY_LOST
            event = GameEvent(gkind, at, player, why, note=spec.note)
            after = state.add(event)
            payload.update({"player": player, "why": why.value})
            store_kind = EventKind.OUT if kind == "out" else EventKind.IDENTITY_LOST
            day = spec.day or _filed_day(state, at, now)
            if kind == "identity_lost":
                gone = after.is_out(player, at)
                summary = f"{player} {'出局（第二层身份）' if gone else '身份死亡'}（{event.describe()}）"
            else:
                summary = event.describe()
            if state.sheriff_at(at) == player and after.moment(at).vacancy is not None:
                warnings.append(f"{player} 是警长：警徽将空缺，等待继任")
            return Planned(store_kind, day, payload, at, summary, tuple(warnings), after)
        if kind == "night":
            window = _day(state, spec.day, now)
            names = [_player(state, n) for n in spec.players]
            if len(set(names)) != len(names):
                raise DirectorError("同一玩家写了两次")
            previous = [e for e in live_events(rt.store.events())
                        if e.kind is EventKind.NIGHT and e.day == window.number]
            if previous and corrects is None:
                payload["corrects"] = previous[-1].id
            without = state if not previous else build_state(
                rt.config, [e for e in rt.store.events() if e.id != previous[-1].id])
            at = spec.at or window.start
            gkind = GameKind.IDENTITY_LOST if state.identities > 1 else GameKind.OUT
            after = without
            for index, name in enumerate(names):
                after = after.add(GameEvent(gkind, at, name, OutWhy.NIGHT, seq=(1 << 30, index)))
            payload["out"] = names
            summary = f"第{window.number}日前夜（{at:%m-%d %H:%M} 生效）：" + ("、".join(names) or "平安夜")
            if previous:
                summary += f"（更正之前的录入 #{previous[-1].id}）"
            return Planned(EventKind.NIGHT, window.number, payload, at, summary, tuple(warnings), after)
        if kind == "idiot":
            player = _player(state, spec.player)
            at = spec.at or _idiot_time(rt, state, player, now)
            event = GameEvent(GameKind.IDIOT, at, player, note=spec.note)
            after = state.add(event)
            payload["player"] = player
            saved = state.is_out(player, at) and not after.is_out(player, at)
            summary = event.describe() + ("，免于投票出局" if saved else "")
            return Planned(EventKind.IDIOT, spec.day or _filed_day(state, at, now), payload, at, summary,
                           tuple(warnings), after)
        if kind == "sheriff":
            player = _player(state, spec.player) if spec.player else None
            # The successor fills the vacancy the game has (a night death entered before the
            # morning it takes effect at is a vacancy too): 【殉职】 names them at that moment.
            vacancy = state.moment(spec.at).vacancy if spec.at else state.moment().vacancy
            at = spec.at or (vacancy.since if vacancy is not None and vacancy.since is not None else now)
            if player is not None:
                check_successor(state, rules, player, at)
            event = GameEvent(GameKind.SHERIFF, at, player, note=spec.note)
            after = state.add(event)
            payload["player"] = player
            summary = event.describe()
            if vacancy is not None and player is not None:
                summary += f"（接替 {vacancy.previous}）"
            return Planned(EventKind.SHERIFF, spec.day or _filed_day(state, at, now), payload, at, summary,
                           tuple(warnings), after)
        if kind == "scapegoat":
            if rules.elimination_tie.value != "scapegoat_then_first_reached":
                raise DirectorError("本局规则没有替罪羊")
            player = _player(state, spec.player) if spec.player else None
            at = spec.at or now
            event = GameEvent(GameKind.SCAPEGOAT, at, player, note=spec.note)
            after = state.add(event)
            payload["player"] = player
            return Planned(EventKind.SCAPEGOAT, _filed_day(state, at, now), payload, at, event.describe(),
                           tuple(warnings), after)
        if kind == "accelerated":
            window = _day(state, spec.day, now)
            if window.accelerated:
                raise DirectorError(f"第{window.number}日已经加速")
            at = spec.at or now
            after = state.add(GameEvent(GameKind.ACCELERATED, at, day=window.number, note=spec.note))
            payload["accelerated"] = True
            summary = f"第{window.number}日加速" + ("：当日所有改票作废" if rules.acceleration_voids_changes else "")
            return Planned(EventKind.ACCELERATE, window.number, payload, at, summary, tuple(warnings), after)
        if kind == "voters":
            if rules.elimination_tie.value != "scapegoat_then_first_reached":
                raise DirectorError("只有双身份规则的替罪羊【冤死】可以指定投票人")
            window = _day(state, spec.day, now)
            names = tuple(_player(state, n) for n in spec.players)
            at = spec.at or now
            after = state.add(GameEvent(GameKind.VOTERS, at, day=window.number, players=names, note=spec.note))
            payload.update({"day": window.number, "players": list(names)})
            summary = (f"冤死：第{window.number}日只有 {'、'.join(names)} 可以投票" if names
                       else f"冤死：第{window.number}日无人可以投票，无人出局")
            return Planned(EventKind.VOTERS, window.number, payload, at, summary, tuple(warnings), after)
        if kind == "alias":
            player = _player(state, spec.player)
            name = (spec.name or "").strip()
            after = state.alias(name, player)
            payload.update({"name": name, "player": player})
            return Planned(EventKind.ALIAS, _filed_day(state, None, now), payload, None,
                           f"别名“{name}”→ {player}", tuple(warnings), after)
        if kind == "substitute":
            old = (spec.player or "").strip()
            new = (spec.name or "").strip()
            after = state.substitute(old, new)
            payload.update({"old": old, "new": new})
            return Planned(EventKind.SUBSTITUTE, _filed_day(state, None, now), payload, None,
                           f"{new} 接替 {after.seat_of(new)}", tuple(warnings), after)
        if kind == "void":
            pid = spec.pid
            why = spec.note.strip()
            if pid is None:
                raise DirectorError("缺少帖子的 pid")
            if not why:
                raise DirectorError("请说明理由：理由会和废票一起显示")
            if not rt.store.has_post(pid):
                raise DirectorError(f"帖子 pid {pid} 不在任何已读取的游戏帖中")
            after = state.void_post(pid, why)
            tid = rt.store.latest(pid).tid
            days = [d.number for d in state.days if tid in d.threads()]
            payload.pop("note", None)
            payload.update({"pid": pid, "why": why})
            return Planned(EventKind.VOID, days[-1] if days else _filed_day(state, None, now), payload, None,
                           f"pid {pid} 判为废票（{why}）", tuple(warnings), after)
    except StateError as exc:
        raise DirectorError(str(exc)) from None
    raise DirectorError(f"未知的事件种类“{spec.kind}”")


# ================================================================= impact


def _counts(counts: dict[str, int]) -> str:
    return "，".join(f"{k} {v}" for k, v in counts.items()) or "无"


def _ruling_text(vote: dict[str, Any], rules) -> str:
    if not vote["valid"]:
        return "废票：" + describe_zh(vote["reason"], change_window_minutes=rules.change_window_minutes)
    if not vote.get("final") or vote.get("counted") is False:
        return vote_ruling_zh(vote)
    weight = vote.get("weight", 1)
    return f"有效，计入（权重 {weight}）" if weight != 1 else "有效，计入"


def _day_impact(number: int, before: dict[str, Any], after: dict[str, Any], rules) -> DayImpact | None:
    key = ("counts", "abstain", "non_voters", "result")
    by_pid = {v["pid"]: v for v in before["votes"]}
    changes = []
    for vote in after["votes"]:
        old = by_pid.get(vote["pid"])
        if old is None or vote.get("reason") == "voter_not_player":
            continue
        a, b = _ruling_text(old, rules), _ruling_text(vote, rules)
        if a != b:
            changes.append(RulingChange(vote["pid"], vote.get("floor"), vote["voter"], a, b))
    if not changes and all(before.get(k) == after.get(k) for k in key):
        return None
    return DayImpact(
        day=number,
        result_before=result_line(before.get("result"), number) or "",
        result_after=result_line(after.get("result"), number) or "",
        counts_before=dict(before["counts"]), counts_after=dict(after["counts"]),
        non_voters_before=tuple(before["non_voters"]), non_voters_after=tuple(after["non_voters"]),
        rulings=tuple(changes), tally_after=after,
        result_dict_before=dict(before.get("result") or {}), result_dict_after=dict(after.get("result") or {}),
    )


def impact(rt: Runtime, before: GameState, after: GameState, now: datetime, summary: str,
           warnings: tuple[str, ...] = ()) -> Impact:
    """Re-tally every day that has started against both games and say what differs: the
    rulings, counts, non-voters and result of each day; the drafts this makes stale
    (waiting ones are redrafted when the change is applied; published ones are only
    reported); events that lose or regain their effect; the badge."""
    rules = rt.config.rules
    days: list[DayImpact] = []
    drafts: list[DraftImpact] = []
    for window in after.days:
        if window.start > now or window.vote_thread is None:
            continue
        ballots = day_ballots(rt.store, after, window)
        old = count_with(rt.config, rt.store, before, window.number, ballots).data
        new = count_with(rt.config, rt.store, after, window.number, ballots).data
        change = _day_impact(window.number, old, new, rules)
        if change is None:
            continue
        days.append(change)
        final = announce.final_draft(rt.outbox, window.number)
        if final is not None and not (final.state in announce.SENT and _shows(rt, window.number, new)):
            drafts.append(_draft_impact(final, f"第{window.number}日最终计票"))
    for window in after.days:
        draft = announce.standing(rt.outbox, "announcement", window.number)
        if draft is None:
            continue
        if announce.announcement_text(rt, before, window.number, now) != announce.announcement_text(
                rt, after, window.number, now):
            drafts.append(_draft_impact(draft, f"第{window.number}日公示"))
    was = {s.event.ref for s in before.ignored}
    now_ignored = {s.event.ref: s for s in after.ignored}
    effects = [f"#{ref} {s.event.describe()} 将不再生效：{s.note}" for ref, s in now_ignored.items()
               if ref is not None and ref not in was]
    effects += [f"#{ref} 将重新生效" for ref in was if ref is not None and ref not in now_ignored]
    badge_before = badge_status(before, rules, now).describe(now)
    badge_after = badge_status(after, rules, now).describe(now)
    return Impact(summary, tuple(warnings), tuple(days), tuple(drafts), tuple(effects),
                  badge_after if badge_after != badge_before else None)


def _shows(rt: Runtime, day: int, tally: dict[str, Any]) -> bool:
    """Whether the day's final count, as drafted (and so as published), shows ``tally``:
    an undo that restores exactly what was published does not make the post wrong."""
    from forumbot.game.views import tally_digest  # what a count shows, hashed

    return rt.store.get_meta(f"final_count_tally:day{day}") == tally_digest(tally)


def _draft_impact(draft: Draft, what: str) -> DraftImpact:
    if draft.state in announce.SENT:
        where = f"pid {draft.pid}" if draft.pid else "审核中"
        return DraftImpact(draft, True, f"已发布的{what}（#{draft.id}，{where}）现在不对：它不会被改动，"
                                        f"请决定是否发更正（forumbot redraft --day {draft.day}）")
    return DraftImpact(draft, False, f"待发的{what}（#{draft.id}）已过时：将重新起草")


# ================================================================= entering and taking back


def preview(rt: Runtime, spec: EventSpec, now: datetime) -> Impact:
    """What entering ``spec`` would change. Nothing is written."""
    before = current_state(rt.config, rt.store)
    planned = plan(rt, spec, now, base=before)
    return impact(rt, before, planned.state, now, planned.summary, planned.warnings)


def enter(rt: Runtime, spec: EventSpec, now: datetime, *, actor: str = DIRECTOR) -> Applied:
    """Record ``spec`` (with its game time), then re-tally and redraft what it made stale."""
    before = current_state(rt.config, rt.store)
    planned = plan(rt, spec, now, base=before)
    change = impact(rt, before, planned.state, now, planned.summary, planned.warnings)
    with rt.store.write():  # the event and everything it makes stale, or nothing
        event = rt.store.append_event(planned.day, planned.kind, planned.payload, actor=actor, at=now,
                                      game_at=planned.game_at)
        notices = _notices(rt, before, planned, event, now, actor)
        return _follow_up(rt, event, change, now, notices)


def preview_retract(rt: Runtime, event_id: int, now: datetime) -> Impact:
    target = _event(rt, event_id)
    before = current_state(rt.config, rt.store)
    after = _without(rt, event_id)
    return impact(rt, before, after, now, f"撤销事件 #{event_id}：{describe_event(target)}")


def retract(rt: Runtime, event_id: int, why: str, now: datetime, *, actor: str = DIRECTOR) -> Applied:
    """Take event ``event_id`` back (undo). Retracting a retraction brings its event back."""
    if not why.strip():
        raise DirectorError("请说明撤销的理由（记入审计日志）")
    target = _event(rt, event_id)
    before = current_state(rt.config, rt.store)
    after = _without(rt, event_id)
    change = impact(rt, before, after, now, f"撤销事件 #{event_id}：{describe_event(target)}")
    with rt.store.write():
        event = rt.store.retract_event(event_id, why, actor=actor, at=now)
        return _follow_up(rt, event, change, now, ())


def preview_correct(rt: Runtime, event_id: int, spec: EventSpec, now: datetime) -> Impact:
    target = _event(rt, event_id)
    before = current_state(rt.config, rt.store)
    planned = plan(rt, spec, now, base=_without(rt, event_id), corrects=event_id)
    return impact(rt, before, planned.state, now, f"更正事件 #{target.id}（{describe_event(target)}）为："
                                                  f"{planned.summary}", planned.warnings)


def correct(rt: Runtime, event_id: int, spec: EventSpec, why: str, now: datetime, *,
            actor: str = DIRECTOR) -> Applied:
    """Replace event ``event_id`` by ``spec`` (wrong player, wrong time…), with a reason.
    Both rows stay; undoing the correction brings the old one back."""
    if not why.strip():
        raise DirectorError("请说明更正的理由（记入审计日志）")
    target = _event(rt, event_id)
    if target.kind is EventKind.RETRACT:
        raise DirectorError("撤销记录不能更正；要恢复被撤销的事件，请撤销这条撤销记录")
    before = current_state(rt.config, rt.store)
    planned = plan(rt, spec, now, base=_without(rt, event_id), corrects=event_id)
    payload = {**planned.payload, "corrects": event_id, "why_correction": why}
    change = impact(rt, before, planned.state, now,
                    f"更正事件 #{target.id}（{describe_event(target)}）为：{planned.summary}", planned.warnings)
    with rt.store.write():
        event = rt.store.append_event(planned.day, planned.kind, payload, actor=actor, at=now,
                                      game_at=planned.game_at)
        return _follow_up(rt, event, change, now, ())


def _event(rt: Runtime, event_id: int) -> Event:
    try:
        return rt.store.event(event_id)
    except LookupError as exc:
        raise DirectorError(str(exc)) from None


def _without(rt: Runtime, *event_ids: int) -> GameState:
    """The game as if the events ``event_ids`` were taken back (retractions appended)."""
    events = rt.store.events()
    by_id = {e.id: e for e in events}
    top = max(by_id)
    fakes = [Event(id=top + n, day=by_id[i].day, kind=EventKind.RETRACT,
                   payload={"event": i, "why": "preview"}, actor="preview", at=by_id[i].at)
             for n, i in enumerate(event_ids, start=1)]
    return build_state(rt.config, [*events, *fakes])


# ================================================================= follow-ups


def _notices(rt: Runtime, before: GameState, planned: Planned, event: Event, now: datetime,
             actor: str) -> tuple[Draft, ...]:
    """A short notice when a day is accelerated or the badge passes."""
    drafts: list[Draft | None] = []
    state = planned.state
    if planned.kind is EventKind.ACCELERATE:
        window = state.day(planned.day)
        ballots = day_ballots(rt.store, state, window)
        status = acceleration_requests(ballots, state, window.number, rt.config.rules, now)
        drafts.append(announce.acceleration_notice(rt, state, window.number,
                                                   tuple(p for p, _, _ in status.requests), status.living,
                                                   now, actor=actor))
    elif planned.kind is EventKind.SHERIFF and planned.game_at is not None and event.payload.get("notice", True):
        moment = before.moment(planned.game_at)
        previous = moment.vacancy.previous if moment.vacancy else moment.sheriff
        how = ("draw" if event.payload.get("seed") is not None else
               "successor" if moment.vacancy is not None else "director")
        view = BadgeNoticeView(event.payload.get("player"), previous, how, event.payload.get("seed"),
                               tuple(event.payload.get("candidates", ())))
        drafts.append(announce.badge_notice(rt, state, planned.day or _filed_day(state, now, now), view, now,
                                            actor=actor))
    return tuple(d for d in drafts if d is not None)


def _follow_up(rt: Runtime, event: Event, change: Impact, now: datetime, notices: tuple[Draft, ...]) -> Applied:
    state = current_state(rt.config, rt.store)
    redrafted: list[Draft] = []
    settled: list[str] = []
    for day in change.days:
        rt.store.save_tally(day.day, day.tally_after, at=now)
        final = announce.final_draft(rt.outbox, day.day)
        if (final is not None and rt.store.get_meta(f"stale_published:{final.id}")
                and _shows(rt, day.day, day.tally_after)):
            rt.store.set_meta(f"stale_published:{final.id}", "")  # right again
            rt.store.audit("bot", "stale_published_cleared", {"draft": final.id, "day": day.day,
                                                              "event": event.id}, at=now)
    for d in change.drafts:
        if d.published:
            rt.store.set_meta(f"stale_published:{d.draft.id}", d.what)
            rt.store.audit("bot", "stale_published", {"draft": d.draft.id, "day": d.draft.day,
                                                      "event": event.id, "what": d.what}, at=now)
            continue
        if d.draft.kind.value == "final_count":
            announce.supersede(rt, d.draft, f"已过时：事件 #{event.id} 改变了计票，已重新起草", now)
            window = state.day(d.draft.day or 0)
            tally = next(x.tally_after for x in change.days if x.day == window.number)
            redrafted.append(announce.draft_final(rt, state, window, tally, now))
        else:
            fresh = announce.draft_announcement(rt, d.draft.day or 0, now, state=state)
            if fresh is not None and fresh.id != d.draft.id:
                redrafted.append(fresh)
    for day in change.days:
        settled += settle_result(rt, day.day, now)
    return Applied(event, change, tuple(redrafted), notices, tuple(settled))


# ================================================================= the vote's result as game state


def _is_result(event: Event) -> bool:
    p = event.payload
    if p.get("source") == "result":
        return True
    # rows written before results carried their source: the bot's vote-out and election
    if event.actor != "bot":
        return False
    if event.kind is EventKind.OUT:
        return parse_why(p.get("why")) is OutWhy.VOTE
    return event.kind is EventKind.SHERIFF and "竞选" in str(p.get("why", ""))


def settle_result(rt: Runtime, day: int, now: datetime) -> list[str]:
    """Make the day's vote result game state as the final count that stands says, at the
    day's deadline (SPEC §9: a vote-out takes effect at its deadline, however late the
    director approves): once the count is approved its result is recorded; a result
    recorded from a count that no longer stands (rejected, redrafted after a
    correction) is taken back. A result the director took back by hand stays taken back.
    Returns what was done (Chinese)."""
    state = current_state(rt.config, rt.store)
    try:
        window = state.day(day)
    except StateError:
        return []
    final = announce.final_draft(rt.outbox, day)
    decided = final is not None and final.state in (DraftState.APPROVED, *announce.SENT)
    events = rt.store.events()
    results = [e for e in events if e.day == day and _is_result(e)]
    standing = {e.id for e in live_events(events)}
    done: list[str] = []
    with rt.store.write():
        for e in results:
            if e.id in standing and (not decided or e.payload.get("draft") != final.id):  # type: ignore[union-attr]
                rt.store.retract_event(e.id, f"第{day}日最终计票已更正或驳回", actor="bot", at=now)
                done.append(f"已撤销按旧计票记录的结果（事件 #{e.id}）")
        if decided and not any(e.payload.get("draft") == final.id for e in results):  # type: ignore[union-attr]
            result = announce.final_result(rt, final)  # type: ignore[arg-type]
            base = {"source": "result", "draft": final.id, "why": OutWhy.VOTE.value}  # type: ignore[union-attr]
            if result.get("sheriff"):
                ev = rt.store.append_event(day, EventKind.SHERIFF, {**base, "player": result["sheriff"],
                                                                     "note": f"第{day}日竞选"},
                                           actor="bot", at=now, game_at=window.deadline)
                done.append(f"第{day}日结果：{result['sheriff']} 当选警长（事件 #{ev.id}）")
            elif result.get("out"):
                kind = EventKind.IDENTITY_LOST if state.identities > 1 else EventKind.OUT
                ev = rt.store.append_event(day, kind, {**base, "player": result["out"]},
                                           actor="bot", at=now, game_at=window.deadline)
                done.append(f"第{day}日结果：{result['out']} {'身份死亡' if kind is EventKind.IDENTITY_LOST else '出局'}"
                            f"（{window.deadline:%m-%d %H:%M} 生效，事件 #{ev.id}）")
    return done


def unsettled_days(rt: Runtime) -> list[int]:
    """Days whose final count that stands is approved (or on the forum) with a result
    (a vote-out, an election) that is not an event yet — nor one the director took back:
    what ``settle_result`` still has to record. Reads only, so a pass can ask every time."""
    recorded = {e.payload.get("draft") for e in rt.store.events() if _is_result(e)}
    days = []
    for window in rt.config.days:
        final = announce.final_draft(rt.outbox, window.number)
        if final is None or final.state not in (DraftState.APPROVED, *announce.SENT) or final.id in recorded:
            continue
        result = announce.final_result(rt, final)
        if result.get("sheriff") or result.get("out"):
            days.append(window.number)
    return days


def redraft_final(rt: Runtime, day: int, now: datetime) -> Draft:
    """A corrected final count for ``day`` (after a published one went stale): a new post,
    marked 更正, for the director to approve. The published one is never edited."""
    state = current_state(rt.config, rt.store)
    try:
        window = state.day(day)
    except StateError as exc:
        raise DirectorError(str(exc)) from None
    if window.vote_thread is None or now < window.deadline:
        raise DirectorError(f"第{day}日的投票还没有截止")
    current = announce.final_draft(rt.outbox, day)
    tally = count_with(rt.config, rt.store, state, day).data
    if current is not None and current.state in announce.WAITING:
        announce.supersede(rt, current, "导演要求重新起草最终计票", now)
    draft = announce.draft_final(rt, state, window, tally, now, correction=current is not None
                                 and current.state in announce.SENT, actor=DIRECTOR)
    rt.store.save_tally(day, tally, at=now)
    for key in [f"stale_published:{d.id}" for d in announce.final_drafts(rt.outbox, day)]:
        if rt.store.get_meta(key):
            rt.store.set_meta(key, "")
    return draft


# ================================================================= the badge's random draw


def draw_sheriff(rt: Runtime, now: datetime, *, seed: int | None = None, force: bool = False,
                 actor: str = DIRECTOR, notice: bool = True) -> Applied:
    """The random draw for a vacant badge (14人简易: 红牌罚下的警长警徽随机移交; a voted-out
    sheriff who named no successor 30 minutes after the deadline). The seed is recorded:
    anyone can repeat the draw. ``force`` draws where the rule set offers none (yet)."""
    status = badge(rt, now)
    if status.vacancy is None:
        raise DirectorError("警长没有空缺，不需要抽签")
    if not force:
        if status.succession is Succession.VACANT:
            raise DirectorError("本规则下罚下不触发【殉职】，不随机移交（确需抽签请加 --force）")
        if not status.draw_offered(now):
            when = (f"{status.draw_from:%m-%d %H:%M} 起" if status.draw_from else "本规则不")
            raise DirectorError(f"{when}提供随机移交：请先等待 {status.vacancy.previous} 指定继任者"
                                "（确需抽签请加 --force）")
    if not status.candidates:
        raise DirectorError("没有可继任警长的角色")
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    winner = draw(status.candidates, seed)
    extra: dict[str, Any] = {"seed": seed, "candidates": list(status.candidates)}
    if not notice:
        extra["notice"] = False  # said elsewhere (the red card's notice names the new sheriff)
    spec = EventSpec("sheriff", player=winner, at=now, note=f"警徽随机移交（随机种子 {seed}）", extra=extra)
    return enter(rt, spec, now, actor=actor)


__all__ = [
    "DIRECTOR", "Applied", "DayImpact", "DirectorError", "DraftImpact", "EventSpec", "EventView", "Impact",
    "Planned", "RulingChange", "badge", "correct", "describe_event", "draw_sheriff", "enter", "impact",
    "list_events", "plan", "preview", "preview_correct", "preview_retract", "redraft_final", "retract",
    "settle_result",
    "unsettled_days",
]
