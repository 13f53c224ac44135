"""What a night's ruled actions leave standing (``Choices``: the one action of each slot)
and what an actor is told as soon as it is known (``Feedback``). Below both the rule
sets' modes and the judge, which build them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine.night.actions import Action
from engine.night.identities import Skill

Slot = tuple[str, Skill]  # ("", KILL) is the pack's; (actor, skill) otherwise


@dataclass(frozen=True)
class Feedback:
    """What an actor is told, as soon as it is known (``at``), exactly once (``key``)."""

    to: str
    skill: Skill
    result: str | tuple[str, ...]
    about: str | None = None
    at: datetime | None = None
    # The words of the PM where the default does not fit: for 通灵 what the list is (S10
    # 通灵1: 今晚濒死的角色); for any other skill the whole sentence after the skill's name.
    label: str = ""

    @property
    def key(self) -> tuple:
        return (self.to, self.skill.value, self.about)

    def text(self, skill_name) -> str:
        """The PM's line (Chinese)."""
        if self.skill is Skill.PSYCHIC:
            names = "、".join(self.result) if self.result else "无人"
            return f"通灵：{self.label or '今晚被指杀的角色'}：{names}"
        if self.label:
            return f"{skill_name(self.skill)}：{self.label}"
        return f"{skill_name(self.skill)}：{self.about} —— {self.result}"

    def to_json(self, skill_name) -> dict:
        entry: dict = {"to": self.to, "skill": skill_name(self.skill)}
        if self.about is not None:
            entry["about"] = self.about
        entry["result"] = list(self.result) if isinstance(self.result, tuple) else self.result
        return entry


@dataclass(frozen=True)
class Choices:
    """The standing action of each slot once the night's actions are ruled."""

    standing: tuple[tuple[Slot, Action], ...] = ()

    def action(self, skill: Skill) -> Action | None:
        """The standing action using ``skill`` (None: not used tonight, or 放弃)."""
        for _, action in self.standing:
            if action.skill is skill:
                return action
        return None

    def target(self, skill: Skill) -> str | None:
        action = self.action(skill)
        return action.target if action is not None else None

    def actor(self, skill: Skill) -> str | None:
        action = self.action(skill)
        return action.actor if action is not None else None

    @property
    def kill(self) -> str | None:
        """The pack's standing target (None: no order, or the last order was 放弃)."""
        return self.target(Skill.KILL)


__all__ = ["Choices", "Feedback", "Slot"]
