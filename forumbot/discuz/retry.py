"""Retry policy as data; tenacity does the waiting (with the injected sleep).

What retries: :class:`~forumbot.discuz.errors.ForumUnavailable` only (a refusal is an answer,
repeating it changes nothing). A request that is not idempotent (a reply POST) retries
only when it surely never left (``sent`` is False: connection refused, connect
timeout); once it may have reached the server it is raised, because the forum may have
stored the post and the agent must look for its marker before sending again.

Waits grow exponentially from ``base_wait`` up to ``max_wait``, each scaled by a random
factor in ``[1 - jitter, 1 + jitter]`` drawn from the injected ``random.Random``.
Each retry logs one line, e.g.
``retry 2/5 GET forum.php?mod=viewthread&tid=12&page=3 after ReadTimeout; waiting 4.3 s``.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass, field
from typing import Callable, TypeVar

import tenacity

from forumbot.discuz.errors import ForumUnavailable

__all__ = ["DEFAULT", "NO_RETRY", "RetryPolicy", "call_with_retry"]

T = TypeVar("T")
log = logging.getLogger("forumbot.client")


@dataclass(frozen=True)
class RetryPolicy:
    retry_on: tuple[type[BaseException], ...] = (ForumUnavailable,)
    max_attempts: int = 5
    base_wait: float = 2.0
    max_wait: float = 60.0
    jitter: float = 0.25  # ± fraction of each wait
    rng: random.Random = field(default_factory=lambda: random.Random(), compare=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if not 0 <= self.jitter < 1:
            raise ValueError("jitter must be in [0, 1)")

    def should_retry(self, error: BaseException, *, idempotent: bool) -> bool:
        if not isinstance(error, self.retry_on):
            return False
        if not idempotent and getattr(error, "sent", True):
            return False  # may have been stored: never re-send blindly
        return True

    def longest_waiting(self) -> float:
        """The most a request can spend waiting between its attempts (every retry, each
        wait at its longest): with DEFAULT, 1.25 × (2 + 4 + 8 + 16) = 37.5 s."""
        return sum(min(self.max_wait, self.base_wait * (2 ** (n - 1)) * (1 + self.jitter))
                   for n in range(1, self.max_attempts))

    def wait_before(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        raw = min(self.max_wait, self.base_wait * (2 ** (attempt - 1)))
        factor = 1 + self.rng.uniform(-self.jitter, self.jitter)
        return round(max(0.0, min(self.max_wait, raw * factor)), 3)


DEFAULT = RetryPolicy()
NO_RETRY = RetryPolicy(max_attempts=1)


def call_with_retry(
    fn: Callable[[], T],
    *,
    policy: RetryPolicy,
    describe: str,
    idempotent: bool,
    sleep: Callable[[float], None] = time.sleep,
    logger: logging.Logger = log,
) -> T:
    """Run ``fn`` under ``policy``; ``describe`` is "METHOD path" for the log line."""

    def before_sleep(state: tenacity.RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        cause = getattr(error, "cause_name", type(error).__name__)
        wait = state.next_action.sleep if state.next_action else 0.0
        logger.warning(
            "重试 %d/%d：%s（上次：%s），先等 %.1f 秒",
            state.attempt_number + 1, policy.max_attempts, describe, cause, wait,
        )

    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(policy.max_attempts),
        wait=lambda state: policy.wait_before(state.attempt_number),
        retry=tenacity.retry_if_exception(
            lambda e: policy.should_retry(e, idempotent=idempotent)
        ),
        sleep=sleep,
        before_sleep=before_sleep,
        reraise=True,
    )
    return retrying(fn)
