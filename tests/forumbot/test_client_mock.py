"""DiscuzClient against the REAL captured responses, served by httpx.MockTransport."""

from __future__ import annotations

import hashlib
import logging
import stat
from urllib.parse import parse_qs

import httpx
import pytest

from forumbot.discuz import DiscuzClient, ReplyResult
from forumbot.discuz.errors import (
    BadFormHash,
    CaptchaRequired,
    FloodControl,
    ForumUnavailable,
    LoginFailed,
    LoginLockedOut,
    MessageTooShort,
    NotLoggedIn,
    SiteClosed,
    ThreadClosed,
    ThreadNotFound,
    UserBanned,
)
from forumbot.discuz.retry import RetryPolicy
from tests.forumbot.captured import Router, captured_response

PASSWORD = "Sekr1t-Pa55-x"
pytestmark = pytest.mark.fixtures


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def make_client(router: Router, *, logged_in: bool = False, **kwargs) -> tuple[DiscuzClient, FakeTime]:
    t = FakeTime()
    gbk = router.fixture.endswith("gbk")
    base = "http://127.0.0.1:8081/" if gbk else "http://127.0.0.1:8080/"
    http = httpx.Client(transport=httpx.MockTransport(router))
    if logged_in:
        http.cookies.set("yu57_2132_auth", "captured-session", domain="127.0.0.1")
    kwargs.setdefault("username", "计票机器人")
    kwargs.setdefault("password_source", lambda: PASSWORD)
    kwargs.setdefault("retry_policy", RetryPolicy(max_attempts=3, base_wait=1.0, jitter=0.0))
    kwargs.setdefault("generation", "x3")  # detection has its own tests (test_discuz_detect)
    client = DiscuzClient(http, base, clock=t.clock, sleep=t.sleep, **kwargs)
    return client, t


def form_of(request: httpx.Request, charset: str = "utf-8") -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode("ascii"), encoding=charset, keep_blank_values=True).items()}


def login_router(post_answer: str, fixture: str = "discuz-x3") -> Router:
    r = Router(fixture)
    if fixture == "discuz-x3":
        r.on("GET", "action=login", "login_page")
        r.on("POST", "loginsubmit=yes", post_answer)
        r.on("GET", "/forum.php", "viewthread_tid2_page1_loggedin")  # a page as uid 3
    else:
        r.on("GET", "action=login", "gbk_login_page")
        r.on("POST", "loginsubmit=yes", post_answer)
        r.on("GET", "/forum.php", "gbk_viewthread_tid1_page1_loggedin")
    return r


# ---------------------------------------------------------------- login


def test_client_mock__login_success_ajax_returns_uid_and_saves_jar_0600(tmp_path):
    router = login_router("login_post_success_inajax")
    jar = tmp_path / "state" / "cookies.json"
    client, _ = make_client(router, cookie_path=jar)
    assert client.login() == 3
    assert client.logged_in
    sent = form_of(router.posts()[0])
    assert sent["username"] == "计票机器人" and sent["password"] == PASSWORD  # plain text, X3.5
    assert sent["formhash"] == "dcbe1ece" and sent["cookietime"] == "2592000"
    assert "loginhash=LS55Z" in str(router.posts()[0].url) and "inajax=1" in str(router.posts()[0].url)
    assert stat.S_IMODE(jar.stat().st_mode) == 0o600
    assert "yu57_2132_auth" in jar.read_text() and PASSWORD not in jar.read_text()


def test_client_mock__saved_jar_is_reused_after_restart(tmp_path):
    jar = tmp_path / "cookies.json"
    first, _ = make_client(login_router("login_post_success_inajax"), cookie_path=jar)
    first.login()
    router = Router().on("GET", "mod=viewthread", "viewthread_tid2_page1_loggedin")
    second, _ = make_client(router, cookie_path=jar)
    assert second.logged_in
    second.ensure_logged_in()
    assert second.request_count == 0


def test_client_mock__login_md5_flag_sends_md5(tmp_path):
    router = login_router("login_post_success_inajax")
    client, _ = make_client(router, password_md5=True)
    client.login()
    sent = form_of(router.posts()[0])["password"]
    assert sent == hashlib.md5(PASSWORD.encode()).hexdigest() and sent != PASSWORD


def test_client_mock__login_gbk_sends_gbk_bytes():
    router = login_router("gbk_login_post_success_inajax", fixture="discuz-x3-gbk")
    client, _ = make_client(router, username="饺子")
    assert client.login() == 3
    body = router.posts()[0].content
    assert b"username=%BD%C8%D7%D3" in body  # 饺子 in GBK, as the browser sent it
    assert client.charset == "gbk"


@pytest.mark.parametrize(
    ("fixture", "answer", "attempts_left"),
    [
        ("discuz-x3", "login_post_wrong_password_inajax", 3),
        ("discuz-x3", "login_post_wrong_password", 4),  # read from the page's text
        ("discuz-x3-gbk", "gbk_login_post_wrong_password_inajax", 4),
    ],
    ids=["utf8-ajax", "utf8-html", "gbk-ajax"],
)
def test_client_mock__login_wrong_password(fixture, answer, attempts_left):
    client, _ = make_client(login_router(answer, fixture))
    with pytest.raises(LoginFailed) as info:
        client.login()
    assert info.value.attempts_left == attempts_left
    assert "登录失败，您还可以尝试" in info.value.message
    assert not client.logged_in


@pytest.mark.parametrize(
    "answer",
    ["login_post_too_many_failures_inajax", "login_post_too_many_failures",
     "login_post_correct_password_while_locked_inajax"],
)
def test_client_mock__lockout_is_not_retried(answer):
    router = login_router(answer)
    client, _ = make_client(router)
    with pytest.raises(LoginLockedOut):
        client.login()
    count = client.request_count
    with pytest.raises(LoginLockedOut):
        client.login()  # within 15 minutes: refused without asking the forum again
    assert client.request_count == count
    assert len(router.posts()) == 1


def test_client_mock__captcha_on_login_page_is_reported_not_attempted():
    router = Router().on("GET", "action=login", "login_page_default_with_captcha")
    client, _ = make_client(router)
    with pytest.raises(CaptchaRequired):
        client.login()
    assert router.posts() == []


def test_client_mock__captcha_answer_to_login_post():
    client, _ = make_client(login_router("login_post_captcha_missing_ajax"))
    with pytest.raises(CaptchaRequired) as info:
        client.login()
    assert info.value.message == "抱歉，验证码填写错误"


def test_client_mock__password_never_logged_or_in_errors(caplog):
    caplog.set_level(logging.DEBUG)
    ok, _ = make_client(login_router("login_post_success_inajax"))
    ok.login()
    bad, _ = make_client(login_router("login_post_wrong_password_inajax"))
    with pytest.raises(LoginFailed) as info:
        bad.login()
    crash = Router().on("GET", "action=login", "login_page").on("POST", "loginsubmit", "mobileapi_v4_login_success_crash")
    down, _ = make_client(crash)
    with pytest.raises(ForumUnavailable) as crashed:
        down.login()
    texts = [r.getMessage() for r in caplog.records] + [str(info.value), repr(info.value),
                                                        str(crashed.value), repr(ok), repr(bad)]
    assert caplog.records, "expected some log lines to check"
    assert all(PASSWORD not in t for t in texts)


# ---------------------------------------------------------------- reading


def test_client_mock__fetch_page_reads_thread_and_formhash():
    router = Router().on("GET", "tid=2", "viewthread_tid2_page1_loggedin")
    client, _ = make_client(router, logged_in=True)
    page = client.fetch_page(2, 1)
    assert [p.pid for p in page.posts][:3] == [2, 3, 4]
    assert page.viewer_uid == 3 and page.total_pages == 3
    assert client._formhash == "6099fb8b"


def test_client_mock__clamped_page_is_reported_as_served():
    router = Router().on("GET", "page=9", "viewthread_tid2_page9_guest")
    client, _ = make_client(router)
    page = client.fetch_page(2, 9)
    assert page.page == 3 and page.total_pages == 3


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("viewthread_not_exist", ThreadNotFound),
        ("viewthread_not_exist_inajax", ThreadNotFound),
        ("mobileapi_viewthread_not_exist", ThreadNotFound),
        ("site_closed_viewthread_guest", SiteClosed),
        ("site_closed_viewthread_loggedin", SiteClosed),
        ("site_closed_mobileapi_viewthread", SiteClosed),
    ],
)
def test_client_mock__thread_page_refusals(answer, error):
    client, _ = make_client(Router().on("GET", "tid=", answer))
    with pytest.raises(error) as info:
        client.fetch_page(9999, 1)
    assert info.value.message


def test_client_mock__site_closed_carries_reason():
    client, _ = make_client(Router().on("GET", "tid=", "site_closed_viewthread_guest"))
    with pytest.raises(SiteClosed) as info:
        client.fetch_page(1)
    assert info.value.reason == "论坛维护中，预计 10 分钟后恢复。"


def test_client_mock__api_page_when_api_on():
    router = Router().on("GET", "module=viewthread", "mobileapi_viewthread_tid2_page1_guest")
    client, _ = make_client(router, use_api=True)
    page = client.fetch_page(2, 1)
    assert page.source == "api" and page.posts_per_page == 10
    assert "api/mobile/index.php?version=4&module=viewthread&tid=2&page=1" in str(router.sent[0].url)


def test_client_mock__read_new_follows_pages_then_idle_poll_is_one_request():
    router = (
        Router()
        .on("GET", "page=1", "viewthread_tid2_page1_guest")
        .on("GET", "page=2", "viewthread_tid2_page2_guest")
        .on("GET", "page=3", "viewthread_tid2_page3_guest")
    )
    client, _ = make_client(router)
    from forumbot.discuz import ThreadCursor

    posts, cursor = client.read_new(ThreadCursor(tid=2))
    assert len(posts) == 28 and cursor.last_page == 3 and cursor.last_pid == 30
    before = client.request_count
    again, cursor2 = client.read_new(cursor)
    assert client.request_count - before == 1
    assert [p for p in again if cursor.is_new(p)] == [] and cursor2 == cursor


# ---------------------------------------------------------------- replying


def reply_router(*answers: str, fixture: str = "discuz-x3") -> Router:
    r = Router(fixture)
    page = "viewthread_tid2_page1_loggedin" if fixture == "discuz-x3" else "gbk_viewthread_tid1_page1_loggedin"
    r.on("GET", "mod=viewthread", page)
    for a in answers:
        r.on("POST", "action=reply", a, times=1)
    return r


@pytest.mark.parametrize(
    ("answer", "pid", "page"),
    [
        ("reply_fastpost_success_inajax", 16, 2),
        ("reply_post_success_inajax", 4, 1),
        ("reply_post_success", 3, 1),  # non-ajax: HTTP 301, Location holds the pid
    ],
)
def test_client_mock__reply_success(answer, pid, page):
    router = reply_router(answer)
    client, _ = make_client(router, logged_in=True)
    assert client.reply(2, "投票对象：包子\n投票理由：测试") == ReplyResult(pid=pid, moderated=False, page=page)
    post = router.posts()[0]
    assert post.headers["referer"].startswith("http://127.0.0.1:8080/forum.php?mod=viewthread&tid=2")
    assert form_of(post)["formhash"] == "6099fb8b"
    assert "fid=3" in str(post.url)


def test_client_mock__reply_gbk_form_is_gbk_bytes():
    router = reply_router("gbk_reply_post_success_inajax", fixture="discuz-x3-gbk")
    client, _ = make_client(router, logged_in=True, username="饺子")
    assert client.reply(1, "投票对象：饺子").pid == 3
    body = router.posts()[0].content
    assert "投票对象：饺子".encode("gbk") == form_of(router.posts()[0], "gbk")["message"].encode("gbk")
    assert b"%CD%B6%C6%B1%B6%D4%CF%F3" in body  # 投票对象 in GBK


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("reply_message_too_short_inajax", MessageTooShort),
        ("reply_message_too_short", MessageTooShort),
        ("reply_thread_closed_inajax", ThreadClosed),
        ("reply_thread_closed", ThreadClosed),
        ("reply_logged_out_inajax", NotLoggedIn),
        ("reply_logged_out", NotLoggedIn),
        ("reply_banned_user_inajax", UserBanned),
        ("reply_banned_user", UserBanned),
        ("site_closed_reply_inajax", SiteClosed),
    ],
)
def test_client_mock__reply_refusals(answer, error):
    router = reply_router(answer)
    client, _ = make_client(router, logged_in=True, password_source=None)
    with pytest.raises(error) as info:
        client.reply(2, "投票对象：包子")
    assert info.value.message and info.value.response is not None
    assert len(router.posts()) == 1


def test_client_mock__flood_control_waits_named_interval_then_retries_once():
    router = reply_router("reply_flood_control_inajax", "reply_fastpost_success_inajax")
    client, t = make_client(router, logged_in=True)
    assert client.reply(2, "投票对象：包子").pid == 16
    assert 15 in t.sleeps
    assert len(router.posts()) == 2


def test_client_mock__flood_control_twice_raises():
    router = reply_router("reply_flood_control_inajax", "gbk_reply_flood_control_inajax")
    router.rules[-1][2] = "reply_flood_control"
    client, _ = make_client(router, logged_in=True)
    with pytest.raises(FloodControl):
        client.reply(2, "投票对象：包子")
    assert len(router.posts()) == 2


def test_client_mock__bad_formhash_rereads_and_retries_once():
    router = reply_router("reply_bad_formhash_inajax", "reply_bad_formhash")
    client, _ = make_client(router, logged_in=True)
    with pytest.raises(BadFormHash):
        client.reply(2, "投票对象：包子")
    gets = [r for r in router.sent if r.method == "GET"]
    assert len(router.posts()) == 2 and len(gets) == 2  # the formhash was read again


def test_client_mock__reply_read_timeout_is_not_resent():
    def timeout(request):
        raise httpx.ReadTimeout("server too slow", request=request)

    router = Router().on("GET", "mod=viewthread", "viewthread_tid2_page1_loggedin").on("POST", "action=reply", timeout)
    client, _ = make_client(router, logged_in=True)
    with pytest.raises(ForumUnavailable) as info:
        client.reply(2, "投票对象：包子")
    assert info.value.sent and isinstance(info.value.original, httpx.ReadTimeout)
    assert len(router.posts()) == 1


def test_client_mock__get_retries_with_backoff_and_logs(caplog):
    caplog.set_level(logging.WARNING, logger="forumbot.client")
    router = (
        Router()
        .on("GET", "page=3", "mobileapi_v4_login_success_crash", times=2)
        .on("GET", "page=3", "viewthread_tid2_page3_guest")
    )
    client, t = make_client(router, min_interval=0)
    assert client.fetch_page(2, 3).page == 3
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("重试")]
    assert lines == [
        "重试 2/3：GET forum.php?mod=viewthread&tid=2&extra=&page=3（上次：HTTP 503），先等 1.0 秒",
        "重试 3/3：GET forum.php?mod=viewthread&tid=2&extra=&page=3（上次：HTTP 503），先等 2.0 秒",
    ]
    assert t.sleeps == [1.0, 2.0]


# ---------------------------------------------------------------- editing


def test_client_mock__edit_posts_form_fields_with_new_message():
    router = (
        Router()
        .on("GET", "action=edit", "edit_form_page")
        .on("POST", "editsubmit=yes", "edit_post_submit_inajax")
    )
    client, _ = make_client(router, logged_in=True)
    assert client.edit(2, 8, "投票对象：小笼包\n（已更正）", fid=3) == ReplyResult(pid=8, moderated=False)
    sent = form_of(router.posts()[0])
    assert sent["formhash"] == "ed10a8ff" and sent["pid"] == "8" and sent["tid"] == "2"
    assert sent["message"] == "投票对象：小笼包\n（已更正）" and sent["fid"] == "3"
    assert router.posts()[0].headers["referer"].endswith("action=edit&fid=3&tid=2&pid=8&page=1")


def test_client_mock__edit_301_success():
    router = Router().on("GET", "action=edit", "edit_form_page").on("POST", "editsubmit=yes", "edit_post_submit")
    client, _ = make_client(router, logged_in=True)
    client.edit(2, 8, "投票对象：小笼包")


def test_client_mock__captured_response_helper_rebuilds_cookies():
    r = captured_response("discuz-x3", "login_post_success_inajax")
    assert "yu57_2132_auth" in {c.split("=")[0] for c in r.headers.get_list("set-cookie")}
