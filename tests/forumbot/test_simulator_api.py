"""The mobile API v4 and the GBK forum, over real HTTP."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlencode

import httpx
import pytest

from forumbot.simulator import SimClock, Simulator
from tests.forumbot.simulator_support import (  # noqa: F401  (pytest fixtures)
    START,
    Forum,
    cdata,
    client,
    forum,
    login,
    reply_url,
    seed,
)

API = "api/mobile/index.php?version=4"


def test_api_check__on_reports_versions(client: httpx.Client) -> None:
    data = client.get(API + "&module=check").json()
    assert data["discuzversion"] == "X3.2" and data["truediscuzversion"] == "X3.5"
    assert data["charset"] == "UTF-8" and data["version"] == "4"


def test_api_check__off_is_empty_and_modules_closed(forum: Forum, client: httpx.Client) -> None:
    forum.sim.settings.mobile_api = False
    assert client.get(API + "&module=check").json() == []
    r = client.get(API + f"&module=viewthread&tid={forum.tid}")
    assert r.json() == {"error": "mobile_is_closed"}


def test_api_viewthread__envelope_and_posts(forum: Forum, client: httpx.Client) -> None:
    r = client.get(API + f"&module=viewthread&tid={forum.tid}&page=1")
    assert r.headers["content-type"] == "application/json"
    assert b"\\u" in r.content and "版".encode() not in r.content  # ASCII-escaped
    data = r.json()
    assert (data["Version"], data["Charset"]) == ("4", "UTF-8")
    v = data["Variables"]
    assert v["cookiepre"] == forum.sim.cookiepre and v["member_uid"] == "0" and v["auth"] is None
    assert v["ppp"] == "10" and v["thread"]["subject"] == "【饺子村】第一日 投票帖"
    first, second = v["postlist"][:2]
    assert first["first"] == "1" and first["number"] == "1" and first["position"] == "1"
    assert second["dateline"] == "10&nbsp;分钟前"
    assert second["dbdateline"] == str(int(START.timestamp()))
    assert second["message"] == "投票对象：包子<br />\n投票理由：第 0 条"
    assert all(isinstance(x, str) for x in second.values() if x is not None)


def test_api_viewthread__ppp_and_clamp(forum: Forum, client: httpx.Client) -> None:
    data = client.get(API + f"&module=viewthread&tid={forum.tid}&page=7&ppp=2").json()
    posts = data["Variables"]["postlist"]
    assert data["Variables"]["ppp"] == "2"
    assert [p["number"] for p in posts] == ["5"]  # 5 posts, 2 per page: page 3 served


def test_api_viewthread__missing_thread_404(client: httpx.Client) -> None:
    r = client.get(API + "&module=viewthread&tid=9999")
    assert r.status_code == 404
    assert r.json()["Message"]["messageval"] == "thread_nonexistence"


def test_api_viewthread__quote_and_stamp_in_api_flavour(forum: Forum, client: httpx.Client) -> None:
    quoted = forum.sim.posts(forum.tid)[1].pid
    pid = forum.sim.add_post(forum.tid, "饺子", "改票对象：汤圆", quote_pid=quoted)
    forum.clock.advance(minutes=5)
    forum.sim.edit_post(pid, forum.sim.post(pid).message + "\n补充")
    post = client.get(API + f"&module=viewthread&tid={forum.tid}").json()["Variables"]["postlist"][-1]
    assert post["message"].startswith('<div class="reply_wrap"><a href="http://127.0.0.1:')
    assert "&amp;amp;goto=findpost&amp;amp;pid=" in post["message"]
    assert "本帖最后由" not in post["message"]


def test_api_login__v3_success_and_wrong_password(forum: Forum, client: httpx.Client) -> None:
    url = "api/mobile/index.php?version=3&module=login&loginsubmit=yes&loginfield=auto"
    bad = client.post(url, data={"username": "计票机器人", "password": "x", "formhash": ""}).json()
    assert bad["Message"]["messageval"] == "login_invalid" and bad["Variables"]["member_uid"] == "0"
    ok = client.post(url, data={"username": "计票机器人", "password": "pw"}).json()
    assert ok["Version"] == "3" and ok["Message"] == {"messageval": "login_succeed",
                                                       "messagestr": "mobile:login_succeed"}
    assert ok["Variables"]["member_uid"] == "2" and ok["Variables"]["auth"]


def test_api_login__v4_crash_switch(forum: Forum, client: httpx.Client) -> None:
    forum.sim.settings.api_v4_login_crash = True
    url = API + "&module=login&loginsubmit=yes&loginfield=auto"
    r = client.post(url, data={"username": "计票机器人", "password": "pw"})
    assert r.status_code == 503 and forum.sim.cookiepre + "auth" in client.cookies


def test_api_login__get_returns_formhash(client: httpx.Client) -> None:
    v = client.get(API + "&module=login").json()["Variables"]
    assert re.fullmatch(r"[0-9a-f]{8}", v["formhash"]) and v["member_uid"] == "0"


def api_reply(forum: Forum, client: httpx.Client, message: str, tid: int | None = None) -> dict:
    formhash = client.get(API + "&module=login").json()["Variables"]["formhash"]
    url = API + f"&module=sendreply&tid={tid or forum.tid}&replysubmit=yes"
    return client.post(url, data={"formhash": formhash, "message": message,
                                  "mobiletype": "2"}).json()


def test_api_sendreply__success_flood_short_closed(forum: Forum, client: httpx.Client) -> None:
    login(client, "计票机器人")
    ok = api_reply(forum, client, "投票对象：包子 理由充分")
    assert ok["Message"]["messageval"] == "post_reply_succeed"
    assert ok["Variables"]["pid"] == str(forum.sim.posts(forum.tid)[-1].pid)
    assert api_reply(forum, client, "投票对象：包子 理由充分")["Message"]["messageval"] == (
        "post_flood_ctrl")
    forum.clock.advance(seconds=20)
    short = api_reply(forum, client, "顶")
    assert short["Message"]["messageval"] == "post_message_tooshort"
    assert short["Variables"]["pid"] == "0"
    forum.sim.close_thread(forum.tid)
    assert api_reply(forum, client, "投票对象：包子 理由充分")["Message"]["messageval"] == (
        "post_thread_closed")


def test_api_sendreply__guest_gets_login_key(forum: Forum, client: httpx.Client) -> None:
    out = api_reply(forum, client, "投票对象：包子 理由充分")
    assert out["Message"] == {"messageval": "replyperm_login_nopermission//1",
                              "messagestr": "mobile:replyperm_login_nopermission"}


def test_api__site_closed_is_error_object(forum: Forum, client: httpx.Client) -> None:
    forum.sim.settings.site_closed = "论坛维护中，预计 10 分钟后恢复。"
    r = client.get(API + f"&module=viewthread&tid={forum.tid}")
    assert r.json() == {"error": "论坛维护中，预计 10 分钟后恢复。"}
    assert b"\\u8bba\\u575b" in r.content


# ---- GBK ----------------------------------------------------------------------------------
@pytest.fixture
def gbk_forum() -> Iterator[Forum]:
    clock = SimClock(start=START)
    sim = Simulator(clock=clock, charset="gbk")
    fid, tid = seed(sim)
    clock.advance(minutes=1)
    with sim.running() as base:
        yield Forum(sim, clock, fid, tid, base)


def test_gbk__page_bytes_header_and_meta(gbk_forum: Forum) -> None:
    r = httpx.get(gbk_forum.base + f"forum.php?mod=viewthread&tid={gbk_forum.tid}")
    assert r.headers["content-type"] == "text/html; charset=gbk"
    assert b'<meta charset="gbk" />' in r.content
    assert "【饺子村】第一日 投票帖".encode("gbk") in r.content
    with pytest.raises(UnicodeDecodeError):
        r.content.decode("utf-8")


def test_gbk__chinese_reply_round_trip_as_gbk_bytes(gbk_forum: Forum) -> None:
    with httpx.Client(base_url=gbk_forum.base) as c:
        body = urlencode({"username": "饺子", "password": "pw"}, encoding="gbk")
        r = c.post("member.php?mod=logging&action=login&loginsubmit=yes&inajax=1",
                   content=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert r.content.startswith(b'<?xml version="1.0" encoding="gbk"?>')
        assert "欢迎您回来，新手上路 饺子".encode("gbk") in r.content
        page = c.get(f"forum.php?mod=viewthread&tid={gbk_forum.tid}").content.decode("gbk")
        formhash = re.search(r'name="formhash" value="(\w{8})"', page).group(1)
        text = "改票对象：汤圆\n改票理由：饺子馅是韭菜的"
        body = urlencode({"message": text, "formhash": formhash, "subject": "  "}, encoding="gbk")
        assert "%B8%C4%C6%B1" in body  # 改票 as GBK bytes
        r = c.post(reply_url(gbk_forum), content=body,
                   headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert b"succeedhandle_fastpost" in r.content
        assert gbk_forum.sim.posts(gbk_forum.tid)[-1].message == text
        page = c.get(f"forum.php?mod=viewthread&tid={gbk_forum.tid}").content.decode("gbk")
        assert "饺子馅是韭菜的" in page


def test_gbk__api_json_is_ascii_and_says_gbk(gbk_forum: Forum) -> None:
    r = httpx.get(gbk_forum.base + API + f"&module=viewthread&tid={gbk_forum.tid}")
    r.content.decode("ascii")
    assert r.json()["Charset"] == "GBK"
    assert r.json()["Variables"]["thread"]["subject"] == "【饺子村】第一日 投票帖"


def test_gbk__flood_message_in_gbk(gbk_forum: Forum) -> None:
    with httpx.Client(base_url=gbk_forum.base) as c:
        c.post("member.php?mod=logging&action=login&loginsubmit=yes&inajax=1",
               content=urlencode({"username": "饺子", "password": "pw"}, encoding="gbk"),
               headers={"Content-Type": "application/x-www-form-urlencoded"})
        page = c.get(f"forum.php?mod=viewthread&tid={gbk_forum.tid}").content.decode("gbk")
        formhash = re.search(r'name="formhash" value="(\w{8})"', page).group(1)
        for _ in range(2):
            r = c.post(reply_url(gbk_forum), content=urlencode(
                {"message": "投票对象：包子投票理由", "formhash": formhash}, encoding="gbk"),
                headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert r.headers["content-type"] == "text/xml; charset=gbk"
        assert "抱歉，您两次发表间隔少于 15 秒".encode("gbk") in r.content
