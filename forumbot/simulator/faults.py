"""Fault injection: make the next N matching requests fail the way real forums fail.

``match`` is a substring of the request's path+query (``"mod=post&action=reply"``); no
match means any request. Each fault fires ``times`` times, then is spent.

* ``SERVER_ERROR`` — answer ``status`` (default 500) with a short error page.
* ``SLOW`` — wait ``delay`` real seconds, then answer normally (for client timeouts);
  with ``after`` the wait comes after the request was handled (a reply is stored, the
  answer misses the client's timeout), as a busy PHP process is.
* ``DROP_BEFORE_STORE`` — close the connection without an answer; nothing is stored.
* ``DROP_AFTER_STORE`` — handle the request (a reply IS stored), then close the
  connection without an answer: the client cannot know its post went through.
* ``TRUNCATE`` — answer normally but cut the body in half; the response has no
  Content-Length and ends when the connection closes, as a PHP process dying mid-page does.
* ``SESSION_EXPIRE`` — every login session is forgotten before this request is handled:
  the auth cookie is no longer honoured, the viewer is a guest (``discuz_uid = '0'``).
* ``SITE_CLOSED`` — this request sees the site closed (``reason``, default the captured
  "论坛维护中，预计 10 分钟后恢复。").
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum

DEFAULT_CLOSED_REASON = "论坛维护中，预计 10 分钟后恢复。"


class Fault(StrEnum):
    SERVER_ERROR = "server_error"
    SLOW = "slow"
    DROP_BEFORE_STORE = "drop_before_store"
    DROP_AFTER_STORE = "drop_after_store"
    TRUNCATE = "truncate"
    SESSION_EXPIRE = "session_expire"
    SITE_CLOSED = "site_closed"


@dataclass
class PlannedFault:
    kind: Fault
    match: str | None
    remaining: int
    delay: float = 0.0
    status: int = 500
    reason: str = DEFAULT_CLOSED_REASON
    after: float = 0.0  # seconds to wait after handling, before answering

    def matches(self, target: str) -> bool:
        return self.remaining > 0 and (self.match is None or self.match in target)


class FaultPlan:
    """The faults waiting to fire; ``take`` hands out (and uses up) the first that matches."""

    def __init__(self) -> None:
        self._faults: list[PlannedFault] = []
        self._lock = threading.Lock()
        self.fired: list[tuple[Fault, str]] = []

    def add(self, kind: Fault, match: str | None = None, times: int = 1, delay: float = 0.0,
            status: int = 500, reason: str = DEFAULT_CLOSED_REASON,
            after: float = 0.0) -> PlannedFault:
        if times < 1:
            raise ValueError("a fault must fire at least once (times >= 1)")
        fault = PlannedFault(Fault(kind), match, times, delay, status, reason, after)
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def take(self, target: str) -> PlannedFault | None:
        with self._lock:
            for fault in self._faults:
                if fault.matches(target):
                    fault.remaining -= 1
                    self.fired.append((fault.kind, target))
                    return fault
            return None

    @property
    def pending(self) -> list[PlannedFault]:
        with self._lock:
            return [f for f in self._faults if f.remaining > 0]
