"""A night's phases at fixed offsets from the day's deadline (SPEC §10.2)."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from engine.night import Identity, NightSettings, PlanError, mode_for

FIXED = timezone(timedelta(hours=8))
SHANGHAI = ZoneInfo("Asia/Shanghai")  # no summer time since 1991


def hm(phase) -> tuple[str, str, str]:
    return phase.name, f"{phase.start:%m-%d %H:%M}", f"{phase.end:%m-%d %H:%M}"


@pytest.mark.parametrize("tz", [FIXED, SHANGHAI], ids=["+08:00", "Asia/Shanghai"])
def test_phases__simple14_from_a_deadline_at_2130(tz):
    # 关门一个半小时后，预言家未与导演取得联系，均为放弃夜晚行动。狼队在关门一个半小时后仍未提交刀人目标，
    # 视为放弃出刀 …… 次日八点之前，女巫仍未给导演答复，视为放弃夜晚行动。
    plan = mode_for("simple14").plan(2, datetime(2026, 12, 4, 21, 30, tzinfo=tz))
    assert [hm(p) for p in plan.phases] == [
        ("狼人", "12-04 21:30", "12-04 23:00"),
        ("预言家", "12-04 21:30", "12-04 23:00"),
        ("女巫", "12-04 21:30", "12-05 08:00"),
    ]
    assert plan.end == datetime(2026, 12, 5, 8, 0, tzinfo=tz)
    assert plan.end.utcoffset() == timedelta(hours=8)


@pytest.mark.parametrize("tz", [FIXED, SHANGHAI], ids=["+08:00", "Asia/Shanghai"])
def test_phases__dual_ten_minutes_each_in_order(tz):
    # 进入第N天夜晚1，守卫行动，持续10分钟；…夜晚2，先知…夜晚3，狼人…夜晚4，女巫行动，持续10分钟
    plan = mode_for("dual").plan(1, datetime(2026, 12, 2, 21, 30, tzinfo=tz))
    assert [hm(p) for p in plan.phases] == [
        ("守卫", "12-02 21:30", "12-02 21:40"),
        ("先知", "12-02 21:40", "12-02 21:50"),
        ("狼人", "12-02 21:50", "12-02 22:00"),
        ("女巫", "12-02 22:00", "12-02 22:10"),
    ]


def test_phases__simple14_deadline_in_another_zone_ends_at_its_own_0800():
    plan = mode_for("simple14").plan(1, datetime(2026, 12, 2, 21, 30, tzinfo=timezone.utc))
    assert plan.phase(Identity.WITCH).end == datetime(2026, 12, 3, 8, 0, tzinfo=timezone.utc)


def test_phases__simple14_early_deadline_still_gives_the_witch_the_next_0800():
    # A deadline at 07:00: the witch's 08:00 is after the wolves' 08:30, so the next day's.
    plan = mode_for("simple14").plan(1, datetime(2026, 12, 2, 7, 0, tzinfo=FIXED))
    assert plan.phase(Identity.WITCH).end == datetime(2026, 12, 3, 8, 0, tzinfo=FIXED)


def test_phases__lengths_configurable_by_code_or_chinese_name():
    settings = NightSettings(lengths=(("狼人", 60), ("seer", 45), ("女巫", time(9, 0))))
    plan = mode_for("simple14").plan(1, datetime(2026, 12, 2, 21, 30, tzinfo=FIXED), settings)
    assert [hm(p)[2] for p in plan.phases] == ["12-02 22:30", "12-02 22:15", "12-03 09:00"]


def test_phases__dual_lengths_move_the_later_slots():
    settings = NightSettings(lengths=(("守卫", 15), ("预言家", 5)))
    plan = mode_for("dual").plan(1, datetime(2026, 12, 2, 21, 30, tzinfo=FIXED), settings)
    assert [hm(p)[1:] for p in plan.phases] == [
        ("12-02 21:30", "12-02 21:45"), ("12-02 21:45", "12-02 21:50"),
        ("12-02 21:50", "12-02 22:00"), ("12-02 22:00", "12-02 22:10"),
    ]


def test_phases__director_extends_one_nights_phase():
    settings = NightSettings().extended(1, "狼人", 5)
    mode = mode_for("dual")
    one = mode.plan(1, datetime(2026, 12, 2, 21, 30, tzinfo=FIXED), settings)
    two = mode.plan(2, datetime(2026, 12, 4, 21, 30, tzinfo=FIXED), settings)
    assert hm(one.phases[2])[2] == "12-02 22:05" and hm(one.phases[3])[1:] == ("12-02 22:05", "12-02 22:15")
    assert hm(two.phases[2])[2] == "12-04 22:00"  # only that night


def test_phases__simple14_wolves_closed_early_for_the_witch():
    # 这个时间也可能根据女巫的需求提前。
    settings = NightSettings().extended(1, "狼人", -30)
    plan = mode_for("simple14").plan(1, datetime(2026, 12, 2, 21, 30, tzinfo=FIXED), settings)
    assert hm(plan.phases[0])[2] == "12-02 22:30"
    assert hm(plan.phases[2])[2] == "12-03 08:00"  # the witch's clock time stays


@pytest.mark.parametrize("settings, message", [
    (NightSettings(lengths=(("守卫", 10),)), "没有“守卫”这个夜晚阶段（阶段：狼人、预言家、女巫）"),
    (NightSettings(lengths=(("狼人", 0),)), "阶段“狼人”的时长应大于 0 分钟"),
    (NightSettings(lengths=(("狼人", "90"),)), "阶段“狼人”的时长应为分钟数或时刻"),
    (NightSettings(extensions=((1, "吹笛", 5),)), "没有“吹笛”这个夜晚阶段"),
])
def test_phases__bad_settings_name_the_key(settings, message):
    with pytest.raises(PlanError, match=message):
        mode_for("simple14").plan(1, datetime(2026, 12, 2, 21, 30, tzinfo=FIXED), settings)


def test_phases__naive_deadline_refused():
    with pytest.raises(PlanError, match="时区"):
        mode_for("dual").plan(1, datetime(2026, 12, 2, 21, 30))
