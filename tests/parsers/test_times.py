"""Discuz post times: titles, absolute text (with/without seconds), relative text + now."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from parsers.models import TimePrecision
from parsers.times import TimeUnreadable, parse_absolute, parse_post_time, parse_relative

SH = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 11, 30, 1, 4, 0, tzinfo=SH)
S, M = TimePrecision.SECOND, TimePrecision.MINUTE


@pytest.mark.parametrize(
    ("text", "expected", "precision"),
    [
        pytest.param("2026-11-30 00:24:47", datetime(2026, 11, 30, 0, 24, 47, tzinfo=SH), S, id="title"),
        pytest.param("发表于 2026-11-21 20:00:23", datetime(2026, 11, 21, 20, 0, 23, tzinfo=SH), S,
                     id="absolute-with-seconds"),
        pytest.param("发表于 2026-11-30 00:24", datetime(2026, 11, 30, 0, 24, tzinfo=SH), M,
                     id="dateconvert-off-minutes"),
        pytest.param("2026-1-5\xa09:07:03", datetime(2026, 1, 5, 9, 7, 3, tzinfo=SH), S,
                     id="unpadded-Y-n-j-and-nbsp"),
    ],
)
def test_parse_absolute__forms(text: str, expected: datetime, precision: TimePrecision) -> None:
    assert parse_absolute(text, SH) == (expected, precision)


@pytest.mark.parametrize("text", ["2 分钟前", "2026-13-40 25:61", "", "楼主"])
def test_parse_absolute__not_a_date(text: str) -> None:
    assert parse_absolute(text, SH) is None


@pytest.mark.parametrize(
    ("text", "expected", "precision"),
    [
        pytest.param("刚刚", NOW, S, id="just-now"),
        pytest.param("50\xa0秒前", datetime(2026, 11, 30, 1, 3, 10, tzinfo=SH), S, id="seconds"),
        pytest.param("28&nbsp;分钟前", datetime(2026, 11, 30, 0, 36, tzinfo=SH), M, id="minutes-entity"),
        pytest.param("半小时前", datetime(2026, 11, 30, 0, 34, tzinfo=SH), M, id="half-hour"),
        pytest.param("1 小时前", datetime(2026, 11, 30, 0, 4, tzinfo=SH), M, id="hours"),
        pytest.param("昨天 00:03", datetime(2026, 11, 29, 0, 3, tzinfo=SH), M, id="yesterday"),
        pytest.param("前天\xa021:30", datetime(2026, 11, 28, 21, 30, tzinfo=SH), M, id="day-before"),
    ],
)
def test_parse_relative__against_now(text: str, expected: datetime, precision: TimePrecision) -> None:
    assert parse_relative(text, NOW, SH) == (expected, precision)


def test_parse_relative__days_ago_has_no_time_of_day() -> None:
    assert parse_relative("3 天前", NOW, SH) is None


def test_parse_post_time__title_beats_text() -> None:
    got = parse_post_time("2026-11-30 00:24:47", "发表于 2 分钟前", SH)
    assert got == (datetime(2026, 11, 30, 0, 24, 47, tzinfo=SH), S)


def test_parse_post_time__relative_without_title_needs_now() -> None:
    with pytest.raises(TimeUnreadable, match="抓取时间（`now`）"):
        parse_post_time(None, "发表于 昨天\xa021:30", SH)
    assert parse_post_time(None, "发表于 昨天\xa021:30", SH, NOW) == (
        datetime(2026, 11, 29, 21, 30, tzinfo=SH), M)


def test_parse_post_time__garbage_is_unreadable() -> None:
    with pytest.raises(TimeUnreadable, match="没有能读的时间"):
        parse_post_time("共 3 页", "发表于 ???", SH, NOW)
