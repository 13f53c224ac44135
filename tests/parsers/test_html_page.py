"""Desktop thread pages → posts, against the MANIFEST ground truth of discuz-x3(-gbk)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from parsers.errors import PageParseError
from parsers.html_page import parse_thread_html
from parsers.models import ContentNotice, Font, ThreadPage, TimePrecision
from parsers.pages import read_page

SH = ZoneInfo("Asia/Shanghai")

# MANIFEST "Ground truth: tid 2 voting thread": floor shown, pid, author, uid, span title,
# quoted pid, guest page.
TID2 = [
    (1, 2, "导演", 2, "2026-11-30 00:24:24", None, 1),
    (2, 3, "饺子", 4, "2026-11-30 00:24:47", None, 1),
    (3, 4, "包子", 5, "2026-11-30 00:24:48", None, 1),
    (4, 5, "汤圆", 6, "2026-11-30 00:24:48", None, 1),
    (5, 6, "Alice", 7, "2026-11-30 00:24:48", None, 1),
    (6, 7, "bob_2", 8, "2026-11-30 00:24:48", None, 1),
    (7, 8, "月饼", 9, "2026-11-30 00:24:48", None, 1),
    (8, 9, "小笼包", 10, "2026-11-30 00:24:48", None, 1),
    (9, 10, "烧卖", 11, "2026-11-30 00:24:48", None, 1),
    (10, 11, "汤圆", 6, "2026-11-30 00:25:04", 5, 1),
    (11, 12, "计票机器人", 3, "2026-11-30 00:25:20", None, 2),
    (12, 13, "路人甲", 12, "2026-11-30 00:25:21", None, 2),
    (13, 14, "bob_2", 8, "2026-11-30 00:25:21", None, 2),
    (14, 15, "饺子", 4, "2026-11-30 00:25:21", 3, 2),
    (15, 16, "烧卖", 11, "2026-11-30 00:25:21", None, 2),
    (16, 17, "包子", 5, "2026-11-30 00:25:38", None, 2),
    (17, 19, "Alice", 7, "2026-11-30 00:25:38", 6, 2),
    (18, 20, "导演", 2, "2026-11-30 00:25:38", None, 2),
    (19, 21, "小笼包", 10, "2026-11-30 00:25:38", None, 2),
    (20, 22, "汤圆", 6, "2026-11-30 00:25:38", None, 2),
    (21, 23, "计票机器人", 3, "2026-11-30 00:25:44", None, 3),
    (22, 24, "月饼", 9, "2026-11-30 00:25:54", 8, 3),
    (23, 25, "bob_2", 8, "2026-11-30 00:25:54", 14, 3),
    (24, 26, "饺子", 4, "2026-11-30 00:25:54", None, 3),
    (25, 27, "导演", 2, "2026-11-30 00:25:54", None, 3),
    (26, 28, "烧卖", 11, "2026-11-30 00:25:54", None, 3),
    (27, 29, "计票机器人", 3, "2026-11-30 00:26:08", None, 3),
    (28, 30, "导演", 2, "2026-11-30 00:26:10", None, 3),
]
# MANIFEST "Ground truth: tid 1 discussion thread".
TID1 = [
    (1, 1, "导演", 2, "2026-11-30 00:24:08", None, 1),
    (2, 31, "饺子", 4, "2026-11-30 00:26:44", None, 1),
    (3, 32, "包子", 5, "2026-11-30 00:26:44", None, 1),
    (4, 33, "汤圆", 6, "2026-11-30 00:26:44", None, 1),
    (5, 34, "Alice", 7, "2026-11-30 00:26:44", 32, 1),
    (6, 35, "bob_2", 8, "2026-11-30 00:26:45", None, 1),
    (7, 36, "月饼", 9, "2026-11-30 00:26:45", None, 1),
    (8, 37, "小笼包", 10, "2026-11-30 00:26:45", None, 1),
    (9, 38, "烧卖", 11, "2026-11-30 00:26:45", None, 1),
    (10, 39, "导演", 2, "2026-11-30 00:26:45", None, 1),
    (11, 40, "饺子", 4, "2026-11-30 00:27:00", None, 2),
    (12, 41, "汤圆", 6, "2026-11-30 00:27:00", None, 2),
    (13, 42, "Alice", 7, "2026-11-30 00:27:01", None, 2),
    (14, 43, "包子", 5, "2026-11-30 00:27:01", None, 2),
]
# discuz-x3-gbk MANIFEST.
GBK = [
    (1, 1, "导演", 2, "2026-11-30 00:33:54", None, 1),
    (2, 2, "饺子", 3, "2026-11-30 00:34:00", None, 1),
    (3, 3, "包子", 4, "2026-11-30 00:34:00", None, 1),
    (4, 4, "导演", 2, "2026-11-30 00:34:10", None, 1),
    (5, 5, "饺子", 3, "2026-11-30 00:34:16", 2, 1),
]
NOTICES = {13: ContentNotice.BANNED_AUTHOR, 17: ContentNotice.POST_BLOCKED}
EDITS = {8: ("月饼", "2026-11-30 00:26"), 10: ("烧卖", "2026-11-30 00:26")}
FORMHASH = {"guest": "3df856a0", "bot": "6099fb8b", "tangyuan": "39a1a53c"}


def _at(text: str) -> datetime:
    fmt = "%Y-%m-%d %H:%M:%S" if text.count(":") == 2 else "%Y-%m-%d %H:%M"
    return datetime.strptime(text, fmt).replace(tzinfo=SH)


def _read(path: Path, **kwargs) -> ThreadPage:
    return read_page(path.read_bytes(), source=path.name, **kwargs)


def _assert_posts(page: ThreadPage, rows: list[tuple], *, precision=TimePrecision.SECOND) -> None:
    got = [(p.floor, p.pid, p.author, p.author_uid) for p in page.posts]
    assert got == [(r[0], r[1], r[2], r[3]) for r in rows]
    for post, row in zip(page.posts, rows):
        expected = _at(row[4])
        if precision is TimePrecision.MINUTE:
            expected = expected.replace(second=0)
        assert post.posted_at == expected, post.pid
        assert post.posted_at.utcoffset() is not None
        assert post.time_precision is precision, post.pid
        assert post.quoted_pids == ((row[5],) if row[5] else ()), post.pid
        expected_notice = NOTICES.get(post.pid) if page.tid == 2 else None
        assert post.notice is expected_notice, post.pid
        if page.tid == 2 and post.pid in EDITS:
            assert (post.edited_by, post.edited_at) == (EDITS[post.pid][0], _at(EDITS[post.pid][1]))
        else:
            assert post.edited_by is None and post.edited_at is None, post.pid
        assert post.tid == page.tid and post.source == "html"


PAGES = [
    # file, truth, page, total, viewer uid, formhash, closed
    ("viewthread-tid2-page1.html", TID2, 1, 3, 0, "guest", False),
    ("viewthread-tid2-page2.html", TID2, 2, 3, 0, "guest", False),
    ("viewthread-tid2-page3.html", TID2, 3, 3, 0, "guest", False),
    ("viewthread-tid2-page1-loggedin.html", TID2, 1, 3, 3, "bot", False),
    ("viewthread-tid2-page2-loggedin.html", TID2, 2, 3, 3, "bot", False),
    ("viewthread-tid2-page3-loggedin.html", TID2, 3, 3, 3, "bot", False),
    ("viewthread-tid2-page1-closed.html", TID2, 1, 3, 0, "guest", True),
    ("viewthread-tid2-page3-closed-loggedin.html", TID2, 3, 3, 6, "tangyuan", True),
    ("viewthread-tid2-page9-beyond-last.html", TID2, 3, 3, 0, "guest", False),
    ("viewthread-tid1-page1.html", TID1, 1, 2, 0, "guest", False),
    ("viewthread-tid1-page2.html", TID1, 2, 2, 0, "guest", False),
    ("viewthread-tid1-page1-loggedin.html", TID1, 1, 2, 3, "bot", False),
    ("viewthread-tid1-page2-loggedin.html", TID1, 2, 2, 3, "bot", False),
]


@pytest.mark.parametrize(("name", "truth", "page", "total", "uid", "who", "closed"), PAGES,
                         ids=[p[0] for p in PAGES])
def test_read_page__manifest_truth(x3_dir, name, truth, page, total, uid, who, closed) -> None:
    got = _read(x3_dir / name)
    _assert_posts(got, [r for r in truth if r[6] == page])
    assert (got.tid, got.page, got.total_pages) == (1 if truth is TID1 else 2, page, total)
    assert got.viewer_uid == uid
    assert got.formhash == FORMHASH[who]
    assert got.closed is closed
    assert got.cookiepre == "yu57_2132_"
    assert got.charset == "utf-8"
    assert got.subject == ("【饺子村】第一日 投票帖" if truth is TID2 else "【饺子村】第一日 讨论帖")


def test_read_page__dateconvert_off_gives_minutes(x3_dir) -> None:
    got = _read(x3_dir / "viewthread-tid2-page1-dateconvert-off.html")
    _assert_posts(got, [r for r in TID2 if r[6] == 1], precision=TimePrecision.MINUTE)


def test_read_page__reverse_order_first_post_is_floor_1(x3_dir) -> None:
    got = _read(x3_dir / "viewthread-tid2-ordertype1-reverse.html")
    expected = [(1, 2)] + [(floor, pid) for floor, pid in zip(range(28, 18, -1), range(30, 20, -1))]
    assert [(p.floor, p.pid) for p in got.posts] == expected
    assert (got.page, got.total_pages) == (1, 3)


def test_read_page__authorid_filter_renumbers_floors(x3_dir) -> None:
    got = _read(x3_dir / "viewthread-tid2-authorid5.html")
    assert [(p.floor, p.pid, p.author, p.author_uid) for p in got.posts] == [
        (1, 4, "包子", 5), (2, 17, "包子", 5)]
    assert got.posts[1].notice is ContentNotice.POST_BLOCKED
    assert (got.page, got.total_pages) == (1, 1)


@pytest.mark.parametrize(("name", "uid", "formhash"), [
    ("viewthread-tid1-page1.html", 0, "ac94ed9d"),
    ("viewthread-tid1-page1-loggedin.html", 3, "8f406744"),
])
def test_read_page__gbk_page(gbk_dir, name, uid, formhash) -> None:
    got = _read(gbk_dir / name, content_type="text/html; charset=gbk")
    assert [(p.floor, p.pid, p.author, p.author_uid, p.posted_at, p.quoted_pids) for p in got.posts] == [
        (r[0], r[1], r[2], r[3], _at(r[4]), (r[5],) if r[5] else ()) for r in GBK]
    assert got.charset == "gbk"
    assert (got.viewer_uid, got.formhash, got.cookiepre) == (uid, formhash, "af2V_2132_")
    assert got.subject == "【饺子村GBK】第一日 投票帖"
    assert got.posts[4].text == "改票对象：汤圆\n改票理由：测试引用改票（GBK）"
    # Without the header the meta tag decides, with the same result.
    assert _read(gbk_dir / name).posts == got.posts


def test_message__own_text_without_quote(x3_dir) -> None:
    posts = {p.pid: p for p in _read(x3_dir / "viewthread-tid2-page2.html").posts}
    change = posts[15]
    assert change.text == "改票对象：汤圆\n改票理由：汤圆改票太快了，可疑"
    (quote,) = change.quotes
    assert (quote.pid, quote.tid, quote.author) == (3, 2, "饺子")
    assert quote.quoted_at == datetime(2026, 11, 30, 0, 24, tzinfo=SH)
    assert quote.text == "投票对象：包子\n投票理由：包子昨晚发言很可疑"
    assert "postmessage" not in change.html and "div class=\"quote\"" in change.html
    assert posts[13].text == "" and "作者被禁止或删除" in posts[13].html


def test_message__edit_stamp_removed_fonts_links_images(x3_dir) -> None:
    posts = {p.pid: p for p in _read(x3_dir / "viewthread-tid2-page1.html").posts}
    assert posts[8].text == "投票对象：小笼包\n投票理由：小笼包一整天都不说话\n（更正：上面打错字了，是小笼包）"
    assert "本帖最后由" not in posts[8].text and "本帖最后由" in posts[8].html
    assert posts[9].fonts == (Font(color="Red"), Font(size="6"))
    assert posts[9].text == "投票对象：月饼\n投票理由：月饼踩我，我反踩！"
    assert posts[10].links == ("http://127.0.0.1:8080/forum.php?mod=viewthread&tid=1",)
    assert posts[10].images == ("http://127.0.0.1:8080/static/image/common/logo.png",)
    assert posts[2].fonts == () and posts[2].links == () and posts[2].images == ()
    assert "\r" not in posts[2].text and posts[2].text.startswith("【饺子村】第一日 投票帖\n\n投票格式")


def test_message__smiley_is_not_an_image_and_nbsp_is_space(x3_dir) -> None:
    posts = {p.pid: p for p in _read(x3_dir / "viewthread-tid1-page1.html").posts}
    assert posts[32].images == ()
    assert posts[34].quotes[0].text == "我觉得汤圆今天有点划水  一直不说话"
    assert posts[35].links == ()  # a bare URL is not auto-linked by Discuz
    assert posts[36].text == "我的站边\n1. 饺子：好人\n2. 包子：狼面大\n3. 小笼包：待定\n仅供参考"


def test_read_page__relative_time_without_title_needs_now(x3_dir) -> None:
    text = (x3_dir / "viewthread-tid2-page1.html").read_text(encoding="utf-8")
    # Strip the title of pid 3's time, leaving only "2&nbsp;分钟前".
    mangled = text.replace('<span title="2026-11-30 00:24:47">2&nbsp;分钟前</span>', "2&nbsp;分钟前")
    assert mangled != text
    with pytest.raises(PageParseError, match=r"page1\.html: pid 3 的帖子：相对时间"):
        parse_thread_html(mangled, tz=SH, source="page1.html")
    now = datetime(2026, 11, 30, 0, 26, 50, tzinfo=SH)
    page = parse_thread_html(mangled, tz=SH, now=now)
    post = next(p for p in page.posts if p.pid == 3)
    assert (post.posted_at, post.time_precision) == (
        datetime(2026, 11, 30, 0, 24, tzinfo=SH), TimePrecision.MINUTE)


def test_read_page__deleted_floor_is_listed_not_a_post(x3_dir) -> None:
    text = (x3_dir / "viewthread-tid2-page2.html").read_text(encoding="utf-8")
    # Render pid 14 the way Discuz renders a deleted floor: table without class plhin.
    start = text.index('<div id="post_14" >')
    end = text.index('<div id="post_15" >')
    deleted = ('<div id="post_14" ><table id="pid14" summary="pid14"><tr><td class="plc">'
               '<div class="pi"><strong><a href="forum.php?mod=redirect&goto=findpost&ptid=2&pid=14"'
               ' id="postnum14"><em>13</em><sup>#</sup></a></strong></div>'
               '<div class="pct">无效楼层，该帖已经被删除</div></td></tr></table></div>')
    page = parse_thread_html(text[:start] + deleted + text[end:], tz=SH)
    assert 14 not in [p.pid for p in page.posts]
    assert page.extras["deleted_floors"] == ((14, 13),)
    assert len(page.posts) == 9


@pytest.mark.parametrize(("name", "message"), [
    ("viewthread-tid9999-not-exist.html", "抱歉，指定的主题不存在或已被删除或正在被审核"),
    ("viewthread-tid9999-not-exist-inajax.xml", "抱歉，指定的主题不存在或已被删除或正在被审核"),
    ("site-closed-viewthread-guest.html", "论坛维护中，预计 10 分钟后恢复。"),
    ("site-closed-viewthread-loggedin.html", "论坛维护中，预计 10 分钟后恢复。"),
    ("site-closed-reply-inajax.xml", "论坛维护中，预计 10 分钟后恢复。"),  # bare CDATA text
])
def test_read_page__forum_message_pages(x3_dir, name, message) -> None:
    with pytest.raises(PageParseError) as caught:
        _read(x3_dir / name)
    assert caught.value.source == name
    assert caught.value.forum_message == message
    assert name in str(caught.value) and message in str(caught.value)


@pytest.mark.parametrize("name", ["viewthread-tid2-page1-touch-mobile2.html",
                                  "viewthread-tid2-page3-touch-mobile2.html"])
def test_read_page__touch_template_is_a_clear_error(x3_dir, name) -> None:
    # Decision: touch (mobile=2) pages have no absolute times and no post_PID divs;
    # they are refused with a message pointing at the desktop page or the API.
    with pytest.raises(PageParseError, match=r"触屏版页面（mobile=2）"):
        _read(x3_dir / name)


@pytest.mark.parametrize("name", ["viewthread-tid2-printable.html", "forumdisplay-fid3.html",
                                  "login-page.html"])
def test_read_page__other_pages_are_not_thread_pages(x3_dir, name) -> None:
    with pytest.raises(PageParseError, match=re.escape(name)):
        _read(x3_dir / name)


def test_read_page__stuck_reply_copy_is_deduplicated_by_pid(x3_dir) -> None:
    text = (x3_dir / "viewthread-tid2-page2.html").read_text(encoding="utf-8")
    start = text.index('<div id="post_19" >')
    end = text.index('<div id="post_20" >')
    block = text[start:end]
    # Page 1 extras: a stuck copy of pid 19 shown right after the first post, no floor number.
    stuck = block.replace("<em>17</em><sup>#</sup>", "推荐")
    first = text.index('<div id="post_12" >')
    page = parse_thread_html(text[:first] + stuck + text[first:], tz=SH)
    pids = [p.pid for p in page.posts]
    assert sorted(pids) == [12, 13, 14, 15, 16, 17, 19, 20, 21, 22]
    assert next(p for p in page.posts if p.pid == 19).floor == 17  # the real floor wins
