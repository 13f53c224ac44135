"""Replies and edits: the real success envelopes and every refusal, normal and ajax."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.forumbot.simulator_support import (  # noqa: F401  (pytest fixtures)
    Forum,
    cdata,
    client,
    forum,
    formhash_of,
    login,
    reply_url,
)

TEXT = "投票对象：包子\n投票理由：他昨晚很可疑"


def post_reply(forum: Forum, client: httpx.Client, message: str = TEXT, ajax: bool = True,
               fastpost: bool = True, **fields: str) -> httpx.Response:
    data = {"message": message, "formhash": formhash_of(client, forum.tid), "usesig": "1",
            "subject": "  ", **fields}
    return client.post(reply_url(forum, ajax, fastpost), data=data)


def test_reply__fastpost_ajax_success(forum: Forum, client: httpx.Client) -> None:
    login(client, "计票机器人")
    r = post_reply(forum, client)
    pid = forum.sim.posts(forum.tid)[-1].pid
    assert cdata(r.text) == (
        "<script type=\"text/javascript\" reload=\"1\">if(typeof succeedhandle_fastpost=="
        "'function') {succeedhandle_fastpost('forum.php?mod=viewthread&tid=1&pid="
        f"{pid}&page=1&extra=#pid{pid}', '非常感谢，回复发布成功，现在将转入主题页，请稍候……"
        f"[ 点击这里转入主题列表 ]', {{'fid':'2','tid':'1','pid':'{pid}','from':'',"
        "'sechash':''});}</script>")
    stored = forum.sim.post(pid)
    assert (stored.author, stored.message, stored.dateline) == ("计票机器人", TEXT, forum.clock.now())


def test_reply__full_form_non_ajax_is_301(forum: Forum, client: httpx.Client) -> None:
    login(client, "计票机器人")
    r = post_reply(forum, client, ajax=False, fastpost=False)
    pid = forum.sim.posts(forum.tid)[-1].pid
    assert r.status_code == 301 and r.content == b""
    assert r.headers["location"] == (
        f"forum.php?mod=viewthread&tid={forum.tid}&pid={pid}&page=1&extra=#pid{pid}")


def test_reply__json_form_carries_pid(forum: Forum, client: httpx.Client) -> None:
    login(client, "计票机器人")
    url = reply_url(forum, ajax=False) + "&ajaxdata=json"
    r = client.post(url, data={"message": TEXT, "formhash": formhash_of(client, forum.tid)})
    assert r.json()["data"]["pid"] == str(forum.sim.posts(forum.tid)[-1].pid)


def test_reply__page_number_follows_the_new_post(forum: Forum, client: httpx.Client) -> None:
    for i in range(5):
        forum.sim.add_post(forum.tid, "包子", f"第 {i} 条补充发言")
    login(client, "计票机器人")
    r = post_reply(forum, client)
    assert "&page=2&extra=#pid" in r.text  # the 11th post


@pytest.mark.parametrize(("setup", "user", "message", "expected", "params"), [
    pytest.param("none", None, TEXT, "抱歉，您尚未登录，没有权限在该版块回帖", "{}", id="guest"),
    pytest.param("closed", "汤圆", TEXT, "抱歉，本主题已关闭，不再接受新内容", "{}", id="closed"),
    pytest.param("banned", "路人甲", TEXT, "抱歉，您所在的用户组(禁止发言)无法进行此操作",
                 "{'grouptitle':'禁止发言'}", id="banned"),
    pytest.param("none", "汤圆", "顶", "抱歉，您的帖子小于 10 个字符的限制",
                 "{'minpostsize':'10','maxpostsize':'10000'}", id="too-short"),
    pytest.param("none", "汤圆", "投票啊", "抱歉，您的帖子小于 10 个字符的限制",
                 "{'minpostsize':'10','maxpostsize':'10000'}", id="three-cjk-is-9-bytes"),
    pytest.param("none", "汤圆", "[quote]很长很长很长很长的引用内容[/quote]\n好的",
                 "抱歉，您的帖子小于 10 个字符的限制",
                 "{'minpostsize':'10','maxpostsize':'10000'}", id="quote-not-counted"),
    pytest.param("none", "汤圆", "   ", "抱歉，您尚未输入标题或内容", "{}", id="empty"),
    pytest.param("captcha", "汤圆", TEXT, "抱歉，验证码填写错误", "{}", id="captcha"),
    pytest.param("closed-site", "汤圆", TEXT, "论坛维护中，预计 10 分钟后恢复。",
                 "{'adminemail':'admin@example.test'}", id="site-closed"),
])
def test_reply__refusals_in_ajax(forum: Forum, client: httpx.Client, setup: str, user: str | None,
                                 message: str, expected: str, params: str) -> None:
    if user:
        login(client, user)
    if setup == "closed":
        forum.sim.close_thread(forum.tid)
    elif setup == "banned":
        forum.sim.ban_user(user)
    elif setup == "captcha":
        forum.sim.settings.captcha_post = True
    count = len(forum.sim.posts(forum.tid))
    data = {"message": message, "formhash": formhash_of(client, forum.tid), "subject": "  "}
    if setup == "closed-site":
        forum.sim.settings.site_closed = "论坛维护中，预计 10 分钟后恢复。"
    r = client.post(reply_url(forum), data=data)
    assert cdata(r.text) == (
        f"{expected}<script type=\"text/javascript\" reload=\"1\">if(typeof errorhandle_fastpost"
        f"=='function') {{errorhandle_fastpost('{expected}', {params});}}</script>")
    assert len(forum.sim.posts(forum.tid)) == count


def test_reply__four_cjk_chars_are_twelve_bytes_on_utf8(forum: Forum, client: httpx.Client) -> None:
    # checkpost() compares strlen() — bytes — with minpostsize: 汉字 are 3 bytes in UTF-8.
    login(client, "汤圆")
    assert "succeedhandle_" in post_reply(forum, client, "投票包子").text


def test_reply__flood_control_then_allowed_after_interval(forum: Forum,
                                                          client: httpx.Client) -> None:
    login(client, "计票机器人")
    assert "succeedhandle_" in post_reply(forum, client).text
    forum.clock.advance(seconds=14)
    r = post_reply(forum, client)
    assert "errorhandle_fastpost('抱歉，您两次发表间隔少于 15 秒，请稍候再发表', {'floodctrl':'15'})" in r.text
    forum.clock.advance(seconds=1)
    assert "succeedhandle_" in post_reply(forum, client).text


def test_reply__flood_control_html_page(forum: Forum, client: httpx.Client) -> None:
    login(client, "计票机器人")
    post_reply(forum, client)
    r = post_reply(forum, client, ajax=False)
    assert r.status_code == 200
    assert '<div id="messagetext" class="alert_error">\r\n<p>抱歉，您两次发表间隔少于 15 秒' in r.text


def test_reply__moderated_has_no_pid(forum: Forum, client: httpx.Client) -> None:
    forum.sim.settings.moderate_replies = True
    login(client, "饺子")
    r = post_reply(forum, client)
    assert "回复需要审核，请等待通过" in r.text and "pid=" not in r.text
    stored = forum.sim.posts(forum.tid)[-1]
    assert stored.invisible == -2
    page = client.get(f"forum.php?mod=viewthread&tid={forum.tid}").text
    assert f'id="post_{stored.pid}"' not in page


def test_reply__wrong_formhash_is_503_system_error(forum: Forum, client: httpx.Client) -> None:
    login(client, "饺子")
    for ajax in (True, False):
        r = client.post(reply_url(forum, ajax), data={"message": TEXT, "formhash": "deadbeef"})
        assert r.status_code == 503 and r.headers["content-type"] == "text/html; charset=utf-8"
        assert "Discuz! System Error" in r.text and "您当前的访问请求当中含有非法字符，已经被系统拒绝" in r.text


def test_reply__missing_formhash_is_submit_invalid(forum: Forum, client: httpx.Client) -> None:
    login(client, "饺子")
    r = client.post(reply_url(forum), data={"message": "投票对象 包子 理由 很可疑"})
    assert "抱歉，您的请求来路不正确或表单验证串不符，无法提交" in r.text


def test_reply__foreign_referer_is_refused(forum: Forum, client: httpx.Client) -> None:
    login(client, "饺子")
    data = {"message": TEXT, "formhash": formhash_of(client, forum.tid)}
    r = client.post(reply_url(forum), data=data, headers={"Referer": "http://evil.example/x"})
    assert "抱歉，您的请求来路不正确或表单验证串不符，无法提交" in r.text
    same = client.post(reply_url(forum), data=data,
                       headers={"Referer": f"{forum.base}forum.php?mod=viewthread&tid=1"})
    assert "succeedhandle_" in same.text


def test_reply__quote_form_and_stored_quote(forum: Forum, client: httpx.Client) -> None:
    quoted = forum.sim.posts(forum.tid)[1]
    login(client, "汤圆")
    form = client.get(f"forum.php?mod=post&action=reply&fid={forum.fid}&tid={forum.tid}"
                      f"&repquote={quoted.pid}").text
    trim = re.search(r'name="noticetrimstr" value="([^"]*)"', form).group(1).replace("\r\n", "\n")
    assert trim.startswith("[quote][size=2][url=forum.php?mod=redirect&amp;goto=findpost&amp;"
                           f"pid={quoted.pid}&amp;ptid={forum.tid}][color=#999999]饺子 发表于 "
                           "2026-11-30 09:00[/color][/url][/size]\n投票对象：包子")
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
    fields = {k: v.replace("&amp;", "&") for k, v in fields.items()}
    fields["message"] = "改票对象：汤圆\n改票理由：想了想"
    r = client.post(f"forum.php?mod=post&action=reply&fid={forum.fid}&tid={forum.tid}&extra="
                    "&replysubmit=yes", data=fields)
    assert r.status_code == 301
    stored = forum.sim.posts(forum.tid)[-1]
    assert stored.message.startswith("[quote][size=2][url=forum.php?mod=redirect&goto=findpost")
    assert stored.message.endswith("[/quote]\n\n改票对象：汤圆\n改票理由：想了想")
    page = client.get(f"forum.php?mod=viewthread&tid={forum.tid}").text
    assert (f'<div class="quote"><blockquote><font size="2"><a href="{forum.base}forum.php?mod='
            f'redirect&amp;goto=findpost&amp;pid={quoted.pid}&amp;ptid={forum.tid}" '
            'target="_blank"><font color="#999999">饺子 发表于 2026-11-30 09:00</font></a></font>'
            '<br />') in page


def test_reply_form__closed_thread_message(forum: Forum, client: httpx.Client) -> None:
    forum.sim.close_thread(forum.tid)
    login(client, "汤圆")
    r = client.get(f"forum.php?mod=post&action=reply&fid={forum.fid}&tid={forum.tid}")
    assert "抱歉，本主题已关闭，不再接受新内容" in r.text and 'id="postform"' not in r.text


def edit(forum: Forum, client: httpx.Client, pid: int, message: str, ajax: bool) -> httpx.Response:
    url = "forum.php?mod=post&action=edit&extra=&editsubmit=yes" + ("&inajax=1" if ajax else "")
    data = {"formhash": formhash_of(client, forum.tid), "posttime": "0", "delattachop": "0",
            "wysiwyg": "0", "fid": str(forum.fid), "tid": str(forum.tid), "pid": str(pid),
            "page": "1", "subject": "", "message": message, "usesig": "1", "delete": "0",
            "save": "", "editsubmit": "true"}
    return client.post(url, data=data)


def test_edit__form_strips_stamp_and_submit_adds_it(forum: Forum, client: httpx.Client) -> None:
    pid = forum.sim.posts(forum.tid)[1].pid  # 饺子's, posted 10 minutes ago
    login(client, "饺子")
    r = edit(forum, client, pid, "投票对象：小笼包\n投票理由：改主意", ajax=True)
    assert cdata(r.text) == (
        "<script type=\"text/javascript\" reload=\"1\">if(typeof succeedhandle_=='function') "
        f"{{succeedhandle_('forum.php?mod=viewthread&tid={forum.tid}&page=1&extra=#pid{pid}', "
        "'帖子编辑成功，现在将转入主题页，请稍候……[ 点击这里转入主题列表 ]', "
        f"{{'fid':'{forum.fid}','tid':'{forum.tid}','pid':'{pid}'}});}}</script>")
    assert forum.sim.post(pid).message == (
        "[i=s] 本帖最后由 饺子 于 2026-11-30 09:10 编辑 [/i]\n\n投票对象：小笼包\n投票理由：改主意")
    form = client.get(f"forum.php?mod=post&action=edit&fid={forum.fid}&tid={forum.tid}"
                      f"&pid={pid}&page=1").text
    assert "本帖最后由" not in form and "投票对象：小笼包" in form
    page = client.get(f"forum.php?mod=viewthread&tid={forum.tid}").text
    assert (f'id="postmessage_{pid}">\r\n<i class="pstatus"> 本帖最后由 饺子 于 2026-11-30 09:10 '
            "编辑 </i><br />\r\n<br />\r\n投票对象：小笼包") in page


def test_edit__within_a_minute_no_stamp_and_301(forum: Forum, client: httpx.Client) -> None:
    login(client, "饺子")
    post_reply(forum, client)
    pid = forum.sim.posts(forum.tid)[-1].pid
    forum.clock.advance(seconds=59)
    r = edit(forum, client, pid, "投票对象：汤圆\n投票理由：打错了", ajax=False)
    assert r.status_code == 301 and r.headers["location"].endswith(f"#pid{pid}")
    assert forum.sim.post(pid).message == "投票对象：汤圆\n投票理由：打错了"


def test_edit__someone_elses_post_is_refused(forum: Forum, client: httpx.Client) -> None:
    pid = forum.sim.posts(forum.tid)[1].pid  # 饺子's
    login(client, "包子")
    r = edit(forum, client, pid, "篡改别人的帖子内容", ajax=True)
    assert "抱歉，您没有权限编辑此帖" in r.text
