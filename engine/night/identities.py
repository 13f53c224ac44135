"""Identities (身份), factions (阵营) and skills (技能) as codes, and the words people write
for them.

The codes are rule-set neutral (``Identity.SEER`` is 预言家 in 14人简易 and 先知 in 双身份);
each rule set's module says which identities it has and what its seed calls them and
their skills. Reading a word goes through NFKC and case folding, then a table of the
words directors and players use (先知/预言家, 村长/长老, 救药/解药, 守护之盾/守护…).
"""

from __future__ import annotations

import unicodedata
from enum import StrEnum


class Identity(StrEnum):
    WOLF = "wolf"  # 狼人
    SEER = "seer"  # 预言家 / 先知
    WITCH = "witch"  # 女巫
    ELDER = "elder"  # 长老 / 村长
    VILLAGER = "villager"  # 村民
    GUARD = "guard"  # 守卫
    HUNTER = "hunter"  # 猎人
    SCAPEGOAT = "scapegoat"  # 替罪羊
    # S10 / S09
    IDIOT = "idiot"  # 白痴
    CUPID = "cupid"  # 爱神 / 丘比特
    PIPER = "piper"  # 吹笛 / 吹笛者 / 笛子
    WHITE_WOLF = "white_wolf"  # 白狼
    GIRL = "girl"  # 小女孩 (S09)
    THIEF = "thief"  # 盗贼 (S09)


class Faction(StrEnum):
    """The value is what posts, PMs and §10.6's JSON say."""

    WOLVES = "狼人阵营"
    VILLAGE = "村民阵营"
    # S10 / S09 only (the glossary's 阵营): kept here so their modules add no second enum.
    LOVERS = "情侣阵营"
    WHITE_WOLF = "白狼阵营"
    PIPER = "吹笛阵营"
    # Not a faction: S10's 平局 (所有阵营均满足判负条件), carried where a winner would be.
    DRAW = "平局"


class Skill(StrEnum):
    KILL = "kill"  # 杀人 (the pack's one order)
    DIVINE = "divine"  # 预言
    PSYCHIC = "psychic"  # 通灵 <强制>: feedback only, never sent
    SAVE = "save"  # 救药 (14人简易) / 解药 (双身份)
    POISON = "poison"  # 毒药
    SHIELD = "shield"  # 守护 (守护之盾)
    LONGEVITY = "longevity"  # 长寿之命 <强制>: passive
    LAST_SHOT = "last_shot"  # 最后一枪: triggered when the hunter identity is lost
    SCAPEGOAT = "scapegoat"  # 冤死 <锁定技>: a day rule
    PASS = "pass"  # 放弃: an explicit "not tonight"
    # S10 / S09
    MUTE = "mute"  # 隔音 (守卫): immune to 吹笛 tonight
    PIPE = "pipe"  # 吹笛: the target goes 癫狂
    BITE = "bite"  # 撕咬 (白狼): every two nights
    ARROW = "arrow"  # 金箭 (爱神, night 0): two targets become 情侣
    JOIN = "join"  # 归群 (白狼, night 0): joins the wolves' pack
    ENTRUST = "entrust"  # 托孤 (the pack, night 0): a wolf becomes 孤狼
    LONE_BLADE = "lone_blade"  # 孤刀 (孤狼): triggered as the last wolf is voted out
    FOOL = "fool"  # 若愚 (白痴): triggered by a vote-out
    SWAP = "swap"  # 偷换 (盗贼, night 0, S09): its target is a card, not a player
    PEEK = "peek"  # 偷看 (小女孩, S09): entered by the director when she is caught


# What a skill is called where a rule set's module has no name of its own for it.
SKILL_ZH: dict[Skill, str] = {
    Skill.KILL: "杀人", Skill.DIVINE: "预言", Skill.PSYCHIC: "通灵", Skill.SAVE: "救药",
    Skill.POISON: "毒药", Skill.SHIELD: "守护", Skill.LONGEVITY: "长寿之命",
    Skill.LAST_SHOT: "最后一枪", Skill.SCAPEGOAT: "冤死", Skill.PASS: "放弃",
    Skill.MUTE: "隔音", Skill.PIPE: "吹笛", Skill.BITE: "撕咬", Skill.ARROW: "金箭", Skill.JOIN: "归群",
    Skill.ENTRUST: "托孤", Skill.LONE_BLADE: "孤刀", Skill.FOOL: "若愚", Skill.SWAP: "偷换", Skill.PEEK: "偷看",
}

# Words → codes. Every rule set accepts every word; a rule set without the identity or
# skill says so when the word is read (``Mode.identity`` / ``Mode.skill``).
IDENTITY_WORDS: dict[str, Identity] = {
    "狼人": Identity.WOLF, "狼": Identity.WOLF, "wolf": Identity.WOLF, "werewolf": Identity.WOLF,
    "预言家": Identity.SEER, "先知": Identity.SEER, "seer": Identity.SEER,
    "女巫": Identity.WITCH, "witch": Identity.WITCH,
    "长老": Identity.ELDER, "村长": Identity.ELDER, "elder": Identity.ELDER,
    "村民": Identity.VILLAGER, "平民": Identity.VILLAGER, "民": Identity.VILLAGER,
    "villager": Identity.VILLAGER,
    "守卫": Identity.GUARD, "守护者": Identity.GUARD, "guard": Identity.GUARD,
    "猎人": Identity.HUNTER, "hunter": Identity.HUNTER,
    "替罪羊": Identity.SCAPEGOAT, "scapegoat": Identity.SCAPEGOAT,
    "白痴": Identity.IDIOT, "idiot": Identity.IDIOT,
    "爱神": Identity.CUPID, "丘比特": Identity.CUPID, "cupid": Identity.CUPID,
    "吹笛": Identity.PIPER, "吹笛者": Identity.PIPER, "笛子": Identity.PIPER, "piper": Identity.PIPER,
    "白狼": Identity.WHITE_WOLF, "white_wolf": Identity.WHITE_WOLF,
    "小女孩": Identity.GIRL, "girl": Identity.GIRL,
    "盗贼": Identity.THIEF, "thief": Identity.THIEF,
}

SKILL_WORDS: dict[str, Skill] = {
    "杀人": Skill.KILL, "杀": Skill.KILL, "刀": Skill.KILL, "刀人": Skill.KILL, "指杀": Skill.KILL,
    "出刀": Skill.KILL, "kill": Skill.KILL,
    "预言": Skill.DIVINE, "查验": Skill.DIVINE, "验": Skill.DIVINE, "验人": Skill.DIVINE,
    "divine": Skill.DIVINE,
    "救药": Skill.SAVE, "解药": Skill.SAVE, "救": Skill.SAVE, "save": Skill.SAVE,
    "毒药": Skill.POISON, "毒": Skill.POISON, "下毒": Skill.POISON, "poison": Skill.POISON,
    "守护": Skill.SHIELD, "守护之盾": Skill.SHIELD, "守": Skill.SHIELD, "shield": Skill.SHIELD,
    "最后一枪": Skill.LAST_SHOT, "开枪": Skill.LAST_SHOT, "枪": Skill.LAST_SHOT,
    "last_shot": Skill.LAST_SHOT,
    "流弹": Skill.LAST_SHOT,
    "通灵": Skill.PSYCHIC, "长寿之命": Skill.LONGEVITY, "道骨": Skill.LONGEVITY, "冤死": Skill.SCAPEGOAT,
    "隔音": Skill.MUTE, "mute": Skill.MUTE,
    "吹笛": Skill.PIPE, "pipe": Skill.PIPE,
    "撕咬": Skill.BITE, "bite": Skill.BITE,
    "金箭": Skill.ARROW, "arrow": Skill.ARROW,
    "归群": Skill.JOIN, "join": Skill.JOIN,
    "托孤": Skill.ENTRUST, "entrust": Skill.ENTRUST,
    "孤刀": Skill.LONE_BLADE, "lone_blade": Skill.LONE_BLADE,
    "若愚": Skill.FOOL, "fool": Skill.FOOL,
    "偷换": Skill.SWAP, "swap": Skill.SWAP,
    "偷看": Skill.PEEK, "peek": Skill.PEEK,
    "放弃": Skill.PASS, "弃权": Skill.PASS, "不行动": Skill.PASS, "空": Skill.PASS,
    "pass": Skill.PASS,
}


def word_key(text: str) -> str:
    """A word as compared: NFKC, case folded, spaces and 【】<> around it dropped."""
    key = unicodedata.normalize("NFKC", text or "").casefold().strip()
    return key.strip("【】<>〈〉《》[]()（） \u3000")


_IDENTITY_KEYS = {word_key(w): i for w, i in IDENTITY_WORDS.items()} | {i.value: i for i in Identity}
_SKILL_KEYS = {word_key(w): s for w, s in SKILL_WORDS.items()} | {s.value: s for s in Skill}


def read_identity(text: str) -> Identity | None:
    """The identity a word names (None: no identity is called that)."""
    if isinstance(text, Identity):
        return text
    return _IDENTITY_KEYS.get(word_key(text))


def read_skill(text: str) -> Skill | None:
    """The skill a word names (None: no skill is called that)."""
    if isinstance(text, Skill):
        return text
    return _SKILL_KEYS.get(word_key(text))
