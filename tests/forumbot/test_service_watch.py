"""The board watch's rules (``forumbot.service.boards``) and how the scheduler spends what
it says (``forumbot.service.schedule``), on hand-made listings: pure, no forum."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import pytest

from forumbot.discuz.errors import ForumUnavailable, NoPermission
from forumbot.service.boards import MOVED, QUIET, UNKNOWN, BoardWatch, own_mark, same_mark
from forumbot.service.schedule import (DUE, HOT, MOVED as S_MOVED, QUIET as S_QUIET, SWEEP, GamePlan,
                                       SessionState, ThreadState, pick)
from parsers.board import BoardPage, BoardThread
from parsers.models import Post, TimePrecision
from parsers.pages import FORUM_TZ

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=FORUM_TZ)
FID = 3


def row(tid: int, replies: int, at: datetime, poster: str = "饺子", *, sticky: bool = False,
        precision: TimePrecision = TimePrecision.MINUTE) -> BoardThread:
    shown = at.replace(second=0) if precision is TimePrecision.MINUTE else at
    return BoardThread(tid, f"主题{tid}", "导演", 2, replies, shown, precision, poster, sticky)


def post(tid: int, pid: int, floor: int, at: datetime, author: str = "饺子") -> Post:
    return Post(tid=tid, pid=pid, floor=floor, author=author, author_uid=9, posted_at=at,
                time_precision=TimePrecision.SECOND, html="", text="")


class Listing:
    """A fake client: ``pages`` are the rows of each listing page."""

    def __init__(self, *pages: list[BoardThread], fail: Exception | None = None) -> None:
        self.pages = list(pages)
        self.fail = fail
        self.asked: list[int] = []

    def read_board(self, fid: int, page: int = 1) -> BoardPage:
        self.asked.append(page)
        if self.fail is not None:
            raise self.fail
        served = min(page, len(self.pages))
        return BoardPage(fid, served, len(self.pages), tuple(self.pages[served - 1]), "utf-8", 3, None, "版杀区")


def watched(*tids: int) -> BoardWatch:
    watch = BoardWatch()
    for tid in tids:
        watch.follow("g", tid, FID, 60)
    return watch


def test_watch__a_row_like_the_last_read_is_quiet_and_a_new_reply_moves_it() -> None:
    watch = watched(1)
    last = NOW - timedelta(minutes=5, seconds=20)
    Listing([row(1, 4, last)])  # (the first listing is read below, after the read)
    watch.boards[FID].read_at = NOW - timedelta(minutes=1)
    watch.thread_read(1, [post(1, 10, 5, last)], NOW - timedelta(minutes=1))
    assert watch.read(Listing([row(1, 4, last)]), watch.boards[FID], NOW) == []
    assert watch.status(1) == QUIET
    assert watch.read(Listing([row(1, 5, NOW, "包子")]), watch.boards[FID], NOW + timedelta(minutes=1)) == [1]
    assert watch.status(1) == MOVED
    # Still moved until it is read; then quiet again.
    watch.read(Listing([row(1, 5, NOW, "包子")]), watch.boards[FID], NOW + timedelta(minutes=2))
    assert watch.status(1) == MOVED
    watch.thread_read(1, [post(1, 11, 6, NOW, "包子")], NOW + timedelta(minutes=2))
    watch.read(Listing([row(1, 5, NOW, "包子")]), watch.boards[FID], NOW + timedelta(minutes=3))
    assert watch.status(1) == QUIET


def test_watch__a_post_between_the_listing_and_the_read_costs_no_second_read() -> None:
    watch = watched(1)
    old = NOW - timedelta(minutes=10)
    watch.boards[FID].read_at = NOW - timedelta(minutes=2)
    watch.thread_read(1, [post(1, 10, 5, old)], NOW - timedelta(minutes=2))
    watch.read(Listing([row(1, 4, old)]), watch.boards[FID], NOW - timedelta(minutes=1))
    # A reply, then the bot reads the thread (it saw the reply), then the listing.
    watch.thread_read(1, [post(1, 11, 6, NOW - timedelta(seconds=30), "包子")], NOW - timedelta(seconds=20))
    assert watch.read(Listing([row(1, 5, NOW - timedelta(seconds=30), "包子")]), watch.boards[FID], NOW) == []
    assert watch.status(1) == QUIET


def test_watch__absence_from_a_listing_in_last_post_order_proves_quiet_against_a_known_moment() -> None:
    watch = watched(1, 2)
    old = NOW - timedelta(hours=3)
    watch.boards[FID].read_at = NOW - timedelta(hours=1)
    for tid in (1, 2):
        watch.thread_read(tid, [post(tid, tid * 10, 3, old)], NOW - timedelta(hours=1))
    # Page 1 holds busier threads, all newer than thread 1's last read? No: older ones.
    page = [row(100 + i, 3, NOW - timedelta(hours=2, minutes=i)) for i in range(20)]
    listing = Listing(page, [row(1, 2, old), row(2, 2, old)])
    assert watch.read(listing, watch.boards[FID], NOW) == []
    assert listing.asked == [1]  # proven from page 1: no second page
    assert watch.status(1) == watch.status(2) == QUIET


def test_watch__a_horizon_newer_than_what_was_known_reads_on_then_polls_the_rest() -> None:
    watch = watched(1, 2, 3)
    old = NOW - timedelta(hours=3)
    watch.boards[FID].read_at = NOW - timedelta(hours=1)
    for tid in (1, 2, 3):
        watch.thread_read(tid, [post(tid, tid * 10, 3, old)], NOW - timedelta(hours=1))
    busy = [[row(1000 + 100 * p + i, 3, NOW - timedelta(minutes=p * 20 + i)) for i in range(20)] for p in range(5)]
    listing = Listing(*busy)
    watch.read(listing, watch.boards[FID], NOW)
    assert listing.asked == [1, 2, 3]  # MAX_PAGES, then the rest are polled
    assert {watch.status(t) for t in (1, 2, 3)} == {UNKNOWN}


def test_watch__rows_out_of_order_prove_nothing_by_absence() -> None:
    watch = watched(1)
    watch.boards[FID].read_at = NOW - timedelta(hours=1)
    watch.thread_read(1, [post(1, 10, 3, NOW - timedelta(hours=3))], NOW - timedelta(hours=1))
    shuffled = [row(7, 1, NOW - timedelta(hours=2)), row(8, 1, NOW - timedelta(minutes=1))]
    watch.read(Listing(shuffled, [row(9, 1, NOW - timedelta(hours=4))]), watch.boards[FID], NOW)
    assert watch.status(1) == UNKNOWN


def test_watch__absent_from_every_page_is_unknown_not_quiet() -> None:
    watch = watched(1)
    watch.boards[FID].read_at = NOW - timedelta(hours=1)
    watch.thread_read(1, [post(1, 10, 3, NOW - timedelta(hours=3))], NOW - timedelta(hours=1))
    watch.read(Listing([row(7, 1, NOW - timedelta(hours=5))]), watch.boards[FID], NOW)
    assert watch.status(1) == UNKNOWN  # deleted, moved or held: its own read tells


def test_watch__an_unreadable_listing_falls_back_said_once_and_is_tried_again(caplog) -> None:
    caplog.set_level(logging.INFO, logger="forumbot.service")
    watch = watched(1)
    board = watch.boards[FID]
    refused = Listing(fail=NoPermission("抱歉，您没有权限访问该版块", key="viewperm_none_nopermission"))
    watch.read(refused, board, NOW)
    assert watch.status(1) == UNKNOWN and board.failing
    assert watch.due(NOW + timedelta(minutes=5)) == []
    watch.read(refused, board, NOW + timedelta(minutes=10))
    said = [r.getMessage() for r in caplog.records if "主题列表读不到" in r.getMessage()]
    assert len(said) == 1 and "逐帖轮询" in said[0]
    watch.thread_read(1, [post(1, 10, 3, NOW)], NOW + timedelta(minutes=11))
    watch.read(Listing([row(1, 2, NOW)]), board, NOW + timedelta(minutes=21))
    assert board.failing is None and watch.status(1) == QUIET
    assert any("又能读了" in r.getMessage() for r in caplog.records)


def test_watch__an_unreachable_forum_teaches_nothing() -> None:
    watch = watched(1)
    with pytest.raises(ForumUnavailable):
        watch.read(Listing(fail=ForumUnavailable("论坛无法访问", reason="timeout", sent=False)), watch.boards[FID], NOW)
    assert watch.boards[FID].failing is None


def test_watch__listings_keep_their_beat() -> None:
    watch = watched(1)
    board = watch.boards[FID]
    assert watch.due(NOW) == [board]
    watch.read(Listing([row(5, 1, NOW)]), board, NOW + timedelta(seconds=5))  # read 5 s late
    assert board.next_at == NOW + timedelta(seconds=65)  # hmm: the first read sets the beat
    watch.read(Listing([row(5, 1, NOW)]), board, NOW + timedelta(seconds=70))
    assert board.next_at == NOW + timedelta(seconds=125)  # not 130: no drift


def test_watch__marks_compare_at_the_rows_precision() -> None:
    at = datetime(2026, 12, 1, 9, 17, 41, tzinfo=FORUM_TZ)
    mark = own_mark([post(1, 5, 1, at - timedelta(minutes=9)), post(1, 9, 28, at, "投票机")])
    assert mark == (27, at, "投票机")
    assert same_mark(row(1, 27, at, "投票机"), mark)
    assert same_mark(row(1, 27, at, "投票机", precision=TimePrecision.SECOND), mark)
    assert not same_mark(row(1, 27, at + timedelta(minutes=1), "投票机"), mark)
    assert not same_mark(row(1, 28, at, "投票机"), mark)


def test_watch__games_share_a_board_and_let_go_of_it() -> None:
    watch = BoardWatch()
    watch.follow("一", 1, FID, 60)
    watch.follow("二", 2, FID, 30)
    assert list(watch.boards) == [FID] and watch.boards[FID].interval == 30
    watch.unfollow("一", set())
    assert list(watch.threads) == [2]
    watch.unfollow("二", set())
    assert watch.boards == {}


# ------------------------------------------------------------------ the scheduler

SESSION = {"bot": SessionState(2.0)}


def plan(name: str, *threads: ThreadState) -> GamePlan:
    return GamePlan(name, "bot", 60.0, {t.tid: t for t in threads}, started=True, last_pass=NOW)


def test_schedule__quiet_threads_cost_nothing_moved_ones_are_hot() -> None:
    read = NOW - timedelta(minutes=30)
    quiet = ThreadState(1, "vote", polled_at=read, watch=S_QUIET)
    assert pick(NOW, {"g": plan("g", quiet)}, SESSION) is None
    moved = ThreadState(2, "discussion", polled_at=read, watch=S_MOVED)
    job = pick(NOW, {"g": plan("g", quiet, moved)}, SESSION)
    assert job is not None and job.threads == (2,) and job.rank == HOT
    unknown = ThreadState(3, "discussion", polled_at=read)  # its board unreadable: polled
    job = pick(NOW, {"h": plan("h", unknown)}, SESSION)
    assert job is not None and job.rank == DUE


def test_schedule__the_sweep_comes_after_everything_but_passes_without_requests() -> None:
    read = NOW - timedelta(minutes=30)
    swept = ThreadState(1, "vote", polled_at=read, watch=S_QUIET, sweep_at=NOW - timedelta(seconds=1))
    due = ThreadState(5, "discussion", polled_at=read)
    games = {"a": plan("a", swept), "b": plan("b", due)}
    job = pick(NOW, games, SESSION)
    assert job is not None and job.game == "b" and job.rank == DUE
    job = pick(NOW, {"a": plan("a", swept)}, SESSION)
    assert job is not None and job.rank == SWEEP and job.sweeps == (1,) and job.threads == (1,)
    # A thread polled on its own is swept too (its poll reads only the last page).
    lone = ThreadState(7, "vote", polled_at=NOW, sweep_at=NOW - timedelta(seconds=1))
    job = pick(NOW, {"c": plan("c", lone)}, SESSION)
    assert job is not None and job.sweeps == (7,)
