"""Issue 10 #7: ``forumbot retry ID`` sends a failed post again — the desk's 重发, through
the same library call, audited with the director as the actor — and says in Chinese why
it will not when the draft has not failed."""

from __future__ import annotations

from forumbot.demo.play import play
from forumbot.store.outbox import DraftState
from forumbot.demo.scenario import at
from tests.forumbot.alarm_support import cli, game_on


def test_cmd_retry__a_failed_post_goes_out_once_the_cause_is_fixed(tmp_path):
    game = game_on(tmp_path)
    try:
        game.sim.close_thread(game.world.tids["vote1"])
        play(game, until=at(1, "10:05"))
        [failed] = game.rt.outbox.drafts(DraftState.FAILED)
        game.sim.close_thread(game.world.tids["vote1"], closed=False)
        result = cli(game, "retry", str(failed.id))
        assert result.exit_code == 0, result.output
        assert f"已重新批准 #{failed.id} 计票" in result.output and "只发一次" in result.output
        assert game.rt.outbox.get(failed.id).state is DraftState.APPROVED
        [entry] = [e for e in game.rt.outbox.history(failed.id) if e.detail.get("retry")]
        assert entry.actor == "director(cli)"  # the command line, told apart from the desk
        assert any(e.action == "outbox.approved" and e.actor == "director(cli)" and e.detail.get("retry")
                   for e in game.rt.store.audit_log())
        play(game, until=at(1, "10:15"))
        assert game.rt.outbox.get(failed.id).state is DraftState.PUBLISHED

        again = cli(game, "retry", str(failed.id))  # published: nothing to retry
        assert again.exit_code == 1 and "「已发布」，只有发送失败的帖子可以重发" in again.output
        missing = cli(game, "retry", "999")
        assert missing.exit_code == 1 and "没有帖子 #999" in missing.output
    finally:
        game.close()
        game.sim.stop()
