"""How the calendar writes a moment for the director: 2026-12-05 周六 21:30."""

from __future__ import annotations

from datetime import date, datetime, timedelta

__all__ = ["WEEKDAYS", "day_zh", "span_zh", "when_zh"]

WEEKDAYS = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")


def when_zh(moment: datetime | None) -> str:
    if moment is None:
        return "（无）"
    text = f"{moment:%Y-%m-%d} {WEEKDAYS[moment.weekday()]} {moment:%H:%M}"
    return text + (f":{moment:%S}" if moment.second else "")


def day_zh(day: date) -> str:
    return f"{day:%Y-%m-%d} {WEEKDAYS[day.weekday()]}"


def span_zh(span: timedelta) -> str:
    """一天、2小时、1天3小时30分钟."""
    minutes = int(span.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [f"{days}天" if days != 1 or hours or minutes else "一天"] if days else []
    parts += [f"{hours}小时"] if hours else []
    parts += [f"{minutes}分钟"] if minutes else []
    return "".join(parts) or "0分钟"
