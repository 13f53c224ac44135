"""Identities and the sealed deal (SPEC §10.1): reading a sheet, refusing a bad one, dealing,
the reveal text and its commitment, who knows whom."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.night import (
    Faction, Identity, Sheet, SheetError, commitment, deal, mode_for, new_salt, reveal, reveal_text,
)
from tests.engine.night_builders import DUAL, DUAL_TABLE, SIMPLE, SIMPLE_TABLE

I = Identity


# --- composition ----------------------------------------------------------------------

def test_composition__simple14_is_fourteen_players():
    mode = mode_for("simple14")
    assert dict(mode.composition) == {I.WOLF: 4, I.SEER: 1, I.WITCH: 1, I.ELDER: 1, I.VILLAGER: 7}
    assert mode.players_for() == 14


def test_composition__dual_is_seven_players_fourteen_identities():
    # 7人14身份，3狼，4大特2小特，5民
    mode = mode_for("dual")
    assert dict(mode.composition) == {I.WOLF: 3, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.ELDER: 1,
                                      I.HUNTER: 1, I.SCAPEGOAT: 1, I.VILLAGER: 5}
    assert sum(dict(mode.composition).values()) == 14 and mode.players_for() == 7


# --- reading a sheet --------------------------------------------------------------------

@pytest.mark.parametrize("ruleset, word, expected", [
    ("simple14", "预言家", "预言家"), ("simple14", "先知", "预言家"), ("simple14", "村长", "长老"),
    ("simple14", "狼", "狼人"), ("simple14", "ＷＯＬＦ", "狼人"),
    ("dual", "预言家", "先知"), ("dual", "先知", "先知"), ("dual", "村长", "长老"), ("dual", "【守卫】", "守卫"),
])
def test_read_sheet__synonyms_are_normalised_to_the_seeds_name(ruleset, word, expected):
    mode = mode_for(ruleset)
    assert mode.name(mode.identity(word)) == expected


def test_read_sheet__simple14_table():
    mode = mode_for("simple14")
    sheet = mode.read_sheet({**SIMPLE_TABLE, "小笼包": "先知"}, SIMPLE)
    assert sheet.first("小笼包") is I.SEER
    assert sheet.players == SIMPLE


def test_read_sheet__dual_pairs_first_identity_first():
    mode = mode_for("dual")
    sheet = mode.read_sheet(DUAL_TABLE, DUAL)
    assert sheet.hand("乙") == (I.SEER, I.WOLF)
    assert mode.faction_of(sheet, "乙") is Faction.WOLVES  # 两个身份中有"狼人"的角色属于狼人阵营


def test_read_sheet__names_compared_as_votes_are():
    mode = mode_for("simple14")
    table = dict(SIMPLE_TABLE)
    table["ｙｏｕｔｉａｏ"] = table.pop("油条")
    sheet = mode.read_sheet(table, tuple("youtiao" if p == "油条" else p for p in SIMPLE))
    assert sheet.first("youtiao") is I.VILLAGER


@pytest.mark.parametrize("change, problem", [
    ({"路人": "村民"}, "“路人”不是玩家"),
    ({"饺子": None}, "身份表缺少：饺子"),
    ({"饺子": "守卫"}, "14人简易规则没有“守卫”这个身份"),
    ({"饺子": "猪"}, "饺子：不认识的身份“猪”"),
    ({"饺子": "村民"}, "狼人应为 4 个，身份表中 3 个"),
    ({"饺子": ["狼人", "村民"]}, "饺子 应有 1 个身份，表中 2 个"),
])
def test_read_sheet__simple14_refused_with_the_reason(change, problem):
    table = dict(SIMPLE_TABLE)
    for player, value in change.items():
        if value is None:
            table.pop(player)
        else:
            table[player] = value
    with pytest.raises(SheetError) as caught:
        mode_for("simple14").read_sheet(table, SIMPLE)
    assert any(problem in p for p in caught.value.problems), caught.value.problems


@pytest.mark.parametrize("change, problem", [
    ({"甲": "狼人"}, "甲 应有 2 个身份，表中 1 个"),
    ({"己": ["村民", "猎人"]}, "猎人应为 1 个，身份表中 2 个"),
])
def test_read_sheet__dual_refused_with_the_reason(change, problem):
    with pytest.raises(SheetError) as caught:
        mode_for("dual").read_sheet({**DUAL_TABLE, **change}, DUAL)
    assert any(problem in p for p in caught.value.problems), caught.value.problems


def test_read_sheet__every_problem_at_once():
    table = {**SIMPLE_TABLE, "路人": "村民", "饺子": "猪"}
    with pytest.raises(SheetError) as caught:
        mode_for("simple14").read_sheet(table, SIMPLE)
    assert len(caught.value.problems) == 2


def test_read_sheet__won_at_deal_refused():
    # 双身份 with a variant composition where the village holds none of 先知/女巫/守卫/长老:
    # 村民阵营的先知、女巫、守卫、长老身份死亡 holds before the first night.
    mode = mode_for("dual")
    composition = mode.read_composition({"狼人": 2, "先知": 1, "村民": 3})
    table = {"甲": ["狼人", "先知"], "乙": ["狼人", "村民"], "丙": ["村民", "村民"]}
    with pytest.raises(SheetError) as caught:
        mode.read_sheet(table, ("甲", "乙", "丙"), composition)
    assert "发牌即已分出胜负：狼人阵营获胜（村民阵营的先知、女巫、守卫、长老身份死亡）" in str(caught.value)


def test_read_sheet__simple14_variant_won_at_deal_refused():
    # 狼人阵营存活的人数占总存活人数的一半或一半以上 at the deal.
    mode = mode_for("simple14")
    composition = mode.read_composition({"狼人": 3, "预言家": 1, "女巫": 1, "村民": 1})
    players = ("a", "b", "c", "d", "e", "f")
    with pytest.raises(SheetError, match="发牌即已分出胜负：狼人阵营获胜"):
        mode.read_sheet({"a": "狼人", "b": "狼人", "c": "狼人", "d": "预言家", "e": "女巫", "f": "村民"},
                        players, composition)


# --- dealing ------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64))
def test_deal__every_deal_is_valid(seed):
    for ruleset, players in (("simple14", SIMPLE), ("dual", DUAL)):
        mode = mode_for(ruleset)
        sheet = deal(players, ruleset, random.Random(seed))
        mode.check_sheet(sheet)  # raises if not
        assert sheet.players == players
        assert Counter(i for _, h in sheet.hands for i in h) == Counter(dict(mode.composition))


def test_deal__same_seed_same_sheet():
    assert deal(SIMPLE, "simple14", random.Random(7)) == deal(SIMPLE, "simple14", random.Random(7))


def test_deal__deals_again_rather_than_give_a_decided_sheet():
    # A 双身份 variant (1 狼人, 1 先知, 4 村民 for three players) where a fifth of the deals
    # pair the wolf with the only 先知: the village then holds none of 先知/女巫/守卫/长老.
    mode = mode_for("dual")
    composition = mode.read_composition({"狼人": 1, "先知": 1, "村民": 4})
    rng = random.Random(3)
    for _ in range(30):
        sheet = mode.deal(("甲", "乙", "丙"), rng, composition)
        mode.check_sheet(sheet, composition)
    decided = [mode.deal_once(("甲", "乙", "丙"), random.Random(s), composition) for s in range(200)]
    assert any(mode.win(mode.start(d)) is not None for d in decided)  # the redeal was needed


def test_deal__impossible_composition_says_so():
    mode = mode_for("simple14")
    composition = mode.read_composition({"狼人": 1, "村民": 1})
    with pytest.raises(SheetError, match="发牌 1000 次都已分出胜负"):
        mode.deal(("a", "b"), random.Random(1), composition)


def test_deal__wrong_player_count():
    with pytest.raises(SheetError, match="需要 14 名玩家，现有 13 名"):
        deal(SIMPLE[:13], "simple14", random.Random(1))


def test_order__dual_player_orders_their_own_two():
    sheet = mode_for("dual").read_sheet(DUAL_TABLE, DUAL)
    again = sheet.ordered("乙", I.WOLF)
    assert again.hand("乙") == (I.WOLF, I.SEER)
    assert again.hand("甲") == sheet.hand("甲")
    with pytest.raises(SheetError):
        sheet.ordered("乙", I.GUARD)


# --- reveal text and commitment -------------------------------------------------------------

def test_reveal__one_line_per_player_in_seat_order_then_the_salt():
    sheet = Sheet("simple14", (("饺子", (I.WOLF,)), ("包子", (I.SEER,))))
    text = reveal_text(mode_for("simple14"), sheet, "0123456789abcdef0123456789abcdef")
    assert text == "1 饺子：狼人\n2 包子：预言家\n盐：0123456789abcdef0123456789abcdef\n"


def test_commitment__of_a_known_text():
    # printf '1 饺子：狼人\n2 包子：预言家\n盐：0123456789abcdef0123456789abcdef\n' | sha256sum
    text = "1 饺子：狼人\n2 包子：预言家\n盐：0123456789abcdef0123456789abcdef\n"
    assert commitment(text) == "1437112c8b845a598be777260e3176aa594c9c4f154e25e342274f7fd3d0297c"


def test_reveal__dual_first_identity_first():
    sheet = Sheet("dual", (("甲", (I.WITCH, I.WOLF)),))
    text = reveal(sheet, "0" * 32)
    assert text == "1 甲：女巫 / 狼人\n盐：00000000000000000000000000000000\n"
    assert commitment(text) == "011aafaae9e111cd9f176b1981c87ba1bcc6987bbeb0b649a11b2ae75b3d8505"


def test_reveal__full_game_uses_the_seeds_names():
    sheet = mode_for("dual").read_sheet(DUAL_TABLE, DUAL)
    text = reveal(sheet, new_salt(random.Random(5)))
    lines = text.splitlines()
    assert lines[1] == "2 乙：先知 / 狼人" and len(lines) == 8 and lines[7].startswith("盐：")


@pytest.mark.parametrize("salt", ["", "0" * 31, "0" * 33, "G" * 32, "A" * 32])
def test_reveal__salt_must_be_32_lowercase_hex(salt):
    with pytest.raises(SheetError):
        reveal(Sheet("simple14", (("饺子", (I.WOLF,)),)), salt)


def test_salt__from_the_given_generator():
    assert new_salt(random.Random(1)) == new_salt(random.Random(1))
    assert len(new_salt(random.Random(2))) == 32


# --- who knows whom -------------------------------------------------------------------------

def test_pack__simple14_all_wolves_know_each_other():
    # 所有狼人将在游戏开始后互知共群。
    mode = mode_for("simple14")
    sheet = mode.read_sheet(SIMPLE_TABLE, SIMPLE)
    briefing = mode.briefing(sheet, "饺子")
    assert briefing.pack == ("包子", "汤圆", "月饼")
    assert briefing.text() == "你的身份：狼人。狼人同伴：包子、汤圆、月饼。"
    assert mode.briefing(sheet, "小笼包").pack == ()


def test_pack__dual_only_first_identity_wolves():
    # 只有"第一身份"为狼人的玩家能够在狼群中讨论并行使狼人技能"杀人"。
    mode = mode_for("dual")
    sheet = mode.read_sheet(DUAL_TABLE, DUAL)
    assert mode.pack_at_deal(sheet) == ("甲", "庚")
    assert mode.briefing(sheet, "甲").pack == ("庚",)
    assert mode.briefing(sheet, "乙").pack == ()  # 先知 first: not in the pack (yet)
    text = mode.briefing(sheet, "乙", ordering=True).text()
    assert text.startswith("你的两个身份：先知 / 狼人。请在第一天开始前")
