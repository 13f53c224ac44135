"""The badge (警长) when its holder leaves: who may succeed, and how the rule set says the
successor is found.

* S09/S10 【殉职】警长出局后，须选择一名未出局的角色（S10: 已发动【若愚】的白痴除外）来继任警长。
* 14人简易 殉职 —— 警长并非因红牌罚下而出局后，须选择一名未出局的角色来继任警长。
  红牌罚下的警长警徽随机移交。 警长被投票出局，关门三十分钟后仍未与导演取得联系，警长随机移交给在场的一名未出局角色。
* 双身份 【殉职】警长当前第一身份死亡后，须选择一名未出局的角色来继任警长，不能选择自己的第二身份继任警长。
  角色因罚下而离开游戏不触发相应出局技能 — a sent-off sheriff names no successor.

Until a ``sheriff`` event names the successor the badge is vacant: counts and
announcements say 警长：空缺, and no vote weighs double.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from engine.events import OutWhy
from engine.rules import RuleSet, SendoffBadge
from engine.state import GameState, StateError
from engine.timeline import Vacancy


class Succession(StrEnum):
    NONE = "none"  # the badge is held (or was never given)
    SUCCESSOR = "successor"  # the outgoing sheriff names a successor (【殉职】)
    DRAW = "draw"  # the director draws at random (recorded seed)
    VACANT = "vacant"  # no one names one (双身份: a send-off triggers no 【殉职】)


@dataclass(frozen=True)
class BadgeStatus:
    sheriff: str | None
    vacancy: Vacancy | None
    succession: Succession
    candidates: tuple[str, ...]  # who may take the badge now
    draw_from: datetime | None = None  # from when the director may draw (None: not offered)

    def draw_offered(self, now: datetime) -> bool:
        return self.draw_from is not None and now >= self.draw_from

    def describe(self, now: datetime) -> str:
        """One line in Chinese for the director."""
        if self.vacancy is None:
            return f"警长：{self.sheriff}" if self.sheriff else "警长：无"
        gone = f"{self.vacancy.previous}（{'身份死亡' if self.vacancy.cause == 'identity_lost' else '出局'}）"
        if self.succession is Succession.VACANT:
            return f"警长：空缺 —— {gone}被罚下，不触发【殉职】"
        if self.succession is Succession.DRAW or self.draw_offered(now):
            return f"警长：空缺 —— {gone}；可随机移交（forumbot draw-sheriff）"
        when = f"，{self.draw_from:%m-%d %H:%M} 起可随机移交" if self.draw_from else ""
        return f"警长：空缺 —— 等待 {gone}指定继任者{when}"


def successor_candidates(state: GameState, rules: RuleSet, at: datetime | None = None) -> tuple[str, ...]:
    """Players who may take the badge at ``at``: in the game, not the sheriff who left
    (双身份: 不能选择自己的第二身份继任警长 — the same account), not a revealed idiot where
    the rule set says so (S10)."""
    moment = state.moment(at)
    previous = moment.vacancy.previous if moment.vacancy else moment.sheriff
    return tuple(
        p for p in state.players
        if not moment.is_out(p) and p != previous
        and not (rules.successor_excludes_idiot and p in moment.idiots)
    )


def check_successor(state: GameState, rules: RuleSet, player: str, at: datetime | None = None) -> None:
    """Raise ``StateError`` (in Chinese, naming the rule) when ``player`` may not take the badge."""
    moment = state.moment(at)
    previous = moment.vacancy.previous if moment.vacancy else None
    if player not in state.players:
        raise StateError(f"“{player}”不是玩家")
    if moment.is_out(player):
        raise StateError(f"{player} 已出局，不能继任警长（须选择一名未出局的角色）")
    if previous is not None and player == previous:
        raise StateError(f"{player} 是刚失去警徽的警长本人（双身份：不能选择自己的第二身份继任警长）")
    if rules.successor_excludes_idiot and player in moment.idiots:
        raise StateError(f"{player} 已发动【若愚】，不能继任警长（已发动【若愚】的白痴除外）")


def badge_status(state: GameState, rules: RuleSet, at: datetime | None = None) -> BadgeStatus:
    moment = state.moment(at)
    vacancy = moment.vacancy
    candidates = successor_candidates(state, rules, at)
    if vacancy is None:
        return BadgeStatus(moment.sheriff, None, Succession.NONE, candidates)
    if vacancy.why == OutWhy.CARD.value:
        if rules.sendoff_badge is SendoffBadge.DRAW:
            return BadgeStatus(None, vacancy, Succession.DRAW, candidates, vacancy.since)
        if rules.sendoff_badge is SendoffBadge.VACANT:
            return BadgeStatus(None, vacancy, Succession.VACANT, candidates)
    draw_from = None
    if rules.successor_draw_minutes and vacancy.why == OutWhy.VOTE.value and vacancy.since is not None:
        draw_from = vacancy.since + timedelta(minutes=rules.successor_draw_minutes)
    return BadgeStatus(None, vacancy, Succession.SUCCESSOR, candidates, draw_from)


def draw(candidates: tuple[str, ...], seed: int) -> str | None:
    """The random draw (警徽随机移交) with a recorded seed: anyone can repeat it."""
    return random.Random(seed).choice(candidates) if candidates else None
