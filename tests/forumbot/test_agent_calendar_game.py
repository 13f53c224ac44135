"""A three-day game on the simulator from a config without [[days]] (SPEC §11): the bot
opens each day's threads (the director only approves), reminds, closes and records the
tids in the store; on both generations, 7.2 in GBK too."""

from __future__ import annotations

import pytest

from forumbot.store.outbox import DraftKind, DraftState
from tests.forumbot.calendar_support import BOT, PLAYERS, at, calendar_game

GENERATIONS = [("x3", "utf-8"), ("7.2", "utf-8"), ("7.2", "gbk")]
# day → (start, deadline): 12-01 Tue → 12-02 21:30; 12-03 Thu → 12-04 21:30; 12-05 Sat → 12-07 Mon 21:30
DAYS = {1: ((1, "09:00"), (2, "21:30")), 2: ((3, "09:00"), (4, "21:30")), 3: ((5, "09:00"), (7, "21:30"))}
VOTES = {1: [("饺子", "月饼"), ("包子", "月饼"), ("汤圆", "月饼"), ("月饼", "饺子")],
         2: [("饺子", "汤圆"), ("包子", "汤圆"), ("汤圆", "饺子")],
         3: [("饺子", "包子"), ("包子", "饺子")]}


def _at(day_hhmm: tuple[int, str], minutes: int = 0):
    from datetime import timedelta

    return at(*day_hhmm) + timedelta(minutes=minutes)


@pytest.mark.parametrize("discuz,charset", GENERATIONS)
def test_calendar_game__three_days_the_director_only_approves(tmp_path, discuz, charset):
    with calendar_game(tmp_path, discuz=discuz, charset=charset, named=False, days=3, moderator=True,
                       discussion=True) as g:
        assert g.rt.config.calendar is not None and all(d.vote_thread is None for d in g.rt.config.days)
        opened: dict[int, tuple[int, int]] = {}
        for n, (start, deadline) in DAYS.items():
            g.tick(_at(start, 1))
            drafts = [d for d in g.rt.outbox.drafts() if d.kind is DraftKind.NEW_THREAD and d.day == n]
            assert len(drafts) == 2 and all(d.state is DraftState.DRAFT for d in drafts), "the director approves"
            assert g.approve_all()
            g.tick(_at(start, 2))
            day = g.rt.config.day(n)
            assert day.vote_thread and day.discussion_thread
            opened[n] = (day.vote_thread, day.discussion_thread)
            vote_tid = day.vote_thread
            thread = g.sim.data.thread(vote_tid)
            assert thread.author == BOT and thread.fid == g.fid and f"第{n}日" in thread.subject
            first = g.sim.posts(vote_tid)[0].message
            assert "投票对象：" in first and "改票对象：" in first and "引用自己原来的投票帖" in first
            for who, target in VOTES[n]:
                g.vote(vote_tid, who, target, when=_at(start, 30))
            if n == 1:  # no thread before the bot opened one: how threads are read is decided now
                assert g.rt.store.get_meta("read_source") is None
            g.tick(_at(start, 60))
            assert g.rt.store.get_meta("read_source") in ("html", "api")
            g.tick(_at(deadline, -89))  # the freeze's reminder (an hour before 改票截止)
            g.tick(_at(deadline, -59))  # the deadline's
            g.tick(_at(deadline, 0))  # the closing post, then the lock
            assert g.sim.data.thread(vote_tid).closed
            g.tick(_at(deadline, 10))  # the final count, for the director
            assert g.approve_all()
            g.tick(_at(deadline, 11))
            bot = g.bot_posts(vote_tid)
            assert sum("【提醒】" in m for m in bot) == 2, bot
            assert sum("【截止】" in m for m in bot) == 1
            assert sum("【最终计票】" in m for m in bot) == 1
        # every thread opened once, each day's own, recorded in the store's days
        threads = [t for t in g.sim.data.threads.values() if t.author == BOT]
        assert len(threads) == 6 and len({t.tid for t in threads}) == 6
        kept = {d.number: (d.vote_thread, d.discussion_thread) for d in g.rt.store.stored_days()}
        assert kept == opened
        finals = {d.day: d.body for d in g.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.FINAL_COUNT}
        assert "结果：月饼 当选警长" in finals[1]  # 14人简易: day 1 elects the sheriff
        assert "结果：汤圆 出局" in finals[2]
        assert g.errors() == []


def test_calendar_game__the_tally_and_the_evidence_read_the_threads_the_bot_opened(tmp_path):
    import httpx

    from forumbot.agent.offline import offline_tally
    from forumbot.evidence import export_day, load, verify, write

    with calendar_game(tmp_path, discuz="7.2", charset="gbk", named=False, days=1) as g:
        start, deadline = DAYS[1]
        g.tick(_at(start, 1))
        g.approve_all()
        g.tick(_at(start, 2))
        tid = g.rt.config.day(1).vote_thread
        for who, target in VOTES[1]:
            g.vote(tid, who, target, when=_at(start, 30))
        g.tick(_at(deadline, 0))
        g.tick(_at(deadline, 10))
        data = export_day(g.rt.config, g.rt.store, 1, now=g.clock.now())
        write(data, tmp_path / "day1.json")
        check = verify(load(tmp_path / "day1.json"))
        assert check.equal and check.recount["counts"] == {"月饼": 3, "饺子": 1}
        page = httpx.get(f"{g.sim.base_url}viewthread.php?tid={tid}").content
        saved = tmp_path / "page1.html"
        saved.write_bytes(page)
        # no [[days]] in the config: the offline tally finds day 1's thread in the game's store
        outcome = offline_tally(g.rt.config.path, 1, [saved])
        assert outcome.as_json()["counts"] == {"月饼": 3, "饺子": 1}


def test_calendar_game__a_crash_after_the_thread_opened_records_it_once(tmp_path, monkeypatch):
    """Killed between the forum storing the new thread (the outbox has its tid) and the
    days recording it: the next agent records it and opens nothing again."""
    from forumbot.agent.days import DayDuties
    from forumbot.agent.loop import Agent
    from forumbot.game.runtime import make_client, open_runtime

    with calendar_game(tmp_path, discuz="7.2", charset="gbk", named=False, days=1) as g:
        start, _ = DAYS[1]
        g.tick(_at(start, 1))
        g.approve_all()

        def killed(self, now, report):
            raise KeyboardInterrupt("killed")

        monkeypatch.setattr(DayDuties, "settle", killed)
        with pytest.raises(KeyboardInterrupt):
            g.tick(_at(start, 2))
        monkeypatch.undo()
        assert g.rt.store.stored_day(1).vote_thread is None
        rt = open_runtime(g.rt.config.path, clock=g.clock)
        try:
            agent = Agent(rt, make_client(rt))
            agent.start()
            g.clock.set(_at(start, 5))
            assert agent.tick().errors == []
            assert rt.store.stored_day(1).vote_thread is not None
            assert len([t for t in g.sim.data.threads.values() if t.author == BOT]) == 1
        finally:
            rt.close()


def test_calendar_game__a_rejected_voting_thread_is_an_alarm_until_the_day_has_one(tmp_path):
    from forumbot.game import director

    with calendar_game(tmp_path, named=False, days=1) as g:
        start, _ = DAYS[1]
        g.tick(_at(start, 1))
        vote = next(d for d in director.waiting(g.rt) if d.kind is DraftKind.NEW_THREAD)
        director.reject(g.rt, vote.id, "我自己开帖", g.clock.now())
        g.tick(_at(start, 2))
        (alarm,) = [a for a in g.rt.store.alarms() if a.kind == "no_vote_thread"]
        assert "第1日没有投票帖" in alarm.text and "vote_thread" in alarm.text
        assert [d.id for d in g.rt.outbox.drafts() if d.kind is DraftKind.NEW_THREAD] == [vote.id]  # never redrafted
        tid = g.sim.add_thread(g.fid, "导演开的投票帖", author="导演", message="投票格式……", at=g.clock.now())
        g.rt.base_config.path.write_text(g.rt.base_config.path.read_text(encoding="utf-8")
                                         + f"\n[[days]]\nnumber = 1\nvote_thread = {tid}\n", encoding="utf-8")
        from forumbot.agent.loop import Agent
        from forumbot.game.runtime import make_client, open_runtime

        rt = open_runtime(g.rt.base_config.path, clock=g.clock)
        try:
            agent = Agent(rt, make_client(rt))
            agent.start()
            g.clock.set(_at(start, 10))
            agent.tick()
            assert rt.config.day(1).vote_thread == tid
            assert [a for a in rt.store.alarms() if a.kind == "no_vote_thread"] == []
        finally:
            rt.close()
