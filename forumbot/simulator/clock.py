"""The simulator's forum clock: a manual clock tests move by hand.

Discuz prints every time in the site's zone (``timeoffset`` 8 on the captured forum), so
the clock is timezone-aware and defaults to Beijing time. Anything with a ``now()``
method (e.g. ``forumbot.game.clock.AcceleratedClock`` for demos) can stand in for it.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

BEIJING = ZoneInfo("Asia/Shanghai")


class ForumClock(Protocol):
    def now(self) -> datetime: ...


class WallClock:
    """The forum's own clock: real time in the site's zone (``forumbot simulate``)."""

    def __init__(self, tz: ZoneInfo = BEIJING) -> None:
        self.tz = tz

    def now(self) -> datetime:
        return datetime.now(self.tz)


class SimClock:
    """A clock that only moves when told to (``advance`` / ``set``); thread-safe."""

    def __init__(self, start: datetime | None = None, tz: ZoneInfo = BEIJING) -> None:
        if start is None:
            start = datetime(2026, 11, 30, 9, 0, tzinfo=tz)
        if start.tzinfo is None:
            raise ValueError("SimClock start must be timezone-aware")
        self._now = start.astimezone(tz)
        self.tz = tz
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, seconds: float = 0, **delta: float) -> datetime:
        """Move forward by ``seconds`` (and/or ``minutes=``, ``hours=``, ``days=``)."""
        step = timedelta(seconds=seconds, **delta)
        if step < timedelta(0):
            raise ValueError("SimClock cannot go backwards with advance(); use set()")
        with self._lock:
            self._now = self._now + step
            return self._now

    def set(self, when: datetime) -> None:
        if when.tzinfo is None:
            raise ValueError("SimClock.set needs a timezone-aware datetime")
        with self._lock:
            self._now = when.astimezone(self.tz)

    def sleep(self, seconds: float) -> None:
        """Game-time sleep: advances the clock instead of waiting."""
        if seconds > 0:
            self.advance(seconds=seconds)
