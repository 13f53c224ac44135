"""Laying the days out: from the calendar, the days' own times and the director's changes.

Day 1 opens at ``Calendar.start``. A day opening on calendar day A closes at the rule's
closing time on A + ``close_after_days``, one day later (once) when a rest day falls in
A … A + ``close_after_days`` (14人简易: a weekend day; every rule set: a listed holiday), the
first day only if the rule allows it. Day N+1 opens at the opening time of the calendar
day after day N's deadline (the night lies between). A day's own start or deadline
(``DayTimes``, a ``[[days]]`` block) replaces the computed one, and so does a director's
change; the following days follow from it. All in the calendar's time zone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from typing import Iterable, Sequence

from engine.calendar.changes import Change, CloseEarly, ExtendDay, MoveDeadline, MoveStart
from engine.calendar.days import (
    CalendarError, DayTimes, DeadlineBy, Reminder, ReminderKind, Schedule, ScheduledDay, StartBy,
)
from engine.calendar.rules import DayRule, Lengthen, day_rule
from engine.calendar.words import when_zh

__all__ = ["CHINA", "HOUR", "Calendar", "calendar_for", "fixed_schedule", "schedule"]

# Asia/Shanghai has kept +08:00 with no daylight saving since 1991: a fixed offset is the
# same zone for any game, and needs no time-zone database (the engine reads no files).
CHINA = timezone(timedelta(hours=8), "Asia/Shanghai")
HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class Calendar:
    start: datetime  # day 1's start, aware
    rule: DayRule
    tz: tzinfo = CHINA
    holidays: frozenset[date] = frozenset()
    workdays: frozenset[date] = frozenset()  # 调休: weekend days that are working days
    change_window: timedelta = HOUR  # SPEC §3.4: no changes this close to the deadline
    remind_before_freeze: tuple[timedelta, ...] = (HOUR,)
    remind_before_deadline: tuple[timedelta, ...] = (HOUR,)
    overrides: tuple[DayTimes, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.start.tzinfo is None:
            raise CalendarError("第1日的开始没有时区", day=1, field="start")
        both = sorted(self.holidays & self.workdays)
        if both:
            raise CalendarError(f"{both[0]:%Y-%m-%d} 既是节假日又是调休上班日")
        if self.change_window < timedelta(0):
            raise CalendarError("改票截止的时间窗不能是负的")
        if any(b <= timedelta(0) for b in (*self.remind_before_freeze, *self.remind_before_deadline)):
            raise CalendarError("提醒要在改票截止或截止之前（大于 0 分钟）")
        if self.rule.close_after_days < 0:
            raise CalendarError("截止要在开始的当天或之后")
        seen: set[int] = set()
        for o in self.overrides:
            if o.number < 1 or o.number in seen:
                raise CalendarError(f"第{o.number}日的时间给了两次" if o.number in seen else "日子从第1日数起",
                                    day=o.number)
            seen.add(o.number)
            for moment, what in ((o.start, "start"), (o.deadline, "deadline")):
                if moment is not None and moment.tzinfo is None:
                    raise CalendarError(f"第{o.number}日的时间没有时区", day=o.number, field=what)
            if o.start is not None and o.deadline is not None and o.deadline <= o.start:
                raise CalendarError(f"第{o.number}日的截止 {when_zh(o.deadline)} 不晚于它的开始 "
                                    f"{when_zh(o.start)}", day=o.number, field="deadline")

    # --- the rule ---------------------------------------------------------------------

    def local(self, moment: datetime) -> datetime:
        return moment.astimezone(self.tz)

    def at(self, day: date, clock: time) -> datetime:
        return datetime.combine(day, clock, tzinfo=self.tz)

    def is_rest_day(self, day: date) -> bool:
        return self.rule.is_rest_day(day, self.holidays, self.workdays)

    def natural_deadline(self, number: int, start: datetime) -> tuple[datetime, date | None]:
        """The deadline of day ``number`` opening at ``start`` by the rule, and the rest
        day that lengthened it (None: not lengthened)."""
        opened = self.local(start).date()
        span = self.rule.close_after_days
        rest = None
        if number > 1 or self.rule.extend_first_day:
            rest = next((d for d in (opened + timedelta(days=i) for i in range(span + 1)) if self.is_rest_day(d)),
                        None)
        closes = opened + timedelta(days=span + (1 if rest is not None else 0))
        return self.at(closes, self.rule.close_time), rest

    def opening_after(self, deadline: datetime) -> datetime:
        """The next day's start: the opening time of the calendar day after ``deadline``."""
        return self.at(self.local(deadline).date() + timedelta(days=1), self.rule.open_time)


def calendar_for(
    ruleset: str,
    start: datetime | date,
    tz: tzinfo = CHINA,
    *,
    open_time: time | None = None,
    close_time: time | None = None,
    close_after_days: int | None = None,
    extend_on: str | None = None,
    extend_first_day: bool | None = None,
    holidays: Iterable[date] = (),
    workdays: Iterable[date] = (),
    change_window: timedelta = HOUR,
    remind_before_freeze: Sequence[timedelta] = (HOUR,),
    remind_before_deadline: Sequence[timedelta] = (HOUR,),
    overrides: Iterable[DayTimes] = (),
) -> Calendar:
    """A calendar from the rule set's preset and what the game changes. ``start`` is an
    aware or naive (in ``tz``) date-time, or a date (day 1 then opens at the opening time)."""
    rule = day_rule(ruleset)
    rule = replace(
        rule,
        open_time=open_time or rule.open_time,
        close_time=close_time or rule.close_time,
        close_after_days=rule.close_after_days if close_after_days is None else close_after_days,
        extend_on=rule.extend_on if extend_on is None else Lengthen(extend_on),
        extend_first_day=rule.extend_first_day if extend_first_day is None else extend_first_day,
    )
    if not isinstance(start, datetime):
        start = datetime.combine(start, rule.open_time, tzinfo=tz)
    elif start.tzinfo is None:
        start = start.replace(tzinfo=tz)
    return Calendar(start=start, rule=rule, tz=tz, holidays=frozenset(holidays), workdays=frozenset(workdays),
                    change_window=change_window, remind_before_freeze=_sorted(remind_before_freeze),
                    remind_before_deadline=_sorted(remind_before_deadline), overrides=tuple(overrides))


def _sorted(spans: Sequence[timedelta]) -> tuple[timedelta, ...]:
    return tuple(sorted(set(spans), reverse=True))  # the earliest reminder first


# --- one day's derived moments --------------------------------------------------------

def _day(number: int, start: datetime, deadline: datetime, *, change_window: timedelta,
         remind_before_freeze: Sequence[timedelta], remind_before_deadline: Sequence[timedelta],
         start_by: StartBy, deadline_by: DeadlineBy, rest_day: date | None = None) -> ScheduledDay:
    freeze = max(start, deadline - change_window) if change_window > timedelta(0) else None
    wanted = [Reminder(ReminderKind.FREEZE, b, freeze - b) for b in remind_before_freeze] if freeze else []
    wanted += [Reminder(ReminderKind.DEADLINE, b, deadline - b) for b in remind_before_deadline]
    reminders: dict[datetime, Reminder] = {}
    for r in wanted:
        # One post per moment (the freeze's reminder says the deadline too); none before
        # the day opens — its threads are not there yet.
        if r.at > start:
            reminders.setdefault(r.at, r)
    return ScheduledDay(number, start, deadline, freeze, tuple(sorted(reminders.values(), key=lambda r: r.at)),
                        start_by, deadline_by, rest_day)


def fixed_schedule(days: Iterable[tuple[int, datetime, datetime]], *, change_window: timedelta = HOUR,
                   remind_before_freeze: Sequence[timedelta] = (HOUR,),
                   remind_before_deadline: Sequence[timedelta] = (HOUR,)) -> Schedule:
    """The schedule of a game whose every day is written out (``[[days]]`` without a
    ``[calendar]``): the days as given, with their freezes and reminders."""
    out = [_day(n, s, d, change_window=change_window, remind_before_freeze=_sorted(remind_before_freeze),
                remind_before_deadline=_sorted(remind_before_deadline), start_by=StartBy.CONFIG,
                deadline_by=DeadlineBy.CONFIG) for n, s, d in days]
    return Schedule(tuple(sorted(out, key=lambda d: d.number)))


# --- laying out -----------------------------------------------------------------------

@dataclass(frozen=True)
class _Pin:
    """What fixes a day's times: a start, a deadline (each with where it came from), and
    time added to the deadline (the director's extensions)."""

    start: datetime | None = None
    start_by: StartBy = StartBy.CONFIG
    deadline: datetime | None = None
    deadline_by: DeadlineBy = DeadlineBy.CONFIG
    extra: timedelta = timedelta(0)


def _lay_out(cal: Calendar, pins: dict[int, _Pin], count: int) -> tuple[ScheduledDay, ...]:
    days: list[ScheduledDay] = []
    for number in range(1, count + 1):
        pin = pins.get(number, _Pin())
        previous = days[-1] if days else None
        if pin.start is not None:
            start, start_by = cal.local(pin.start), pin.start_by
        elif previous is None:
            start, start_by = cal.local(cal.start), StartBy.CALENDAR
        else:
            start, start_by = cal.opening_after(previous.deadline), StartBy.RULE
        if previous is not None and start < previous.deadline:
            raise CalendarError(
                f"第{number}日的开始 {when_zh(start)} 早于第{previous.number}日的截止 {when_zh(previous.deadline)}："
                "两日的时间重叠。每一日都要在前一日截止之后开始", day=number, field="start")
        rest = None
        if pin.deadline is not None:
            base, deadline_by = cal.local(pin.deadline), pin.deadline_by
        else:
            base, rest = cal.natural_deadline(number, start)
            deadline_by = DeadlineBy.RULE if rest is None else (
                DeadlineBy.HOLIDAY if rest in cal.holidays else DeadlineBy.WEEKEND)
        deadline = base + pin.extra
        if pin.extra:
            deadline_by = DeadlineBy.EXTENDED
        if deadline <= start:
            raise CalendarError(f"第{number}日的截止 {when_zh(deadline)} 不晚于它的开始 {when_zh(start)}",
                                day=number, field="deadline")
        days.append(_day(number, start, deadline, change_window=cal.change_window,
                         remind_before_freeze=cal.remind_before_freeze,
                         remind_before_deadline=cal.remind_before_deadline,
                         start_by=start_by, deadline_by=deadline_by, rest_day=rest))
    return tuple(days)


def _check(change: Change, day: ScheduledDay) -> None:
    """Whether ``change`` can be made to ``day`` as it stood at ``change.at``."""
    n, at = day.number, change.at
    if isinstance(change, (MoveDeadline, ExtendDay, CloseEarly)) and at >= day.deadline:
        raise CalendarError(f"第{n}日已于 {when_zh(day.deadline)} 截止：截止时间不能再改", day=n, field="deadline")
    if isinstance(change, MoveDeadline):
        if change.deadline == day.deadline:
            raise CalendarError(f"第{n}日的截止本来就是 {when_zh(day.deadline)}", day=n, field="deadline")
        if change.deadline <= at:
            raise CalendarError(f"新的截止 {when_zh(change.deadline)} 不晚于现在（{when_zh(at)}）："
                                "要让这一日立即截止，请用提前截止", day=n, field="deadline")
    elif isinstance(change, ExtendDay):
        if change.by <= timedelta(0):
            raise CalendarError("延长的时间要大于 0（要缩短一日，请改截止时间）", day=n, field="deadline")
    elif isinstance(change, CloseEarly):
        if at < day.start:
            raise CalendarError(f"第{n}日还没开始（{when_zh(day.start)} 开始）：不能提前截止", day=n, field="deadline")
        if change.closes < at:
            raise CalendarError(f"提前截止的时间 {when_zh(change.closes)} 已经过去（现在 {when_zh(at)}）",
                                day=n, field="deadline")
        if change.closes >= day.deadline:
            raise CalendarError(f"{when_zh(change.closes)} 不早于第{n}日现在的截止 {when_zh(day.deadline)}："
                                "这不是提前截止（要推迟，请改截止时间或延长）", day=n, field="deadline")
    elif isinstance(change, MoveStart):
        if at >= day.start:
            raise CalendarError(f"第{n}日已于 {when_zh(day.start)} 开始：开始时间不能再改", day=n, field="start")
        if change.start == day.start:
            raise CalendarError(f"第{n}日的开始本来就是 {when_zh(day.start)}", day=n, field="start")
        if change.start < at:
            raise CalendarError(f"新的开始 {when_zh(change.start)} 已经过去（现在 {when_zh(at)}）", day=n, field="start")


def _apply(change: Change, pins: dict[int, _Pin]) -> dict[int, _Pin]:
    pin = pins.get(change.day, _Pin())
    if isinstance(change, MoveDeadline):
        pin = replace(pin, deadline=change.deadline, deadline_by=DeadlineBy.MOVED, extra=timedelta(0))
    elif isinstance(change, ExtendDay):
        pin = replace(pin, extra=pin.extra + change.by)
    elif isinstance(change, CloseEarly):
        pin = replace(pin, deadline=change.closes, deadline_by=DeadlineBy.CLOSED_EARLY, extra=timedelta(0))
    elif isinstance(change, MoveStart):
        pin = replace(pin, start=change.start, start_by=StartBy.MOVED)
    return {**pins, change.day: pin}


def _aware(change: Change, moment: datetime | None) -> None:
    if moment is not None and moment.tzinfo is None:
        raise CalendarError(f"{change.describe_zh()}：时间 {moment:%Y-%m-%d %H:%M} 没有时区", day=change.day,
                            change=change)


def schedule(cal: Calendar, days: int, changes: Sequence[Change] = ()) -> Schedule:
    """Days 1 … ``days``: the calendar with its days' own times, then the director's
    changes in the order they were made (by ``at``; the list's order among equals). A
    change that cannot be made raises ``CalendarError`` naming it, as does a calendar whose
    days overlap."""
    if days < 1:
        raise CalendarError("至少排一日")
    for change in changes:
        if change.day < 1:
            raise CalendarError(f"{change.describe_zh()}：日子从第1日数起", day=change.day, change=change)
        for moment in (change.at, getattr(change, "deadline", None), getattr(change, "start", None),
                       getattr(change, "close_at", None)):
            _aware(change, moment)
    # Later days never change earlier ones, but every change and day given is checked.
    count = max([days, *(o.number for o in cal.overrides), *(c.day for c in changes)])
    pins = {o.number: _Pin(o.start, StartBy.CONFIG, o.deadline, DeadlineBy.CONFIG) for o in cal.overrides}
    laid = _lay_out(cal, pins, count)
    for change in sorted(changes, key=lambda c: c.at):
        try:
            _check(change, laid[change.day - 1])
            pins = _apply(change, pins)
            laid = _lay_out(cal, pins, count)
        except CalendarError as exc:
            raise CalendarError(f"{change.describe_zh()}：{exc}", day=exc.day, field=exc.field, change=change) from None
    return Schedule(laid[:days], cal.tz)
