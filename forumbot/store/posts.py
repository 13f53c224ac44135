"""Every post the bot has seen, with the text first seen and every later version.

Edit forensics: a player who edits a vote after the fact cannot erase what the bot saw
first. ``posts`` holds the first sighting and the latest one; ``post_versions`` holds each
later sighting whose content differed from the one before it; ``page_fetches`` which
reads of a thread carried which pids, and when (the evidence a director shows in a
dispute: ``forumbot evidence``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from parsers.models import Post

from forumbot.store.base import StoreBase
from forumbot.store.codec import (
    content_hash,
    iso,
    iso_or_none,
    parse_time,
    post_from_dict,
    post_to_dict,
)
from forumbot.store.records import RecordResult, SeenPost


@dataclass(frozen=True, slots=True)
class PageFetch:
    """One read of a thread's pages (or a run of identical reads: ``times`` > 1, the
    last ending at ``repeat_until``)."""

    id: int
    tid: int
    kind: str  # "poll" | "backfill" | "rescan"
    first_page: int
    last_page: int
    total_pages: int | None
    started_at: datetime
    ended_at: datetime
    repeat_until: datetime | None
    times: int
    pids: tuple[int, ...]
    new_pids: tuple[int, ...]
    edited_pids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PostHistory:
    """Everything the store holds about one post, as stored: the post as first seen and
    when, every later version and when it was first seen, and the latest record (whose
    floor may have moved since its content last changed)."""

    pid: int
    tid: int
    first: dict  # post_to_dict form, exactly as stored
    first_seen_at: datetime
    later: tuple[tuple[datetime, dict], ...]  # (first seen at, version) after the first
    latest: dict
    latest_seen_at: datetime | None


class UnknownPostError(LookupError):
    """No post with this pid has been recorded."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        super().__init__(f"机器人没有读到过 pid {pid} 的帖子")


class PostsMixin(StoreBase):
    def record_posts(self, posts: Iterable[Post], seen_at: datetime) -> RecordResult:
        """Store new posts and new versions of known ones. Idempotent: the same content
        seen again changes nothing (a shifted floor number is updated, not a version)."""
        seen = iso(seen_at, what="seen_at")
        result = RecordResult()
        with self.write() as conn:
            for post in posts:
                data = post_to_dict(post)
                digest = content_hash(data)
                row = conn.execute(
                    "SELECT latest_hash, floor, tid FROM posts WHERE pid = ?", (post.pid,)
                ).fetchone()
                text = json.dumps(data, ensure_ascii=False)
                if row is None:
                    conn.execute(
                        "INSERT INTO posts (pid, tid, floor, author, author_uid, posted_at,"
                        " time_precision, first_text, first_html, first_seen_at, first_json,"
                        " latest_json, latest_hash, latest_seen_at)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            post.pid, post.tid, post.floor, post.author, post.author_uid,
                            data["posted_at"], data["time_precision"], post.text, post.html,
                            seen, text, text, digest, seen,
                        ),
                    )
                    result.new.append(post.pid)
                elif row[0] != digest:
                    conn.execute(
                        "INSERT INTO post_versions (pid, seen_at, text, html, edited_by,"
                        " edited_at, json, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            post.pid, seen, post.text, post.html, post.edited_by,
                            iso_or_none(post.edited_at), text, digest,
                        ),
                    )
                    conn.execute(
                        "UPDATE posts SET tid = ?, floor = ?, author = ?, latest_json = ?,"
                        " latest_hash = ?, latest_seen_at = ? WHERE pid = ?",
                        (post.tid, post.floor, post.author, text, digest, seen, post.pid),
                    )
                    if post.pid not in result.edited and post.pid not in result.new:
                        result.edited.append(post.pid)
                elif (row[1], row[2]) != (post.floor, post.tid):
                    # Same content at a new position (an earlier post was deleted).
                    latest = self._latest_dict(post.pid)
                    latest["floor"], latest["tid"] = post.floor, post.tid
                    conn.execute(
                        "UPDATE posts SET floor = ?, tid = ?, latest_json = ? WHERE pid = ?",
                        (post.floor, post.tid, json.dumps(latest, ensure_ascii=False), post.pid),
                    )
        return result

    def _latest_dict(self, pid: int) -> dict:
        row = self._one("SELECT latest_json FROM posts WHERE pid = ?", (pid,))
        if row is None:
            raise UnknownPostError(pid)
        return json.loads(row["latest_json"])

    def has_post(self, pid: int) -> bool:
        return self._one("SELECT 1 AS x FROM posts WHERE pid = ?", (pid,)) is not None

    def first_seen(self, pid: int) -> Post:
        """The post as the bot first saw it."""
        row = self._one("SELECT first_json FROM posts WHERE pid = ?", (pid,))
        if row is None:
            raise UnknownPostError(pid)
        return post_from_dict(json.loads(row["first_json"]))

    def latest(self, pid: int) -> Post:
        """The post as last seen (its current floor number included)."""
        return post_from_dict(self._latest_dict(pid))

    def posts_in_thread(self, tid: int) -> list[Post]:
        """Latest versions of every post seen in ``tid``, in floor order (pid breaks ties;
        posts without a floor come last)."""
        rows = self.db.query(
            "SELECT latest_json FROM posts WHERE tid = ? "
            "ORDER BY floor IS NULL, floor, pid",
            (tid,),
        )
        return [post_from_dict(json.loads(r["latest_json"])) for r in rows]

    def thread_versions(self, tid: int) -> list[tuple[Post, Post]]:
        """``(first seen, latest)`` of every post seen in ``tid``, in the order of
        ``posts_in_thread``, in one query (the agent re-tallies from this every pass).
        A post never changed since first seen comes back as the same object twice."""
        rows = self.db.query(
            "SELECT first_json, latest_json FROM posts WHERE tid = ? "
            "ORDER BY floor IS NULL, floor, pid",
            (tid,),
        )
        out: list[tuple[Post, Post]] = []
        for r in rows:
            latest = post_from_dict(json.loads(r["latest_json"]))
            same = r["first_json"] == r["latest_json"]
            out.append((latest if same else post_from_dict(json.loads(r["first_json"])), latest))
        return out

    def versions(self, pid: int) -> list[SeenPost]:
        """Every distinct version seen, oldest first; index 0 is the first sighting."""
        row = self._one("SELECT first_json, first_seen_at FROM posts WHERE pid = ?", (pid,))
        if row is None:
            raise UnknownPostError(pid)
        first = post_from_dict(json.loads(row["first_json"]))
        out = [SeenPost(parse_time(row["first_seen_at"]), first)]
        for r in self.db.query(
            "SELECT seen_at, json FROM post_versions WHERE pid = ? ORDER BY id", (pid,)
        ):
            out.append(SeenPost(parse_time(r["seen_at"]), post_from_dict(json.loads(r["json"]))))
        return out

    def thread_history(self, tid: int) -> list[PostHistory]:
        """Every post seen in ``tid`` with all its versions, in the order of
        ``thread_versions`` (floor, then pid). For the evidence export, not the poll path."""
        rows = list(self.db.query(
            "SELECT pid, tid, first_json, first_seen_at, latest_json, latest_seen_at FROM posts"
            " WHERE tid = ? ORDER BY floor IS NULL, floor, pid",
            (tid,),
        ))
        later: dict[int, list[tuple[datetime, dict]]] = {}
        for r in self.db.query(
            "SELECT v.pid, v.seen_at, v.json FROM post_versions v JOIN posts p ON p.pid = v.pid"
            " WHERE p.tid = ? ORDER BY v.id",
            (tid,),
        ):
            later.setdefault(r["pid"], []).append((parse_time(r["seen_at"]), json.loads(r["json"])))
        return [
            PostHistory(
                pid=r["pid"], tid=r["tid"], first=json.loads(r["first_json"]),
                first_seen_at=parse_time(r["first_seen_at"]), later=tuple(later.get(r["pid"], ())),
                latest=json.loads(r["latest_json"]),
                latest_seen_at=parse_time(r["latest_seen_at"]) if r["latest_seen_at"] else None,
            )
            for r in rows
        ]

    # -- page fetches --------------------------------------------------------------------

    def record_fetch(
        self,
        tid: int,
        *,
        kind: str,
        first_page: int,
        last_page: int,
        total_pages: int | None,
        pids: Sequence[int],
        result: RecordResult,
        started_at: datetime,
        ended_at: datetime,
    ) -> int:
        """Keep one read of ``tid``'s pages. A read that found what the thread's previous
        read found (same kind and pages, same pids) and nothing new or edited extends
        that row instead of adding one: an idle poll costs one indexed lookup and one
        update. A row's times and new/edited pids are those of its first read; the
        repeats found nothing new. Returns the row's id."""
        listed = json.dumps(list(pids))
        start, end = iso(started_at, what="started_at"), iso(ended_at, what="ended_at")
        with self.write() as conn:
            if not result.new and not result.edited:
                row = conn.execute(
                    "SELECT id, kind, first_page, last_page, total_pages, pids"
                    " FROM page_fetches WHERE tid = ? ORDER BY id DESC LIMIT 1",
                    (tid,),
                ).fetchone()
                if row is not None and tuple(row[1:]) == (kind, first_page, last_page, total_pages, listed):
                    conn.execute(
                        "UPDATE page_fetches SET repeat_until = ?, times = times + 1 WHERE id = ?",
                        (end, row[0]),
                    )
                    return int(row[0])
            cur = conn.execute(
                "INSERT INTO page_fetches (tid, kind, first_page, last_page, total_pages, started_at,"
                " ended_at, times, pids, new_pids, edited_pids) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
                (tid, kind, first_page, last_page, total_pages, start, end, listed,
                 json.dumps(result.new), json.dumps(result.edited)),
            )
            return int(cur.lastrowid or 0)

    def fetches(self, tid: int) -> list[PageFetch]:
        """Every recorded read of ``tid``, oldest first."""
        return [
            PageFetch(
                id=r["id"], tid=r["tid"], kind=r["kind"], first_page=r["first_page"],
                last_page=r["last_page"], total_pages=r["total_pages"],
                started_at=parse_time(r["started_at"]), ended_at=parse_time(r["ended_at"]),
                repeat_until=parse_time(r["repeat_until"]) if r["repeat_until"] else None,
                times=r["times"], pids=tuple(json.loads(r["pids"])),
                new_pids=tuple(json.loads(r["new_pids"] or "[]")),
                edited_pids=tuple(json.loads(r["edited_pids"] or "[]")),
            )
            for r in self.db.query("SELECT * FROM page_fetches WHERE tid = ? ORDER BY id", (tid,))
        ]

    def edited_pids(self, tid: int | None = None) -> list[int]:
        """Pids with more than one version seen (optionally in one thread)."""
        sql = "SELECT DISTINCT v.pid FROM post_versions v JOIN posts p ON p.pid = v.pid"
        params: tuple = ()
        if tid is not None:
            sql += " WHERE p.tid = ?"
            params = (tid,)
        return [r["pid"] for r in self.db.query(sql + " ORDER BY v.pid", params)]
