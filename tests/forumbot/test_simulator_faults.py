"""Fault injection and CC protection: what a client sees when the forum misbehaves."""

from __future__ import annotations

import httpx
import pytest

from forumbot.simulator import Fault
from tests.forumbot.simulator_support import (  # noqa: F401  (pytest fixtures)
    Forum,
    cdata,
    client,
    forum,
    formhash_of,
    login,
    reply_url,
)

TEXT = "投票对象：包子\n投票理由：很可疑"


def reply(forum: Forum, client: httpx.Client) -> httpx.Response:
    return client.post(reply_url(forum), data={"message": TEXT,
                                               "formhash": formhash_of(client, forum.tid)})


def test_fault__server_error_once_then_normal(forum: Forum, client: httpx.Client) -> None:
    forum.sim.faults.add(Fault.SERVER_ERROR, match="mod=viewthread", times=1, status=502)
    url = f"forum.php?mod=viewthread&tid={forum.tid}"
    assert client.get(url).status_code == 502
    assert client.get(url).status_code == 200
    assert client.get("forum.php").status_code == 200


def test_fault__match_limits_which_requests(forum: Forum, client: httpx.Client) -> None:
    forum.sim.faults.add(Fault.SERVER_ERROR, match="mod=post&action=reply", times=2)
    assert client.get(f"forum.php?mod=viewthread&tid={forum.tid}").status_code == 200
    login(client, "饺子")
    assert reply(forum, client).status_code == 500
    assert forum.sim.faults.pending[0].remaining == 1


def test_fault__slow_response_trips_client_timeout(forum: Forum, client: httpx.Client) -> None:
    forum.sim.faults.add(Fault.SLOW, delay=0.3)
    with pytest.raises(httpx.ReadTimeout):
        client.get("forum.php", timeout=0.1)
    assert client.get("forum.php", timeout=2).status_code == 200


def test_fault__drop_before_store_stores_nothing(forum: Forum, client: httpx.Client) -> None:
    login(client, "饺子")
    count = len(forum.sim.posts(forum.tid))
    forum.sim.faults.add(Fault.DROP_BEFORE_STORE, match="replysubmit=yes")
    with pytest.raises(httpx.RemoteProtocolError):
        reply(forum, client)
    assert len(forum.sim.posts(forum.tid)) == count


def test_fault__drop_after_store_keeps_the_post(forum: Forum, client: httpx.Client) -> None:
    login(client, "饺子")
    count = len(forum.sim.posts(forum.tid))
    forum.sim.faults.add(Fault.DROP_AFTER_STORE, match="replysubmit=yes")
    with pytest.raises(httpx.RemoteProtocolError):
        reply(forum, client)
    posts = forum.sim.posts(forum.tid)
    assert len(posts) == count + 1 and posts[-1].author == "饺子" and posts[-1].message == TEXT


def test_fault__truncated_page(forum: Forum, client: httpx.Client) -> None:
    url = f"forum.php?mod=viewthread&tid={forum.tid}"
    whole = client.get(url).content
    forum.sim.faults.add(Fault.TRUNCATE, match="mod=viewthread")
    cut = client.get(url).content
    assert 0 < len(cut) < len(whole) and b"</html>" not in cut
    assert whole.startswith(cut[:200])


def test_fault__session_expire_makes_viewer_a_guest(forum: Forum, client: httpx.Client) -> None:
    login(client, "饺子")
    url = f"forum.php?mod=viewthread&tid={forum.tid}"
    assert "discuz_uid = '3'" in client.get(url).text
    forum.sim.faults.add(Fault.SESSION_EXPIRE)
    assert "discuz_uid = '0'" in client.get(url).text
    assert forum.sim.requests[-1].user is None
    login(client, "饺子")
    assert "discuz_uid = '3'" in client.get(url).text


def test_fault__site_closed_for_one_request(forum: Forum, client: httpx.Client) -> None:
    forum.sim.faults.add(Fault.SITE_CLOSED, reason="论坛维护中，预计 10 分钟后恢复。")
    r = client.get(f"forum.php?mod=viewthread&tid={forum.tid}")
    assert '<div id="messagetext" class="alert_error">\r\n<p>论坛维护中，预计 10 分钟后恢复。</p>' in r.text
    assert 'id="thread_subject"' in client.get(f"forum.php?mod=viewthread&tid={forum.tid}").text


def test_site_closed__login_page_still_works(forum: Forum, client: httpx.Client) -> None:
    forum.sim.settings.site_closed = "关站"
    assert "<p>关站</p>" in client.get("forum.php").text
    assert 'name="loginsubmit"' in client.get("member.php?mod=logging&action=login").text


def test_cc_protection__requests_under_a_second_apart(forum: Forum, client: httpx.Client) -> None:
    forum.sim.settings.cc_protection = True
    url = f"forum.php?mod=viewthread&tid={forum.tid}"
    assert 'id="thread_subject"' in client.get(url).text
    blocked = client.get(url).text
    assert "&#x9891;&#x7e41;&#x5237;&#x65b0;&#x9650;&#x5236;" in blocked  # 频繁刷新限制
    assert 'id="thread_subject"' not in blocked
    forum.clock.advance(seconds=1)
    assert 'id="thread_subject"' in client.get(url).text


def test_fault__times_must_be_positive(forum: Forum) -> None:
    with pytest.raises(ValueError):
        forum.sim.faults.add(Fault.SLOW, times=0)
