"""An idle pass does not re-tally: a day whose posts, events and outbox did not change
since it was last decided, and for which no moment that matters passed (the deadline, the
end of the settle delay, the running-count interval), is skipped — over real HTTP on the
simulator, counting the agent's calls to ``count_day``."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

import forumbot.agent.loop as agent_module
from forumbot.game import director
from forumbot.demo.play import setup_game
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import PASSWORD, at
from forumbot.simulator import SimClock


@pytest.fixture(autouse=True)
def _password():
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD


@pytest.fixture
def counted(monkeypatch):
    calls: list[int] = []
    real = agent_module.count_day

    def count_day(config, store, number):
        calls.append(number)
        return real(config, store, number)

    monkeypatch.setattr(agent_module, "count_day", count_day)
    return calls


@pytest.fixture
def game(tmp_path):
    clock = SimClock(start=at(1, "11:00"))
    game = setup_game(tmp_path, clock=clock, running_count_interval_minutes=30, poll_jitter_seconds=0)
    game.driver.apply_due(clock.now())
    game.agent.start()
    yield game
    game.close()
    game.sim.stop()


def tick(game, minutes: float = 1):
    game.clock.advance(seconds=minutes * 60)
    return game.agent.tick()


def settle(game) -> None:
    """Passes until one decides nothing (the agent's own writes make one more run)."""
    for _ in range(4):
        tick(game)


def test_idle_pass__no_retally_when_nothing_changed(game, counted):
    settle(game)
    counted.clear()
    requests = len(game.sim.requests)
    report = tick(game)
    assert counted == []
    assert report.errors == []
    # the threads were still read: one request each (the last page)
    assert len(game.sim.requests) - requests == len(game.agent.threads_to_poll(game.clock.now()))


def test_idle_pass__a_new_vote_is_tallied_at_once(game, counted):
    settle(game)
    counted.clear()
    game.sim.add_post(game.world.tids["vote1"], "月饼", "投票对象：饺子\n投票理由：测试", at=game.clock.now())
    tick(game)
    assert counted == [1]
    assert any(v["voter"] == "月饼" for v in game.rt.store.tally(1).data["votes"])


def test_idle_pass__an_edit_is_tallied(game, counted):
    settle(game)
    vote = next(p for p in game.sim.posts(game.world.tids["vote1"]) if p.author == "饺子")
    counted.clear()
    game.sim.edit_post(vote.pid, "投票对象：汤圆\n投票理由：改了", at=game.clock.now())
    tick(game)
    assert counted == [1]


def test_idle_pass__an_event_from_another_connection_is_seen(game, counted, tmp_path):
    """The director's command runs in another process: its write reaches the agent's
    connection as a changed ``data_version``."""
    from forumbot.game.runtime import open_runtime

    settle(game)
    counted.clear()
    other = open_runtime(game.rt.config.path, clock=game.clock)
    try:
        director.add_alias(other, "饺子", "饺", game.clock.now())
    finally:
        other.close()
    tick(game)
    assert counted == [1]


def test_idle_pass__the_director_approving_the_final_count_is_seen(tmp_path, counted):
    """Approving changes the outbox: the day is decided again, and the approved count's
    result becomes game state (day 1: the sheriff elected) in that same pass."""
    clock = SimClock(start=at(1, "21:40"))
    game = setup_game(tmp_path, clock=clock, poll_jitter_seconds=0)
    try:
        game.driver.apply_due(at(1, "21:30"))
        game.agent.start()
        settle(game)
        final = next(d for d in director.waiting(game.rt) if d.kind is DraftKind.FINAL_COUNT)
        settle(game)
        events = len(game.rt.store.events())
        counted.clear()
        tick(game)
        assert counted == []
        director.approve(game.rt, final.id, game.clock.now())
        tick(game)
        assert counted == [1]
        assert len(game.rt.store.events()) == events + 1  # the election's result, by the bot
        assert game.rt.outbox.get(final.id).state is DraftState.PUBLISHED
    finally:
        game.close()
        game.sim.stop()


def test_idle_pass__the_deadline_is_a_moment_that_matters(tmp_path, counted):
    """Nothing new is posted across the deadline: the day is still re-read at the
    deadline and its final count drafted once the settle delay is over."""
    clock = SimClock(start=at(1, "21:20"))
    game = setup_game(tmp_path, clock=clock, final_count_delay_minutes=5, poll_jitter_seconds=0)
    try:
        game.driver.apply_due(clock.now())
        game.agent.start()
        settle(game)  # 21:24
        counted.clear()
        tick(game, 2)  # 21:26: nothing changed
        assert counted == []
        game.clock.set(at(1, "21:30"))
        game.agent.tick()
        assert counted == [1]
        assert game.rt.store.get_meta("rescanned:day1")
        assert not [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT]
        tick(game, 1)  # the re-read wrote nothing new: one more run, nothing drafted
        counted.clear()
        tick(game, 1)
        assert counted == []
        game.clock.set(at(1, "21:35"))
        game.agent.tick()
        assert counted == [1]
        assert [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT]
    finally:
        game.close()
        game.sim.stop()


def test_idle_pass__a_running_count_held_by_the_interval_is_drafted_when_it_ends(game, counted):
    """A vote that changes the tally within the running-count interval waits for the
    interval's end — which comes with nothing new posted."""
    settle(game)
    counts = [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.RUNNING_COUNT]
    assert len(counts) == 1
    first = counts[0].created_at
    game.sim.add_post(game.world.tids["vote1"], "月饼", "投票对象：饺子\n投票理由：测试", at=game.clock.now())
    settle(game)
    assert len([d for d in game.rt.outbox.drafts() if d.kind is DraftKind.RUNNING_COUNT]) == 1
    counted.clear()
    tick(game, 1)
    assert counted == []  # still inside the interval, nothing new
    game.clock.set(first + timedelta(minutes=30, seconds=1))
    game.agent.tick()
    assert counted == [1]
    counts = [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.RUNNING_COUNT
              and d.state is not DraftState.SUPERSEDED]
    assert len(counts) == 2
