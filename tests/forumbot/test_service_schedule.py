"""The scheduler's choices (pure): moments that matter first, then hot reads, then the
rest round-robin over due threads; idle threads stretched only when the account's
throttle cannot keep up with every thread at its interval."""

from __future__ import annotations

from datetime import timedelta

import pytest

from forumbot.service.schedule import (DUE, HOT, IDLE_AFTER, IDLE_PASS, MAX_STRETCH, PAGE_BUDGET, URGENT,
                                       GamePlan, SessionState, ThreadState, next_due, pick, stretch)
from tests.forumbot.game_support import at

NOW = at(1, "12:00")
SESSION = {"acct": SessionState(min_interval=2.0)}


def game(name, *, polled_ago=120, idle=0, hot=(), started=True, **more) -> GamePlan:
    threads = {}
    for tid, role in ((1, "progress"), (2, "discussion"), (3, "vote")):
        t = 10 * int(name[-1]) + tid
        threads[t] = ThreadState(t, role, polled_at=NOW - timedelta(seconds=polled_ago), idle=idle,
                                 hot=role in hot)
    return GamePlan(name, "acct", 60.0, threads, last_pass=NOW - timedelta(seconds=polled_ago),
                    started=started, **more)


def plans(*games):
    return {g.name: g for g in games}


def test_schedule__alone_a_game_reads_every_due_thread_in_one_pass():
    job = pick(NOW, plans(game("g1")), SESSION)
    assert job.game == "g1" and job.threads == (11, 12, 13) and job.budget is None


def test_schedule__with_others_waiting_one_thread_per_pass_round_robin():
    games = plans(game("g1"), game("g2"), game("g3"))
    order = []
    for turn in range(1, 10):
        job = pick(NOW, games, SESSION)
        assert len(job.threads) == 1
        assert job.budget == (PAGE_BUDGET if turn < 9 else None)  # the last one waits on nobody
        order.append(job.game)
        games[job.game].served = turn
        games[job.game].threads[job.threads[0]].polled_at = NOW  # read
    assert order == ["g1", "g2", "g3"] * 3


def test_schedule__a_moment_that_matters_goes_first_with_all_its_threads():
    games = plans(game("g1", polled_ago=3600), game("g2", crossing=NOW - timedelta(seconds=1)))
    job = pick(NOW, games, SESSION)
    assert job.game == "g2" and job.rank == URGENT and job.threads == (21, 22, 23)


def test_schedule__the_vote_thread_in_its_last_hour_before_idle_reads():
    games = plans(game("g1", polled_ago=3600), game("g2", hot=("vote",)))
    job = pick(NOW, games, SESSION)
    assert (job.game, job.threads, job.rank) == ("g2", (23,), HOT)


def test_schedule__the_desk_changed_a_game_and_posts_waiting_for_the_flood_clock():
    changed = plans(game("g1"), game("g2", polled_ago=10, changed=True))
    assert (pick(NOW, changed, SESSION).game, pick(NOW, changed, SESSION).rank) == ("g2", HOT)
    waiting = plans(game("g1"), game("g2", polled_ago=10, waiting_write=True))
    assert pick(NOW, waiting, SESSION).game == "g2"
    busy = {"acct": SessionState(min_interval=2.0, write_free=False)}
    assert pick(NOW, waiting, busy).game == "g1"  # the clock is not free: reads go on


def test_schedule__nothing_due_nothing_picked_and_the_next_moment_said():
    games = plans(game("g1", polled_ago=10), game("g2", polled_ago=20))
    assert pick(NOW, games, SESSION) is None
    assert next_due(NOW, games, SESSION) == NOW + timedelta(seconds=40)


def test_schedule__a_game_that_crashed_waits_and_a_down_forum_gets_nothing():
    crashed = plans(game("g1", not_before=NOW + timedelta(seconds=30)))
    assert pick(NOW, crashed, SESSION) is None
    down = {"acct": SessionState(min_interval=2.0, available=False)}
    assert pick(NOW, plans(game("g1"), game("g2", changed=True)), down) is None


def test_schedule__a_game_starts_before_it_reads():
    job = pick(NOW, plans(game("g1", started=False)), SESSION)
    assert job.why == "start" and job.threads == ()


def test_schedule__a_read_that_stopped_at_its_budget_goes_on():
    g = game("g1", polled_ago=1)
    g.threads[12].behind = True
    assert pick(NOW, plans(g), SESSION).threads == (12,)


def test_schedule__a_pass_without_reads_once_an_interval():
    g = game("g1", polled_ago=10, idle=IDLE_AFTER)
    g.last_pass = NOW - timedelta(seconds=61)
    job = pick(NOW, plans(g), {"acct": SessionState(min_interval=2.0)})
    assert job.rank == IDLE_PASS and job.threads == ()


@pytest.mark.parametrize("games, hot, expected", [
    (5, False, 1.0),  # 15 threads at 60 s: 0.25 req/s, within 0.8 × 0.5
    (50, False, 150 / 60 / 0.4),  # all idle: stretched to what fits
    (50, True, (100 / 60) / (0.4 / 4)),  # 50 hot vote threads take it all: idle ones share a quarter
    (200, True, MAX_STRETCH),  # never beyond twenty intervals
])
def test_schedule__idle_threads_are_read_less_often_as_load_grows(games, hot, expected):
    many = [game(f"g{i}", idle=IDLE_AFTER, hot=("vote",) if hot else ()) for i in range(games)]
    assert stretch(many, 2.0) == pytest.approx(expected)


def test_schedule__fifty_games_hot_vote_threads_before_idle_ones():
    games = plans(*(game(f"g{i}", idle=IDLE_AFTER, polled_ago=3600, hot=("vote",) if i == 7 else ())
                    for i in range(50)))
    job = pick(NOW, games, SESSION)
    assert job.game == "g7" and job.rank == HOT
    games["g7"].threads[73].polled_at = NOW
    assert pick(NOW, games, SESSION).rank == DUE
