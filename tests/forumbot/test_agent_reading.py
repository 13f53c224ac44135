"""How the agent reads a game, over real HTTP against the simulator: which source (thread
pages or the mobile API), no second read of a thread it has just read whole, and running
counts that survive a kill between tallying and drafting."""

from __future__ import annotations

import os

import pytest

from forumbot.agent.loop import Agent, TickReport

from forumbot.notify import Notifier
from forumbot.demo.play import play, setup_game
from forumbot.game.state import count_day
from forumbot.store.outbox import DraftKind
from forumbot.game.runtime import make_client
from forumbot.demo.scenario import PASSWORD, at
from forumbot.simulator import SimClock


@pytest.fixture(autouse=True)
def _password():
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD


def test_agent_source__thread_pages_when_they_have_seconds(tmp_path):
    game = setup_game(tmp_path)
    try:
        game.agent.start()
        assert game.rt.store.get_meta("read_source") == "html"
        assert game.agent.client.use_api is False
    finally:
        game.close()
        game.sim.stop()


def test_agent_source__mobile_api_when_pages_show_minutes_only(tmp_path):
    game = setup_game(tmp_path)
    try:
        game.sim.settings.dateconvert = False  # pages print "发表于 2026-12-01 08:30"
        game.agent.start()
        assert game.rt.store.get_meta("read_source") == "api"
        assert game.agent.client.use_api is True
        # the decision is kept: a restarted agent does not switch (every post would look edited)
        game.sim.settings.dateconvert = True
        again = Agent(game.rt, make_client(game.rt), notifier=Notifier.for_agent)
        again.start()
        assert again.client.use_api is True
    finally:
        game.close()
        game.sim.stop()


def test_agent_first_start_after_a_deadline__reads_each_thread_once(tmp_path):
    clock = SimClock(start=at(2, "10:00"))
    game = setup_game(tmp_path, clock=clock)
    try:
        game.driver.apply_due(at(2, "10:00"))  # day 1 fully played before the bot starts
        bars: dict[int, list[int]] = {}
        game.agent.progress = lambda tid, total: bars.setdefault(tid, [total]).append
        game.agent.start()
        before = len(game.sim.requests)
        game.agent.tick()
        # day 1's discussion (37 posts, 4 pages) gets a progress bar: its total, then each page
        assert bars == {game.world.tids["talk1"]: [4, 1, 2, 3, 4]}, bars
        tids = {game.world.tids[k] for k in ("progress", "talk1", "vote1", "talk2", "vote2")}
        pages = [r for r in game.sim.requests[before:] if r.query.get("mod") == "viewthread"]
        per_thread = {}
        for r in pages:
            key = (int(r.query["tid"]), int(r.query.get("page", 1)))
            per_thread[key] = per_thread.get(key, 0) + 1
        assert {tid for tid, _ in per_thread} == tids
        twice = {k: n for k, n in per_thread.items() if n > 1 and k[0] != game.world.tids["vote2"]}
        assert not twice, f"pages read twice on a first start: {twice}"
    finally:
        game.close()
        game.sim.stop()


def test_agent_running_count__not_lost_when_killed_between_tally_and_draft(tmp_path):
    game = setup_game(tmp_path, running_count_interval_minutes=0)
    try:
        play(game, until=at(1, "10:30"))
        counts = [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.RUNNING_COUNT]
        game.driver.apply_due(at(1, "11:05"))  # 汤圆 votes at 11:00
        # A pass that stored the new tally and was killed before drafting: the tally is
        # saved, nothing drafted.
        game.agent.poll(game.clock.now(), TickReport(at=game.clock.now()))
        game.rt.store.save_tally(1, count_day(game.rt.config, game.rt.store, 1).data, at=game.clock.now())
        game.agent.tick()  # the restarted agent
        after = [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.RUNNING_COUNT]
        assert len(after) == len(counts) + 1
        assert "汤圆" in after[-1].body
    finally:
        game.close()
        game.sim.stop()
