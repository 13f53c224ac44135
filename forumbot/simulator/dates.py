"""Discuz's ``dgmdate``: how a post time is printed (DISCUZ.md §1.2, large MANIFEST notes).

* today (since local midnight): ``刚刚`` (same second), ``N 秒前`` (1–60 s), ``N 分钟前``
  (61 s–30 min, floored), ``半小时前`` (30–60 min), ``N 小时前`` (floored);
* earlier: ``昨天 H:i``, ``前天 H:i``, ``N 天前`` with N = whole days before today's
  midnight + 1, while that is under 7 whole days;
* older, or in the future: absolute ``Y-n-j H:i:s`` with no span.
Relative forms are wrapped in ``<span title="Y-n-j H:i:s">`` and joined with ``&nbsp;``.
With ``dateconvert`` off the header shows ``Y-n-j H:i`` (minutes only).
"""

from __future__ import annotations

from datetime import datetime, timedelta


def ymd(dt: datetime) -> str:
    return f"{dt.year}-{dt.month}-{dt.day}"


def absolute_seconds(dt: datetime) -> str:
    return f"{ymd(dt)} {dt:%H:%M:%S}"


def absolute_minutes(dt: datetime) -> str:
    return f"{ymd(dt)} {dt:%H:%M}"


def quote_time(dt: datetime) -> str:
    """Quote headers and edit stamps: ``Y-n-j H:i``."""
    return absolute_minutes(dt)


def relative_text(when: datetime, now: datetime) -> str | None:
    """The relative wording, or None when Discuz prints the absolute date instead."""
    when = when.astimezone(now.tzinfo)
    if when > now:
        return None
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    diff = int((now - when).total_seconds())
    if when >= midnight:
        if diff == 0:
            return "刚刚"
        if diff <= 60:
            return f"{diff}&nbsp;秒前"
        if diff <= 1800:
            return f"{diff // 60}&nbsp;分钟前"
        if diff <= 3600:
            return "半小时前"
        return f"{diff // 3600}&nbsp;小时前"
    whole_days = (midnight - when) // timedelta(days=1)
    if whole_days >= 7:
        return None
    days = whole_days + 1
    if days == 1:
        return f"昨天&nbsp;{when:%H:%M}"
    if days == 2:
        return f"前天&nbsp;{when:%H:%M}"
    return f"{days}&nbsp;天前"


def post_time_html(when: datetime, now: datetime, dateconvert: bool = True) -> str:
    """What follows ``发表于 `` inside ``em#authorpostonPID``."""
    when = when.astimezone(now.tzinfo)
    if not dateconvert:
        return absolute_minutes(when)
    text = relative_text(when, now)
    if text is None:
        return absolute_seconds(when)
    return f'<span title="{absolute_seconds(when)}">{text}</span>'


def post_time_api(when: datetime, now: datetime, dateconvert: bool = True) -> str:
    """Mobile API ``dateline``: the same text with tags stripped, ``&nbsp;`` kept."""
    when = when.astimezone(now.tzinfo)
    if not dateconvert:
        return absolute_minutes(when)
    return relative_text(when, now) or absolute_seconds(when)


# ---- Discuz! 7.2 (include/global.func.php dgmdate, runtime.lang.php 'date') ----------------
def relative_text_d72(when: datetime, now: datetime) -> str | None:
    """7.2's wording: the same boundaries as X3, but ``刚才`` for the same second, and
    ``N 天前 H:i`` (with the time) for 3–7 days back; None means the absolute date."""
    when = when.astimezone(now.tzinfo)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    diff = int((now - when).total_seconds())
    if when >= midnight:
        if diff > 3600:
            return f"{diff // 3600}&nbsp;小时前"
        if diff > 1800:
            return "半小时前"
        if diff > 60:
            return f"{diff // 60}&nbsp;分钟前"
        if diff > 0:
            return f"{diff}&nbsp;秒前"
        if diff == 0:
            return "刚才"
        return None
    days = int((midnight - when).total_seconds() // 86400)
    if days >= 7:
        return None
    if days == 0:
        return f"昨天&nbsp;{when:%H:%M}"
    if days == 1:
        return f"前天&nbsp;{when:%H:%M}"
    return f"{days + 1}&nbsp;天前&nbsp;{when:%H:%M}"


def post_time_html_d72(when: datetime, now: datetime, dateconvert: bool = True) -> str:
    """What follows ``发表于 `` on a 7.2 page: minutes only (``Y-n-j H:i``), relative
    wording in ``<span title="Y-n-j H:i">`` when ``dateconvert`` is on."""
    when = when.astimezone(now.tzinfo)
    absolute = absolute_minutes(when)
    if not dateconvert:
        return absolute
    text = relative_text_d72(when, now)
    return absolute if text is None else f'<span title="{absolute}">{text}</span>'
