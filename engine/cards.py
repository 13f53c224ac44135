"""The card ledger (违规判定): applies the director's decisions, never its own.

Ladder (14人简易): 三张【蓝牌】升级为一张【黄牌】, 三张【黄牌】升级为一张【红牌】; a red card sends
the player off (罚下). Points (双身份): 累计扣满12分者将予以罚下. The ledger carries across days.
红牌罚下的警长警徽随机移交: the draw uses ``random.Random(seed)`` and the seed is recorded.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from engine.rules import CardPolicy, RuleSet
from engine.state import GameState


class Card(StrEnum):
    BLUE = "blue"
    YELLOW = "yellow"
    RED = "red"


class CardError(ValueError):
    """A decision the ledger cannot apply (unknown player, missing points or seed…)."""


@dataclass(frozen=True)
class Decision:
    """What the director decided: a card, or (points policy) points deducted."""

    player: str
    day: int
    card: Card | None = None
    points: int = 0
    why: str = ""
    floors: tuple[int, ...] = ()
    at: datetime | None = None


@dataclass(frozen=True)
class CardEvent:
    kind: str  # "card", "points", "upgrade", "sent_off", "badge"
    player: str
    day: int
    detail: str
    seed: int | None = None
    new_sheriff: str | None = None
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True)
class Standing:
    blue: int = 0
    yellow: int = 0
    points: int = 0
    sent_off: bool = False


@dataclass(frozen=True)
class CardLedger:
    policy: CardPolicy = CardPolicy.LADDER
    blues_per_yellow: int = 3
    yellows_per_red: int = 3
    sendoff_points: int = 12
    standings: tuple[tuple[str, Standing], ...] = ()
    events: tuple[CardEvent, ...] = ()

    @classmethod
    def for_rules(cls, rules: RuleSet) -> CardLedger:
        return cls(rules.card_policy, rules.blues_per_yellow, rules.yellows_per_red, rules.sendoff_points)

    def standing(self, player: str) -> Standing:
        for name, standing in self.standings:
            if name == player:
                return standing
        return Standing()

    def apply(self, decision: Decision, state: GameState, seed: int | None = None) -> tuple[CardLedger, GameState, list[CardEvent]]:
        """Apply one decision. Returns the new ledger, the new state (a send-off puts the
        player out; a sent-off sheriff's badge passes by a seeded draw) and what happened."""
        player = decision.player
        if player not in state.players:
            raise CardError(f"{player!r} is not a player")
        before = self.standing(player)
        if before.sent_off:
            raise CardError(f"{player} has already been sent off")
        events: list[CardEvent] = []
        after, send_off = self._count(decision, before, events)
        if send_off:
            after = replace(after, sent_off=True)
            events.append(CardEvent("sent_off", player, decision.day, "红牌罚下 (sent off, no last words)"))
            if not state.is_out(player):
                state = state.put_out(player, decision.at, "红牌罚下 (sent off)")
            if state.sheriff == player:
                state, badge = _pass_badge(state, player, decision, seed)
                events.append(badge)
        standings = tuple((n, s) for n, s in self.standings if n != player) + ((player, after),)
        ledger = replace(self, standings=standings, events=self.events + tuple(events))
        return ledger, state, events

    def _count(self, d: Decision, s: Standing, events: list[CardEvent]) -> tuple[Standing, bool]:
        if self.policy is CardPolicy.POINTS:
            if d.card is Card.RED:
                events.append(CardEvent("card", d.player, d.day, f"red: {d.why}"))
                return s, True
            if d.points <= 0:
                raise CardError(f"{d.player}: the points policy needs points > 0 for a {d.card or 'decision'}")
            total = s.points + d.points
            events.append(CardEvent("points", d.player, d.day, f"-{d.points} ({total}/{self.sendoff_points}): {d.why}"))
            return replace(s, points=total), total >= self.sendoff_points
        if d.card is None:
            raise CardError(f"{d.player}: the ladder policy needs a card (blue, yellow or red)")
        events.append(CardEvent("card", d.player, d.day, f"{d.card.value}: {d.why}"))
        if d.card is Card.RED:
            return s, True
        blue, yellow = s.blue, s.yellow
        if d.card is Card.BLUE:
            blue += 1
            if blue >= self.blues_per_yellow:
                blue -= self.blues_per_yellow
                yellow += 1
                events.append(CardEvent("upgrade", d.player, d.day, f"{self.blues_per_yellow} blue → yellow"))
        else:
            yellow += 1
        if yellow >= self.yellows_per_red:
            yellow -= self.yellows_per_red
            events.append(CardEvent("upgrade", d.player, d.day, f"{self.yellows_per_red} yellow → red"))
            return replace(s, blue=blue, yellow=yellow), True
        return replace(s, blue=blue, yellow=yellow), False


def _pass_badge(state: GameState, player: str, decision: Decision, seed: int | None) -> tuple[GameState, CardEvent]:
    if seed is None:
        raise CardError(f"{player} is the sheriff: passing the badge needs a recorded random seed")
    # S10 【殉职】 excludes an idiot who used 若愚; the draw does the same.
    candidates = tuple(p for p in state.living(decision.at)
                       if p != player and p not in state.idiots_revealed)
    new = random.Random(seed).choice(candidates) if candidates else None
    state = state.set_sheriff(new, decision.at, f"警徽随机移交 (random draw, seed {seed})")
    return state, CardEvent("badge", player, decision.day,
                            f"badge of {player} passes to {new} by random draw (seed {seed})",
                            seed=seed, new_sheriff=new, candidates=candidates)
