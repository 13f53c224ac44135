"""Identities, the night and the end (SPEC §10): pure rules, no I/O, no clock.

Times are arguments (``now``, aware datetimes), chance is a passed-in ``random.Random``.
Every rule set is one module behind one interface (``base.Mode``); callers get theirs with
``mode_for(ruleset)`` and never ask which it is.

What lives where:

* ``identities`` — the codes: ``Identity``, ``Faction``, ``Skill``, and the words for them
  (先知/预言家, 救药/解药, 守护之盾 …).
* ``sheet`` — the ``Sheet`` (player → identities, seat order), the reveal text and its
  commitment (SHA-256), the salt.
* ``base`` — ``Mode``: composition, names, reading/checking/dealing a sheet, the pack,
  briefings, phases, skills, target rules, the night's steps, losing an identity, day
  steps (vote-out, red card, shot, surrender), the win check.
* ``simple14``, ``dual`` — 14人简易 and 双身份, each quoting its seed; ``s10`` (its table
  in ``s10_table``) and ``s09`` on what they share in ``official`` (night 0, the lovers,
  流弹, 平局), all registered in ``registry``.
* ``phases`` — a night's phases from the day's deadline, lengths and extensions.
* ``actions`` — ``Action`` and its ``ActionRuling`` with §10.6's reason codes.
* ``judge`` — ruling a night's actions: which count and stand, the pack's order, when the
  night closes, the feedback (预言 at once, 通灵 when the kill is final).
* ``position`` — ``Position`` (the game as the identities know it) and what a step
  reveals (``Death``, ``SkillLoss``, ``Trigger``, ``Win``, ``Outcome``).
* ``resolve`` — the named steps with the win check between them → ``NightResult`` (the
  proposal; ``to_json()`` is §10.6's object, ``events()`` its §9 events).
* ``chronicle`` — the game across nights and days rebuilt from stored actions and §9
  events (``Chronicle``), with warnings where they disagree; daytime steps and shots.
* ``lastwords`` — who may leave 遗言, and the words without Discuz codes.
* ``orders`` — reading a PM line (``杀人 包子``, ``行动 玩家 技能 目标``) into an action.

The secret room: everything here is secret game data. Nothing in this package logs or
renders for the public; callers give these records only to the director and the owner.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.night.actions import Action, ActionError, ActionReason, ActionRuling, REASON_ZH
from engine.night.base import Briefing, Composition, Mode, NightFacts, Step
from engine.night.chronicle import Chronicle, ChronicleError, DayReport, DayStep
from engine.night.identities import Faction, Identity, Skill, read_identity, read_skill
from engine.night.judge import Choices, Feedback, Judgement, NightContext, PackOrder, judge
from engine.night.lastwords import clean_last_words, last_words_holders
from engine.night.orders import OrderProblem, OrderReading, read_director_order, read_order
from engine.night.phases import NightPlan, NightSettings, Phase, PhaseSpec, PlanError
from engine.night.position import Cause, Death, Outcome, Position, SkillLoss, Trigger, Win
from engine.night.registry import MODES, ModeError, mode_for
from engine.night.resolve import NightResult, StepRecord, judge_shot, resolve
from engine.night.sheet import Sheet, SheetError, commitment, new_salt, reveal_text


def deal(players: Sequence[str], ruleset: str, rng: random.Random,
         composition: Composition | None = None, version: str | None = None) -> Sheet:
    """A random sheet for ``players`` (seat order) from the rule set's composition (S10: the
    row of ``version`` in its table), dealt again while a faction has already won or lost
    on it."""
    return mode_for(ruleset, version).deal(players, rng, composition)


def reveal(sheet: Sheet, salt: str) -> str:
    """The reveal text of ``sheet`` (its rule set's names)."""
    return reveal_text(mode_for(sheet.ruleset), sheet, salt)


__all__ = [
    "MODES", "REASON_ZH", "Action", "ActionError", "ActionReason", "ActionRuling", "Briefing", "Cause",
    "Choices", "Chronicle", "ChronicleError", "Composition", "DayReport", "DayStep", "Death", "Faction",
    "Feedback", "Identity", "Judgement", "Mode", "ModeError", "NightContext", "NightFacts", "NightPlan",
    "NightResult", "NightSettings", "OrderProblem", "OrderReading", "Outcome", "PackOrder", "Phase",
    "PhaseSpec", "PlanError", "Position", "Sheet", "SheetError", "Skill", "SkillLoss", "Step",
    "StepRecord", "Trigger", "Win", "clean_last_words", "commitment", "deal", "judge", "judge_shot",
    "last_words_holders", "mode_for", "new_salt", "read_director_order", "read_identity", "read_order",
    "read_skill", "resolve", "reveal", "reveal_text",
]
