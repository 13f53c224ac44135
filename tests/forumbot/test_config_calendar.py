"""``[calendar]`` in the game config (SPEC §11): the days follow from it, a ``[[days]]`` block
overrides one day with only what it sets, and every mistake names its key in Chinese.

December 2026: the 4th is a Friday, the 7th a Monday.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from engine.calendar import DeadlineBy, Lengthen, StartBy
from engine.events import EventKind
from forumbot.config.gamefile import ConfigError, parse_config
from tests.forumbot.test_config import SPEC_EXAMPLE

TZ = ZoneInfo("Asia/Shanghai")

GAME = """
[forum]
timezone = "Asia/Shanghai"

[game]
ruleset = "{ruleset}"
players = ["饺子", "包子", "汤圆", "月饼"]
"""


def config(calendar: str, *, ruleset: str = "simple14", days: str = "", extra: str = ""):
    return parse_config(GAME.format(ruleset=ruleset) + extra + "\n[calendar]\n" + calendar + "\n" + days, "game.toml")


def t(day: int, hhmm: str) -> datetime:
    hour, minute = (int(x) for x in hhmm.split(":"))
    return datetime(2026, 12, day, hour, minute, tzinfo=TZ)


def times(cfg) -> list[tuple[datetime, datetime]]:
    return [(d.start, d.deadline) for d in cfg.days]


def test_calendar__a_config_without_days_gets_its_days_from_the_rule_set():
    cfg = config("start = 2026-12-04")
    assert [d.number for d in cfg.days] == [1, 2, 3, 4]  # one day per player by default
    assert times(cfg) == [(t(4, "09:00"), t(5, "21:30")), (t(6, "09:00"), t(8, "21:30")),
                          (t(9, "09:00"), t(10, "21:30")), (t(11, "09:00"), t(13, "21:30"))]
    assert all(d.threads() == {} and d.vote_thread is None for d in cfg.days)  # the bot's threads, later
    assert cfg.calendar is not None and cfg.calendar.rule.extend_on is Lengthen.WEEKENDS
    assert cfg.schedule(6).day(6).start == t(16, "09:00")  # the calendar goes on past the configured days


def test_calendar__dual_has_a_day_per_identity_and_opens_at_0930():
    cfg = config("start = 2026-12-04", ruleset="dual")
    assert len(cfg.days) == 8 and cfg.day(1).start == t(4, "09:30") and cfg.day(2).start == t(6, "09:30")


def test_calendar__a_days_block_sets_only_what_it_names():
    cfg = config("start = 2026-12-07\ndays = 4", days="""
[[days]]
number = 2
vote_thread = 12
discussion_thread = 11

[[days]]
number = 3
deadline = "2026-12-15T21:30:00+08:00"
deadline_pid = 345
accelerated = true
""")
    assert (cfg.day(2).vote_thread, cfg.day(2).discussion_thread) == (12, 11)
    assert times(cfg) == [(t(7, "09:00"), t(8, "21:30")), (t(9, "09:00"), t(10, "21:30")),
                          (t(11, "09:00"), t(15, "21:30")), (t(16, "09:00"), t(17, "21:30"))]
    assert (cfg.day(3).deadline_pid, cfg.day(3).accelerated, cfg.day(3).vote_thread) == (345, True, None)
    assert cfg.schedule().day(3).deadline_by is DeadlineBy.CONFIG and cfg.schedule().day(4).start_by is StartBy.RULE


def test_calendar__a_days_block_past_the_configured_days_adds_days():
    cfg = config("start = 2026-12-07\ndays = 2", days="[[days]]\nnumber = 5\nvote_thread = 50\n")
    assert [d.number for d in cfg.days] == [1, 2, 3, 4, 5] and cfg.day(5).vote_thread == 50


START_FORMS = {
    "a TOML date": ("start = 2026-12-04", t(4, "09:00")),
    "a TOML date-time with its offset": ("start = 2026-12-04T10:15:00+08:00", t(4, "10:15")),
    "a TOML local date-time (the forum's zone)": ("start = 2026-12-04T10:15:00", t(4, "10:15")),
    "a date as text": ('start = "2026-12-04"', t(4, "09:00")),
    "a date-time as text": ('start = "2026-12-04T02:15:00+00:00"', t(4, "10:15")),
}


@pytest.mark.parametrize(("line", "first"), START_FORMS.values(), ids=START_FORMS.keys())
def test_calendar__start(line, first):
    assert config(line).day(1).start == first


def test_calendar__times_holidays_and_reminders():
    cfg = config("""
start = 2026-12-07
open_time = "08:30"
close_time = 22:00:00
holidays = [2026-12-09, "2026-12-14..2026-12-15"]
workdays = ["2026-12-12"]
remind_before_freeze = [120, 30]
remind_before_deadline = 15
""", extra="change_window_minutes = 30\n")
    assert times(cfg)[:3] == [(t(7, "08:30"), t(8, "22:00")), (t(9, "08:30"), t(11, "22:00")),
                              (t(12, "08:30"), t(14, "22:00"))]
    assert cfg.calendar.holidays == frozenset({date(2026, 12, 9), date(2026, 12, 14), date(2026, 12, 15)})
    assert cfg.calendar.rule.open_time == time(8, 30)
    day = cfg.schedule().day(1)
    assert day.freeze == t(8, "21:30")
    assert [(r.kind.value, r.at) for r in day.reminders] == [
        ("freeze", t(8, "19:30")), ("freeze", t(8, "21:00")), ("deadline", t(8, "21:45"))]
    assert config("start = 2026-12-07\nremind_before_freeze = []\nremind_before_deadline = []").schedule().day(1) \
        .reminders == ()


def test_calendar__a_rule_sets_length_as_configured():
    cfg = config('start = 2026-12-04\nclose_after_days = 0\nextend_on = "never"\nopen_time = "10:00"', ruleset="s10")
    assert times(cfg)[:2] == [(t(4, "10:00"), t(4, "21:30")), (t(5, "10:00"), t(5, "21:30"))]
    first = config("start = 2026-12-04\nextend_first_day = true")
    assert first.day(1).deadline == t(6, "21:30")  # Saturday in day 1, lengthened as asked


def test_calendar__events_name_the_calendars_days():
    text = (GAME.format(ruleset="simple14") + "\n[calendar]\nstart = 2026-12-07\n"
            '\n[[events]]\nkind = "out"\nplayer = "汤圆"\nwhy = "night"\nday = 2\n')
    cfg = parse_config(text, "game.toml")
    (event,) = [e for e in cfg.state.events if e.kind is EventKind.OUT]
    assert event.at == cfg.day(2).start == t(9, "09:00")


def test_calendar__configs_without_it_are_read_as_before():
    cfg = parse_config(SPEC_EXAMPLE, "config.toml")
    assert cfg.calendar is None and [d.number for d in cfg.days] == [2]
    day = cfg.schedule().day(2)
    assert (day.start, day.deadline, day.freeze) == (cfg.day(2).start, cfg.day(2).deadline,
                                                    cfg.day(2).deadline - timedelta(hours=1))
    assert cfg.schedule(1).days == ()


CALENDAR_ERRORS = {
    "no start": ("open_time = \"09:00\"", "", "game.toml: [calendar].start: 缺少：第1日开始的日期或日期时间"),
    "a start that is no date": ('start = "周五"', "", "game.toml: [calendar].start: 不是日期或日期时间：'周五'"),
    "a start that is a number": ("start = 20261204", "", "game.toml: [calendar].start: 应为日期或日期时间"),
    "an unknown key": ("start = 2026-12-04\nclose = \"21:30\"", "", "game.toml: [calendar].close: "),  # the shared typo check's words
    "an opening time out of range": ('start = 2026-12-04\nopen_time = "25:00"', "",
                                     "game.toml: [calendar].open_time: 应为一天中的时刻，如 \"09:30\""),
    "an opening time as a number": ("start = 2026-12-04\nopen_time = 930", "", "game.toml: [calendar].open_time: 应为"),
    "a same-day close before the opening": ('start = 2026-12-04\nclose_after_days = 0\nclose_time = "08:00"', "",
                                            "game.toml: [calendar].close_time: close_after_days = 0（当天截止）时"),
    "close_after_days negative": ("start = 2026-12-04\nclose_after_days = -1", "",
                                  "game.toml: [calendar].close_after_days: 应为 0 到 14 的整数"),
    "an unknown lengthening": ('start = 2026-12-04\nextend_on = "weekend"', "",
                               "game.toml: [calendar].extend_on: 应为 \"weekends\""),
    "a lengthening that is a list": ('start = 2026-12-04\nextend_on = ["weekends"]', "",
                                     "game.toml: [calendar].extend_on: 应为"),
    "extend_first_day not a yes or no": ('start = 2026-12-04\nextend_first_day = "yes"', "",
                                         "game.toml: [calendar].extend_first_day: 应为 true 或 false"),
    "holidays not a list": ("start = 2026-12-04\nholidays = 2026-12-25", "",
                            "game.toml: [calendar].holidays: 应为日期的列表"),
    "a holiday that is no date": ('start = 2026-12-04\nholidays = ["圣诞"]', "",
                                  "game.toml: [calendar].holidays: 不是日期：'圣诞'"),
    "a holiday with a time": ("start = 2026-12-04\nholidays = [2026-12-25T00:00:00]", "",
                              "game.toml: [calendar].holidays: 应为日期（不带时间）"),
    "a range the wrong way round": ('start = 2026-12-04\nholidays = ["2026-12-31..2026-12-25"]', "",
                                    "game.toml: [calendar].holidays: '2026-12-31..2026-12-25'：结束的日期早于开始的日期"),
    "a day off and at work": ('start = 2026-12-04\nholidays = [2026-12-12]\nworkdays = ["2026-12-12"]', "",
                              "game.toml: [calendar].workdays: 2026-12-12 也列在 holidays 里"),
    "no days": ("start = 2026-12-04\ndays = 0", "", "game.toml: [calendar].days: 应为 1 到 366 的整数"),
    "a reminder of 0 minutes": ("start = 2026-12-04\nremind_before_freeze = [0]", "",
                                "game.toml: [calendar].remind_before_freeze: 应为提前的分钟数"),
    "a reminder as text": ('start = 2026-12-04\nremind_before_deadline = "60"', "",
                           "game.toml: [calendar].remind_before_deadline: 应为提前的分钟数"),
    "[calendar] not a table": (None, "", "game.toml: [calendar]: "),
    "a day twice": ("start = 2026-12-04", "[[days]]\nnumber = 2\n[[days]]\nnumber = 2\n",
                    "game.toml: [[days]] #2.number: 第2日配置了两次"),
    "a day without its number": ("start = 2026-12-04", "[[days]]\nvote_thread = 3\n", "game.toml: [[days]] #1.number: "),
    "an unknown key in a day": ("start = 2026-12-04", "[[days]]\nnumber = 2\nvote = 3\n", "game.toml: [[days]] #1.vote: "),
    "a day opening before the previous deadline": (
        "start = 2026-12-07", '[[days]]\nnumber = 2\nstart = "2026-12-08T12:00:00+08:00"\n',
        "game.toml: [[days]] #1 (day 2).start: 第2日的开始 2026-12-08 周二 12:00 早于第1日的截止 2026-12-08 周二 21:30"),
    "a deadline before the day's computed start": (
        "start = 2026-12-07", '[[days]]\nnumber = 3\ndeadline = "2026-12-10T21:30:00+08:00"\n',
        "game.toml: [[days]] #1 (day 3).deadline: 第3日的截止 2026-12-10 周四 21:30 不晚于它的开始"),
    "a deadline before the day's own start": (
        "start = 2026-12-07",
        '[[days]]\nnumber = 2\nstart = "2026-12-09T09:00:00+08:00"\ndeadline = "2026-12-09T08:00:00+08:00"\n',
        "game.toml: [[days]] #1 (day 2).deadline: 要晚于 start"),
    "a day's start the first day would need": (
        "start = 2026-12-07T23:00:00+08:00\nclose_after_days = 0", "", "game.toml: [calendar].start: 第1日的截止"),
    "accelerated not a yes or no": ("start = 2026-12-04", '[[days]]\nnumber = 2\naccelerated = "yes"\n',
                                    "game.toml: [[days]] #1 (day 2).accelerated: 应为 true 或 false"),
    "a tid that is no tid": ("start = 2026-12-04", "[[days]]\nnumber = 2\nvote_thread = 0\n",
                             "game.toml: [[days]] #1 (day 2).vote_thread: "),
}


@pytest.mark.parametrize(("calendar", "days", "error"), CALENDAR_ERRORS.values(), ids=CALENDAR_ERRORS.keys())
def test_calendar__mistakes_name_their_key(calendar, days, error):
    if calendar is None:
        text = "calendar = 3\n" + GAME.format(ruleset="simple14")
    else:
        text = GAME.format(ruleset="simple14") + "\n[calendar]\n" + calendar + "\n" + days
    with pytest.raises(ConfigError) as info:
        parse_config(text, "game.toml")
    assert str(info.value).startswith(error), str(info.value)
