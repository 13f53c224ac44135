"""Thread pages, lists and redirects over real HTTP, checked with lxml like a parser would."""

from __future__ import annotations

import re

import httpx
import lxml.html
import pytest

from tests.forumbot.simulator_support import (  # noqa: F401  (pytest fixtures)
    START,
    Forum,
    client,
    forum,
    login,
)


def tree(response: httpx.Response) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(response.content)


def floors(doc: lxml.html.HtmlElement) -> list[str]:
    return ["".join(a.itertext()).strip() for a in doc.xpath('//a[starts-with(@id,"postnum")]')]


def test_viewthread__floor_labels_then_numbers(forum: Forum, client: httpx.Client) -> None:
    for i in range(3):
        forum.sim.add_post(forum.tid, "汤圆", f"闲聊第 {i} 条消息")
    doc = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}"))
    assert floors(doc) == ["楼主", "沙发", "板凳", "地板", "5#", "6#", "7#", "8#"]
    em = doc.xpath('//a[starts-with(@id,"postnum")]/em')[0]
    assert em.text == "5" and em.getnext().tag == "sup"


def test_viewthread__post_skeleton_ids_and_links(forum: Forum, client: httpx.Client) -> None:
    posts = forum.sim.posts(forum.tid)
    first, reply = posts[0].pid, posts[1].pid
    doc = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}"))
    table = doc.get_element_by_id(f"pid{reply}")
    assert table.get("class") == "plhin" and table.getparent().get("id") == f"post_{reply}"
    assert doc.get_element_by_id(f"postnum{first}").get("href") == (
        f"forum.php?mod=viewthread&tid={forum.tid}")
    assert doc.get_element_by_id(f"postnum{reply}").get("href") == (
        f"forum.php?mod=redirect&goto=findpost&ptid={forum.tid}&pid={reply}")
    cell = doc.get_element_by_id(f"postmessage_{reply}")
    assert cell.get("class") == "t_f" and "投票对象：包子" in cell.text_content()
    author = doc.xpath(f'//div[@id="favatar{reply}"]//div[@class="authi"]/a')[0]
    assert author.text == "饺子" and author.get("href").endswith("uid=3")
    assert doc.get_element_by_id("thread_subject").text == "【饺子村】第一日 投票帖"


def test_viewthread__time_span_is_relative_with_absolute_title(forum: Forum,
                                                               client: httpx.Client) -> None:
    pid = forum.sim.posts(forum.tid)[1].pid
    doc = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}"))
    span = doc.xpath(f'//em[@id="authorposton{pid}"]/span')[0]
    assert span.get("title") == "2026-11-30 09:00:00"
    assert span.text == "10\xa0分钟前"
    forum.clock.advance(days=1)
    doc = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}"))
    assert doc.xpath(f'//em[@id="authorposton{pid}"]/span')[0].text == "昨天\xa009:00"


def test_viewthread__dateconvert_off_prints_minutes(forum: Forum, client: httpx.Client) -> None:
    forum.sim.settings.dateconvert = False
    pid = forum.sim.posts(forum.tid)[1].pid
    doc = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}"))
    em = doc.get_element_by_id(f"authorposton{pid}")
    assert em.text_content() == "发表于 2026-11-30 09:00" and not em.xpath("span")


def test_viewthread__pages_and_clamp_past_the_end(forum: Forum, client: httpx.Client) -> None:
    for i in range(20):
        forum.sim.add_post(forum.tid, "包子", f"第 {i} 条补充发言")
    # 25 posts, 10 per page → 3 pages
    page2 = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}&page=2"))
    assert page2.xpath('//div[@class="pg"]/strong')[0].text == "2"
    assert page2.xpath('//div[@class="pg"]//span/@title')[0] == "共 3 页"
    assert page2.xpath('//div[@class="pg"]/a[@class="nxt"]')
    assert floors(page2)[0] == "11#"
    beyond = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}&page=9"))
    assert beyond.xpath('//div[@class="pg"]/strong')[0].text == "3"
    assert len(floors(beyond)) == 5 and floors(beyond)[-1] == "25#"
    assert not beyond.xpath('//div[@class="pg"]/a[@class="nxt"]')


def test_viewthread__single_page_has_no_pager(forum: Forum, client: httpx.Client) -> None:
    assert not tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}")).xpath(
        '//div[@class="pg"]')


def test_viewthread__guest_and_logged_in_markers(forum: Forum, client: httpx.Client) -> None:
    guest = client.get(f"forum.php?mod=viewthread&tid={forum.tid}").text
    assert "discuz_uid = '0'" in guest
    assert f"cookiepre = '{forum.sim.cookiepre}'" in guest
    assert "action=logout" not in guest and 'id="lsform"' in guest
    guest_hash = re.search(r'name="formhash" value="(\w{8})"', guest).group(1)
    login(client, "计票机器人")
    page = client.get(f"forum.php?mod=viewthread&tid={forum.tid}").text
    assert "discuz_uid = '2'" in page
    logout = re.search(r"action=logout&amp;formhash=(\w{8})", page)
    assert logout and logout.group(1) != guest_hash, "formhash changes at login"
    doc = lxml.html.fromstring(page)
    form = doc.get_element_by_id("fastpostform")
    assert form.get("action").endswith("replysubmit=yes&infloat=yes&handlekey=fastpost")
    assert {i.get("name") for i in form.xpath(".//input")} >= {"formhash", "posttime",
                                                                "usesig", "subject"}


def test_viewthread__closed_thread_markers(forum: Forum, client: httpx.Client) -> None:
    forum.sim.close_thread(forum.tid)
    login(client, "饺子")
    page = client.get(f"forum.php?mod=viewthread&tid={forum.tid}").text
    assert 'class="fico-lock fc-s" title="关闭"' in page
    assert 'id="fastpostform"' not in page and "抱歉，本主题已关闭，不再接受新内容" in page


def test_viewthread__banned_author_and_blocked_post(forum: Forum, client: httpx.Client) -> None:
    pid = forum.sim.add_post(forum.tid, "路人甲", "投票: 饺子 我觉得饺子是狼")
    blocked = forum.sim.add_post(forum.tid, "包子", "骂人的话骂人的话")
    forum.sim.ban_user("路人甲")
    forum.sim.block_post(blocked)
    doc = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}"))
    locked = {p: doc.xpath(f'//div[@id="post_{p}"]//div[@class="locked"]')[0].text_content()
              for p in (pid, blocked)}
    assert locked == {pid: "提示: 作者被禁止或删除 内容自动屏蔽", blocked: "提示: 该帖被管理员或版主屏蔽"}
    assert not doc.xpath(f'//*[@id="postmessage_{pid}"]')


def test_viewthread__deleted_post_shifts_floors(forum: Forum, client: httpx.Client) -> None:
    posts = forum.sim.posts(forum.tid)
    forum.sim.delete_post(posts[1].pid)
    doc = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}"))
    assert floors(doc) == ["楼主", "沙发", "板凳", "地板"]
    assert not doc.xpath(f'//*[@id="post_{posts[1].pid}"]')


def test_viewthread__only_author_renumbers(forum: Forum, client: httpx.Client) -> None:
    doc = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}&page=1&authorid=4"))
    authors = doc.xpath('//div[contains(@class,"favatar")]//div[@class="authi"]/a/text()')
    assert set(authors) == {"包子"} and floors(doc) == ["楼主"]


def test_viewthread__reverse_order_keeps_first_post_on_top(forum: Forum,
                                                          client: httpx.Client) -> None:
    posts = forum.sim.posts(forum.tid)
    doc = tree(client.get(f"forum.php?mod=viewthread&tid={forum.tid}&ordertype=1"))
    ids = [int(d.get("id")[5:]) for d in doc.xpath('//div[starts-with(@id,"post_")]')
           if d.get("id")[5:].isdigit()]
    assert ids == [posts[0].pid] + [p.pid for p in reversed(posts[1:])]
    assert floors(doc)[:2] == ["#", "5#"]


@pytest.mark.parametrize("ajax", [False, True], ids=["html", "inajax"])
def test_viewthread__missing_thread_is_404(client: httpx.Client, ajax: bool) -> None:
    r = client.get("forum.php?mod=viewthread&tid=9999" + ("&inajax=1" if ajax else ""))
    assert r.status_code == 404
    assert "抱歉，指定的主题不存在或已被删除或正在被审核" in r.text
    if ajax:
        assert r.headers["content-type"] == "text/xml; charset=utf-8"
        assert 'class="alert_error"' in r.text and "errorhandle_(" in r.text
    else:
        assert tree(r).get_element_by_id("messagetext").get("class") == "alert_error"


def test_redirect__findpost_is_301_to_its_page(forum: Forum, client: httpx.Client) -> None:
    pids = [forum.sim.add_post(forum.tid, "包子", f"第 {i} 条补充发言") for i in range(10)]
    r = client.get(f"forum.php?mod=redirect&goto=findpost&ptid={forum.tid}&pid={pids[-1]}")
    assert r.status_code == 301
    assert r.headers["location"] == f"forum.php?mod=viewthread&tid={forum.tid}&page=2#pid{pids[-1]}"


def test_redirect__lastpost_is_302(forum: Forum, client: httpx.Client) -> None:
    r = client.get(f"forum.php?mod=redirect&tid={forum.tid}&goto=lastpost")
    assert r.status_code == 302 and r.headers["location"].endswith("page=1#lastpost")


def test_forum_index_and_thread_list(forum: Forum, client: httpx.Client) -> None:
    index = client.get("forum.php")
    assert index.status_code == 200 and "版杀区" in index.text
    listing = tree(client.get(f"forum.php?mod=forumdisplay&fid={forum.fid}"))
    row = listing.get_element_by_id(f"normalthread_{forum.tid}")
    assert row.xpath('.//a[@class="s xst"]')[0].text == "【饺子村】第一日 投票帖"
    missing = client.get("forum.php?mod=forumdisplay&fid=999")
    assert missing.status_code == 200 and "抱歉，指定的版块不存在" in missing.text


def test_message_page__uses_crlf_and_charset_meta(forum: Forum, client: httpx.Client) -> None:
    r = client.get(f"forum.php?mod=viewthread&tid={forum.tid}")
    assert b"\r\n" in r.content and b'<meta charset="utf-8" />' in r.content
    assert r.headers["content-type"] == "text/html; charset=utf-8"


def test_cookies__real_names_with_prefix(forum: Forum, client: httpx.Client) -> None:
    r = client.get("forum.php")
    names = {c.split("=", 1)[0] for c in r.headers.get_list("set-cookie")}
    pre = forum.sim.cookiepre
    assert {pre + "saltkey", pre + "lastvisit", pre + "sid", pre + "lastact"} <= names
    assert re.fullmatch(r"[A-Za-z0-9]{4}_2132_", pre)


def test_requests__are_recorded_with_user_and_time(forum: Forum, client: httpx.Client) -> None:
    client.get(f"forum.php?mod=viewthread&tid={forum.tid}&page=1")
    login(client, "饺子")
    client.get(f"forum.php?mod=viewthread&tid={forum.tid}")
    first, _, last = forum.sim.requests[-3:]
    assert (first.method, first.path, first.query["page"], first.user) == (
        "GET", "/forum.php", "1", None)
    assert last.user == "饺子" and last.status == 200 and last.at == forum.clock.now()
    assert START < last.at
