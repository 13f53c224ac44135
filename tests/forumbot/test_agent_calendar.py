"""The calendar's moments over real HTTP (SPEC §11), on both generations (7.2 in GBK too):
reminders before the change freeze and the deadline, the closing post (截止) at the
deadline, which on a forum showing minutes only becomes the day's deadline_pid."""

from __future__ import annotations

import pytest

from forumbot.store.outbox import DraftKind, DraftState
from tests.forumbot.calendar_support import PLAYERS, at, calendar_game

GENERATIONS = [("x3", "utf-8"), ("7.2", "utf-8"), ("7.2", "gbk")]


@pytest.mark.parametrize("discuz,charset", GENERATIONS)
def test_agent_calendar__reminders_and_the_closing_post(tmp_path, discuz, charset):
    with calendar_game(tmp_path, discuz=discuz, charset=charset, extra_calendar="lock_threads = false") as g:
        tid = g.vote_tid
        g.tick(at(1, "09:05"))
        g.vote(tid, PLAYERS[0], PLAYERS[1])
        g.vote(tid, PLAYERS[1], PLAYERS[0])
        g.tick(at(1, "12:00"))
        assert not any("【提醒】" in m for m in g.bot_posts(tid)), "no reminder on day 1 of a two-day span"
        # Day 1 closes 12-02 21:30; changes end 20:30; the freeze's reminder is due at 19:30.
        g.tick(at(2, "19:31"))
        reminders = [m for m in g.bot_posts(tid) if "【提醒】" in m]
        assert len(reminders) == 1 and "停止改票" in reminders[0]
        assert "汤圆" in reminders[0] and "月饼" in reminders[0] and "饺子" not in reminders[0]
        g.tick(at(2, "19:45"))
        assert len([m for m in g.bot_posts(tid) if "【提醒】" in m]) == 1, "a reminder is posted once"
        g.tick(at(2, "20:31"))
        reminders = [m for m in g.bot_posts(tid) if "【提醒】" in m]
        assert len(reminders) == 2 and "投票截止" in reminders[1] and "停止改票" not in reminders[1]
        g.vote(tid, PLAYERS[2], PLAYERS[0], when=at(2, "21:30"))
        g.tick(at(2, "21:30"))
        closing = [d for d in g.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.CLOSING]
        assert len(closing) == 1 and closing[0].day == 1
        said = g.sim.post(closing[0].pid).message
        assert "【截止】第1日" in said and ("以本帖为界" in said) == (discuz == "7.2")
        late = g.vote(tid, PLAYERS[3], PLAYERS[0], when=at(2, "21:30"))
        g.tick(at(2, "21:31"))
        kept = g.rt.store.stored_day(1)
        assert kept.closing_pid == closing[0].pid
        day1 = g.rt.config.day(1)
        if discuz == "7.2":  # minutes only: the closing post is the deadline's boundary
            assert kept.deadline_pid == closing[0].pid and day1.deadline_pid == closing[0].pid
        else:
            assert kept.deadline_pid is None
        g.tick(at(2, "21:40"))
        final = next(d for d in g.rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT)
        assert final.day == 1
        if discuz == "7.2":
            # 汤圆's vote of 21:30 came before the closing post, 月饼's after it.
            assert "月饼：投票截止后发帖" in final.body and "汤圆：投票截止后发帖" not in final.body
        assert late
        assert g.errors() == []


def test_agent_calendar__a_reminder_missed_is_not_posted_after_its_moment(tmp_path):
    with calendar_game(tmp_path) as g:
        g.tick(at(1, "09:05"))
        g.tick(at(2, "20:40"))  # down from 09:05 to 20:40: the freeze has passed
        reminders = [m for m in g.bot_posts(g.vote_tid) if "【提醒】" in m]
        assert len(reminders) == 1 and "投票截止" in reminders[0]


def test_agent_calendar__a_game_without_calendar_posts_none_of_it(tmp_path):
    from tests.forumbot.game_support import store_game

    game = store_game(tmp_path, "simple14")
    try:
        assert game.rt.config.calendar is None
        assert [d.number for d in game.rt.store.stored_days()] == [1, 2, 3]
    finally:
        game.close()


@pytest.mark.parametrize("discuz,charset", GENERATIONS)
def test_agent_calendar__locked_at_the_deadline_and_reopened_when_the_director_asks(tmp_path, discuz, charset):
    from forumbot.game import director

    with calendar_game(tmp_path, discuz=discuz, charset=charset, moderator=True) as g:
        tid = g.vote_tid
        g.tick(at(1, "09:05"))
        with pytest.raises(Exception, match="没有被机器人关闭"):
            director.ask_reopen(g.rt, 1, g.clock.now())
        g.tick(at(2, "21:30"))
        assert g.sim.data.thread(tid).closed, "the voting thread is locked at the deadline"
        kept = g.rt.store.stored_day(1)
        assert kept.locked_at is not None and kept.closing_pid is not None
        g.tick(at(2, "21:36"))
        assert g.approve_all()
        g.tick(at(2, "21:37"))  # the final count goes into the locked thread (the bot moderates it)
        assert any("【最终计票】" in m for m in g.bot_posts(tid))
        answer = director.ask_reopen(g.rt, 1, g.clock.now())
        assert "重新打开" in answer
        g.tick(at(2, "21:40"))
        assert not g.sim.data.thread(tid).closed
        g.tick(at(2, "21:45"))
        assert not g.sim.data.thread(tid).closed, "a reopened thread is not locked again"
        assert g.rt.store.stored_day(1).reopened_at is not None
        assert g.errors() == []


def test_agent_calendar__not_a_moderator_no_lock(tmp_path):
    with calendar_game(tmp_path) as g:
        g.tick(at(1, "09:05"))
        g.tick(at(2, "21:30"))
        assert not g.sim.data.thread(g.vote_tid).closed
        assert g.rt.store.stored_day(1).locked_at is None
        assert g.rt.store.get_meta("may_moderate") == "no"
        assert g.errors() == []


@pytest.mark.parametrize("moderator", [True, False])
def test_check__says_whether_the_bot_may_close_the_voting_threads(tmp_path, moderator):
    from forumbot.agent.preflight import preflight

    with calendar_game(tmp_path, named=False, moderator=moderator) as g:
        found = {c.name: c for c in preflight(g.rt, g.agent.client, g.clock.now()).checks}
        lock = found["截止时关闭投票帖"]
        assert (lock.outcome.value, "不是版块" in lock.detail) == (("pass", False) if moderator else ("warn", True))


def test_agent_calendar__the_reminder_by_pm_to_each_player_without_a_vote(tmp_path):
    from tests.forumbot.calendar_support import BOT

    with calendar_game(tmp_path, notify=True, extra_calendar="remind_by_pm = true\nlock_threads = false") as g:
        tid = g.vote_tid
        g.tick(at(1, "09:05"))
        g.vote(tid, "饺子", "包子")
        g.sim.add_post(tid, "汤圆", "我还在想，晚点再投", at=g.clock.now())  # no vote; the bot learns the uid
        g.tick(at(1, "10:00"))
        g.tick(at(2, "19:31"))  # the freeze's reminder: 包子 (no post yet), 汤圆 and 月饼 have no vote
        g.tick(at(2, "19:33"))
        to = {name: [m.text for m in g.sim.pms_between(BOT, name) if m.fromuid == g.sim.data.user(BOT).uid]
              for name in PLAYERS}
        assert len(to["汤圆"]) == 1 and "你还没有有效的投票" in to["汤圆"][0] and "viewthread" in to["汤圆"][0]
        assert to["饺子"] == [] and to["月饼"] == [] and to["包子"] == []  # voted / uid never seen
        g.tick(at(2, "19:45"))
        assert len([m for m in g.sim.pms_between(BOT, "汤圆") if m.fromuid == g.sim.data.user(BOT).uid]) == 1
        assert g.errors() == []


def test_check__a_calendar_game_without_its_board_fails(tmp_path):
    from forumbot.agent.preflight import preflight
    from forumbot.game.runtime import make_client, open_runtime

    with calendar_game(tmp_path, named=False) as g:
        path = g.rt.base_config.path
        path.write_text(path.read_text(encoding="utf-8").replace(f"fid = {g.fid}\n", ""), encoding="utf-8")
        rt = open_runtime(path, clock=g.clock)
        try:
            found = {c.name: c for c in preflight(rt, make_client(rt), g.clock.now()).checks}
            assert found["游戏版块"].outcome.value == "fail" and "[forum].fid" in found["游戏版块"].detail
        finally:
            rt.close()
