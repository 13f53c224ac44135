"""What a forum may be set to, as ``sim.settings`` switches, and what every Discuz does
always (flood control, minpostsize, the login lock-out) — each in both generations.

How a test flips a switch (any generation, any charset)::

    with make_forum("7.2", "gbk") as forum:             # or Simulator(discuz="7.2", charset="gbk")
        forum.sim.settings.captcha_login = True          # 7.2: seccodestatus & 2
        forum.sim.settings.captcha_post = True           # 7.2: seccodestatus & 4
        forum.sim.settings.moderate_replies = True       # 审核新回复
        forum.sim.settings.newbiespan = 2                # minutes on X3, hours on 7.2
        forum.sim.add_user("新人", "pw", registered_at=forum.clock.now())
        forum.sim.release_post(forum.sim.held_posts(forum.tid)[0].pid)  # a moderator approves
"""

from __future__ import annotations

import re
from datetime import timedelta

import httpx
import pytest

from parsers.pages import read_page
from tests.forumbot.simulator_support import (  # noqa: F401 (fixtures)
    Forum,
    any_forum,
    login,
    make_forum,
    post_reply,
    thread_url,
)

TEXT = "投票对象：包子\n投票理由：他昨晚发言很可疑"


def cdata(text: str) -> str:
    m = re.search(r"<!\[CDATA\[(.*)\]\]></root>", text, re.S)
    assert m, f"not an ajax answer: {text[:300]!r}"
    return m.group(1)


def said(forum: Forum, r: httpx.Response) -> str:
    """The forum's words in an ajax answer (the text before any script)."""
    body = cdata(r.content.decode(forum.sim.charset))
    return re.sub(r"<script.*?</script>", "", body, flags=re.S).strip()


@pytest.fixture
def client(any_forum: Forum):
    with httpx.Client(base_url=any_forum.base, follow_redirects=False, timeout=5) as c:
        yield c


def log_in(forum: Forum, client: httpx.Client, name: str, password: str = "pw") -> httpx.Response:
    return login(client, name, password, discuz=forum.discuz)


def visible_pids(forum: Forum, client: httpx.Client) -> list[int]:
    r = client.get(thread_url(forum, page=1))
    page = read_page(r.content, content_type=r.headers["content-type"], now=forum.clock.now())
    return [p.pid for p in page.posts]


# ---- captcha -------------------------------------------------------------------------------
def test_switch__captcha_on_login(any_forum: Forum, client: httpx.Client) -> None:
    any_forum.sim.settings.captcha_login = True
    form = client.get("logging.php?action=login" if any_forum.discuz == "7.2"
                      else "member.php?mod=logging&action=login")
    assert "updateseccode" in form.text
    answer = said(any_forum, log_in(any_forum, client, "饺子"))
    assert answer == {"x3": "抱歉，验证码填写错误",
                      "7.2": "您输入的验证码不正确，无法提交，请修改。"}[any_forum.discuz]
    any_forum.sim.settings.captcha_login = False
    assert "欢迎您回来" in log_in(any_forum, client, "饺子").text


def test_switch__captcha_on_post(any_forum: Forum, client: httpx.Client) -> None:
    log_in(any_forum, client, "饺子")
    any_forum.sim.settings.captcha_post = True
    assert "updateseccode" in client.get(thread_url(any_forum)).text
    before = len(any_forum.sim.posts(any_forum.tid))
    answer = said(any_forum, post_reply(any_forum, client, TEXT, fastpost=False))
    assert answer == {"x3": "抱歉，验证码填写错误",
                      "7.2": "您输入的验证码不正确，无法提交，请修改。"}[any_forum.discuz]
    assert len(any_forum.sim.posts(any_forum.tid)) == before


# ---- moderation ----------------------------------------------------------------------------
def test_switch__moderated_reply_is_held_then_released(any_forum: Forum, client: httpx.Client) -> None:
    sim, tid, fid = any_forum.sim, any_forum.tid, any_forum.fid
    sim.settings.moderate_replies = True
    log_in(any_forum, client, "饺子")
    r = post_reply(any_forum, client, TEXT)
    (held,) = sim.held_posts(tid)
    body = cdata(r.text)
    if any_forum.discuz == "x3":
        # model_forum_post::newreply: the pid IS given, with reply_mod, to the thread (no pid)
        assert (f"succeedhandle_fastpost('forum.php?mod=viewthread&tid={tid}', '回复需要审核，请等待通过', "
                f"{{'fid':'{fid}','tid':'{tid}','pid':'{held.pid}','from':'','sechash':'','reply_mod':'1'}});") in body
    else:
        # newreply.inc.php: to the forum list, and no pid anywhere
        assert (f"submithandle_fastpost('forumdisplay.php?fid={fid}', '非常感谢，管理员设置了需要对新回复进行审核，"
                "您的帖子通过审核后将被显示出来，现在将转入主题列表。')") in body
        assert str(held.pid) not in body
    assert held.pid not in visible_pids(any_forum, client)
    any_forum.clock.advance(minutes=1)
    sim.release_post(held.pid)
    assert sim.held_posts(tid) == []
    assert visible_pids(any_forum, client)[-1] == held.pid  # shown with its pid, in its place
    with pytest.raises(LookupError):
        sim.release_post(held.pid)


def test_switch__moderated_reply_non_ajax(any_forum: Forum, client: httpx.Client) -> None:
    any_forum.sim.settings.moderate_replies = True
    log_in(any_forum, client, "饺子")
    r = post_reply(any_forum, client, TEXT, ajax=False, fastpost=False)
    assert r.status_code == 200  # not in msgforward: a page, not a redirect
    assert ("回复需要审核，请等待通过" if any_forum.discuz == "x3" else "管理员设置了需要对新回复进行审核") in r.text
    assert "alert_right" in r.text


def test_switch__a_released_reply_moves_later_floors_up(any_forum: Forum, client: httpx.Client) -> None:
    sim = any_forum.sim
    sim.settings.moderate_replies = True
    log_in(any_forum, client, "饺子")
    post_reply(any_forum, client, TEXT)
    (held,) = sim.held_posts(any_forum.tid)
    later = sim.add_post(any_forum.tid, "汤圆", "后来的发言，审核前已经显示", at=any_forum.clock.now())
    sim.release_post(held.pid)
    r = client.get(thread_url(any_forum))
    page = read_page(r.content, content_type=r.headers["content-type"], now=any_forum.clock.now())
    floors = {p.pid: p.floor for p in page.posts}
    assert floors[later] == floors[held.pid] + 1


def test_switch__editing_a_reply_under_moderation_holds_it_again(any_forum: Forum, client: httpx.Client) -> None:
    sim = any_forum.sim
    mine = sim.posts(any_forum.tid)[1]  # 饺子's
    log_in(any_forum, client, "饺子")
    sim.settings.moderate_replies = True
    fh = re.search(r'name="formhash" value="(\w+)"', client.get(thread_url(any_forum)).text).group(1)
    url = ("post.php?action=edit&extra=&editsubmit=yes" if any_forum.discuz == "7.2"
           else "forum.php?mod=post&action=edit&extra=&editsubmit=yes&inajax=1")
    client.post(url, data={"formhash": fh, "fid": any_forum.fid, "tid": any_forum.tid,
                           "pid": mine.pid, "page": 1, "message": "投票对象：汤圆\n投票理由：改票了"})
    assert [p.pid for p in sim.held_posts(any_forum.tid)] == [mine.pid]


# ---- newbie period -------------------------------------------------------------------------
def test_switch__newbie_period(any_forum: Forum, client: httpx.Client) -> None:
    sim = any_forum.sim
    sim.settings.newbiespan = 2
    sim.add_user("新人", "pw", registered_at=any_forum.clock.now())
    log_in(any_forum, client, "新人")
    answer = said(any_forum, post_reply(any_forum, client, TEXT, fastpost=False))
    if any_forum.discuz == "x3":  # cknewuser() fires first, in minutes
        assert answer == "抱歉，您目前处于见习期间，需要等待 2 分钟后才能进行本操作"
        any_forum.clock.advance(minutes=2)
    else:  # post.php, in hours
        # the ajax text drops "，请返回" the way showmessage's return_search does
        assert answer == "对不起，您只在注册时间起 2 小时后才有发帖权限。"
        any_forum.clock.advance(hours=2)
    post_reply(any_forum, client, TEXT, fastpost=False)
    assert sim.posts(any_forum.tid)[-1].author == "新人"


def test_switch__newbie_defaults_x3_two_minutes_72_none() -> None:
    for discuz, span in (("x3", 2), ("7.2", 0)):
        with make_forum(discuz) as forum:
            assert forum.sim.settings.newbiespan == span
            forum.sim.add_user("新人", "pw", registered_at=forum.clock.now())
            with httpx.Client(base_url=forum.base) as client:
                login(client, "新人", discuz=discuz)
                ok = post_reply(forum, client, TEXT, ajax=False, fastpost=False).status_code
                assert (ok == 200) is (discuz == "x3"), discuz  # X3: the newbie page


# ---- always on: flood control, minpostsize, lock-out -----------------------------------------
def test_always__flood_control_15_seconds(any_forum: Forum, client: httpx.Client) -> None:
    log_in(any_forum, client, "饺子")
    post_reply(any_forum, client, TEXT)
    any_forum.clock.advance(10)
    answer = said(any_forum, post_reply(any_forum, client, TEXT + "（二）"))
    assert "15 秒" in answer and ("请不要灌水" in answer or "请稍候再发表" in answer)
    any_forum.clock.advance(16)
    assert "15 秒" not in said(any_forum, post_reply(any_forum, client, TEXT + "（三）"))


def test_always__minpostsize_10_bytes(any_forum: Forum, client: httpx.Client) -> None:
    log_in(any_forum, client, "饺子")
    answer = said(any_forum, post_reply(any_forum, client, "计票"))  # 6 bytes in UTF-8
    assert "小于 10 个字符的限制" in answer


def test_always__login_lock_out_after_five_failures(any_forum: Forum, client: httpx.Client) -> None:
    answers = [said(any_forum, log_in(any_forum, client, "饺子", "wrong")) for _ in range(5)]
    assert answers[0].startswith("登录失败，您还可以尝试 4 次")
    assert answers[4] == "密码错误次数过多，请 15 分钟后重新登录"
    assert said(any_forum, log_in(any_forum, client, "饺子")) == "密码错误次数过多，请 15 分钟后重新登录"
    any_forum.clock.advance(minutes=16)
    assert "欢迎您回来" in log_in(any_forum, client, "饺子").text


def test_switches__script_and_harness_take_them() -> None:
    from forumbot.demo.harness import HarnessSimulator
    from forumbot.simulator import SimClock
    from forumbot.simulator.script import apply_script

    sim = HarnessSimulator(clock=SimClock(), discuz="7.2", charset="gbk")
    apply_script(sim, {"site": {"settings": {"moderate_replies": True, "newbiespan": 1}},
                       "users": [{"name": "新人", "password": "pw", "registered": "-10m"}]})
    assert (sim.discuz, sim.charset, sim.settings.moderate_replies) == ("7.2", "gbk", True)
    assert sim.data.user("新人").registered_at == sim.now() - timedelta(minutes=10)
