"""Keep at least ``min_interval`` seconds between any two requests to the forum.

Discuz's CC protection (attackevasive bit 1) answers a bare "频繁刷新限制" page to
requests less than a second apart, and forums dislike bots in general: DISCUZ.md §7 says
keep 2 s. The clock and the sleep are injected so tests prove the spacing without
sleeping (prawcore ``rate_limit.py`` keeps the same shape).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Throttle:
    min_interval: float = 2.0
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    _last: float | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.min_interval < 0:
            raise ValueError(f"min_interval must be >= 0, got {self.min_interval}")

    def wait(self) -> float:
        """Sleep until a request may go, mark it as sent now; returns the seconds slept."""
        waited = 0.0
        if self._last is not None:
            due = self._last + self.min_interval
            now = self.clock()
            if now < due:
                waited = due - now
                self.sleep(waited)
        self._last = self.clock()
        return waited

    def reset(self) -> None:
        self._last = None

    @property
    def ready_at(self) -> float | None:
        """When (clock seconds) the next request may go without waiting; None: now."""
        return None if self._last is None else self._last + self.min_interval
