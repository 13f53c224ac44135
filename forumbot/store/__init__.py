"""The per-game SQLite store: posts and their versions, cursors, game events, snapshots,
cards, alarms, the audit log, and exactly-once publishing: ``forumbot.store.outbox`` (every
post and PM the bot sends, drafted, approved, sent once) and ``forumbot.store.marker`` (the
marker in each post that finds an interrupted send again on the forum). May import the
forum client's errors, ``engine`` and ``parsers``; nothing above.

    store = Store("game.db")          # creates or migrates the file
    store.record_posts(page.posts, seen_at=now)
"""

from __future__ import annotations

from forumbot.store.alarms import Alarm, AlarmsMixin
from forumbot.store.base import REDACTED, SecretKeyError, StoreBase, is_secret_key
from forumbot.store.days import DayChange, DaysMixin, StoredDay
from forumbot.store.cards import CardsMixin, ProposalDecidedError, UnknownProposalError
from forumbot.store.codec import NaiveDatetimeError
from forumbot.store.identity import FOREIGN_GAME, STATE_CONFLICT, IdentityMixin
from forumbot.store.nights import NightActionRecord, NightExtension, NightProposal, NightsMixin, ProposalStateError
from forumbot.store.posts import PostsMixin, UnknownPostError
from forumbot.store.records import (
    Actor,
    AuditEntry,
    CardColor,
    CardEntry,
    CardProposal,
    Event,
    EventKind,
    NightResult,
    ProposalState,
    RecordResult,
    SeenPost,
    Snapshot,
    SnapshotKind,
    ThreadCursor,
)
from forumbot.store.schema import SCHEMA_VERSION, SchemaTooNewError, migrate, schema_version
from forumbot.store.state import StateMixin


class Store(PostsMixin, StateMixin, CardsMixin, IdentityMixin, AlarmsMixin, DaysMixin, NightsMixin, StoreBase):
    """One game's store. Every time is an argument (``at``/``seen_at``/``now``)."""

    def __enter__(self) -> Store:
        return self


__all__ = [
    "REDACTED",
    "SCHEMA_VERSION",
    "Actor",
    "Alarm",
    "AuditEntry",
    "CardColor",
    "CardEntry",
    "CardProposal",
    "DayChange",
    "FOREIGN_GAME",
    "Event",
    "EventKind",
    "NaiveDatetimeError",
    "NightActionRecord",
    "NightExtension",
    "NightProposal",
    "ProposalStateError",
    "NightResult",
    "ProposalDecidedError",
    "ProposalState",
    "RecordResult",
    "STATE_CONFLICT",
    "SchemaTooNewError",
    "SecretKeyError",
    "SeenPost",
    "Snapshot",
    "SnapshotKind",
    "Store",
    "StoredDay",
    "ThreadCursor",
    "UnknownPostError",
    "UnknownProposalError",
    "is_secret_key",
    "migrate",
    "schema_version",
]
