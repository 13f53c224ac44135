"""``DiscuzClient.read_board`` over real HTTP against the simulator, both generations and
both charsets (and X3's mobile API): last post first, stickies on top, pages of
``tpp`` threads, what a guest may not list, and what edits do not move."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest

from forumbot.discuz.client import DiscuzClient
from forumbot.discuz.errors import ForumNotFound, ForumRefused, UnexpectedPage
from forumbot.simulator import SimClock, Simulator
from tests.forumbot.simulator_support import START

KINDS = [("x3", "utf-8", False), ("x3", "gbk", False), ("x3", "utf-8", True),
         ("7.2", "utf-8", False), ("7.2", "gbk", False)]


class Board:
    def __init__(self, discuz: str, charset: str) -> None:
        self.clock = SimClock(start=START)
        self.sim = Simulator(clock=self.clock, charset=charset, discuz=discuz)
        for name in ("导演", "计票机器人", "饺子", "包子"):
            self.sim.add_user(name, "pw")
        self.fid = self.sim.add_forum("版杀区")
        self.other = self.sim.add_forum("闲聊区")
        at = START - timedelta(hours=1)
        self.tids = [self.sim.add_thread(self.fid, f"【村{n}】第一日 投票帖", "导演",
                                         "投票格式：投票对象：玩家名", at + timedelta(minutes=n))
                     for n in range(5)]


@pytest.fixture(params=KINDS, ids=lambda k: "-".join(map(str, k)))
def board(request: pytest.FixtureRequest) -> Iterator[tuple[Board, DiscuzClient]]:
    discuz, charset, api = request.param
    forum = Board(discuz, charset)
    with forum.sim.running() as base, httpx.Client() as http:
        client = DiscuzClient(http, base, min_interval=0, generation=discuz,
                              username="计票机器人", password_source=lambda: "pw")
        client.use_api = api
        yield forum, client


def test_read_board__newest_last_post_first_with_counts(board: tuple[Board, DiscuzClient]) -> None:
    forum, client = board
    first, *_, last = forum.tids
    forum.sim.add_post(first, "饺子", "投票对象：包子\n投票理由：可疑", START - timedelta(minutes=2))
    forum.sim.add_post(first, "包子", "投票对象：饺子\n投票理由：反踩", START - timedelta(minutes=1))
    page = client.read_board(forum.fid)
    assert page.fid == forum.fid and page.name == "版杀区"
    assert page.threads[0].tid == first  # its last post is the newest
    row = page.threads[0]
    assert (row.replies, row.last_poster) == (2, "包子")
    assert row.last_post_at is not None
    assert row.last_post_at.replace(second=0) == (START - timedelta(minutes=1)).replace(second=0)
    assert [t.tid for t in page.threads[1:]] == sorted(forum.tids[1:], reverse=True)
    assert page.thread(last) is not None and page.thread(last).replies == 0  # type: ignore[union-attr]


def test_read_board__an_edit_moves_nothing(board: tuple[Board, DiscuzClient]) -> None:
    forum, client = board
    tid = forum.tids[2]
    pid = forum.sim.add_post(tid, "饺子", "投票对象：包子\n投票理由：可疑", START - timedelta(minutes=5))
    before = client.read_board(forum.fid).thread(tid)
    forum.clock.advance(minutes=3)
    forum.sim.edit_post(pid, "投票对象：导演\n投票理由：改主意了")
    after = client.read_board(forum.fid).thread(tid)
    assert before is not None and after is not None and before.mark == after.mark


def test_read_board__stickies_on_top_and_pages_of_tpp(board: tuple[Board, DiscuzClient]) -> None:
    forum, client = board
    forum.sim.settings.tpp = 2
    forum.sim.stick_thread(forum.tids[0])
    page1 = client.read_board(forum.fid)
    assert page1.threads[0].tid == forum.tids[0] and page1.threads[0].sticky
    assert (page1.page, page1.total_pages, len(page1.threads)) == (1, 3, 2)
    page3 = client.read_board(forum.fid, page=3)
    assert page3.page == 3 and [t.tid for t in page3.threads] == [forum.tids[1]]
    assert not page3.threads[0].sticky
    # Past the end: the forum serves its last page.
    assert client.read_board(forum.fid, page=9).page == 3


def test_read_board__global_stickies_from_other_boards_are_listed(
        board: tuple[Board, DiscuzClient]) -> None:
    forum, client = board
    notice = forum.sim.add_thread(forum.other, "全站公告", "导演", "公告内容公告内容")
    forum.sim.stick_thread(notice, 3)
    row = client.read_board(forum.fid).thread(notice)
    assert row is not None and row.sticky


def test_read_board__a_closed_thread_is_marked(board: tuple[Board, DiscuzClient]) -> None:
    forum, client = board
    forum.sim.close_thread(forum.tids[1])
    page = client.read_board(forum.fid)
    assert page.thread(forum.tids[1]).closed  # type: ignore[union-attr]
    assert not page.thread(forum.tids[2]).closed  # type: ignore[union-attr]


def test_read_board__missing_and_barred_boards_are_refusals(
        board: tuple[Board, DiscuzClient]) -> None:
    forum, client = board
    with pytest.raises(ForumNotFound):
        client.read_board(999)
    forum.sim.bar_guests(forum.fid)
    with pytest.raises(ForumRefused):
        client.read_board(forum.fid)  # a guest: the forum will not list it
    client.login()
    assert client.read_board(forum.fid).viewer_uid == client.uid


def test_read_board__a_theme_without_a_listing_is_unexpected(
        board: tuple[Board, DiscuzClient]) -> None:
    forum, client = board
    forum.sim.settings.forumdisplay_off = True
    if client.use_api:
        assert client.read_board(forum.fid).threads  # the API does not go through the theme
        return
    with pytest.raises(UnexpectedPage):
        client.read_board(forum.fid)
