"""The PMs the bot sends the director: an outbox of their own, exactly once like posts.

A sibling table (``notify_pms``), not a kind of draft: a PM has a recipient, not a thread;
it is never approved, edited, re-rendered or shown among the game's posts (the desk,
``forumbot drafts``, ``attention()``, the alarms and every ``outbox.drafts()`` reader stay
as they are); and settling an interrupted send follows the PM rules — the conversation,
not the thread, and not before ``PM_SETTLE_SECONDS``. The discipline is the outbox's:

    queued ──claim (committed)──▶ sending ──the forum stored it──▶ sent (pmid)
      ▲                             │  │
      └── the forum refused for now ┘  └──▶ failed (refused for good: the director cannot
          (flood control, closed site,      be sent PMs — UnknownRecipient, PmNotAccepted…)
           nothing sent)
    queued ──▶ dropped (never sent: every matter it told ended before it could go)

Each PM begins with the game it is about (``［第二局］``: one director may run several
games on one bot account) and ends with a marker line, ``（防重发标记 pm-3fa9c1-17-0b5e2d）``
(game, row, random: what the bot looks for in the conversation so that it never sends a
PM twice; earlier versions wrote ``（forumbot:pm-…）``, found the same way). A
row is claimed — state ``sending``, attempts + 1, the attempt's time and the newest pmid
of the conversation known then — and COMMITTED before the forum is asked. A row left
``sending`` (killed mid-send, a dropped connection, a timeout) is looked up in the
conversation by its marker before anything is sent again: found → sent with that pmid;
not found by a read that began at least ``PM_SETTLE_SECONDS`` after the attempt's fate
became unknown (the error, or this process's first sight of a row another left) → sent
again. A read sooner than that proves nothing: the forum lists no message of the current
second, and stamps a PM when its POST is handled — after the client's flood-clock wait,
up to 16 s past the claim. It waits the rest of the interval first. Sending happens under the outbox's
publish lock (one process sends at a time).

A text longer than the forum keeps is cut into parts (``（第1/3条）``): the ``message``
column of both UCenters is a MySQL ``text``, 65535 bytes, silently cut beyond that.
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.discuz import errors
from forumbot.discuz import PM_SETTLE_SECONDS, DiscuzClient
from forumbot.store.marker import game_hash
from forumbot.store import Store
from forumbot.store.codec import iso, parse_time, parse_time_or_none

__all__ = ["PM_MAX_BYTES", "PmBox", "PmRow", "SendOutcome", "pm_marker", "split_text"]

log = logging.getLogger("forumbot.notify")

PM_MAX_BYTES = 65535  # the message column (MySQL text) of X3.5's and 7.2's UCenter
_MARGIN = 512  # the part header, the marker line and a GBK entity or two
PM_MARKER = re.compile(r"(?:forumbot:|防重发标记 )(pm-[0-9a-f]{6}-[0-9]+-[0-9a-f]{6})")
MARKER_LINE = "（防重发标记 {marker}）"  # says what it is, in as few characters as it can

# The forum said no and nothing was stored, but it will likely pass later by itself.
_TRANSIENT = (errors.FloodControl, errors.SiteClosed, errors.NotLoggedIn, errors.BadFormHash,
              errors.PostsPerHourLimit)


def pm_marker(game_key: str, row_id: int, rng: random.Random | None = None) -> str:
    return f"pm-{game_hash(game_key)}-{row_id}-{(rng or random.SystemRandom()).getrandbits(24):06x}"


def split_text(text: str, max_bytes: int, charset: str) -> list[str]:
    """``text`` in parts of at most ``max_bytes`` in ``charset``, cut between lines where a
    line fits, else between characters."""
    def size(s: str) -> int:
        return len(s.encode(charset, "xmlcharrefreplace"))

    if size(text) <= max_bytes:
        return [text]
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        piece = line if not current else "\n" + line
        if size(current + piece) <= max_bytes:
            current += piece
            continue
        if current:
            parts.append(current)
            current = ""
        while size(line) > max_bytes:  # one line longer than a part: cut it
            cut, used = 0, 0
            for ch in line:
                step = size(ch)
                if used + step > max_bytes:
                    break
                used += step
                cut += 1
            parts.append(line[:cut])
            line = line[cut:]
        current = line
    if current:
        parts.append(current)
    return parts


@dataclass(frozen=True)
class PmRow:
    id: int
    to_uid: int
    purpose: str  # notice | reply | foreign | test
    body: str
    marker: str
    part: int
    parts: int
    state: str
    attempts: int
    attempted_at: datetime | None
    since_pmid: int | None
    pmid: int | None
    sent_at: datetime | None
    last_error: str | None
    detail: dict[str, Any]
    created_at: datetime

    @property
    def games(self) -> list[str]:
        """The games it is about, as its first line names them."""
        return [str(g) for g in self.detail.get("games") or ()]

    @property
    def text(self) -> str:
        """What is sent: the game, the part's header, the body, the marker line."""
        names = self.games
        shown = "、".join(names)
        if len(shown) > 40 or len(names) > 5:  # the margin (``_MARGIN``) keeps room for 40 characters
            shown = f"{names[0][:40]}等 {len(names)} 局"
        game = f"［{shown}］" if names else ""
        head = f"（第{self.part}/{self.parts}条）\n" if self.parts > 1 else ""
        return f"{game}{head}{self.body.rstrip()}\n{MARKER_LINE.format(marker=self.marker)}"


def _row(r: Mapping[str, Any]) -> PmRow:
    return PmRow(r["id"], r["to_uid"], r["purpose"], r["body"], r["marker"], r["part"] or 1, r["parts"] or 1,
                 r["state"], r["attempts"] or 0, parse_time_or_none(r["attempted_at"]), r["since_pmid"],
                 r["pmid"], parse_time_or_none(r["sent_at"]), r["last_error"], json.loads(r["detail"] or "{}"),
                 parse_time(r["created_at"]))


@dataclass(frozen=True)
class SendOutcome:
    row: int
    how: str  # sent | found | failed | deferred | unresolved | dropped
    pmid: int | None = None
    error: errors.ForumError | None = None


class PmBox:
    def __init__(self, store: Store, *, rng: random.Random | None = None, max_bytes: int = PM_MAX_BYTES,
                 game: str | None = None) -> None:
        self.store = store
        self.game = game  # the game's name, at the head of every PM (unless ``queue`` names others)
        self._rng = rng
        self.max_bytes = max_bytes
        # row → when this process learned its send's fate was unknown (see ``_send_one``).
        self._unsure: dict[int, datetime] = {}

    # -- reading -----------------------------------------------------------------------

    def get(self, row_id: int) -> PmRow:
        r = self.store._one("SELECT * FROM notify_pms WHERE id = ?", (row_id,))
        if r is None:
            raise LookupError(f"no PM #{row_id}")
        return _row(r)

    def rows(self, *states: str, purpose: str | None = None) -> list[PmRow]:
        sql, params = "SELECT * FROM notify_pms WHERE 1 = 1", []
        if states:
            sql += f" AND state IN ({', '.join('?' * len(states))})"
            params += list(states)
        if purpose:
            sql += " AND purpose = ?"
            params.append(purpose)
        return [_row(r) for r in self.store.db.query(sql + " ORDER BY id", params)]

    def pending(self) -> list[PmRow]:
        return self.rows("sending", "queued")

    def last_sent(self, *, purpose: str | None = None) -> PmRow | None:
        sql = "SELECT * FROM notify_pms WHERE state = 'sent'" + (" AND purpose = ?" if purpose else "")
        r = self.store._one(sql + " ORDER BY sent_at DESC, id DESC LIMIT 1", (purpose,) if purpose else ())
        return None if r is None else _row(r)

    def recent_texts(self, limit: int = 30) -> list[str]:
        """The bot's last PMs, as sent: a quote of one of them in the director's answer is
        not read as the director's own words."""
        return [_row(r).text for r in self.store.db.query(
            "SELECT * FROM notify_pms ORDER BY id DESC LIMIT ?", (limit,))]

    # -- queueing ----------------------------------------------------------------------

    def queue(self, to_uid: int, body: str, *, purpose: str, now: datetime,
              detail: Mapping[str, Any] | None = None, charset: str = "utf-8",
              games: list[str] | None = None) -> list[PmRow]:
        """Queue ``body`` for ``to_uid`` (in parts when it is longer than the forum keeps),
        headed by ``games`` (default: this box's game); joins the caller's transaction."""
        names = games if games is not None else ([self.game] if self.game else [])
        detail = {**dict(detail or {}), **({"games": names} if names else {})}
        parts = split_text(body.strip(), self.max_bytes - _MARGIN, charset)
        rows = []
        with self.store.write() as conn:
            for n, text in enumerate(parts, start=1):
                cur = conn.execute(
                    "INSERT INTO notify_pms (to_uid, purpose, body, marker, part, parts, state, attempts, detail,"
                    " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?)",
                    (to_uid, purpose, text, f"pending-{random.SystemRandom().getrandbits(64):016x}", n, len(parts),
                     json.dumps(self.store.scrub(dict(detail or {})), ensure_ascii=False, sort_keys=True),
                     iso(now), iso(now)))
                row_id = int(cur.lastrowid or 0)
                conn.execute("UPDATE notify_pms SET marker = ? WHERE id = ?",
                             (pm_marker(self.store.game_key, row_id, self._rng), row_id))
                rows.append(self.get(row_id))
        return rows

    def amend(self, row_id: int, body: str, *, now: datetime, charset: str = "utf-8") -> bool:
        """Replace the text of a PM queued and never attempted (what happened since it was
        queued, e.g. the post an approval sent). Nothing else may change: an attempted PM
        may be on the forum already, found by its marker. False when it cannot."""
        if len(body.encode(charset, errors="xmlcharrefreplace")) > self.max_bytes - _MARGIN:
            return False
        with self.store.write() as conn:
            cur = conn.execute("UPDATE notify_pms SET body = ?, updated_at = ? "
                               "WHERE id = ? AND state = 'queued' AND attempts = 0", (body, iso(now), row_id))
        return cur.rowcount == 1

    def drop(self, row_id: int, why: str, *, now: datetime) -> bool:
        """A queued PM never attempted (or certainly not stored) is not sent after all."""
        with self.store.write() as conn:
            cur = conn.execute("UPDATE notify_pms SET state = 'dropped', last_error = ?, updated_at = ?"
                               " WHERE id = ? AND state = 'queued'", (why, iso(now), row_id))
            return cur.rowcount == 1

    # -- sending -----------------------------------------------------------------------

    def send_pending(self, client: DiscuzClient, clock_now: Callable[[], datetime], *,
                     conversation_top: Callable[[int], int | None],
                     pause: Callable[[float], None],
                     may_send: Callable[[], bool] | None = None) -> list[SendOutcome]:
        """Settle interrupted sends, then send what is queued, oldest first. Stops at the
        first PM whose fate is unknown or that the forum refused for now (the rest wait
        for the next pass: their order is the order the director reads them in).
        ``conversation_top(uid)``: the newest pmid known in that conversation (the lookup
        of an interrupted send starts after it). ``may_send()`` False: the next PM is not
        sent now (``forumbot serve``: the account's flood clock is running; the PM stays
        queued for a later pass rather than holding every game for 16 s)."""
        outcomes: list[SendOutcome] = []
        for row in self.pending():
            if may_send is not None and not may_send():
                break
            outcome = self._send_one(row, client, clock_now, conversation_top, pause)
            outcomes.append(outcome)
            if outcome.how in ("unresolved", "deferred"):
                break
        return outcomes

    def _send_one(self, row: PmRow, client: DiscuzClient, clock_now: Callable[[], datetime],
                  conversation_top: Callable[[int], int | None],
                  pause: Callable[[float], None]) -> SendOutcome:
        if row.state == "sending":
            # Tried before: it may be on the forum. Never send before looking, and look only
            # once the second it may have been stored in is over (a message of the current
            # second is unlisted). That second is not the claim's: the client waits for the
            # flood clock (16 s on X3.5) and may wait again for a second chance after the
            # claim, and the forum stamps the PM when the POST is handled. What bounds it is
            # when the attempt's fate became unknown — the error, here, or for a row left by
            # another process (killed, reloaded) the moment it is first seen here, which is
            # after that process ended.
            assert row.attempted_at is not None
            unsure = max(row.attempted_at, self._unsure.setdefault(row.id, clock_now()))
            wait = PM_SETTLE_SECONDS - (clock_now() - unsure).total_seconds()
            if wait > 0:
                pause(wait)
            try:
                found = client.find_own_pm(row.to_uid, row.marker, since_id=row.since_pmid)
            except errors.ForumError as exc:
                self._note(row.id, f"looking for it: {type(exc).__name__}: {exc}", clock_now())
                return SendOutcome(row.id, "unresolved", error=exc)
            if found is not None:
                self._unsure.pop(row.id, None)
                self._done(row.id, found.id, clock_now(), found=True)
                log.info("站内信 #%d：已在对话里找到（pmid %d），不再重发", row.id, found.id)
                return SendOutcome(row.id, "found", pmid=found.id)
        now = clock_now()
        with self.store.write() as conn:
            cur = conn.execute(
                "UPDATE notify_pms SET state = 'sending', attempts = attempts + 1, attempted_at = ?,"
                " since_pmid = ?, updated_at = ? WHERE id = ? AND state = ? AND attempts = ?",
                (iso(now), conversation_top(row.to_uid), iso(now), row.id, row.state, row.attempts))
            if cur.rowcount != 1:
                return SendOutcome(row.id, "unresolved")  # changed under us: look again next pass
        try:
            sent = client.send_pm(row.to_uid, row.text)
        except errors.ForumRefused as exc:
            transient = isinstance(exc, _TRANSIENT)
            with self.store.write() as conn:
                conn.execute("UPDATE notify_pms SET state = ?, last_error = ?, updated_at = ? WHERE id = ?",
                             ("queued" if transient else "failed", f"{type(exc).__name__}: {exc.message}",
                              iso(clock_now()), row.id))
            log.warning("给 uid %d 的站内信 #%d：论坛拒绝（%s）：%s", row.to_uid, row.id,
                        "稍后再发" if transient else "不再发送", exc.message)
            return SendOutcome(row.id, "deferred" if transient else "failed", error=exc)
        except errors.ForumUnavailable as exc:
            if not exc.sent:  # the request never left: nothing can be on the forum
                with self.store.write() as conn:
                    conn.execute("UPDATE notify_pms SET state = 'queued', last_error = ?, updated_at = ?"
                                 " WHERE id = ?", (f"{type(exc).__name__}: {exc}", iso(clock_now()), row.id))
                return SendOutcome(row.id, "deferred", error=exc)
            self._unsure[row.id] = clock_now()
            self._note(row.id, f"{type(exc).__name__}: {exc}", clock_now())
            return SendOutcome(row.id, "unresolved", error=exc)
        except errors.ForumError as exc:  # may have reached the forum: looked up first next time
            self._unsure[row.id] = clock_now()
            self._note(row.id, f"{type(exc).__name__}: {exc}", clock_now())
            return SendOutcome(row.id, "unresolved", error=exc)
        self._unsure.pop(row.id, None)
        self._done(row.id, sent.pmid, clock_now(), found=False)
        return SendOutcome(row.id, "sent", pmid=sent.pmid)

    def _done(self, row_id: int, pmid: int | None, now: datetime, *, found: bool) -> None:
        with self.store.write() as conn:
            conn.execute("UPDATE notify_pms SET state = 'sent', pmid = ?, sent_at = ?, last_error = NULL,"
                         " updated_at = ? WHERE id = ? AND state = 'sending'", (pmid, iso(now), iso(now), row_id))
            self.store.audit("bot", "notify.sent", {"pm": row_id, "pmid": pmid, "found_by_marker": found}, at=now)

    def _note(self, row_id: int, error: str, now: datetime) -> None:
        with self.store.write() as conn:
            conn.execute("UPDATE notify_pms SET last_error = ?, updated_at = ? WHERE id = ?",
                         (self.store.scrub(error), iso(now), row_id))
