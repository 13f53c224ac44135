"""Mobile-API viewthread JSON → posts, against the MANIFEST truth and the HTML pages."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from parsers.api_page import parse_thread_api
from parsers.errors import PageParseError
from parsers.models import ContentNotice, TimePrecision
from parsers.pages import read_page
from tests.parsers.test_html_page import GBK, TID1, TID2, _at

SH = ZoneInfo("Asia/Shanghai")


def _read(path):
    return read_page(path.read_bytes(), content_type="application/json", source=path.name)


API_PAGES = [
    # file, truth rows, page, total, viewer uid, formhash
    ("mobileapi-viewthread-tid2-page1.json", TID2, 1, 3, 0, "3df856a0"),
    ("mobileapi-viewthread-tid2-page2.json", TID2, 2, 3, 0, "3df856a0"),
    ("mobileapi-viewthread-tid2-page3.json", TID2, 3, 3, 0, "3df856a0"),
    ("mobileapi-viewthread-tid2-page1-loggedin.json", TID2, 1, 3, 3, "6099fb8b"),
    ("mobileapi-viewthread-tid2-page1-dateconvert-off.json", TID2, 1, 3, 0, "3df856a0"),
    ("mobileapi-viewthread-tid1-page1.json", TID1, 1, 2, 0, "3df856a0"),
]


@pytest.mark.parametrize(("name", "truth", "page", "total", "uid", "formhash"), API_PAGES,
                         ids=[p[0] for p in API_PAGES])
def test_parse_thread_api__manifest_truth(x3_dir, name, truth, page, total, uid, formhash) -> None:
    got = _read(x3_dir / name)
    rows = [r for r in truth if r[6] == page]
    assert [(p.floor, p.pid, p.author, p.author_uid, p.posted_at, p.quoted_pids) for p in got.posts] == [
        (r[0], r[1], r[2], r[3], _at(r[4]), (r[5],) if r[5] else ()) for r in rows]
    assert all(p.time_precision is TimePrecision.SECOND and p.source == "api" for p in got.posts)
    assert (got.page, got.total_pages, got.posts_per_page) == (page, total, 10)
    assert (got.viewer_uid, got.formhash, got.cookiepre, got.charset) == (uid, formhash, "yu57_2132_", "utf-8")
    assert got.source == "api" and got.closed is False


def test_parse_thread_api__floor_is_number_not_position(x3_dir) -> None:
    got = _read(x3_dir / "mobileapi-viewthread-tid2-ppp30.json")
    assert [(p.floor, p.pid) for p in got.posts] == [(r[0], r[1]) for r in TID2]
    # The DB position keeps the gap left by deleted pid 18.
    assert got.extras["positions"][19] == 18 and got.extras["positions"][17] == 16
    assert (got.page, got.total_pages, got.posts_per_page) == (1, 1, 30)


def test_parse_thread_api__notices_quotes_and_text(x3_dir) -> None:
    posts = {p.pid: p for p in _read(x3_dir / "mobileapi-viewthread-tid2-page2.json").posts}
    assert posts[13].notice is ContentNotice.BANNED_AUTHOR and posts[13].text == ""
    assert posts[17].notice is ContentNotice.POST_BLOCKED and posts[17].text == ""
    (quote,) = posts[15].quotes  # div.reply_wrap
    assert (quote.pid, quote.tid, quote.author) == (3, 2, "饺子")
    assert quote.text == "投票对象：包子\n投票理由：包子昨晚发言很可疑"
    assert posts[15].text == "改票对象：汤圆\n改票理由：汤圆改票太快了，可疑"


@pytest.mark.parametrize("page", [1, 2, 3])
def test_parse_thread_api__agrees_with_html_page(x3_dir, page) -> None:
    html = read_page((x3_dir / f"viewthread-tid2-page{page}.html").read_bytes())
    api = _read(x3_dir / f"mobileapi-viewthread-tid2-page{page}.json")
    for h, a in zip(html.posts, api.posts, strict=True):
        assert (h.pid, h.floor, h.author, h.author_uid, h.posted_at, h.quoted_pids, h.notice) == (
            a.pid, a.floor, a.author, a.author_uid, a.posted_at, a.quoted_pids, a.notice)
        if h.pid != 2:  # the API's first post carries an extra <br /> between paragraphs
            assert h.text == a.text, h.pid
        # The API strips the edit stamp; the HTML keeps it (pids 8 and 10).
        assert a.edited_by is None


def test_parse_thread_api__gbk_site(gbk_dir) -> None:
    got = _read(gbk_dir / "mobileapi-viewthread-tid1-page1.json")
    assert [(p.floor, p.pid, p.author, p.author_uid, p.posted_at, p.quoted_pids) for p in got.posts] == [
        (r[0], r[1], r[2], r[3], _at(r[4]), (r[5],) if r[5] else ()) for r in GBK]
    assert got.charset == "gbk"


def test_parse_thread_api__plain_text_edit_stamp_is_read() -> None:
    # v4 drops [i=s], so an edit stamp can arrive as plain text at the top of the message.
    obj = {"Variables": {"ppp": "10", "thread": {"tid": "2", "replies": "0"}, "postlist": [{
        "pid": "8", "tid": "2", "author": "月饼", "authorid": "9", "number": "1",
        "dbdateline": "1795969488",
        "message": " 本帖最后由 月饼 于 2026-11-30 00:26 编辑 <br />\r\n<br />\r\n投票对象：小笼包",
    }]}}
    (post,) = parse_thread_api(obj, tz=SH).posts
    assert (post.edited_by, post.edited_at) == ("月饼", datetime(2026, 11, 30, 0, 26, tzinfo=SH))
    assert post.text == "投票对象：小笼包"


@pytest.mark.parametrize(("name", "message"), [
    ("mobileapi-viewthread-tid9999-not-exist.json", "thread_nonexistence"),
    ("site-closed-mobileapi-viewthread.json", "论坛维护中，预计 10 分钟后恢复。"),
    ("mobileapi-sendreply-success.json", "post_reply_succeed"),
    ("mobileapi-forumdisplay-fid3.json", None),
])
def test_parse_thread_api__not_a_thread_answer(x3_dir, name, message) -> None:
    with pytest.raises(PageParseError) as caught:
        _read(x3_dir / name)
    assert caught.value.source == name and name in str(caught.value)
    assert caught.value.forum_message == message


@pytest.mark.parametrize("text", ["", "[]", "null", "{", '{"Variables": 3}',
                                  '{"Variables": {"postlist": [1]}}',
                                  '{"Variables": {"postlist": [{"pid": "x"}]}}',
                                  '{"Variables": {"postlist": [{"pid": "1", "dbdateline": "1e99"}]}}'])
def test_parse_thread_api__malformed_json(text) -> None:
    with pytest.raises(PageParseError, match="api.json"):
        parse_thread_api(text, tz=SH, source="api.json")


def test_parse_thread_api__accepts_dict_and_text(x3_dir) -> None:
    raw = (x3_dir / "mobileapi-viewthread-tid1-page1.json").read_text(encoding="utf-8")
    assert parse_thread_api(json.loads(raw), tz=SH) == parse_thread_api(raw, tz=SH)
