"""S10's 身份分配 by player count and version, the version number, the option digits, the
deal (seeds/000_…, 2楼 用语定义, 3楼 身份分配)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.night import Identity, ModeError, SheetError, deal, mode_for, reveal
from engine.night.s10_table import ROWS, read_version, suffixes_for
from tests.engine.night_builders import S10_PLAYERS, S10_TABLE

I = Identity
SUFFIX = "后缀为2位十六进制数字+1位A~E的字母，第一位等于玩家数-10，第二位等于〖村民阵营〗(相对容错数较小者+2)*2，字母代表竞技难度"
PREFIX = "前缀3位十六进制数代表的二进制中高2位中第1位对应胜负判定，第2位对应有无孤狼：“0”为无，“1”为有。"
DEFAULT = "上表中规则前缀默认为244（后缀为A、B、C）或2E4（后缀为D、E），狼人技能均为1。"

# (the seed's row, verbatim; the composition; the option digits) — written out by hand.
ROW_CASES = [
    ("10\t3\t4\t00\t000\t\t\t\t\t0\t\t\t04C",
     {I.WOLF: 3, I.VILLAGER: 4, I.SEER: 1, I.WITCH: 1, I.CUPID: 1},
     {"杀人": "1", "预言": "00", "通灵": "0", "解药": "0", "毒药": "0", "金箭": "0"}),
    ("10\t3\t4\t00\t011\t\t\t\t\t0\t\t\t04A",
     {I.WOLF: 3, I.VILLAGER: 4, I.SEER: 1, I.WITCH: 1, I.CUPID: 1},
     {"杀人": "1", "预言": "00", "通灵": "0", "解药": "1", "毒药": "1", "金箭": "0"}),
    ("12\t3\t4\t01\t000\t000\t\t\t\t0\t✓\t\t26E",
     {I.WOLF: 3, I.VILLAGER: 4, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.CUPID: 1, I.PIPER: 1},
     {"杀人": "1", "预言": "01", "通灵": "0", "解药": "0", "毒药": "0", "守护": "00", "隔音": "0", "金箭": "0"}),
    ("14\t3\t5\t00\t001\t000\t\t✓\t\t0\t✓\t\t46D",
     {I.WOLF: 3, I.VILLAGER: 5, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.HUNTER: 1, I.CUPID: 1, I.PIPER: 1},
     {"杀人": "1", "预言": "00", "通灵": "0", "解药": "0", "毒药": "1", "守护": "00", "隔音": "0", "金箭": "0"}),
    ("15\t3\t5\t00\t000\t101\t\t✓\t✓\t0\t✓\t\t56E",
     {I.WOLF: 3, I.VILLAGER: 5, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.HUNTER: 1, I.IDIOT: 1, I.CUPID: 1,
      I.PIPER: 1},
     {"杀人": "1", "预言": "00", "通灵": "0", "解药": "0", "毒药": "0", "守护": "10", "隔音": "1", "金箭": "0"}),
    ("16\t5\t5\t00\t011\t000\t1\t\t\t0\t✓\t\t66C",
     {I.WOLF: 5, I.VILLAGER: 5, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.ELDER: 1, I.CUPID: 1, I.PIPER: 1},
     {"杀人": "1", "预言": "00", "通灵": "0", "解药": "1", "毒药": "1", "守护": "00", "隔音": "0", "道骨": "1",
      "金箭": "0"}),
    ("17\t4\t6\t01\t000\t101\t0\t✓\t\t0\t✓\t\t78E",
     {I.WOLF: 4, I.VILLAGER: 6, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.ELDER: 1, I.HUNTER: 1, I.CUPID: 1,
      I.PIPER: 1},
     {"杀人": "1", "预言": "01", "通灵": "0", "解药": "0", "毒药": "0", "守护": "10", "隔音": "1", "道骨": "0",
      "金箭": "0"}),
    ("17\t7\t4\t00\t011\t000\t1\t\t\t0\t✓\t\t72A",
     {I.WOLF: 7, I.VILLAGER: 4, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.ELDER: 1, I.CUPID: 1, I.PIPER: 1},
     {"杀人": "1", "预言": "00", "通灵": "0", "解药": "1", "毒药": "1", "守护": "00", "隔音": "0", "道骨": "1",
      "金箭": "0"}),
    ("19\t3\t7\t10\t000\t101\t0\t✓\t✓\t0\t✓\t✓\t96E",
     {I.WOLF: 3, I.VILLAGER: 7, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.ELDER: 1, I.HUNTER: 1, I.IDIOT: 1,
      I.CUPID: 1, I.PIPER: 1, I.WHITE_WOLF: 1},
     {"杀人": "1", "预言": "10", "通灵": "0", "解药": "0", "毒药": "0", "守护": "10", "隔音": "1", "道骨": "0",
      "金箭": "0"}),
    ("20\t3\t8\t01\t001\t000\t1\t✓\t✓\t0\t✓\t✓\tA6D",
     {I.WOLF: 3, I.VILLAGER: 8, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.ELDER: 1, I.HUNTER: 1, I.IDIOT: 1,
      I.CUPID: 1, I.PIPER: 1, I.WHITE_WOLF: 1},
     {"杀人": "1", "预言": "01", "通灵": "0", "解药": "0", "毒药": "1", "守护": "00", "隔音": "0", "道骨": "1",
      "金箭": "0"}),
    ("22\t3\t10\t10\t000\t101\t0\t✓\t✓\t0\t✓\t✓\tC6E",
     {I.WOLF: 3, I.VILLAGER: 10, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.ELDER: 1, I.HUNTER: 1, I.IDIOT: 1,
      I.CUPID: 1, I.PIPER: 1, I.WHITE_WOLF: 1},
     {"杀人": "1", "预言": "10", "通灵": "0", "解药": "0", "毒药": "0", "守护": "10", "隔音": "1", "道骨": "0",
      "金箭": "0"}),
    ("22\t6\t7\t01\t001\t000\t1\t✓\t✓\t0\t✓\t✓\tC0A",
     {I.WOLF: 6, I.VILLAGER: 7, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.ELDER: 1, I.HUNTER: 1, I.IDIOT: 1,
      I.CUPID: 1, I.PIPER: 1, I.WHITE_WOLF: 1},
     {"杀人": "1", "预言": "01", "通灵": "0", "解药": "0", "毒药": "1", "守护": "00", "隔音": "0", "道骨": "1",
      "金箭": "0"}),
]


@pytest.mark.parametrize("line, counts, digits", ROW_CASES, ids=[r[0].split("\t")[-1] for r in ROW_CASES])
def test_s10_table__row(line, counts, digits):
    suffix = line.split("\t")[-1]
    assert ROWS[suffix].line == line  # the row is the seed's, verbatim
    mode = mode_for("s10", suffix)
    assert dict(mode.composition) == counts
    assert mode.players_for() == int(line.split("\t")[0])
    options = dict(mode.options)
    assert {k: v for k, v in options.items() if k not in ("版本", "胜负", "孤狼")} == digits


def test_s10_table__every_row_adds_up_to_its_player_count():
    # 身份中标明的数字代表技能顺序与选项，无选项者以“✓”代表存在这个身份。
    assert len(ROWS) == 61
    for row in ROWS.values():
        assert sum(n for _, n in row.counts) == row.players, row.line
        assert int(row.suffix[0], 16) == row.players - 10, SUFFIX


@pytest.mark.parametrize("players, suffixes", [
    (10, ("04C", "04B", "04A")), (12, ("26E", "26D", "26C", "24B", "24A")),
    (16, ("67E", "67D", "66C", "63B", "63A")), (22, ("C6E", "C6D", "C4C", "C2B", "C0A")),
])
def test_s10_table__versions_by_player_count(players, suffixes):
    assert suffixes_for(players) == suffixes


@pytest.mark.parametrize("text, prefix, suffix, win, lone", [
    ("46D", "2E4", "46D", "0", False),  # DEFAULT: 2E4 for D and E
    ("44C", "244", "44C", "0", False),  # 244 for A, B, C
    ("2E4-46D", "2E4", "46D", "0", False),
    ("2e446d", "2E4", "46D", "0", False),
    ("Ｓ１０ 2E4 46D", "2E4", "46D", "0", False),
    ("A44-46D", "A44", "46D", "1", False),  # 1010…: the first bit, 胜负判定 1
    ("644-46D", "644", "46D", "0", True),  # 0110…: the second bit, 有孤狼
    ("E44/C0A", "E44", "C0A", "1", True),
])
def test_s10_version__read(text, prefix, suffix, win, lone):
    version = read_version(text)
    assert (version.prefix, version.suffix, version.win_digit, version.lone_wolf) == (prefix, suffix, win, lone), PREFIX


@pytest.mark.parametrize("text, words", [
    ("46F", "不是S10的版本号"),
    ("  ", "不是S10的版本号"),
    ("2E4-46", "不是S10的版本号"),
    ("45D", "不在S10身份分配表中（14人可用：46E、46D、44C、44B、42A）"),
])
def test_s10_version__refused_naming_the_key(text, words):
    with pytest.raises(ModeError) as caught:
        mode_for("s10", text)
    assert words in str(caught.value) and "[game].version" in str(caught.value)


def test_s10_version__only_s10_has_one():
    with pytest.raises(ModeError, match="只用于S10"):
        mode_for("simple14", "46D")


def test_s10_version__needed_to_deal():
    with pytest.raises(SheetError, match=r"S10须指定版本号（\[game\].version"):
        deal(S10_PLAYERS, "s10", random.Random(1))


def test_s10_deal__by_the_version_row_with_its_digits():
    sheet = deal(S10_PLAYERS, "s10", random.Random(7), version="A6D")
    counts = Counter(i for _, hand in sheet.hands for i in hand)
    assert counts == Counter({I.WOLF: 3, I.VILLAGER: 8, I.SEER: 1, I.WITCH: 1, I.GUARD: 1, I.ELDER: 1,
                              I.HUNTER: 1, I.IDIOT: 1, I.CUPID: 1, I.PIPER: 1, I.WHITE_WOLF: 1})
    assert dict(sheet.options)["版本"] == "2E4-A6D" and dict(sheet.options)["毒药"] == "1"
    again = deal(S10_PLAYERS, "s10", random.Random(7), version="2E4-A6D")
    assert again == sheet  # the same generator, the same deal


def test_s10_deal__player_count_must_match_the_version():
    with pytest.raises(SheetError, match="需要 20 名玩家"):
        deal(S10_PLAYERS[:14], "s10", random.Random(1), version="A6D")
    with pytest.raises(SheetError, match="是20人的配置"):
        mode_for("s10", "A6D").read_sheet(S10_TABLE, S10_PLAYERS[:19])


def test_s10_read_sheet__counts_as_the_row_says():
    table = {**S10_TABLE, "豆花": "猎人"}
    with pytest.raises(SheetError) as caught:
        mode_for("s10", "A6D").read_sheet(table, S10_PLAYERS)
    assert "猎人应为 1 个，身份表中 2 个" in caught.value.problems
    assert "村民应为 8 个，身份表中 7 个" in caught.value.problems


def test_s10_read_sheet__identity_words():
    mode = mode_for("s10", "A6D")
    for word, name in (("丘比特", "爱神"), ("吹笛者", "吹笛"), ("笛子", "吹笛"), ("预言家", "先知"), ("村长", "长老")):
        assert mode.name(mode.identity(word)) == name
    with pytest.raises(SheetError, match="官方规则S10没有“替罪羊”这个身份"):
        mode.identity("替罪羊")


def test_s10_read_sheet__carries_the_option_digits():
    sheet = mode_for("s10", "2E4-A6D").read_sheet(S10_TABLE, S10_PLAYERS)
    assert dict(sheet.options) == {"版本": "2E4-A6D", "胜负": "0", "孤狼": "0", "杀人": "1", "预言": "01",
                                   "通灵": "0", "解药": "0", "毒药": "1", "守护": "00", "隔音": "0",
                                   "道骨": "1", "金箭": "0"}
    assert reveal(sheet, "0" * 32).splitlines()[3] == "4 月饼：白狼"


def test_s10_briefing__white_wolf_learns_the_wolves_cupid_is_told_to_shoot():
    # 【归群】第零日夜晚，白狼得知所有狼人的角色，并可选择与所有狼人互知共群
    mode = mode_for("s10", "A6D")
    sheet = mode.read_sheet(S10_TABLE, S10_PLAYERS)
    assert "狼人：饺子、包子、汤圆" in mode.briefing(sheet, "月饼").text()
    assert mode.briefing(sheet, "饺子").pack == ("包子", "汤圆")  # 活狼共群
    assert "金箭 甲 乙" in mode.briefing(sheet, "麻花").text()
    assert mode.briefing(sheet, "年糕").text() == "你的身份：村民。"
