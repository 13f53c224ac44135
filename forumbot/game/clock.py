"""Time sources. The agent never calls ``datetime.now()`` directly: it asks a clock.

``SystemClock`` is the real one. ``AcceleratedClock`` runs game time faster than wall
time (the demo plays three days in a minute); because it is defined by a fixed origin in
wall-clock seconds, two processes given the same origin agree on the time — the
simulator and an agent in a subprocess see the same forum clock.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Callable, Protocol
from zoneinfo import ZoneInfo

BEIJING = ZoneInfo("Asia/Shanghai")


class Clock(Protocol):
    def now(self) -> datetime: ...

    def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` of *game* time."""
        ...


def wait(clock: Clock, stop: threading.Event, seconds: float) -> bool:
    """Wait ``seconds`` of game time or until ``stop`` is set (True if it was): a signal
    that asks the agent to stop is honoured at once, not after the sleep."""
    scale = getattr(clock, "wall_seconds", None)
    if scale is None:  # a manual clock: game time moves only when told
        clock.sleep(seconds)
        return stop.is_set()
    return stop.wait(scale(seconds))


@dataclass
class SystemClock:
    tz: tzinfo = BEIJING

    def now(self) -> datetime:
        return datetime.now(self.tz)

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def wall_seconds(self, seconds: float) -> float:
        return max(0.0, seconds)


@dataclass
class AcceleratedClock:
    """Game time = ``origin`` + ``factor`` × (wall seconds since ``wall_origin``)."""

    origin: datetime
    factor: float = 60.0
    wall_origin: float = field(default_factory=time.time)
    wall: Callable[[], float] = time.time
    real_sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        if self.origin.tzinfo is None:
            raise ValueError("AcceleratedClock origin must be timezone-aware")
        if self.factor <= 0:
            raise ValueError("AcceleratedClock factor must be positive")

    def now(self) -> datetime:
        elapsed = (self.wall() - self.wall_origin) * self.factor
        return self.origin + timedelta(seconds=elapsed)

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.real_sleep(seconds / self.factor)

    def wall_seconds(self, seconds: float) -> float:
        return max(0.0, seconds / self.factor)
