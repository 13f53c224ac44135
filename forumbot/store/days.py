"""The game's days as the bot keeps them (SPEC §11), and the director's changes to them.

``days``: one row per day — its start, deadline and change freeze as last laid out (the
config's calendar with every change below), the threads (the ones the bot opened, or the
config named), the closing post's pid, the voting thread's lock. What the times are is
decided by ``forumbot.game.days``; this module only keeps the rows.

``day_changes``: append-only, in the order made: what the director moved (a deadline, an
extension, an early close, a start), with who, when and why. Never updated: the schedule
is always the config's calendar with all of them applied.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.store.base import StoreBase
from forumbot.store.codec import iso, iso_or_none, parse_time, parse_time_or_none


@dataclass(frozen=True, slots=True)
class StoredDay:
    number: int
    start: datetime
    deadline: datetime
    freeze: datetime | None = None
    vote_thread: int | None = None
    discussion_thread: int | None = None
    progress_thread: int | None = None
    accelerated: bool = False
    deadline_pid: int | None = None
    closing_pid: int | None = None  # the bot's closing post (截止)
    locked_at: datetime | None = None  # the bot closed the voting thread
    reopened_at: datetime | None = None  # … and opened it again because the director asked


@dataclass(frozen=True, slots=True)
class DayChange:
    id: int
    day: int
    kind: str  # move_deadline | extend | close_early | move_start
    payload: dict[str, Any]
    at: datetime  # the game time the director made it
    actor: str
    why: str


# The columns the schedule owns (written by ``save_times``); the rest is the bot's record.
_TIMES = ("start", "deadline", "freeze")


def _day(row: Mapping[str, Any]) -> StoredDay:
    return StoredDay(
        number=row["number"], start=parse_time(row["start"]), deadline=parse_time(row["deadline"]),
        freeze=parse_time_or_none(row["freeze"]), vote_thread=row["vote_thread"],
        discussion_thread=row["discussion_thread"], progress_thread=row["progress_thread"],
        accelerated=bool(row["accelerated"]), deadline_pid=row["deadline_pid"], closing_pid=row["closing_pid"],
        locked_at=parse_time_or_none(row["locked_at"]), reopened_at=parse_time_or_none(row["reopened_at"]),
    )


class DaysMixin(StoreBase):
    # Bumped by every write of this connection to the days (``Runtime.config`` derives the
    # game's days again when it changes; another connection's writes change data_version).
    days_revision: int = 0

    # -- the days ----------------------------------------------------------------------

    def stored_days(self) -> tuple[StoredDay, ...]:
        return tuple(_day(r) for r in self.db.query("SELECT * FROM days ORDER BY number"))

    def stored_day(self, number: int) -> StoredDay | None:
        row = self._one("SELECT * FROM days WHERE number = ?", (number,))
        return _day(row) if row is not None else None

    def save_times(self, days: list[tuple[int, datetime, datetime, datetime | None]], *, at: datetime) -> bool:
        """Each day's (number, start, deadline, freeze) as the schedule lays it out now: a
        missing day is added, a day whose times moved is updated (its threads and record
        kept). True when anything changed."""
        known = {r["number"]: (r["start"], r["deadline"], r["freeze"])
                 for r in self.db.query("SELECT number, start, deadline, freeze FROM days")}
        if all(known.get(n) == (iso(s), iso(d), iso_or_none(f)) for n, s, d, f in days):
            return False  # as laid out already: no write (every command opens the game)
        changed = False
        with self.write() as conn:
            for number, start, deadline, freeze in days:
                row = self._one("SELECT start, deadline, freeze FROM days WHERE number = ?", (number,))
                values = (iso(start), iso(deadline), iso_or_none(freeze))
                if row is None:
                    conn.execute("INSERT INTO days (number, start, deadline, freeze, accelerated, updated_at)"
                                 " VALUES (?, ?, ?, ?, 0, ?)", (number, *values, iso(at)))
                    changed = True
                elif tuple(row[k] for k in _TIMES) != values:
                    conn.execute("UPDATE days SET start = ?, deadline = ?, freeze = ?, updated_at = ? WHERE number = ?",
                                 (*values, iso(at), number))
                    changed = True
        self.days_revision += 1
        return changed

    def set_day_thread(self, number: int, role: str, tid: int, *, at: datetime, actor: str = "bot") -> None:
        """Record a day's thread (``role``: vote | discussion | progress) — the one the bot
        opened. Written once: a thread already recorded is kept (and a different one is an
        error: the day has its thread)."""
        column = {"vote": "vote_thread", "discussion": "discussion_thread", "progress": "progress_thread"}[role]
        with self.write() as conn:
            row = self._one(f"SELECT {column} AS tid FROM days WHERE number = ?", (number,))
            if row is None:
                raise KeyError(f"第{number}日不在本局的日程里")
            if row["tid"] is not None:
                if row["tid"] != tid:
                    raise ValueError(f"第{number}日已经有{role}帖 {row['tid']}，不能再记为 {tid}")
                return
            conn.execute(f"UPDATE days SET {column} = ?, updated_at = ? WHERE number = ?", (tid, iso(at), number))
            self.days_revision += 1
            self.audit(actor, "day.thread", {"day": number, "role": role, "tid": tid}, at=at)

    def set_day_fields(self, number: int, *, at: datetime, actor: str = "bot", **fields: Any) -> None:
        """Record what the bot did with a day: ``deadline_pid``, ``closing_pid``,
        ``locked_at``, ``reopened_at`` (None clears one)."""
        allowed = {"deadline_pid", "closing_pid", "locked_at", "reopened_at"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"days: unknown fields {sorted(unknown)}")
        values = {k: iso(v) if isinstance(v, datetime) else v for k, v in fields.items()}
        sets = ", ".join(f"{k} = ?" for k in values)
        with self.write() as conn:
            conn.execute(f"UPDATE days SET {sets}, updated_at = ? WHERE number = ?",
                         (*values.values(), iso(at), number))
            self.days_revision += 1
            self.audit(actor, "day.record", {"day": number, **{k: str(v) if v is not None else None
                                                                 for k, v in values.items()}}, at=at)

    # -- the director's changes --------------------------------------------------------

    def day_changes(self) -> tuple[DayChange, ...]:
        return tuple(DayChange(r["id"], r["day"], r["kind"], json.loads(r["payload"]), parse_time(r["at"]),
                               r["actor"], r["why"] or "")
                     for r in self.db.query("SELECT * FROM day_changes ORDER BY id"))

    def add_day_change(self, day: int, kind: str, payload: Mapping[str, Any], *, at: datetime, actor: str,
                       why: str = "") -> DayChange:
        data = json.loads(json.dumps(dict(payload), ensure_ascii=False))
        with self.write() as conn:
            cur = conn.execute("INSERT INTO day_changes (day, kind, payload, at, actor, why) VALUES (?, ?, ?, ?, ?, ?)",
                               (day, kind, json.dumps(data, ensure_ascii=False), iso(at), actor, why))
            change_id = int(cur.lastrowid or 0)
            self.days_revision += 1
            self.audit(actor, f"day.{kind}", {"change": change_id, "day": day, **data, "why": why}, at=at)
        return DayChange(change_id, day, kind, data, at, actor, why)
