"""The harness's own pieces: the generated soak game, the kill schedule, the random
fault injector and the soak report's grouping of log lines."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from forumbot.demo.harness import KillOptions, RandomFaults, kill_schedule
from forumbot.demo.scenario import demo_plan, long_plan
from forumbot.simulator import Fault
from forumbot.demo.soak import group_errors


def test_harness__long_plan_is_seeded():
    assert long_plan(seed=3).actions == long_plan(seed=3).actions
    assert long_plan(seed=3).actions != long_plan(seed=4).actions


@pytest.mark.parametrize("players", [8, 10, 12])
def test_harness__long_plan_shape(players):
    plan = long_plan(days=7, players=players, seed=1)
    assert len(plan.players) == players
    assert [d.number for d in plan.days] == sorted(plan.expected_out)
    kinds = {a.kind for a in plan.actions}
    assert kinds == {"post", "edit", "night"}
    for start, edit in plan.watched:  # an edit comes three hours after its vote, before the deadline
        assert edit - start == timedelta(hours=3)
        day = plan.days[(start.date() - plan.days[0].start.date()).days]
        assert edit < day.deadline - timedelta(hours=1)
    assert all(len(a.out) <= 1 for a in plan.actions if a.kind == "night")


@pytest.mark.parametrize("players", [7, 13])
def test_harness__long_plan_refuses_player_counts(players):
    with pytest.raises(ValueError, match="players"):
        long_plan(players=players)


def test_harness__kills_avoid_watched_windows():
    plan = demo_plan()
    options = KillOptions(kills=20)
    moments = kill_schedule(plan, options, random.Random(0))
    assert len(moments) == 20 and moments == sorted(moments)
    (start, edit), = plan.watched
    assert not any(start - options.watch_margin <= t <= edit for t in moments)
    assert all(plan.days[0].start - timedelta(minutes=10) <= t < plan.end for t in moments)


def test_harness__periodic_kills_about_every_interval():
    plan = long_plan(seed=1)
    moments = kill_schedule(plan, KillOptions(kill_every=timedelta(hours=4)), random.Random(0))
    gaps = [(b - a).total_seconds() / 3600 for a, b in zip(moments, moments[1:])]
    assert 20 <= len(moments) <= 45
    assert all(g >= 2 for g in gaps)


def test_harness__random_faults_seeded_and_at_rate():
    def fired(seed: int) -> list[Fault | None]:
        plan = RandomFaults(0.05, seed=seed)
        return [(f.kind if (f := plan.take("api/mobile/index.php?module=viewthread")) else None)
                for _ in range(4000)]

    a = fired(7)
    assert a == fired(7)
    assert 120 <= sum(f is not None for f in a) <= 280  # 5 % of 4000 = 200
    assert {f for f in a if f} == set(Fault)


def test_harness__planned_faults_come_first_and_rate_zero_is_quiet():
    plan = RandomFaults(0.0)
    plan.add(Fault.SERVER_ERROR, match="action=reply")
    assert plan.take("forum.php?mod=viewthread&tid=1") is None
    assert plan.take("forum.php?mod=post&action=reply&tid=1").kind is Fault.SERVER_ERROR
    assert plan.take("forum.php?mod=post&action=reply&tid=1") is None


def test_harness__slow_reply_waits_after_the_store():
    plan = RandomFaults(0.99, seed=1, mix={Fault.SLOW: 1}, slow_delay=0.8)
    reply = plan.take("forum.php?mod=post&action=reply&tid=1")
    read = plan.take("forum.php?mod=viewthread&tid=1")
    assert (reply.delay, reply.after) == (0.0, 0.8)  # answered late, stored at once
    assert read.delay == 0.8


def test_harness__soak_groups_log_lines_by_kind():
    log = "\n".join([
        "2026-11-29 18:00:01,001 forumbot.client WARNING retry 2/5 GET forum.php?tid=3 after HTTP 502; waiting 1.8 s",
        "2026-11-29 18:00:02,001 forumbot.client WARNING retry 3/5 GET api/x?tid=9 after HTTP 500; waiting 4.1 s",
        "2026-11-29 18:00:03,001 forumbot.agent.loop INFO thread 3: 2 new post(s), 0 edited",
        "2026-11-29 18:00:04,001 forumbot.agent.loop WARNING poll: forum refused: 论坛维护中",
        "Traceback (most recent call last):",
    ])
    groups = group_errors(log)
    assert groups == {
        "WARNING forumbot.client: retry N/N GET … after HTTP N; waiting N s": 2,
        "WARNING forumbot.agent.loop: poll: forum refused: 论坛维护中": 1,
        "Traceback": 1,
    }


def test_driver_gate__holds_an_action_and_everything_after_it():
    from forumbot.demo.scenario import Driver, World, at, build_world, script
    from forumbot.simulator import Simulator

    world = build_world(Simulator())
    held: list[str] = []
    driver = Driver(world, script(), gate=lambda a: a.kind != "edit" or bool(held))
    driver.apply_due(at(2, "12:00"))
    edit_index = next(i for i, a in enumerate(driver.actions) if a.kind == "edit")
    assert driver.done == edit_index  # stopped at the edit, nothing after it applied
    held.append("seen")
    driver.apply_due(at(2, "12:00"))
    assert driver.done > edit_index
    edited = world.sim.post(driver.pids["shaomai-vote"])
    assert "月饼" in edited.message
