"""官方规则S10's 身份分配 (seed 000_…, 3楼) and its version numbers (2楼 用语定义).

The table is kept here as the seed posts it (tab-separated, one row per reference
version) and read at import, so a row can be checked against the seed by eye:

* 人数 狼人 村民 — counts; 先知 女巫 守卫 长老 爱神 — the identity is in the game and its
  digits are its skills' options in order (身份中标明的数字代表技能顺序与选项): 先知 2 digits
  = 预言xx; 女巫 3 = 通灵x 解药x 毒药x; 守卫 3 = 守护xx 隔音x; 长老 1 = 道骨x; 爱神 1 = 金箭x;
  猎人 白痴 吹笛 白狼 — ``✓`` (无选项者以“✓”代表存在这个身份); an empty cell: not in the game.
* 狼人技能均为1 — 杀人1 always.
* 版本号后缀 — 2位十六进制数字+1位A~E的字母: the first digit is 玩家数-10, the second
  (容错+2)*2, the letter the difficulty (A hardest … E easiest).
* 版本号前缀 — 3 hex digits; of their 12 bits, the highest is the win check (胜负判定:
  0 = 刀边, 1 = 屠城) and the next whether there is a 孤狼 (0 无, 1 有). 规则前缀默认为244
  （后缀为A、B、C）或2E4（后缀为D、E）.

``read_version("46D")`` / ``read_version("2E4-46D")`` gives the ``Version``; ``row_for``
the row (SheetError naming the key and the versions that exist for that player count).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from engine.night.identities import Identity
from engine.night.sheet import SheetError

I = Identity

# 3楼 一、身份分配, verbatim.
TABLE = """\
人数	狼人	村民	先知	女巫	守卫	长老	猎人	白痴	爱神	吹笛	白狼	参考版本后缀
10	3	4	00	000					0			04C
10	3	4	00	001					0			04B
10	3	4	00	011					0			04A
11	3	5	00	000					0			14C
11	3	5	00	001					0			14B
11	3	5	00	011					0			14A
12	3	4	01	000	000				0	✓		26E
12	3	4	00	001	000				0	✓		26D
12	3	4	01	011	000				0	✓		26C
12	4	3	00	001	000				0	✓		24B
12	4	3	00	011	000				0	✓		24A
13	3	5	01	000	000				0	✓		36E
13	3	5	00	001	000				0	✓		36D
13	4	4	01	000	000				0	✓		34C
13	4	4	00	001	000				0	✓		34B
13	4	4	00	011	000				0	✓		34A
14	3	5	01	000	000		✓		0	✓		46E
14	3	5	00	001	000		✓		0	✓		46D
14	4	4	01	000	000		✓		0	✓		44C
14	4	4	00	011	000		✓		0	✓		44B
14	5	3	00	001	000		✓		0	✓		42A
15	3	5	00	000	101		✓	✓	0	✓		56E
15	3	5	00	001	000		✓	✓	0	✓		56D
15	4	5	00	001	000		✓		0	✓		54C
15	4	5	00	011	000		✓		0	✓		54B
15	5	4	00	001	000		✓		0	✓		52A
16	4	5	01	001	101	0	✓		0	✓		67E
16	4	5	00	011	000	1	✓		0	✓		67D
16	5	5	00	011	000	1			0	✓		66C
16	5	4	00	011	000	1	✓		0	✓		63B
16	6	3	00	011	000	1	✓		0	✓		63A
17	4	6	01	000	101	0	✓		0	✓		78E
17	4	6	00	001	000	1	✓		0	✓		78D
17	5	5	00	001	000	1	✓		0	✓		76C
17	7	4	00	001	000	1			0	✓		72B
17	7	4	00	011	000	1			0	✓		72A
18	4	6	01	000	101	0	✓	✓	0	✓		88E
18	4	6	00	001	000	1	✓	✓	0	✓		88D
18	5	5	00	001	000	1	✓	✓	0	✓		86C
18	6	4	00	011	000	1	✓	✓	0	✓		84B
18	7	3	00	011	000	1	✓	✓	0	✓		82A
19	3	7	10	000	101	0	✓	✓	0	✓	✓	96E
19	3	7	01	001	000	1	✓	✓	0	✓	✓	96D
19	4	6	00	011	000	1	✓	✓	0	✓	✓	94C
19	5	5	00	011	000	1	✓	✓	0	✓	✓	92B
19	6	4	00	001	000	1	✓	✓	0	✓	✓	90A
20	3	8	10	000	101	0	✓	✓	0	✓	✓	A6E
20	3	8	01	001	000	1	✓	✓	0	✓	✓	A6D
20	4	7	01	001	000	1	✓	✓	0	✓	✓	A4C
20	5	6	01	011	000	1	✓	✓	0	✓	✓	A2B
20	6	5	01	001	000	1	✓	✓	0	✓	✓	A0A
21	3	9	10	000	101	0	✓	✓	0	✓	✓	B6E
21	3	9	01	001	000	1	✓	✓	0	✓	✓	B6D
21	4	8	01	001	000	1	✓	✓	0	✓	✓	B4C
21	5	7	01	011	000	1	✓	✓	0	✓	✓	B2B
21	6	6	01	001	000	1	✓	✓	0	✓	✓	B0A
22	3	10	10	000	101	0	✓	✓	0	✓	✓	C6E
22	3	10	01	001	000	1	✓	✓	0	✓	✓	C6D
22	4	9	01	001	000	1	✓	✓	0	✓	✓	C4C
22	5	8	01	011	000	1	✓	✓	0	✓	✓	C2B
22	6	7	01	001	000	1	✓	✓	0	✓	✓	C0A
"""

COLUMNS = (I.WOLF, I.VILLAGER, I.SEER, I.WITCH, I.GUARD, I.ELDER, I.HUNTER, I.IDIOT, I.CUPID, I.PIPER,
           I.WHITE_WOLF)
# Each optioned identity's digits, split into its skills in order (technique names as the seed's).
SKILL_DIGITS: dict[Identity, tuple[tuple[str, int], ...]] = {
    I.SEER: (("预言", 2),),
    I.WITCH: (("通灵", 1), ("解药", 1), ("毒药", 1)),
    I.GUARD: (("守护", 2), ("隔音", 1)),
    I.ELDER: (("道骨", 1),),
    I.CUPID: (("金箭", 1),),
}
WOLF_KILL = "1"  # 狼人技能均为1
# The option keys in the order a sheet keeps them.
OPTION_KEYS = ("版本", "胜负", "孤狼", "杀人", "预言", "通灵", "解药", "毒药", "守护", "隔音", "道骨", "金箭")


@dataclass(frozen=True)
class Row:
    players: int
    counts: tuple[tuple[Identity, int], ...]  # identity → count, the table's column order
    digits: tuple[tuple[Identity, str], ...]  # optioned identity → its digits as printed
    suffix: str
    line: str  # the seed's row, verbatim

    def options(self) -> tuple[tuple[str, str], ...]:
        """Each skill's digits (预言 → "01", 解药 → "1", …) and 杀人1."""
        found: dict[str, str] = {"杀人": WOLF_KILL}
        for identity, digits in self.digits:
            k = 0
            for skill, width in SKILL_DIGITS[identity]:
                found[skill] = digits[k:k + width]
                k += width
        return tuple((key, found[key]) for key in OPTION_KEYS if key in found)


def _read_table(text: str) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    lines = text.splitlines()
    for line in lines[1:]:
        cells = line.split("\t")
        assert len(cells) == 13, line
        players = int(cells[0])
        counts: list[tuple[Identity, int]] = []
        digits: list[tuple[Identity, str]] = []
        for identity, cell in zip(COLUMNS, cells[1:12], strict=True):
            if not cell:
                continue
            if identity in (I.WOLF, I.VILLAGER):
                counts.append((identity, int(cell)))
                continue
            counts.append((identity, 1))
            if cell != "✓":
                digits.append((identity, cell))
        row = Row(players, tuple(counts), tuple(digits), cells[12], line)
        assert sum(n for _, n in counts) == players, line
        assert int(row.suffix[0], 16) == players - 10, line
        rows[row.suffix] = row
    return rows


ROWS: dict[str, Row] = _read_table(TABLE)


@dataclass(frozen=True)
class Version:
    prefix: str  # 3 hex digits, upper case
    suffix: str  # 2 hex digits and A~E
    given_prefix: bool = False  # the director wrote the prefix (else the default for the letter)

    @property
    def players(self) -> int:
        return int(self.suffix[0], 16) + 10

    @property
    def difficulty(self) -> str:
        return self.suffix[2]

    @property
    def bits(self) -> int:
        return int(self.prefix, 16)

    @property
    def win_digit(self) -> str:
        """胜负判定 (the prefix's highest bit): 0 刀边, 1 屠城."""
        return str((self.bits >> 11) & 1)

    @property
    def lone_wolf(self) -> bool:
        """有无孤狼 (the prefix's second bit)."""
        return bool((self.bits >> 10) & 1)

    @property
    def text(self) -> str:
        return f"{self.prefix}-{self.suffix}"


_VERSION = re.compile(r"^(?:S10)?[-_/\s]*(?:([0-9A-F]{3})[-_/\s]*)?([0-9A-F][0-9A-F][A-E])$")


def default_prefix(letter: str) -> str:
    """上表中规则前缀默认为244（后缀为A、B、C）或2E4（后缀为D、E）."""
    return "2E4" if letter in "DE" else "244"


def read_version(text: str) -> Version:
    """``46D``, ``2E4-46D``, ``2E446D``, ``S10 2E4 46D`` (full-width and lower case too)."""
    key = unicodedata.normalize("NFKC", str(text or "")).strip().upper()
    found = _VERSION.match(key)
    if not found:
        raise SheetError(f"[game].version “{text}”不是S10的版本号（例如 46D 或 2E4-46D：前缀3位十六进制数字，"
                         f"后缀2位十六进制数字+A~E）")
    prefix, suffix = found.group(1), found.group(2)
    return Version(prefix or default_prefix(suffix[2]), suffix, prefix is not None)


def row_for(version: Version, players: int | None = None) -> Row:
    """The table's row for the version's suffix (and, if given, the game's player count)."""
    count = players if players is not None else version.players
    if players is not None and version.players != players:
        raise SheetError(f"[game].version {version.suffix} 是{version.players}人的版本（后缀第一位等于玩家数-10），"
                         f"本局 {players} 名玩家")
    row = ROWS.get(version.suffix)
    if row is None:
        known = "、".join(r.suffix for r in ROWS.values() if r.players == count) or "无"
        raise SheetError(f"[game].version {version.suffix} 不在S10身份分配表中（{count}人可用：{known}）")
    return row


def suffixes_for(players: int) -> tuple[str, ...]:
    return tuple(r.suffix for r in ROWS.values() if r.players == players)
