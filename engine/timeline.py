"""The game at any moment, derived from its events (SPEC §9).

``Timeline`` replays the events in game order once and keeps a ``Moment`` after each
one, so "who was in the game at 10:00 on day 3", "who held the badge just before the
deadline" and "what went out since yesterday's morning" are lookups. Replaying never
raises: an event that can have no effect (an out for a player already out, a badge for
a player out by then) is kept as *ignored* with the reason, for the director to see.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import datetime

from engine.events import BEFORE, EventKind, GameEvent, OutWhy, ordered


@dataclass(frozen=True)
class OutRecord:
    player: str
    at: datetime | None  # None: out before the days this state knows about
    why: str  # an OutWhy value
    ref: int | None = None
    note: str = ""


@dataclass(frozen=True)
class Vacancy:
    """The badge has no holder since ``since``: its sheriff ``previous`` left."""

    since: datetime | None
    previous: str
    cause: str  # "out" | "identity_lost"
    why: str  # the OutWhy of the leaving


@dataclass(frozen=True)
class Departure:
    """One player leaving (or, 双身份, losing an identity), in the order it took effect."""

    player: str
    at: datetime | None
    kind: str  # "out" | "identity_lost"
    why: str
    ref: int | None = None
    note: str = ""


@dataclass(frozen=True)
class Step:
    event: GameEvent
    applied: bool
    note: str = ""  # why it had no effect (Chinese), or what it did
    departure: Departure | None = None
    cancelled: bool = False  # a vote-out the rules cancel (若愚): not a mistake, no effect by design


@dataclass(frozen=True)
class Moment:
    """The game right after some event: immutable snapshots of the working sets."""

    out: dict[str, OutRecord] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)  # identities lost so far
    sheriff: str | None = None
    vacancy: Vacancy | None = None
    idiots: frozenset[str] = frozenset()
    scapegoat: str | None = None
    voters: dict[int, tuple[str, ...]] = field(default_factory=dict)  # day → who may vote
    accelerated: frozenset[int] = frozenset()

    def is_out(self, player: str) -> bool:
        return player in self.out


class Timeline:
    def __init__(self, players: tuple[str, ...], identities: int, events: tuple[GameEvent, ...]) -> None:
        self.players = players
        self.identities = max(1, identities)
        self.steps: list[Step] = []
        self._times: list[datetime] = []
        self._moments: list[Moment] = []
        self._replay(ordered(events))

    # -- replay ---------------------------------------------------------------------------

    def _replay(self, events: list[GameEvent]) -> None:
        # 若愚 免于投票出局: a vote-out at the very moment the idiot reveals is cancelled.
        saved = {(e.player, e.when) for e in events if e.kind is EventKind.IDIOT}
        out: dict[str, OutRecord] = {}
        lost: dict[str, int] = {}
        sheriff: str | None = None
        vacancy: Vacancy | None = None
        idiots: set[str] = set()
        goat: str | None = None
        voters: dict[int, tuple[str, ...]] = {}
        accelerated: set[int] = set()
        for event in events:
            applied, note, departure, cancelled = True, "", None, False
            player = event.player
            if event.kind in (EventKind.OUT, EventKind.IDENTITY_LOST):
                why = (event.why or OutWhy.OTHER).value
                if player in out:
                    applied, note = False, f"{player} 已于{_when(out[player].at)}出局"
                elif event.why is OutWhy.VOTE and (player, event.when) in saved:
                    applied, cancelled, note = False, True, f"{player} 发动【若愚】，免于投票出局"
                else:
                    if event.kind is EventKind.IDENTITY_LOST:
                        lost[player] = lost.get(player, 0) + 1  # type: ignore[index]
                        gone = lost[player] >= self.identities  # type: ignore[index]
                    else:
                        gone = True
                    kind = "out" if gone else "identity_lost"
                    if gone:
                        out[player] = OutRecord(player, event.at, why, event.ref, event.note)  # type: ignore[index]
                    departure = Departure(player, event.at, kind, why, event.ref, event.note)  # type: ignore[arg-type]
                    # 【殉职】: the badge leaves a sheriff who is out — and, 双身份, one whose
                    # current first identity died (警长当前第一身份死亡后).
                    if player == sheriff and (gone or self.identities > 1):
                        vacancy = Vacancy(event.at, player, kind, why)  # type: ignore[arg-type]
                        sheriff = None
                    # The scapegoat is a first identity: it dies with whatever the player loses.
                    if player == goat:
                        goat = None
            elif event.kind is EventKind.IDIOT:
                if player in out:
                    applied, note = False, f"{player} 已出局"
                elif player in idiots:
                    applied, note = False, f"{player} 已发动过【若愚】"
                else:
                    idiots.add(player)  # type: ignore[arg-type]
            elif event.kind is EventKind.SHERIFF:
                if player is not None and player in out:
                    applied, note = False, f"{player} 已于{_when(out[player].at)}出局，不能任警长"
                else:
                    sheriff, vacancy = player, None
            elif event.kind is EventKind.SCAPEGOAT:
                if player is not None and player in out:
                    applied, note = False, f"{player} 已出局，不能是替罪羊"
                else:
                    goat = player
            elif event.kind is EventKind.VOTERS:
                voters[event.day or 0] = event.players
            elif event.kind is EventKind.ACCELERATED:
                accelerated.add(event.day or 0)
            self.steps.append(Step(event, applied, note, departure, cancelled))
            self._times.append(event.when)
            self._moments.append(Moment(
                out=dict(out), lost=dict(lost), sheriff=sheriff, vacancy=vacancy,
                idiots=frozenset(idiots), scapegoat=goat, voters=dict(voters),
                accelerated=frozenset(accelerated),
            ))

    # -- lookups --------------------------------------------------------------------------

    def moment(self, at: datetime | None = None, *, before: bool = False) -> Moment:
        """The game after every event at or before ``at`` (``before``: strictly before;
        None: after all events)."""
        if at is None:
            index = len(self._moments)
        elif before:
            index = bisect_left(self._times, at)
        else:
            index = bisect_right(self._times, at)
        return self._moments[index - 1] if index else Moment()

    def departures(self, after: datetime | None = None, until: datetime | None = None) -> list[Departure]:
        """Who left (or lost an identity) with ``after`` < at ≤ ``until``, in effect order."""
        low = after if after is not None else None
        found = []
        for step in self.steps:
            d = step.departure
            if d is None:
                continue
            when = d.at if d.at is not None else BEFORE
            if low is not None and when <= low:
                continue
            if until is not None and when > until:
                continue
            found.append(d)
        return found

    @property
    def ignored(self) -> list[Step]:
        """Events that had no effect by mistake (not the vote-outs 若愚 cancels)."""
        return [s for s in self.steps if not s.applied and not s.cancelled]


def _when(at: datetime | None) -> str:
    return f" {at:%m-%d %H:%M} " if at is not None else "开局前"
