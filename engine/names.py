"""Matching a written vote target to a seat (SPEC §3.2).

Exact match after normalising (NFKC, case-fold, zero-width and surrounding punctuation
stripped), then the director's alias table. No guessing beyond that: when nothing matches,
the players whose names contain the written text (or are contained in it) are listed as
candidates so the director can add an alias and re-tally; two or more such candidates make
the target ambiguous rather than unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from parsers.models import ABSTAIN
from parsers.text import normalise_name

from engine.state import GameState


class Match(StrEnum):
    PLAYER = "player"
    ABSTAIN = "abstain"
    UNKNOWN = "unknown"
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True)
class TargetMatch:
    outcome: Match
    player: str | None = None  # the seat, or 弃权 for an abstention
    candidates: tuple[str, ...] = ()
    via: str = ""  # "name", "account", "alias"


class NameTable:
    """Normalised name → seats, built once per state."""

    def __init__(self, state: GameState) -> None:
        self._players = state.players
        self._exact: dict[str, set[str]] = {}
        for player in state.players:
            self._exact.setdefault(normalise_name(player), set()).add(player)
        self._accounts: dict[str, set[str]] = {}
        for account, seat in state.substitutes:
            self._accounts.setdefault(normalise_name(account), set()).add(seat)
        self._aliases: dict[str, set[str]] = {}
        for alias, seat in state.aliases:
            self._aliases.setdefault(normalise_name(alias), set()).add(seat)
        self._abstain = normalise_name(ABSTAIN)
        self._normal = tuple((normalise_name(p), p) for p in state.players)
        self._cache: dict[str, TargetMatch] = {}

    def match(self, written: str) -> TargetMatch:
        found = self._cache.get(written)
        if found is None:
            found = self._cache[written] = self._match(written)
        return found

    def _match(self, written: str) -> TargetMatch:
        key = normalise_name(written)
        if key == self._abstain:
            return TargetMatch(Match.ABSTAIN, ABSTAIN, via="name")
        if not key:
            return TargetMatch(Match.UNKNOWN)
        for via, table in (("name", self._exact), ("account", self._accounts), ("alias", self._aliases)):
            seats = table.get(key)
            if seats:
                ordered = self._in_seat_order(seats)
                if len(ordered) == 1:
                    return TargetMatch(Match.PLAYER, ordered[0], via=via)
                return TargetMatch(Match.AMBIGUOUS, None, ordered, via=via)
        near = self._in_seat_order(
            {p for norm, p in self._normal if key in norm or norm in key}
        )
        if len(near) >= 2:
            return TargetMatch(Match.AMBIGUOUS, None, near)
        return TargetMatch(Match.UNKNOWN, None, near)

    def _in_seat_order(self, seats: set[str]) -> tuple[str, ...]:
        return tuple(p for p in self._players if p in seats)
