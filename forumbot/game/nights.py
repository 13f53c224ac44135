"""The identities' game for forumbot: one ``Chronicle`` built the same way for the agent
and for ``forumbot resolve`` / ``forumbot tally`` offline (SPEC §10.6: the offline resolve
is exactly the agent's).

Everything is a function of what the caller holds: the config (the sheet, the rule set's
mode, the night settings), the game's state (the config's start and ``[[events]]`` plus,
for the agent, every stored event that stands) and the night actions (the config's
``[[actions]]`` plus, for the agent, the stored ones). Nothing is cached between calls, so
a restart gives the same proposal.

Secret: what these functions return holds identities; callers give it only to the
director (``--secrets``, the desk behind its login, the director's PMs) or the owner.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from engine.events import EventKind, GameEvent, OutWhy
from engine.night import Action, Chronicle, ChronicleError, NightResult, NightSettings, PlanError, Win
from engine.state import GameState, StateError
from forumbot.config.gamefile import GameConfig

__all__ = ["NightsError", "game_chronicle", "night_json", "resolve_night", "win_after_day"]


class NightsError(ValueError):
    """A night or a game the identities cannot answer for (Chinese, names the thing)."""


def game_chronicle(config: GameConfig, state: GameState | None = None, actions: Iterable[Action] | None = None,
                   settings: NightSettings | None = None) -> Chronicle | None:
    """The game across nights and days from the config's sheet. ``state``: the game as it
    stands (default: the config's start and ``[[events]]``); ``actions``: every night
    action (default: the config's ``[[actions]]``; the agent passes those and its stored
    ones together); ``settings``: the phases (default ``[night]``; the agent adds the
    director's extensions). None for a game without identities (counted as before)."""
    if config.identities is None or config.night_mode is None:
        return None
    try:
        return Chronicle(config.night_mode, config.identities, state if state is not None else config.state,
                         config.actions if actions is None else actions,
                         settings if settings is not None else config.night_settings)
    except (ChronicleError, PlanError) as exc:
        raise NightsError(str(exc)) from None


def resolve_night(config: GameConfig, night: int, state: GameState | None = None,
                  actions: Iterable[Action] | None = None, now: datetime | None = None,
                  settings: NightSettings | None = None) -> NightResult:
    """Night ``night``'s proposal as it stands at ``now`` (None: every action is in and
    every window has passed — the offline resolve, and the agent's once the night is over)."""
    chronicle = game_chronicle(config, state, actions, settings)
    if chronicle is None:
        raise NightsError("本局没有身份表（[identities]），夜晚由导演手动录入，无法结算")
    try:
        return chronicle.resolve(night, now)
    except (ChronicleError, PlanError) as exc:
        raise NightsError(str(exc)) from None


def night_json(config: GameConfig, night: int, state: GameState | None = None,
               actions: Iterable[Action] | None = None, now: datetime | None = None) -> dict:
    """SPEC §10.6's object for night ``night``."""
    return resolve_night(config, night, state, actions, now).to_json()


@dataclass(frozen=True)
class DayWin:
    """The win check after a day's result (the tally's ``win``)."""

    win: Win | None
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict | None:
        return self.win.to_json() if self.win else None


def win_after_day(config: GameConfig, state: GameState, day: int, out: str | None,
                  actions: Iterable[Action] | None = None) -> DayWin | None:
    """The win as it stands after day ``day``'s result: ``out``, the player the tally
    voted out, goes out at the deadline (§9) unless the events already say so. None for
    a game without identities."""
    if config.identities is None:
        return None
    try:
        window = state.day(day)
    except StateError as exc:
        raise NightsError(str(exc)) from None
    if out is not None and not _recorded(state, out, window.deadline):
        kind = EventKind.IDENTITY_LOST if state.identities > 1 else EventKind.OUT
        try:
            state = state.add(GameEvent(kind, window.deadline, out, OutWhy.VOTE, day=day, note=f"第{day}日投票",
                                        seq=(1 << 30,), cause="投票"))
        except StateError:
            pass  # already out by then (a red card at the deadline): the events stand
    chronicle = game_chronicle(config, state, actions)
    assert chronicle is not None
    return DayWin(chronicle.win_at(window.deadline), tuple(w for when, w in chronicle.warnings if when <= window.deadline))


def _recorded(state: GameState, player: str, deadline: datetime) -> bool:
    return any(e.kind in (EventKind.OUT, EventKind.IDENTITY_LOST) and e.player == player and e.why is OutWhy.VOTE
               and e.at == deadline for e in state.events)
