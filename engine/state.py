"""The game as the rules see it: seats, who is out (when and why), the sheriff, revealed
idiots, substitutes, aliases and the day windows.

``GameState`` is immutable. Every operation returns a new state and appends a
``StateChange`` to ``log``, so the agent can write each change to its audit log as is.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class DayWindow:
    number: int
    start: datetime
    deadline: datetime
    vote_thread: int | None = None
    discussion_thread: int | None = None
    progress_thread: int | None = None
    accelerated: bool = False
    # The director's closing post. Posts share seconds (and HTML may give minutes only):
    # a post at the deadline's own time counts as late only if it comes after this pid.
    deadline_pid: int | None = None

    def threads(self) -> dict[int, str]:
        """tid → thread role for this day's game threads."""
        roles = {
            self.discussion_thread: "discussion",
            self.progress_thread: "progress",
            self.vote_thread: "vote",
        }
        return {tid: role for tid, role in roles.items() if tid is not None}


@dataclass(frozen=True)
class OutRecord:
    player: str
    at: datetime | None  # None: out before the days this state knows about
    why: str


@dataclass(frozen=True)
class StateChange:
    """One explicit change, describable for an audit log."""

    op: str
    args: dict[str, Any]
    at: datetime | None
    why: str

    def describe(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.args.items())
        when = f" at {self.at.isoformat()}" if self.at else ""
        because = f" ({self.why})" if self.why else ""
        return f"{self.op}({args}){when}{because}"


class StateError(ValueError):
    """An operation that names someone who is not a player, or makes no sense now."""


@dataclass(frozen=True)
class GameState:
    players: tuple[str, ...]  # seat names, in seat order
    director: str | None = None
    bot: str | None = None
    sheriff: str | None = None
    out: tuple[OutRecord, ...] = ()
    idiots_revealed: frozenset[str] = frozenset()
    scapegoat: str | None = None  # 双身份: the player whose first identity is 替罪羊
    substitutes: tuple[tuple[str, str], ...] = ()  # (account, seat)
    aliases: tuple[tuple[str, str], ...] = ()  # (alias, seat)
    voided: tuple[tuple[int, str], ...] = ()  # (pid, why): posts the director ruled void
    days: tuple[DayWindow, ...] = ()
    log: tuple[StateChange, ...] = field(default=(), compare=False)

    # --- queries -------------------------------------------------------------------------

    @cached_property
    def _seats(self) -> dict[str, str]:
        seats = {p: p for p in self.players}
        seats.update(dict(self.substitutes))  # a later substitution wins
        return seats

    def seat_of(self, account: str | None) -> str | None:
        """The seat an account plays, or None for the director, the bot and non-players."""
        if account is None:
            return None
        return self._seats.get(account)

    def out_record(self, player: str) -> OutRecord | None:
        for record in self.out:
            if record.player == player:
                return record
        return None

    def is_out(self, player: str, at: datetime | None = None) -> bool:
        """Out at moment ``at`` (None: out at all)."""
        record = self.out_record(player)
        if record is None:
            return False
        return record.at is None or at is None or record.at <= at

    def living(self, at: datetime | None = None) -> tuple[str, ...]:
        return tuple(p for p in self.players if not self.is_out(p, at))

    def day(self, number: int) -> DayWindow:
        for window in self.days:
            if window.number == number:
                return window
        known = ", ".join(str(d.number) for d in self.days) or "none"
        raise StateError(f"day {number} is not configured (days: {known})")

    def void_reason(self, pid: int) -> str | None:
        """Why the director voided post ``pid`` (None: not voided)."""
        for voided, why in self.voided:
            if voided == pid:
                return why
        return None

    def accounts(self, seat: str) -> tuple[str, ...]:
        """Every account that posts for a seat: the seat's own and its substitutes."""
        return (seat, *(acc for acc, s in self.substitutes if s == seat))

    # --- operations ----------------------------------------------------------------------

    def _changed(self, op: str, args: dict[str, Any], at: datetime | None, why: str, **kw: Any) -> GameState:
        return replace(self, log=(*self.log, StateChange(op, args, at, why)), **kw)

    def _need_player(self, player: str) -> None:
        if player not in self.players:
            raise StateError(f"{player!r} is not a player (players: {', '.join(self.players)})")

    def put_out(self, player: str, at: datetime | None, why: str) -> GameState:
        """``player`` leaves the game at ``at`` (voted out, killed, poisoned, sent off…)."""
        self._need_player(player)
        if self.out_record(player) is not None:
            raise StateError(f"{player} is already out")
        return self._changed(
            "out", {"player": player}, at, why, out=(*self.out, OutRecord(player, at, why))
        )

    def set_sheriff(self, player: str | None, at: datetime | None = None, why: str = "") -> GameState:
        if player is not None:
            self._need_player(player)
        return self._changed("set_sheriff", {"player": player}, at, why, sheriff=player)

    def reveal_idiot(self, player: str, at: datetime | None = None, why: str = "若愚") -> GameState:
        self._need_player(player)
        return self._changed(
            "reveal_idiot", {"player": player}, at, why,
            idiots_revealed=self.idiots_revealed | {player},
        )

    def set_scapegoat(self, player: str | None, at: datetime | None = None, why: str = "") -> GameState:
        if player is not None:
            self._need_player(player)
        return self._changed("set_scapegoat", {"player": player}, at, why, scapegoat=player)

    def substitute(self, old_account: str, new_account: str, at: datetime | None = None, why: str = "") -> GameState:
        """``new_account`` takes over the seat ``old_account`` played: its votes and posts are the seat's."""
        seat = self.seat_of(old_account)
        if seat is None:
            raise StateError(f"{old_account!r} plays no seat")
        if self.seat_of(new_account) not in (None, seat):
            raise StateError(f"{new_account!r} already plays {self.seat_of(new_account)}")
        return self._changed(
            "substitute", {"old": old_account, "new": new_account, "seat": seat}, at, why,
            substitutes=(*self.substitutes, (new_account, seat)),
        )

    def alias(self, name: str, player: str, why: str = "") -> GameState:
        self._need_player(player)
        return self._changed(
            "alias", {"name": name, "player": player}, None, why,
            aliases=(*self.aliases, (name, player)),
        )

    def void_post(self, pid: int, why: str) -> GameState:
        """The director rules post ``pid`` void: it counts for nothing and uses nothing up
        (after a voided vote the player may still vote)."""
        if self.void_reason(pid) is not None:
            raise StateError(f"post {pid} is already void")
        return self._changed("void", {"pid": pid}, None, why, voided=(*self.voided, (pid, why)))

    def add_day(self, window: DayWindow) -> GameState:
        others = tuple(d for d in self.days if d.number != window.number)
        days = tuple(sorted((*others, window), key=lambda d: d.number))
        return self._changed("day", {"number": window.number}, None, "", days=days)
