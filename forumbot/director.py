"""What the director does, as library calls: the CLI (and later the desk) are thin layers
over these. Every call that changes the game goes through the store's event log and
audit log with the actor named; nothing here talks to the forum.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.acceleration import AccelerationStatus, acceleration_requests
from engine.cards import Card, CardLedger, Decision
from engine.reasons import describe_zh
from engine.state import DayWindow, GameState, StateError
from forumbot.drafting import announcement_body, card_notice_body, count_body, counts_only
from forumbot.game import count_day, current_state, day_at, state_for_day
from forumbot.outbox import Draft, DraftKind, DraftState
from forumbot.runtime import Runtime
from forumbot.store.records import CardColor, EventKind
from forumbot.views import CARD_NAMES, CardLine, CardTotals, format_left

DIRECTOR = "director"
OUT_REASONS = {"vote": "投票出局", "night": "夜晚出局", "red": "红牌罚下", "other": "其他"}


class DirectorError(Exception):
    """A director command that cannot be carried out; the message says why."""


def _state(rt: Runtime) -> GameState:
    return current_state(rt.config, rt.store)


def _check(state: GameState, change) -> GameState:
    """Apply ``change`` to the current state first: a wrong name fails here, before
    anything is written."""
    try:
        return change(state)
    except StateError as exc:
        raise DirectorError(str(exc)) from None


def _player(state: GameState, name: str) -> str:
    if name in state.players:
        return name
    from parsers.text import normalise_name

    wanted = normalise_name(name)
    matches = [p for p in state.players if normalise_name(p) == wanted]
    if len(matches) == 1:
        return matches[0]
    raise DirectorError(f"{name!r} is not a player (players: {', '.join(state.players)})")


def _day_number(rt: Runtime, state: GameState, day: int | None, now: datetime) -> int:
    if day is not None:
        try:
            state.day(day)
        except StateError as exc:
            raise DirectorError(str(exc)) from None
        return day
    current = day_at(state, now)
    if current is None:
        raise DirectorError("no day has started yet: give --day")
    return current.number


# ---------------------------------------------------------------- game changes


def record_night(rt: Runtime, day: int, out: list[str], now: datetime) -> list[str]:
    """Who went out during the night before ``day``'s morning, in the order they went."""
    state = _state(rt)
    names = [_player(state, n) for n in out]
    if len(set(names)) != len(names):
        raise DirectorError("a player is named twice")
    _day_number(rt, state, day, now)
    for name in names:
        record = state.out_record(name)
        if record is not None and "night" not in record.why and "夜" not in record.why:
            raise DirectorError(f"{name} is already out ({record.why})")
    rt.store.record_night(day, names, actor=DIRECTOR, at=now)
    return names


def put_out(rt: Runtime, name: str, why: str, now: datetime, day: int | None = None) -> str:
    state = _state(rt)
    player = _player(state, name)
    reason = OUT_REASONS.get(why, why)
    _check(state, lambda s: s.put_out(player, now, reason))
    rt.store.append_event(_day_number(rt, state, day, now), EventKind.OUT,
                          {"player": player, "why": reason, "at": now.isoformat()}, actor=DIRECTOR, at=now)
    return player


def set_sheriff(rt: Runtime, name: str | None, now: datetime) -> str | None:
    state = _state(rt)
    player = _player(state, name) if name else None
    _check(state, lambda s: s.set_sheriff(player, now, "director"))
    rt.store.append_event(_day_number(rt, state, None, now), EventKind.SHERIFF,
                          {"player": player, "why": "导演指定", "at": now.isoformat()}, actor=DIRECTOR, at=now)
    return player


def accelerate(rt: Runtime, day: int, now: datetime) -> DayWindow:
    state = _state(rt)
    window = state.day(_day_number(rt, state, day, now))
    rt.store.append_event(window.number, EventKind.ACCELERATE, {"accelerated": True, "at": now.isoformat()},
                          actor=DIRECTOR, at=now)
    return window


def substitute(rt: Runtime, old: str, new: str, now: datetime) -> str:
    state = _state(rt)
    changed = _check(state, lambda s: s.substitute(old, new, now, "director"))
    seat = changed.seat_of(new)
    rt.store.append_event(_day_number(rt, state, None, now) if state.days else 0, EventKind.SUBSTITUTE,
                          {"old": old, "new": new, "at": now.isoformat()}, actor=DIRECTOR, at=now)
    return seat or old


def add_alias(rt: Runtime, name: str, alias: str, now: datetime) -> str:
    state = _state(rt)
    player = _player(state, name)
    _check(state, lambda s: s.alias(alias, player, "director"))
    day = day_at(state, now)
    rt.store.append_event(day.number if day else 0, EventKind.ALIAS, {"name": alias, "player": player},
                          actor=DIRECTOR, at=now)
    return player


def void_post(rt: Runtime, pid: int, why: str, now: datetime) -> int:
    """Rule one post void (串号, cheating, a post deleted on the forum…): the tally treats
    it as void with the director's reason, and the player may still vote."""
    if not why.strip():
        raise DirectorError("say why: the reason is shown with the void vote")
    if not rt.store.has_post(pid):
        raise DirectorError(f"post {pid} has not been seen in any game thread")
    state = _state(rt)
    _check(state, lambda s: s.void_post(pid, why))
    tid = rt.store.latest(pid).tid
    days = [d.number for d in state.days if tid in d.threads()]
    day = days[-1] if days else _day_number(rt, state, None, now)
    rt.store.append_event(day, EventKind.VOID, {"pid": pid, "why": why}, actor=DIRECTOR, at=now)
    return day


def reveal_idiot(rt: Runtime, name: str, now: datetime) -> str:
    state = _state(rt)
    player = _player(state, name)
    _check(state, lambda s: s.reveal_idiot(player, now))
    day = day_at(state, now)
    rt.store.append_event(day.number if day else 0, EventKind.IDIOT, {"player": player, "at": now.isoformat()},
                          actor=DIRECTOR, at=now)
    return player


# ---------------------------------------------------------------- cards


@dataclass(frozen=True)
class CardOutcome:
    player: str
    card: str
    sent_off: bool
    badge_to: str | None
    seed: int | None
    draft: Draft | None
    events: tuple[str, ...]


def ledger(rt: Runtime, state: GameState) -> tuple[CardLedger, GameState]:
    """The ledger rebuilt from every card the director gave (in order)."""
    book = CardLedger.for_rules(rt.config.rules)
    for entry in rt.store.cards():
        decision = Decision(player=entry.player, day=entry.day or 0, card=Card(entry.color.value),
                            points=entry.points or 0, why=entry.reason, at=entry.at)
        seed = int(entry.reason.rsplit("seed=", 1)[1].rstrip(")")) if "seed=" in entry.reason else 0
        book, state, _ = book.apply(decision, state, seed=seed)
    return book, state


def give_card(rt: Runtime, name: str, color: str, why: str, now: datetime, *, points: int | None = None,
              proposal_id: int | None = None, seed: int | None = None) -> CardOutcome:
    """The director's card decision: ledger, send-off and badge, a card notice draft."""
    state = _state(rt)
    player = _player(state, name)
    if color not in CARD_NAMES:
        raise DirectorError(f"card must be blue, yellow or red, not {color!r}")
    day = day_at(state, now)
    book, _ = ledger(rt, state)
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    decision = Decision(player=player, day=day.number if day else 0, card=Card(color), points=points or 0,
                        why=why, at=now)
    try:
        book, _, events = book.apply(decision, state, seed=seed)
    except ValueError as exc:
        raise DirectorError(str(exc)) from None
    sent_off = any(e.kind == "sent_off" for e in events)
    badge = next((e for e in events if e.kind == "badge"), None)
    reason = why + (f" (badge draw seed={seed})" if badge else "")
    with rt.store.write():
        proposal = rt.store.proposal(proposal_id) if proposal_id is not None else None
        if proposal is not None and proposal.color.value == color:
            rt.store.accept_proposal(proposal.id, actor=DIRECTOR, at=now, reason=reason, points=points)
        else:
            if proposal is not None:  # the director chose another card than proposed
                rt.store.dismiss_proposal(proposal.id, actor=DIRECTOR, at=now,
                                          why=f"gave {color} instead of {proposal.color.value}")
            rt.store.add_card(player, CardColor(color), reason, actor=DIRECTOR, at=now,
                              day=decision.day, points=points)
        number = decision.day
        if sent_off and not state.is_out(player):
            rt.store.append_event(number, EventKind.OUT, {"player": player, "why": OUT_REASONS["red"],
                                                          "at": now.isoformat()}, actor=DIRECTOR, at=now)
        if badge is not None:
            rt.store.append_event(number, EventKind.SHERIFF,
                                  {"player": badge.new_sheriff, "why": f"警徽随机移交 seed={seed}",
                                   "candidates": list(badge.candidates), "seed": seed, "at": now.isoformat()},
                                  actor=DIRECTOR, at=now)
    standing = book.standing(player)
    totals = CardTotals(blue=standing.blue, yellow=standing.yellow, red=int(standing.sent_off),
                        points=standing.points if rt.config.rules.card_policy.value == "points" else None)
    draft = None
    tid = _notice_thread(day)
    if tid is not None:
        body = card_notice_body(rt.env, player=player, card=color, why=why, totals=totals, sent_off=sent_off,
                                badge_to=badge.new_sheriff if badge else None, badge_seed=seed if badge else None)
        draft = rt.outbox.create_draft(DraftKind.CARD_NOTICE, tid, body, now=now, day=decision.day,
                                       actor=DIRECTOR)
    return CardOutcome(player, color, sent_off, badge.new_sheriff if badge else None,
                       seed if badge else None, draft, tuple(e.detail for e in events))


def _notice_thread(day: DayWindow | None) -> int | None:
    if day is None:
        return None
    return day.progress_thread or day.discussion_thread or day.vote_thread


def dismiss_proposal(rt: Runtime, proposal_id: int, why: str, now: datetime):
    return rt.store.dismiss_proposal(proposal_id, actor=DIRECTOR, at=now, why=why)


# ---------------------------------------------------------------- drafts


def approve(rt: Runtime, draft_id: int, now: datetime, body: str | None = None) -> Draft:
    return rt.outbox.approve(draft_id, DIRECTOR, body=body, now=now)


def reject(rt: Runtime, draft_id: int, why: str, now: datetime) -> Draft:
    return rt.outbox.reject(draft_id, DIRECTOR, why, now=now)


def waiting(rt: Runtime) -> list[Draft]:
    return rt.outbox.awaiting_approval()


def announcement_draft(rt: Runtime, day: int, now: datetime) -> Draft | None:
    """Draft (once) the morning announcement of ``day``: yesterday's vote result, the
    night's outs in order, the sheriff, the cards given since the last announcement."""
    night = rt.store.night_result(day)
    if night is None:
        return None
    key = f"announcement:day{day}"
    existing = rt.outbox.by_dedupe_key(key)
    if existing is not None:
        return existing
    state = _state(rt)
    try:
        window = state.day(day)
    except StateError:
        window = None
    previous = rt.store.tally(day - 1)
    previous_tally = previous.data if previous is not None else None
    if previous_tally is not None:
        # The vote result may not be applied yet (final count still waiting): apply it to
        # what the announcement shows, not to the stored state.
        out = (previous_tally.get("result") or {}).get("out")
        if out and state.out_record(out) is None:
            state = state.put_out(out, now, "vote")
        elected = (previous_tally.get("result") or {}).get("sheriff")
        if elected and state.sheriff is None:
            state = state.set_sheriff(elected, now)
    since = _last_announcement_time(rt)
    cards = tuple(
        CardLine(player=c.player, card_name=CARD_NAMES.get(c.color.value, c.color.value),
                 why=c.reason.split(" (badge draw")[0], sent_off=c.color.value == "red")
        for c in rt.store.cards() if since is None or c.at > since
    )
    body = announcement_body(rt.env, day=day, state=state, previous_tally=previous_tally,
                                   night_out=tuple(night.out), cards=cards)
    tid = None
    if window is not None:
        tid = window.progress_thread or window.discussion_thread or window.vote_thread
    if tid is None:
        prior = [d for d in state.days if d.number < day]
        if prior:
            last = max(prior, key=lambda d: d.number)
            tid = last.progress_thread or last.discussion_thread or last.vote_thread
    if tid is None:
        raise DirectorError(f"day {day}: no thread to post the announcement in")
    return rt.outbox.create_draft(DraftKind.ANNOUNCEMENT, tid, body, now=now, day=day, dedupe_key=key)


def _last_announcement_time(rt: Runtime) -> datetime | None:
    published = [d for d in rt.outbox.drafts(DraftState.PUBLISHED, DraftState.APPROVED, DraftState.PUBLISHING,
                                              DraftState.DRAFT)
                 if d.kind is DraftKind.ANNOUNCEMENT]
    return max((d.created_at for d in published), default=None)


# ---------------------------------------------------------------- looking


@dataclass(frozen=True)
class Status:
    now: datetime
    day: DayWindow | None
    time_left: str | None
    sheriff: str | None
    out: tuple[tuple[str, str], ...]
    tally: dict[str, Any] | None
    drafts_waiting: tuple[Draft, ...]
    failed: tuple[Draft, ...]
    proposals: tuple[Any, ...]
    acceleration: AccelerationStatus | None = None


def status(rt: Runtime, now: datetime) -> Status:
    state = _state(rt)
    day = day_at(state, now)
    tally = None
    acceleration = None
    if day is not None:
        counted = count_day(rt.config, rt.store, day.number)
        tally = counted.data
        if day.progress_thread is not None and not day.accelerated:
            acceleration = acceleration_requests(counted.ballots, counted.state, day.number)
    return Status(
        now=now,
        day=day,
        time_left=format_left(day.deadline - now) if day else None,
        sheriff=state.sheriff,
        out=tuple((r.player, r.why) for r in state.out),
        tally=tally,
        drafts_waiting=tuple(rt.outbox.awaiting_approval()),
        failed=tuple(rt.outbox.drafts(DraftState.FAILED)),
        proposals=tuple(rt.store.proposals(state="proposed")),
        acceleration=acceleration,
    )


def retally(rt: Runtime, day: int, now: datetime) -> tuple[dict[str, Any], bool]:
    """Recount a day from the stored posts (after an alias or a correction)."""
    number = _day_number(rt, _state(rt), day, now)
    data = count_day(rt.config, rt.store, number).data
    changed = rt.store.save_tally(number, data, at=now)
    rt.store.audit(DIRECTOR, "retally", {"day": number, "changed": changed}, at=now)
    return data, changed


def count_now(rt: Runtime, now: datetime) -> Draft:
    """A running count drafted now, whatever the rate limit (the director asked)."""
    state = _state(rt)
    day = day_at(state, now)
    if day is None or day.vote_thread is None:
        raise DirectorError("no voting day is under way")
    if now >= day.deadline:
        # A running count is published without approval; after the deadline only the
        # final count (which the director approves) speaks for the day.
        raise DirectorError(f"day {day.number}'s voting is over: approve its final count "
                            "(reject it after a correction and the bot drafts a new one)")
    data, _ = retally(rt, day.number, now)
    state = state_for_day(rt.config, rt.store, day.number)
    body = count_body(rt.env, data, state=state, rules=rt.config.rules, now=now, final=False,
                      hide_voters=counts_only(rt.config.rules, rt.settings.agent.counts_only))
    return rt.outbox.create_draft(DraftKind.RUNNING_COUNT, day.vote_thread, body, now=now, day=day.number,
                                  actor=DIRECTOR)


def describe_vote(vote: dict[str, Any]) -> str:
    return "有效" if vote.get("valid") else describe_zh(vote.get("reason"))

