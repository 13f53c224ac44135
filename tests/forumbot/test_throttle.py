"""The minimum interval between requests, proven with a fake clock (no real sleep)."""

from __future__ import annotations

import pytest

from forumbot.discuz.throttle import Throttle


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_throttle__first_request_goes_at_once():
    clock = FakeClock()
    assert Throttle(2.0, clock, clock.sleep).wait() == 0.0
    assert clock.slept == []


def test_throttle__back_to_back_requests_are_spaced_by_min_interval():
    clock = FakeClock()
    t = Throttle(2.0, clock, clock.sleep)
    sent_at = []
    for _ in range(4):
        t.wait()
        sent_at.append(clock.now)
    assert [b - a for a, b in zip(sent_at, sent_at[1:])] == [2.0, 2.0, 2.0]


@pytest.mark.parametrize(("elapsed", "expected_sleep"), [(0.5, 1.5), (1.99, 0.01), (2.0, 0.0), (30.0, 0.0)])
def test_throttle__waits_only_the_remainder(elapsed, expected_sleep):
    clock = FakeClock()
    t = Throttle(2.0, clock, clock.sleep)
    t.wait()
    clock.now += elapsed
    assert t.wait() == pytest.approx(expected_sleep)


def test_throttle__zero_interval_never_sleeps():
    clock = FakeClock()
    t = Throttle(0.0, clock, clock.sleep)
    for _ in range(3):
        t.wait()
    assert clock.slept == []


def test_throttle__negative_interval_is_rejected():
    with pytest.raises(ValueError, match="min_interval"):
        Throttle(-1.0)
