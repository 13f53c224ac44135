"""双身份规则（alpha版） (seed 003_…): two identities each, layers that die one by one.

* Composition — 7人14身份，3狼，4大特2小特，5民: 狼人 ×3, 先知, 女巫, 守卫, 长老, 猎人, 替罪羊,
  村民 ×5, dealt in pairs; 由演员决定身份的顺序 (``Sheet.ordered``), unordered: as dealt.
* 两个身份中有"狼人"的角色属于狼人阵营; 只有"第一身份"为狼人的玩家能够在狼群中讨论并行使狼人
  技能"杀人" — the pack is the first-identity wolves. 演员只能使用当前"第一身份"的技能。
* The night — 夜晚1 守卫 → 夜晚2 先知 → 夜晚3 狼人 → 夜晚4 女巫, 持续10分钟 each.
* 【预言】可查验某一存活角色的第一身份，反馈该身份。每晚限用一次。
* 【通灵】<锁定技>可得知当晚成为【杀人】目标的角色名单。
* 【解药】<限定技>可选择一名濒死状态的角色，使之进入存活状态。 【毒药】<限定技>可选择一名角色，
  使之失去身份/出局。 (SPEC §10.2: both allowed in one night, applied 解药 then 毒药.)
* 【守护之盾】…每名角色的每一层身份只能成为该技能使用对象一次.
* 【长寿之命】夜晚结束后，如长老处于濒死状态且无标记，长老不失去长老身份并获得一个标记。如长老
  因【杀人】以外的其他因素失去长老身份时，所有特殊身份失去其技能，并公示。
* 【最后一枪】猎人失去猎人身份时，可在15分钟内决定一名存活角色失去当前第一身份。
* 濒死状态：…夜晚结束后，所有濒死状态（无标记的长老除外）未失去身份的角色第一身份死亡，已失去过
  身份的角色出局。
"""

from __future__ import annotations

from engine.night.actions import Action, ActionReason
from engine.night.base import Mode, NightFacts, Step
from engine.night.identities import Faction, Identity, Skill
from engine.night.judge import Choices
from engine.night.phases import PhaseSpec
from engine.night.position import Cause, Outcome, Position, Win

W, SE, WI, G, E = Identity.WOLF, Identity.SEER, Identity.WITCH, Identity.GUARD, Identity.ELDER
H, SG, V = Identity.HUNTER, Identity.SCAPEGOAT, Identity.VILLAGER
# 所有特殊身份 (SPEC §10.3: 先知 女巫 守卫 猎人 替罪羊); the elder is the one that was lost.
SPECIAL = frozenset({SE, WI, G, H, SG})
# 村民阵营的先知、女巫、守卫、长老身份死亡 → 狼人阵营胜.
GREAT = (SE, WI, G, E)


class Dual(Mode):
    code = "dual"
    title = "双身份规则（alpha版）"
    layers = 2
    identity_names = {W: "狼人", SE: "先知", WI: "女巫", G: "守卫", E: "长老", H: "猎人", SG: "替罪羊", V: "村民"}
    skill_names = {
        Skill.KILL: "杀人", Skill.DIVINE: "预言", Skill.PSYCHIC: "通灵", Skill.SAVE: "解药",
        Skill.POISON: "毒药", Skill.SHIELD: "守护", Skill.LONGEVITY: "长寿之命",
        Skill.LAST_SHOT: "最后一枪", Skill.SCAPEGOAT: "冤死", Skill.PASS: "放弃",
    }
    composition = ((W, 3), (SE, 1), (WI, 1), (G, 1), (E, 1), (H, 1), (SG, 1), (V, 5))
    phase_specs = (
        PhaseSpec(G, "守卫", (Skill.SHIELD,), minutes=10, follows=True),
        PhaseSpec(SE, "先知", (Skill.DIVINE,), minutes=10, follows=True),
        PhaseSpec(W, "狼人", (Skill.KILL,), minutes=10, follows=True),
        PhaseSpec(WI, "女巫", (Skill.SAVE, Skill.POISON), minutes=10, follows=True),
    )
    night_skills = {G: (Skill.SHIELD,), SE: (Skill.DIVINE,), W: (Skill.KILL,), WI: (Skill.SAVE, Skill.POISON)}
    once_a_game = frozenset({Skill.SAVE, Skill.POISON})  # <限定技>
    last_words = 0  # 该规则下角色出局没有遗言

    # --- the pack ------------------------------------------------------------------------

    def pack(self, position: Position) -> tuple[str, ...]:
        return position.holds(W)

    def pack_at_deal(self, sheet) -> tuple[str, ...]:
        return tuple(p for p, hand in sheet.hands if hand[0] is W)

    def scapegoat(self, position: Position) -> str | None:
        for player in position.holds(SG):
            if position.has_skills(player):
                return player
        return None

    # --- actions -------------------------------------------------------------------------

    def check_target(self, position: Position, action: Action, choices: Choices):
        found = super().check_target(position, action, choices)
        if found is not None:
            return found
        target = action.target
        if action.skill is Skill.SHIELD and (target, position.layer(target)) in position.shielded:
            return ActionReason.TARGET_NOT_ALLOWED, f"{target} 的这一层身份已被守护过（每层身份只能被守护一次）"
        if action.skill is Skill.SAVE and target != choices.kill:
            # 濒死 is the kill target unless shielded; the witch is told the kill target
            # (通灵, shielded or not) and never whether it was shielded: a save on the kill
            # target counts either way (docs/decisions.md).
            return ActionReason.TARGET_NOT_ALLOWED, f"{target} 不是今晚被指杀的角色（解药只能用于濒死的角色）"
        return None

    def divine_result(self, position: Position, target: str) -> str:
        return self.name(position.current(target))

    def psychic_to(self, position: Position) -> str | None:
        for witch in position.holds(WI):
            if position.has_skills(witch):
                return witch
        return None

    # --- the night's steps ---------------------------------------------------------------

    def steps(self) -> tuple[Step, ...]:
        return (
            Step("守护之盾", self._shield),
            Step("狼人杀人", self._kill),
            Step("解药", self._save),
            Step("毒药", self._poison),
            Step("夜晚结束", self._night_end),
        )

    def _shield(self, position: Position, facts: NightFacts, so_far: Outcome):
        target = facts.choices.target(Skill.SHIELD)
        if target is None or not position.in_game(target):
            return position, Outcome()
        return position.shielding(target), Outcome(notes=(f"守卫守护 {target}（第{position.layer(target) + 1}层身份）",))

    def _kill(self, position: Position, facts: NightFacts, so_far: Outcome):
        target = facts.choices.kill
        if target is None:
            return position, Outcome(notes=("狼人未杀人",))
        if not position.in_game(target):
            return position, Outcome(notes=(f"{target} 已出局，杀人无效",))
        if facts.choices.target(Skill.SHIELD) == target:
            return position, Outcome(notes=(f"{target} 受守护之盾保护，免疫杀人",))
        return position.with_dying(position.dying | {target}), Outcome(notes=(f"{target} 进入濒死状态",))

    def _save(self, position: Position, facts: NightFacts, so_far: Outcome):
        target = facts.choices.target(Skill.SAVE)
        witch = facts.choices.actor(Skill.SAVE)
        if target is None or witch is None:
            return position, Outcome()
        position = position.using(witch, Skill.SAVE)
        if target in position.dying:
            return position.with_dying(position.dying - {target}), Outcome(notes=(f"解药：{target} 进入存活状态",))
        return position, Outcome(notes=(f"解药用在 {target}，其未处于濒死状态（已被守护），无效果",))

    def _poison(self, position: Position, facts: NightFacts, so_far: Outcome):
        target = facts.choices.target(Skill.POISON)
        witch = facts.choices.actor(Skill.POISON)
        if target is None or witch is None:
            return position, Outcome()
        position = position.using(witch, Skill.POISON)
        if not position.in_game(target):
            return position, Outcome(notes=(f"{target} 已出局，毒药无效",))
        return self.lose(position, target, Cause.POISON, facts.at)

    def _night_end(self, position: Position, facts: NightFacts, so_far: Outcome):
        outcome = Outcome()
        for player in [p for p in position.players if p in position.dying]:
            if not position.in_game(player):
                continue
            if position.current(player) is E and player not in position.marked:
                position = position.marking(player)
                outcome = outcome + Outcome(marks=(player,), notes=(f"{player} 濒死且无标记：不失去长老身份，获得标记",))
                continue
            position, more = self.lose(position, player, Cause.KILL, facts.at)
            outcome = outcome + more
        return position.with_dying(frozenset()), outcome

    # --- what losing an identity sets off ------------------------------------------------

    def after_loss(self, position: Position, player: str, identity: Identity, layer: int, cause: str,
                   at, had_skills: bool):
        outcome = Outcome()
        if identity is E and cause not in (Cause.KILL, ""):
            layers = {(p, i) for p in position.living for i in range(position.layer(p), 2)
                      if position.sheet.hand(p)[i] in SPECIAL and position.has_skills(p, i)}
            position = position.disabling(layers)
            outcome = outcome + Outcome(
                skills_lost=self.lost_skills(position, layers),
                announcements=("所有特殊身份失去技能",),
                notes=(f"长老因{cause}失去长老身份：所有特殊身份失去技能",),
            )
        if identity is H and had_skills:
            outcome = outcome + self.shot_trigger(player, identity, at)
        return position, outcome

    # --- winning -------------------------------------------------------------------------

    def win(self, position: Position) -> Win | None:
        sheet = position.sheet
        village = [p for p, hand in sheet.hands if self.faction(hand) is Faction.VILLAGE]
        wolves = [p for p, hand in sheet.hands if self.faction(hand) is Faction.WOLVES]

        def all_dead(kinds) -> bool:
            return all(position.dead_layer(p, i) for p in village
                       for i, x in enumerate(sheet.hand(p)) if x in kinds)

        wins = []
        if all_dead(GREAT):
            wins.append((Faction.WOLVES, "村民阵营的先知、女巫、守卫、长老身份死亡"))
        elif all_dead((V,)):
            wins.append((Faction.WOLVES, "村民阵营的村民身份全部死亡"))
        if all(not position.in_game(p) for p in wolves):
            wins.append((Faction.VILLAGE, "所有狼人阵营的角色出局"))
        return self.concluded(position, {}, wins, (Faction.WOLVES, Faction.VILLAGE))
