"""parsers.pm on every real PM capture (../shared/fixtures/discuz-pm, X3.5 and 7.2; HTML,
ajax and mobile-API JSON). Ground truth is the MANIFEST's facts: ids, authors, uids,
times (as the page shows them), texts, whose, unread marks, counts."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from parsers.errors import PageParseError
from parsers.models import TimePrecision
from parsers.pm import PmPageKind, read_pm_page
from tests.support import fixture_dir

pytestmark = pytest.mark.fixtures

BJ = ZoneInfo("Asia/Shanghai")
APPROVE, REJECT = "批准 #12", "驳回 #13 理由：票数不对"
DRAFT, API_TEST = "草稿 #14 等待批准：第二天计票（终）", "测试：手机接口发送的短消息"


def capture(gen: str, n: int) -> tuple[bytes, str | None, datetime]:
    folder = fixture_dir("discuz-pm") / gen
    exchange = next(e for e in json.loads((folder / "exchanges.json").read_text("utf-8"))
                    if e["n"] == n)
    body = next(f for f in exchange["files"] if f.endswith(".body"))
    ctype = next((v for k, v in exchange["headers"] if k.lower() == "content-type"), None)
    return (folder / body).read_bytes(), ctype, datetime.fromtimestamp(exchange["unix"], timezone.utc)


def read(gen: str, n: int, *, with_now: bool = True):
    data, ctype, at = capture(gen, n)
    return read_pm_page(data, content_type=ctype, source=f"{gen}/{n}", now=at if with_now else None)


def bj(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=BJ)


def rows(page) -> list[tuple]:
    return [(m.id, m.author, m.uid, m.text, m.own, m.unread) for m in page.messages]


# ---- X3.5 ---------------------------------------------------------------------------------

def test_x35_conversation__the_bots_view_of_the_director() -> None:
    page = read("x35", 24)
    assert (page.kind, page.generation, page.source) == (PmPageKind.CONVERSATION, "x3", "html")
    assert (page.viewer_uid, page.with_uid, page.with_name, page.total) == (3, 2, "导演", 2)
    assert rows(page) == [(1, "导演", 2, APPROVE, False, None), (2, "导演", 2, REJECT, False, None)]
    # "38 秒前" / "11 秒前" at 09:39:41, inside the titles' minute: exact to the second.
    assert [(m.time, m.time_precision) for m in page.messages] == [
        (bj(2026, 12, 1, 9, 39, 3), TimePrecision.SECOND), (bj(2026, 12, 1, 9, 39, 30), TimePrecision.SECOND)]
    assert page.formhash == "591da62d"


def test_x35_conversation__without_now_the_title_gives_the_minute() -> None:
    page = read("x35", 24, with_now=False)
    assert [(m.time, m.time_precision) for m in page.messages] == [
        (bj(2026, 12, 1, 9, 39), TimePrecision.MINUTE)] * 2


def test_x35_conversation__own_messages_and_the_current_second() -> None:
    page = read("x35", 42)  # the director's view: 共有 4 条, pmid 4 sent this second
    assert (page.viewer_uid, page.with_uid, page.with_name, page.total) == (2, 3, "投票机", 4)
    assert rows(page) == [(1, "导演", 2, APPROVE, True, None), (2, "导演", 2, REJECT, True, None),
                          (3, "投票机", 3, DRAFT, False, None)]
    later = read("x35", 43)
    assert [m.id for m in later.messages] == [1, 2, 3, 4] and later.messages[3].text == API_TEST


def test_x35_api_conversation__needs_now_and_reads_own() -> None:
    page = read("x35", 39)
    assert (page.kind, page.source, page.viewer_uid, page.with_uid, page.total) == (
        PmPageKind.CONVERSATION, "api", 3, 2, 3)
    assert rows(page) == [(1, "导演", 2, APPROVE, False, None), (2, "导演", 2, REJECT, False, None),
                          (3, "投票机", 3, DRAFT, True, None)]
    assert page.messages[2].time == bj(2026, 12, 1, 9, 40, 2)  # "19 秒前" at 09:40:21
    with pytest.raises(PageParseError, match="now"):
        read("x35", 39, with_now=False)


@pytest.mark.parametrize(("n", "unread", "indicator"), [(20, True, True), (21, True, False), (26, False, False)])
def test_x35_inbox__one_row_per_conversation(n: int, unread: bool, indicator: bool) -> None:
    page = read("x35", n)
    assert (page.kind, page.viewer_uid, page.new_pm) == (PmPageKind.INBOX, 3, indicator)
    (conv,) = page.conversations
    assert (conv.id, conv.uid, conv.name, conv.last_text, conv.last_own, conv.unread, conv.count) == (
        1, 2, "导演", REJECT, False, unread, 2)
    assert conv.time == bj(2026, 12, 1, 9, 39, 30)


def test_x35_inbox__the_last_message_may_be_ones_own() -> None:
    (conv,) = read("x35", 44).conversations  # the bot's list after its API test PM
    assert (conv.uid, conv.name, conv.last_text, conv.last_own, conv.unread, conv.count) == (
        2, "导演", API_TEST, True, False, 4)
    (mine,) = read("x35", 41).conversations  # the director's: unread, last by the bot
    assert (mine.uid, mine.name, mine.last_own, mine.unread, mine.count) == (3, "投票机", False, True, 4)


@pytest.mark.parametrize("n", [7, 27])
def test_x35_inbox__empty(n: int) -> None:
    page = read("x35", n)
    assert (page.kind, page.conversations) == (PmPageKind.INBOX, ())


@pytest.mark.parametrize(("n", "isnew"), [(22, True), (23, True), (29, False)])
def test_x35_api_inbox(n: int, isnew: bool) -> None:
    page = read("x35", n)
    (conv,) = page.conversations
    assert (page.source, conv.id, conv.uid, conv.name, conv.last_text, conv.unread) == (
        "api", 1, 2, "导演", REJECT, isnew)


# ---- 7.2 ----------------------------------------------------------------------------------

def test_d72_conversation__new_marks_until_read() -> None:
    page = read("d72", 19)
    assert (page.kind, page.generation, page.viewer_uid, page.with_uid, page.with_name, page.total) == (
        PmPageKind.CONVERSATION, "7.2", 3, 2, "导演", 2)
    assert rows(page) == [(3, "导演", 2, APPROVE, False, True), (4, "导演", 2, REJECT, False, True)]
    assert [(m.time, m.time_precision) for m in page.messages] == [
        (bj(2026, 12, 1, 9, 40), TimePrecision.MINUTE), (bj(2026, 12, 1, 9, 41), TimePrecision.MINUTE)]
    assert [m.unread for m in read("d72", 23).messages] == [False, False]


def test_d72_conversation__the_current_second_and_own_messages() -> None:
    assert [m.id for m in read("d72", 30).messages] == [3, 4]  # 5, 6, 7 sent this second
    page = read("d72", 38)  # the director's, later
    assert rows(page) == [(3, "导演", 2, APPROVE, True, False), (4, "导演", 2, REJECT, True, False),
                          (5, "投票机", 3, DRAFT, False, True), (6, "投票机", 3, DRAFT, False, True),
                          (7, "投票机", 3, DRAFT, False, True),
                          (8, "投票机", 3, "测试：限速检查（回复导演，不受限速）", False, True)]


def test_d72_reply_answer__the_new_message_node() -> None:
    page = read("d72", 24)
    assert (page.kind, page.source, page.viewer_uid) == (PmPageKind.SENT, "ajax", 3)
    assert rows(page) == [(5, "投票机", 3, DRAFT, True, True)]


@pytest.mark.parametrize(("n", "unread", "indicator"), [(16, True, True), (17, True, False),
                                                        (18, True, False), (20, False, False)])
def test_d72_inbox__summary_rows(n: int, unread: bool, indicator: bool) -> None:
    page = read("d72", n)
    (conv,) = page.conversations
    assert (page.kind, page.new_pm) == (PmPageKind.INBOX, indicator)
    assert (conv.id, conv.uid, conv.name, conv.last_text, conv.unread) == (1, 2, "导演", REJECT, unread)
    assert conv.time == bj(2026, 12, 1, 9, 41)  # 今天 09:41
    assert read("d72", n, with_now=False).conversations[0].time is None


def test_d72_inbox__the_reused_summary_id_and_empty_lists() -> None:
    (conv,) = read("d72", 33).conversations  # the director's: summary pmid 2
    assert (conv.id, conv.uid, conv.name, conv.last_text, conv.unread) == (2, 3, "投票机", DRAFT, True)
    assert read("d72", 7).conversations == read("d72", 21).conversations == ()


# ---- not PM pages -------------------------------------------------------------------------

@pytest.mark.parametrize(("gen", "n", "why"), [("d72", 32, "空页面"), ("x35", 5, "不是站内信页面"),
                                               ("x35", 13, "没有消息"), ("d72", 14, "不是站内信页面"),
                                               ("x35", 40, "Variables.list")])
def test_not_pm_pages_are_refused_naming_the_source(gen: str, n: int, why: str) -> None:
    with pytest.raises(PageParseError, match=why) as err:
        read(gen, n)
    assert f"{gen}/{n}" in str(err.value)
