"""The login flow: success, failures counted down, lock-out, security question, captcha."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.forumbot.simulator_support import (  # noqa: F401  (pytest fixtures)
    Forum,
    cdata,
    client,
    forum,
    login,
)

LOGIN = "member.php?mod=logging&action=login&loginsubmit=yes"


def test_login__ajax_success_sets_auth_and_welcomes(forum: Forum, client: httpx.Client) -> None:
    r = login(client, "计票机器人")
    assert r.headers["content-type"] == "text/xml; charset=utf-8"
    body = cdata(r.text)
    assert "succeedhandle_(" in body and "欢迎您回来，新手上路 计票机器人，现在将转入登录前页面" in body
    assert forum.sim.cookiepre + "auth" in client.cookies


def test_login__html_success_is_alert_right(forum: Forum, client: httpx.Client) -> None:
    r = client.post(LOGIN, data={"username": "导演", "password": "pw"})
    assert r.status_code == 200
    assert '<div id="messagetext" class="alert_right">' in r.text and "欢迎您回来" in r.text


def test_login__quick_lsform_answers_with_location_only(client: httpx.Client) -> None:
    r = client.post(LOGIN + "&infloat=yes&lssubmit=yes&inajax=1",
                    data={"username": "饺子", "password": "pw", "quickforward": "yes",
                          "handlekey": "ls"})
    assert "window.location.href=" in r.text and "欢迎" not in r.text


def test_login__json_form(client: httpx.Client) -> None:
    r = client.post(LOGIN + "&ajaxdata=json", data={"username": "饺子", "password": "pw"})
    assert r.json()["message"].startswith("欢迎您回来")


def test_login__wrong_password_counts_down_then_locks(forum: Forum, client: httpx.Client) -> None:
    texts = [cdata(login(client, "导演", "nope").text) for _ in range(5)]
    assert texts[0].startswith("登录失败，您还可以尝试 4 次")
    assert "errorhandle_('登录失败，您还可以尝试 4 次', {'loginperm':'4'})" in texts[0]
    assert texts[3].startswith("登录失败，您还可以尝试 1 次")
    assert texts[4].startswith("密码错误次数过多，请 15 分钟后重新登录")
    right = cdata(login(client, "导演", "pw").text)
    assert right.startswith("密码错误次数过多") and forum.sim.cookiepre + "auth" not in client.cookies
    forum.clock.advance(minutes=15)
    assert "succeedhandle_" in login(client, "导演", "pw").text


def test_login__html_wrong_password_page(client: httpx.Client) -> None:
    r = client.post(LOGIN, data={"username": "导演", "password": "bad"})
    assert '<div id="messagetext" class="alert_error">' in r.text
    assert "<p>登录失败，您还可以尝试 4 次</p>" in r.text


@pytest.mark.parametrize(("questionid", "answer", "expected"), [
    pytest.param("0", "", "请选择安全提问以及填写正确的答案", id="empty"),
    pytest.param("1", "", "请选择安全提问以及填写正确的答案", id="no-answer"),
    pytest.param("1", "错的", "抱歉，安全提问答案填写错误", id="wrong-answer"),
    pytest.param("2", "王秀英", "抱歉，安全提问答案填写错误", id="wrong-question"),
])
def test_login__security_question_refusals(forum: Forum, client: httpx.Client, questionid: str,
                                           answer: str, expected: str) -> None:
    forum.sim.add_user("有问题", "pw", question=(1, "王秀英"))
    r = login(client, "有问题", questionid=questionid, answer=answer)
    assert cdata(r.text).startswith(expected)


def test_login__security_question_right_answer(forum: Forum, client: httpx.Client) -> None:
    forum.sim.add_user("有问题", "pw", question=(1, "王秀英"))
    assert "succeedhandle_" in login(client, "有问题", questionid="1", answer="王秀英").text


def test_login__captcha_required(forum: Forum, client: httpx.Client) -> None:
    forum.sim.settings.captcha_login = True
    page = client.get("member.php?mod=logging&action=login")
    assert "updateseccode(" in page.text and 'name="loginsubmit"' in page.text
    r = login(client, "导演")
    assert cdata(r.text).startswith("抱歉，验证码填写错误")
    assert "errorhandle_('抱歉，验证码填写错误', {})" in r.text


def test_login__page_without_captcha_has_the_real_fields(client: httpx.Client) -> None:
    page = client.get("member.php?mod=logging&action=login").text
    assert "updateseccode(" not in page
    for name in ("formhash", "referer", "loginfield", "username", "password", "questionid",
                 "answer", "cookietime"):
        assert f'name="{name}"' in page
    assert re.search(r'action="member.php\?mod=logging&amp;action=login&amp;loginsubmit=yes'
                     r'&amp;loginhash=L\w{4}"', page)


def test_login__not_activated_account(forum: Forum, client: httpx.Client) -> None:
    forum.sim.add_user("新人", "pw", activated=False)
    body = cdata(login(client, "新人").text)
    assert "您的帐号处于非激活状态" in body


def test_logout__clears_auth(forum: Forum, client: httpx.Client) -> None:
    login(client, "饺子")
    page = client.get(f"forum.php?mod=viewthread&tid={forum.tid}").text
    link = re.search(r'member.php\?mod=logging&amp;action=logout&amp;formhash=(\w{8})', page)
    r = client.get(f"member.php?mod=logging&action=logout&formhash={link.group(1)}")
    assert "您已退出站点，现在将以游客身份转入退出前页面" in r.text
    assert "discuz_uid = '0'" in client.get(f"forum.php?mod=viewthread&tid={forum.tid}").text
