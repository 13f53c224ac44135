"""14人简易规则 (seed 002_…): one identity each, four wolves who know each other.

* Composition — 狼人：4人, 预言家：1人, 女巫：1人, 长老：1人, 村民：7人.
* The night — 狼人 and 预言家 until 关门一个半小时后, 女巫 until 次日八点之前 (SPEC §10.2).
* 杀人 —— 该阵营共群的角色可以共同指杀一名角色 (所有狼人将在游戏开始后互知共群).
* 预言 —— 若该角色属于村民阵营，反馈<村民阵营>；否则，反馈<非村民阵营>。
* 通灵<强制> —— 反馈被指杀的角色。 女巫失去<救药>技能后，失去技能<通灵>。
* 救药 / 毒药 —— once a game each; <救药>发动后，在该夜晚不可发动技能<毒药> (and the other
  way round): both sent, the last stands and the other is ``superseded``.
* 长寿之命<强制> —— 长老第一次被有效指杀时不会出局；当长老因投票、女巫<毒药>而出局后，女巫、
  预言家将失去技能。
* The steps (总体流程 3.(4), (8); SPEC §10.3): 狼人指杀 → 指杀结算 (一、未被有效指杀过的长老视为
  被有效指杀一次 二、<救药>的目标不会出局 三、出局) → 毒药结算 → 长老出局结算.
"""

from __future__ import annotations

from datetime import time

from engine.night.actions import Action
from engine.night.base import Mode, NightFacts, Step
from engine.night.identities import Faction, Identity, Skill
from engine.night.phases import PhaseSpec
from engine.night.position import Cause, Outcome, Position, Win

W, S, WI, E, V = Identity.WOLF, Identity.SEER, Identity.WITCH, Identity.ELDER, Identity.VILLAGER


class Simple14(Mode):
    code = "simple14"
    title = "14人简易规则"
    layers = 1
    identity_names = {W: "狼人", S: "预言家", WI: "女巫", E: "长老", V: "村民"}
    skill_names = {
        Skill.KILL: "杀人", Skill.DIVINE: "预言", Skill.PSYCHIC: "通灵", Skill.SAVE: "救药",
        Skill.POISON: "毒药", Skill.LONGEVITY: "长寿之命", Skill.PASS: "放弃",
    }
    composition = ((W, 4), (S, 1), (WI, 1), (E, 1), (V, 7))
    phase_specs = (
        PhaseSpec(W, "狼人", (Skill.KILL,), minutes=90),  # 狼队在关门一个半小时后仍未提交刀人目标，视为放弃出刀
        PhaseSpec(S, "预言家", (Skill.DIVINE,), minutes=90),  # 关门一个半小时后，预言家未与导演取得联系…放弃
        PhaseSpec(WI, "女巫", (Skill.SAVE, Skill.POISON), until=time(8, 0)),  # 次日八点之前，女巫仍未给导演答复
    )
    night_skills = {W: (Skill.KILL,), S: (Skill.DIVINE,), WI: (Skill.SAVE, Skill.POISON)}
    once_a_game = frozenset({Skill.SAVE, Skill.POISON})
    last_words = 4  # 遗言数量等于狼人的数量

    # --- the pack ------------------------------------------------------------------------

    def pack(self, position: Position) -> tuple[str, ...]:
        return position.holds(W)

    def pack_at_deal(self, sheet) -> tuple[str, ...]:
        return sheet.holders(W)  # 所有狼人将在游戏开始后互知共群

    # --- actions -------------------------------------------------------------------------

    def slots(self, position: Position, action: Action):
        # 救药 and 毒药 share one choice a night: the last sent stands.
        slots = super().slots(position, action)
        return tuple(dict.fromkeys((a, Skill.SAVE) if s in (Skill.SAVE, Skill.POISON) else (a, s) for a, s in slots))

    def divine_result(self, position: Position, target: str) -> str:
        faction = self.faction_of(position.sheet, target)
        return "村民阵营" if faction is Faction.VILLAGE else "非村民阵营"

    def psychic_to(self, position: Position) -> str | None:
        for witch in position.holds(WI):
            if position.has_skills(witch) and (witch, Skill.SAVE) not in position.used:
                return witch
        return None

    # --- the night's steps ---------------------------------------------------------------

    def steps(self) -> tuple[Step, ...]:
        return (
            Step("狼人指杀", self._pack_kill),
            Step("指杀结算", self._settle_kill),
            Step("毒药结算", self._settle_poison),
            Step("长老出局结算", self._elder_step),
        )

    def _pack_kill(self, position: Position, facts: NightFacts, so_far: Outcome):
        target = facts.choices.kill
        return position, Outcome(notes=(f"狼人指杀 {target}" if target else "狼人未指杀",))

    def _settle_kill(self, position: Position, facts: NightFacts, so_far: Outcome):
        target = facts.choices.kill
        saved = facts.choices.target(Skill.SAVE)
        witch = facts.choices.actor(Skill.SAVE)
        notes: list[str] = []
        if saved is not None and witch is not None:
            # <救药>使用后，女巫失去技能<救药> — spent whether or not its target was killed.
            position = position.using(witch, Skill.SAVE)
        if target is None:
            if saved is not None:
                notes.append(f"救药用在 {saved}，今晚无人被指杀")
            return position, Outcome(notes=tuple(notes))
        if not position.in_game(target):
            return position, Outcome(notes=(f"{target} 已出局，指杀无效",))
        if position.current(target) is E and target not in position.marked:
            # 一、被指杀的角色是未被有效指杀过的长老，长老视为被有效指杀一次 — before the save.
            note = f"{target} 第一次被有效指杀，不出局"
            if saved == target:
                note += "（救药同样用掉）"
            return position.marking(target), Outcome(marks=(target,), notes=(note,))
        if saved == target:
            return position, Outcome(notes=(f"{target} 是救药的目标，不出局",))
        position, outcome = self.lose(position, target, Cause.KILL, facts.at)
        return position, outcome

    def _settle_poison(self, position: Position, facts: NightFacts, so_far: Outcome):
        target = facts.choices.target(Skill.POISON)
        witch = facts.choices.actor(Skill.POISON)
        if target is None or witch is None:
            return position, Outcome()
        position = position.using(witch, Skill.POISON)  # <毒药>发动后，女巫失去技能<毒药>
        if not position.in_game(target):
            return position, Outcome(notes=(f"{target} 已出局，毒药无效",))
        # The elder's mark does not help against 毒药.
        return self.lose(position, target, Cause.POISON, facts.at)

    def _elder_step(self, position: Position, facts: NightFacts, so_far: Outcome):
        return self._elder_rule(position, so_far)

    def _elder_rule(self, position: Position, outcome: Outcome) -> tuple[Position, Outcome]:
        """当长老因投票、女巫<毒药>而出局后，女巫、预言家将失去技能 (not by 杀人, not by a red card)."""
        if not any(d.identity is E and d.cause in (Cause.VOTE, Cause.POISON) for d in outcome.deaths):
            return position, Outcome()
        layers = {(p, position.layer(p)) for p in (*position.holds(WI), *position.holds(S))
                  if position.has_skills(p)}
        return position.disabling(layers), Outcome(
            skills_lost=self.lost_skills(position, layers),
            announcements=("女巫、预言家失去技能",),
            notes=("长老因投票或毒药出局：女巫、预言家失去技能",),
        )

    # --- day steps -----------------------------------------------------------------------

    def vote_out(self, position: Position, player: str, at):
        position, outcome = self.lose(position, player, Cause.VOTE, at)
        position, more = self._elder_rule(position, outcome)
        return position, outcome + more

    def apply_event(self, position: Position, event, cause: str | None = None):
        position, outcome = super().apply_event(position, event, cause)
        position, more = self._elder_rule(position, outcome)
        return position, outcome + more

    # --- winning -------------------------------------------------------------------------

    def win(self, position: Position) -> Win | None:
        living = position.living
        wolves = [p for p in living if position.current(p) is W]
        sheet = position.sheet
        lost: dict[Faction, str] = {}
        if not wolves:
            lost[Faction.WOLVES] = "狼人阵营的角色全部出局"
        specials = [p for i in (S, WI, E) for p in sheet.holders(i)]
        if all(not position.in_game(p) for p in specials):
            lost[Faction.VILLAGE] = "村民阵营的预言家、女巫、长老出局"
        elif all(not position.in_game(p) for p in sheet.holders(V)):
            lost[Faction.VILLAGE] = "村民阵营的村民全部出局"
        wins = []
        if living and 2 * len(wolves) >= len(living):
            wins.append((Faction.WOLVES, "狼人阵营存活的人数占总存活人数的一半或一半以上"))
        return self.concluded(position, lost, wins, (Faction.WOLVES, Faction.VILLAGE))
