"""The calendar (SPEC §11): each rule set's days over weekends and holidays, a day's own
times, the director's changes, the change freeze and the reminders, the preview.

December 2026: the 4th is a Friday, the 7th a Monday, the 12th and 13th a weekend.
"""

from __future__ import annotations

import ast
from datetime import date, datetime, time, timedelta
from pathlib import Path

import pytest

import engine.calendar
from engine.calendar import (
    CHINA, CalendarError, CloseEarly, DayTimes, DeadlineBy, ExtendDay, MilestoneKind, MoveDeadline, MoveStart,
    ReminderKind, ShiftField, StartBy, calendar_for, fixed_schedule, preview, schedule,
)

from tests.support import SHARED

SEEDS = SHARED / "seeds"


def t(day: int, hhmm: str, month: int = 12) -> datetime:
    hour, minute = (int(x) for x in hhmm.split(":"))
    return datetime(2026, month, day, hour, minute, tzinfo=CHINA)


def windows(ruleset: str, start, days: int, changes=(), **kwargs) -> list[tuple[datetime, datetime]]:
    laid = schedule(calendar_for(ruleset, start, **kwargs), days, changes)
    return [(d.start, d.deadline) for d in laid.days]


def test_the_seeds_say_it():
    simple14 = (SEEDS / "002_6b3eb81db5deee2e.txt").read_text(encoding="utf-8")
    dual = (SEEDS / "003_e88951b5cd6d52f2.txt").read_text(encoding="utf-8")
    assert "一般是A日上午开帖，到A+1日晚上关帖。每逢周末就延长一天，也就是A+2日晚上关帖。" in simple14
    assert "例外的，第一天讨论日不因周末而延长。" in simple14
    assert "每“天”白天的时间为某一自然日09:30（可能会提前）~次日21:30" in dual
    assert "如遇到节假日，游戏日可能有所延长" in dual


# -- 14人简易: A 09:00 → A+1 21:30, a weekend day in it → A+2, day 1 never -----------------

SIMPLE14_DAY = {  # a day after the first opening on … → its deadline, and why
    "Monday": (t(7, "09:00"), t(8, "21:30"), DeadlineBy.RULE, None),
    "Thursday": (t(10, "09:00"), t(11, "21:30"), DeadlineBy.RULE, None),
    "Friday (A+1 a Saturday)": (t(11, "09:00"), t(13, "21:30"), DeadlineBy.WEEKEND, date(2026, 12, 12)),
    "Saturday": (t(12, "09:00"), t(14, "21:30"), DeadlineBy.WEEKEND, date(2026, 12, 12)),
    "Sunday": (t(13, "09:00"), t(15, "21:30"), DeadlineBy.WEEKEND, date(2026, 12, 13)),
}


@pytest.mark.parametrize(("opens", "closes", "why", "rest"), SIMPLE14_DAY.values(), ids=SIMPLE14_DAY.keys())
def test_simple14__a_day_touching_a_weekend_closes_a_day_later_once(opens, closes, why, rest):
    cal = calendar_for("simple14", t(1, "09:00"), overrides=[DayTimes(2, start=opens)])
    day = schedule(cal, 2).day(2)
    assert (day.start, day.deadline, day.deadline_by, day.rest_day) == (opens, closes, why, rest)


@pytest.mark.parametrize("first", [date(2026, 12, 4), date(2026, 12, 5), date(2026, 12, 6)],
                         ids=["Friday", "Saturday", "Sunday"])
def test_simple14__day_1_is_never_extended(first):
    day = schedule(calendar_for("simple14", first), 1).day(1)
    assert day.start == datetime.combine(first, time(9, 0), tzinfo=CHINA)
    assert day.deadline == datetime.combine(first + timedelta(days=1), time(21, 30), tzinfo=CHINA)
    assert day.deadline_by is DeadlineBy.RULE and day.start_by is StartBy.CALENDAR


def test_simple14__a_game_from_a_friday():
    assert windows("simple14", date(2026, 12, 4), 6) == [
        (t(4, "09:00"), t(5, "21:30")),  # Fri → Sat: day 1, not extended
        (t(6, "09:00"), t(8, "21:30")),  # Sun → Tue: the night between, then a weekend day
        (t(9, "09:00"), t(10, "21:30")),  # Wed → Thu
        (t(11, "09:00"), t(13, "21:30")),  # Fri → Sun
        (t(14, "09:00"), t(15, "21:30")),  # Mon → Tue
        (t(16, "09:00"), t(17, "21:30")),
    ]


def test_simple14__a_holiday_is_a_rest_day_and_a_workday_is_not():
    # 12-09 (Wed) a holiday: the day opening on the 9th closes on the 11th. 12-12 (Sat) a
    # 调休 working day: the day opening Friday 11th… is not lengthened by it.
    laid = windows("simple14", date(2026, 12, 7), 4, holidays=[date(2026, 12, 9)], workdays=[date(2026, 12, 12)])
    assert laid == [
        (t(7, "09:00"), t(8, "21:30")),
        (t(9, "09:00"), t(11, "21:30")),  # holiday
        (t(12, "09:00"), t(14, "21:30")),  # opens on the working Saturday; Sunday lengthens it
        (t(15, "09:00"), t(16, "21:30")),
    ]
    assert schedule(calendar_for("simple14", date(2026, 12, 7), holidays=[date(2026, 12, 9)]), 2).day(2).deadline_by \
        is DeadlineBy.HOLIDAY


# -- 双身份: 09:30 → 21:30 the next day; holidays lengthen it, weekends do not --------------

def test_dual__weekends_do_not_lengthen_a_day():
    assert windows("dual", date(2026, 12, 4), 4) == [
        (t(4, "09:30"), t(5, "21:30")),
        (t(6, "09:30"), t(7, "21:30")),
        (t(8, "09:30"), t(9, "21:30")),
        (t(10, "09:30"), t(11, "21:30")),
    ]


def test_dual__a_holiday_lengthens_a_day_by_one_even_the_first():
    assert windows("dual", date(2026, 12, 4), 3, holidays=[date(2026, 12, 5), date(2026, 12, 9)]) == [
        (t(4, "09:30"), t(6, "21:30")),  # day 1 too: 双身份 has no exception for it
        (t(7, "09:30"), t(8, "21:30")),
        (t(9, "09:30"), t(11, "21:30")),  # once, however many holidays
    ]


@pytest.mark.parametrize("ruleset", ["s10", "s09"])
def test_s10_s09__by_default_as_dual(ruleset):
    assert windows(ruleset, date(2026, 12, 4), 3, holidays=[date(2026, 12, 8)]) == \
        windows("dual", date(2026, 12, 4), 3, holidays=[date(2026, 12, 8)])


def test_s10__as_configured():
    laid = windows("s10", date(2026, 12, 4), 3, open_time=time(8, 0), close_time=time(22, 0), close_after_days=0,
                   extend_on="weekends", extend_first_day=False)
    assert laid == [
        (t(4, "08:00"), t(4, "22:00")),  # one calendar day each
        (t(5, "08:00"), t(6, "22:00")),  # Saturday: a day later
        (t(7, "08:00"), t(7, "22:00")),
    ]


def test_calendar__a_start_with_its_own_time_and_another_zone():
    from datetime import timezone

    utc = datetime(2026, 12, 4, 4, 0, tzinfo=timezone.utc)  # 12:00 in Shanghai
    laid = schedule(calendar_for("dual", utc), 2)
    assert laid.day(1).start == t(4, "12:00") and laid.day(1).start.utcoffset() == timedelta(hours=8)
    assert laid.day(1).deadline == t(5, "21:30") and laid.day(2).start == t(6, "09:30")


# -- a day's own times ([[days]]) --------------------------------------------------------

def test_overrides__the_following_days_follow():
    base = windows("simple14", date(2026, 12, 7), 4)
    assert base == [(t(7, "09:00"), t(8, "21:30")), (t(9, "09:00"), t(10, "21:30")),
                    (t(11, "09:00"), t(13, "21:30")), (t(14, "09:00"), t(15, "21:30"))]
    own_deadline = schedule(calendar_for("simple14", date(2026, 12, 7),
                                         overrides=[DayTimes(2, deadline=t(11, "21:30"))]), 4)
    assert [(d.start, d.deadline) for d in own_deadline.days] == [
        base[0], (t(9, "09:00"), t(11, "21:30")), (t(12, "09:00"), t(14, "21:30")), (t(15, "09:00"), t(16, "21:30"))]
    assert own_deadline.day(2).deadline_by is DeadlineBy.CONFIG
    own_start = schedule(calendar_for("simple14", date(2026, 12, 7), overrides=[DayTimes(2, start=t(10, "12:00"))]), 3)
    assert [(d.start, d.deadline) for d in own_start.days[1:]] == [
        (t(10, "12:00"), t(11, "21:30")),  # its deadline by the rule, from its own start
        (t(12, "09:00"), t(14, "21:30"))]
    assert own_start.day(2).start_by is StartBy.CONFIG


OVERRIDE_ERRORS = {
    "a start before the previous deadline": ([DayTimes(2, start=t(8, "20:00"))], 2, "start", "第2日的开始"),
    "a deadline before its computed start": ([DayTimes(3, deadline=t(10, "21:30"))], 3, "deadline", "不晚于它的开始"),
    "a deadline before its own start": ([DayTimes(2, start=t(9, "09:00"), deadline=t(9, "08:00"))], 2, "deadline",
                                        "不晚于它的开始"),
    "a day given twice": ([DayTimes(2, start=t(9, "09:00")), DayTimes(2, deadline=t(10, "21:00"))], 2, None, "两次"),
}


@pytest.mark.parametrize(("overrides", "day", "field", "words"), OVERRIDE_ERRORS.values(), ids=OVERRIDE_ERRORS.keys())
def test_overrides__that_cannot_be_are_errors_naming_the_day(overrides, day, field, words):
    with pytest.raises(CalendarError, match=words) as info:
        schedule(calendar_for("simple14", date(2026, 12, 7), overrides=overrides), 3)
    assert (info.value.day, info.value.field) == (day, field)


# -- the director's changes --------------------------------------------------------------

CAL = calendar_for("simple14", date(2026, 12, 7))  # Mon 7th–Tue 8th, Wed 9th–Thu 10th, Fri 11th–Sun 13th, …


def test_changes__a_moved_deadline_moves_the_following_days():
    moved = schedule(CAL, 4, [MoveDeadline(2, t(11, "21:30"), at=t(10, "12:00"))])
    assert [(d.start, d.deadline) for d in moved.days] == [
        (t(7, "09:00"), t(8, "21:30")), (t(9, "09:00"), t(11, "21:30")),
        (t(12, "09:00"), t(14, "21:30")), (t(15, "09:00"), t(16, "21:30"))]
    assert (moved.day(2).deadline_by, moved.day(2).freeze, moved.day(3).start_by) == \
        (DeadlineBy.MOVED, t(11, "20:30"), StartBy.RULE)
    earlier = schedule(CAL, 3, [MoveDeadline(2, t(10, "18:00"), at=t(10, "12:00"))])
    assert earlier.day(2).deadline == t(10, "18:00") and earlier.day(3).start == t(11, "09:00")


def test_changes__an_extension_moves_the_following_days():
    extended = schedule(CAL, 3, [ExtendDay(2, timedelta(days=1), at=t(9, "10:00"))])
    assert [(d.start, d.deadline) for d in extended.days[1:]] == [
        (t(9, "09:00"), t(11, "21:30")), (t(12, "09:00"), t(14, "21:30"))]
    assert extended.day(2).deadline_by is DeadlineBy.EXTENDED


def test_changes__an_extension_made_ahead_stays_an_extension():
    # Day 4 lengthened by a day while day 1 runs; then day 2 is moved two days later: day 4
    # is still its (new) natural length plus a day.
    changes = [ExtendDay(4, timedelta(days=1), at=t(7, "10:00")), MoveDeadline(2, t(12, "21:30"), at=t(9, "10:00"))]
    laid = schedule(CAL, 4, changes)
    assert [(d.start, d.deadline) for d in laid.days[2:]] == [
        (t(13, "09:00"), t(15, "21:30")),  # opens Sunday: a day later
        (t(16, "09:00"), t(18, "21:30"))]  # Wed → Thu, plus the day


def test_changes__an_accelerated_day_closes_early():
    laid = schedule(CAL, 3, [CloseEarly(2, at=t(10, "14:05"))])
    assert (laid.day(2).deadline, laid.day(2).deadline_by) == (t(10, "14:05"), DeadlineBy.CLOSED_EARLY)
    assert laid.day(3).start == t(11, "09:00")
    later = schedule(CAL, 2, [CloseEarly(2, at=t(10, "14:05"), close_at=t(10, "18:00"))])
    assert later.day(2).deadline == t(10, "18:00")


def test_changes__a_start_moved_before_the_day_opens():
    laid = schedule(CAL, 3, [MoveStart(2, t(9, "13:00"), at=t(8, "22:00"))])
    assert (laid.day(2).start, laid.day(2).start_by, laid.day(2).deadline) == (t(9, "13:00"), StartBy.MOVED,
                                                                               t(10, "21:30"))


def test_changes__apply_in_the_order_they_were_made():
    later_first = [MoveDeadline(2, t(10, "20:00"), at=t(10, "12:00")), ExtendDay(2, timedelta(hours=1), at=t(9, "12:00"))]
    # made: extend (→ 22:30) then move (→ 20:00, which replaces the extended time)
    assert schedule(CAL, 2, later_first).day(2).deadline == t(10, "20:00")


CHANGE_REFUSALS = {
    "a closed day's deadline": (MoveDeadline(1, t(9, "21:30"), at=t(9, "10:00")), "第1日已于 2026-12-08 周二 21:30 截止"),
    "a closed day extended": (ExtendDay(1, timedelta(days=1), at=t(8, "21:30")), "截止时间不能再改"),
    "a deadline in the past": (MoveDeadline(2, t(10, "11:00"), at=t(10, "12:00")), "请用提前截止"),
    "the same deadline": (MoveDeadline(2, t(10, "21:30"), at=t(10, "12:00")), "本来就是"),
    "a deadline before the start": (MoveDeadline(3, t(11, "08:00"), at=t(10, "12:00")), "不晚于它的开始"),
    "no extension": (ExtendDay(2, timedelta(0), at=t(10, "12:00")), "延长的时间要大于 0"),
    "closing a day not open yet": (CloseEarly(3, at=t(10, "12:00")), "还没开始"),
    "closing early in the past": (CloseEarly(2, at=t(10, "12:00"), close_at=t(10, "11:00")), "已经过去"),
    "closing early after the deadline": (CloseEarly(2, at=t(10, "12:00"), close_at=t(10, "22:00")), "这不是提前截止"),
    "moving a start that has come": (MoveStart(2, t(9, "12:00"), at=t(9, "10:00")), "开始时间不能再改"),
    "moving a start into the past": (MoveStart(3, t(10, "08:00"), at=t(10, "12:00")), "已经过去"),
    "a start before the previous deadline": (MoveStart(3, t(10, "21:00"), at=t(10, "12:00")), "两日的时间重叠"),
    "day 0": (ExtendDay(0, timedelta(days=1), at=t(10, "12:00")), "从第1日数起"),
    "a time without its zone": (MoveDeadline(2, datetime(2026, 12, 11, 21, 30), at=t(10, "12:00")), "没有时区"),
}


@pytest.mark.parametrize(("change", "words"), CHANGE_REFUSALS.values(), ids=CHANGE_REFUSALS.keys())
def test_changes__that_cannot_be_made_are_refused_in_words(change, words):
    with pytest.raises(CalendarError, match=words) as info:
        schedule(CAL, 3, [change])
    assert str(info.value).startswith(change.describe_zh()) and info.value.change == change


def test_changes__that_run_into_a_days_own_start_are_refused():
    cal = calendar_for("simple14", date(2026, 12, 7), overrides=[DayTimes(3, start=t(11, "09:00"))])
    with pytest.raises(CalendarError, match="第3日的开始 2026-12-11 周五 09:00 早于第2日的截止") as info:
        schedule(cal, 3, [ExtendDay(2, timedelta(days=1), at=t(10, "12:00"))])
    assert (info.value.day, info.value.field) == (3, "start")


# -- the freeze and the reminders --------------------------------------------------------

def test_freeze_and_reminders__an_hour_before_the_freeze_and_the_deadline_by_default():
    day = schedule(CAL, 1).day(1)
    assert day.freeze == t(8, "20:30")
    assert [(r.kind, r.at) for r in day.reminders] == [(ReminderKind.FREEZE, t(8, "19:30")),
                                                       (ReminderKind.DEADLINE, t(8, "20:30"))]


def test_freeze_and_reminders__configured():
    cal = calendar_for("simple14", date(2026, 12, 7), change_window=timedelta(minutes=30),
                       remind_before_freeze=[timedelta(minutes=30), timedelta(hours=2)],
                       remind_before_deadline=[timedelta(minutes=10)])
    day = schedule(cal, 1).day(1)
    assert day.freeze == t(8, "21:00")
    assert [(r.kind.value, int(r.before.total_seconds() // 60), r.at) for r in day.reminders] == [
        ("freeze", 120, t(8, "19:00")), ("freeze", 30, t(8, "20:30")), ("deadline", 10, t(8, "21:20"))]


def test_freeze_and_reminders__no_change_window_no_freeze():
    day = schedule(calendar_for("dual", date(2026, 12, 7), change_window=timedelta(0)), 1).day(1)
    assert day.freeze is None and [r.kind for r in day.reminders] == [ReminderKind.DEADLINE]


def test_freeze_and_reminders__one_post_per_moment():
    cal = calendar_for("dual", date(2026, 12, 7), remind_before_deadline=[timedelta(hours=2)])
    day = schedule(cal, 1).day(1)  # the freeze's hour-before and the deadline's two-hours-before: 19:30
    assert [(r.kind, r.at) for r in day.reminders] == [(ReminderKind.FREEZE, t(8, "19:30"))]


def test_freeze_and_reminders__a_short_day():
    # A day of 40 minutes: the freeze is its start (a change is void from the first minute)
    # and no reminder falls before the day opened.
    laid = schedule(CAL, 2, [MoveStart(2, t(9, "12:00"), at=t(8, "22:00")), MoveDeadline(2, t(9, "12:40"), at=t(8, "22:00"))])
    day = laid.day(2)
    assert day.freeze == day.start == t(9, "12:00")
    assert [(r.kind, r.at) for r in day.reminders] == []
    moved = schedule(CAL, 2, [MoveDeadline(2, t(9, "11:30"), at=t(9, "09:10"))]).day(2)
    assert moved.freeze == t(9, "10:30")  # 09:00–11:30: the freeze's reminder at 09:30, the deadline's at 10:30
    assert [(r.kind, r.at) for r in moved.reminders] == [(ReminderKind.FREEZE, t(9, "09:30")),
                                                         (ReminderKind.DEADLINE, t(9, "10:30"))]
    earlier = schedule(CAL, 2, [MoveDeadline(2, t(9, "10:30"), at=t(9, "09:10"))]).day(2)
    assert [(r.kind, r.at) for r in earlier.reminders] == [(ReminderKind.DEADLINE, t(9, "09:30"))]


def test_fixed_schedule__the_days_as_written():
    laid = fixed_schedule([(2, t(9, "09:30"), t(10, "21:30")), (1, t(7, "09:30"), t(8, "21:30"))])
    assert [d.number for d in laid.days] == [1, 2]
    assert (laid.day(2).freeze, laid.day(2).start_by, laid.day(2).deadline_by) == (t(10, "20:30"), StartBy.CONFIG,
                                                                                   DeadlineBy.CONFIG)


# -- the preview -------------------------------------------------------------------------

def test_preview__what_moves_old_to_new():
    seen = preview(CAL, [], ExtendDay(2, timedelta(days=1), at=t(9, "10:00")), days=3)
    assert [(s.day, s.what, s.old, s.new) for s in seen.shifts] == [
        (2, ShiftField.FREEZE, t(10, "20:30"), t(11, "20:30")),
        (2, ShiftField.DEADLINE, t(10, "21:30"), t(11, "21:30")),
        (3, ShiftField.START, t(11, "09:00"), t(12, "09:00")),
        (3, ShiftField.FREEZE, t(13, "20:30"), t(14, "20:30")),
        (3, ShiftField.DEADLINE, t(13, "21:30"), t(14, "21:30")),
    ]
    assert seen.lines_zh() == (
        "第2日延长一天：",
        "  第2日改票截止：2026-12-10 周四 20:30 → 2026-12-11 周五 20:30",
        "  第2日截止：2026-12-10 周四 21:30 → 2026-12-11 周五 21:30",
        "  第3日开始：2026-12-11 周五 09:00 → 2026-12-12 周六 09:00",
        "  第3日改票截止：2026-12-13 周日 20:30 → 2026-12-14 周一 20:30",
        "  第3日截止：2026-12-13 周日 21:30 → 2026-12-14 周一 21:30",
    )
    assert seen.warnings == () and seen.after.day(2).deadline == t(11, "21:30")
    assert seen.as_json()["shifts"][0] == {"day": 2, "what": "freeze", "old": "2026-12-10T20:30:00+08:00",
                                           "new": "2026-12-11T20:30:00+08:00"}


def test_preview__on_top_of_the_changes_made_and_at_least_the_next_day():
    made = [MoveDeadline(2, t(11, "21:30"), at=t(9, "10:00"))]
    seen = preview(CAL, made, MoveDeadline(2, t(11, "18:00"), at=t(10, "10:00")))
    assert [(s.day, s.what.value) for s in seen.shifts] == [(2, "freeze"), (2, "deadline")]  # day 3 still opens the 12th
    assert len(seen.after.days) == 3


def test_preview__warns_when_the_freeze_moves_into_the_past():
    seen = preview(CAL, [], MoveDeadline(2, t(10, "20:00"), at=t(10, "19:30")))
    assert seen.warnings == ("第2日的改票截止提前到 2026-12-10 周四 19:00，已经过去：2026-12-10 周四 19:00 以后发的改票都将作废",)


def test_preview__a_change_that_cannot_be_made():
    with pytest.raises(CalendarError, match="截止时间不能再改"):
        preview(CAL, [], MoveDeadline(1, t(9, "21:30"), at=t(9, "10:00")))


# -- reading the schedule ----------------------------------------------------------------

def test_schedule__the_day_open_now_and_the_next_moment():
    laid = schedule(CAL, 2)
    assert laid.open_at(t(8, "21:29")).number == 1 and laid.open_at(t(8, "21:30")) is None
    assert laid.open_at(t(9, "09:00")).number == 2
    nxt = laid.next_milestone(t(8, "19:30"))
    assert (nxt.at, nxt.kind, nxt.reminder.kind) == (t(8, "20:30"), MilestoneKind.REMINDER, ReminderKind.DEADLINE)
    kinds = [(m.day, m.kind.value) for m in laid.milestones() if m.at >= t(8, "20:30")]
    assert kinds[:4] == [(1, "reminder"), (1, "freeze"), (1, "deadline"), (2, "start")]
    assert laid.next_milestone(t(10, "21:30")) is None


def test_schedule__json_as_spec_section_11():
    data = schedule(CAL, 2).as_json()
    assert list(data) == ["days"]
    assert [{k: d[k] for k in ("number", "start", "deadline")} for d in data["days"]] == [
        {"number": 1, "start": "2026-12-07T09:00:00+08:00", "deadline": "2026-12-08T21:30:00+08:00"},
        {"number": 2, "start": "2026-12-09T09:00:00+08:00", "deadline": "2026-12-10T21:30:00+08:00"},
    ]
    assert data["days"][0]["freeze"] == "2026-12-08T20:30:00+08:00"
    assert data["days"][0]["reminders"][0] == {"kind": "freeze", "minutes_before": 60, "at": "2026-12-08T19:30:00+08:00"}


def test_calendar__bad_settings_are_errors():
    with pytest.raises(CalendarError, match="既是节假日又是调休上班日"):
        calendar_for("simple14", date(2026, 12, 7), holidays=[date(2026, 12, 12)], workdays=[date(2026, 12, 12)])
    with pytest.raises(CalendarError, match="至少排一日"):
        schedule(CAL, 0)


# -- pure --------------------------------------------------------------------------------

PACKAGE = Path(engine.calendar.__file__).parent
FORBIDDEN_IMPORTS = {"os", "sys", "io", "time", "socket", "sqlite3", "logging", "random", "subprocess", "httpx",
                     "forumbot", "pathlib", "zoneinfo", "tempfile"}
FORBIDDEN_CALLS = {"now", "today", "utcnow", "open", "print"}


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_calendar_is_pure__(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name.split(".")[0] for a in node.names] if isinstance(node, ast.Import) else \
                [(node.module or "").split(".")[0]]
            assert not set(names) & FORBIDDEN_IMPORTS, f"{path.name}:{node.lineno} imports {names}"
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            assert name not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno} calls {name}()"
