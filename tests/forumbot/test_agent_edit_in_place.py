"""The running count kept in one post per day, edited in place ([agent]
running_count_edit_in_place = true), over real HTTP against the simulator."""

from __future__ import annotations

import os

from forumbot.demo import play, setup_game
from forumbot.marker import find_marker_in_text
from forumbot.outbox import DraftKind, DraftState
from forumbot.scenario import BOT, PASSWORD, at


def test_agent_running_count__edited_in_place_one_post_per_day(tmp_path):
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    game = setup_game(tmp_path, running_count_edit_in_place=True, running_count_interval_minutes=30)
    try:
        play(game, until=at(1, "20:00"))
        tid = game.world.tids["vote1"]
        counts = [p for p in game.sim.posts(tid) if p.author == BOT and "【计票】" in p.message]
        assert len(counts) == 1, "one running-count post, edited, not one per count"
        published = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.RUNNING_COUNT]
        assert len(published) >= 3, "several counts were published…"
        assert {d.pid for d in published} == {counts[0].pid}, "…all into the same post"
        latest = max(published, key=lambda d: d.id)
        assert find_marker_in_text(counts[0].message) == latest.marker
        assert "[tr][td]饺子[/td][td]4[/td]" in counts[0].message  # the newest tally shows
        assert game.errors == []
    finally:
        game.close()
        game.sim.stop()
