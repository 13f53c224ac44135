"""DiscuzClient's private messages over real HTTP against the simulator, X3.5 and 7.2.

The director is a simulator user with a client of their own. Time is the simulator's
clock: each client's throttle clock reads it and its sleep advances it, so waits are
recorded, not slept. Clients built with ``min_interval=0`` do not move the clock between
requests, which is what shows the current-second rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import httpx
import pytest

from forumbot.discuz import PM_SETTLE_SECONDS, DiscuzClient
from forumbot.discuz.errors import (
    FloodControl,
    ForumUnavailable,
    PmFloodControl,
    PmNotAccepted,
    RobotForbidden,
    UnknownRecipient,
)
from forumbot.discuz.retry import RetryPolicy
from forumbot.simulator import BEIJING, Fault, SimClock, Simulator

BOT, DIRECTOR, PLAYER = "计票机器人", "导演", "饺子"


@dataclass
class Forum:
    sim: Simulator
    base: str
    tid: int
    sleeps: dict[str, list[float]] = field(default_factory=dict)
    https: list[httpx.Client] = field(default_factory=list)

    @property
    def clock(self) -> SimClock:
        return self.sim.clock  # type: ignore[return-value]

    def client(self, name: str = BOT, **kwargs) -> DiscuzClient:
        http = httpx.Client(timeout=5)
        self.https.append(http)
        waits = self.sleeps.setdefault(name, [])

        def sleep(seconds: float) -> None:
            waits.append(seconds)
            self.clock.sleep(seconds)

        kwargs.setdefault("retry_policy", RetryPolicy(max_attempts=2, base_wait=1.0, jitter=0.0))
        return DiscuzClient(http, self.base, username=name, password_source=lambda: "pw",
                            clock=lambda: self.clock.now().timestamp(), sleep=sleep, **kwargs)

    def uid(self, name: str) -> int:
        return self.sim.data.user(name).uid

    def stored(self, text: str) -> int:
        return sum(1 for m in self.sim.data.pms.messages.values() if m.text == text)


@pytest.fixture(params=["x3", "7.2"])
def forum(request: pytest.FixtureRequest) -> Iterator[Forum]:
    yield from _forum(request.param)


def _forum(discuz: str, charset: str = "utf-8") -> Iterator[Forum]:
    sim = Simulator(clock=SimClock(start=datetime(2026, 11, 30, 9, 0, tzinfo=BEIJING)),
                    discuz=discuz, charset=charset)
    for name in (BOT, DIRECTOR, PLAYER):
        sim.add_user(name, "pw")
    fid = sim.add_forum("版杀区")
    tid = sim.add_thread(fid, "【饺子村】第一日 投票帖", DIRECTOR, "投票格式：投票对象：某某，理由随意")
    with sim.running() as base:
        f = Forum(sim, base, tid)
        yield f
        for http in f.https:
            http.close()


# ---- send and read, both ways ----------------------------------------------------------------

def test_pm__director_to_bot_and_back_with_pmids(forum: Forum) -> None:
    bot, director = forum.client(BOT), forum.client(DIRECTOR)
    bot.login()
    director.login()
    approve = director.send_pm(bot.uid, "批准 A7K2")
    assert approve.pmid is not None and approve.to_uid == bot.uid
    forum.clock.advance(1)
    assert bot.has_new_pm()
    (unread,) = bot.unread_conversations()
    assert (unread.uid, unread.name, unread.last_text) == (director.uid, DIRECTOR, "批准 A7K2")
    (got,) = bot.read_conversation(director.uid)
    assert (got.id, got.author, got.uid, got.text, got.own) == (
        approve.pmid, DIRECTOR, director.uid, "批准 A7K2", False)
    assert not bot.has_new_pm()  # opening the conversation read it
    draft = bot.send_pm(director.uid, "草稿 #14 等待批准：第二天计票（终）\n回复 批准 A7K2")
    assert draft.pmid is not None and draft.pmid > approve.pmid  # pmids grow site-wide
    forum.clock.advance(1)
    mine = director.read_conversation(bot.uid, since_id=approve.pmid)
    assert [(m.id, m.author, m.own, m.text) for m in mine] == [
        (draft.pmid, BOT, False, "草稿 #14 等待批准：第二天计票（终）\n回复 批准 A7K2")]
    assert bot.find_own_pm(director.uid, "第二天计票").id == draft.pmid


def test_pm__by_name_there_is_no_pmid_and_find_own_pm_learns_it(forum: Forum) -> None:
    bot = forum.client(BOT)
    bot.login()
    sent = bot.send_pm(DIRECTOR, "通知 #3：第一日计票已就绪")
    assert (sent.pmid, sent.via) == (None, "page")
    forum.clock.advance(PM_SETTLE_SECONDS)
    found = bot.find_own_pm(forum.uid(DIRECTOR), "通知 #3")
    assert found is not None and found.own and found.text == "通知 #3：第一日计票已就绪"


def test_pm__x3_mobile_api_names_the_pmid() -> None:
    for forum in _forum("x3"):
        bot, director = forum.client(BOT), forum.client(DIRECTOR)
        bot.login()
        director.login()
        assert bot.check_api()
        first = director.send_pm(bot.uid, "批准 #1")
        sent = bot.send_pm(director.uid, "收到 #1")
        assert (sent.via, sent.pmid) == ("api", first.pmid + 1)
        forum.clock.advance(1)
        assert [(m.id, m.own) for m in bot.read_conversation(director.uid)] == [
            (first.pmid, False), (sent.pmid, True)]
        # the API's conversation is 5 a page: later reads fetch earlier pages when needed
        for i in range(7):
            director.send_pm(bot.uid, f"第 {i} 条")
        forum.clock.advance(1)
        newer = bot.read_conversation(director.uid, since_id=sent.pmid)
        assert [m.text for m in newer] == [f"第 {i} 条" for i in range(7)]


def test_pm__x3_pages_of_a_long_conversation() -> None:
    for forum in _forum("x3"):
        bot, director = forum.client(BOT), forum.client(DIRECTOR)
        bot.login()
        director.login()
        ids = [director.send_pm(bot.uid, f"消息 {i}").pmid for i in range(13)]
        forum.clock.advance(1)
        assert [m.id for m in bot.read_conversation(director.uid, since_id=ids[1])] == ids[2:]
        assert [m.id for m in bot.read_conversation(director.uid, since_id=ids[-1])] == []


def test_pm__d72_window_widens_for_older_news() -> None:
    for forum in _forum("7.2"):
        bot, director = forum.client(BOT), forum.client(DIRECTOR)
        bot.login()
        director.login()
        old = director.send_pm(bot.uid, "三天前的消息")
        forum.clock.advance(days=3)
        new = director.send_pm(bot.uid, "今天的消息")
        forum.clock.advance(1)
        assert [m.id for m in bot.read_conversation(director.uid, since_id=old.pmid - 1)] == [
            old.pmid, new.pmid]
        before = len(forum.sim.requests)
        assert [m.id for m in bot.read_conversation(director.uid, since_id=old.pmid)] == [new.pmid]
        assert len(forum.sim.requests) - before == 2  # today, then the week that holds `old`
        latest = director.send_pm(bot.uid, "再一条")
        forum.clock.advance(1)
        before = len(forum.sim.requests)
        assert [m.id for m in bot.read_conversation(director.uid, since_id=new.pmid)] == [latest.pmid]
        assert len(forum.sim.requests) - before == 1  # a poll: today's window suffices


# ---- the current second ----------------------------------------------------------------------

def test_pm__a_message_of_the_current_second_is_not_listed_yet(forum: Forum) -> None:
    bot, director = forum.client(BOT, min_interval=0), forum.client(DIRECTOR, min_interval=0)
    bot.login()
    director.login()
    forum.clock.advance(20)
    sent = director.send_pm(bot.uid, "批准 B9")
    assert bot.read_conversation(director.uid) == []  # same second: not listed, not lost
    reply = bot.send_pm(director.uid, "已收到 B9")
    assert bot.find_own_pm(director.uid, "B9") is None
    forum.clock.advance(1)
    assert [m.id for m in bot.read_conversation(director.uid)] == [sent.pmid, reply.pmid]
    assert bot.find_own_pm(director.uid, "B9").id == reply.pmid


def test_pm__find_own_pm_after_a_kill_between_send_and_record(forum: Forum) -> None:
    bot = forum.client(BOT)
    bot.login()
    forum.sim.faults.add(Fault.DROP_AFTER_STORE, match="send")  # stored, answer lost
    with pytest.raises(ForumUnavailable) as lost:
        bot.send_pm(forum.uid(DIRECTOR), "草稿 #21 等待批准 [m:Q4]")
    assert lost.value.sent
    restarted = forum.client(BOT)  # a new process: nothing in memory
    restarted.login()
    forum.clock.advance(PM_SETTLE_SECONDS)
    found = restarted.find_own_pm(forum.uid(DIRECTOR), "[m:Q4]")
    assert found is not None  # so the outbox records it instead of sending again
    assert forum.stored("草稿 #21 等待批准 [m:Q4]") == 1


# ---- failures --------------------------------------------------------------------------------

def test_pm__unknown_recipient(forum: Forum) -> None:
    bot = forum.client(BOT)
    bot.login()
    with pytest.raises(UnknownRecipient):
        bot.send_pm("不存在的用户", "草稿 #14")
    if forum.sim.discuz == "x3":
        with pytest.raises(UnknownRecipient):
            bot.send_pm(999, "草稿 #14")
    else:  # 7.2 sends to a uid without looking it up: UCenter refuses it as 收件人拒收
        with pytest.raises(PmNotAccepted):
            bot.send_pm(999, "草稿 #14")
    assert not forum.sim.data.pms.messages


def test_pm__x3_a_pm_right_after_a_thread_reply_waits_instead_of_failing() -> None:
    for forum in _forum("x3"):
        bot = forum.client(BOT)
        bot.login()
        bot.reply(forum.tid, "投票对象：饺子\n投票理由：测试共享的发帖时钟")
        waits = len(forum.sleeps[BOT])
        sent = bot.send_pm(forum.uid(DIRECTOR), "第一日计票已发布")
        assert sent.pmid is not None
        assert max(forum.sleeps[BOT][waits:]) >= 15  # waited for the shared lastpost clock
        pm_posts = [r for r in forum.sim.requests if r.method == "POST" and r.query.get("op") == "send"]
        assert len(pm_posts) == 1  # waited before, not refused and sent again
        # …and the forum really refuses a PM in that window (raw, without the client's wait):
        bot.reply(forum.tid, "投票对象：包子\n投票理由：再测一次发帖时钟")
        with pytest.raises(PmFloodControl):
            bot.pm_post(f"home.php?mod=spacecp&ac=pm&op=send&touid={forum.uid(DIRECTOR)}&inajax=1",
                        {"pmsubmit": "true", "touid": str(forum.uid(DIRECTOR)),
                         "formhash": bot.pm_formhash("home.php?mod=spacecp&ac=pm"),
                         "handlekey": "showMsgBox", "message": "太快了", "messageappend": ""},
                        "raw PM")


def test_pm__x3_a_reply_right_after_a_pm_waits_too() -> None:
    for forum in _forum("x3"):
        bot = forum.client(BOT)
        bot.login()
        bot.send_pm(forum.uid(DIRECTOR), "草稿 #2 等待批准")
        waits = len(forum.sleeps[BOT])
        bot.reply(forum.tid, "投票对象：饺子\n投票理由：PM 之后的回帖")
        assert sum(forum.sleeps[BOT][waits:]) >= 15


def test_pm__x3_a_reply_that_must_not_wait_after_a_pm_is_refused_unsent() -> None:
    """A count rendered for the moment it is sent (issue 18 #8a) is not held 16 s and then
    sent stale: the wait is raised, nothing goes to the forum, the caller waits and renders."""
    for forum in _forum("x3"):
        bot = forum.client(BOT)
        bot.login()
        bot.send_pm(forum.uid(DIRECTOR), "草稿 #2 等待批准")
        waits = len(forum.sleeps[BOT])
        posts = sum(1 for r in forum.sim.requests if r.method == "POST" and r.query.get("action") == "reply")
        with pytest.raises(FloodControl) as refused:
            bot.reply(forum.tid, "投票对象：饺子\n投票理由：PM 之后的回帖", wait_for_flood=False)
        assert 0 < refused.value.seconds <= 16 and "稍后再发" in refused.value.message
        assert sum(forum.sleeps[BOT][waits:]) < 15  # not waited
        assert sum(1 for r in forum.sim.requests
                   if r.method == "POST" and r.query.get("action") == "reply") == posts  # not sent


def test_pm__d72_limits_only_pms_to_someone_who_never_wrote() -> None:
    for forum in _forum("7.2"):
        bot, director = forum.client(BOT, min_interval=0), forum.client(DIRECTOR)
        bot.login()
        director.login()
        director.send_pm(bot.uid, "批准 #5")
        forum.clock.advance(1)
        for i in range(3):  # replies to someone who wrote: never limited, never waited
            bot.send_pm(director.uid, f"回复 {i}")
        assert not any(w >= 15 for w in forum.sleeps[BOT])
        player = forum.uid(PLAYER)
        bot.send_pm(player, "提醒：请投票")  # a PM the bot sent 0 s ago counts: the forum refuses,
        assert forum.sleeps[BOT][-1] >= 15  # the client waits the interval and sends once more
        assert forum.stored("提醒：请投票") == 1


def test_pm__d72_robot_user_agent_is_told_plainly(tmp_path) -> None:
    for forum in _forum("7.2"):
        jar = tmp_path / "cookies.json"
        forum.client(BOT, cookie_path=jar).login()  # logging.php refuses robots too
        bot = forum.client(BOT, cookie_path=jar, user_agent="forumbot/0.1")
        with pytest.raises(RobotForbidden, match="User-Agent"):
            bot.read_conversation(forum.uid(DIRECTOR))


def test_pm__d72_gbk_forum_sends_and_reads_chinese_exactly() -> None:
    for forum in _forum("7.2", "gbk"):
        bot, director = forum.client(BOT), forum.client(DIRECTOR)
        bot.login()
        director.login()
        text = "驳回 #13 理由：票数不对（饺子、汤圆）\n第二行"
        sent = director.send_pm(bot.uid, text)
        forum.clock.advance(1)
        (got,) = bot.read_conversation(director.uid)
        assert (got.id, got.text) == (sent.pmid, text)
        assert forum.stored(text) == 1


def test_pm__the_simulators_own_send_pm_is_what_the_bot_reads(forum: Forum) -> None:
    pmid = forum.sim.send_pm(DIRECTOR, BOT, "批准 Z1")
    forum.clock.advance(1)
    bot = forum.client(BOT)
    bot.login()
    (got,) = bot.read_conversation(forum.uid(DIRECTOR))
    assert (got.id, got.author, got.text) == (pmid, DIRECTOR, "批准 Z1")
    assert [m.text for m in forum.sim.pms_between(BOT, DIRECTOR)] == ["批准 Z1"]


def test_pm__d72_seen_at_reads_the_one_window_that_reaches_back_far_enough() -> None:
    """A poll that knows when everything up to ``since_id`` was listed reads one date
    window (7.2 is windowed by date, not paged): today's when that was today — even on a
    new day with nothing in it yet, where the id rule alone widens to the week — and the
    week's across midnight."""
    for forum in _forum("7.2"):
        bot, director = forum.client(BOT), forum.client(DIRECTOR)
        bot.login()
        director.login()
        old = director.send_pm(bot.uid, "早上的消息")
        forum.clock.advance(1)
        assert [m.id for m in bot.read_conversation(director.uid)] == [old.pmid]
        seen = forum.clock.now()
        forum.clock.set(seen.replace(hour=23, minute=59, second=58))
        late = director.send_pm(bot.uid, "午夜前的消息")  # listed only after midnight
        forum.clock.set(seen.replace(hour=0, minute=1, second=0) + timedelta(days=1))
        before = len(forum.sim.requests)
        assert [m.id for m in bot.read_conversation(director.uid, since_id=old.pmid, seen_at=seen)] == [late.pmid]
        assert len(forum.sim.requests) - before == 1  # the week's window, at once
        seen = forum.clock.now()
        before = len(forum.sim.requests)
        assert bot.read_conversation(director.uid, since_id=late.pmid, seen_at=seen) == []
        assert len(forum.sim.requests) - before == 1  # today's, though nothing is in it
        before = len(forum.sim.requests)
        assert bot.read_conversation(director.uid, since_id=late.pmid) == []
        assert len(forum.sim.requests) - before == 2  # without the hint: today (empty), then the week
