"""The calendar (SPEC §11): when each day opens and closes, its change freeze and its
reminders, by the rule set — pure: no clock, no I/O; ``now`` and ``at`` are arguments.

* ``rules`` — ``DayRule`` per rule set (opening and closing time, which days lengthen a day).
* ``compute`` — ``Calendar`` (``calendar_for(ruleset, start, tz, …)``) and
  ``schedule(calendar, days, changes)`` → ``Schedule``; ``fixed_schedule`` for a game
  whose days are all written out.
* ``days`` — the records: ``ScheduledDay`` (start, deadline, freeze, reminders, where
  each came from), ``Schedule`` (``open_at``, ``milestones``, ``next_milestone``,
  ``as_json``), ``DayTimes`` (a day's own times), ``CalendarError``.
* ``changes`` — the director's changes: ``MoveDeadline``, ``ExtendDay``, ``CloseEarly``,
  ``MoveStart``, each with the game time it was made at.
* ``preview`` — ``preview(calendar, changes, proposed)`` → ``Preview``: what moves.
* ``words`` — moments as the director reads them (2026-12-05 周六 21:30).
"""

from engine.calendar.changes import Change, CloseEarly, ExtendDay, MoveDeadline, MoveStart
from engine.calendar.compute import CHINA, HOUR, Calendar, calendar_for, fixed_schedule, schedule
from engine.calendar.days import (
    CalendarError, DayTimes, DeadlineBy, Milestone, MilestoneKind, Reminder, ReminderKind, Schedule,
    ScheduledDay, StartBy,
)
from engine.calendar.preview import Preview, Shift, ShiftField, preview
from engine.calendar.rules import DAY_RULES, DayRule, Lengthen, day_rule
from engine.calendar.words import day_zh, span_zh, when_zh

__all__ = [
    "CHINA", "DAY_RULES", "HOUR", "Calendar", "CalendarError", "Change", "CloseEarly", "DayRule", "DayTimes",
    "DeadlineBy", "ExtendDay", "Lengthen", "Milestone", "MilestoneKind", "MoveDeadline", "MoveStart", "Preview",
    "Reminder", "ReminderKind", "Schedule", "ScheduledDay", "Shift", "ShiftField", "StartBy", "calendar_for",
    "day_rule", "day_zh", "fixed_schedule", "preview", "schedule", "span_zh", "when_zh",
]
