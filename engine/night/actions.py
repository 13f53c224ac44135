"""A night action (or a triggered one) and its ruling (SPEC §10.2, §10.6).

An ``Action`` is what an actor sent and when: by PM from the role account or entered by
the director, with the game time it was sent. Its ruling says whether it counts, or the
reason it does not — one code per way it can fail, like a void vote's — and a sentence
saying exactly what (Chinese, for the PM back to the sender and the director's screens).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from engine.night.identities import Identity, Skill, read_skill


class ActionReason(StrEnum):
    """Why an action does not count (§10.6's values; keys may be added, never renamed)."""

    ACTOR_OUT = "actor_out"
    NO_SKILL = "no_skill"  # not this identity's, lost, or used up
    TARGET_OUT = "target_out"
    TARGET_NOT_ALLOWED = "target_not_allowed"
    LATE = "late"
    EARLY = "early"
    SUPERSEDED = "superseded"  # a later action replaced it


REASON_ZH: dict[ActionReason, str] = {
    ActionReason.ACTOR_OUT: "行动者已出局",
    ActionReason.NO_SKILL: "没有这个技能（不是该身份的、已失去或已用完）",
    ActionReason.TARGET_OUT: "目标已出局",
    ActionReason.TARGET_NOT_ALLOWED: "目标不允许",
    ActionReason.LATE: "超过行动时限",
    ActionReason.EARLY: "夜晚开始前发出",
    ActionReason.SUPERSEDED: "已被之后的行动取代",
}


class ActionError(ValueError):
    """An action record that cannot be read (unknown skill word); names the thing."""


@dataclass(frozen=True)
class Action:
    """``night``: the night it is for (a 最后一枪 is matched to its trigger by time, the
    night number only files it). ``seq`` orders actions sent at the same second (the
    store's id); it never depends on the order they were read in."""

    night: int
    actor: str
    skill: Skill
    targets: tuple[str, ...] = ()
    at: datetime | None = None
    seq: int = 0
    by_director: bool = False

    @classmethod
    def of(cls, night: int, actor: str, skill: str | Skill, target: str | list[str] | tuple[str, ...] | None = None,
           at: datetime | None = None, *, seq: int = 0, by_director: bool = False) -> Action:
        """An action from what a config or a PM holds: the skill as a word (synonyms
        accepted), the target as a name, a list of names, or none."""
        code = read_skill(skill)  # type: ignore[arg-type]
        if code is None:
            raise ActionError(f"不认识的技能“{skill}”")
        if target is None or target == "":
            targets: tuple[str, ...] = ()
        elif isinstance(target, str):
            targets = (target,)
        else:
            targets = tuple(target)
        if at is None or at.tzinfo is None:
            raise ActionError("行动须带时区的时间（at）")
        return cls(night, actor, code, targets, at, seq, by_director)

    @property
    def target(self) -> str | None:
        return self.targets[0] if self.targets else None

    def sort_key(self) -> tuple:
        # Game time first, then the store's order, then the content: the same stored
        # actions give the same order however they arrive.
        return (self.at, self.seq, self.actor, self.skill.value, self.targets, self.by_director)


@dataclass(frozen=True)
class ActionRuling:
    action: Action
    identity: Identity | None  # the actor's identity when it was sent (双身份: the first)
    counted: bool
    reason: ActionReason | None = None
    note: str = ""  # what exactly (Chinese)

    def describe(self, skill_name) -> str:
        """The answer to the sender: 已收到：杀人 包子 / 未计入：…（why）."""
        what = " ".join((skill_name(self.action.skill), *self.action.targets))
        if self.counted:
            return f"已收到：{what}"
        text = REASON_ZH[self.reason] if self.reason else ""
        if self.note:
            text = f"{text}：{self.note}" if text else self.note
        return f"未计入：{what}（{text}）"

    def to_json(self, name, skill_name) -> dict:
        targets = self.action.targets
        target: str | list[str] | None
        if self.action.skill in TWO_TARGETS:
            target = list(targets)
        else:
            target = targets[0] if len(targets) == 1 else (list(targets) if targets else None)
        return {
            "actor": self.action.actor,
            "identity": name(self.identity) if self.identity is not None else None,
            "skill": skill_name(self.action.skill),
            "target": target,
            "at": self.action.at.isoformat() if self.action.at else None,
            "counted": self.counted,
            "reason": self.reason.value if self.reason else None,
        }


# Skills whose target is a list (S10/S09 金箭 甲 乙); none in 14人简易 and 双身份.
TWO_TARGETS: frozenset[Skill] = frozenset({Skill.ARROW})
# Skills sent with no target at all (S10 归群; S09 偷看, which the director enters).
NO_TARGET: frozenset[Skill] = frozenset({Skill.PASS, Skill.JOIN, Skill.PEEK, Skill.FOOL})
# Skills whose target is a card, not a player (S09 偷换 狼人).
CARD_TARGET: frozenset[Skill] = frozenset({Skill.SWAP})


def targets_wanted(skill: Skill) -> int:
    """How many targets an action of ``skill`` names."""
    return 0 if skill in NO_TARGET else 2 if skill in TWO_TARGETS else 1
