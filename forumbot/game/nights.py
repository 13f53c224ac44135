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
from typing import TYPE_CHECKING

from engine.events import EventKind, GameEvent, OutWhy
from engine.night import (
    REASON_ZH, Action, Chronicle, ChronicleError, NightResult, NightSettings, PlanError, Sheet, Win,
)
from engine.state import GameState, StateError
from forumbot.config.gamefile import GameConfig

if TYPE_CHECKING:
    from forumbot.game.runtime import Runtime

__all__ = ["DayWin", "NightsError", "game_chronicle", "night_json", "resolve_night", "secrets_lines", "secrets_view",
           "win_after_day", "with_vote_out",
           "STORE_SEQ", "game_actions", "runtime_chronicle", "runtime_config", "stored_actions"]


class NightsError(ValueError):
    """A night or a game the identities cannot answer for (Chinese, names the thing)."""


def game_chronicle(config: GameConfig, state: GameState | None = None, actions: Iterable[Action] | None = None,
                   settings: NightSettings | None = None, sheet: Sheet | None = None) -> Chronicle | None:
    """The game across nights and days from the config's sheet. ``state``: the game as it
    stands (default: the config's start and ``[[events]]``); ``actions``: every night
    action (default: the config's ``[[actions]]``; the agent passes those and its stored
    ones together); ``settings``: the phases (default ``[night]``; the agent adds the
    director's extensions); ``sheet``: the identities as they stand (default the config's;
    双身份: with the orders the players gave). None for a game without identities (counted
    as before)."""
    if config.identities is None or config.night_mode is None:
        return None
    try:
        return Chronicle(config.night_mode, sheet or config.identities, state if state is not None else config.state,
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


def with_vote_out(state: GameState, day: int, out: str | None) -> GameState:
    """The game with day ``day``'s vote-out at its deadline (§9), as the tally found it,
    unless the events already say so (or the player had left by then)."""
    try:
        window = state.day(day)
    except StateError as exc:
        raise NightsError(str(exc)) from None
    if out is None or _recorded(state, out, window.deadline):
        return state
    kind = EventKind.IDENTITY_LOST if state.identities > 1 else EventKind.OUT
    try:
        return state.add(GameEvent(kind, window.deadline, out, OutWhy.VOTE, day=day, note=f"第{day}日投票",
                                   seq=(1 << 30,), cause="投票"))
    except StateError:
        return state  # already out by then (a red card at the deadline): the events stand


def win_after_day(config: GameConfig, state: GameState, day: int, out: str | None,
                  actions: Iterable[Action] | None = None) -> DayWin | None:
    """The win as it stands after day ``day``'s result: ``out``, the player the tally
    voted out, goes out at the deadline (§9) unless the events already say so. None for
    a game without identities."""
    if config.identities is None:
        return None
    state = with_vote_out(state, day, out)
    deadline = state.day(day).deadline
    chronicle = game_chronicle(config, state, actions)
    assert chronicle is not None
    return DayWin(chronicle.win_at(deadline), tuple(w for when, w in chronicle.warnings if when <= deadline))


def _recorded(state: GameState, player: str, deadline: datetime) -> bool:
    return any(e.kind in (EventKind.OUT, EventKind.IDENTITY_LOST) and e.player == player and e.why is OutWhy.VOTE
               and e.at == deadline for e in state.events)


def secrets_view(config: GameConfig, state: GameState | None = None, actions: Iterable[Action] | None = None,
                 at: datetime | None = None) -> dict | None:
    """What ``status --secrets`` and ``tally --secrets`` show: each player's identities
    (first first) and which are lost, every night's actions as ruled, and the win — the
    game as it stands at ``at`` (None: everything known). None without identities."""
    chronicle = game_chronicle(config, state, actions)
    if chronicle is None:
        return None
    mode = chronicle.mode
    position = chronicle.position(at)
    players = []
    for player, hand in chronicle.sheet.hands:
        players.append({
            "player": player,
            "identities": [mode.name(i) for i in hand],
            "current": mode.name(position.current(player)) if position.current(player) is not None else None,
            "lost": position.layers_lost(player),
            "in_game": position.in_game(player),
        })
    nights = []
    for number in sorted(chronicle.nights):
        record = chronicle.nights[number]
        if not record.actions or (at is not None and record.ctx.plan.start > at):
            continue
        result = chronicle.resolve(number)
        nights.append({"night": number, "actions": result.to_json()["actions"]})
    win = position.win
    return {"identities": players, "nights": nights, "win": win.to_json() if win else None,
            "warnings": [w for when, w in chronicle.warnings if at is None or when <= at]}


def secrets_lines(view: dict) -> list[str]:
    """The same, as lines for the terminal (Chinese)."""
    lines = ["身份（保密）："]
    for p in view["identities"]:
        state = "" if p["in_game"] and not p["lost"] else ("（已出局）" if not p["in_game"] else f"（失去 {p['lost']} 层身份）")
        lines.append(f"  {p['player']}：{' / '.join(p['identities'])}{state}")
    for night in view["nights"]:
        lines.append(f"第{night['night']}晚的行动：")
        for a in night["actions"]:
            target = "、".join(a["target"]) if isinstance(a["target"], list) else (a["target"] or "")
            ruling = "计入" if a["counted"] else f"未计入（{_REASONS.get(a['reason'] or '', '')}）"
            lines.append(f"  {(a['at'] or '')[5:16].replace('T', ' ')} {a['actor']}（{a['identity'] or '—'}）"
                         f"{a['skill']} {target} —— {ruling}")
    win = view["win"]
    lines.append(f"胜负：{win['faction']}获胜（{win['rule']}）" if win else "胜负：尚未分出")
    lines.extend(f"⚠ {w}" for w in view["warnings"])
    return lines


_REASONS = {k.value: v for k, v in REASON_ZH.items()}


# The store's actions' ``seq`` is their id above this: a config's ``[[actions]]`` (numbered
# from 0 in file order) come first within a second and never share a number with them.
STORE_SEQ = 1_000_000


def stored_actions(rt: "Runtime") -> tuple[Action, ...]:
    """The actions the agent filed (by PM, or the director's entries: ``forumbot.store.nights``),
    each with the store's id in its ``seq`` — two actions of one second are ordered the
    same way after any restart."""
    from engine.night import Skill

    return tuple(Action(r.night, r.actor, Skill(r.skill), tuple(r.targets), r.at, STORE_SEQ + r.id, r.by_director)
                 for r in rt.store.night_actions())


def game_actions(rt: "Runtime") -> tuple[Action, ...]:
    """Every night action of the game as the agent knows it: the config's ``[[actions]]``
    (the director's) and the stored ones (the nights by PM)."""
    return (*rt.config.actions, *stored_actions(rt))


def runtime_config(rt: "Runtime") -> GameConfig:
    """The config with the sheet as it stands: 双身份 players' orders of their two identities
    (sent by PM before day 1, kept in the store) applied, first identity first."""
    from dataclasses import replace

    from engine.night.identities import read_identity

    sheet = rt.config.identities
    if sheet is None:
        return rt.config
    for player, first in rt.store.identity_orders().items():
        identity = read_identity(first)
        if identity is not None and player in sheet.players and identity in sheet.hand(player):
            sheet = sheet.ordered(player, identity)
    return replace(rt.config, identities=sheet)


def runtime_chronicle(rt: "Runtime", state: GameState | None = None) -> Chronicle | None:
    """The running game's chronicle: the sheet as ordered, the stored events, every action."""
    from forumbot.game.state import current_state

    return game_chronicle(runtime_config(rt), state if state is not None else current_state(rt.config, rt.store),
                          game_actions(rt))
