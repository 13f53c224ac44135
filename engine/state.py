"""The game as the rules see it: seats, the day windows, the director's corrections
(aliases, substitutes, posts ruled void) and the game's events in game time.

Who is out, the sheriff, revealed idiots, the scapegoat and lives are not fields: they
are a function of the events (``engine.timeline``), asked for at a moment. A state is
immutable; every operation returns a new one. The ``put_out``/``set_sheriff``/… builders
check that the event has an effect at its moment (a wrong name or an out player fails
there, before anything is written); ``with_events`` takes events as they are (a replay
from a store never fails — an event without effect is listed in ``ignored``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property

from engine.events import EventKind, GameEvent, OutWhy, parse_why
from engine.timeline import Departure, Moment, OutRecord, Step, Timeline, Vacancy

__all__ = ["DayWindow", "Departure", "GameState", "Moment", "OutRecord", "StateError", "Vacancy"]


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


class StateError(ValueError):
    """An operation that names someone who is not a player, or makes no sense now."""


@dataclass(frozen=True)
class GameState:
    players: tuple[str, ...]  # seat names, in seat order
    director: str | None = None
    bot: str | None = None
    identities: int = 1  # 双身份: 2 (each player has two identities)
    substitutes: tuple[tuple[str, str], ...] = ()  # (account, seat)
    aliases: tuple[tuple[str, str], ...] = ()  # (alias, seat)
    voided: tuple[tuple[int, str], ...] = ()  # (pid, why): posts the director ruled void
    days: tuple[DayWindow, ...] = ()
    events: tuple[GameEvent, ...] = ()

    # --- the timeline --------------------------------------------------------------------

    @cached_property
    def timeline(self) -> Timeline:
        return Timeline(self.players, self.identities, self.events)

    def moment(self, at: datetime | None = None, *, before: bool = False) -> Moment:
        """The game at ``at`` (after every event at that moment; ``before``: just before
        it; None: after all events)."""
        return self.timeline.moment(at, before=before)

    def is_out(self, player: str, at: datetime | None = None) -> bool:
        """Out at moment ``at`` (None: out at all)."""
        return self.moment(at).is_out(player)

    def out_record(self, player: str) -> OutRecord | None:
        return self.moment().out.get(player)

    @property
    def out(self) -> tuple[OutRecord, ...]:
        """Every player out, in the order they went."""
        final = self.moment().out
        return tuple(final[d.player] for d in self.timeline.departures() if d.kind == "out")

    def living(self, at: datetime | None = None, *, before: bool = False) -> tuple[str, ...]:
        moment = self.moment(at, before=before)
        return tuple(p for p in self.players if not moment.is_out(p))

    def lives(self, player: str, at: datetime | None = None) -> int:
        moment = self.moment(at)
        if moment.is_out(player):
            return 0
        return self.identities - moment.lost.get(player, 0)

    @property
    def sheriff(self) -> str | None:
        """The sheriff after every event (None: no sheriff, or the badge is vacant)."""
        return self.moment().sheriff

    def sheriff_at(self, at: datetime, *, before: bool = False) -> str | None:
        return self.moment(at, before=before).sheriff

    @property
    def vacancy(self) -> Vacancy | None:
        return self.moment().vacancy

    @property
    def idiots_revealed(self) -> frozenset[str]:
        return self.moment().idiots

    @property
    def scapegoat(self) -> str | None:
        return self.moment().scapegoat

    def departures(self, after: datetime | None = None, until: datetime | None = None) -> list[Departure]:
        return self.timeline.departures(after, until)

    @property
    def ignored(self) -> list[Step]:
        """Events that had no effect when replayed, with the reason."""
        return self.timeline.ignored

    def allowed_voters(self, day: int) -> tuple[str, ...] | None:
        """冤死: who may vote on ``day`` (None: everyone living)."""
        return self.moment().voters.get(day)

    # --- seats, days and corrections -----------------------------------------------------

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

    def day(self, number: int) -> DayWindow:
        for window in self.days:
            if window.number == number:
                if not window.accelerated and number in self.moment().accelerated:
                    return replace(window, accelerated=True)
                return window
        known = "、".join(str(d.number) for d in self.days) or "无"
        raise StateError(f"没有第{number}日（已配置：{known}）")

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

    def _need_player(self, player: str | None) -> str:
        if player not in self.players:
            raise StateError(f"“{player}”不是玩家（玩家：{'、'.join(self.players)}）")
        return player  # type: ignore[return-value]

    def with_events(self, events: tuple[GameEvent, ...] | list[GameEvent]) -> GameState:
        """The same game with ``events`` added as they are (no checks: a replay)."""
        return replace(self, events=(*self.events, *events))

    def add(self, event: GameEvent) -> GameState:
        """The game with ``event`` added, if it has an effect at its moment."""
        if event.kind not in (EventKind.ACCELERATED, EventKind.VOTERS):
            if event.player is not None or event.kind not in (EventKind.SHERIFF, EventKind.SCAPEGOAT):
                self._need_player(event.player)
        for name in event.players:
            self._need_player(name)
        if event.kind in (EventKind.ACCELERATED, EventKind.VOTERS):
            self.day(event.day or 0)
        if event.kind is EventKind.IDENTITY_LOST and self.identities < 2:
            raise StateError("只有双身份规则有“身份死亡”；其他规则请用出局")
        added = replace(event, seq=event.seq or (len(self.events),))
        new = self.with_events([added])
        step = next(s for s in new.timeline.steps if s.event is added)
        if not step.applied and not step.cancelled:
            raise StateError(step.note)
        return new

    def put_out(self, player: str, at: datetime | None = None, why: str | OutWhy = OutWhy.OTHER,
                *, note: str = "") -> GameState:
        """``player`` leaves the game at ``at`` (voted out, killed, poisoned, sent off…)."""
        reason = parse_why(why)
        if not note and reason is OutWhy.OTHER and isinstance(why, str) and why not in ("", "other", "出局", "其他"):
            note = why  # a cause the codes do not name: keep the director's words
        return self.add(GameEvent(EventKind.OUT, at, player, reason, note=note))

    def lose_identity(self, player: str, at: datetime | None = None, why: str | OutWhy = OutWhy.OTHER,
                      *, note: str = "") -> GameState:
        return self.add(GameEvent(EventKind.IDENTITY_LOST, at, player, parse_why(why), note=note))

    def set_sheriff(self, player: str | None, at: datetime | None = None, why: str = "") -> GameState:
        return self.add(GameEvent(EventKind.SHERIFF, at, player, note=why))

    def reveal_idiot(self, player: str, at: datetime | None = None, why: str = "") -> GameState:
        return self.add(GameEvent(EventKind.IDIOT, at, player, note=why))

    def set_scapegoat(self, player: str | None, at: datetime | None = None, why: str = "") -> GameState:
        return self.add(GameEvent(EventKind.SCAPEGOAT, at, player, note=why))

    def restrict_voters(self, day: int, players: tuple[str, ...] | list[str], at: datetime | None = None,
                        why: str = "") -> GameState:
        return self.add(GameEvent(EventKind.VOTERS, at, day=day, players=tuple(players), note=why))

    def accelerate(self, day: int, at: datetime | None = None, why: str = "") -> GameState:
        return self.add(GameEvent(EventKind.ACCELERATED, at, day=day, note=why))

    def substitute(self, old_account: str, new_account: str, at: datetime | None = None, why: str = "") -> GameState:
        """``new_account`` takes over the seat ``old_account`` played: its votes and posts are the seat's."""
        from parsers.text import normalise_name

        seat = self.seat_of(old_account)
        if seat is None:
            raise StateError(f"“{old_account}”不是任何座位的账号")
        key = normalise_name(new_account)
        if not key:
            raise StateError("替补账号名为空")
        taken = [p for p in self.players if normalise_name(p) == key]
        if taken:
            raise StateError(f"“{new_account}”就是玩家 {taken[0]}，不能作替补账号")
        other = self.seat_of(new_account)
        if other is not None:
            raise StateError(f"“{new_account}”已在替补 {other}")
        return replace(self, substitutes=(*self.substitutes, (new_account, seat)))

    def alias(self, name: str, player: str, why: str = "") -> GameState:
        """``name`` written as a vote target means ``player``. A name that already means a
        player (after NFKC, case folding) cannot be made to mean another one."""
        from parsers.text import normalise_name

        self._need_player(player)
        key = normalise_name(name)
        if not key:
            raise StateError("别名为空")
        for other in self.players:
            if normalise_name(other) == key:
                raise StateError(f"“{name}”就是玩家 {other} 的名字，不能作为 {player} 的别名")
        for alias, seat in self.aliases:
            if normalise_name(alias) == key and seat != player:
                raise StateError(f"别名“{name}”已指向 {seat}")
        for account, seat in self.substitutes:
            if normalise_name(account) == key and seat != player:
                raise StateError(f"“{name}”是 {seat} 的替补账号")
        return replace(self, aliases=(*self.aliases, (name, player)))

    def void_post(self, pid: int, why: str) -> GameState:
        """The director rules post ``pid`` void: it counts for nothing and uses nothing up
        (after a voided vote the player may still vote)."""
        if self.void_reason(pid) is not None:
            raise StateError(f"帖子 pid {pid} 已被判为废票")
        return replace(self, voided=(*self.voided, (pid, why)))

    def add_day(self, window: DayWindow) -> GameState:
        others = tuple(d for d in self.days if d.number != window.number)
        days = tuple(sorted((*others, window), key=lambda d: d.number))
        return replace(self, days=days)
