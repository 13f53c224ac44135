"""Alarms: what the bot cannot fix itself, kept until it clears.

An alarm has a *kind* (what sort of trouble: ``captcha_post``, ``forum_down``…), a *key*
(which instance: one per kind for forum-wide trouble, ``moderation:12`` for draft #12)
and a Chinese *text* saying what is wrong and who must do what. At most one alarm per key
is active; raising it again while active updates its text and detail and keeps its
``raised_at`` (the trouble started then). Clearing stamps ``cleared_at``; the row stays,
so ``forumbot status`` can say when the forum came back, and the audit log has both.

    store.raise_alarm("captcha_post", "captcha_post", "论坛要求验证码：…", at=now)
    store.alarms()                       # the active ones, oldest first
    store.clear_alarm("captcha_post", at=now)
    store.alarms(active=False, cleared_since=now - timedelta(hours=12))   # recently cleared

What the kinds are, their texts and when the agent raises and clears them is
``forumbot.game.alarms``; this module only keeps them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from forumbot.store.base import StoreBase
from forumbot.store.codec import iso, parse_time, parse_time_or_none


@dataclass(frozen=True, slots=True)
class Alarm:
    id: int
    kind: str
    key: str
    text: str  # Chinese, for the director: what is wrong and who must do what
    raised_at: datetime
    cleared_at: datetime | None
    detail: dict[str, Any] = field(default_factory=dict)
    updated_at: datetime | None = None  # the last time it was raised again (text refreshed)

    @property
    def active(self) -> bool:
        return self.cleared_at is None


def _alarm(row: Mapping[str, Any]) -> Alarm:
    return Alarm(
        id=row["id"],
        kind=row["kind"],
        key=row["key"],
        text=row["text"],
        raised_at=parse_time(row["raised_at"]),
        cleared_at=parse_time_or_none(row["cleared_at"]),
        detail=json.loads(row["detail"] or "{}"),
        updated_at=parse_time_or_none(row["updated_at"]),
    )


class AlarmsMixin(StoreBase):
    def alarm(self, key: str) -> Alarm | None:
        """The active alarm with ``key``, or None."""
        row = self._one("SELECT * FROM alarms WHERE key = ? AND cleared_at IS NULL", (key,))
        return None if row is None else _alarm(row)

    def alarms(self, active: bool | None = True, *, kind: str | None = None,
               cleared_since: datetime | None = None) -> list[Alarm]:
        """Alarms, oldest first: the active ones (default), the cleared ones
        (``active=False``, optionally only those cleared at or after ``cleared_since``), or
        every one (``active=None``); ``kind`` narrows to one kind."""
        sql, params = "SELECT * FROM alarms WHERE 1 = 1", []
        if active is True:
            sql += " AND cleared_at IS NULL"
        elif active is False:
            sql += " AND cleared_at IS NOT NULL"
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        found = [_alarm(r) for r in self.db.query(sql + " ORDER BY id", params)]
        if active is False and cleared_since is not None:
            # ISO texts with different offsets do not sort as instants: compared here.
            found = [a for a in found if a.cleared_at is not None and a.cleared_at >= cleared_since]
        return found

    def raise_alarm(self, kind: str, key: str, text: str, *, at: datetime,
                    detail: Mapping[str, Any] | None = None) -> Alarm:
        """Raise the alarm ``key`` (or refresh its text and detail if it is active already:
        its ``raised_at`` stays). Audited when raised and when its text changes."""
        if not text.strip():
            raise ValueError(f"alarm {key!r} needs a text")
        clean = json.dumps(self.scrub(dict(detail or {})), ensure_ascii=False, sort_keys=True)
        text = self.scrub(text)
        with self.write() as conn:
            current = self.alarm(key)
            if current is None:
                conn.execute(
                    "INSERT INTO alarms (kind, key, text, raised_at, detail) VALUES (?, ?, ?, ?, ?)",
                    (kind, key, text, iso(at), clean),
                )
                self.audit("bot", "alarm.raised", {"kind": kind, "key": key, "text": text,
                                                   **json.loads(clean)}, at=at)
            elif current.text != text or json.dumps(current.detail, ensure_ascii=False,
                                                     sort_keys=True) != clean or current.kind != kind:
                conn.execute(
                    "UPDATE alarms SET kind = ?, text = ?, detail = ?, updated_at = ? WHERE id = ?",
                    (kind, text, clean, iso(at), current.id),
                )
                if current.text != text:
                    self.audit("bot", "alarm.updated", {"kind": kind, "key": key, "text": text}, at=at)
            found = self.alarm(key)
        assert found is not None
        return found

    def clear_alarm(self, key: str, *, at: datetime, detail: Mapping[str, Any] | None = None,
                    actor: str = "bot") -> Alarm | None:
        """Clear the active alarm ``key`` (``detail`` is merged into its own, e.g. when the
        forum came back); None when none was active."""
        if self.alarm(key) is None:
            return None  # the agent clears what it does not see every pass: no write for nothing
        with self.write() as conn:
            current = self.alarm(key)
            if current is None:
                return None
            merged = {**current.detail, **self.scrub(dict(detail or {}))}
            conn.execute(
                "UPDATE alarms SET cleared_at = ?, detail = ? WHERE id = ?",
                (iso(at), json.dumps(merged, ensure_ascii=False, sort_keys=True), current.id),
            )
            self.audit(actor, "alarm.cleared", {"kind": current.kind, "key": key,
                                                **self.scrub(dict(detail or {}))}, at=at)
        row = self._one("SELECT * FROM alarms WHERE id = ?", (current.id,))
        assert row is not None
        return _alarm(row)


__all__ = ["Alarm", "AlarmsMixin"]
