"""DiscuzClient on Discuz! 7.2 against the REAL captures (UTF-8 and GBK), replayed through
httpx.MockTransport. Each request the client makes is checked against the browser's own
in the capture: URL, method, form fields in order, in the forum's charset."""

from __future__ import annotations

import logging
from zoneinfo import ZoneInfo

import httpx
import pytest

from forumbot.discuz import DiscuzClient, ReplyResult, ThreadCursor
from forumbot.discuz.d72 import build_quote
from forumbot.discuz.forms import FormPage
from forumbot.discuz.errors import (
    EditNotAllowed,
    FloodControl,
    LoginBlocked,
    LoginFailed,
    NotLoggedIn,
    UnexpectedPage,
)
from forumbot.discuz.retry import RetryPolicy
from parsers.charset import decode
from parsers.pages import read_page
from tests.forumbot.captured72 import (
    D72,
    D72_GBK,
    Router72,
    body72,
    exchanges72,
    fields72,
    sent_fields,
)

PASSWORD = "Sekr1t-7.2-pw"
BOT = "投票机"
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


def make_client(router: Router72, *, logged_in: bool = False, **kwargs) -> tuple[DiscuzClient, FakeTime]:
    t = FakeTime()
    http = httpx.Client(transport=httpx.MockTransport(router))
    if logged_in:
        prefix = "yNt_" if router.fixture == D72 else "8zs_"
        http.cookies.set(prefix + "auth", "captured-session", domain="127.0.0.1")
    kwargs.setdefault("username", BOT)
    kwargs.setdefault("password_source", lambda: PASSWORD)
    kwargs.setdefault("retry_policy", RetryPolicy(max_attempts=3, base_wait=1.0, jitter=0.0))
    kwargs.setdefault("generation", "7.2")
    client = DiscuzClient(http, router.base, clock=t.clock, sleep=t.sleep, **kwargs)
    return client, t


def same_fields_as_browser(sent: list[tuple[str, str]], fixture: str, n: int, **ours: str) -> None:
    """The fields, in order, of the browser's exchange ``n``; values equal too except the
    masked password and the ones named in ``ours``."""
    browser = fields72(fixture, n)
    assert [k for k, _ in sent] == [k for k, _ in browser]
    for (key, value), (_, captured) in zip(sent, browser):
        if key in ours:
            assert value == ours[key], key
        elif captured != "***":
            assert value == captured, key


def read_form_values(fixture: str, n: int) -> dict[str, str]:
    """The fields of ``form#postform`` on the page exchange ``n`` served."""
    text, _ = decode(body72(fixture, exchanges72(fixture)[n]), None)
    return FormPage(text, "x").fields("postform")


# ---------------------------------------------------------------- login


@pytest.mark.parametrize(("fixture", "form", "answer"), [(D72, 87, 93), (D72_GBK, 74, 78)],
                         ids=["utf8", "gbk"])
def test_discuz_d72__login_posts_the_browsers_form_and_reads_uid(fixture, form, answer, tmp_path):
    router = Router72(fixture).on("GET", "logging.php?action=login", form).on("POST", "loginsubmit=yes", answer)
    jar = tmp_path / "cookies.json"
    client, _ = make_client(router, cookie_path=jar)
    assert client.login() == 3 and client.logged_in
    assert router.paths() == ["GET logging.php?action=login", "POST logging.php?action=login&loginsubmit=yes"]
    post = router.posts()[0]
    sent = sent_fields(post, router.charset)
    same_fields_as_browser(sent, fixture, answer, password=PASSWORD)
    assert post.headers["referer"] == router.base + "logging.php?action=login"
    if fixture == D72_GBK:  # 投票机 as GBK bytes, exactly as the browser sent it
        masked = exchanges72(fixture)[answer]["body_sent_masked"]
        assert post.content.decode("ascii").split("&password=")[0] == masked.split("&password=")[0]
        assert b"username=%CD%B6%C6%B1%BB%FA" in post.content
    assert "auth" in jar.read_text() and PASSWORD not in jar.read_text()


@pytest.mark.parametrize(("fixture", "form", "answer"), [(D72, 86, 88), (D72_GBK, 73, 75)],
                         ids=["utf8", "gbk"])
def test_discuz_d72__wrong_password_then_no_second_try(fixture, form, answer):
    router = Router72(fixture).on("GET", "action=login", form).on("POST", "loginsubmit=yes", answer)
    client, _ = make_client(router)
    with pytest.raises(LoginFailed) as info:
        client.login()
    assert info.value.attempts_left == 4 and "登录失败，您还可以尝试 4 次" in info.value.message
    assert client.login_blocked is info.value and not client.logged_in
    requests = len(router.sent)
    with pytest.raises(LoginBlocked):
        client.login()  # blocked: the forum is not asked again
    with pytest.raises(LoginBlocked):
        client.reply(1, "投票对象：饺子")  # nor by a publish attempt
    assert len(router.sent) == requests and len(router.posts()) == 1


def test_discuz_d72__password_never_in_logs_or_errors(caplog):
    caplog.set_level(logging.DEBUG)
    ok, _ = make_client(Router72(D72).on("GET", "action=login", 87).on("POST", "loginsubmit", 93))
    ok.login()
    bad, _ = make_client(Router72(D72).on("GET", "action=login", 86).on("POST", "loginsubmit", 88))
    with pytest.raises(LoginFailed) as info:
        bad.login()
    texts = [r.getMessage() for r in caplog.records] + [str(info.value), repr(info.value), repr(ok)]
    assert caplog.records and all(PASSWORD not in t for t in texts)


# ---------------------------------------------------------------- reading


def test_discuz_d72__reads_every_page_of_the_thread():
    router = (Router72(D72).on("GET", "tid=1&page=1", 111).on("GET", "tid=1&page=2", 112)
              .on("GET", "tid=1&page=3", 113))
    client, _ = make_client(router, logged_in=True)
    posts, cursor = client.read_new(ThreadCursor(tid=1))
    assert router.paths() == [f"GET viewthread.php?tid=1&page={n}" for n in (1, 2, 3)]
    assert [p.pid for p in posts] == list(range(1, 29)) and [p.floor for p in posts] == list(range(1, 29))
    assert cursor == ThreadCursor(tid=1, last_page=3, last_pid=28, total_pages=3, ppp=None)
    assert client.fid_for(1) == 3 and client.generation == "7.2"


def test_discuz_d72__gbk_page_is_read_without_a_declared_header_charset():
    router = Router72(D72_GBK).on("GET", "tid=1&page=1", 90)
    client, _ = make_client(router, logged_in=True)
    page = client.fetch_page(1, 1)
    assert [p.author for p in page.posts][:4] == ["导演", "饺子", "汤圆", "包子"]
    assert page.viewer_uid == 3 and client.charset == "gbk"


def test_discuz_d72__page_past_the_end_is_served_clamped():
    client, _ = make_client(Router72(D72).on("GET", "page=99", 114), logged_in=True)
    page = client.fetch_page(1, 99)
    assert (page.page, page.total_pages, page.posts[-1].pid) == (3, 3, 28)


def test_discuz_d72__no_mobile_api():
    router = Router72(D72)
    client, _ = make_client(router, use_api=True)
    assert client.check_api() is False and client.use_api is False
    assert router.sent == []


# ---------------------------------------------------------------- replying


def test_discuz_d72__reply_reads_the_form_and_posts_it_back():
    router = (Router72(D72).on("GET", "post.php?action=reply&fid=3&tid=1", 118)
              .on("POST", "replysubmit=yes", 83))
    client, _ = make_client(router, logged_in=True)
    client._fids[1] = 3  # read from the thread page in a real run
    text = "投票对象：饺子\n投票理由：最终确认，我的票投给饺子。"
    assert client.reply(1, text) == ReplyResult(pid=28, moderated=False, page=3)
    assert router.paths() == ["GET post.php?action=reply&fid=3&tid=1",
                              "POST post.php?action=reply&fid=3&tid=1&extra=&replysubmit=yes"]
    post = router.posts()[0]
    form = read_form_values(D72, 118)
    same_fields_as_browser(sent_fields(post, "utf-8"), D72, 83, formhash=form["formhash"],
                           posttime=form["posttime"], message=text)
    assert post.headers["referer"] == router.base + "post.php?action=reply&fid=3&tid=1"


def test_discuz_d72__gbk_reply_body_is_the_browsers_byte_for_byte():
    router = (Router72(D72_GBK).on("GET", "post.php?action=reply&fid=3&tid=1", 81)
              .on("POST", "replysubmit=yes", 83))
    client, _ = make_client(router, logged_in=True)
    client._fids[1] = 3
    assert client.reply(1, "计票：包子 2 票，汤圆 2 票").pid == 23
    assert router.posts()[0].content.decode("ascii") == exchanges72(D72_GBK)[83]["body_sent_masked"]


def test_discuz_d72__quote_comes_from_the_forums_quote_form():
    router = (Router72(D72).on("GET", "repquote=2", 119).on("POST", "replysubmit=yes", 83))
    client, _ = make_client(router, logged_in=True)
    client._fids[1] = 3
    text = "改票对象：饺子\n改票理由：看了包子的分析，觉得饺子更可疑，改票。"
    client.reply(1, text, quote_pid=2)
    assert router.paths()[0] == "GET post.php?action=reply&fid=3&tid=1&repquote=2"
    sent = dict(sent_fields(router.posts()[0], "utf-8"))
    browser = dict(fields72(D72, 34))  # 投票机 quoting pid 2, as the browser posted it
    for key in ("noticeauthor", "noticetrimstr", "noticeauthormsg", "message"):
        assert sent[key] == browser[key], key
    assert sent["message"].startswith("[quote]投票对象：汤圆\n") and sent["message"].endswith(text)


def test_discuz_d72__quote_block_puts_the_author_line_after_the_excerpt():
    # Built from the thread page, it matches the block the real quote form prefilled.
    page = read_page(body72(D72, exchanges72(D72)[111]), content_type="text/html; charset=UTF-8")
    post = next(p for p in page.posts if p.pid == 2)
    prefill = read_form_values(D72, 119)["message"]
    built = build_quote(post, base_url="http://127.0.0.1:8072/", tz=ZoneInfo("Asia/Shanghai"))
    assert prefill.startswith(built + "\n")
    assert built.index("[/color]") > built.index("我觉得他发言有问题啊")  # author after the excerpt


def test_discuz_d72__quote_for_returns_the_forms_block():
    router = Router72(D72).on("GET", "repquote=2", 119)
    client, _ = make_client(router, logged_in=True)
    block = client.quote_for(1, 2)
    assert block.startswith("[quote]投票对象：汤圆") and block.endswith("[/size][/quote]")
    assert "redirect.php?goto=findpost&pid=2&ptid=1" in block


@pytest.mark.parametrize(("fixture", "flood"), [(D72, 84), (D72, 85), (D72_GBK, 84), (D72_GBK, 85)],
                         ids=["utf8-html", "utf8-ajax", "gbk-html", "gbk-ajax"])
def test_discuz_d72__flood_control_waits_its_15_seconds_then_posts_once_more(fixture, flood):
    form = 118 if fixture == D72 else 81
    router = (Router72(fixture).on("GET", "action=reply", form)
              .on("POST", "replysubmit=yes", flood, times=1).on("POST", "replysubmit=yes", 83))
    client, t = make_client(router, logged_in=True)
    assert client.reply(1, "再顶一下，请大家尽快投票，谢谢！").pid in (28, 23)
    assert 15 in t.sleeps and len(router.posts()) == 2


def test_discuz_d72__flood_control_twice_is_raised_with_its_interval():
    router = Router72(D72).on("GET", "action=reply", 118).on("POST", "replysubmit=yes", 84)
    client, _ = make_client(router, logged_in=True)
    with pytest.raises(FloodControl) as info:
        client.reply(1, "再顶一下，请大家尽快投票，谢谢！")
    assert info.value.seconds == 15 and len(router.posts()) == 2


def test_discuz_d72__guest_reply_form_is_not_logged_in():
    router = Router72(D72).on("GET", "action=reply", 102)
    client, _ = make_client(router, logged_in=True, password_source=None)
    with pytest.raises(NotLoggedIn) as info:
        client.reply(1, "游客回复测试一下内容")
    assert "还未登录" in info.value.message and router.posts() == []


def test_discuz_d72__expired_session_logs_in_again_once():
    router = (Router72(D72).on("GET", "action=reply", 102, times=1)  # the guest's form: 还未登录
              .on("GET", "logging.php?action=login", 87).on("POST", "loginsubmit=yes", 93)
              .on("GET", "action=reply", 118).on("POST", "replysubmit=yes", 83))
    client, _ = make_client(router, logged_in=True)
    assert client.reply(1, "投票对象：饺子").pid == 28
    assert router.paths() == [
        "GET post.php?action=reply&tid=1",
        "GET logging.php?action=login",
        "POST logging.php?action=login&loginsubmit=yes",
        "GET post.php?action=reply&tid=1",
        "POST post.php?action=reply&fid=3&tid=1&extra=&replysubmit=yes",
    ]


# ---------------------------------------------------------------- editing and findpost


def test_discuz_d72__edit_posts_the_edit_form_back():
    router = (Router72(D72).on("GET", "action=edit", 120).on("POST", "editsubmit=yes", 78))
    client, _ = make_client(router, logged_in=True)
    assert client.edit(1, 2, "投票对象：汤圆\n投票理由：（已更正）", fid=3).moderated is False
    assert router.paths() == ["GET post.php?action=edit&fid=3&tid=1&pid=2&page=1",
                              "POST post.php?action=edit&extra=&editsubmit=yes&mod="]
    form = read_form_values(D72, 120)
    same_fields_as_browser(sent_fields(router.posts()[0], "utf-8"), D72, 78, formhash=form["formhash"],
                           posttime=form["posttime"], pid="2", message="投票对象：汤圆\n投票理由：（已更正）")


def test_discuz_d72__edit_of_someone_elses_post_is_refused():
    client, _ = make_client(Router72(D72).on("GET", "action=edit", 104), logged_in=True, password_source=None)
    with pytest.raises(EditNotAllowed) as info:
        client.edit(1, 2, "改别人的帖子", fid=3)
    assert info.value.message == "对不起，您无权编辑他人发表的帖子，请返回。"


def test_discuz_d72__findpost_follows_the_302_to_the_page():
    router = (Router72(D72).on("GET", "redirect.php?goto=findpost&pid=15&ptid=1", 121)
              .on("GET", "viewthread.php?tid=1&rpid=15", 112))
    client, _ = make_client(router, logged_in=True)
    post = client.find_post(1, 15)
    assert (post.pid, post.floor, post.author) == (15, 15, "包子")
    assert router.paths() == ["GET redirect.php?goto=findpost&pid=15&ptid=1",
                              "GET viewthread.php?tid=1&rpid=15&ordertype=0&page=2"]


def test_discuz_d72__marker_lookup_walks_back_from_the_last_page():
    router = (Router72(D72).on("GET", "tid=1&page=1", 111).on("GET", "tid=1&page=3", 113)
              .on("GET", "tid=1&page=2", 112))
    client, _ = make_client(router, logged_in=True)
    client.uid = 3
    found = client.find_post_by_marker(1, "汤圆的解释我不太接受")
    assert found is not None and found.pid == 11
    assert client.find_post_by_marker(1, "〔fb:none〕", max_pages=3) is None


def test_discuz_d72__a_foreign_page_is_unexpected():
    router = Router72(D72).on("GET", "tid=1", 101)  # the thread list, not a thread
    client, _ = make_client(router, logged_in=True)
    with pytest.raises(UnexpectedPage):
        client.fetch_page(1)


def test_discuz_d72__login_while_the_jar_is_still_good_posts_nothing():
    router = Router72(D72).on("GET", "logging.php?action=login", 94)  # 欢迎您回来，投票机
    client, _ = make_client(router, logged_in=True)
    assert client.login() == 3
    assert router.posts() == [] and client.login_blocked is None
