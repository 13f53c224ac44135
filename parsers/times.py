"""Discuz post times → aware datetimes (DISCUZ.md §1.2).

The forum prints times in its own zone with no marker, so the zone is an argument.
Absolute forms: ``Y-n-j H:i:s`` (span titles, old posts, dateconvert off on X3) or
``Y-n-j H:i`` (7.2, quote headers, edit stamps). Relative forms (``3 分钟前``,
``昨天 21:30``) can only be resolved against a clock, which the caller passes as ``now``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo

from parsers.models import TimePrecision

__all__ = ["parse_absolute", "parse_relative", "parse_post_time", "TimeUnreadable"]

_ABSOLUTE = re.compile(
    r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?"
)
_SECONDS_AGO = re.compile(r"(\d+)\s*秒前")
_MINUTES_AGO = re.compile(r"(\d+)\s*分钟前")
_HOURS_AGO = re.compile(r"(\d+)\s*小时前")
_DAYS_AGO = re.compile(r"(\d+)\s*天前")
_DAY_WORD_TIME = re.compile(r"(昨天|前天)\s*(\d{1,2}):(\d{2})")
_RELATIVE_WORDS = re.compile(r"刚刚|秒前|分钟前|半小时前|小时前|天前|昨天|前天")


class TimeUnreadable(ValueError):
    """The text holds no time this module can place on the clock."""


def _clean(text: str) -> str:
    return text.replace("\xa0", " ").replace("&nbsp;", " ").strip()


def parse_absolute(text: str, tz: tzinfo) -> tuple[datetime, TimePrecision] | None:
    """The first absolute date-time in ``text``, or None. Seconds decide the precision."""
    m = _ABSOLUTE.search(_clean(text))
    if not m:
        return None
    year, month, day, hour, minute, second = m.groups()
    try:
        when = datetime(
            int(year), int(month), int(day), int(hour), int(minute),
            int(second or 0), tzinfo=tz,
        )
    except ValueError:  # 2026-13-40 and the like in mangled pages
        return None
    precision = TimePrecision.SECOND if second is not None else TimePrecision.MINUTE
    return when, precision


def parse_relative(
    text: str, now: datetime, tz: tzinfo
) -> tuple[datetime, TimePrecision] | None:
    """Resolve Discuz's humanised time against ``now`` (aware), or None.

    Precision is what the text can give: seconds for ``N 秒前``/``刚刚``, otherwise
    minutes (``半小时前`` and ``N 小时前`` are bands, so the result is their lower edge).
    """
    text = _clean(text)
    now = now.astimezone(tz)
    if "刚刚" in text:
        return now, TimePrecision.SECOND
    if m := _SECONDS_AGO.search(text):
        return now - timedelta(seconds=int(m.group(1))), TimePrecision.SECOND
    if m := _MINUTES_AGO.search(text):
        return _minute(now - timedelta(minutes=int(m.group(1)))), TimePrecision.MINUTE
    if "半小时前" in text:
        return _minute(now - timedelta(minutes=30)), TimePrecision.MINUTE
    if m := _HOURS_AGO.search(text):
        return _minute(now - timedelta(hours=int(m.group(1)))), TimePrecision.MINUTE
    if m := _DAY_WORD_TIME.search(text):
        days = 1 if m.group(1) == "昨天" else 2
        day = now - timedelta(days=days)
        try:
            return (
                day.replace(hour=int(m.group(2)), minute=int(m.group(3)), second=0,
                            microsecond=0),
                TimePrecision.MINUTE,
            )
        except ValueError:
            return None
    # "N 天前" carries no time of day: it cannot be placed to the minute, so it is not
    # resolved (real pages always wrap it in a span title with the exact time).
    return None


def _minute(when: datetime) -> datetime:
    return when.replace(second=0, microsecond=0)


def parse_post_time(
    title: str | None, text: str, tz: tzinfo, now: datetime | None = None
) -> tuple[datetime, TimePrecision]:
    """A post header's time: the span title, else absolute text, else relative + ``now``.

    Raises ``TimeUnreadable`` when none of those works.
    """
    if title and (found := parse_absolute(title, tz)):
        return found
    if found := parse_absolute(text, tz):
        return found
    if now is not None and (found := parse_relative(text, now, tz)):
        return found
    if now is None and _RELATIVE_WORDS.search(text):
        raise TimeUnreadable(f"相对时间 {_clean(text)!r} 要知道页面的抓取时间（`now`）才能换算")
    raise TimeUnreadable(f"{_clean(text)!r} 里没有能读的时间")
