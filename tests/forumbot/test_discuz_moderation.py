"""Replies held for moderation. A real X3.5 answers such a reply with its pid:
``succeedhandle_fastpost(…, '回复需要审核，请等待通过', {'pid':'24','reply_mod':'1'})``
(issue 10) — the post exists but no one sees it. The client reports it as moderated, pid
and all, through the agent's publisher to the outbox; the marker lookup does not take a
post still awaiting a moderator, and finds it once released."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import httpx
import pytest

from forumbot.agent.loop import ClientPublisher
from forumbot.discuz import DiscuzClient, ReplyResult
from forumbot.store.outbox import Outbox
from forumbot.store import Store
from tests.forumbot.captured import Router, body_of, exchanges

pytestmark = pytest.mark.fixtures
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=timezone(timedelta(hours=8)))


def fastpost_answer(message: str, values: str) -> bytes:
    """The real X3.5 fast-reply answer (reply_fastpost_success_inajax) with the message and
    values a moderated reply gets instead."""
    real = body_of("discuz-x3", exchanges("discuz-x3")["reply_fastpost_success_inajax"]).decode("utf-8")
    start = real.index("', '") + 4
    end = real.index("});}")
    answer = real[:start] + message + "', {" + values + real[end:]
    assert answer != real and "succeedhandle_fastpost(" in answer
    return answer.replace("pid=16", "pid=24").encode("utf-8")


MODERATED = fastpost_answer("回复需要审核，请等待通过",
                            "'fid':'3','tid':'2','pid':'24','from':'','sechash':'','reply_mod':'1'")


def answering(body: bytes) -> Router:
    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/xml; charset=utf-8"}, content=body,
                              request=request)

    return Router().on("GET", "mod=viewthread", "viewthread_tid2_page1_loggedin").on("POST", "action=reply", serve)


def client_for(router: Router) -> DiscuzClient:
    http = httpx.Client(transport=httpx.MockTransport(router))
    http.cookies.set("yu57_2132_auth", "captured-session", domain="127.0.0.1")
    return DiscuzClient(http, "http://127.0.0.1:8080/", generation="x3", min_interval=0)


def test_discuz_moderation__x35_answer_with_pid_is_moderated():
    result = client_for(answering(MODERATED)).reply(2, "计票：包子 2 票，汤圆 1 票")
    assert result == ReplyResult(pid=24, moderated=True, page=2)


def test_discuz_moderation__reply_mod_flag_alone_is_enough():
    # A forum with its own wording (an edited language pack): the flag still tells.
    body = fastpost_answer("您的回复已提交", "'fid':'3','tid':'2','pid':'24','reply_mod':'1'")
    assert client_for(answering(body)).reply(2, "计票：包子 2 票，汤圆 1 票").moderated


def test_discuz_moderation__plain_success_is_not_moderated():
    real = body_of("discuz-x3", exchanges("discuz-x3")["reply_fastpost_success_inajax"])
    assert client_for(answering(real)).reply(2, "计票：包子 2 票").moderated is False


def test_discuz_moderation__the_outbox_records_it_through_the_agents_publisher(tmp_path):
    with Store(tmp_path / "game.sqlite") as store:
        outbox = Outbox(store)
        draft = outbox.create_draft("count_reply", 2, "计票：包子 2 票，汤圆 1 票", now=T0)
        [outcome] = outbox.publish_pending(ClientPublisher(client_for(answering(MODERATED))), T0)
        assert (outcome.pid, outcome.moderated, outcome.state.value) == (24, True, "pending_moderation")
        assert outbox.history(draft.id)[-1].detail == {"pid": 24, "moderated": True, "since_pid": 0}


# ---------------------------------------------------------------- the marker lookup

PAGE = "viewthread_tid2_page1_loggedin"
MARKER = "改票理由：包子也好吃"  # pid 11, by 汤圆 (uid 6): the "bot" of these tests


def page_with_pending(pid: int) -> bytes:
    """The real page with post ``pid`` marked 待审核, as Discuz shows a held post to its author."""
    data = body_of("discuz-x3", exchanges("discuz-x3")[PAGE])
    anchor = b'id="authorposton%d"' % pid
    at = data.index(b"</em>", data.index(anchor)) + len(b"</em>")
    return data[:at] + '<span class="xg1">待审核</span>'.encode() + data[at:]


def marker_client(body: bytes) -> DiscuzClient:
    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/html; charset=utf-8"}, content=body,
                              request=request)

    client = client_for(Router().on("GET", "mod=viewthread", serve))
    client.uid = 6
    return client


def test_discuz_moderation__a_post_awaiting_a_moderator_is_not_taken_as_published():
    client = marker_client(page_with_pending(11))
    assert client.find_post_by_marker(2, MARKER) is None
    held = client.find_post_by_marker(2, MARKER, include_pending=True)
    assert held is not None and held.pid == 11


def test_discuz_moderation__once_released_the_marker_finds_it():
    released = body_of("discuz-x3", exchanges("discuz-x3")[PAGE])
    found = marker_client(released).find_post_by_marker(2, MARKER)
    assert found is not None and found.pid == 11
    assert ClientPublisher(marker_client(released)).find_marker(2, MARKER) == 11
    assert ClientPublisher(marker_client(page_with_pending(11))).find_marker(2, MARKER) is None
