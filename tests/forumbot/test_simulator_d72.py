"""The simulator's Discuz! 7.2 mode over real HTTP: login, reading, replying, quoting,
editing, and the answers 7.2 gives (its source: vulhub/discuz7; its captures:
../shared/fixtures/discuz-7.2*; the replay of every capture is test_drift_d72.py)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from html import unescape
from urllib.parse import urlencode

import httpx
import pytest

from forumbot.simulator import BEIJING, SimClock, Simulator
from forumbot.simulator.dates import post_time_html_d72
from parsers.pages import read_page
from tests.forumbot.simulator_support import (  # noqa: F401 (fixtures)
    Forum,
    forum72,
    forum72_gbk,
    formhash_of,
    login,
    make_forum,
    post_reply,
    thread_url,
)

TEXT = "投票对象：包子\n投票理由：他昨晚发言很可疑"


@pytest.fixture
def client(forum72: Forum):
    with httpx.Client(base_url=forum72.base, follow_redirects=False, timeout=5) as c:
        yield c


def cdata(text: str) -> str:
    match = re.search(r"<!\[CDATA\[(.*)\]\]></root>", text, re.S)
    assert match, f"not an ajax answer: {text[:200]!r}"
    return match.group(1)


def alert(text: str) -> tuple[str, str]:
    """(the showmessage box's class, its first paragraph's text)."""
    m = re.search(r'<div class="(alert_\w+)">\s*<p>(.*?)</p>', text, re.S)
    assert m, "no showmessage box"
    return m.group(1), re.sub(r"<script.*?</script>", "", m.group(2), flags=re.S)


# ---- login ---------------------------------------------------------------------------------
def test_d72_login__success_is_200_welcome_and_the_auth_cookie(forum72: Forum, client) -> None:
    r = login(client, "饺子", discuz="7.2", ajax=False)
    assert r.status_code == 200
    assert alert(r.text) == ("alert_right", "欢迎您回来，饺子。现在将转入登录前页面。  ")
    prefix = forum72.sim.cookiepre
    assert re.fullmatch(r"[A-Za-z0-9]{3}_", prefix)
    names = [c.split("=", 1)[0] for c in r.headers.get_list("set-cookie")]
    assert {prefix + "auth", prefix + "cookietime"} <= set(names)
    assert 'discuz_uid = 3' in client.get(thread_url(forum72)).text  # 饺子 is uid 3


def test_d72_login__ajax_success_and_failure(forum72: Forum, client) -> None:
    bad = login(client, "饺子", "wrong", discuz="7.2")
    assert cdata(bad.text) == "登录失败，您还可以尝试 4 次  "
    good = login(client, "饺子", discuz="7.2")
    assert "欢迎您回来 新手上路 饺子" in cdata(good.text)


def test_d72_login__four_tries_then_locked_out_per_ip_for_15_minutes(forum72: Forum, client) -> None:
    answers = [cdata(login(client, "饺子", "wrong", discuz="7.2").text) for _ in range(5)]
    assert answers == ["登录失败，您还可以尝试 4 次  ", "登录失败，您还可以尝试 3 次  ",
                       "登录失败，您还可以尝试 2 次  ", "登录失败，您还可以尝试 1 次  ",
                       "密码错误次数过多，请 15 分钟后重新登录"]
    # per IP: another account from the same address is locked out too, even with its password
    assert cdata(login(client, "包子", discuz="7.2").text) == "密码错误次数过多，请 15 分钟后重新登录"
    assert "密码错误次数过多" in client.get("logging.php?action=login").text
    forum72.clock.advance(minutes=15, seconds=1)
    assert "欢迎您回来" in cdata(login(client, "包子", discuz="7.2").text)


def test_d72_login__while_logged_in_says_welcome(forum72: Forum, client) -> None:
    login(client, "饺子", discuz="7.2")
    r = client.get("logging.php?action=login")
    assert alert(r.text)[1].startswith("欢迎您回来，饺子。")


def test_d72_logout_needs_the_formhash(forum72: Forum, client) -> None:
    login(client, "饺子", discuz="7.2")
    client.get("logging.php?action=logout&formhash=00000000")
    assert "discuz_uid = 3" in client.get(thread_url(forum72)).text
    fh = formhash_of(client, forum72.tid, "7.2")
    r = client.get(f"logging.php?action=logout&formhash={fh}")
    assert alert(r.text)[1].startswith("您已退出论坛")
    assert "discuz_uid = 0" in client.get(thread_url(forum72)).text


# ---- reading -------------------------------------------------------------------------------
def test_d72_viewthread__parses_with_floors_uids_and_minute_times(forum72: Forum, client) -> None:
    r = client.get(thread_url(forum72))
    assert r.headers["content-type"] == "text/html; charset=UTF-8"
    page = read_page(r.content, content_type=r.headers["content-type"], now=forum72.clock.now())
    assert [p.floor for p in page.posts] == [1, 2, 3, 4, 5]
    assert [p.author for p in page.posts] == ["导演", "饺子", "包子", "汤圆", "饺子"]
    assert all(p.author_uid and str(p.time_precision) == "minute" for p in page.posts)
    assert page.cookiepre is None  # 7.2 has no cookiepre in its inline JS
    assert '<a title="复制本帖链接" id="postnum2" href="javascript:;"' in r.text


def test_d72_viewthread__pages_clamp_and_reverse_order(forum72: Forum, client) -> None:
    for i in range(20):
        forum72.sim.add_post(forum72.tid, "汤圆", f"第 {i} 条补充发言内容",
                             at=forum72.clock.now() + timedelta(seconds=i))
    forum72.clock.advance(minutes=1)
    now = forum72.clock.now()
    def read(url: str):
        r = client.get(url)
        return read_page(r.content, content_type=r.headers["content-type"], now=now)
    last = read(f"viewthread.php?tid={forum72.tid}&page=99")  # 25 posts: 3 pages
    assert (last.page, last.total_pages, [p.floor for p in last.posts]) == (3, 3, [21, 22, 23, 24, 25])
    rev1 = read(f"viewthread.php?tid={forum72.tid}&page=1&ordertype=1")
    assert [p.floor for p in rev1.posts] == [1, 25, 24, 23, 22, 21, 20, 19, 18, 17]
    rev2 = read(f"viewthread.php?tid={forum72.tid}&page=2&ordertype=1")
    assert [p.floor for p in rev2.posts] == list(range(16, 6, -1))
    assert 'class="pages"' in client.get(f"viewthread.php?tid={forum72.tid}").text


def test_d72_viewthread__missing_thread_is_a_message(client) -> None:
    r = client.get("viewthread.php?tid=999")
    assert (r.status_code, alert(r.text)) == (200, ("alert_error", "指定的主题不存在或已被删除或正在被审核，请返回。"))


def test_d72_findpost__302_to_the_page_with_rpid(forum72: Forum, client) -> None:
    pids = [forum72.sim.add_post(forum72.tid, "汤圆", f"第 {i} 条补充发言内容",
                                 at=forum72.clock.now() + timedelta(seconds=i)) for i in range(10)]
    r = client.get(f"redirect.php?goto=findpost&pid={pids[-1]}&ptid={forum72.tid}")
    assert r.status_code == 302
    assert r.headers["location"] == f"viewthread.php?tid={forum72.tid}&rpid={pids[-1]}&ordertype=0&page=2#pid{pids[-1]}"
    gone = client.get(f"redirect.php?goto=findpost&pid=9999&ptid={forum72.tid}")
    assert gone.headers["location"] == f"viewthread.php?tid={forum72.tid}"


def test_d72_dates__words_of_the_72_language_file() -> None:
    now = datetime(2026, 12, 5, 12, 0, tzinfo=BEIJING)
    assert post_time_html_d72(now, now) == '<span title="2026-12-5 12:00">刚才</span>'
    assert post_time_html_d72(now - timedelta(minutes=3), now) == '<span title="2026-12-5 11:57">3&nbsp;分钟前</span>'
    assert post_time_html_d72(datetime(2026, 12, 2, 9, 5, tzinfo=BEIJING), now) == \
        '<span title="2026-12-2 09:05">3&nbsp;天前&nbsp;09:05</span>'
    assert post_time_html_d72(datetime(2026, 11, 1, 9, 5, tzinfo=BEIJING), now) == "2026-11-1 09:05"
    assert post_time_html_d72(now, now, dateconvert=False) == "2026-12-5 12:00"


# ---- replying ------------------------------------------------------------------------------
def test_d72_reply__302_with_the_new_pid_and_page(forum72: Forum, client) -> None:
    login(client, "饺子", discuz="7.2")
    r = post_reply(forum72, client, TEXT, ajax=False, fastpost=False)
    pid = forum72.sim.posts(forum72.tid)[-1].pid
    assert r.status_code == 302
    assert r.headers["location"] == f"viewthread.php?tid={forum72.tid}&pid={pid}&page=1&extra=#pid{pid}"


def test_d72_reply__fastpost_ajax_calls_submithandle_with_the_url(forum72: Forum, client) -> None:
    login(client, "饺子", discuz="7.2")
    r = post_reply(forum72, client, TEXT)
    pid = forum72.sim.posts(forum72.tid)[-1].pid
    assert r.headers["content-type"] == "application/xml; charset=utf-8"
    assert f"submithandle_fastpost('viewthread.php?tid={forum72.tid}&pid={pid}&page=1&extra=#pid{pid}', " \
           "'非常感谢，您的回复已经发布，现在将转入主题页。" in cdata(r.text)


def test_d72_reply__flood_control_is_15_seconds_since_the_last_post(forum72: Forum, client) -> None:
    login(client, "饺子", discuz="7.2")
    assert post_reply(forum72, client, TEXT, ajax=False).status_code == 302
    forum72.clock.advance(15)
    flood = post_reply(forum72, client, TEXT + "（再次）", ajax=True, fastpost=False)
    assert cdata(flood.text) == "对不起，您两次发表间隔少于 15 秒，请不要灌水！"
    forum72.clock.advance(1)
    assert post_reply(forum72, client, TEXT + "（第三次）", ajax=False).status_code == 302


@pytest.mark.parametrize(("charset", "text", "ok"), [
    ("utf-8", "投票包子", True),     # 12 bytes
    ("utf-8", "投票啊", False),      # 9 bytes
    ("gbk", "投票包子", False),      # 8 bytes
    ("gbk", "投票给包子", True),     # 10 bytes
    ("utf-8", "[quote]很长很长很长很长的引用内容[/quote]好的", False),
])
def test_d72_reply__minpostsize_counts_bytes_of_the_charset(charset: str, text: str, ok: bool) -> None:
    with make_forum("7.2", charset) as forum, httpx.Client(base_url=forum.base) as client:
        login(client, "饺子", discuz="7.2", charset=charset)
        r = post_reply(forum, client, text, ajax=True, fastpost=False)
        answer = cdata(r.content.decode(charset))
        assert ("非常感谢" in answer) is ok, answer
        if not ok:
            assert answer == "对不起，您的帖子小于 10 个字符的限制，请修改。"


def test_d72_reply__guest_gets_the_login_box_page(forum72: Forum, client) -> None:
    r = client.get(f"post.php?action=reply&fid={forum72.fid}&tid={forum72.tid}")
    assert "<p>您无权进行当前操作，原因如下：</p>" in r.text
    assert "<p>对不起，您还未登录，无权在该版块回帖。</p>" in r.text
    assert 'id="loginform"' in r.text


def test_d72_reply__closed_thread_and_bad_formhash(forum72: Forum, client) -> None:
    login(client, "饺子", discuz="7.2")
    data = urlencode({"message": TEXT, "formhash": "00000000"})
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    r = client.post(f"post.php?action=reply&fid={forum72.fid}&tid={forum72.tid}&replysubmit=yes",
                    content=data, headers=headers)
    assert alert(r.text) == ("alert_info", "您的请求来路不正确，无法提交。")
    forum72.sim.close_thread(forum72.tid)
    r = post_reply(forum72, client, TEXT, ajax=False)
    assert alert(r.text)[1] == "对不起，本主题已关闭，不再接受新回复，请返回。"


def test_d72_quote__the_author_line_comes_after_the_excerpt(forum72: Forum, client) -> None:
    login(client, "包子", discuz="7.2")
    quoted = forum72.sim.posts(forum72.tid)[1]
    form = client.get(f"post.php?action=reply&fid={forum72.fid}&tid={forum72.tid}&repquote={quoted.pid}")
    area = unescape(re.search(r"<textarea[^>]*>(.*?)</textarea>", form.text, re.S).group(1))
    assert area == (f"[quote]{quoted.message}\n[size=2][color=#999999]饺子 发表于 2026-11-30 09:00[/color] "
                    f"[url={forum72.base}redirect.php?goto=findpost&pid={quoted.pid}&ptid={forum72.tid}]"
                    f"[img]{forum72.base}images/common/back.gif[/img][/url][/size][/quote]\n\n\n    ")
    post_reply(forum72, client, area + "改票对象：饺子\n改票理由：改主意了", ajax=False)
    forum72.clock.advance(60)
    r = client.get(thread_url(forum72))
    page = read_page(r.content, content_type=r.headers["content-type"], now=forum72.clock.now())
    (quote,) = page.posts[-1].quotes
    assert (quote.pid, quote.author) == (quoted.pid, "饺子")


def test_d72_edit__stamp_and_302_to_the_page(forum72: Forum, client) -> None:
    login(client, "饺子", discuz="7.2")
    mine = forum72.sim.posts(forum72.tid)[1]
    other = forum72.sim.posts(forum72.tid)[2]
    form = client.get(f"post.php?action=edit&fid={forum72.fid}&tid={forum72.tid}&pid={other.pid}&page=1")
    assert alert(form.text) == ("alert_error", "对不起，您无权编辑他人发表的帖子，请返回。")
    fh = formhash_of(client, forum72.tid, "7.2")
    data = urlencode({"formhash": fh, "fid": forum72.fid, "tid": forum72.tid, "pid": mine.pid,
                      "page": 1, "subject": "", "message": "投票对象：汤圆\n投票理由：改了"})
    r = client.post("post.php?action=edit&extra=&editsubmit=yes&mod=", content=data,
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert (r.status_code, r.headers["location"]) == (302, f"viewthread.php?tid={forum72.tid}&page=1&extra=#pid{mine.pid}")
    assert forum72.sim.post(mine.pid).message.startswith("[i=s] 本帖最后由 饺子 于 2026-11-30 09:10 编辑 [/i]\n\n")


# ---- the GBK edition -------------------------------------------------------------------------
def test_d72_gbk__pages_and_forms_in_gbk_without_a_header_charset(forum72_gbk: Forum) -> None:
    with httpx.Client(base_url=forum72_gbk.base) as client:
        r = client.get(thread_url(forum72_gbk))
        assert r.headers["content-type"] == "text/html"
        assert b'<meta http-equiv="Content-Type" content="text/html; charset=gbk" />' in r.content
        assert "投票对象".encode("gbk") in r.content
        login(client, "饺子", discuz="7.2")  # the name in UTF-8 bytes: no such user on GBK
        assert "discuz_uid = 0" in client.get(thread_url(forum72_gbk)).text
        login(client, "饺子", discuz="7.2", charset="gbk")
        assert "discuz_uid = 3" in client.get(thread_url(forum72_gbk)).text
        post_reply(forum72_gbk, client, "投票对象：汤圆\n投票理由：ＧＢＫ里的全角字", ajax=False)
        assert forum72_gbk.sim.posts(forum72_gbk.tid)[-1].message == "投票对象：汤圆\n投票理由：ＧＢＫ里的全角字"
        flood = post_reply(forum72_gbk, client, "投票对象：汤圆（再来一次）", ajax=True, fastpost=False)
        assert flood.headers["content-type"] == "application/xml; charset=gbk"
        assert flood.content.startswith(b'<?xml version="1.0" encoding="gbk"?><root><![CDATA[')
        assert "请不要灌水".encode("gbk") in flood.content


def test_d72__has_no_mobile_api_nor_x3_urls(client) -> None:
    assert client.get("api/mobile/index.php?version=4&module=check").status_code == 404
    assert client.get("forum.php?mod=viewthread&tid=1").status_code == 404


def test_d72__demo_game_is_the_same_in_both_generations() -> None:
    from forumbot.simulator.serve import prepare_forum

    start = SimClock(datetime(2026, 11, 30, 9, 0, tzinfo=BEIJING))
    x3 = prepare_forum(port=0, clock=start)
    d72 = prepare_forum(port=0, clock=start, discuz="7.2", gbk=True)
    assert d72.sim.discuz == "7.2" and d72.sim.charset == "gbk"
    assert [(p.pid, p.author) for p in x3.sim.posts(2)] == [(p.pid, p.author) for p in d72.sim.posts(2)]
    quote = next(p for p in d72.sim.posts(2) if p.message.startswith("[quote]"))
    assert "[/color] [url=" in quote.message and quote.message.index("发表于") > quote.message.index("投票对象")


def test_d72__simulator_refuses_unknown_generations() -> None:
    with pytest.raises(ValueError, match="discuz 必须是"):
        Simulator(discuz="6.0")
