"""The codes the bot hands the director in its PMs: ``K7M3`` names one draft (or one entry
waiting for 确认) for one matter.

A draft's code is given the first time the draft is told (or listed by 状态) and stays the
same while the matter lasts. It is single-use: spent once a command used it (批准, 驳回,
重发; 查看 does not spend it), and stale once the draft is decided by any route (the desk,
the CLI, another PM) — which needs no bookkeeping here, the draft's state says it. A
failed draft sent again and failing again is a new matter: it gets a new code.

An event code (``kind = "event"``) holds what the director asked to enter (a night, a
sheriff) and the state of the game it was previewed on; ``确认`` carries it out once.

Codes are letter digit letter digit from an alphabet without look-alikes
(``parsers.commands.CODE_LETTERS``/``CODE_DIGITS``), unique in the game and —
under ``forumbot serve`` — across every game of the bot account (``taken``: whether
another game holds a code), so that ``批准 K7M3`` names its game by itself.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from parsers.commands import CODE_DIGITS, CODE_LETTERS
from forumbot.store import Store
from forumbot.store.codec import iso, parse_time, parse_time_or_none

__all__ = ["Code", "Codes"]


@dataclass(frozen=True)
class Code:
    code: str
    kind: str  # draft | event
    draft_id: int | None
    payload: dict[str, Any]
    issued_at: datetime
    used_at: datetime | None
    used_by: int | None  # the pmid of the message that used it

    @property
    def used(self) -> bool:
        return self.used_at is not None


def _code(row: dict[str, Any]) -> Code:
    return Code(row["code"], row["kind"], row["draft_id"], json.loads(row["payload"] or "{}"),
                parse_time(row["issued_at"]), parse_time_or_none(row["used_at"]), row["used_by"])


class Codes:
    def __init__(self, store: Store, rng: random.Random | None = None, *,
                 taken: Callable[[str], bool] | None = None) -> None:
        self.store = store
        self._rng = rng or random.SystemRandom()
        self.taken = taken  # whether another game of the account holds the code

    def owns(self, code: str) -> bool:
        """Whether this game gave ``code`` (used or not)."""
        return self.get(code) is not None

    def get(self, code: str) -> Code | None:
        row = self.store._one("SELECT * FROM notify_codes WHERE code = ?", (code.upper(),))
        return None if row is None else _code(row)

    def for_draft(self, draft_id: int) -> Code | None:
        """The draft's code still to be used (the newest), if it has one."""
        row = self.store._one("SELECT * FROM notify_codes WHERE kind = 'draft' AND draft_id = ? AND used_at IS NULL"
                              " ORDER BY issued_at DESC LIMIT 1", (draft_id,))
        return None if row is None else _code(row)

    def draft_code(self, draft_id: int, *, at: datetime, fresh: bool = False) -> str:
        """The draft's unused code, or a new one (``fresh``: always a new one — a new
        matter of the same draft)."""
        if not fresh and (current := self.for_draft(draft_id)) is not None:
            return current.code
        return self._issue("draft", draft_id, {}, at)

    def event_code(self, payload: dict[str, Any], *, at: datetime) -> str:
        return self._issue("event", None, payload, at)

    def use(self, code: str, *, at: datetime, pmid: int) -> None:
        self.store.db.conn.execute("UPDATE notify_codes SET used_at = ?, used_by = ? WHERE code = ? AND used_at IS NULL",
                                   (iso(at), pmid, code.upper()))

    def _issue(self, kind: str, draft_id: int | None, payload: dict[str, Any], at: datetime) -> str:
        with self.store.write() as conn:
            for _ in range(1000):
                code = "".join(self._rng.choice(CODE_LETTERS if i % 2 == 0 else CODE_DIGITS) for i in range(4))
                if self.get(code) is None and not (self.taken is not None and self.taken(code)):
                    conn.execute("INSERT INTO notify_codes (code, kind, draft_id, payload, issued_at)"
                                 " VALUES (?, ?, ?, ?, ?)",
                                 (code, kind, draft_id, json.dumps(payload, ensure_ascii=False), iso(at)))
                    return code
        raise RuntimeError("no free code left")  # pragma: no cover - 9025 codes per account
