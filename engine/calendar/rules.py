"""When a day opens and closes, per rule set (SPEC §11), as data.

A ``DayRule`` says at what time a day opens, on which calendar day after its opening day
it closes and at what time, and which calendar days lengthen it by one day. The presets
quote the seed sentence behind each value; a game's ``[calendar]`` may change any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, time
from enum import StrEnum

__all__ = ["DAY_RULES", "DayRule", "Lengthen", "day_rule"]


class Lengthen(StrEnum):
    """Which calendar days inside a day make it close one day later (once)."""

    # 14人简易: 每逢周末就延长一天 — a Saturday or Sunday, and a listed holiday (a holiday is
    # a rest day as a weekend is; a 调休 working Saturday listed in workdays is not).
    WEEKENDS = "weekends"
    # 双身份: 如遇到节假日，游戏日可能有所延长 — only the holidays the director lists.
    HOLIDAYS = "holidays"
    NEVER = "never"


@dataclass(frozen=True)
class DayRule:
    open_time: time
    close_time: time
    # The day that opens on calendar day A closes on A + close_after_days (1: the next day).
    close_after_days: int = 1
    extend_on: Lengthen = Lengthen.HOLIDAYS
    # 14人简易: 例外的，第一天讨论日不因周末而延长。
    extend_first_day: bool = True

    def is_rest_day(self, day: date, holidays: frozenset[date], workdays: frozenset[date]) -> bool:
        if self.extend_on is Lengthen.NEVER:
            return False
        if day in holidays:
            return True
        return self.extend_on is Lengthen.WEEKENDS and day.weekday() >= 5 and day not in workdays


_DUAL = DayRule(
    # 003_…: 每“天”白天的时间为某一自然日09:30（可能会提前）~次日21:30 …
    # 如遇到节假日，游戏日可能有所延长 — the seed has no exception for the first day.
    open_time=time(9, 30), close_time=time(21, 30), close_after_days=1,
    extend_on=Lengthen.HOLIDAYS, extend_first_day=True,
)

DAY_RULES: dict[str, DayRule] = {
    # 002_…: 一般是A日上午开帖，到A+1日晚上关帖。每逢周末就延长一天，也就是A+2日晚上关帖。
    # 例外的，第一天讨论日不因周末而延长。 (上午: 09:00 and 晚上: 21:30 are SPEC §11's defaults.)
    "simple14": DayRule(open_time=time(9, 0), close_time=time(21, 30), close_after_days=1,
                        extend_on=Lengthen.WEEKENDS, extend_first_day=False),
    "dual": _DUAL,
    # 000_… and 001_… say nothing of a day's length: as configured, by default as 双身份.
    "s10": _DUAL,
    "s09": _DUAL,
}


def day_rule(ruleset: str) -> DayRule:
    """The rule set's preset (an unknown name: 双身份's, which S09/S10 also use)."""
    return DAY_RULES.get(ruleset, _DUAL)
