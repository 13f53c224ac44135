"""The director's changes to the schedule, each with the game time it was made at (``at``).

Each is a record; ``schedule()`` applies them in the order of ``at`` and every later day
follows from the changed one. What each may do is checked against the schedule as it
stood when it was made: a day's deadline can be moved or the day lengthened until it has
closed, a day closed early only while it is open, a start moved only before it comes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from engine.calendar.words import span_zh, when_zh

__all__ = ["Change", "CloseEarly", "ExtendDay", "MoveDeadline", "MoveStart"]


@dataclass(frozen=True)
class MoveDeadline:
    """The day closes at ``deadline`` instead (earlier or later, while it is still open)."""

    day: int
    deadline: datetime
    at: datetime
    why: str = ""

    def describe_zh(self) -> str:
        return f"第{self.day}日的截止改到 {when_zh(self.deadline)}"


@dataclass(frozen=True)
class ExtendDay:
    """The day closes ``by`` later than it would (延长一天: ``timedelta(days=1)``). Kept
    relative: a day lengthened ahead of time stays that much longer when an earlier day's
    change moves it."""

    day: int
    by: timedelta
    at: datetime
    why: str = ""

    def describe_zh(self) -> str:
        return f"第{self.day}日延长{span_zh(self.by)}"


@dataclass(frozen=True)
class CloseEarly:
    """An accelerated day closes when the director says: at ``close_at``, or at once (``at``)."""

    day: int
    at: datetime
    close_at: datetime | None = None
    why: str = ""

    @property
    def closes(self) -> datetime:
        return self.close_at if self.close_at is not None else self.at

    def describe_zh(self) -> str:
        return f"第{self.day}日提前于 {when_zh(self.closes)} 截止"


@dataclass(frozen=True)
class MoveStart:
    """The day opens at ``start`` instead (before it has opened); its deadline follows
    from the new start unless it was set."""

    day: int
    start: datetime
    at: datetime
    why: str = ""

    def describe_zh(self) -> str:
        return f"第{self.day}日的开始改到 {when_zh(self.start)}"


Change = MoveDeadline | ExtendDay | CloseEarly | MoveStart
