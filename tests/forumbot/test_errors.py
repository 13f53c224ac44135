"""The exception tree and the key → class table."""

from __future__ import annotations

import httpx
import pytest

from forumbot.discuz import errors as e
from forumbot.discuz.responses import ForumReply, ReplyFormat, ReplyKind


def refused(key: str | None, message: str = "抱歉", values: dict | None = None) -> ForumReply:
    return ForumReply(ReplyKind.REFUSED, ReplyFormat.AJAX, 200, key=key, message=message, values=values or {})


@pytest.mark.parametrize(
    ("key", "cls"),
    [
        ("login_invalid", e.LoginFailed),
        ("login_strike", e.LoginLockedOut),
        ("login_seccheck2", e.CaptchaRequired),
        ("submit_seccode_invalid", e.CaptchaRequired),
        ("location_activation", e.AccountNotActivated),
        ("login_question_empty", e.SecurityQuestionRequired),
        ("login_question_invalid", e.SecurityQuestionWrong),
        ("replyperm_login_nopermission", e.NotLoggedIn),
        ("post_flood_ctrl", e.FloodControl),
        ("post_message_tooshort", e.MessageTooShort),
        ("post_thread_closed", e.ThreadClosed),
        ("group_nopermission", e.NoPermission),
        ("user_banned", e.UserBanned),
        ("submit_invalid", e.BadFormHash),
        ("request_tainted", e.BadFormHash),
        ("board_closed", e.SiteClosed),
        ("thread_nonexistence", e.ThreadNotFound),
        ("post_newbie_span", e.NewbiePeriod),
        (None, e.UnknownRefusal),
        ("some_future_key", e.UnknownRefusal),
    ],
)
def test_errors__key_table_picks_the_class(key, cls):
    error = e.refusal_for(refused(key))
    assert type(error) is cls
    assert isinstance(error, e.ForumRefused) and isinstance(error, e.ForumError)
    assert not isinstance(error, e.ForumUnavailable)


def test_errors__values_become_typed_attributes():
    assert e.refusal_for(refused("post_flood_ctrl", values={"floodctrl": "15"})).seconds == 15.0
    assert e.refusal_for(refused("login_invalid", values={"loginperm": "3"})).attempts_left == 3
    assert e.refusal_for(refused("login_invalid")).attempts_left is None
    assert e.refusal_for(refused("post_message_tooshort", values={"minpostsize": "10"})).min_size == 10


def test_errors__refusal_keeps_forum_text_and_response():
    response = httpx.Response(200, text="x")
    reply = ForumReply(ReplyKind.REFUSED, ReplyFormat.HTML, 200, key="post_thread_closed",
                       message="抱歉，本主题已关闭，不再接受新内容", response=response)
    error = e.refusal_for(reply)
    assert str(error) == "抱歉，本主题已关闭，不再接受新内容" and error.response is response
    assert "post_thread_closed" in repr(error)


def test_errors__unavailable_keeps_original_and_sent():
    original = httpx.ReadTimeout("slow")
    error = e.ForumUnavailable("GET x: timed out", reason=e.UnavailableReason.TIMEOUT, sent=True, original=original)
    assert error.original is original and error.sent and error.cause_name == "ReadTimeout"
    assert e.ForumUnavailable("x", reason=e.UnavailableReason.SERVER_ERROR, sent=True,
                              response=httpx.Response(503)).cause_name == "HTTP 503"


def test_errors__every_table_class_is_a_refusal():
    assert all(issubclass(cls, e.ForumRefused) for cls in e.KEY_EXCEPTIONS.values())
