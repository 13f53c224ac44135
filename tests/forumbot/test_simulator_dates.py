"""dgmdate 'u' as the simulator prints it: the bands and markup the real forum used."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from forumbot.simulator import BEIJING
from forumbot.simulator.dates import post_time_api, post_time_html, quote_time

NOW = datetime(2026, 11, 30, 1, 4, 0, tzinfo=BEIJING)


def at(**delta: float) -> datetime:
    return NOW - timedelta(**delta)


@pytest.mark.parametrize(("when", "expected"), [
    pytest.param(NOW, '<span title="2026-11-30 01:04:00">刚刚</span>', id="same-second"),
    pytest.param(at(seconds=1), '<span title="2026-11-30 01:03:59">1&nbsp;秒前</span>', id="1s"),
    pytest.param(at(seconds=60), '<span title="2026-11-30 01:03:00">60&nbsp;秒前</span>', id="60s"),
    pytest.param(at(seconds=61), '<span title="2026-11-30 01:02:59">1&nbsp;分钟前</span>', id="61s"),
    pytest.param(at(minutes=30), '<span title="2026-11-30 00:34:00">30&nbsp;分钟前</span>', id="30min"),
    pytest.param(at(minutes=30, seconds=1), '<span title="2026-11-30 00:33:59">半小时前</span>',
                 id="half-hour"),
    pytest.param(at(minutes=66), '<span title="2026-11-29 23:58:00">昨天&nbsp;23:58</span>',
                 id="66min-ago-is-yesterday"),
    pytest.param(datetime(2026, 11, 28, 21, 30, 5, tzinfo=BEIJING),
                 '<span title="2026-11-28 21:30:05">前天&nbsp;21:30</span>', id="day-before"),
    pytest.param(datetime(2026, 11, 27, 8, 0, tzinfo=BEIJING),
                 '<span title="2026-11-27 08:00:00">3&nbsp;天前</span>', id="3-days"),
    pytest.param(datetime(2026, 11, 23, 8, 0, tzinfo=BEIJING),
                 '<span title="2026-11-23 08:00:00">7&nbsp;天前</span>', id="6-whole-days"),
    pytest.param(datetime(2026, 11, 22, 23, 0, 9, tzinfo=BEIJING), "2026-11-22 23:00:09",
                 id="7-whole-days-absolute"),
    pytest.param(NOW + timedelta(minutes=5), "2026-11-30 01:09:00", id="future-absolute"),
])
def test_post_time_html__bands(when: datetime, expected: str) -> None:
    assert post_time_html(when, NOW) == expected


def test_post_time_html__hours_today() -> None:
    now = datetime(2026, 11, 30, 21, 0, tzinfo=BEIJING)
    assert post_time_html(now - timedelta(hours=3, minutes=59), now) == (
        '<span title="2026-11-30 17:01:00">3&nbsp;小时前</span>')


def test_post_time_html__dateconvert_off_is_minutes_without_span() -> None:
    assert post_time_html(at(seconds=5), NOW, dateconvert=False) == "2026-11-30 01:03"


def test_post_time_api__keeps_nbsp_and_drops_span() -> None:
    assert post_time_api(at(minutes=66), NOW) == "昨天&nbsp;23:58"
    assert post_time_api(at(seconds=5), NOW, dateconvert=False) == "2026-11-30 01:03"


def test_quote_time__month_and_day_not_padded() -> None:
    assert quote_time(datetime(2026, 1, 5, 9, 4, 30, tzinfo=BEIJING)) == "2026-1-5 09:04"
