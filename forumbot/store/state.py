"""Thread cursors, the append-only game event log, night results and day snapshots.

The agent rebuilds engine state by replaying ``events`` in id order; nothing here is
ever updated in place, so the history of every change (and who made it) is kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from forumbot.store.base import StoreBase
from forumbot.store.codec import canonical_json, iso, parse_time, sha256_hex
from forumbot.store.records import (
    Event,
    EventKind,
    NightResult,
    Snapshot,
    SnapshotKind,
    ThreadCursor,
)


class StateMixin(StoreBase):
    # -- thread cursors ----------------------------------------------------------------

    def cursor(self, tid: int) -> ThreadCursor | None:
        row = self._one("SELECT * FROM thread_cursors WHERE tid = ?", (tid,))
        if row is None:
            return None
        return ThreadCursor(
            tid=row["tid"],
            last_page=row["last_page"],
            last_pid=row["last_pid"],
            total_pages=row["total_pages"],
            ppp=row["ppp"],
            updated_at=parse_time(row["updated_at"]),
        )

    def save_cursor(self, cursor: ThreadCursor) -> None:
        with self.write() as conn:
            conn.execute(
                "INSERT INTO thread_cursors (tid, last_page, last_pid, total_pages, ppp,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(tid) DO UPDATE SET"
                " last_page = excluded.last_page, last_pid = excluded.last_pid,"
                " total_pages = excluded.total_pages, ppp = excluded.ppp,"
                " updated_at = excluded.updated_at",
                (
                    cursor.tid, cursor.last_page, cursor.last_pid, cursor.total_pages,
                    cursor.ppp, iso(cursor.updated_at, what="cursor updated_at"),
                ),
            )

    # -- events ------------------------------------------------------------------------

    def append_event(
        self,
        day: int,
        kind: EventKind | str,
        payload: Mapping[str, Any],
        *,
        actor: str,
        at: datetime,
        game_at: datetime | None = None,
    ) -> Event:
        """Append a game event entered at ``at`` that took effect at ``game_at`` (SPEC §9);
        it is also written to the audit log with both times and who entered it."""
        kind = EventKind(kind)
        data = json.loads(json.dumps(dict(payload), ensure_ascii=False))  # must be JSON
        with self.write() as conn:
            cur = conn.execute(
                "INSERT INTO events (day, kind, payload, actor, at, game_at) VALUES (?, ?, ?, ?, ?, ?)",
                (day, kind.value, json.dumps(data, ensure_ascii=False), actor, iso(at),
                 iso(game_at, what="event game_at") if game_at is not None else None),
            )
            event_id = int(cur.lastrowid or 0)
            self.audit(actor, f"event.{kind.value}", {
                "event": event_id, "day": day, **data,
                "entered_at": iso(at),
                "game_at": iso(game_at) if game_at is not None else None,
            }, at=at)
        return Event(id=event_id, day=day, kind=kind, payload=data, actor=actor, at=at, game_at=game_at)

    def retract_event(self, event_id: int, why: str, *, actor: str, at: datetime) -> Event:
        """Take back event ``event_id`` (it stays in the history; replay skips it). A
        retraction is an event too, so it can itself be taken back."""
        target = self.event(event_id)
        if not why.strip():
            raise ValueError("撤销要写明理由")
        return self.append_event(target.day, EventKind.RETRACT, {"event": event_id, "why": why},
                                 actor=actor, at=at)

    def event(self, event_id: int) -> Event:
        row = self._one("SELECT * FROM events WHERE id = ?", (event_id,))
        if row is None:
            raise LookupError(f"没有编号为 {event_id} 的事件")
        return _event(row)

    def events(
        self, *, day: int | None = None, kind: EventKind | str | None = None
    ) -> list[Event]:
        """Events in the order they were appended (optionally of one day and/or kind)."""
        sql, params = "SELECT * FROM events WHERE 1 = 1", []
        if day is not None:
            sql += " AND day = ?"
            params.append(day)
        if kind is not None:
            sql += " AND kind = ?"
            params.append(EventKind(kind).value)
        return [_event(r) for r in self.db.query(sql + " ORDER BY id", params)]

    def live_events(self) -> list[Event]:
        """Events that stand: not retracted or corrected by a row that itself stands."""
        return live_events(self.events())

    # -- night results (a ``night`` event; the latest live entry for a day stands) ------

    def record_night(
        self, day: int, out: Sequence[str], *, actor: str, at: datetime,
        game_at: datetime | None = None, corrects: int | None = None,
    ) -> NightResult:
        """The director's entry of who went out during the night before ``day``, in order.
        Entering it again corrects it; both entries stay in the history."""
        payload: dict[str, Any] = {"out": list(out)}
        if corrects is not None:
            payload["corrects"] = corrects
        self.append_event(day, EventKind.NIGHT, payload, actor=actor, at=at, game_at=game_at)
        return NightResult(day=day, out=tuple(out), actor=actor, at=at)

    def night_result(self, day: int) -> NightResult | None:
        nights = [e for e in self.live_events() if e.kind is EventKind.NIGHT and e.day == day]
        if not nights:
            return None
        last = nights[-1]
        return NightResult(day=day, out=tuple(last.payload["out"]), actor=last.actor, at=last.at)

    # -- tallies and rulings, as versioned JSON snapshots ------------------------------

    def _save_snapshot(self, kind: SnapshotKind, day: int, data: Any, at: datetime) -> bool:
        decoded = json.loads(data) if isinstance(data, str) else data
        text = canonical_json(decoded)
        digest = sha256_hex(text)
        with self.write() as conn:
            row = conn.execute(
                "SELECT version, hash FROM snapshots WHERE kind = ? AND day = ?"
                " ORDER BY version DESC LIMIT 1",
                (kind.value, day),
            ).fetchone()
            if row is not None and row[1] == digest:
                return False
            conn.execute(
                "INSERT INTO snapshots (kind, day, version, hash, json, at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (kind.value, day, (row[0] if row else 0) + 1, digest, text, iso(at)),
            )
        return True

    def _snapshot(self, kind: SnapshotKind, day: int, version: int | None) -> Snapshot | None:
        sql = "SELECT * FROM snapshots WHERE kind = ? AND day = ?"
        params: list[Any] = [kind.value, day]
        if version is not None:
            sql += " AND version = ?"
            params.append(version)
        row = self._one(sql + " ORDER BY version DESC LIMIT 1", params)
        if row is None:
            return None
        return Snapshot(
            kind=kind,
            day=day,
            version=row["version"],
            hash=row["hash"],
            data=json.loads(row["json"]),
            at=parse_time(row["at"]),
        )

    def save_tally(self, day: int, tally_json: Any, *, at: datetime) -> bool:
        """Keep ``tally_json`` (a JSON string or JSON-able value) for ``day``. Returns True
        when it differs from the last one kept (a new version was stored)."""
        return self._save_snapshot(SnapshotKind.TALLY, day, tally_json, at)

    def tally(self, day: int, *, version: int | None = None) -> Snapshot | None:
        return self._snapshot(SnapshotKind.TALLY, day, version)

    def save_rulings(self, day: int, rulings_json: Any, *, at: datetime) -> bool:
        return self._save_snapshot(SnapshotKind.RULINGS, day, rulings_json, at)

    def rulings(self, day: int, *, version: int | None = None) -> Snapshot | None:
        return self._snapshot(SnapshotKind.RULINGS, day, version)


def _event(r: Mapping[str, Any]) -> Event:
    game_at = r.get("game_at")
    return Event(
        id=r["id"],
        day=r["day"],
        kind=EventKind(r["kind"]),
        payload=json.loads(r["payload"]),
        actor=r["actor"],
        at=parse_time(r["at"]),
        game_at=parse_time(game_at) if game_at else None,
    )


def standing_ids(events: Sequence[Event]) -> dict[int, bool]:
    """id → whether the row stands. A row is taken back by a later retraction
    (``retract``) or correction (``corrects``) that itself stands; undoing the undo
    brings it back. Takers always come after what they take, so one pass from the
    newest row decides every row."""
    takers: dict[int, list[int]] = {}
    for e in events:
        for target in (e.retracts, e.corrects):
            if target is not None:
                takers.setdefault(target, []).append(e.id)
    standing: dict[int, bool] = {}
    for e in sorted(events, key=lambda e: e.id, reverse=True):
        standing[e.id] = not any(standing.get(t, False) for t in takers.get(e.id, ()))
    return standing


def live_events(events: Sequence[Event]) -> list[Event]:
    """The events that stand (retractions themselves left out), in id order."""
    standing = standing_ids(events)
    return [e for e in events if standing[e.id] and e.kind is not EventKind.RETRACT]
