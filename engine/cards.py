"""The card ledger (违规判定): applies the director's decisions, never its own.

Ladder (14人简易): 三张【蓝牌】升级为一张【黄牌】, 三张【黄牌】升级为一张【红牌】; a red card sends
the player off (罚下). Points (双身份): 累计扣满12分者将予以罚下. The ledger carries across days.
红牌罚下的警长警徽随机移交: the draw uses ``random.Random(seed)`` and the seed is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from engine.badge import draw, successor_candidates
from engine.events import OutWhy
from engine.rules import CardPolicy, RuleSet, SendoffBadge
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
    rules: RuleSet | None = None  # the badge of a sent-off sheriff follows its rule set

    @classmethod
    def for_rules(cls, rules: RuleSet) -> CardLedger:
        return cls(rules.card_policy, rules.blues_per_yellow, rules.yellows_per_red, rules.sendoff_points,
                   rules=rules)

    def standing(self, player: str) -> Standing:
        for name, standing in self.standings:
            if name == player:
                return standing
        return Standing()

    def apply(self, decision: Decision, state: GameState, seed: int | None = None) -> tuple[CardLedger, GameState, list[CardEvent]]:
        """Apply one decision. Returns the new ledger, the new state (a send-off puts the
        player out at the decision's time; a sent-off sheriff's badge follows the rule
        set: 14人简易 draws with the seed) and what happened."""
        player = decision.player
        if player not in state.players:
            raise CardError(f"“{player}”不是玩家")
        before = self.standing(player)
        if before.sent_off:
            raise CardError(f"{player} 已被罚下")
        events: list[CardEvent] = []
        after, send_off = self._count(decision, before, events)
        if send_off:
            after = replace(after, sent_off=True)
            events.append(CardEvent("sent_off", player, decision.day, "罚下（无遗言）"))
            was_sheriff = state.sheriff_at(decision.at) == player if decision.at else state.sheriff == player
            if not state.is_out(player, decision.at):
                state = state.put_out(player, decision.at, OutWhy.CARD)
            draws = self.rules is None or self.rules.sendoff_badge is SendoffBadge.DRAW
            if was_sheriff and draws:
                state, badge = _pass_badge(state, player, decision, seed, self.rules)
                events.append(badge)
        standings = tuple((n, s) for n, s in self.standings if n != player) + ((player, after),)
        ledger = replace(self, standings=standings, events=self.events + tuple(events))
        return ledger, state, events

    def _count(self, d: Decision, s: Standing, events: list[CardEvent]) -> tuple[Standing, bool]:
        if self.policy is CardPolicy.POINTS:
            if d.card is Card.RED:
                events.append(CardEvent("card", d.player, d.day, f"红牌：{d.why}"))
                return s, True
            if d.points <= 0:
                raise CardError(f"{d.player}：扣分制须给出扣分（大于 0）")
            total = s.points + d.points
            events.append(CardEvent("points", d.player, d.day, f"扣 {d.points} 分（累计 {total}/{self.sendoff_points}）：{d.why}"))
            return replace(s, points=total), total >= self.sendoff_points
        if d.card is None:
            raise CardError(f"{d.player}：须给出牌色（蓝、黄或红）")
        events.append(CardEvent("card", d.player, d.day, f"{_CARD_ZH[d.card]}：{d.why}"))
        if d.card is Card.RED:
            return s, True
        blue, yellow = s.blue, s.yellow
        if d.card is Card.BLUE:
            blue += 1
            if blue >= self.blues_per_yellow:
                blue -= self.blues_per_yellow
                yellow += 1
                events.append(CardEvent("upgrade", d.player, d.day, f"{self.blues_per_yellow} 张蓝牌升级为黄牌"))
        else:
            yellow += 1
        if yellow >= self.yellows_per_red:
            yellow -= self.yellows_per_red
            events.append(CardEvent("upgrade", d.player, d.day, f"{self.yellows_per_red} 张黄牌升级为红牌"))
            return replace(s, blue=blue, yellow=yellow), True
        return replace(s, blue=blue, yellow=yellow), False


_CARD_ZH = {Card.BLUE: "蓝牌", Card.YELLOW: "黄牌", Card.RED: "红牌"}


def _pass_badge(state: GameState, player: str, decision: Decision, seed: int | None,
                rules: RuleSet | None) -> tuple[GameState, CardEvent]:
    if seed is None:
        raise CardError(f"{player} 是警长：警徽随机移交需要记录的随机种子")
    if rules is not None:
        candidates = successor_candidates(state, rules, decision.at)
    else:  # S10 【殉职】 excludes an idiot who used 若愚; without a rule set, so does the draw
        candidates = tuple(p for p in state.living(decision.at)
                           if p != player and p not in state.idiots_revealed)
    new = draw(candidates, seed)
    state = state.set_sheriff(new, decision.at, f"警徽随机移交（随机种子 {seed}）")
    return state, CardEvent("badge", player, decision.day,
                            f"{player} 的警徽随机移交给 {new}（随机种子 {seed}）",
                            seed=seed, new_sheriff=new, candidates=candidates)
