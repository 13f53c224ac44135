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
    """Game-state changes as stored. ``forumbot.game.state`` turns the live ones into the
    engine's events (SPEC §9); nothing is ever deleted: a mistake is retracted or
    corrected by a later row that names it."""

    OUT = "out"
    SHERIFF = "sheriff"
    SUBSTITUTE = "substitute"
    ACCELERATE = "accelerate"
    ALIAS = "alias"
    IDIOT = "idiot"
    NIGHT = "night"
    VOID = "void"  # the director rules one post void
    IDENTITY_LOST = "identity_lost"  # 双身份: one identity dies
    SCAPEGOAT = "scapegoat"  # 双身份: the 替罪羊
    VOTERS = "voters"  # 冤死: who may vote on a day
    RETRACT = "retract"  # takes back event ``payload["event"]`` (payload["why"] says why)


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
    """One stored event. ``at`` is when it was entered; ``game_at`` when it took effect
    in the game (None: rows from before game times were stored, or kinds that hold for
    the whole game — an alias, a substitute, a voided post). A row whose payload has
    ``corrects`` replaces that earlier event."""

    id: int
    day: int
    kind: EventKind
    payload: dict[str, Any]
    actor: str
    at: datetime
    game_at: datetime | None = None

    @property
    def entered_at(self) -> datetime:
        return self.at

    @property
    def corrects(self) -> int | None:
        value = self.payload.get("corrects")
        return int(value) if value is not None else None

    @property
    def retracts(self) -> int | None:
        if self.kind is not EventKind.RETRACT:
            return None
        return int(self.payload["event"])


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
    events: tuple[int, ...] = ()  # the game events this card caused (send-off, badge draw)
    retracted_at: datetime | None = None  # taken back by the director (kept as history)
    retracted_by: str | None = None
    retract_why: str | None = None

    @property
    def standing(self) -> bool:
        return self.retracted_at is None


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
