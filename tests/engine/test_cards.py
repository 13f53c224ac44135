"""The card ledger: the director's decisions in, the ladder or points applied, badges drawn."""

from __future__ import annotations

import random

import pytest

from engine.cards import Card, CardError, CardLedger, Decision
from engine.rules import PRESETS
from tests.engine.builders import game


def apply_all(ledger, state, decisions, seed=None):
    events = []
    for d in decisions:
        ledger, state, ev = ledger.apply(d, state, seed=seed)
        events += ev
    return ledger, state, events


def test_ledger__three_blue_make_a_yellow():
    """14人简易: 三张【蓝牌】升级为一张【黄牌】"""
    ledger = CardLedger.for_rules(PRESETS["simple14"])
    ledger, _, events = apply_all(ledger, game(), [Decision("包子", 2, Card.BLUE)] * 3)
    assert ledger.standing("包子").blue == 0 and ledger.standing("包子").yellow == 1
    assert [e.kind for e in events] == ["card", "card", "card", "upgrade"]


def test_ledger__three_yellow_make_a_red_and_send_off_across_days():
    """14人简易: 三张【黄牌】升级为一张【红牌】; 红牌罚下."""
    ledger = CardLedger.for_rules(PRESETS["simple14"])
    decisions = [Decision("包子", d, Card.YELLOW, why="未投票") for d in (2, 3, 4)]
    ledger, state, events = apply_all(ledger, game(), decisions)
    assert ledger.standing("包子").sent_off and state.is_out("包子")
    assert events[-1].kind == "sent_off"


def test_ledger__sent_off_sheriff_badge_passes_by_recorded_seed():
    """14人简易: 红牌罚下的警长警徽随机移交。"""
    ledger = CardLedger.for_rules(PRESETS["simple14"])
    state = game(sheriff="饺子")
    _, after, events = apply_all(ledger, state, [Decision("饺子", 2, Card.RED)], seed=42)
    badge = events[-1]
    expected = random.Random(42).choice(badge.candidates)
    assert (badge.kind, badge.seed, badge.new_sheriff, after.sheriff) == ("badge", 42, expected, expected)
    assert "饺子" not in badge.candidates
    assert "随机种子 42" in after.events[-1].note and after.events[-1].at is None


def test_ledger__badge_follows_the_rule_set():
    """双身份: 角色因罚下而离开游戏不触发相应出局技能 — no draw, the badge is vacant; S10: the
    badge waits for the 【殉职】 successor."""
    for ruleset in ("dual", "s10"):
        ledger = CardLedger.for_rules(PRESETS[ruleset])
        state = game(sheriff="饺子")
        decision = Decision("饺子", 2, Card.RED, points=0) if ruleset == "s10" else Decision("饺子", 2, Card.RED)
        _, after, events = ledger.apply(decision, state, seed=42)
        assert [e.kind for e in events] == ["card", "sent_off"], ruleset
        assert after.sheriff is None and after.vacancy is not None and after.vacancy.previous == "饺子"


def test_ledger__badge_draw_without_seed_is_an_error():
    with pytest.raises(CardError, match="随机种子"):
        CardLedger().apply(Decision("饺子", 2, Card.RED), game(sheriff="饺子"))


def test_ledger__points_policy_sends_off_at_twelve():
    """双身份: 角色因违反游戏规则，累计扣满12分者将予以罚下处理"""
    ledger = CardLedger.for_rules(PRESETS["dual"])
    ledger, state, _ = apply_all(ledger, game(), [Decision("包子", 2, points=5), Decision("包子", 3, points=6)])
    assert (ledger.standing("包子").points, state.is_out("包子")) == (11, False)
    ledger, state, _ = ledger.apply(Decision("包子", 4, points=1), state)
    assert ledger.standing("包子").sent_off and state.is_out("包子")


def test_ledger__points_policy_needs_points():
    with pytest.raises(CardError, match="扣分"):
        CardLedger.for_rules(PRESETS["dual"]).apply(Decision("包子", 2, Card.YELLOW), game())


def test_ledger__not_a_player():
    with pytest.raises(CardError, match="不是玩家"):
        CardLedger().apply(Decision("路人甲", 2, Card.BLUE), game())
