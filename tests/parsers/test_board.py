"""The board listing parser on the real captures (X3.5 HTML guest and logged in, X3.5
mobile API, 7.2 guest and logged in), their GBK twins, and the pages that are no listing."""

from __future__ import annotations

from datetime import datetime

import pytest

from parsers import PageParseError, TimePrecision
from parsers.board import BoardPage, read_board
from parsers.pages import FORUM_TZ
from tests.support import fixture_file

TZ = FORUM_TZ


def _read(fixture_set: str, name: str, *, content_type: str | None = None) -> BoardPage:
    data = fixture_file(fixture_set, name).read_bytes()
    return read_board(data, content_type=content_type, source=name, tz=TZ)


def test_board__x3_html_guest_lists_both_threads_with_counts_and_last_posts() -> None:
    page = _read("discuz-x3", "forumdisplay-fid3.html")
    assert (page.fid, page.page, page.total_pages, page.viewer_uid) == (3, 1, 1, 0)
    assert page.name == "版杀区" and page.source == "html" and page.formhash == "3df856a0"
    assert [t.tid for t in page.threads] == [1, 2]  # newest last post first
    discussion, votes = page.threads
    assert discussion.subject == "【饺子村】第一日 讨论帖"
    assert (discussion.author, discussion.author_uid) == ("导演", 2)
    assert (discussion.replies, discussion.last_poster) == (13, "包子")
    assert discussion.last_post_at == datetime(2026, 11, 30, 0, 27, tzinfo=TZ)
    assert discussion.last_post_precision is TimePrecision.MINUTE
    assert (votes.replies, votes.last_poster) == (27, "导演")
    assert votes.last_post_at == datetime(2026, 11, 30, 0, 26, tzinfo=TZ)
    assert not any(t.sticky or t.closed for t in page.threads)


def test_board__x3_html_logged_in_reads_the_same_rows_and_the_viewer() -> None:
    guest = _read("discuz-x3", "forumdisplay-fid3.html")
    bot = _read("discuz-x3", "forumdisplay-fid3-loggedin.html")
    assert bot.viewer_uid == 3
    assert bot.threads == guest.threads


def test_board__x3_api_gives_seconds_and_the_page_size() -> None:
    page = _read("discuz-x3", "mobileapi-forumdisplay-fid3.json")
    assert (page.fid, page.source, page.threads_per_page, page.total_pages) == (3, "api", 20, 1)
    assert [(t.tid, t.replies, t.last_poster) for t in page.threads] == [
        (1, 13, "包子"), (2, 27, "导演")]
    assert page.threads[0].last_post_at == datetime.fromtimestamp(1795969621, TZ)
    assert page.threads[0].last_post_precision is TimePrecision.SECOND
    html = _read("discuz-x3", "forumdisplay-fid3.html")
    # The same minute as the HTML listing shows: one forum, two dresses.
    for api_row, html_row in zip(page.threads, html.threads, strict=True):
        assert api_row.last_post_at.replace(second=0) == html_row.last_post_at  # type: ignore[union-attr]
        assert (api_row.subject, api_row.author, api_row.replies) == (
            html_row.subject, html_row.author, html_row.replies)


@pytest.mark.parametrize("name,uid", [("guest_forumdisplay.html", 0),
                                      ("toupiaoji_forumdisplay.html", 3)])
def test_board__d72_forumdisplay(name: str, uid: int) -> None:
    page = _read("discuz-7.2", name)
    assert (page.fid, page.viewer_uid, page.name) == (3, uid, "版杀区")
    (row,) = page.threads
    assert (row.tid, row.subject, row.author, row.author_uid) == (1, "【版杀】第一局 白天投票帖", "导演", 2)
    assert (row.replies, row.last_poster) == (27, "投票机")
    assert row.last_post_at == datetime(2026, 12, 1, 9, 17, tzinfo=TZ)


def _as_gbk(data: bytes) -> bytes:
    text = data.decode("utf-8").replace("charset=utf-8", "charset=gbk").replace(
        "charset=UTF-8", "charset=gbk")
    return text.encode("gbk")


@pytest.mark.parametrize("fixture_set,name", [("discuz-x3", "forumdisplay-fid3.html"),
                                              ("discuz-7.2", "guest_forumdisplay.html")])
@pytest.mark.parametrize("content_type", ["text/html; charset=gbk", "text/html", None])
def test_board__gbk_listings_read_like_their_utf8_originals(
        fixture_set: str, name: str, content_type: str | None) -> None:
    # No GBK forumdisplay was captured: the UTF-8 capture in GBK bytes is what a GBK forum
    # (7.2's common edition) serves — with or without the charset in its header.
    original = fixture_file(fixture_set, name).read_bytes()
    page = read_board(_as_gbk(original), content_type=content_type, source=name, tz=TZ)
    assert page.charset == "gbk"
    assert page.threads == read_board(original, source=name, tz=TZ).threads


def test_board__a_missing_board_is_refused_in_the_forums_words() -> None:
    with pytest.raises(PageParseError) as caught:
        _read("discuz-x3", "forumdisplay-fid999-not-exist.html")
    assert caught.value.forum_message == "抱歉，指定的版块不存在"  # type: ignore[attr-defined]


@pytest.mark.parametrize("fixture_set,name", [("discuz-x3", "viewthread-tid2-page1.html"),
                                              ("discuz-x3", "mobileapi-viewthread-tid2-page1.json"),
                                              ("discuz-7.2", "guest_index.html")])
def test_board__a_page_that_is_no_listing_is_refused(fixture_set: str, name: str) -> None:
    with pytest.raises(PageParseError):
        _read(fixture_set, name)


def test_board__garbage_never_raises_anything_but_page_parse_error() -> None:
    for data in (b"", b"   ", b"{", b"[1,2]", b"<html><table summary='forum_x'></table></html>",
                 b'{"Variables": {"forum_threadlist": [{"tid": "a"}]}}', b"\xff\xfe\x00"):
        with pytest.raises(PageParseError):
            read_board(data, tz=TZ)
