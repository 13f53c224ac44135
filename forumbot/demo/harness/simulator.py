"""The simulator as the harness needs it: fast, hookable, and failing at random.

* ``HarnessSimulator`` is a ``Simulator`` of either generation and charset
  (``HarnessSimulator(clock=…, discuz="7.2", charset="gbk")``) with a chosen fault plan.
  It serves with TCP_NODELAY: the stock handler writes the headers and the body in two
  sends, so Nagle's algorithm meets the client's delayed ACK and every exchange waits
  ~40 ms; a soak run makes tens of thousands of requests.
* ``on_bot_post`` is called in the server thread right after the forum stored a post by
  the bot and BEFORE the response is written: the crash harness kills the agent there,
  inside the window between "the forum has the post" and "the agent recorded it".
* The switches a test flips are the simulator's ``settings`` (captcha, moderation,
  newbie period, …); ``release_post`` is the moderator approving a held reply.
* ``RandomFaults`` is a ``FaultPlan`` that, besides the planned faults, makes a seeded
  fraction of requests fail in the simulator's ways. A slow answer to a reply POST is
  slow AFTER the store (the post is in, the answer comes too late), as a busy PHP process
  is: slow-before-store would finish storing after the client gave up, at a wall-clock
  moment an accelerated game cannot relate to its poll interval (see ``forumbot.demo.soak``).
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from typing import Callable

from forumbot.simulator import Simulator
from forumbot.simulator.faults import Fault, FaultPlan, PlannedFault
from forumbot.simulator.model import StoredPost
from forumbot.simulator.pm import PmMessage
from forumbot.simulator.server import QuietServer, ServerCore, make_handler

# The faults a real forum shows, each with a weight (how often it is picked).
DEFAULT_MIX: dict[Fault, float] = {
    Fault.SERVER_ERROR: 3,
    Fault.SLOW: 1,
    Fault.DROP_BEFORE_STORE: 2,
    Fault.DROP_AFTER_STORE: 2,
    Fault.TRUNCATE: 2,
    Fault.SESSION_EXPIRE: 1,
    Fault.SITE_CLOSED: 1,
}

_POSTING = ("action=reply", "action=edit", "module=sendreply")


def is_posting(target: str) -> bool:
    return any(p in target for p in _POSTING)


class RandomFaults(FaultPlan):
    """Planned faults first; otherwise each request fails with probability ``rate``, the
    kind drawn from ``mix`` with a seeded generator. ``enabled`` switches the random part."""

    def __init__(self, rate: float, seed: int = 0, mix: dict[Fault, float] | None = None,
                 slow_delay: float = 1.5) -> None:
        super().__init__()
        if not 0 <= rate < 1:
            raise ValueError("rate must be in [0, 1)")
        self.rate = rate
        self.mix = dict(mix or DEFAULT_MIX)
        self.slow_delay = slow_delay
        self.enabled = True
        self.injected: Counter[Fault] = Counter()
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()

    def add_slow_after(self, match: str | None, after: float, times: int = 1) -> PlannedFault:
        """A planned SLOW that answers ``after`` wall seconds late, AFTER handling the
        request (a reply is stored, the answer misses the client's timeout)."""
        fault = PlannedFault(Fault.SLOW, match, times, after=after)
        with self._lock:
            self._faults.append(fault)
        return fault

    def take(self, target: str) -> PlannedFault | None:
        planned = super().take(target)
        if planned is not None or not self.enabled or self.rate <= 0:
            return planned
        with self._rng_lock:
            if self._rng.random() >= self.rate:
                return None
            kind = self._rng.choices(list(self.mix), weights=list(self.mix.values()))[0]
        fault: PlannedFault
        if kind is Fault.SLOW and is_posting(target):
            fault = PlannedFault(Fault.SLOW, None, 0, after=self.slow_delay)
        else:
            fault = PlannedFault(kind, None, 0, delay=self.slow_delay)
        with self._lock:
            self.fired.append((kind, target))
            self.injected[kind] += 1
        return fault


class HarnessSimulator(Simulator):
    """A ``Simulator`` with TCP_NODELAY, ``on_bot_post`` / ``on_bot_pm`` hooks and a chosen fault plan."""

    def __init__(self, *args: object, faults: FaultPlan | None = None, bot_name: str | None = None,
                 **kwargs: object) -> None:
        self._fault_plan = faults
        self._bot_name = bot_name
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def _make_server(self) -> ServerCore:
        if self._fault_plan is not None:
            self.faults = self._fault_plan
        server = super()._make_server()
        server.bot_name = self._bot_name
        return server

    @property
    def on_bot_post(self) -> Callable[[StoredPost], None] | None:
        return self.server.on_bot_post

    @on_bot_post.setter
    def on_bot_post(self, hook: Callable[[StoredPost], None] | None) -> None:
        self.server.on_bot_post = hook

    @property
    def on_bot_pm(self) -> Callable[[PmMessage], None] | None:
        return self.server.on_bot_pm

    @on_bot_pm.setter
    def on_bot_pm(self, hook: Callable[[PmMessage], None] | None) -> None:
        self.server.on_bot_pm = hook

    def _bind(self) -> QuietServer:
        handler = type("NoDelayHandler", (make_handler(self),), {"disable_nagle_algorithm": True})
        return QuietServer((self.host, self.port), handler)
