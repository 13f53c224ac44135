"""Every captured real response → the outcome kind and message key it must classify as."""

from __future__ import annotations

import httpx
import pytest

from forumbot.discuz.responses import ReplyKind, classify, key_for_text
from tests.forumbot.captured import captured_response, exchanges

S, R, U, P, D = ReplyKind.SUCCESS, ReplyKind.REFUSED, ReplyKind.UNAVAILABLE, ReplyKind.PAGE, ReplyKind.REDIRECT

# name → (kind, key, expected values subset). Pages (thread, forms, lists) are listed below.
EXPECTED = {
    "login_post_captcha_missing_ajax": (R, "submit_seccode_invalid", {}),
    "login_post_wrong_password": (R, "login_invalid", {}),
    "login_post_wrong_password_inajax": (R, "login_invalid", {"loginperm": "3"}),
    "login_post_success": (S, "login_succeed", {}),
    "login_post_success_inajax": (S, "login_succeed", {}),
    "login_post_quick_lsform_inajax": (S, None, {}),
    "logout": (S, "logout_succeed", {}),
    "login_post_too_many_failures_inajax": (R, "login_strike", {}),
    "login_post_too_many_failures": (R, "login_strike", {}),
    "login_post_correct_password_while_locked_inajax": (R, "login_strike", {}),
    "newthread_page_newbie_period": (R, "post_newbie_span", {}),
    "newthread_post_submit": (S, "post_newthread_succeed", {"tid": "1"}),
    "reply_post_success": (S, "post_reply_succeed", {"tid": "2", "pid": "3", "page": "1"}),
    "reply_post_success_inajax": (S, "post_reply_succeed", {"tid": "2", "pid": "4", "fid": "3"}),
    "reply_fastpost_success_inajax": (S, "post_reply_succeed", {"pid": "16", "page": "2"}),
    "reply_flood_control": (R, "post_flood_ctrl", {}),
    "reply_flood_control_inajax": (R, "post_flood_ctrl", {"floodctrl": "15"}),
    "reply_message_too_short": (R, "post_message_tooshort", {}),
    "reply_message_too_short_inajax": (R, "post_message_tooshort", {"minpostsize": "10"}),
    "reply_bad_formhash_inajax": (R, "request_tainted", {}),
    "reply_bad_formhash": (R, "request_tainted", {}),
    "reply_logged_out_inajax": (R, "replyperm_login_nopermission", {}),
    "reply_logged_out": (R, "replyperm_login_nopermission", {}),
    "edit_post_submit": (S, "post_edit_succeed", {"pid": "8"}),
    "edit_post_submit_with_notice": (S, "post_edit_succeed", {"pid": "8"}),
    "edit_post_submit_inajax": (S, "post_edit_succeed", {"pid": "10"}),
    "reply_post_with_quote": (S, "post_reply_succeed", {"pid": "34"}),
    "redirect_findpost": (D, None, {"page": "3", "pid": "24"}),
    "redirect_lastpost": (D, None, {"page": "3"}),
    "viewthread_not_exist": (R, "thread_nonexistence", {}),
    "viewthread_not_exist_inajax": (R, "thread_nonexistence", {}),
    "mobileapi_viewthread_not_exist": (R, "thread_nonexistence", {}),
    "forumdisplay_not_exist": (R, "forum_nonexistence", {}),
    "reply_thread_closed_inajax": (R, "post_thread_closed", {}),
    "reply_thread_closed": (R, "post_thread_closed", {}),
    "reply_form_page_thread_closed": (R, "post_thread_closed", {}),
    "reply_banned_user_inajax": (R, "user_banned", {"grouptitle": "禁止发言"}),
    "reply_banned_user": (R, "user_banned", {}),
    "mobileapi_login_wrong_password": (R, "login_invalid", {}),
    "mobileapi_v4_login_success_crash": (U, "system_error", {}),
    "mobileapi_v3_login_success": (S, "login_succeed", {"member_uid": "3"}),
    "mobileapi_sendreply_success": (S, "post_reply_succeed", {"pid": "45"}),
    "mobileapi_sendreply_flood": (R, "post_flood_ctrl", {}),
    "mobileapi_sendreply_too_short": (R, "post_message_tooshort", {}),
    "mobileapi_sendreply_thread_closed": (R, "post_thread_closed", {}),
    "mobileapi_sendreply_logged_out": (R, "replyperm_login_nopermission", {}),
    "site_closed_index_guest": (R, "board_closed", {}),
    "site_closed_viewthread_guest": (R, "board_closed", {}),
    "site_closed_viewthread_guest_inajax": (R, "login_required", {}),
    "site_closed_mobileapi_viewthread": (R, "board_closed", {}),
    "site_closed_viewthread_loggedin": (R, "board_closed", {}),
    "site_closed_reply_inajax": (R, "board_closed", {"adminemail": "admin@example.test"}),
    "viewthread_tid2_page2_guest_first_view_after_delete": (D, None, {"page": "2"}),
}
GBK_EXPECTED = {
    "gbk_login_post_wrong_password_inajax": (R, "login_invalid", {"loginperm": "4"}),
    "gbk_login_post_success_inajax": (S, "login_succeed", {}),
    "gbk_reply_post_success": (S, "post_reply_succeed", {"pid": "2"}),
    "gbk_reply_post_success_inajax": (S, "post_reply_succeed", {"pid": "3"}),
    "gbk_reply_flood_control_inajax": (R, "post_flood_ctrl", {"floodctrl": "15"}),
}


def _cases():
    for name, want in EXPECTED.items():
        yield pytest.param("discuz-x3", name, want, id=name)
    for name, want in GBK_EXPECTED.items():
        yield pytest.param("discuz-x3-gbk", name, want, id=name)


@pytest.mark.fixtures
@pytest.mark.parametrize(("fixture", "name", "want"), list(_cases()))
def test_responses__captured_outcome(fixture, name, want):
    kind, key, values = want
    reply = classify(captured_response(fixture, name))
    assert (reply.kind, reply.key) == (kind, key)
    assert values.items() <= reply.values.items()
    if kind is ReplyKind.REFUSED and reply.format != "redirect":
        assert reply.message  # the forum's own words are kept


@pytest.mark.fixtures
def test_responses__every_other_capture_is_an_ordinary_page():
    for fixture, table in (("discuz-x3", EXPECTED), ("discuz-x3-gbk", GBK_EXPECTED)):
        for name in exchanges(fixture):
            if name in table:
                continue
            reply = classify(captured_response(fixture, name))
            assert reply.kind is ReplyKind.PAGE, (name, reply)


@pytest.mark.fixtures
def test_responses__gbk_text_is_decoded():
    reply = classify(captured_response("discuz-x3-gbk", "gbk_reply_flood_control_inajax"))
    assert reply.charset == "gbk" and reply.message == "抱歉，您两次发表间隔少于 15 秒，请稍候再发表"


def _resp(body: str | bytes, status: int = 200, ctype: str = "text/html; charset=utf-8", **kw) -> httpx.Response:
    content = body.encode("utf-8") if isinstance(body, str) else body
    return httpx.Response(status, headers={"Content-Type": ctype, **kw}, content=content,
                          request=httpx.Request(kw.pop("method", "GET"), "http://127.0.0.1/forum.php"))


AJAX = '<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[{}]]></root>'


@pytest.mark.parametrize(
    ("response", "kind", "key"),
    [
        (_resp("<html><body>频繁刷新限制 刷新间隔时间小于两秒</body></html>"), U, "cc_protection"),
        (_resp("<html><head><title>x</title></head><body>页面重载开启</body></html>"), U, "cc_protection"),
        (_resp("<html><body>&#x9891;&#x7e41;&#x5237;&#x65b0;&#x9650;&#x5236;</body></html>"), U, "cc_protection"),
        (_resp("<!DOCTYPE html><html><body><div id=\"postlist\">"), U, "truncated"),
        (_resp('<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[抱歉', ctype="text/xml"), U, "truncated"),
        (_resp(""), U, "empty"),
        (_resp('{"Variables": {"member_uid": ', ctype="application/json"), U, "truncated"),
        (_resp('{"error":"mobile_is_closed"}', ctype="application/json"), R, "mobile_is_closed"),
        (_resp(AJAX.format("回复需要审核，请等待通过<script type=\"text/javascript\" reload=\"1\">"
                           "if(typeof errorhandle_fastpost=='function') {errorhandle_fastpost("
                           "'回复需要审核，请等待通过', {});}</script>"), ctype="text/xml"), S, "post_reply_mod_succeed"),
        (_resp(AJAX.format("<script type=\"text/javascript\" reload=\"1\">if(typeof succeedhandle_fastpost"
                           "=='function') {succeedhandle_fastpost('forum.php?mod=viewthread&tid=7', "
                           "'回复需要审核，请等待通过', {'fid':'2','tid':'7'});}</script>"), ctype="text/xml"),
         S, "post_reply_mod_succeed"),
        (_resp("<html><body><div id=\"messagetext\" class=\"alert_error\"><p>抱歉，安全提问答案填写错误</p></div></body></html>"),
         R, "login_question_invalid"),
        (_resp(b"", status=502), U, "empty"),
    ],
    ids=["cc-refresh", "cc-reload", "cc-entities", "truncated-html", "truncated-ajax", "empty-200", "truncated-json",
         "api-closed", "moderated-as-message", "moderated-succeedhandle", "question-wrong", "bare-502"],
)
def test_responses__synthetic_shapes(response, kind, key):
    reply = classify(response)
    assert (reply.kind, reply.key) == (kind, key)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("登录失败，您还可以尝试 4 次", "login_invalid"),
        ("欢迎您回来，新手上路 饺子。您的帐号处于非激活状态，现在将转入控制面板", "location_activation"),
        ("请选择安全提问以及填写正确的答案", "login_question_empty"),
        ("抱歉，您的帖子超过 10000 个字符的限制", "post_message_toolong"),
        ("抱歉，您没有权限编辑此帖", "post_edit_nopermission"),
        ("抱歉，您的请求来路不正确或表单验证串不符，无法提交", "submit_invalid"),
        ("今天天气不错", None),
    ],
)
def test_responses__text_table(text, key):
    assert key_for_text(text) == key
