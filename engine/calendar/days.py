"""The schedule's records: a day's moments and where each came from (SPEC §11, §3.4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import Any

__all__ = ["CalendarError", "DayTimes", "DeadlineBy", "Milestone", "MilestoneKind", "Reminder", "ReminderKind",
           "Schedule", "ScheduledDay", "StartBy"]


class CalendarError(ValueError):
    """A calendar that cannot be laid out, or a change that cannot be made; the message is
    Chinese. ``day`` and ``field`` ("start", "deadline") say what it is about, so a config
    reader can name its key; ``change`` is the director's change that was refused."""

    def __init__(self, message: str, *, day: int | None = None, field: str | None = None,
                 change: Any = None) -> None:
        super().__init__(message)
        self.day, self.field, self.change = day, field, change


class StartBy(StrEnum):
    """Where a day's start comes from."""

    CALENDAR = "calendar"  # day 1: [calendar].start
    RULE = "rule"  # the opening time of the calendar day after the previous deadline
    CONFIG = "config"  # the day's own [[days]].start
    MOVED = "moved"  # the director moved it


class DeadlineBy(StrEnum):
    """Where a day's deadline comes from."""

    RULE = "rule"  # the rule set's closing day and time
    WEEKEND = "weekend"  # … one day later: a weekend day in it (14人简易)
    HOLIDAY = "holiday"  # … one day later: a listed holiday in it
    CONFIG = "config"  # the day's own [[days]].deadline
    MOVED = "moved"  # the director moved it
    EXTENDED = "extended"  # the director lengthened the day
    CLOSED_EARLY = "closed_early"  # the director closed it early (an accelerated day)


@dataclass(frozen=True)
class DayTimes:
    """A day's own times (a ``[[days]]`` block): what is given replaces the computed."""

    number: int
    start: datetime | None = None
    deadline: datetime | None = None


class ReminderKind(StrEnum):
    FREEZE = "freeze"  # before the change freeze (改票截止)
    DEADLINE = "deadline"  # before the deadline (投票截止)


@dataclass(frozen=True)
class Reminder:
    kind: ReminderKind
    before: timedelta  # how long before the freeze or the deadline
    at: datetime

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "minutes_before": int(self.before.total_seconds() // 60),
                "at": self.at.isoformat()}


@dataclass(frozen=True)
class ScheduledDay:
    number: int
    start: datetime
    deadline: datetime
    # No change at or after this (SPEC §3.4: deadline − change window, never before the
    # start); None when the game has no change window.
    freeze: datetime | None
    reminders: tuple[Reminder, ...]  # in time order, each after the start
    start_by: StartBy = StartBy.RULE
    deadline_by: DeadlineBy = DeadlineBy.RULE
    rest_day: date | None = None  # the weekend day or holiday that lengthened it

    def is_open(self, now: datetime) -> bool:
        return self.start <= now < self.deadline

    def as_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "start": self.start.isoformat(),
            "deadline": self.deadline.isoformat(),
            "freeze": self.freeze.isoformat() if self.freeze is not None else None,
            "reminders": [r.as_json() for r in self.reminders],
            "start_by": self.start_by.value,
            "deadline_by": self.deadline_by.value,
            "rest_day": self.rest_day.isoformat() if self.rest_day is not None else None,
        }


class MilestoneKind(StrEnum):
    START = "start"
    REMINDER = "reminder"
    FREEZE = "freeze"
    DEADLINE = "deadline"


_KIND_ORDER = {MilestoneKind.DEADLINE: 0, MilestoneKind.START: 1, MilestoneKind.REMINDER: 2, MilestoneKind.FREEZE: 3}


@dataclass(frozen=True)
class Milestone:
    """A moment the bot acts at: a day opens, a reminder is due, changes end, a day closes."""

    at: datetime
    day: int
    kind: MilestoneKind
    reminder: Reminder | None = None


@dataclass(frozen=True)
class Schedule:
    days: tuple[ScheduledDay, ...]
    tz: Any = field(default=None, compare=False)

    def day(self, number: int) -> ScheduledDay:
        for day in self.days:
            if day.number == number:
                return day
        raise CalendarError(f"日程里没有第{number}日（已排到第{len(self.days)}日）", day=number)

    def open_at(self, now: datetime) -> ScheduledDay | None:
        """The day open at ``now`` (None at night, before the game and after the last day)."""
        return next((d for d in self.days if d.is_open(now)), None)

    def milestones(self) -> tuple[Milestone, ...]:
        """Every day's start, reminders, freeze and deadline, in time order (at one instant
        a day's deadline comes before the next day's start)."""
        out = []
        for d in self.days:
            out.append(Milestone(d.start, d.number, MilestoneKind.START))
            out += [Milestone(r.at, d.number, MilestoneKind.REMINDER, r) for r in d.reminders]
            if d.freeze is not None:
                out.append(Milestone(d.freeze, d.number, MilestoneKind.FREEZE))
            out.append(Milestone(d.deadline, d.number, MilestoneKind.DEADLINE))
        return tuple(sorted(out, key=lambda m: (m.at, m.day, _KIND_ORDER[m.kind])))

    def next_milestone(self, now: datetime) -> Milestone | None:
        """The first moment strictly after ``now`` (what the agent sleeps until)."""
        return next((m for m in self.milestones() if m.at > now), None)

    def as_json(self) -> dict[str, Any]:
        """SPEC §11: ``{"days": [{"number": 1, "start": "…", "deadline": "…", …}, …]}``."""
        return {"days": [d.as_json() for d in self.days]}
