"""The game's days as everything reads them: the config's calendar (or its ``[[days]]``)
with the director's changes kept in the store, and the threads the bot opened.

The config stays the game's description: its ``[calendar]`` and ``[[days]]`` are read each
time (a holiday added to a running game's config is honoured), the store adds what
happened — the changes (``day_changes``), the tids of threads the bot created, the closing
post that settled a deadline's minute. ``with_store_days`` gives the config as the game
now stands; ``Runtime.config`` is that, so status, the desk, the tally, the evidence
export and the agent all read the same days. ``sync_days`` writes the laid-out times into
the store's ``days`` (seeding it from the config the first time).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime, timedelta

from engine.calendar import (
    Calendar, CalendarError, Change, CloseEarly, DayTimes, ExtendDay, MoveDeadline, MoveStart, Schedule,
    calendar_for, schedule,
)
from engine.state import DayWindow
from forumbot.config.gamefile import GameConfig
from forumbot.store import Store
from forumbot.store.days import DayChange, StoredDay

log = logging.getLogger("forumbot.days")

__all__ = ["calendar_of", "change_from", "changes_of", "day_count", "game_schedule", "game_windows",
           "record_change", "sync_days", "with_store_days"]


# --- the director's changes -------------------------------------------------------------

def change_payload(change: Change) -> tuple[str, dict[str, object]]:
    if isinstance(change, MoveDeadline):
        return "move_deadline", {"deadline": change.deadline.isoformat()}
    if isinstance(change, ExtendDay):
        return "extend", {"minutes": int(change.by.total_seconds() // 60)}
    if isinstance(change, CloseEarly):
        return "close_early", {"close_at": change.close_at.isoformat() if change.close_at else None}
    if isinstance(change, MoveStart):
        return "move_start", {"start": change.start.isoformat()}
    raise TypeError(change)


def change_from(row: DayChange) -> Change:
    p = row.payload
    if row.kind == "move_deadline":
        return MoveDeadline(row.day, datetime.fromisoformat(p["deadline"]), row.at, row.why)
    if row.kind == "extend":
        return ExtendDay(row.day, timedelta(minutes=int(p["minutes"])), row.at, row.why)
    if row.kind == "close_early":
        close_at = p.get("close_at")
        return CloseEarly(row.day, row.at, datetime.fromisoformat(close_at) if close_at else None, row.why)
    if row.kind == "move_start":
        return MoveStart(row.day, datetime.fromisoformat(p["start"]), row.at, row.why)
    raise ValueError(f"未知的日程改动 {row.kind!r}（#{row.id}）")


def changes_of(store: Store) -> tuple[Change, ...]:
    return tuple(change_from(row) for row in store.day_changes())


def record_change(store: Store, change: Change, *, actor: str) -> DayChange:
    kind, payload = change_payload(change)
    return store.add_day_change(change.day, kind, payload, at=change.at, actor=actor, why=change.why)


# --- the schedule -----------------------------------------------------------------------

def calendar_of(config: GameConfig) -> Calendar:
    """The config's calendar; for a game of ``[[days]]`` only, a calendar pinned to the
    days as written (each day's start and deadline its own), so a director's change moves
    them the same way."""
    if config.calendar is not None:
        return config.calendar
    days = sorted(config.days, key=lambda d: d.number)
    if not days:
        raise CalendarError("配置里没有任何一日")
    return calendar_for(config.rules.name, days[0].start, config.forum.tz,
                        change_window=timedelta(minutes=config.rules.change_window_minutes),
                        overrides=[DayTimes(d.number, d.start, d.deadline) for d in days])


def day_count(config: GameConfig, changes: tuple[Change, ...] = ()) -> int:
    numbers = [d.number for d in config.days] + [c.day for c in changes]
    return max(numbers) if numbers else 0


def applicable(config: GameConfig, changes: tuple[Change, ...]) -> tuple[Change, ...]:
    """The changes that still apply: one the config no longer allows (the director edited
    a time under it) is left out and logged, never fatal — the agent must keep counting."""
    if not changes:
        return ()
    count = day_count(config, changes)
    kept = list(changes)
    while True:
        try:
            schedule(calendar_of(config), count, kept)
            return tuple(kept)
        except CalendarError as exc:
            if exc.change is None or exc.change not in kept:
                raise
            log.warning("日程改动不再适用，已忽略：%s", exc)
            kept.remove(exc.change)


def game_schedule(config: GameConfig, changes: tuple[Change, ...], days: int | None = None) -> Schedule:
    """Days 1 … ``days`` (default: every configured or changed day) with the changes."""
    return schedule(calendar_of(config), days or day_count(config, changes), applicable(config, changes))


def game_windows(config: GameConfig, store: Store) -> tuple[DayWindow, ...]:
    """The game's days: times from ``game_schedule``; threads and the deadline's pid as the
    config names them, else as the store recorded them (the bot's own threads and closing
    post)."""
    changes = changes_of(store)
    stored = {d.number: d for d in store.stored_days()}
    own = {d.number: d for d in config.days}
    if not changes and config.calendar is None:
        laid = None  # the [[days]] as written, exactly (a day's number may be missing)
        numbers = sorted(own)
    else:
        laid = {d.number: d for d in game_schedule(config, changes).days}
        numbers = sorted(laid)
    out = []
    for number in numbers:
        base = own.get(number) or DayWindow(number, laid[number].start, laid[number].deadline)
        if laid is not None:
            base = replace(base, start=laid[number].start, deadline=laid[number].deadline)
        kept = stored.get(number)
        if kept is not None:
            base = _with_record(base, kept)
        out.append(base)
    return tuple(out)


def _with_record(window: DayWindow, kept: StoredDay) -> DayWindow:
    return replace(
        window,
        vote_thread=window.vote_thread or kept.vote_thread,
        discussion_thread=window.discussion_thread or kept.discussion_thread,
        progress_thread=window.progress_thread or kept.progress_thread,
        deadline_pid=window.deadline_pid or kept.deadline_pid,
    )


def with_store_days(config: GameConfig, store: Store) -> GameConfig:
    """The config as the game now stands: its days those of ``game_windows``, its nights'
    phases with the director's extensions (``forumbot.game.nightplan``) after the config's."""
    origin = config.origin or config
    days = game_windows(origin, store)
    settings = origin.night_settings
    kept = tuple((e.night, e.phase, e.minutes) for e in store.night_extensions())
    if kept:
        settings = replace(settings, extensions=(*settings.extensions, *kept))
    return replace(origin, state=replace(origin.state, days=days), origin=origin,
                   changes=applicable(origin, changes_of(store)), night_settings=settings)


def sync_days(config: GameConfig, store: Store, at: datetime) -> bool:
    """Write every day's laid-out start, deadline and freeze into the store (its first
    opening seeds it from the config). True when anything changed."""
    origin = config.origin or config
    changes = changes_of(store)
    if not origin.days and not changes:
        return False
    laid = game_schedule(origin, changes) if (changes or origin.calendar is not None) else None
    if laid is not None:
        rows = [(d.number, d.start, d.deadline, d.freeze) for d in laid.days]
    else:
        window = timedelta(minutes=origin.rules.change_window_minutes)
        rows = [(d.number, d.start, d.deadline, max(d.start, d.deadline - window) if window else None)
                for d in origin.days]
    return store.save_times(rows, at=at)
