"""The running count kept in one post per day, edited in place ([agent]
running_count_edit_in_place = true), over real HTTP against the simulator."""

from __future__ import annotations

import os

import pytest

from forumbot.demo.play import play, setup_game
from forumbot.store.marker import find_marker_in_text
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import BOT, PASSWORD, at


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


def _count_posts(game, key="vote1"):
    """The running-count posts (answers to 计票 show the same table, addressed to the player)."""
    return [p for p in game.sim.posts(game.world.tids[key])
            if p.author == BOT and "【计票】" in p.message and "计票如下" not in p.message]


def test_agent_running_count__edit_in_place_is_the_default(tmp_path):
    """No running_count_edit_in_place key in the config: one running-count post a day,
    new posts only for the final count and the answers to 计票."""
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    game = setup_game(tmp_path, running_count_interval_minutes=30)
    try:
        assert "running_count_edit_in_place" not in (tmp_path / "game.toml").read_text(encoding="utf-8")
        assert game.rt.settings.agent.running_count_edit_in_place is True
        play(game)
        for day, key in enumerate(("vote1", "vote2", "vote3"), start=1):
            bot = [p for p in game.sim.posts(game.world.tids[key]) if p.author == BOT]
            finals = [p for p in bot if "【最终计票】" in p.message]
            replies = [p for p in bot if "计票如下" in p.message]
            assert len(_count_posts(game, key)) == 1, key
            assert len(finals) == 1 and len(bot) == 2 + len(replies), key
        assert game.errors == []
    finally:
        game.close()
        game.sim.stop()


@pytest.mark.parametrize("refusal", ["nopermission", "deleted"])
def test_agent_running_count__a_refused_edit_posts_anew_and_later_counts_edit_that(tmp_path, refusal):
    """The forum refuses to edit the day's count post (post_edit_nopermission, or the post
    was deleted): the count goes out as a new post, and the next ones edit the new post."""
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    game = setup_game(tmp_path, running_count_interval_minutes=30)
    try:
        play(game, until=at(1, "10:10"))
        (first,) = _count_posts(game)
        if refusal == "deleted":
            game.sim.delete_post(first.pid)
        else:  # no longer the bot's to edit: Discuz answers post_edit_nopermission
            with game.sim.data.lock:
                game.sim.data.posts[first.pid].authorid = game.sim.data.user("导演").uid
        play(game, until=at(1, "20:00"))
        posts = _count_posts(game)
        new = [p for p in posts if p.pid != first.pid]
        assert len(new) == 1, "one new post, then edited in place"
        published = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.RUNNING_COUNT]
        latest = max(published, key=lambda d: d.id)
        assert find_marker_in_text(new[0].message) == latest.marker and latest.pid == new[0].pid
        assert len([d for d in published if d.pid == new[0].pid]) >= 2, "later counts edited the new post"
        refused = [h for d in published for h in game.rt.outbox.history(d.id) if h.detail.get("edit_refused")]
        assert len(refused) == 1 and refused[0].detail["edit_pid"] == first.pid
        if refusal == "nopermission":
            assert "EditNotAllowed" in refused[0].detail["edit_refused"]
            assert "[tr][td]包子[/td][td]1[/td]" in game.sim.post(first.pid).message  # left as it was
        assert game.errors == []
    finally:
        game.close()
        game.sim.stop()
