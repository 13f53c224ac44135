"""What a proposed change would move, before the director confirms it (SPEC §11: the
change freeze moves with the deadline)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Sequence

from engine.calendar.changes import Change
from engine.calendar.compute import Calendar, schedule
from engine.calendar.days import Schedule
from engine.calendar.words import when_zh

__all__ = ["Preview", "Shift", "ShiftField", "preview"]


class ShiftField(StrEnum):
    START = "start"
    FREEZE = "freeze"
    DEADLINE = "deadline"


FIELD_ZH = {ShiftField.START: "开始", ShiftField.FREEZE: "改票截止", ShiftField.DEADLINE: "截止"}


@dataclass(frozen=True)
class Shift:
    day: int
    what: ShiftField
    old: datetime | None
    new: datetime | None

    def describe_zh(self) -> str:
        return f"第{self.day}日{FIELD_ZH[self.what]}：{when_zh(self.old)} → {when_zh(self.new)}"

    def as_json(self) -> dict[str, Any]:
        return {"day": self.day, "what": self.what.value,
                "old": self.old.isoformat() if self.old else None, "new": self.new.isoformat() if self.new else None}


@dataclass(frozen=True)
class Preview:
    change: Change
    shifts: tuple[Shift, ...]  # by day, then start, freeze, deadline
    warnings: tuple[str, ...]  # what the director should know before confirming (Chinese)
    before: Schedule
    after: Schedule

    def lines_zh(self) -> tuple[str, ...]:
        return (self.change.describe_zh() + "：", *("  " + s.describe_zh() for s in self.shifts),
                *("注意：" + w for w in self.warnings))

    def as_json(self) -> dict[str, Any]:
        return {"change": self.change.describe_zh(), "shifts": [s.as_json() for s in self.shifts],
                "warnings": list(self.warnings)}


def preview(cal: Calendar, changes: Sequence[Change], proposed: Change, days: int | None = None) -> Preview:
    """The schedule with ``changes`` and with ``changes`` + ``proposed``, and what differs:
    every day's start, freeze and deadline that moves, old → new. Days 1 … ``days`` (at
    least the changed day and the one after it). A change that cannot be made raises
    ``CalendarError`` saying why."""
    count = max(days or 0, proposed.day + 1)
    before = schedule(cal, count, changes)
    after = schedule(cal, count, (*changes, proposed))
    shifts = []
    for old, new in zip(before.days, after.days):
        for what in (ShiftField.START, ShiftField.FREEZE, ShiftField.DEADLINE):
            a, b = getattr(old, what.value), getattr(new, what.value)
            if a != b:
                shifts.append(Shift(old.number, what, a, b))
    warnings = []
    changed = after.day(proposed.day)
    was = before.day(proposed.day)
    if changed.freeze is not None and was.freeze is not None and changed.freeze < was.freeze \
            and changed.freeze <= proposed.at:
        # The rule is about post times: changes already posted after the new freeze
        # become void (SPEC §3.4), which the director may not mean.
        warnings.append(f"第{proposed.day}日的改票截止提前到 {when_zh(changed.freeze)}，已经过去："
                        f"{when_zh(changed.freeze)} 以后发的改票都将作废")
    return Preview(proposed, tuple(shifts), tuple(warnings), before, after)
