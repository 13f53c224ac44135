"""Every real Discuz! 7.2 answer (UTF-8 and GBK) → the outcome kind and message key it must
classify as: 7.2's showmessage pages, its ajax texts and its 302s map onto the same keys,
and so onto the same exception tree, as X3's."""

from __future__ import annotations

import httpx
import pytest

from forumbot.discuz.errors import (
    EditNotAllowed,
    FloodControl,
    LoginFailed,
    NotLoggedIn,
    refusal_for,
)
from forumbot.discuz.responses import ReplyKind, classify, key_for_text
from tests.forumbot.captured72 import D72, D72_GBK, exchanges72, response72

S, R, P, D = ReplyKind.SUCCESS, ReplyKind.REFUSED, ReplyKind.PAGE, ReplyKind.REDIRECT

# (fixture, exchange n) → (kind, key, values subset)
EXPECTED = {
    (D72, 83): (S, "post_reply_succeed", {"tid": "1", "pid": "28", "page": "3"}),
    (D72_GBK, 83): (S, "post_reply_succeed", {"tid": "1", "pid": "23", "page": "3"}),
    (D72, 84): (R, "post_flood_ctrl", {"floodctrl": "15"}),
    (D72, 85): (R, "post_flood_ctrl", {"floodctrl": "15"}),
    (D72_GBK, 84): (R, "post_flood_ctrl", {"floodctrl": "15"}),
    (D72_GBK, 85): (R, "post_flood_ctrl", {"floodctrl": "15"}),
    (D72, 88): (R, "login_invalid", {"loginperm": "4"}),
    (D72, 89): (R, "login_invalid", {"loginperm": "3"}),
    (D72_GBK, 75): (R, "login_invalid", {"loginperm": "4"}),
    (D72, 93): (S, "login_succeed", {}),
    (D72_GBK, 78): (S, "login_succeed", {}),
    (D72, 94): (S, "login_succeed", {}),  # the login form asked while logged in
    (D72, 91): (S, None, {}),  # ajax login: a script that moves the page
    (D72_GBK, 77): (S, None, {}),
    (D72, 102): (R, "replyperm_login_nopermission", {}),
    (D72, 103): (R, "replyperm_login_nopermission", {}),
    (D72_GBK, 79): (R, "replyperm_login_nopermission", {}),
    (D72_GBK, 80): (R, "replyperm_login_nopermission", {}),
    (D72, 104): (R, "post_edit_nopermission", {}),
    (D72, 105): (D, None, {"pid": "15", "page": "2"}),
    (D72, 106): (D, None, {"pid": "25", "page": "3"}),
    (D72, 121): (D, None, {"pid": "15", "page": "2"}),
    (D72, 122): (D, None, {"pid": "25", "page": "3"}),
    (D72_GBK, 89): (D, None, {"pid": "12", "page": "2"}),
    (D72_GBK, 93): (D, None, {"pid": "12", "page": "2"}),
}


def _cases():
    for fixture in (D72, D72_GBK):
        for n, e in exchanges72(fixture).items():
            if e.get("saved_as"):
                yield pytest.param(fixture, n, id=f"{fixture}-{n}-{e['saved_as']}")


@pytest.mark.parametrize(("fixture", "n"), list(_cases()))
def test_responses_d72__every_capture_classifies(fixture, n):
    e = exchanges72(fixture)[n]
    reply = classify(response72(fixture, n, httpx.Request(e["method"], e["url"])))
    kind, key, values = EXPECTED.get((fixture, n), (P, None, {}))  # the rest are pages and forms
    assert (reply.kind, reply.key) == (kind, key), reply.message
    assert values.items() <= reply.values.items()


@pytest.mark.parametrize(
    ("fixture", "n", "error"),
    [(D72, 84, FloodControl), (D72_GBK, 85, FloodControl), (D72, 88, LoginFailed),
     (D72_GBK, 79, NotLoggedIn), (D72, 104, EditNotAllowed)],
)
def test_responses_d72__refusals_map_onto_the_one_exception_tree(fixture, n, error):
    e = exchanges72(fixture)[n]
    raised = refusal_for(classify(response72(fixture, n, httpx.Request(e["method"], e["url"]))))
    assert type(raised) is error and raised.message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        # 7.2's templates/default/messages.lang.php wordings of keys X3 words differently
        ("对不起，您还未登录，无权在该版块回帖。", "replyperm_login_nopermission"),
        ("对不起，您无权在该版块回帖，详细请见点击这里查看", "replyperm_none_nopermission"),
        ("您没有输入标题或内容，请返回填写。", "post_sm_isnull"),
        ("对不起，您的帖子小于 10 个字符的限制，请返回修改。", "post_message_tooshort"),
        ("对不起，本主题已关闭，不再接受新回复，请返回。", "post_thread_closed"),
        ("您输入的验证码不正确，无法提交，请返回修改。", "submit_seccode_invalid"),
        ("您的请求来路不正确，无法提交。", "submit_invalid"),
        ("对不起，您的 IP 地址不在被允许的范围内，或您的账号被禁用，无法访问本论坛。", "user_banned"),
        ("对不起，您只在注册时间起 2 小时后才有发帖权限，请返回。", "post_newbie_span"),
        ("对不起，您填写的内容(如签名、帖子、短消息等)包含不良内容而无法提交，请返回修改。", "word_banned"),
        ("对不起，本站规定会员每小时最多只能发表 5 个帖子。", "post_flood_ctrl_posts_per_hour"),
        ("非常感谢，管理员设置了需要对新回复进行审核，您的帖子通过审核后将被显示出来，现在将转入主题列表。",
         "post_reply_mod_succeed"),
        ("非常感谢，您的回复已经发布，现在将转入主题页。", "post_reply_succeed"),
        ("密码错误次数过多，请 15 分钟后重新登录", "login_strike"),
        ("请填写安全提问以及正确的答案", "login_question_empty"),
        ("安全提问选择错误，请重新填写", "login_question_invalid"),
        ("对不起，本论坛暂时关闭，详情请联系管理员。", "board_closed"),
        ("指定的主题不存在或已被删除或正在被审核，请返回。", "thread_nonexistence"),
    ],
)
def test_responses_d72__message_texts_have_their_keys(text, key):
    assert key_for_text(text) == key
