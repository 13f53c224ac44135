"""The --tz and --now options of the commands that read saved pages (posts, inbox)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import click


def zone_and_now(tz: str, now: str | None) -> tuple[ZoneInfo, datetime | None]:
    """The forum's time zone, and the moment relative times ("3 分钟前") are read against
    (None: each page's own fetch time); a bad value is a one-line error."""
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise click.ClickException(f"未知的时区：{tz}（例如 Asia/Shanghai）") from None
    if not now:
        return zone, None
    try:
        moment = datetime.fromisoformat(now)
    except ValueError:
        raise click.ClickException(f"--now 不是 ISO 时间：{now}（例如 2026-12-01T09:30:00+08:00）") from None
    return zone, moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)
