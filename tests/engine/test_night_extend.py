"""The director lengthens one phase of one night (SPEC §10.2, issue 20: 导演可以延长一个阶段):
later phases that follow it move with it (双身份), a clock-time phase stays unless the
lengthened one would outlast it (14人简易), an action inside the added time counts, one
after it is late, and the night is proposed only once the lengthened phase is over."""

from __future__ import annotations

from datetime import datetime

from engine.night import ActionReason, NightSettings, mode_for
from tests.engine.night_builders import act, deadline, m, resolve_night


def ends(plan) -> list[tuple[str, str, str]]:
    return [(p.name, f"{p.start:%m-%d %H:%M}", f"{p.end:%m-%d %H:%M}") for p in plan.phases]


def test_extend__dual_guard_ten_minutes_moves_seer_wolves_witch():
    # 进入第N天夜晚1，守卫行动，持续10分钟；… 夜晚4，女巫行动，持续10分钟 — sequential slots.
    plan = mode_for("dual").plan(1, deadline(1), NightSettings().extended(1, "守卫", 10))
    assert ends(plan) == [
        ("守卫", "12-02 21:30", "12-02 21:50"),
        ("先知", "12-02 21:50", "12-02 22:00"),
        ("狼人", "12-02 22:00", "12-02 22:10"),
        ("女巫", "12-02 22:10", "12-02 22:20"),
    ]
    assert plan.phases[0].extended == 10 and plan.held_until == plan.phases[0].end


def test_extend__simple14_wolves_keep_the_witchs_0800():
    plan = mode_for("simple14").plan(1, deadline(1), NightSettings().extended(1, "狼人", 30))
    assert ends(plan)[0][2] == "12-02 23:30" and ends(plan)[2][2] == "12-03 08:00"


def test_extend__simple14_wolves_past_0800_keep_the_witch_open_as_long_never_a_day_later():
    plan = mode_for("simple14").plan(1, deadline(1), NightSettings().extended(1, "狼人", 570))
    assert ends(plan)[0][2] == "12-03 08:30"
    assert ends(plan)[2][2] == "12-03 08:30"  # not 12-04 08:00


def test_extend__an_action_inside_the_added_time_counts_and_one_after_is_late():
    settings = NightSettings().extended(1, "女巫", 30)  # 08:00 → 08:30
    inside = act(1, "烧卖", "毒药", "春卷", 640)  # 08:10
    after = act(1, "烧卖", "毒药", "油条", 660)  # 08:30
    plain = resolve_night("simple14", [inside])
    assert plain.rulings[0].reason is ActionReason.LATE  # without the extension: late
    result = resolve_night("simple14", [inside, after], settings=settings)
    assert [(r.counted, r.reason) for r in result.rulings] == [(True, None), (False, ActionReason.LATE)]
    assert "08:30" in result.rulings[1].note
    assert [d.player for d in result.deaths] == ["春卷"]


def test_extend__dual_seer_after_a_guard_extension_counts_in_its_moved_slot():
    # 先知's slot moved to 21:50–22:00: a 预言 at 21:55 counts (late without the extension).
    settings = NightSettings().extended(1, "守卫", 10)
    seer = act(1, "乙", "预言", "甲", 25)
    assert resolve_night("dual", [seer]).rulings[0].reason is ActionReason.LATE
    assert resolve_night("dual", [seer], settings=settings).rulings[0].counted


def test_extend__the_proposal_waits_for_the_lengthened_end_even_when_everyone_acted():
    everyone = [act(1, w, "杀人", "春卷", 5) for w in ("饺子", "包子", "汤圆", "月饼")]
    everyone += [act(1, "小笼包", "预言", "饺子", 6), act(1, "烧卖", "放弃", None, 20)]
    now = m(1, 60)
    assert resolve_night("simple14", everyone, now=now).ready  # everyone acted: ready at once
    settings = NightSettings().extended(1, "狼人", 60)  # wolves until 00:00
    waiting = resolve_night("simple14", everyone, now=now, settings=settings)
    assert not waiting.ready and waiting.pending() == ("等待狼人行动（至 12-03 00:00）",)
    later = resolve_night("simple14", everyone, now=m(1, 150), settings=settings)
    assert later.ready and later.closed_at == datetime.fromisoformat("2026-12-03T00:00:00+08:00")


def test_extend__only_that_night():
    settings = NightSettings().extended(2, "女巫", 30)
    assert resolve_night("simple14", [act(1, "烧卖", "毒药", "春卷", 640)], settings=settings
                         ).rulings[0].reason is ActionReason.LATE
