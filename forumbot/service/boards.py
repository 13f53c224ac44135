"""What changed on the forum, from one request per board: the account's board watch.

Every game of an account reads its threads through one throttle (2 s a request). Reading
each active thread every poll costs one request per thread whether anything happened or
not; a board's thread listing (forumdisplay) shows every thread's reply count and last
post in one page, newest last post first. So the service reads the listing of every board
that holds a followed thread once per poll, for all the games on the account, and a
thread is read only when the listing says it moved — or when the listing cannot vouch for
it (below), or something else requires it (the deadline's re-read, the edit sweep: the
scheduler's business, ``forumbot.service.schedule``).

What a thread's state is, after each listing (``status``):

* **moved** — its row differs from what the bot last saw of it: from the row shown when
  it was last read, and from the thread's own last post as that read found it (reply
  count, time, poster — ``BoardThread.mark``). Read it.
* **quiet** — its row is what the bot already read; or it is not on the pages read but
  the listing proves it did not move: the listing is in last-post order, so a thread that
  is absent had its last post no later than the oldest row shown (the *horizon*), and if
  that is older than the moment up to which the bot knew the thread unchanged, nothing was
  posted since. That moment then becomes the listing's time.
* **unknown** — absent, and the horizon is too recent to prove it (a busy board: more
  threads moved since than a page holds; the thread may have moved off page 1 just now),
  or its board's listing cannot be read at all (hidden from the account, a theme without
  the list, a forum that refuses it — said once in the log), or no listing was read for
  it yet. Polled on its own, as without the watch.

Edits do not move a thread in the listing; deleting a post and adding another in the same
minute by the same poster would not either. The edit sweep covers both. A thread moved to
another board is followed where its next read finds it (the page names its fid).
"""

from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from forumbot.discuz.errors import ForumRefused, ForumUnavailable, UnexpectedPage
from parsers.board import BoardPage, BoardThread
from parsers.models import Post, TimePrecision

log = logging.getLogger("forumbot.service")

# How far the forum's clock may be from ours: the horizon must be this much older than
# what we knew, on top of the listing's own precision (HTML: the minute).
CLOCK_SLACK = timedelta(seconds=30)
# Listing pages one board may take in a pass when threads it follows are not on page 1
# (each further page costs one request and covers ``tpp`` threads; more than this and the
# remaining threads are polled on their own).
MAX_PAGES = 3
# A board whose listing could not be read is tried again this long after.
RETRY_AFTER = timedelta(minutes=10)

MOVED, QUIET, UNKNOWN = "moved", "quiet", "unknown"
Mark = tuple[int, datetime | None, str | None]


def _name(name: str | None) -> str | None:
    return unicodedata.normalize("NFKC", name).strip() if name else None


def same_mark(row: BoardThread, mark: Mark | None) -> bool:
    """Whether a listing row shows ``mark`` (the same replies, last poster, and last post
    time to the row's precision: the HTML listing shows minutes)."""
    if mark is None:
        return False
    replies, at, poster = mark
    if row.replies != replies or _name(row.last_poster) != _name(poster):
        return False
    if row.last_post_at is None or at is None:
        return row.last_post_at is None and at is None
    if row.last_post_precision is TimePrecision.MINUTE:
        return row.last_post_at.replace(second=0, microsecond=0) == at.replace(second=0, microsecond=0)
    return abs((row.last_post_at - at).total_seconds()) < 1


def own_mark(posts: list[Post]) -> Mark | None:
    """What the listing should show for a thread whose last page held ``posts``: the
    newest post's floor − 1 replies, its time and author. None when it cannot be told
    (a page without floors)."""
    numbered = [p for p in posts if p.floor is not None]
    if not numbered:
        return None
    last = max(numbered, key=lambda p: (p.floor, p.pid))
    return (int(last.floor) - 1, last.posted_at, last.author)  # type: ignore[arg-type]


@dataclass
class Followed:
    """What the watch knows of one thread."""

    tid: int
    fid: int | None = None
    mark: Mark | None = None  # the thread's own last post at its last read
    row: Mark | None = None  # its listing row as last seen before its last read
    seen: Mark | None = None  # its listing row as last seen
    known_until: datetime | None = None  # nothing was posted in it up to here
    status: str = UNKNOWN
    games: set[str] = field(default_factory=set)


@dataclass
class BoardState:
    fid: int
    interval: float = 60.0  # seconds: the shortest poll interval of the games following it
    read_at: datetime | None = None
    next_at: datetime | None = None  # when the next read is due (kept on the beat: no drift)
    failing: str | None = None  # why the listing cannot be read (said once)
    retry_at: datetime | None = None
    requests: int = 0  # listing pages read (the bench and the desk count them)


class BoardWatch:
    """One account's boards and the threads its games follow on them."""

    def __init__(self) -> None:
        self.threads: dict[int, Followed] = {}
        self.boards: dict[int, BoardState] = {}
        self.enabled = True

    # ------------------------------------------------------------------ following

    def follow(self, game: str, tid: int, fid: int | None, interval: float) -> Followed:
        """``game`` reads ``tid`` (on board ``fid`` when known) every ``interval`` seconds."""
        thread = self.threads.get(tid)
        if thread is None:
            thread = self.threads[tid] = Followed(tid)
        thread.games.add(game)
        if fid is not None and fid != thread.fid:
            if thread.fid is not None:
                log.info("帖子 %d 从版块 %d 移到了版块 %d：改看新版块的主题列表", tid, thread.fid, fid)
                thread.status = UNKNOWN
            thread.fid = fid
        if thread.fid is not None:
            board = self.boards.get(thread.fid)
            if board is None:
                board = self.boards[thread.fid] = BoardState(thread.fid, interval)
            board.interval = min(board.interval, interval)
        return thread

    def unfollow(self, game: str, keep: set[int]) -> None:
        """``game`` follows only ``keep`` now (its days moved on, or it stopped)."""
        for tid in list(self.threads):
            thread = self.threads[tid]
            if game in thread.games and tid not in keep:
                thread.games.discard(game)
                if not thread.games:
                    del self.threads[tid]
        used = {t.fid for t in self.threads.values()}
        for fid in [f for f in self.boards if f not in used]:
            del self.boards[fid]

    def status(self, tid: int) -> str:
        thread = self.threads.get(tid)
        if thread is None or not self.enabled:
            return UNKNOWN
        board = self.boards.get(thread.fid) if thread.fid is not None else None
        if board is None or board.failing is not None:
            return UNKNOWN
        return thread.status

    def thread_read(self, tid: int, posts: list[Post], began: datetime) -> None:
        """A read of ``tid`` that began at ``began`` ended with these last-page posts."""
        thread = self.threads.get(tid)
        if thread is None:
            return
        thread.mark = own_mark(posts) or thread.mark
        thread.row = thread.seen  # the read came after it: it saw at least that
        thread.known_until = began
        thread.status = QUIET if thread.row is not None or thread.mark is not None else UNKNOWN
        # The row seen most recently stands for "what the bot read" until the next listing.
        board = self.boards.get(thread.fid) if thread.fid is not None else None
        if board is None or board.read_at is None:
            thread.status = UNKNOWN

    # ------------------------------------------------------------------ listings

    def due(self, now: datetime) -> list[BoardState]:
        """Boards whose listing is due now, the most overdue first."""
        found = []
        for board in self.boards.values():
            if board.failing is not None:
                if board.retry_at is not None and now >= board.retry_at:
                    found.append((board.retry_at, board))
                continue
            at = board.next_at or now
            if at <= now:
                found.append((at, board))
        return [b for _, b in sorted(found, key=lambda x: (x[0], x[1].fid))]

    def next_due(self, now: datetime) -> datetime | None:
        moments = []
        for board in self.boards.values():
            if board.failing is not None:
                if board.retry_at is not None:
                    moments.append(board.retry_at)
            else:
                moments.append(board.next_at or now)
        return min(moments) if moments else None

    def read(self, client, board: BoardState, now: datetime) -> list[int]:
        """Read ``board``'s listing (page 1, and on while threads it follows are missing
        and not proven quiet); returns the threads found moved. ``ForumUnavailable``
        passes through (the session is down: nothing is learnt)."""
        followed = [t for t in self.threads.values() if t.fid == board.fid]
        rows: dict[int, BoardThread] = {}
        horizon: datetime | None = None
        ordered = True
        page_no, total, complete = 1, 1, False
        try:
            while True:
                page = client.read_board(board.fid, page_no)
                board.requests += 1
                total = page.total_pages
                complete = page.page >= total
                for row in page.threads:
                    rows.setdefault(row.tid, row)
                horizon, ordered = _horizon(page, horizon, ordered)
                missing = [t for t in followed if t.tid not in rows and not _proven(t, horizon, ordered)]
                if not missing or page.page >= total or page_no >= MAX_PAGES or len(missing) < 2:
                    break
                page_no += 1
        except ForumUnavailable:
            raise
        except (ForumRefused, UnexpectedPage) as exc:
            if board.failing is None:
                log.warning("版块 %d 的主题列表读不到（%s）：这个版块的帖子改为逐帖轮询，"
                            "%d 分钟后再试", board.fid, exc, int(RETRY_AFTER.total_seconds() // 60))
            board.failing = str(exc)
            board.retry_at = now + RETRY_AFTER
            board.read_at = now
            for thread in followed:
                thread.status = UNKNOWN
            return []
        if board.failing is not None:
            log.info("版块 %d 的主题列表又能读了：这个版块的帖子改回按主题列表读取", board.fid)
        board.failing = None
        board.retry_at = None
        board.read_at = now
        # On the beat: due a poll interval after it was due, not after it was read (a
        # listing read late does not push every later one back); never in the past.
        beat = timedelta(seconds=board.interval)
        board.next_at = max((board.next_at or now) + beat, now + beat / 2)
        moved: list[int] = []
        for thread in followed:
            row = rows.get(thread.tid)
            if row is not None:
                thread.seen = row.mark
                if thread.status == MOVED:
                    continue  # until it is read (thread_read)
                if thread.known_until is None:
                    thread.status = UNKNOWN  # never read: its first read comes anyway
                elif row.mark == thread.row or same_mark(row, thread.mark):
                    thread.status = QUIET
                    thread.known_until = now
                else:
                    moved.append(thread.tid)
                    thread.status = MOVED
                continue
            if thread.status == MOVED:
                continue  # still to be read
            if complete:
                # Every page was read and it is on none: not on this board any more
                # (moved, deleted, held for moderation). Its own read will tell.
                thread.status = UNKNOWN
            elif thread.known_until is not None and _proven(thread, horizon, ordered):
                thread.status = QUIET
                thread.known_until = now
            else:
                thread.status = UNKNOWN
        return moved


def _horizon(page: BoardPage, horizon: datetime | None, ordered: bool) -> tuple[datetime | None, bool]:
    """The latest a thread absent from the pages read so far can have had its last post:
    the oldest non-sticky row's time, plus the row's precision; and whether the rows were
    in last-post order (a listing that is not cannot prove anything by absence)."""
    times = [(r.last_post_at, r.last_post_precision) for r in page.threads if not r.sticky]
    if any(at is None for at, _ in times):
        return horizon, False
    stamps = [at for at, _ in times]
    if stamps != sorted(stamps, reverse=True):  # type: ignore[type-var]
        ordered = False
    if not times:
        return horizon, ordered  # an empty page, or stickies only: nothing to add
    at, precision = times[-1]
    step = timedelta(minutes=1) if precision is TimePrecision.MINUTE else timedelta(seconds=1)
    return at + step, ordered  # type: ignore[operator]


def _proven(thread: Followed, horizon: datetime | None, ordered: bool) -> bool:
    return (ordered and horizon is not None and thread.known_until is not None
            and horizon + CLOCK_SLACK <= thread.known_until)


__all__ = ["BoardState", "BoardWatch", "Followed", "MOVED", "QUIET", "UNKNOWN", "own_mark", "same_mark"]
