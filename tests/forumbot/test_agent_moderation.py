"""Issue 10 #3: a post the forum holds for moderation is ``pending_moderation`` — on the
forum, invisible, never sent again — with an alarm while it waits. Each pass the agent
looks whether a moderator released it (by pid on X3.5, by the marker on 7.2, which names
no pid) and then records it as published. The day's running count waits meanwhile (a
second post would be held too) and then edits the released post in place; a held final
count keeps the day's result."""

from __future__ import annotations

import pytest

from forumbot.game import director
from forumbot.demo.play import play
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import BOT, at
from tests.forumbot.alarm_support import cli, game_on


def bot_posts(game, thread="vote1"):
    """Every post the bot made in the thread, held ones included (the simulator's view)."""
    tid = game.world.tids[thread]
    return [p for p in game.sim.posts(tid) if p.author == BOT]


@pytest.mark.parametrize(("discuz", "charset"), [("x3", "utf-8"), ("7.2", "utf-8"), ("7.2", "gbk")])
def test_agent_moderation__held_never_resent_released_then_published_and_edited(tmp_path, discuz, charset):
    game = game_on(tmp_path, discuz, charset, running_count_interval_minutes=10)
    try:
        game.sim.settings.moderate_replies = True
        play(game, until=at(1, "10:05"))
        [held] = game.rt.outbox.drafts(DraftState.PENDING_MODERATION)
        assert held.kind is DraftKind.RUNNING_COUNT and held.attempts == 1
        [on_forum] = bot_posts(game)
        assert on_forum.invisible == -2
        assert held.pid == (on_forum.pid if discuz == "x3" else None)  # 7.2 names no pid
        [alarm] = game.rt.store.alarms()
        assert alarm.key == f"moderation:{held.id}" and "等待审核" in alarm.text and "暂停" in alarm.text
        assert "论坛审核中" in cli(game, "drafts").output
        assert "被论坛扣下等待审核" in cli(game, "status").output

        play(game, until=at(1, "10:45"))  # 包子 voted at 10:20: the count changed, and waits
        assert len(bot_posts(game)) == 1  # nothing sent again, no second held post
        assert game.rt.outbox.get(held.id).attempts == 1
        assert [d.state for d in game.rt.outbox.drafts() if d.id != held.id][-1] is DraftState.APPROVED

        game.sim.settings.moderate_replies = False
        game.sim.release_post(on_forum.pid)  # a moderator approves it
        play(game, until=at(1, "10:55"))
        released = game.rt.outbox.get(held.id)
        assert (released.state, released.pid) == (DraftState.PUBLISHED, on_forum.pid)
        assert game.rt.store.alarms() == []
        # The waiting count went out as an edit of the released post: still one post.
        [post] = bot_posts(game)
        assert post.pid == on_forum.pid and post.invisible == 0
        assert "包子" in post.message.split("【计票】")[1] and post.message != on_forum.message
        history = [e.action for e in game.rt.store.audit_log() if e.action.startswith("alarm.")]
        assert history == ["alarm.raised", "alarm.cleared"]
    finally:
        game.close()
        game.sim.stop()


def test_agent_moderation__an_edit_in_a_moderated_board_is_held_again(tmp_path):
    game = game_on(tmp_path, running_count_interval_minutes=10)
    try:
        play(game, until=at(1, "10:05"))
        [count] = game.rt.outbox.drafts(DraftState.PUBLISHED)
        game.sim.settings.moderate_replies = True
        play(game, until=at(1, "10:25"))  # the next count edits the post: held again (X3.5)
        [held] = game.rt.outbox.drafts(DraftState.PENDING_MODERATION)
        assert held.edit_pid == count.pid == held.pid
        assert game.sim.post(count.pid).invisible == -2
        assert [a.key for a in game.rt.store.alarms()] == [f"moderation:{held.id}"]
        game.sim.settings.moderate_replies = False  # (else the next count is held again)
        game.sim.release_post(count.pid)
        play(game, until=at(1, "10:35"))
        assert game.rt.outbox.get(held.id).state is DraftState.PUBLISHED
        assert game.rt.store.alarms() == []
    finally:
        game.close()
        game.sim.stop()


def test_agent_moderation__a_held_final_count_keeps_the_days_result(tmp_path):
    game = game_on(tmp_path)
    try:
        play(game, until=at(1, "21:00"))
        game.sim.settings.moderate_replies = True
        play(game, until=at(1, "23:30"))  # the final count approved (by play), sent, held
        [final] = [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT]
        assert final.state is DraftState.PENDING_MODERATION
        status = director.status(game.rt, game.clock.now())
        assert status.sheriff == "饺子"  # the result stands while a moderator decides
        retracted = [e for e in game.rt.store.audit_log() if "retract" in e.action]
        assert retracted == []
        assert any(a.key == f"moderation:{final.id}" for a in status.alarms)
    finally:
        game.close()
        game.sim.stop()


def test_agent_moderation__the_director_may_stop_waiting(tmp_path):
    game = game_on(tmp_path)
    try:
        game.sim.settings.moderate_replies = True
        play(game, until=at(1, "10:05"))
        [held] = game.rt.outbox.drafts(DraftState.PENDING_MODERATION)
        assert cli(game, "retry", str(held.id)).exit_code == 1  # not failed: nothing to resend
        result = cli(game, "reject", str(held.id), "--why", "版主删了它")
        assert result.exit_code == 0, result.output
        play(game, until=at(1, "10:15"))
        assert game.rt.outbox.get(held.id).state is DraftState.REJECTED
        assert game.rt.store.alarms() == []
    finally:
        game.close()
        game.sim.stop()


@pytest.mark.parametrize(("discuz", "charset"), [("x3", "utf-8"), ("7.2", "gbk")])
def test_agent_moderation__a_held_new_thread_is_published_with_its_tid_once_released(tmp_path, discuz, charset):
    game = game_on(tmp_path, discuz, charset)
    try:
        play(game, until=at(1, "09:35"))
        fid = game.sim.data.thread(game.world.tids["vote1"]).fid
        game.sim.settings.moderate_threads = True
        draft = game.rt.outbox.create_new_thread(fid, "【测试村】第二日 投票帖", "第二日白天开始，请在本帖投票。",
                                                 now=game.clock.now(), day=2)
        game.rt.outbox.approve(draft.id, "director", now=game.clock.now())
        play(game, until=at(1, "09:50"))
        held = game.rt.outbox.get(draft.id)
        assert held.state is DraftState.PENDING_MODERATION and held.attempts == 1
        [thread] = [t for t in game.sim.data.threads.values() if t.subject == "【测试村】第二日 投票帖"]
        assert thread.held and held.tid == (thread.tid if discuz == "x3" else 0)  # 7.2 names no tid
        alarm = next(a for a in game.rt.store.alarms() if a.key == f"moderation:{draft.id}")
        assert "新帖「【测试村】第二日 投票帖」" in alarm.text and "主题 0" not in alarm.text
        play(game, until=at(1, "10:05"))
        assert game.rt.outbox.get(draft.id).attempts == 1  # never sent again
        game.sim.settings.moderate_threads = False
        game.sim.release_thread(thread.tid)  # a moderator approves it
        play(game, until=at(1, "10:20"))
        released = game.rt.outbox.get(draft.id)
        assert (released.state, released.tid) == (DraftState.PUBLISHED, thread.tid)
        assert released.pid == game.sim.posts(thread.tid)[0].pid
        assert not any(a.key == f"moderation:{draft.id}" for a in game.rt.store.alarms())
        assert [t.tid for t in game.sim.data.threads.values() if t.subject == "【测试村】第二日 投票帖"] == [thread.tid]
    finally:
        game.close()
        game.sim.stop()
