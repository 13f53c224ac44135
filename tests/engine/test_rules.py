"""Rule sets as data: presets from the seeds, overrides that reject typos."""

from __future__ import annotations

import pytest

from engine.rules import PRESETS, CardPolicy, RuleSetError, TieRule, Visibility, preset


def test_presets__the_four_seed_rule_sets():
    assert list(PRESETS) == ["s09", "s10", "simple14", "dual"]


@pytest.mark.parametrize("name, tie, cards", [
    ("s09", TieRule.SHERIFF_TARGET, CardPolicy.LADDER),
    ("s10", TieRule.SHERIFF_TARGET, CardPolicy.LADDER),
    ("simple14", TieRule.SHERIFF_TARGET, CardPolicy.LADDER),
    ("dual", TieRule.SCAPEGOAT_THEN_FIRST_REACHED, CardPolicy.POINTS),
])
def test_presets__tie_rule_and_card_policy(name, tie, cards):
    rules = PRESETS[name]
    assert (rules.elimination_tie, rules.card_policy, rules.sheriff_weight, rules.sheriff_tie) == (
        tie, cards, 2, TieRule.FIRST_REACHED)


def test_presets__simple14_numbers():
    """14人简易: 白天结束前一个小时不得改票; 单个讨论日不足五帖、或连续三个讨论日均不足十帖; 三张蓝牌→黄牌, 三张黄牌→红牌."""
    r = PRESETS["simple14"]
    assert (r.change_window_minutes, r.lurk_posts_per_day, r.lurk_posts_per_span, r.lurk_span_days,
            r.blues_per_yellow, r.yellows_per_red, r.require_reason) == (60, 5, 10, 3, 3, 3, True)


def test_with_overrides__replaces_and_coerces():
    rules = PRESETS["s10"].with_overrides(visibility="counts_only", change_window_minutes=30, require_reason=False)
    assert (rules.visibility, rules.change_window_minutes, rules.require_reason) == (Visibility.COUNTS_ONLY, 30, False)
    assert PRESETS["s10"].visibility is Visibility.PUBLIC  # presets are not mutated


@pytest.mark.parametrize("overrides, message", [
    ({"chnage_window_minutes": 5}, "规则集没有这个字段：chnage_window_minutes"),
    ({"visibility": "secret"}, "visibility: 'secret' 不是可用的值（可用：public、counts_only"),
    ({"require_reason": "yes"}, "require_reason: 应为 true 或 false"),
    ({"sheriff_weight": -1}, "sheriff_weight: 应为 ≥ 0 的整数"),
])
def test_with_overrides__errors_name_the_key(overrides, message):
    with pytest.raises(RuleSetError, match=message.replace("(", r"\(").replace(")", r"\)")):
        PRESETS["s10"].with_overrides(**overrides)


def test_preset__unknown_name_lists_choices():
    with pytest.raises(RuleSetError, match=r"未知的规则集 's11'（可选：s09、s10、simple14、dual）"):
        preset("s11")
