"""Retry policy as data, tenacity doing the waiting with an injected sleep."""

from __future__ import annotations

import logging
import random

import httpx
import pytest

from forumbot.discuz.errors import ForumUnavailable, ThreadClosed, UnavailableReason
from forumbot.discuz.retry import RetryPolicy, call_with_retry


def unavailable(sent: bool = True) -> ForumUnavailable:
    return ForumUnavailable(
        "down", reason=UnavailableReason.TIMEOUT, sent=sent, original=httpx.ReadTimeout("slow")
    )


class Flaky:
    def __init__(self, failures: list[BaseException]) -> None:
        self.failures = list(failures)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return "ok"


def test_retry__get_retries_until_success_with_exponential_waits():
    sleeps: list[float] = []
    fn = Flaky([unavailable(), unavailable()])
    policy = RetryPolicy(max_attempts=5, base_wait=2.0, jitter=0.0)
    assert call_with_retry(fn, policy=policy, describe="GET x", idempotent=True, sleep=sleeps.append) == "ok"
    assert fn.calls == 3 and sleeps == [2.0, 4.0]


def test_retry__gives_up_after_max_attempts_and_reraises_original():
    fn = Flaky([unavailable() for _ in range(5)])
    with pytest.raises(ForumUnavailable):
        call_with_retry(fn, policy=RetryPolicy(max_attempts=3, jitter=0.0), describe="GET x",
                        idempotent=True, sleep=lambda s: None)
    assert fn.calls == 3


def test_retry__refusals_are_never_retried():
    fn = Flaky([ThreadClosed("抱歉，本主题已关闭，不再接受新内容")])
    with pytest.raises(ThreadClosed):
        call_with_retry(fn, policy=RetryPolicy(), describe="POST x", idempotent=True, sleep=lambda s: None)
    assert fn.calls == 1


@pytest.mark.parametrize(("sent", "calls"), [(True, 1), (False, 2)], ids=["maybe-stored", "never-left"])
def test_retry__post_retries_only_when_surely_not_sent(sent, calls):
    fn = Flaky([unavailable(sent=sent)])
    try:
        call_with_retry(fn, policy=RetryPolicy(jitter=0.0), describe="POST reply", idempotent=False,
                        sleep=lambda s: None)
    except ForumUnavailable:
        pass
    assert fn.calls == calls


def test_retry__waits_are_capped_and_jitter_stays_in_bounds():
    policy = RetryPolicy(base_wait=2.0, max_wait=10.0, jitter=0.25, rng=random.Random(7))
    waits = [policy.wait_before(n) for n in range(1, 9) for _ in range(20)]
    assert all(0 < w <= 10.0 for w in waits)
    assert {round(policy.wait_before(1), 1) for _ in range(50)} - {2.0}  # jitter varies it
    assert all(1.5 <= RetryPolicy(jitter=0.25, rng=random.Random(i)).wait_before(1) <= 2.5 for i in range(50))


def test_retry__one_log_line_per_retry(caplog):
    caplog.set_level(logging.WARNING, logger="forumbot.client")
    fn = Flaky([unavailable(), unavailable()])
    call_with_retry(fn, policy=RetryPolicy(max_attempts=5, base_wait=2.0, jitter=0.0),
                    describe="GET forum.php?mod=viewthread&tid=12&page=3", idempotent=True, sleep=lambda s: None)
    assert [r.getMessage() for r in caplog.records] == [
        "重试 2/5：GET forum.php?mod=viewthread&tid=12&page=3（上次：ReadTimeout），先等 2.0 秒",
        "重试 3/5：GET forum.php?mod=viewthread&tid=12&page=3（上次：ReadTimeout），先等 4.0 秒",
    ]


@pytest.mark.parametrize("bad", [{"max_attempts": 0}, {"jitter": 1.5}])
def test_retry__policy_rejects_nonsense(bad):
    with pytest.raises(ValueError):
        RetryPolicy(**bad)
