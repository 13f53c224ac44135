"""Records the store hands in and out. Callers never see a raw row."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from parsers.models import Post


class Actor(StrEnum):
    """Who made a decision. Audit entries accept any name; these two are the usual ones."""

    BOT = "bot"
    DIRECTOR = "director"


class EventKind(StrEnum):
    """Game-state changes, replayed in order by the agent to rebuild engine state."""

    OUT = "out"
    SHERIFF = "sheriff"
    SUBSTITUTE = "substitute"
    ACCELERATE = "accelerate"
    ALIAS = "alias"
    IDIOT = "idiot"
    NIGHT = "night"
    VOID = "void"  # the director rules one post void


class CardColor(StrEnum):
    BLUE = "blue"
    YELLOW = "yellow"
    RED = "red"
    POINTS = "points"  # the 双身份 rules count points instead of colours


class ProposalState(StrEnum):
    PROPOSED = "proposed"
    ACCEPTED = "accepted"
    DISMISSED = "dismissed"


class SnapshotKind(StrEnum):
    TALLY = "tally"
    RULINGS = "rulings"


@dataclass(frozen=True, slots=True)
class RecordResult:
    """What ``record_posts`` changed: pids first seen now, pids whose content changed."""

    new: list[int] = field(default_factory=list)
    edited: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SeenPost:
    """One version of a post and when the bot first saw that version."""

    seen_at: datetime
    post: Post


@dataclass(frozen=True, slots=True)
class ThreadCursor:
    tid: int
    last_page: int
    last_pid: int | None
    total_pages: int
    ppp: int | None  # posts per page, when known
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Event:
    id: int
    day: int
    kind: EventKind
    payload: dict[str, Any]
    actor: str
    at: datetime


@dataclass(frozen=True, slots=True)
class NightResult:
    """Players out during night ``day`` (the night before day ``day``), in order."""

    day: int
    out: tuple[str, ...]
    actor: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A stored tally or rulings JSON for one day; ``version`` counts changes from 1."""

    kind: SnapshotKind
    day: int
    version: int
    hash: str
    data: Any  # the decoded JSON
    at: datetime


@dataclass(frozen=True, slots=True)
class CardEntry:
    id: int
    player: str
    color: CardColor
    points: int | None
    day: int | None
    reason: str
    actor: str
    at: datetime
    proposal_id: int | None = None


@dataclass(frozen=True, slots=True)
class CardProposal:
    id: int
    day: int | None
    player: str
    color: CardColor
    reason_code: str  # e.g. "lurking", "no_vote", "zombie", "font"
    detail: str
    key: str  # dedupe key: the same proposal is never made twice
    state: ProposalState
    created_at: datetime
    decided_by: str | None = None
    decided_at: datetime | None = None
    why: str | None = None
    entry_id: int | None = None  # the ledger entry an accepted proposal became


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: int
    actor: str
    action: str
    detail: dict[str, Any]
    at: datetime
