"""Reading an action from a PM line: ``技能 目标`` (``杀人 包子``, ``预言 汤圆``, ``放弃``), or
the director's ``行动 玩家 技能 目标``. The skill word goes through the synonyms
(救药 = 解药, 守护之盾 = 守护, …), the names through the same matching as vote targets
(SPEC §3.2: NFKC, aliases, substitutes; no guessing). A line that cannot be read is not an
action: the reading says why, for the answer to the sender.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from engine.names import Match, NameTable
from engine.night.actions import CARD_TARGET, Action, targets_wanted
from engine.night.base import Mode
from engine.night.sheet import SheetError
from engine.night.identities import SKILL_WORDS, Skill, read_skill, word_key


class OrderProblem(StrEnum):
    EMPTY = "empty"
    UNKNOWN_SKILL = "unknown_skill"
    NO_TARGET = "no_target"
    EXTRA_TARGET = "extra_target"
    UNKNOWN_TARGET = "unknown_target"
    AMBIGUOUS_TARGET = "ambiguous_target"
    UNKNOWN_ACTOR = "unknown_actor"  # the director's form: 行动 玩家 …


@dataclass(frozen=True)
class OrderReading:
    skill: Skill | None = None
    targets: tuple[str, ...] = ()
    actor: str | None = None  # the director's form only
    problem: OrderProblem | None = None
    message: str = ""  # Chinese: what was read, or why not

    @property
    def ok(self) -> bool:
        return self.problem is None

    def action(self, night: int, actor: str, at: datetime, *, seq: int = 0, by_director: bool = False) -> Action:
        assert self.skill is not None
        return Action(night, self.actor or actor, self.skill, self.targets, at, seq, by_director)


_SPLIT = re.compile(r"[\s:：,，、;；]+")
# Longest words first, so 最后一枪包子 splits as 最后一枪 + 包子, 守护之盾饺子 as 守护之盾 + 饺子.
_WORDS = sorted({word_key(w) for w in SKILL_WORDS}, key=len, reverse=True)


def read_order(text: str, mode: Mode, names: NameTable) -> OrderReading:
    """A player's PM line as an action of ``mode``."""
    words = _words(text)
    if not words:
        return OrderReading(problem=OrderProblem.EMPTY, message="没有读到行动（格式：技能 目标，例如 杀人 包子；或 放弃）")
    return _read(words, mode, names)


def read_director_order(text: str, mode: Mode, names: NameTable) -> OrderReading:
    """The director's ``行动 玩家 技能 目标`` (the leading 行动 may be left out)."""
    words = _words(text)
    if words and word_key(words[0]) == "行动":
        words = words[1:]
    if len(words) < 2:
        return OrderReading(problem=OrderProblem.EMPTY, message="格式：行动 玩家 技能 目标")
    found = names.match(words[0])
    if found.outcome is not Match.PLAYER:
        return OrderReading(problem=OrderProblem.UNKNOWN_ACTOR, message=f"“{words[0]}”不是玩家")
    reading = _read(words[1:], mode, names)
    return OrderReading(reading.skill, reading.targets, found.player, reading.problem, reading.message)


def _words(text: str) -> list[str]:
    line = unicodedata.normalize("NFKC", text or "").strip()
    words = [w for w in _SPLIT.split(line) if w]
    if words and read_skill(words[0]) is None:
        key = word_key(words[0])
        for word in _WORDS:
            if key.startswith(word) and len(key) > len(word):
                return [word, words[0][len(word):], *words[1:]]
    return words


def _read(words: list[str], mode: Mode, names: NameTable) -> OrderReading:
    skill = read_skill(words[0])
    if skill is None:
        return OrderReading(problem=OrderProblem.UNKNOWN_SKILL, message=f"不认识的技能“{words[0]}”")
    if skill not in mode.skill_names or skill in (Skill.PSYCHIC, Skill.LONGEVITY, Skill.SCAPEGOAT):
        return OrderReading(problem=OrderProblem.UNKNOWN_SKILL,
                            message=f"{mode.title}中没有可发送的“{words[0]}”")
    wanted = targets_wanted(skill)
    given = words[1:]
    name = mode.skill_name(skill)
    if len(given) < wanted:
        example = f"{name} 包子 汤圆" if wanted == 2 else f"{name} 包子"
        need = f"需要 {wanted} 个目标" if wanted == 2 else "需要目标"
        return OrderReading(skill, problem=OrderProblem.NO_TARGET, message=f"{name}{need}（例如 {example}）")
    if len(given) > wanted:
        return OrderReading(skill, problem=OrderProblem.EXTRA_TARGET,
                            message=f"{name}只要 {wanted} 个目标" if wanted else f"{name}不需要目标")
    targets = []
    for word in given:
        if skill in CARD_TARGET:
            # S09 偷换 狼人: the target is one of the thief's two cards, named as an identity.
            try:
                targets.append(mode.name(mode.identity(word)))
            except SheetError as exc:
                return OrderReading(skill, problem=OrderProblem.UNKNOWN_TARGET, message=str(exc))
            continue
        found = names.match(word)
        if found.outcome is Match.AMBIGUOUS:
            return OrderReading(skill, problem=OrderProblem.AMBIGUOUS_TARGET,
                                message=f"“{word}”可能是：{'、'.join(found.candidates)}")
        if found.outcome is not Match.PLAYER:
            near = f"（是不是：{'、'.join(found.candidates)}）" if found.candidates else ""
            return OrderReading(skill, problem=OrderProblem.UNKNOWN_TARGET, message=f"“{word}”不是玩家{near}")
        targets.append(found.player)
    shown = " ".join((name, *targets))  # type: ignore[arg-type]
    return OrderReading(skill, tuple(targets), message=shown)  # type: ignore[arg-type]
