"""A fake forum for outbox tests: a Publisher whose posts live in a SQLite file, so a
killed process's posts survive it, and which can be told to fail in the ways a real
forum connection fails."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path

from forumbot.discuz import NewThreadResult, ReplyResult
from forumbot.discuz.errors import FloodControl, ForumUnavailable, ThreadClosed, UnavailableReason
from forumbot.store.marker import find_marker_in_text

# Fault modes for one reply/edit call.
OK = "ok"
RAISE_BEFORE_STORE = "raise_before_store"  # timeout: the request never got stored
STORE_THEN_RAISE = "store_then_raise"  # dropped connection after the forum stored the post
REFUSE = "refuse"  # ThreadClosed: certainly nothing stored
FLOOD = "flood"  # flood control: nothing stored, try later


class FakeForum:
    def __init__(
        self,
        path: Path | str = ":memory:",
        *,
        faults: Iterable[str] = (),
        on_event: Callable[[str], None] | None = None,
        find_fails: int = 0,
    ) -> None:
        self.conn = sqlite3.connect(str(path), isolation_level=None, timeout=30)
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS posts (pid INTEGER PRIMARY KEY AUTOINCREMENT,"
            " tid INTEGER NOT NULL, message TEXT NOT NULL, quote_pid INTEGER, edits INTEGER"
            " NOT NULL DEFAULT 0)"
        )
        # New threads: a thread is its row here plus its first post in ``posts``.
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS threads (tid INTEGER PRIMARY KEY AUTOINCREMENT,"
            " fid INTEGER NOT NULL, subject TEXT NOT NULL, first_pid INTEGER)"
        )
        # tids start at 1000, far from the pids: a pid recorded as a tid cannot pass a test.
        self.conn.execute("INSERT OR IGNORE INTO threads (tid, fid, subject) VALUES (999, 0, 'seed')")
        self.faults = list(faults)
        self.on_event = on_event or (lambda _name: None)
        self.find_fails = find_fails
        self.calls: list[tuple[str, int]] = []

    def _fault(self) -> str:
        return self.faults.pop(0) if self.faults else OK

    def _before(self, fault: str) -> None:
        if fault == RAISE_BEFORE_STORE:
            raise ForumUnavailable("read timeout", reason=UnavailableReason.TIMEOUT, sent=True)
        if fault == REFUSE:
            raise ThreadClosed("本主题已关闭，您不能回复", key="post_thread_closed")
        if fault == FLOOD:
            raise FloodControl("您两次发表间隔少于 15 秒", key="post_flood_ctrl",
                               values={"floodctrl": "15"})

    def _after(self, fault: str) -> None:
        if fault == STORE_THEN_RAISE:
            raise ForumUnavailable("connection dropped", reason=UnavailableReason.DROPPED,
                                   sent=True)

    def seed_post(self, tid: int, message: str) -> int:
        cur = self.conn.execute("INSERT INTO posts (tid, message) VALUES (?, ?)", (tid, message))
        return int(cur.lastrowid or 0)

    # -- the Publisher protocol --------------------------------------------------------

    def reply(self, tid: int, message: str, *, quote_pid: int | None = None) -> ReplyResult:
        self.calls.append(("reply", tid))
        fault = self._fault()
        self.on_event("reply:before")
        self._before(fault)
        pid = self.seed_post(tid, message)
        if quote_pid is not None:
            self.conn.execute("UPDATE posts SET quote_pid = ? WHERE pid = ?", (quote_pid, pid))
        self.on_event("reply:stored")
        self._after(fault)
        return ReplyResult(pid)

    def edit(self, tid: int, pid: int, message: str) -> None:
        self.calls.append(("edit", tid))
        fault = self._fault()
        self.on_event("edit:before")
        self._before(fault)
        cur = self.conn.execute(
            "UPDATE posts SET message = ?, edits = edits + 1 WHERE pid = ? AND tid = ?",
            (message, pid, tid),
        )
        assert cur.rowcount == 1, f"no post {pid} in thread {tid}"
        self.on_event("edit:stored")
        self._after(fault)

    def find_marker(self, tid: int, marker: str) -> int | None:
        self.calls.append(("find_marker", tid))
        self.on_event("find:before")
        if self.find_fails:
            self.find_fails -= 1
            raise ForumUnavailable("search timed out", reason=UnavailableReason.TIMEOUT,
                                   sent=True)
        for pid, message in self.conn.execute(
            "SELECT pid, message FROM posts WHERE tid = ? ORDER BY pid", (tid,)
        ):
            if find_marker_in_text(message) == marker:
                return pid
        return None

    def new_thread(self, fid: int, subject: str, message: str) -> NewThreadResult:
        self.calls.append(("new_thread", fid))
        fault = self._fault()
        self.on_event("thread:before")
        self._before(fault)
        # One transaction: the thread and its first post are stored together, as Discuz does.
        self.conn.execute("BEGIN")
        tid = int(self.conn.execute("INSERT INTO threads (fid, subject) VALUES (?, ?)",
                                    (fid, subject)).lastrowid or 0)
        pid = int(self.conn.execute("INSERT INTO posts (tid, message) VALUES (?, ?)",
                                    (tid, message)).lastrowid or 0)
        self.conn.execute("UPDATE threads SET first_pid = ? WHERE tid = ?", (pid, tid))
        self.conn.execute("COMMIT")
        self.on_event("thread:stored")
        self._after(fault)
        return NewThreadResult(tid=tid, pid=pid)

    def find_thread_marker(self, fid: int, marker: str, *,
                           skip: Iterable[int] = ()) -> tuple[int, int | None] | None:
        self.calls.append(("find_thread_marker", fid))
        self.on_event("findthread:before")
        if self.find_fails:
            self.find_fails -= 1
            raise ForumUnavailable("board listing timed out", reason=UnavailableReason.TIMEOUT,
                                   sent=True)
        skipped = set(skip)
        for tid, pid, message in self.conn.execute(
            "SELECT t.tid, t.first_pid, p.message FROM threads t JOIN posts p ON p.pid = t.first_pid"
            " WHERE t.fid = ? ORDER BY t.tid DESC", (fid,)
        ):
            if tid not in skipped and find_marker_in_text(message) == marker:
                return tid, pid
        return None

    def threads(self) -> list[tuple[int, int, str, int]]:
        return list(self.conn.execute(
            "SELECT tid, fid, subject, first_pid FROM threads WHERE tid != 999 ORDER BY tid"))

    def threads_with_marker(self, marker: str) -> list[int]:
        return [tid for tid, _fid, _subject, pid in self.threads()
                if find_marker_in_text(self.message(pid)) == marker]

    def message(self, pid: int) -> str:
        row = self.conn.execute("SELECT message FROM posts WHERE pid = ?", (pid,)).fetchone()
        return row[0] if row else ""

    # -- inspection --------------------------------------------------------------------

    def posts(self) -> list[tuple[int, int, str]]:
        return list(self.conn.execute("SELECT pid, tid, message FROM posts ORDER BY pid"))

    def posts_with_marker(self, marker: str) -> list[int]:
        return [pid for pid, _tid, msg in self.posts() if find_marker_in_text(msg) == marker]

    def close(self) -> None:
        self.conn.close()
