"""DiscuzClient over real HTTP against the simulator on 127.0.0.1.

Time is the simulator's clock: the client's throttle clock reads it and its sleep
advances it, so nothing here sleeps for real and waits are recorded.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

import httpx
import pytest

from forumbot.discuz import DiscuzClient, ThreadCursor
from forumbot.discuz.errors import (
    AccountNotActivated,
    CaptchaRequired,
    FloodControl,
    ForumUnavailable,
    LoginFailed,
    LoginLockedOut,
    MessageTooShort,
    NotLoggedIn,
    SecurityQuestionRequired,
    SecurityQuestionWrong,
    SiteClosed,
    ThreadClosed,
    ThreadNotFound,
    UserBanned,
)
from forumbot.discuz.retry import RetryPolicy
from forumbot.simulator import BEIJING, Fault, SimClock, Simulator

BOT, BOT_PW = "计票机器人", "bot-pw-Test1234"
PLAYERS = ["饺子", "包子", "汤圆"]


@dataclass
class Forum:
    sim: Simulator
    base: str
    fid: int
    tid: int
    sleeps: list[float] = field(default_factory=list)
    https: list[httpx.Client] = field(default_factory=list)

    def client(self, **kwargs) -> DiscuzClient:
        http = httpx.Client(timeout=5)
        self.https.append(http)

        def sleep(seconds: float) -> None:
            self.sleeps.append(seconds)
            self.sim.clock.sleep(seconds)

        kwargs.setdefault("username", BOT)
        kwargs.setdefault("password_source", lambda: BOT_PW)
        kwargs.setdefault("retry_policy", RetryPolicy(max_attempts=3, base_wait=1.0, jitter=0.0))
        return DiscuzClient(http, self.base, clock=lambda: self.sim.clock.now().timestamp(), sleep=sleep, **kwargs)

    def posts_by(self, name: str) -> list:
        return [p for p in self.sim.posts(self.tid) if p.author == name]

    def login_posts(self) -> int:
        return sum(1 for r in self.sim.requests if r.method == "POST" and r.query.get("action") == "login")


def build(charset: str = "utf-8", ppp: int = 10, replies: int = 12) -> Simulator:
    sim = Simulator(clock=SimClock(start=datetime(2026, 11, 30, 9, 0, tzinfo=BEIJING)), charset=charset,
                    posts_per_page=ppp)
    sim.add_user(BOT, password=BOT_PW)
    sim.add_user("导演", password="director-pw")
    for name in PLAYERS:
        sim.add_user(name, password=f"{name}-pw")
    return sim


@pytest.fixture
def forum() -> Iterator[Forum]:
    sim = build()
    fid = sim.add_forum("版杀区")
    tid = sim.add_thread(fid, "【饺子村】第一日 投票帖", author="导演", message="投票格式：投票对象：XXX")
    for i in range(12):
        sim.add_post(tid, author=PLAYERS[i % 3], message=f"第{i + 1}条发言，投票对象：包子")
    with sim.running() as base:
        f = Forum(sim, base, fid, tid)
        yield f
        for http in f.https:
            http.close()


# ---------------------------------------------------------------- login and session


def test_client_sim__login_returns_uid_and_persists_jar(forum, tmp_path):
    jar = tmp_path / "cookies.json"
    client = forum.client(cookie_path=jar)
    uid = client.login()
    assert uid == forum.sim.data.user(BOT).uid
    assert stat.S_IMODE(jar.stat().st_mode) == 0o600 and BOT_PW not in jar.read_text()
    again = forum.client(cookie_path=jar)  # a restart: same file, new process state
    before = len(forum.sim.requests)
    again.ensure_logged_in()
    assert len(forum.sim.requests) == before  # no login needed
    assert again.fetch_page(forum.tid).viewer_uid == uid
    assert forum.login_posts() == 1


def test_client_sim__wrong_password_counts_down(forum):
    client = forum.client(password_source=lambda: "wrong")
    with pytest.raises(LoginFailed) as info:
        client.login()
    assert info.value.attempts_left == 4


def test_client_sim__lockout_is_not_retried(forum):
    client = forum.client(password_source=lambda: "wrong")
    for _ in range(4):
        with pytest.raises(LoginFailed):
            client.login()
        client.reset_login()  # the operator insists: each failure blocks the next try
    with pytest.raises(LoginLockedOut):
        client.login()
    right = forum.client()  # even the right password is refused now, by the forum
    with pytest.raises(LoginLockedOut):
        right.login()
    posts = forum.login_posts()
    with pytest.raises(LoginLockedOut):
        right.login()  # our own memory of the lock-out: no request at all
    assert forum.login_posts() == posts


def test_client_sim__captcha_is_reported_without_attempt(forum):
    forum.sim.settings.captcha_login = True
    with pytest.raises(CaptchaRequired):
        forum.client().login()
    assert forum.login_posts() == 0


@pytest.mark.parametrize(
    ("question", "error"),
    [(None, SecurityQuestionRequired), ((3, "错的"), SecurityQuestionWrong), ((3, "北京"), None)],
    ids=["missing", "wrong", "right"],
)
def test_client_sim__security_question(forum, question, error):
    forum.sim.add_user("带问题", password="q-pw", question=(3, "北京"))
    client = forum.client(username="带问题", password_source=lambda: "q-pw", question=question)
    if error is None:
        assert client.login() == forum.sim.data.user("带问题").uid
    else:
        with pytest.raises(error):
            client.login()


def test_client_sim__not_activated(forum):
    forum.sim.add_user("新人", password="n-pw", activated=False)
    with pytest.raises(AccountNotActivated):
        forum.client(username="新人", password_source=lambda: "n-pw").login()


def test_client_sim__expired_session_logs_in_again_once(forum):
    client = forum.client()
    client.login()
    forum.sim.expire_sessions()
    page = client.fetch_page(forum.tid, 1)
    assert page.viewer_uid == client.uid
    assert forum.login_posts() == 2


def test_client_sim__expired_session_on_reply_logs_in_again(forum):
    client = forum.client()
    client.login()
    client.fetch_page(forum.tid)
    forum.sim.expire_sessions()
    result = client.reply(forum.tid, "计票：包子 12 票，测试会话过期")
    assert result.pid is not None and len(forum.posts_by(BOT)) == 1
    assert forum.login_posts() == 2


# ---------------------------------------------------------------- reading


def test_client_sim__read_new_then_idle_poll_costs_one_request(forum):
    client = forum.client()
    posts, cursor = client.read_new(ThreadCursor(tid=forum.tid))
    assert len(posts) == 13 and cursor.total_pages == 2 and cursor.last_page == 2
    before = len(forum.sim.requests)
    again, same = client.read_new(cursor)
    assert len(forum.sim.requests) - before == 1
    assert same == cursor and not [p for p in again if cursor.is_new(p)]


def test_client_sim__new_posts_and_new_pages_are_followed(forum):
    client = forum.client()
    _, cursor = client.read_new(ThreadCursor(tid=forum.tid))
    for i in range(9):  # page 2 fills up and page 3 begins
        forum.sim.add_post(forum.tid, author="包子", message=f"新的发言 {i}，投票对象：饺子")
    posts, moved = client.read_new(cursor)
    new = [p for p in posts if cursor.is_new(p)]
    assert len(new) == 9 and moved.last_page == 3 and moved.last_pid == max(p.pid for p in new)


def test_client_sim__page_clamp_is_detected(forum):
    client = forum.client()
    _, cursor = client.read_new(ThreadCursor(tid=forum.tid))
    for post in forum.sim.posts(forum.tid)[-4:]:  # page 2 disappears
        forum.sim.delete_post(post.pid)
    forum.sim.add_post(forum.tid, author="汤圆", message="删帖之后的新发言内容")
    before = len(forum.sim.requests)
    posts, moved = client.read_new(cursor)
    assert moved.last_page == 1 and moved.total_pages == 1
    assert [p.author for p in posts if cursor.is_new(p)] == ["汤圆"]
    assert len(forum.sim.requests) - before == 1


def test_client_sim__api_when_check_says_on(forum):
    client = forum.client()
    assert client.check_api() is True
    page = client.fetch_page(forum.tid, 1)
    assert page.source == "api" and page.posts[0].time_precision == "second"
    forum.sim.settings.mobile_api = False
    assert forum.client().check_api() is False


def test_client_sim__missing_thread(forum):
    with pytest.raises(ThreadNotFound):
        forum.client().fetch_page(9999)


def test_client_sim__site_closed(forum):
    forum.sim.settings.site_closed = "论坛维护中，预计 10 分钟后恢复。"
    with pytest.raises(SiteClosed) as info:
        forum.client().fetch_page(forum.tid)
    assert info.value.reason == "论坛维护中，预计 10 分钟后恢复。"


# ---------------------------------------------------------------- replying and editing


def test_client_sim__reply_and_quote(forum):
    client = forum.client()
    quoted = forum.sim.posts(forum.tid)[1]
    result = client.reply(forum.tid, "改票对象：汤圆\n改票理由：测试引用", quote_pid=quoted.pid)
    stored = forum.sim.post(result.pid)
    assert result.page == 2 and stored.author == BOT
    assert f"goto=findpost&pid={quoted.pid}&ptid={forum.tid}" in stored.message
    page = client.fetch_page(forum.tid, result.page)
    mine = next(p for p in page.posts if p.pid == result.pid)
    assert mine.quoted_pids == (quoted.pid,)


def test_client_sim__flood_control_waits_then_posts(forum):
    client = forum.client()
    client.reply(forum.tid, "第一条计票内容，测试灌水限制")
    forum.sleeps.clear()
    second = client.reply(forum.tid, "第二条计票内容，测试灌水限制")
    assert second.pid is not None and 15 in forum.sleeps
    assert len(forum.posts_by(BOT)) == 2


def test_client_sim__flood_control_not_waited_when_the_caller_renders_again(forum):
    """``wait_for_flood=False`` (the outbox's counts, issue 18 #8a): the forum's refusal is
    raised with its interval at once; nothing was stored, nothing sent a second time."""
    client = forum.client()
    client.reply(forum.tid, "第一条计票内容，测试灌水限制")
    forum.sleeps.clear()
    with pytest.raises(FloodControl) as refused:
        client.reply(forum.tid, "第二条计票内容，测试灌水限制", wait_for_flood=False)
    assert refused.value.seconds == 15 and not any(s >= 15 for s in forum.sleeps)
    assert len(forum.posts_by(BOT)) == 1
    assert forum.sim.data.flood_refusals == 1


@pytest.mark.parametrize(
    ("setup", "message", "error"),
    [
        (lambda f: None, "短", MessageTooShort),
        (lambda f: f.sim.close_thread(f.tid), "这个主题已经关闭了吗", ThreadClosed),
        (lambda f: f.sim.ban_user(BOT), "被禁言的用户发言测试", UserBanned),
        (lambda f: setattr(f.sim.settings, "captcha_post", True), "需要验证码的发言", CaptchaRequired),
    ],
    ids=["too-short", "closed", "banned", "captcha"],
)
def test_client_sim__reply_refusals(forum, setup, message, error):
    client = forum.client()
    client.login()
    setup(forum)
    with pytest.raises(error) as info:
        client.reply(forum.tid, message)
    assert info.value.message
    assert forum.posts_by(BOT) == []


def test_client_sim__reply_site_closed(forum):
    client = forum.client()
    client.login()
    client.fetch_page(forum.tid)
    forum.sim.faults.add(Fault.SITE_CLOSED, match="action=reply")
    with pytest.raises(SiteClosed):
        client.reply(forum.tid, "维护期间的回复测试")


def test_client_sim__guest_reply_is_not_logged_in(forum):
    client = forum.client(username=None, password_source=None)
    client.fetch_page(forum.tid)
    client._logged_in = True  # believes so; cannot log in again without credentials
    with pytest.raises(NotLoggedIn):
        client.reply(forum.tid, "游客回复测试一下内容")


def test_client_sim__moderated_reply_is_held_with_its_pid(forum):
    forum.sim.settings.moderate_replies = True
    result = forum.client().reply(forum.tid, "需要审核的回复内容")
    # X3.5 names the held post's pid with reply_mod (issue 10); it is not visible.
    assert result.moderated and result.pid == forum.sim.held_posts(forum.tid)[0].pid
    assert len(forum.posts_by(BOT)) == 1  # stored, invisible


def test_client_sim__bad_formhash_is_read_again(forum):
    client = forum.client()
    client.fetch_page(forum.tid)
    client.login()
    client._formhash = "0badf00d"
    result = client.reply(forum.tid, "表单验证串过期后的回复")
    assert result.pid is not None and len(forum.posts_by(BOT)) == 1


def test_client_sim__server_error_after_reply_post_is_not_resent(forum):
    client = forum.client()
    client.login()
    client.fetch_page(forum.tid)
    forum.sim.faults.add(Fault.SERVER_ERROR, match="action=reply", times=1)
    with pytest.raises(ForumUnavailable) as info:
        client.reply(forum.tid, "服务器出错时的回复内容")
    assert info.value.sent and info.value.response.status_code == 500
    reply_posts = [r for r in forum.sim.requests if r.method == "POST" and r.query.get("action") == "reply"]
    assert len(reply_posts) == 1


def test_client_sim__dropped_after_store_raises_and_post_exists_once(forum):
    client = forum.client()
    client.login()
    client.fetch_page(forum.tid)
    forum.sim.faults.add(Fault.DROP_AFTER_STORE, match="action=reply")
    marker = "〔fb:7f3a〕"
    with pytest.raises(ForumUnavailable) as info:
        client.reply(forum.tid, f"计票：包子 12 票 {marker}")
    assert info.value.sent
    assert len(forum.posts_by(BOT)) == 1  # stored once, never re-sent
    found = client.find_post_by_marker(forum.tid, marker)
    assert found is not None and found.pid == forum.posts_by(BOT)[0].pid
    assert client.find_post_by_marker(forum.tid, "〔fb:none〕") is None


@pytest.mark.parametrize("fault", [Fault.SERVER_ERROR, Fault.TRUNCATE, Fault.DROP_BEFORE_STORE])
def test_client_sim__get_faults_are_retried(forum, fault):
    client = forum.client(min_interval=0)
    forum.sim.faults.add(fault, match="mod=viewthread", times=2)
    page = client.fetch_page(forum.tid, 1)
    assert page.page == 1 and [p.pid for p in page.posts][:1] == [forum.sim.first_pid(forum.tid)]
    assert forum.sleeps == [1.0, 2.0]  # the policy's backoff, through the injected sleep
    assert not forum.sim.faults.pending


def test_client_sim__get_gives_up_after_policy(forum):
    client = forum.client()
    forum.sim.faults.add(Fault.SERVER_ERROR, match="mod=viewthread", times=5)
    with pytest.raises(ForumUnavailable):
        client.fetch_page(forum.tid, 1)


def test_client_sim__edit_own_post(forum):
    client = forum.client()
    pid = client.reply(forum.tid, "计票：包子 1 票（初版）").pid
    forum.sim.clock.advance(120)
    client.edit(forum.tid, pid, "计票：包子 2 票（更新）")
    assert "计票：包子 2 票（更新）" in forum.sim.post(pid).message


def test_client_sim__requests_are_spaced_by_min_interval(forum):
    client = forum.client(min_interval=2.0)
    client.login()
    client.fetch_page(forum.tid, 1)
    client.fetch_page(forum.tid, 2)
    times = [r.at for r in forum.sim.requests]
    gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:])]
    assert len(gaps) >= 3 and min(gaps) >= 2.0


def test_client_sim__gbk_round_trip_of_chinese_reply():
    sim = build(charset="gbk")
    fid = sim.add_forum("版杀区")
    tid = sim.add_thread(fid, "【饺子村GBK】第一日 投票帖", author="导演", message="投票格式：投票对象：XXX")
    text = "投票对象：饺子\n投票理由：饺子昨晚发言很可疑，「引号」与·间隔号"
    with sim.running() as base, httpx.Client(timeout=5) as http:
        client = DiscuzClient(http, base, username=BOT, password_source=lambda: BOT_PW, min_interval=0,
                              sleep=sim.clock.sleep)
        pid = client.reply(tid, text).pid
        assert client.charset == "gbk"
        assert sim.post(pid).message.replace("\r\n", "\n") == text
        page = client.fetch_page(tid, 1)
        assert next(p for p in page.posts if p.pid == pid).text.replace("\r\n", "\n") == text


def test_client_sim__cc_protection_page_is_unavailable_then_retried(forum):
    forum.sim.settings.cc_protection = True
    client = forum.client(min_interval=0)  # too fast on purpose: the forum's CC guard answers
    client.fetch_page(forum.tid, 1)
    page = client.fetch_page(forum.tid, 2)  # same instant: CC page, then backoff, then the page
    assert page.page == 2 and forum.sleeps and forum.sleeps[0] == 1.0


def test_client_sim__min_interval_keeps_cc_protection_quiet(forum):
    forum.sim.settings.cc_protection = True
    client = forum.client()  # default 2 s spacing
    for page in (1, 2, 1):
        client.fetch_page(forum.tid, page)
    assert all(s == 2.0 for s in forum.sleeps)  # only throttle waits, no retry backoff
