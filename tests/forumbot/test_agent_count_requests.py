"""Players' 计票 requests over real HTTP: answered with a quoted count, rate-limited,
each request settled once (answered or skipped), the bot's own counts never taken as
requests."""

from __future__ import annotations

import os

from forumbot.demo.play import play, setup_game
from forumbot.store.outbox import DraftKind
from forumbot.demo.scenario import BOT, PASSWORD, at


def test_agent_count_requests__rate_limited_and_settled_once(tmp_path):
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    game = setup_game(tmp_path, count_request_interval_minutes=30)
    try:
        tid = game.world.tids["vote2"]
        play(game, until=at(2, "14:05"))  # Alice asked at 14:00 (scripted): answered
        second = game.sim.add_post(tid, "包子", "请计票，谢谢", at=game.clock.now())
        play(game, until=at(2, "14:45"))  # within 30 min of the answer: skipped
        third = game.sim.add_post(tid, "月饼", "计票计票", at=game.clock.now())
        play(game, until=at(2, "15:20"))  # 30 min later: answered
        replies = [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.COUNT_REPLY]
        assert [d.quote_pid for d in replies][1:] == [third]
        assert game.rt.store.get_meta(f"count_request_skipped:{second}")
        skipped = [e for e in game.rt.store.audit_log() if e.action == "count_request_skipped"]
        assert [e.detail["pid"] for e in skipped] == [second]
        on_forum = [p for p in game.sim.posts(tid) if p.author == BOT and "计票如下" in p.message]
        assert len(on_forum) == 2
        assert game.errors == []
    finally:
        game.close()
        game.sim.stop()
