"""The outbox: every bot post is a draft first, and is published exactly once.

States::

    draft ──approve──▶ approved ──claim──▶ publishing ──▶ published
      │                  │  ▲                  │  │            ▲
      │                  │  └──retry── failed ◀┘  │            │ released (a moderator)
      │                  │   (the forum refused:  └──▶ pending_moderation
      │                  │    nothing was stored)     (stored, held for a moderator)
      └──reject──────────┴──▶ rejected          (superseded: a newer running count won)

A post the forum holds for moderation is on the forum already: it is never sent again.
The agent looks each pass whether a moderator released it (``released``); the director
may give up waiting (``reject``: it may still appear if a moderator releases it later).

Exactly once. Each draft carries a marker (``forumbot.store.marker``) chosen and committed when
the draft is created, and written into the message. Before a send, the draft is moved to
``publishing`` (attempts + 1) and that is COMMITTED; then the forum is asked. If the
process dies, or the request fails in a way that may have reached the forum
(``ForumUnavailable``, or anything unexpected), the draft stays ``publishing``. A draft
that was ever attempted is looked up on the forum by its marker BEFORE anything is sent
again: found → published with that pid; not found → sent again. Only one process
publishes at a time (an OS file lock beside the database, released by the kernel even on
SIGKILL), and every state change is a compare-and-set under ``BEGIN IMMEDIATE``, so a
director approving, editing or rejecting at the same moment cannot cause a second send.

New threads (``DraftKind.NEW_THREAD``, ``create_new_thread``): the draft names the board
(``fid``) and the subject; its ``tid`` is 0 until the forum names the thread, then the
new thread's tid (``pid`` its first post's), which callers read from the published draft
(``thread_of``). The same protocol holds: claimed and committed before the POST; a draft
ever attempted is looked up first — on the board, by the marker in the first post of the
threads the bot's account started (``ThreadPublisher.find_thread_marker``) — so a kill
between the forum storing the thread and the outbox recording its tid finds that thread
again instead of opening a second one.

Nothing is sent into a thread the store says is blocked (``Store.posting_block``): another
state of the same game posted in the game's threads (this database replaced a lost one,
or the config is a copy), or another game posted in that thread. Such drafts wait
(``PublishHow.WAITING``) until the director decides (``forumbot.game.provenance``).
"""

from __future__ import annotations

import difflib
import fcntl
import json
import os
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from forumbot.discuz import errors
from forumbot.store.marker import add_marker, game_hash, make_marker, strip_marker
from forumbot.store import Store
from forumbot.store.codec import iso, parse_time, parse_time_or_none
from forumbot.wording import draft_kind_zh, draft_state_zh


class DraftKind(StrEnum):
    RUNNING_COUNT = "running_count"
    FINAL_COUNT = "final_count"
    ANNOUNCEMENT = "announcement"
    CARD_NOTICE = "card_notice"
    COUNT_REPLY = "count_reply"  # a count posted in answer to a player's 计票 request
    ACCELERATION_NOTICE = "acceleration_notice"  # the director confirmed 加速 for a day
    BADGE_NOTICE = "badge_notice"  # the badge passed (successor, random draw)
    REMINDER = "reminder"  # before the change freeze or the deadline (SPEC §11)
    CLOSING = "closing"  # the closing post (截止) at the deadline: on 7.2 its pid is the deadline's
    NEW_THREAD = "new_thread"  # a new thread in the game's board (a day's voting thread…)
    SEALED_DEAL = "sealed_deal"  # the commitment to the identities, at the start (SPEC §10.1)
    GAME_END = "game_end"  # the winner, the rule, the reveal text and its commitment (§10.5)


class Policy(StrEnum):
    AUTO = "auto"  # approved by "bot" when drafted
    MANUAL = "manual"  # waits for the director


# SPEC §4: counts the players asked for go out on their own; anything that decides or
# announces the game waits for the director.
DEFAULT_POLICIES: Mapping[DraftKind, Policy] = {
    DraftKind.RUNNING_COUNT: Policy.AUTO,
    DraftKind.COUNT_REPLY: Policy.AUTO,
    DraftKind.FINAL_COUNT: Policy.MANUAL,
    DraftKind.ANNOUNCEMENT: Policy.MANUAL,
    DraftKind.CARD_NOTICE: Policy.MANUAL,
    DraftKind.ACCELERATION_NOTICE: Policy.MANUAL,
    DraftKind.BADGE_NOTICE: Policy.MANUAL,
    # The calendar's routine posts say only what the schedule says; a closing post waiting
    # for approval would leave the deadline's minute unsettled on 7.2.
    DraftKind.REMINDER: Policy.AUTO,
    DraftKind.CLOSING: Policy.AUTO,
    DraftKind.NEW_THREAD: Policy.MANUAL,
    DraftKind.SEALED_DEAL: Policy.MANUAL,
    DraftKind.GAME_END: Policy.MANUAL,
}

# Kinds where a newer draft makes an older unpublished one of the same thread pointless.
SUPERSEDING_KINDS = frozenset({DraftKind.RUNNING_COUNT})


class DraftState(StrEnum):
    DRAFT = "draft"
    APPROVED = "approved"
    PUBLISHING = "publishing"
    PUBLISHED = "published"
    PENDING_MODERATION = "pending_moderation"  # stored by the forum, held for a moderator
    FAILED = "failed"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"


OPEN_STATES = (DraftState.DRAFT, DraftState.APPROVED, DraftState.PUBLISHING, DraftState.FAILED,
               DraftState.PENDING_MODERATION)
# Sent to the forum (or being sent): never sent again, never re-rendered.
SENT_STATES = (DraftState.PUBLISHING, DraftState.PENDING_MODERATION, DraftState.PUBLISHED)


class PublishHow(StrEnum):
    SENT = "sent"  # posted (or edited) now
    FOUND = "found"  # an earlier, interrupted attempt was found on the forum by its marker
    FAILED = "failed"  # the forum refused for good: the director must look (retry/reject)
    DEFERRED = "deferred"  # the forum refused for now (flood control, site closed…): later
    UNRESOLVED = "unresolved"  # may or may not be on the forum: looked up before any resend
    SUPERSEDED = "superseded"  # not sent: its renderer said it is no longer worth sending
    WAITING = "waiting"  # not sent now: its renderer said to wait (e.g. for a moderator)
    RELEASED = "released"  # a post held for moderation was released: now published


@dataclass(frozen=True, slots=True)
class Draft:
    id: int
    kind: DraftKind
    tid: int
    body: str  # BBCode as it will be posted, without the marker line
    original_body: str  # as drafted by the bot (differs when the director edited it)
    quote_pid: int | None
    edit_pid: int | None  # publishing this draft means editing that post in place
    day: int | None
    dedupe_key: str | None
    created_at: datetime
    state: DraftState
    approved_by: str | None
    approved_at: datetime | None
    pid: int | None  # once published (when held for moderation: the pid if the forum named it)
    marker: str
    attempts: int
    last_error: str | None
    published_at: datetime | None
    superseded_by: int | None
    # New threads only (DraftKind.NEW_THREAD): the board and the subject (as drafted, and
    # as the director left it). ``tid`` is 0 until the forum names the new thread.
    fid: int | None = None
    subject: str | None = None
    original_subject: str | None = None

    @property
    def edited(self) -> bool:
        return self.body != self.original_body or self.subject != self.original_subject

    @property
    def is_new_thread(self) -> bool:
        return self.kind is DraftKind.NEW_THREAD

    @property
    def message(self) -> str:
        """What is sent to the forum: the body with its marker line."""
        return add_marker(self.body, self.marker)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    at: datetime
    from_state: DraftState | None
    to_state: DraftState
    actor: str
    detail: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PublishOutcome:
    draft_id: int
    how: PublishHow
    state: DraftState
    pid: int | None = None
    error: str | None = None
    moderated: bool = False  # the forum holds the post for a moderator
    # The forum's refusal itself (FAILED / DEFERRED), for the alarms: its class says what
    # kind of trouble it is (captcha, newbie period, thread closed…).
    refusal: errors.ForumRefused | None = field(default=None, compare=False, repr=False)
    tid: int | None = None  # a new thread's, once the forum named it


class Sent(Protocol):
    """What the forum did with a reply (``forumbot.discuz.ReplyResult`` is one)."""

    @property
    def pid(self) -> int | None: ...  # None when the forum did not name it

    @property
    def moderated(self) -> bool: ...  # stored, but invisible until a moderator releases it


@dataclass(frozen=True, slots=True)
class Refresh:
    """What a draft becomes at the moment it is published (see ``Renderer``)."""

    body: str | None = None  # the body rendered now (None: as drafted)
    edit_pid: int | None = None  # the post to edit in place (None: a new post)
    drop: str | None = None  # a reason not to send it at all (it is superseded)
    wait: str | None = None  # a reason not to send it yet (it stays approved, not tried)


class Renderer(Protocol):
    def __call__(self, draft: Draft, now: datetime) -> Refresh | None:
        """A count is rendered when it is published, not when drafted: the tally and the
        time left as they are now, and the post it edits in place. None: send as is."""
        ...


def hand_edited(draft: Draft) -> bool:
    """The director changed the words (not merely line endings or trailing blanks): such a
    body is published exactly as edited, never re-rendered."""
    def norm(text: str) -> str:
        return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").strip().split("\n"))

    return norm(draft.body) != norm(draft.original_body)


class Publisher(Protocol):
    def reply(self, tid: int, message: str, *, quote_pid: int | None = None) -> Sent:
        """Post a reply: its pid, and whether the forum holds it for moderation."""
        ...

    def edit(self, tid: int, pid: int, message: str) -> Sent | None:
        """Replace post ``pid``'s text; what the forum did (None: published as is)."""
        ...

    def find_marker(self, tid: int, marker: str) -> int | None:
        """The pid of a bot post in ``tid`` containing ``marker``, or None."""
        ...


class ThreadSent(Protocol):
    """What the forum did with a new thread (``forumbot.discuz.NewThreadResult`` is one)."""

    @property
    def tid(self) -> int | None: ...  # None: not named (7.2 holding it for moderation)

    @property
    def pid(self) -> int | None: ...  # its first post, when known

    @property
    def moderated(self) -> bool: ...


class ThreadPublisher(Publisher, Protocol):
    """A ``Publisher`` that also opens new threads (what ``NEW_THREAD`` drafts need)."""

    def new_thread(self, fid: int, subject: str, message: str) -> ThreadSent:
        """Open thread ``subject`` with ``message`` as its first post in board ``fid``."""
        ...

    def find_thread_marker(self, fid: int, marker: str, *,
                           skip: Collection[int] = ()) -> tuple[int, int | None] | None:
        """(tid, first pid) of the thread of board ``fid`` the bot started whose first post
        carries ``marker`` (tids in ``skip`` are known threads: not looked at), or None."""
        ...


class OutboxError(Exception):
    pass


class UnknownDraftError(OutboxError, LookupError):
    def __init__(self, draft_id: int) -> None:
        self.draft_id = draft_id
        super().__init__(f"没有草稿 #{draft_id}（草稿编号见 forumbot drafts --all）")


class InvalidTransitionError(OutboxError, ValueError):
    """The draft is not in a state that allows this (e.g. approving a published draft)."""


class PublisherBusyError(OutboxError):
    """Another process (or thread) is publishing from this outbox right now."""


# Refusals of an edit in place after which a new post is sent instead: the forum stored
# nothing (edit time limit, no permission to edit, the post was deleted).
_EDIT_REFUSALS: tuple[type[errors.ForumRefused], ...] = (errors.EditNotAllowed, errors.PostNotFound)

# Refusals that certainly stored nothing and will likely pass later without anyone doing
# anything: the draft goes back to ``approved`` instead of ``failed``.
_TRANSIENT_REFUSALS: tuple[type[errors.ForumRefused], ...] = (
    errors.FloodControl,
    errors.PostsPerHourLimit,
    errors.SiteClosed,
    errors.NotLoggedIn,
    errors.BadFormHash,
)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _draft(row: Mapping[str, Any]) -> Draft:
    return Draft(
        id=row["id"],
        kind=DraftKind(row["kind"]),
        tid=row["tid"],
        body=row["body"],
        original_body=row["original_body"],
        quote_pid=row["quote_pid"],
        edit_pid=row["edit_pid"],
        day=row["day"],
        dedupe_key=row["dedupe_key"],
        created_at=parse_time(row["created_at"]),
        state=DraftState(row["state"]),
        approved_by=row["approved_by"],
        approved_at=parse_time_or_none(row["approved_at"]),
        pid=row["pid"],
        marker=row["marker"],
        attempts=row["attempts"] or 0,
        last_error=row["last_error"],
        published_at=parse_time_or_none(row["published_at"]),
        superseded_by=row["superseded_by"],
        fid=row.get("fid"),
        subject=row.get("subject"),
        original_subject=row.get("original_subject"),
    )


class Outbox:
    """Drafts, approval and exactly-once publishing over one game's ``Store``."""

    def __init__(
        self,
        store: Store,
        policies: Mapping[DraftKind | str, Policy | str] | None = None,
        *,
        game: str | None = None,
    ) -> None:
        """``game``: the game's hash for the markers (``forumbot.game.provenance.game_hash_for``,
        from the config); without one, the hash of the store's own key."""
        self.store = store
        self.policies: dict[DraftKind, Policy] = dict(DEFAULT_POLICIES)
        for kind, policy in (policies or {}).items():
            self.policies[DraftKind(kind)] = Policy(policy)
        self._game = game
        self._thread_lock = threading.Lock()  # for a ':memory:' store (no lock file)

    @property
    def game(self) -> str:
        """The game's hash, as the markers carry it."""
        return self._game or game_hash(self.store.game_key)

    # -- reading -----------------------------------------------------------------------

    def get(self, draft_id: int) -> Draft:
        row = self.store._one("SELECT * FROM outbox WHERE id = ?", (draft_id,))
        if row is None:
            raise UnknownDraftError(draft_id)
        return _draft(row)

    def drafts(self, *states: DraftState | str) -> list[Draft]:
        """Drafts in any of ``states`` (all when none given), oldest first."""
        sql, params = "SELECT * FROM outbox", [DraftState(s).value for s in states]
        if params:
            sql += f" WHERE state IN ({', '.join('?' * len(params))})"
        return [_draft(r) for r in self.store.db.query(sql + " ORDER BY id", params)]

    def pending(self) -> list[Draft]:
        """Everything not finished: waiting for approval, approved, publishing or failed."""
        return self.drafts(*OPEN_STATES)

    def awaiting_approval(self) -> list[Draft]:
        return self.drafts(DraftState.DRAFT)

    def by_dedupe_key(self, key: str) -> Draft | None:
        row = self.store._one("SELECT * FROM outbox WHERE dedupe_key = ?", (key,))
        return None if row is None else _draft(row)

    def history(self, draft_id: int) -> list[HistoryEntry]:
        self.get(draft_id)
        return [
            HistoryEntry(
                at=parse_time(r["at"]),
                from_state=DraftState(r["from_state"]) if r["from_state"] else None,
                to_state=DraftState(r["to_state"]),
                actor=r["actor"],
                detail=json.loads(r["detail"]),
            )
            for r in self.store.db.query(
                "SELECT * FROM outbox_history WHERE draft_id = ? ORDER BY id", (draft_id,)
            )
        ]

    def last_published(
        self, kind: DraftKind | str, tid: int, *, excluding: int | None = None
    ) -> Draft | None:
        row = self.store._one(
            "SELECT * FROM outbox WHERE kind = ? AND tid = ? AND state = ? AND id != ?"
            " ORDER BY published_at DESC, id DESC LIMIT 1",
            (DraftKind(kind).value, tid, DraftState.PUBLISHED.value, excluding or -1),
        )
        return None if row is None else _draft(row)

    def diff_against_last_published(self, draft_id: int) -> str:
        """Unified diff from the last published post of the same kind and thread to this
        draft's body ('' when identical; against nothing when none was published)."""
        draft = self.get(draft_id)
        last = self.last_published(draft.kind, draft.tid, excluding=draft.id)
        before = last.body if last else ""
        label = f"已发布的 #{last.id}（pid {last.pid}）" if last else "（此前未发布过）"
        return "\n".join(
            difflib.unified_diff(
                before.splitlines(),
                draft.body.splitlines(),
                fromfile=label,
                tofile=f"草稿 #{draft.id}",
                lineterm="",
            )
        )

    # -- state changes -----------------------------------------------------------------

    def _claim(self, draft: Draft, sendable, refresh, now: datetime, *,
               edit_in_place: bool) -> Draft | PublishOutcome | None:
        """Claim ``draft`` for one attempt: its state and attempt count committed before
        anything is sent, with what was rendered for it (``refresh``: a newer text, a
        reason to drop it, the post to edit in place when ``edit_in_place``). None when it
        changed meanwhile (rejected, superseded: not ours to send); an outcome when the
        render dropped it; else the claimed draft."""
        with self.store.write():
            current = self.get(draft.id)
            if current.state not in sendable or current.attempts != draft.attempts:
                return None
            sets: dict[str, Any] = {"attempts": current.attempts + 1}
            detail: dict[str, Any] = {"attempt": current.attempts + 1}
            if refresh is not None:
                edited = hand_edited(current) or current.body != draft.body
                if refresh.drop and not edited:
                    done = self._transition(
                        draft.id, sendable, DraftState.SUPERSEDED, actor="bot", now=now,
                        detail={"why": refresh.drop}, sets={"last_error": None},
                    )
                    return PublishOutcome(draft.id, PublishHow.SUPERSEDED, done.state, error=refresh.drop)
                if refresh.body is not None and not edited and strip_marker(refresh.body) != current.body:
                    fresh = strip_marker(refresh.body)
                    sets.update(body=fresh, original_body=fresh)
                    detail["rendered_at_publish"] = True
                if edit_in_place and refresh.edit_pid != current.edit_pid:
                    sets["edit_pid"] = refresh.edit_pid
                    detail["edit_pid"] = refresh.edit_pid
            return self._transition(draft.id, sendable, DraftState.PUBLISHING, actor="bot",
                                    now=now, detail=detail, sets=sets)

    def _transition(
        self,
        draft_id: int,
        allowed: tuple[DraftState, ...],
        to: DraftState,
        *,
        actor: str,
        now: datetime,
        detail: Mapping[str, Any] | None = None,
        sets: Mapping[str, Any] | None = None,
    ) -> Draft:
        """Compare-and-set the state (must be inside ``store.write()``), with history."""
        current = self.get(draft_id)
        if current.state not in allowed:
            raise InvalidTransitionError(
                f"草稿 #{draft_id} 现在是「{draft_state_zh(current.state)}」，不能再改为「{draft_state_zh(to)}」"
            )
        columns = {"state": to.value, "updated_at": iso(now), **(sets or {})}
        assignments = ", ".join(f"{name} = ?" for name in columns)
        cur = self.store.db.conn.execute(
            f"UPDATE outbox SET {assignments} WHERE id = ? AND state = ?",
            (*columns.values(), draft_id, current.state.value),
        )
        if cur.rowcount != 1:  # cannot happen under BEGIN IMMEDIATE; never act on it anyway
            raise InvalidTransitionError(f"草稿 #{draft_id} 刚刚被机器人改变了状态：请刷新后再试")
        self._log(draft_id, current.state, to, actor=actor, now=now, detail=detail or {})
        return self.get(draft_id)

    def _log(
        self,
        draft_id: int,
        from_state: DraftState | None,
        to: DraftState,
        *,
        actor: str,
        now: datetime,
        detail: Mapping[str, Any],
    ) -> None:
        clean = self.store.scrub(dict(detail))
        self.store.db.conn.execute(
            "INSERT INTO outbox_history (draft_id, at, from_state, to_state, actor, detail)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                draft_id, iso(now), from_state.value if from_state else None, to.value,
                actor, json.dumps(clean, ensure_ascii=False, sort_keys=True),
            ),
        )
        self.store.audit(
            actor,
            f"outbox.{to.value}",
            {"draft": draft_id, "from": from_state.value if from_state else None, **clean},
            at=now,
        )

    def create_draft(
        self,
        kind: DraftKind | str,
        tid: int,
        body: str,
        *,
        now: datetime,
        day: int | None = None,
        quote_pid: int | None = None,
        edit_pid: int | None = None,
        dedupe_key: str | None = None,
        actor: str = "bot",
    ) -> Draft:
        """Draft a post. With ``dedupe_key`` already used (in any state), the existing
        draft is returned unchanged: the same final count is never drafted twice. An
        ``auto`` kind is approved by "bot" at once; a new running count supersedes older
        unpublished running counts of the same thread."""
        kind = DraftKind(kind)
        if kind is DraftKind.NEW_THREAD:
            raise OutboxError("新帖要有版块和标题：请用 create_new_thread 起草")
        body = strip_marker(body)
        if not body.strip():
            raise OutboxError(f"帖子内容不能为空（帖子 {tid} 的{draft_kind_zh(kind)}）")
        auto = self.policies[kind] is Policy.AUTO
        with self.store.write() as conn:
            if dedupe_key is not None:
                existing = self.by_dedupe_key(dedupe_key)
                if existing is not None:
                    return existing
            cur = conn.execute(
                "INSERT INTO outbox (kind, tid, body, original_body, quote_pid, edit_pid, day,"
                " dedupe_key, created_at, updated_at, state, marker, attempts)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
                (
                    kind.value, tid, body, body, quote_pid, edit_pid, day, dedupe_key,
                    iso(now), iso(now), DraftState.DRAFT.value,
                    f"pending-{os.urandom(8).hex()}",
                ),
            )
            draft_id = int(cur.lastrowid or 0)
            marker = make_marker(game=self.game, state=self.store.state_id, draft_id=draft_id,
                                 kind=kind.value, day=day)
            conn.execute("UPDATE outbox SET marker = ? WHERE id = ?", (marker, draft_id))
            self._log(
                draft_id, None, DraftState.DRAFT, actor=actor, now=now,
                detail={"kind": kind.value, "tid": tid, "day": day, "dedupe_key": dedupe_key,
                        "marker": marker, "policy": self.policies[kind].value},
            )
            if auto:
                self._transition(
                    draft_id, (DraftState.DRAFT,), DraftState.APPROVED, actor="bot", now=now,
                    detail={"policy": "auto"},
                    sets={"approved_by": "bot", "approved_at": iso(now)},
                )
            if kind in SUPERSEDING_KINDS:
                self._supersede_older(draft_id, kind, tid, now=now)
        return self.get(draft_id)

    def create_new_thread(
        self,
        fid: int,
        subject: str,
        body: str,
        *,
        now: datetime,
        day: int | None = None,
        dedupe_key: str | None = None,
        actor: str = "bot",
    ) -> Draft:
        """Draft a new thread ``subject`` in board ``fid`` with ``body`` as its first post
        (a day's voting or discussion thread). With ``dedupe_key`` already used, the
        existing draft is returned unchanged: a day's thread is never drafted twice. Its
        ``tid`` is 0 until published; then the new thread's."""
        kind = DraftKind.NEW_THREAD
        body = strip_marker(body)
        subject = " ".join(subject.split())
        if not subject:
            raise OutboxError(f"新帖的标题不能为空（版块 {fid}）")
        if not body.strip():
            raise OutboxError(f"新帖的内容不能为空（版块 {fid}：{subject}）")
        if fid <= 0:
            raise OutboxError(f"新帖要有版块（fid），而不是 {fid}")
        auto = self.policies[kind] is Policy.AUTO
        with self.store.write() as conn:
            if dedupe_key is not None:
                existing = self.by_dedupe_key(dedupe_key)
                if existing is not None:
                    return existing
            cur = conn.execute(
                "INSERT INTO outbox (kind, tid, fid, subject, original_subject, body, original_body,"
                " day, dedupe_key, created_at, updated_at, state, marker, attempts)"
                " VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
                (kind.value, fid, subject, subject, body, body, day, dedupe_key, iso(now), iso(now),
                 DraftState.DRAFT.value, f"pending-{os.urandom(8).hex()}"),
            )
            draft_id = int(cur.lastrowid or 0)
            marker = make_marker(game=self.game, state=self.store.state_id, draft_id=draft_id,
                                 kind=kind.value, day=day)
            conn.execute("UPDATE outbox SET marker = ? WHERE id = ?", (marker, draft_id))
            self._log(
                draft_id, None, DraftState.DRAFT, actor=actor, now=now,
                detail={"kind": kind.value, "fid": fid, "subject": subject, "day": day,
                        "dedupe_key": dedupe_key, "marker": marker, "policy": self.policies[kind].value},
            )
            if auto:
                self._transition(
                    draft_id, (DraftState.DRAFT,), DraftState.APPROVED, actor="bot", now=now,
                    detail={"policy": "auto"},
                    sets={"approved_by": "bot", "approved_at": iso(now)},
                )
        return self.get(draft_id)

    def thread_of(self, draft_id: int) -> int | None:
        """The tid of the thread a new-thread draft opened (published, or held for
        moderation where the forum named it), or None while it is not known."""
        draft = self.get(draft_id)
        if not draft.is_new_thread or draft.state not in SENT_STATES or draft.tid <= 0:
            return None
        return draft.tid

    def released_thread(self, draft_id: int, tid: int, pid: int | None, *, now: datetime,
                        actor: str = "bot") -> Draft:
        """A new thread held for moderation is visible now (a moderator released it)."""
        with self.store.write():
            return self._transition(
                draft_id, (DraftState.PENDING_MODERATION,), DraftState.PUBLISHED, actor=actor,
                now=now, detail={"tid": tid, "pid": pid, "released": True},
                sets={"tid": tid, "pid": pid, "published_at": iso(now), "last_error": None},
            )

    def _known_threads(self, fid: int | None, excluding: int) -> list[int]:
        rows = self.store.db.query(
            "SELECT tid FROM outbox WHERE kind = ? AND fid IS ? AND id != ? AND tid > 0",
            (DraftKind.NEW_THREAD.value, fid, excluding))
        return sorted({int(r["tid"]) for r in rows})

    def record_found(
        self,
        kind: DraftKind | str,
        tid: int,
        pid: int,
        *,
        marker: str,
        body: str,
        day: int | None,
        dedupe_key: str | None,
        posted_at: datetime,
        now: datetime,
        actor: str,
    ) -> Draft:
        """A post on the forum this state did not send — another state's, taken over as
        this state's history (``forumbot.game.provenance``) — kept as a published draft with the
        other state's marker and the text as read: the kind's dedupe key is taken, so it is
        never drafted again, and the game reads its result like any published post's. The
        same marker recorded twice returns the first row."""
        kind = DraftKind(kind)
        with self.store.write() as conn:
            row = self.store._one("SELECT id FROM outbox WHERE marker = ?", (marker,))
            if row is not None:
                return self.get(row["id"])
            if dedupe_key is not None and (existing := self.by_dedupe_key(dedupe_key)) is not None:
                raise OutboxError(f"dedupe key {dedupe_key} is taken by draft #{existing.id}")
            text = strip_marker(body).strip() or "（论坛上的帖子）"
            cur = conn.execute(
                "INSERT INTO outbox (kind, tid, body, original_body, day, dedupe_key, created_at, updated_at,"
                " state, approved_by, approved_at, pid, marker, attempts, published_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                (kind.value, tid, text, text, day, dedupe_key, iso(now), iso(now), DraftState.PUBLISHED.value,
                 actor, iso(now), pid, marker, iso(posted_at)),
            )
            draft_id = int(cur.lastrowid or 0)
            self._log(draft_id, None, DraftState.PUBLISHED, actor=actor, now=now,
                      detail={"kind": kind.value, "tid": tid, "day": day, "pid": pid, "marker": marker,
                              "dedupe_key": dedupe_key, "taken_over": True})
        return self.get(draft_id)

    def _supersede_older(self, newer: int, kind: DraftKind, tid: int, *, now: datetime) -> None:
        waiting = (DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED)
        rows = self.store.db.query(
            f"SELECT id FROM outbox WHERE kind = ? AND tid = ? AND id < ?"
            f" AND state IN ({', '.join('?' * len(waiting))})",
            (kind.value, tid, newer, *(s.value for s in waiting)),
        )
        for row in list(rows):
            self._transition(
                row["id"], waiting, DraftState.SUPERSEDED, actor="bot", now=now,
                detail={"by": newer}, sets={"superseded_by": newer},
            )

    def supersede(self, draft_id: int, *, by: int, why: str, now: datetime, actor: str = "bot") -> Draft | None:
        """Never publish this draft: ``by`` speaks for it now (``why`` goes to its history
        and the audit). Only a draft not sent yet (waiting, approved, failed); one being
        sent or on the forum is left as it is (None)."""
        waiting = (DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED)
        with self.store.write():
            if self.get(draft_id).state not in waiting:
                return None
            return self._transition(
                draft_id, waiting, DraftState.SUPERSEDED, actor=actor, now=now,
                detail={"by": by, "why": why}, sets={"superseded_by": by, "last_error": None},
            )

    def approve(
        self, draft_id: int, actor: str, body: str | None = None, *, now: datetime,
        subject: str | None = None,
    ) -> Draft:
        """Approve a draft, optionally with the director's edited body (the bot's original
        is kept) — and for a new thread, ``subject``, the director's edited subject. An
        approved draft not yet being published may be re-approved with a new body, and a
        failed one approved again (edited or not: it is looked up by its marker before it
        is sent); one being published or done may not."""
        with self.store.write():
            sets: dict[str, Any] = {"approved_by": actor, "approved_at": iso(now)}
            detail: dict[str, Any] = {}
            if subject is not None:
                current = self.get(draft_id)
                if not current.is_new_thread:
                    raise OutboxError(f"草稿 #{draft_id} 不是新帖，没有标题可改")
                subject = " ".join(subject.split())
                if not subject:
                    raise OutboxError(f"新帖的标题不能为空（草稿 #{draft_id}）")
                if subject != current.subject:
                    sets["subject"] = subject
                    detail["subject_edited"] = True
            if body is not None:
                body = strip_marker(body)
                if not body.strip():
                    raise OutboxError(f"帖子内容不能为空（草稿 #{draft_id}）")
                if body != self.get(draft_id).body:
                    sets["body"] = body
                    detail["edited"] = True
            return self._transition(
                draft_id, (DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED),
                DraftState.APPROVED,
                actor=actor, now=now, detail=detail, sets=sets,
            )

    def reject(self, draft_id: int, actor: str, why: str, *, now: datetime) -> Draft:
        """Never publish this draft. A post held for moderation may be given up too (the
        director stops waiting for it): it is on the forum's queue, so a moderator may
        still release it; the bot no longer looks."""
        with self.store.write():
            return self._transition(
                draft_id, (DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED,
                           DraftState.PENDING_MODERATION),
                DraftState.REJECTED, actor=actor, now=now, detail={"why": why},
                sets={"last_error": None},
            )

    def released(self, draft_id: int, pid: int, *, now: datetime, actor: str = "bot") -> Draft:
        """A post held for moderation is visible now (a moderator released it) as ``pid``."""
        with self.store.write():
            return self._transition(
                draft_id, (DraftState.PENDING_MODERATION,), DraftState.PUBLISHED, actor=actor,
                now=now, detail={"pid": pid, "released": True},
                sets={"pid": pid, "published_at": iso(now), "last_error": None},
            )

    def moderation(self, draft_id: int) -> dict[str, Any]:
        """What was recorded when the forum held ``draft_id`` for moderation: ``pid`` (None
        when the forum did not name it), ``since_pid`` (every post of the thread the bot had
        seen then: the held post's pid is above it) and ``at``."""
        for entry in reversed(self.history(draft_id)):
            if entry.to_state is DraftState.PENDING_MODERATION:
                return {**entry.detail, "at": entry.at}
        return {}

    def retry(self, draft_id: int, actor: str, *, now: datetime) -> Draft:
        """Send a failed draft again (it is looked up by its marker first)."""
        with self.store.write():
            return self._transition(
                draft_id, (DraftState.FAILED,), DraftState.APPROVED, actor=actor, now=now,
                detail={"retry": True},
            )

    # -- publishing --------------------------------------------------------------------

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        if not self._thread_lock.acquire(blocking=False):
            raise PublisherBusyError("本进程正在发帖")
        try:
            if self.store.path is None:
                yield
                return
            fd = os.open(f"{self.store.path}.publish.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise PublisherBusyError(
                        f"另一个进程正在用 {self.store.path} 发帖"
                    ) from None
                yield
            finally:
                os.close(fd)  # releases the flock
        finally:
            self._thread_lock.release()

    def exclusive(self) -> AbstractContextManager[None]:
        """The publish lock: one process (and one thread) sends at a time. The director's
        PMs (``forumbot.notify.pmbox``) are sent under it too, so a ``forumbot notify
        --test`` beside a running agent can never settle the same PM twice.
        ``PublisherBusyError`` when it is taken."""
        return self._exclusive()

    def recover(self, publisher: Publisher, now: datetime, *,
                render: Renderer | None = None) -> list[PublishOutcome]:
        """Settle drafts left ``publishing`` by a crash or a failed request: each is
        looked up by its marker, then published or sent again. Call at startup."""
        with self._exclusive():
            return self._run(publisher, now, (DraftState.PUBLISHING,), render)

    def publish_pending(self, publisher: Publisher, now: datetime, *,
                        render: Renderer | None = None) -> list[PublishOutcome]:
        """Recover interrupted drafts, then publish approved ones, oldest first. Stops at
        the first sign the forum is unreachable (the rest wait for the next call).
        ``render`` refreshes each draft just before it is claimed (``Refresh``)."""
        with self._exclusive():
            return self._run(publisher, now, (DraftState.PUBLISHING, DraftState.APPROVED), render)

    def _run(
        self, publisher: Publisher, now: datetime, states: tuple[DraftState, ...],
        render: Renderer | None = None,
    ) -> list[PublishOutcome]:
        outcomes: list[PublishOutcome] = []
        for state in states:
            for draft in self.drafts(state):
                outcome = self._publish_one(draft.id, publisher, now, render)
                if outcome is None:
                    continue
                outcomes.append(outcome)
                if outcome.how in (PublishHow.UNRESOLVED, PublishHow.DEFERRED):
                    return outcomes
        return outcomes

    def _publish_one(
        self, draft_id: int, publisher: Publisher, now: datetime, render: Renderer | None = None
    ) -> PublishOutcome | None:
        draft = self.get(draft_id)
        sendable = (DraftState.APPROVED, DraftState.PUBLISHING)
        if draft.state not in sendable:
            return None
        if draft.is_new_thread:
            return self._publish_thread(draft, publisher, now, render)
        if draft.attempts > 0:
            # Tried before: it may be on the forum already. Never send before looking.
            try:
                found = publisher.find_marker(draft.tid, draft.marker)
            except Exception as exc:  # noqa: BLE001 - any failure: leave it, look again later
                self._note_error(draft.id, f"looking for marker: {_describe(exc)}", now)
                return PublishOutcome(draft.id, PublishHow.UNRESOLVED, draft.state,
                                      error=_describe(exc))
            if found is not None:
                with self.store.write():
                    done = self._transition(
                        draft.id, sendable, DraftState.PUBLISHED, actor="bot", now=now,
                        detail={"pid": found, "found_by_marker": True},
                        sets={"pid": found, "published_at": iso(now), "last_error": None},
                    )
                return PublishOutcome(draft.id, PublishHow.FOUND, done.state, pid=found)
        # The publishing guard: another state of this game, or another game, posted in
        # the game's threads and the director has not said what to do (forumbot.game.provenance).
        # Looking a marker up (above) sends nothing; sending now might post a second time
        # what the other state posted, or into another game's thread.
        blocked = self.store.posting_block(draft.tid)
        if blocked is not None:
            return PublishOutcome(draft.id, PublishHow.WAITING, draft.state,
                                  error=f"暂停发帖，等导演处理警报：{blocked.text.split('。')[0]}")
        # Rendered now (outside the write lock); what was rendered is committed with the
        # claim, so the record always holds the text that may be on the forum. The marker
        # chosen at draft time stays: it is how an interrupted send is found.
        refresh = render(draft, now) if render is not None else None
        if refresh is not None and refresh.wait:
            return PublishOutcome(draft.id, PublishHow.WAITING, draft.state, error=refresh.wait)
        # Claim: the state and the attempt are committed before anything is sent.
        claimed = self._claim(draft, sendable, refresh, now, edit_in_place=True)
        if not isinstance(claimed, Draft):
            return claimed  # None: changed meanwhile; or superseded by what was rendered
        moderated = False
        try:
            pid: int | None
            if claimed.edit_pid is not None:
                try:
                    edited = publisher.edit(claimed.tid, claimed.edit_pid, claimed.message)
                    pid = claimed.edit_pid
                    # An edit in a moderated board is held again (edit_reply_mod_succeed).
                    moderated = bool(getattr(edited, "moderated", False))
                except _EDIT_REFUSALS as exc:
                    # Nothing was stored: post it new instead (and the next count edits that).
                    self._edit_refused(claimed, exc, now)
                    sent = publisher.reply(claimed.tid, claimed.message, quote_pid=claimed.quote_pid)
                    pid, moderated = sent.pid, sent.moderated
            else:
                sent = publisher.reply(claimed.tid, claimed.message, quote_pid=claimed.quote_pid)
                pid, moderated = sent.pid, sent.moderated
        except errors.ForumRefused as exc:
            return self._refused(claimed, exc, now)
        except Exception as exc:  # noqa: BLE001 - may have reached the forum: stay publishing
            self._note_error(claimed.id, _describe(exc), now)
            return PublishOutcome(claimed.id, PublishHow.UNRESOLVED, DraftState.PUBLISHING,
                                  error=_describe(exc))
        with self.store.write():
            if moderated:
                # On the forum, invisible until a moderator releases it: never sent again.
                done = self._transition(
                    claimed.id, (DraftState.PUBLISHING,), DraftState.PENDING_MODERATION, actor="bot",
                    now=now, detail={"pid": pid, "moderated": True,
                                     "since_pid": self._last_seen_pid(claimed.tid)},
                    sets={"pid": pid, "last_error": None},
                )
            else:
                done = self._transition(
                    claimed.id, (DraftState.PUBLISHING,), DraftState.PUBLISHED, actor="bot",
                    now=now, detail={"pid": pid, "moderated": moderated},
                    sets={"pid": pid, "published_at": iso(now), "last_error": None},
                )
        return PublishOutcome(claimed.id, PublishHow.SENT, done.state, pid=pid, moderated=moderated)

    def _publish_thread(
        self, draft: Draft, publisher: Publisher, now: datetime, render: Renderer | None
    ) -> PublishOutcome | None:
        """``_publish_one`` for a new thread: looked up on the board by its marker before
        any resend, claimed before the POST, and the forum's tid recorded with the result."""
        sendable = (DraftState.APPROVED, DraftState.PUBLISHING)
        threads: ThreadPublisher = publisher  # type: ignore[assignment]
        if not hasattr(publisher, "new_thread"):
            return PublishOutcome(draft.id, PublishHow.WAITING, draft.state,
                                  error="这个发帖通道不能发新帖")
        if draft.attempts > 0:
            try:
                found = threads.find_thread_marker(draft.fid or 0, draft.marker,
                                                   skip=self._known_threads(draft.fid, draft.id))
            except Exception as exc:  # noqa: BLE001 - any failure: leave it, look again later
                self._note_error(draft.id, f"looking for marker: {_describe(exc)}", now)
                return PublishOutcome(draft.id, PublishHow.UNRESOLVED, draft.state,
                                      error=_describe(exc))
            if found is not None:
                tid, pid = found
                with self.store.write():
                    done = self._transition(
                        draft.id, sendable, DraftState.PUBLISHED, actor="bot", now=now,
                        detail={"tid": tid, "pid": pid, "found_by_marker": True},
                        sets={"tid": tid, "pid": pid, "published_at": iso(now), "last_error": None},
                    )
                return PublishOutcome(draft.id, PublishHow.FOUND, done.state, pid=pid, tid=tid)
        blocked = self.store.game_blocked()
        if blocked is not None:
            return PublishOutcome(draft.id, PublishHow.WAITING, draft.state,
                                  error=f"暂停发帖，等导演处理警报：{blocked.text.split('。')[0]}")
        refresh = render(draft, now) if render is not None else None
        if refresh is not None and refresh.wait:
            return PublishOutcome(draft.id, PublishHow.WAITING, draft.state, error=refresh.wait)
        claimed = self._claim(draft, sendable, refresh, now, edit_in_place=False)
        if not isinstance(claimed, Draft):
            return claimed  # None: changed meanwhile; or superseded by what was rendered
        try:
            sent = threads.new_thread(claimed.fid or 0, claimed.subject or "", claimed.message)
        except errors.ForumRefused as exc:
            return self._refused(claimed, exc, now)
        except Exception as exc:  # noqa: BLE001 - may have reached the forum: stay publishing
            self._note_error(claimed.id, _describe(exc), now)
            return PublishOutcome(claimed.id, PublishHow.UNRESOLVED, DraftState.PUBLISHING,
                                  error=_describe(exc))
        tid = sent.tid if sent.tid and sent.tid > 0 else None
        if tid is None and not sent.moderated:
            # Stored without a name: never sent again; the board is searched next time.
            error = "论坛说新帖已发布，却没有给出 tid：下一轮按标记在版块里找"
            self._note_error(claimed.id, error, now)
            return PublishOutcome(claimed.id, PublishHow.UNRESOLVED, DraftState.PUBLISHING, error=error)
        with self.store.write():
            if sent.moderated:
                done = self._transition(
                    claimed.id, (DraftState.PUBLISHING,), DraftState.PENDING_MODERATION, actor="bot",
                    now=now, detail={"tid": tid, "pid": sent.pid, "moderated": True},
                    sets={"tid": tid or 0, "pid": sent.pid, "last_error": None},
                )
            else:
                done = self._transition(
                    claimed.id, (DraftState.PUBLISHING,), DraftState.PUBLISHED, actor="bot",
                    now=now, detail={"tid": tid, "pid": sent.pid},
                    sets={"tid": tid, "pid": sent.pid, "published_at": iso(now), "last_error": None},
                )
        return PublishOutcome(claimed.id, PublishHow.SENT, done.state, pid=sent.pid,
                              moderated=sent.moderated, tid=tid)

    def _last_seen_pid(self, tid: int) -> int:
        """The newest pid of ``tid`` the bot has stored (0 if none): a post the forum stores
        now gets a higher one, so a search for it can stop there."""
        row = self.store._one("SELECT MAX(pid) AS pid FROM posts WHERE tid = ?", (tid,))
        return int(row["pid"] or 0) if row else 0

    def _edit_refused(self, draft: Draft, exc: errors.ForumRefused, now: datetime) -> None:
        """Committed before the new post is sent: a kill in between leaves a draft that
        is looked up by its marker and then sent as a new post, never as the edit."""
        with self.store.write() as conn:
            conn.execute(
                "UPDATE outbox SET edit_pid = NULL, updated_at = ? WHERE id = ? AND state = ?",
                (iso(now), draft.id, DraftState.PUBLISHING.value),
            )
            self._log(draft.id, DraftState.PUBLISHING, DraftState.PUBLISHING, actor="bot", now=now,
                      detail={"edit_refused": _describe(exc), "edit_pid": draft.edit_pid,
                              "instead": "new post"})

    def _refused(self, draft: Draft, exc: errors.ForumRefused, now: datetime) -> PublishOutcome:
        error = _describe(exc)
        transient = isinstance(exc, _TRANSIENT_REFUSALS)
        to = DraftState.APPROVED if transient else DraftState.FAILED
        with self.store.write():
            self._transition(
                draft.id, (DraftState.PUBLISHING,), to, actor="bot", now=now,
                detail={"error": error}, sets={"last_error": error},
            )
        how = PublishHow.DEFERRED if transient else PublishHow.FAILED
        return PublishOutcome(draft.id, how, to, error=error, refusal=exc)

    def _note_error(self, draft_id: int, error: str, now: datetime) -> None:
        with self.store.write() as conn:
            conn.execute(
                "UPDATE outbox SET last_error = ?, updated_at = ? WHERE id = ?",
                (self.store.scrub(error), iso(now), draft_id),
            )
            self.store.audit("bot", "outbox.error", {"draft": draft_id, "error": error}, at=now)


__all__ = [
    "DEFAULT_POLICIES",
    "Draft",
    "DraftKind",
    "DraftState",
    "HistoryEntry",
    "OPEN_STATES",
    "InvalidTransitionError",
    "Outbox",
    "OutboxError",
    "Policy",
    "PublishHow",
    "PublishOutcome",
    "Publisher",
    "PublisherBusyError",
    "Refresh",
    "Renderer",
    "SENT_STATES",
    "Sent",
    "ThreadPublisher",
    "ThreadSent",
    "UnknownDraftError",
    "hand_edited",
]
