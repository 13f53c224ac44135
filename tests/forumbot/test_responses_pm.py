"""Every real PM answer (../shared/fixtures/discuz-pm, X3.5 and 7.2) → its outcome kind,
key and exception: the PM refusals the bot must tell apart get their own classes."""

from __future__ import annotations

import json

import httpx
import pytest

from forumbot.discuz.errors import (
    MessageEmpty,
    PmFloodControl,
    RobotForbidden,
    UnknownRecipient,
    refusal_for,
)
from forumbot.discuz.responses import ReplyKind, classify
from tests.support import fixture_dir

pytestmark = pytest.mark.fixtures
S, R, P = ReplyKind.SUCCESS, ReplyKind.REFUSED, ReplyKind.PAGE


def response(gen: str, n: int) -> httpx.Response:
    folder = fixture_dir("discuz-pm") / gen
    e = next(x for x in json.loads((folder / "exchanges.json").read_text("utf-8")) if x["n"] == n)
    body = (folder / next(f for f in e["files"] if f.endswith(".body"))).read_bytes()
    headers = [(k, v) for k, v in e["headers"] if k.lower() in ("content-type", "location")]
    request = httpx.Request(e["method"], e["url"])
    return httpx.Response(e["status"], headers=headers, content=body, request=request)


EXPECTED = {
    ("x35", 9): (S, "do_success", None, None),  # full page: 301 to the inbox, no pmid
    ("x35", 13): (S, None, "2", None),  # popup: succeedhandle_showMsgBox(…, {'pmid':'2'})
    ("x35", 35): (S, None, "3", None),  # conversation reply
    ("x35", 40): (S, "do_success", "4", None),  # mobile API
    ("x35", 11): (R, "pm_flood_ctrl", None, PmFloodControl),
    ("x35", 36): (R, "pm_flood_ctrl", None, PmFloodControl),
    ("x35", 37): (R, "pm_flood_ctrl", None, PmFloodControl),
    ("x35", 38): (R, "message_can_not_send_2", None, PmFloodControl),
    ("x35", 31): (R, "pm_unknown_recipient", None, UnknownRecipient),
    ("x35", 32): (R, "pm_unknown_recipient", None, UnknownRecipient),
    ("x35", 33): (R, "message_bad_touser", "0", UnknownRecipient),
    ("d72", 9): (S, "pm_send_succeed", None, None),
    ("d72", 11): (S, "pm_send_succeed", None, None),
    ("d72", 24): (P, None, None, None),  # the new li#pm_5: read by parsers.pm
    ("d72", 28): (R, "pm_unknown_recipient", None, UnknownRecipient),
    ("d72", 29): (R, "pm_unknown_recipient", None, UnknownRecipient),
    ("d72", 36): (R, "pm_flood_ctrl", None, PmFloodControl),
    ("d72", 37): (R, "pm_flood_ctrl", None, PmFloodControl),
    ("d72", 32): (R, "robot_forbidden", None, RobotForbidden),
}


@pytest.mark.parametrize(("gen", "n"), list(EXPECTED), ids=[f"{g}-{n}" for g, n in EXPECTED])
def test_pm_answers_classify(gen: str, n: int) -> None:
    kind, key, pmid, error = EXPECTED[(gen, n)]
    reply = classify(response(gen, n))
    assert (reply.kind, reply.key, reply.values.get("pmid")) == (kind, key, pmid)
    if error is not None:
        refusal = refusal_for(reply)
        assert type(refusal) is error
        if error is PmFloodControl:
            assert refusal.seconds == 16.0  # the forum names none; 15 s is checked with <=


def test_empty_pm_is_message_empty() -> None:
    from forumbot.discuz.responses import key_for_text
    assert refusal_for(classify(httpx.Response(
        200, text="<?xml version=\"1.0\" encoding=\"utf-8\"?><root><![CDATA[抱歉，不能发送空消息]]></root>",
        headers={"content-type": "text/xml"}, request=httpx.Request("POST", "http://x/home.php"))
    )).__class__ is MessageEmpty
    assert key_for_text("您没有填写短消息内容，请返回。") == "pm_empty"
