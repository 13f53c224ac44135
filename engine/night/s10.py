"""官方规则S10暨狼人游戏论坛版 (seed 000_…): the identities by player count and version,
each skill with its option digits, the lovers, and the win check of five factions.

* 身份分配 — ``s10_table``: the version's row gives the counts and the digits; the sheet
  keeps the digits (``Sheet.options``), so a game resolves by the deal it was dealt.
* 游戏流程 — 第零晚行动 (爱神【金箭】, 白狼【归群】, 孤狼【托孤】); then each night 夜晚1 守卫
  (守护, 隔音) → 夜晚2 吹笛 → 夜晚3、4、5 (先知 预言, 狼人 杀人, 白狼 撕咬) → 夜晚6 女巫 (通灵,
  解药, 毒药), 持续15分钟 each; 判定猎人是否出局，并等待可能的猎人行动，持续15分钟; 判定濒死状态的
  角色出局. 每一步执行完毕后，执行胜负判定.
* 【预言00】反馈“村民阵营”/“非村民阵营”; 【预言01】反馈该角色所属阵营; 【预言10】反馈该角色身份.
* 【通灵0】当晚成为【杀人】、【撕咬】目标的角色名单; 【通灵1】当晚濒死状态的角色名单.
* 【解药0】一名【通灵】反馈的角色 → 存活; 【解药1】…的其他角色; 若该技能已发动，则女巫失去【通灵】.
* 【毒药0】使之立即出局; 【毒药1】若女巫当晚未由于【杀人】或【撕咬】出局，则该角色出局.
* 【守护00/01】免疫【杀人】、【撕咬】 / 【杀人】或【撕咬】，每名角色只能成为该技能使用对象一次;
  【守护10/11】… 不能连续两晚同时对同一名角色使用. 【隔音0/1】免疫【吹笛】, 同上.
* 【道骨0/1】同时成为【杀人】与【撕咬】的使用对象 → 标记; 夜晚结束后濒死且无标记 → 不出局并获得
  标记; 由于村民阵营的身份发动的技能或投票致使其本人或情侣出局 → 所有普通身份（道骨1：与特殊身份）
  失去其技能，并公示.
* 【若愚】免于投票出局，此后投票不计入总票数；若此技能已发动，则失去此技能时，白痴出局.
* 【金箭0/1】两名（其他）角色成为情侣，爱神转变为与情侣相同阵营; 【奇缘】身份类型相同 → 爱神转变
  为相同的身份类型，情侣免疫【守护】; 【复仇】情侣二人均为狼人 → 狼人全部出局后爱神获得【杀人】.
* 【吹笛】若该角色不为情侣之一，则进入癫狂状态; 吹笛出局后，癫狂状态解除，并公示.
* 【杀人1】所有存活状态的狼人共同选择一名角色 → 濒死.
* 【归群】白狼得知所有狼人，可选择与所有狼人互知共群，阵营改变为〖狼人阵营〗;
  【撕咬】每两晚（1~2、3~4等）→ 濒死.
* 孤狼 (前缀第2位为1): 【托孤】〖狼人阵营〗中角色数目大于2 → 全体狼人选择一名狼人; 【孤刀】最后一名
  存活的〖狼人阵营〗角色即将由于投票（或投票出局的猎人【流弹】）出局时，可选择一名其他角色与之共同
  出局（属于〖村民阵营〗但不为无标记的长老，且除〖村民阵营〗外的其他阵营均已判负或不存在）.
* 胜负判定 (前缀第1位, 默认0 刀边) — 白狼、吹笛、情侣、狼人、村民 in that order; 平局.
* 平衡原则 — 前N（N为狼人+白狼总数）名出局的角色可以留下遗言.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import ClassVar

from engine.night.actions import Action, ActionReason
from engine.night.base import Composition, NightFacts, Step
from engine.night.identities import Faction, Identity, Skill
from engine.night.judge import Choices, Feedback
from engine.night.official import ATTACKED, AUTO, LOST, Official, fact, with_fact
from engine.night.phases import PhaseSpec
from engine.night.position import Cause, Outcome, Position, Trigger
from engine.night.s10_table import Version, read_version, row_for
from engine.night.sheet import Sheet, SheetError

I = Identity
W, V, SE, WI, G, E = I.WOLF, I.VILLAGER, I.SEER, I.WITCH, I.GUARD, I.ELDER
H, ID, CU, PI, WW = I.HUNTER, I.IDIOT, I.CUPID, I.PIPER, I.WHITE_WOLF

# 身份类型 (二、概览)
SPECIAL = frozenset({SE, WI, G, E})
ORDINARY = frozenset({H, ID, CU})
TYPE_ZH = {"special": "特殊", "ordinary": "普通", "villager": "村民", "piper": "吹笛", "wolf": "狼人",
           "white_wolf": "白狼"}

# Position.extra keys (S10)
JOINED = "joined"  # the white wolf who 归群
LONE = "lone"  # 孤狼
MAD = "mad"  # 癫狂 players (in force while a piper is in the game)
SHIELDS = "shields"  # (player, night) given 守护
MUTES = "mutes"  # (player, night) given 隔音
BITES = "bites"  # (white wolf, pair of nights) 撕咬 used
REVEALED = "revealed"  # (idiot, when) 若愚 used
ELDER_FIRED = "elder_fired"  # 道骨's loss of skills has happened


def kind_of(identity: Identity) -> str:
    if identity in SPECIAL:
        return "special"
    if identity in ORDINARY:
        return "ordinary"
    return {V: "villager", PI: "piper", W: "wolf", WW: "white_wolf"}[identity]


class S10(Official):
    code = "s10"
    title = "官方规则S10"
    cupid_follows = True
    identity_names = {W: "狼人", V: "村民", SE: "先知", WI: "女巫", G: "守卫", E: "长老", H: "猎人",
                      ID: "白痴", CU: "爱神", PI: "吹笛", WW: "白狼"}
    skill_names = {
        Skill.KILL: "杀人", Skill.DIVINE: "预言", Skill.PSYCHIC: "通灵", Skill.SAVE: "解药",
        Skill.POISON: "毒药", Skill.SHIELD: "守护", Skill.MUTE: "隔音", Skill.LONGEVITY: "道骨",
        Skill.LAST_SHOT: "流弹", Skill.FOOL: "若愚", Skill.ARROW: "金箭", Skill.PIPE: "吹笛",
        Skill.JOIN: "归群", Skill.BITE: "撕咬", Skill.ENTRUST: "托孤", Skill.LONE_BLADE: "孤刀",
        Skill.PASS: "放弃",
    }
    composition: ClassVar[Composition] = ()  # by version: ``S10.for_version``
    phase_specs = (
        PhaseSpec(G, "夜晚1 守卫", (Skill.SHIELD, Skill.MUTE), minutes=15, follows=True),
        PhaseSpec(PI, "夜晚2 吹笛", (Skill.PIPE,), minutes=15, follows=True),
        PhaseSpec(W, "夜晚3、4、5 先知、狼人、白狼", (Skill.DIVINE, Skill.KILL, Skill.BITE), minutes=15,
                  follows=True, also=(SE, WW)),
        PhaseSpec(WI, "夜晚6 女巫", (Skill.SAVE, Skill.POISON), minutes=15, follows=True),
    )
    night_zero = PhaseSpec(CU, "第零晚", (Skill.ARROW, Skill.JOIN, Skill.ENTRUST))
    night_skills = {G: (Skill.SHIELD, Skill.MUTE), PI: (Skill.PIPE,), SE: (Skill.DIVINE,), W: (Skill.KILL,),
                    WW: (Skill.BITE,), WI: (Skill.SAVE, Skill.POISON), CU: (Skill.ARROW,)}
    once_a_game = frozenset({Skill.SAVE, Skill.POISON, Skill.ARROW, Skill.JOIN})  # <限定技>, 第零晚
    first_stands = frozenset({Skill.DIVINE, Skill.ARROW, Skill.JOIN})
    triggered = frozenset({Skill.LAST_SHOT, Skill.FOOL, Skill.LONE_BLADE})
    event_facts = Official.event_facts | {ELDER_FIRED, REVEALED}

    def __init__(self, version: Version | None = None) -> None:
        self.version = version
        if version is not None:
            row = row_for(version)
            self.row = row
            self.composition = tuple((i, n) for i, n in row.counts)  # type: ignore[misc]
            self.options: tuple[tuple[str, str], ...] = (
                ("版本", version.text), ("胜负", version.win_digit), ("孤狼", "1" if version.lone_wolf else "0"),
                *(kv for kv in row.options()))
        else:
            self.options = ()

    @classmethod
    def for_version(cls, text: str, players: int | None = None) -> S10:
        version = read_version(text)
        row_for(version, players)
        return cls(version)

    # --- options -----------------------------------------------------------------------

    def opt(self, position: Position | Sheet, key: str, default: str = "0") -> str:
        sheet = position.sheet if isinstance(position, Position) else position
        return dict(sheet.options).get(key, default)

    # --- the sheet -----------------------------------------------------------------------

    def _need_version(self) -> None:
        if self.version is None:
            raise SheetError("S10须指定版本号（[game].version，例如 46D 或 2E4-46D），身份配置由版本决定")

    def players_for(self, composition: Composition | None = None) -> int:
        if composition is None:
            self._need_version()
        return super().players_for(composition)

    def read_sheet(self, table: Mapping[str, object], players: Sequence[str],
                   composition: Composition | None = None) -> Sheet:
        self._need_version()
        if self.version is not None and self.version.players != len(players):
            raise SheetError(f"版本 {self.version.suffix} 是{self.version.players}人的配置，本局 {len(players)} 名玩家")
        sheet = super().read_sheet(table, players, composition)
        return Sheet(sheet.ruleset, sheet.hands, self.options)

    def check_sheet(self, sheet: Sheet, composition: Composition | None = None) -> None:
        self._need_version()
        if not sheet.options:
            sheet = Sheet(sheet.ruleset, sheet.hands, self.options)
        super().check_sheet(sheet, composition)

    def deal_once(self, players, rng, composition=None) -> Sheet:
        self._need_version()
        sheet = super().deal_once(players, rng, composition)
        return Sheet(sheet.ruleset, sheet.hands, self.options)

    def start(self, sheet: Sheet) -> Position:
        if not sheet.options and self.options:
            sheet = Sheet(sheet.ruleset, sheet.hands, self.options)
        return Position(sheet)

    def composition_of(self, sheet: Sheet) -> Composition:
        counts = Counter(i for _, hand in sheet.hands for i in hand)
        return tuple((i, counts[i]) for i in self.identity_names if counts[i])

    def last_words_count(self, composition: Composition | None = None) -> int:
        """前N（N为狼人+白狼总数）名出局的角色可以留下遗言 (pass ``composition_of(sheet)``
        where the mode has no version)."""
        if composition is None:
            self._need_version()
        return sum(n for i, n in (composition or self.composition) if i in (W, WW))

    def briefing(self, sheet: Sheet, player: str, *, ordering: bool = False):
        told = super().briefing(sheet, player, ordering=ordering)
        identity = sheet.first(player)
        note = ""
        if identity is WW:
            wolves = "、".join(sheet.holders(W))
            note = f"狼人：{wolves}（【归群】：第零晚可发送“归群”与狼人互知共群，阵营改变为狼人阵营）。"
        elif identity is CU:
            other = "两名其他角色" if self.opt(sheet, "金箭") == "1" else "两名角色"
            note = f"第零晚须发送“金箭 甲 乙”，指定{other}成为情侣。"
        elif identity is W and self.opt(sheet, "孤狼") == "1":
            note = "本局有孤狼：第零晚狼人可发送“托孤 狼人”选择一名狼人获得孤狼身份。"
        return type(told)(told.player, told.identities, told.pack, told.ordering, note)

    # --- factions, types -------------------------------------------------------------------

    def base_faction(self, position: Position, player: str) -> Faction:
        identity = self.identity_of(position, player)
        if identity is W:
            return Faction.WOLVES
        if identity is WW:
            return Faction.WOLVES if fact(position, JOINED) == player else Faction.WHITE_WOLF
        if identity is PI:
            return Faction.PIPER
        return Faction.VILLAGE

    def kind(self, position: Position, player: str) -> str:
        """身份类型; 【奇缘】若情侣二人的身份类型相同，则爱神转变为与二者相同的身份类型."""
        identity = self.identity_of(position, player)
        if identity is CU and len(position.lovers) == 2:
            a, b = (kind_of(self.identity_of(position, p)) for p in position.lovers)
            if a == b:
                return a
        return kind_of(identity)

    def mad(self, position: Position) -> frozenset[str]:
        """癫狂; 吹笛出局后，癫狂状态解除."""
        if not any(position.in_game(p) for p in position.players if self.identity_of(position, p) is PI):
            return frozenset()
        return frozenset(fact(position, MAD, frozenset()))

    def cupid_skills(self, position: Position) -> bool:
        """The cupid's lock skills (奇缘's immunity, 复仇) hold: not lost to 道骨."""
        cupids = [p for p in position.players if self.identity_of(position, p) is CU]
        return any(position.has_skills(p) for p in cupids)

    # --- the pack --------------------------------------------------------------------------

    def wolves_pack(self, position: Position) -> tuple[str, ...]:
        wolves = position.holds(W)
        if wolves:
            return wolves
        # 【复仇】若情侣二人均为狼人，则当狼人全部出局后，爱神获得技能【杀人】。
        if len(position.lovers) == 2 and all(self.identity_of(position, p) is W for p in position.lovers):
            return tuple(p for p in position.holds(CU) if position.has_skills(p))
        return ()

    # --- skills tonight --------------------------------------------------------------------

    def own_skills(self, position: Position, player: str, night: int | None) -> tuple[Skill, ...]:
        identity = position.current(player)
        if identity is None:
            return ()
        found: list[Skill] = []
        if night == 0:
            if identity is CU and position.has_skills(player) and (player, Skill.ARROW) not in position.used:
                found.append(Skill.ARROW)
            if identity is WW and fact(position, JOINED) is None:
                found.append(Skill.JOIN)
            if identity is W and self._may_entrust(position):
                found.append(Skill.ENTRUST)
            return tuple(found)
        if identity is W or not position.has_skills(player):
            return ()  # 杀人 is the pack's (``skills_now``)
        if identity is WW and night is not None and self._bitten(position, player, night):
            return ()
        return tuple(s for s in self.night_skills.get(identity, ())
                     if s is not Skill.ARROW and not (s in self.once_a_game and (player, s) in position.used))

    def _pair(self, night: int) -> int:
        """撕咬's two nights: 1~2 → 1, 3~4 → 2 …"""
        return (night + 1) // 2

    def _bitten(self, position: Position, player: str, night: int) -> bool:
        return (player, self._pair(night)) in fact(position, BITES, frozenset())

    def _may_entrust(self, position: Position) -> bool:
        """【托孤】若〖狼人阵营〗中角色数目大于2 (and the version has a 孤狼)."""
        if self.opt(position, "孤狼") != "1" or fact(position, LONE) is not None:
            return False
        return len(self.members(position, Faction.WOLVES)) > 2

    def no_skill_note(self, position: Position, player: str, skill: Skill, night: int | None = None) -> str:
        identity = position.current(player)
        if identity is WW and skill is Skill.BITE and night and self._bitten(position, player, night):
            first = 2 * self._pair(night) - 1
            return f"撕咬每两晚限用一次（第{first}~{first + 1}晚已用）"
        if skill is Skill.ENTRUST and identity is W and night == 0:
            if self.opt(position, "孤狼") != "1":
                return "本局版本没有孤狼"
            return "狼人阵营角色数目不大于2，不能托孤"
        if skill is Skill.JOIN and identity is WW and fact(position, JOINED) is not None:
            return "已归群"
        return super().no_skill_note(position, player, skill, night)

    def slots(self, position: Position, action: Action):
        slots = super().slots(position, action)
        # 托孤: 〖狼人阵营〗中全体狼人可以选择 — one choice for the pack, like 杀人.
        return tuple(("", Skill.ENTRUST) if s == (action.actor, Skill.ENTRUST) else s for s in slots)

    def check_target(self, position: Position, action: Action, choices: Choices):
        found = super().check_target(position, action, choices)
        if found is not None:
            return found
        skill, target, night = action.skill, action.target, action.night
        if skill in (Skill.SHIELD, Skill.MUTE):
            key, digit = (SHIELDS, self.opt(position, "守护")[:1]) if skill is Skill.SHIELD else (
                MUTES, self.opt(position, "隔音")[:1])
            given = fact(position, key, frozenset())
            name = self.skill_name(skill)
            if digit == "0" and any(p == target for p, _ in given):
                return ActionReason.TARGET_NOT_ALLOWED, f"{target} 已成为过{name}的对象（每名角色只能成为该技能使用对象一次）"
            if digit == "1" and (target, night - 1) in given:
                return ActionReason.TARGET_NOT_ALLOWED, f"不能连续两晚对同一名角色使用{name}（{target} 昨晚已是对象）"
        if skill is Skill.PIPE:
            if target == action.actor:
                return ActionReason.TARGET_NOT_ALLOWED, "不能对自己吹笛"
            if target in self.mad(position):
                return ActionReason.TARGET_NOT_ALLOWED, f"{target} 已处于癫狂状态（吹笛：任一存活且未癫狂）"
        if skill is Skill.ARROW and self.opt(position, "金箭") == "1" and action.actor in action.targets:
            return ActionReason.TARGET_NOT_ALLOWED, "金箭1：须指定两名其他角色"
        if skill is Skill.ENTRUST:
            if self.identity_of(position, target) is not W or self.faction_at(position, target) is not Faction.WOLVES:
                return ActionReason.TARGET_NOT_ALLOWED, f"{target} 不是狼人阵营的狼人（托孤只能选择一名狼人）"
        if skill is Skill.SAVE:
            listed = self.psychic_list(position, choices)
            if target not in listed:
                return ActionReason.TARGET_NOT_ALLOWED, f"{target} 不在通灵的名单中（解药只能用于通灵反馈的角色）"
            if self.opt(position, "解药") == "1" and target == action.actor:
                return ActionReason.TARGET_NOT_ALLOWED, "解药1：只能用于通灵反馈的其他角色，不能自救"
        return None

    # --- feedback --------------------------------------------------------------------------

    def divine_result(self, position: Position, target: str) -> str:
        digits = self.opt(position, "预言", "00")
        if digits == "10":
            return self.name(self.identity_of(position, target))
        faction = self.faction_at(position, target)
        if digits == "01":
            return faction.value
        return "村民阵营" if faction is Faction.VILLAGE else "非村民阵营"

    def psychic_to(self, position: Position) -> str | None:
        """The witch with her skills who has not used 解药 (若该技能已发动，则女巫失去【通灵】)."""
        for witch in position.holds(WI):
            if position.has_skills(witch) and (witch, Skill.SAVE) not in position.used:
                return witch
        return None

    def psychic_at(self, ctx, pack_final, phase_final):
        # 撕咬 is in the same slot: 通灵 waits for it where the white wolf can bite tonight.
        biters = [p for p in ctx.start.living if Skill.BITE in self.skills_now(ctx.start, p, ctx.night)]
        if biters:
            return phase_final
        return pack_final

    def psychic_list(self, position: Position, choices: Choices) -> tuple[str, ...]:
        """通灵0: the targets of 杀人 and 撕咬; 通灵1: tonight's 濒死."""
        if self.opt(position, "通灵") == "1":
            attacks = self.attacks(position, choices)
            return tuple(p for p in position.players if p in attacks)
        targets = {choices.kill, choices.target(Skill.BITE)} - {None}
        return tuple(p for p in position.players if p in targets)

    def psychic_feedback(self, position: Position, choices: Choices, at):
        witch = self.psychic_to(position)
        if witch is None:
            return None
        label = "今晚濒死的角色" if self.opt(position, "通灵") == "1" else "今晚成为杀人、撕咬目标的角色"
        return Feedback(witch, Skill.PSYCHIC, self.psychic_list(position, choices), None, at, label=label)

    def more_feedback(self, ctx, rulings, choices: Choices, now):
        found = list(super().more_feedback(ctx, rulings, choices, now))
        if ctx.night != 0:
            return tuple(found)
        join = choices.action(Skill.JOIN)
        if join is not None:
            for wolf in ctx.start.holds(W):
                found.append(Feedback(wolf, Skill.JOIN, "归群", join.actor, join.at,
                                      label=f"白狼 {join.actor} 归群，与狼人互知共群"))
        entrust = choices.action(Skill.ENTRUST)
        phase = ctx.plan.phase_for(Skill.ENTRUST)
        if entrust is not None and phase is not None and (now is None or now >= phase.end):
            found.append(Feedback(entrust.target, Skill.ENTRUST, "孤狼", None, phase.end,  # type: ignore[arg-type]
                                  label="狼人托孤：你获得孤狼身份（【孤刀】）"))
        return tuple(found)

    # --- the night's steps -------------------------------------------------------------------

    def steps(self) -> tuple[Step, ...]:
        return (
            Step("守护、隔音", self._guard),
            Step("吹笛", self._pipe),
            Step("杀人、撕咬", self._attack),
            Step("解药", self._save),
            Step("毒药", self._poison),
            Step("猎人", self._hunter_step),
            Step("夜晚结束", self._night_end),
        )

    def night_steps(self, night: int) -> tuple[Step, ...]:
        if night == 0:
            return (Step("归群", self._join), Step("金箭", self._arrow), Step("托孤", self._entrust))
        return self.steps()

    # night 0

    def _join(self, position: Position, facts: NightFacts, so_far: Outcome):
        join = facts.choices.action(Skill.JOIN)
        if join is None:
            return position, Outcome()
        position = with_fact(position, JOINED, join.actor).using(join.actor, Skill.JOIN)
        return position, Outcome(notes=(f"白狼 {join.actor} 归群：阵营改变为狼人阵营",), recheck=True)

    def _arrow(self, position: Position, facts: NightFacts, so_far: Outcome):
        arrow = facts.choices.action(Skill.ARROW)
        position, outcome = super()._arrow(position, facts, so_far)
        if arrow is not None:
            position = position.using(arrow.actor, Skill.ARROW)
            if len(position.lovers) == 2:
                kind = self.kind(position, arrow.actor)
                if kind != "ordinary":
                    outcome = outcome + Outcome(notes=(f"【奇缘】情侣身份类型相同：爱神转变为{TYPE_ZH[kind]}身份",))
        return position, outcome

    def _entrust(self, position: Position, facts: NightFacts, so_far: Outcome):
        entrust = facts.choices.action(Skill.ENTRUST)
        if entrust is None:
            return position, Outcome()
        if not self._may_entrust(position) or self.faction_at(position, entrust.target) is not Faction.WOLVES:
            # 若〖狼人阵营〗中角色数目大于2 — counted after 金箭 and 归群 (a wolf among mixed lovers
            # has left the faction).
            return position, Outcome(notes=("狼人阵营角色数目不大于2或所选狼人已不属于狼人阵营：托孤无效",))
        return with_fact(position, LONE, entrust.target), Outcome(notes=(f"{entrust.target} 获得孤狼身份（托孤）",))

    # nights 1…

    def _guard(self, position: Position, facts: NightFacts, so_far: Outcome):
        notes = []
        for skill, key in ((Skill.SHIELD, SHIELDS), (Skill.MUTE, MUTES)):
            target = facts.choices.target(skill)
            if target is None:
                continue
            position = with_fact(position, key, fact(position, key, frozenset()) | {(target, facts.night)})
            notes.append(f"守卫{self.skill_name(skill)} {target}")
        return position, Outcome(notes=tuple(notes))

    def _pipe(self, position: Position, facts: NightFacts, so_far: Outcome):
        target = facts.choices.target(Skill.PIPE)
        if target is None or not position.in_game(target):
            return position, Outcome()
        if target in position.lovers:
            return position, Outcome(notes=(f"{target} 是情侣之一：吹笛无效",))
        if (target, facts.night) in fact(position, MUTES, frozenset()):
            return position, Outcome(notes=(f"{target} 受隔音保护：吹笛无效",))
        position = with_fact(position, MAD, frozenset(fact(position, MAD, frozenset())) | {target})
        return position, Outcome(notes=(f"{target} 进入癫狂状态",), recheck=True)

    def attacks(self, position: Position, choices: Choices) -> dict[str, list[str]]:
        """Who becomes 濒死 tonight and by what, after 守护 (情侣免疫【守护】 while the cupid's
        skills hold; 守护x1 stops one of 杀人、撕咬 only)."""
        hits: dict[str, list[str]] = {}
        for skill, cause in ((Skill.KILL, Cause.KILL), (Skill.BITE, Cause.BITE)):
            target = choices.target(skill)
            if target is not None and position.in_game(target):
                hits.setdefault(target, []).append(cause)
        shield = choices.target(Skill.SHIELD)
        if shield in hits and not (shield in position.lovers and self.cupid_skills(position)):
            if self.opt(position, "守护", "00")[1:] == "1":
                hits[shield] = hits[shield][1:]  # 免疫【杀人】或【撕咬】: one of them
            else:
                hits[shield] = []
        return {p: c for p, c in hits.items() if c}

    def _attack(self, position: Position, facts: NightFacts, so_far: Outcome):
        choices = facts.choices
        notes, marks = [], []
        bite = choices.action(Skill.BITE)
        if bite is not None:
            position = with_fact(position, BITES,
                                 fact(position, BITES, frozenset()) | {(bite.actor, self._pair(facts.night))})
        kill, bitten = choices.kill, choices.target(Skill.BITE)
        if kill is not None and kill == bitten and position.current(kill) is E and position.has_skills(kill):
            # 【道骨】同时成为【杀人】与【撕咬】的使用对象，则获得一个标记。
            if kill not in position.marked:
                position = position.marking(kill)
                marks.append(kill)
            notes.append(f"{kill} 同时成为杀人与撕咬的对象：获得标记")
        hits = self.attacks(position, choices)
        for target in {kill, bitten} - {None} - set(hits):
            if position.in_game(target):  # type: ignore[arg-type]
                notes.append(f"{target} 受守护保护")
        for target, causes in hits.items():
            notes.append(f"{target} 进入濒死状态（{'、'.join(causes)}）")
        if kill is None and bitten is None:
            notes.append("今晚无人被杀人或撕咬")
        position = position.with_dying(position.dying | set(hits))
        position = with_fact(position, ATTACKED, tuple(sorted((p, c[0]) for p, c in hits.items())))
        return position, Outcome(marks=tuple(marks), notes=tuple(notes))

    def _save(self, position: Position, facts: NightFacts, so_far: Outcome):
        target, witch = facts.choices.target(Skill.SAVE), facts.choices.actor(Skill.SAVE)
        if target is None or witch is None:
            return position, Outcome()
        position = position.using(witch, Skill.SAVE)  # 若该技能已发动，则女巫失去【通灵】
        if target in position.dying:
            return position.with_dying(position.dying - {target}), Outcome(notes=(f"解药：{target} 进入存活状态",))
        return position, Outcome(notes=(f"解药用在 {target}，其未处于濒死状态，无效果",))

    def _poison(self, position: Position, facts: NightFacts, so_far: Outcome):
        target, witch = facts.choices.target(Skill.POISON), facts.choices.actor(Skill.POISON)
        if target is None or witch is None:
            return position, Outcome()
        position = position.using(witch, Skill.POISON)
        if not position.in_game(target):
            return position, Outcome(notes=(f"{target} 已出局，毒药无效",))
        if self.opt(position, "毒药") == "1" and witch in position.dying:
            # 【毒药1】若女巫当晚未由于【杀人】或【撕咬】出局 — she is 濒死 after her own 解药:
            # 带刀吞毒, the poison does nothing.
            return position, Outcome(notes=(f"女巫濒死（带刀吞毒）：毒药对 {target} 无效",))
        return self.out(position, target, Cause.POISON, facts.at, witch)

    def _night_end(self, position: Position, facts: NightFacts, so_far: Outcome):
        outcome = Outcome()
        for player in [p for p in position.players if p in position.dying]:
            if not position.in_game(player):
                continue
            if position.current(player) is E and player not in position.marked and position.has_skills(player):
                position = position.marking(player)
                outcome = outcome + Outcome(marks=(player,), notes=(f"{player} 濒死且无标记：不出局，获得标记",))
                continue
            position, more = self._dying_out(position, player, facts)
            outcome = outcome + more
        position = with_fact(position.with_dying(frozenset()), ATTACKED, ())
        return position, outcome

    # --- what going out sets off -------------------------------------------------------------

    def out(self, position, player, cause, at, by=None, origin=None):
        if position.in_game(player) and position.current(player) is PI:
            # 优先判负 stays: the losses 癫狂 made hold after it is lifted.
            met = {f.value: r for f, r in self.losses(position).items()}
            position = with_fact(position, LOST, tuple(sorted({**dict(fact(position, LOST, ())), **met}.items())))
        return super().out(position, player, cause, at, by, origin)

    def after_out(self, before, position, player, identity, cause, at, had_skills, by, origin):
        outcome = Outcome()
        if identity is PI and before.in_game(player) and fact(position, MAD):
            outcome = outcome + Outcome(announcements=("吹笛出局，癫狂状态解除",),
                                        notes=("吹笛出局：癫狂状态解除",), recheck=True)
        # 【道骨】 before 殉情: the elder (or the elder's lover) going out by the village's own hand.
        elder = player if identity is E else self.partner(before, player)
        if elder is not None and self.identity_of(before, elder) is E:
            position, more = self._elder_rule(before, position, elder, origin, at)
            outcome = outcome + more
        position, more = super().after_out(before, position, player, identity, cause, at, had_skills, by, origin)
        return position, outcome + more

    def _by_village(self, position: Position, origin: tuple[str, str | None]) -> bool:
        """由于村民阵营的身份发动的技能或投票: the vote, or 毒药/流弹 of a village identity."""
        cause, by = origin
        if cause == Cause.VOTE:
            return True
        if cause in (Cause.POISON, Cause.STRAY, Cause.LAST_SHOT):
            actor = by or next(iter(position.sheet.holders(WI if cause == Cause.POISON else H)), None)
            return actor is not None and self.faction_at(position, actor) is Faction.VILLAGE
        return False

    def _elder_rule(self, before: Position, position: Position, elder: str, origin, at) -> tuple[Position, Outcome]:
        if fact(position, ELDER_FIRED) or not before.has_skills(elder):
            return position, Outcome()
        if self.faction_at(before, elder) is not Faction.VILLAGE or not self._by_village(before, origin):
            return position, Outcome()
        kinds = {"ordinary"} if self.opt(position, "道骨") == "0" else {"ordinary", "special"}
        layers = {(p, 0) for p in position.living if self.kind(position, p) in kinds and position.has_skills(p)}
        position = with_fact(position.disabling(layers), ELDER_FIRED, True)
        said = "所有普通身份失去技能" if kinds == {"ordinary"} else "所有特殊身份与普通身份失去技能"
        outcome = Outcome(skills_lost=self.lost_skills(position, layers), announcements=(said,),
                          notes=(f"长老因{origin[0]}（村民阵营）出局或其情侣出局：{said}",))
        # 若愚已发动，则失去此技能时，白痴出局。
        revealed = {p for p, _ in fact(position, REVEALED, frozenset())}
        for idiot in [p for p, _ in sorted(layers) if p in revealed and position.in_game(p)]:
            position = with_fact(position, AUTO, fact(position, AUTO, frozenset()) | {idiot})
            position, more = self.out(position, idiot, Cause.FOOL, at)
            outcome = outcome + Outcome(notes=(f"{idiot}（白痴，已发动若愚）失去技能：出局",)) + more
        return position, outcome

    # --- day steps ---------------------------------------------------------------------------

    def vote_out(self, position: Position, player: str, at):
        if (player, at) in fact(position, REVEALED, frozenset()):
            return position, Outcome(notes=(f"{player} 发动【若愚】，免于投票出局",))
        lone = self._last_lone_wolf(position, player)
        identity = position.current(player)
        may_fool = identity is ID and position.has_skills(player) and not any(
            p == player for p, _ in fact(position, REVEALED, frozenset()))
        position, outcome = self.out(position, player, Cause.VOTE, at)
        triggers: list[Trigger] = []
        if at is not None and may_fool:
            triggers.append(Trigger(player, Skill.FOOL, at, at + timedelta(minutes=self.shot_minutes), ID, Cause.VOTE))
            outcome = outcome + Outcome(notes=(f"{player}（白痴）可发动【若愚】免于投票出局",))
        if at is not None and lone:
            triggers.append(self._blade_trigger(player, at))
        return position, outcome + Outcome(triggers=tuple(triggers))

    def _last_lone_wolf(self, position: Position, player: str) -> bool:
        """The 孤狼, the last 〖狼人阵营〗 role in the game (孤刀's first condition)."""
        if fact(position, LONE) != player or not position.in_game(player):
            return False
        return [p for p in self.members(position, Faction.WOLVES) if position.in_game(p)] == [player]

    def _blade_trigger(self, player: str, at) -> Trigger:
        return Trigger(player, Skill.LONE_BLADE, at, at + timedelta(minutes=self.shot_minutes), W, Cause.VOTE)

    def answer(self, position: Position, trigger: Trigger, action: Action):
        if trigger.skill is Skill.FOOL:
            return position, Outcome(notes=(f"{trigger.player} 发动【若愚】：免于投票出局（请录入若愚）",))
        if trigger.skill is Skill.LONE_BLADE:
            return self.blade(position, trigger.player, action.target, trigger.since)  # type: ignore[arg-type]
        lone = self._last_lone_wolf(position, action.target)  # type: ignore[arg-type]
        position, outcome = super().answer(position, trigger, action)
        if lone and trigger.cause == Cause.VOTE:
            # 由于投票出局的猎人【流弹】出局时 — 孤刀 too.
            outcome = outcome + Outcome(triggers=(self._blade_trigger(action.target, trigger.since),))  # type: ignore[arg-type]
        return position, outcome

    def blade(self, position: Position, lone: str, target: str, at) -> tuple[Position, Outcome]:
        """【孤刀】the target goes out with the lone wolf if it is of 〖村民阵营〗, not an
        unmarked elder, and every faction but 村民 (and the lone wolf's own) has lost or is
        not in the game."""
        if self.faction_at(position, target) is not Faction.VILLAGE:
            return position, Outcome(notes=(f"孤刀：{target} 不属于村民阵营，无效",))
        if self.identity_of(position, target) is E and target not in position.marked:
            return position, Outcome(notes=(f"孤刀：{target} 是无标记的长老，无效",))
        lost = self.losses(position)
        others = [f for f in self.factions(position) if f not in (Faction.VILLAGE, Faction.WOLVES) and f not in lost]
        if others:
            return position, Outcome(notes=(f"孤刀：{'、'.join(f.value for f in others)}尚未判负，无效",))
        return self.out(position, target, Cause.LONE_BLADE, at, lone)

    def answered_by(self, trigger: Trigger, event) -> bool:
        if trigger.skill is Skill.LONE_BLADE:
            return event.cause == Cause.LONE_BLADE
        return super().answered_by(trigger, event)

    def together(self, event) -> bool:
        return event.cause == Cause.LONE_BLADE

    def apply_event(self, position: Position, event, cause: str | None = None):
        from engine.events import EventKind

        if event.kind is EventKind.IDIOT and event.player in position.players:
            player = event.player
            if position.current(player) is not ID or not position.has_skills(player):
                return position, Outcome(notes=(f"{player} 不是有若愚技能的白痴，若愚无效",))
            if any(p == player for p, _ in fact(position, REVEALED, frozenset())):
                return position, Outcome(notes=(f"{player} 已发动过若愚",))
            return with_fact(position, REVEALED, fact(position, REVEALED, frozenset()) | {(player, event.when)}), \
                Outcome()
        if event.cause == Cause.LONE_BLADE and event.player in position.players:
            lone = fact(position, LONE)
            return self.out(position, event.player, Cause.LONE_BLADE, event.at, lone)
        return super().apply_event(position, event, cause)

    # --- winning -------------------------------------------------------------------------

    def losses(self, position: Position) -> dict[Faction, str]:
        mad = self.mad(position)
        digit = self.opt(position, "胜负")
        lost: dict[Faction, str] = {Faction(f): r for f, r in fact(position, LOST, ())}
        ww = self.members(position, Faction.WHITE_WOLF)
        if ww and self._not_in(ww, position):
            lost.setdefault(Faction.WHITE_WOLF, "白狼出局")
        pipers = self.members(position, Faction.PIPER)
        if pipers and self._not_in(pipers, position):
            lost.setdefault(Faction.PIPER, "吹笛出局")
        lovers = self.lovers_lost(position)
        if lovers:
            lost.setdefault(Faction.LOVERS, lovers)
        wolves = self.members(position, Faction.WOLVES)
        if wolves:
            if digit == "1" and self._not_in(wolves, position):
                lost.setdefault(Faction.WOLVES, "狼人阵营所有角色均出局")
            elif digit != "1" and self._not_in(wolves, position, mad):
                lost.setdefault(Faction.WOLVES, "狼人阵营所有角色均出局或处于癫狂状态")
        village = self.members(position, Faction.VILLAGE)
        if village:
            if digit == "1":
                if self._not_in(village, position, mad):
                    lost.setdefault(Faction.VILLAGE, "村民阵营中的所有角色均出局或处于癫狂状态")
            else:
                specials = [p for p in village if self.kind(position, p) == "special"]
                plain = [p for p in village if self.kind(position, p) == "villager"]
                if self._not_in(specials, position):
                    lost.setdefault(Faction.VILLAGE, "村民阵营中的特殊身份均出局")
                elif self._not_in(plain, position, mad):
                    lost.setdefault(Faction.VILLAGE, "村民阵营中的所有村民均出局或处于癫狂状态")
        return lost

    def wins(self, position: Position) -> list[tuple[Faction, str]]:
        found: list[tuple[Faction, str]] = []
        living = position.living
        ww = [p for p in self.members(position, Faction.WHITE_WOLF) if position.in_game(p)]
        if ww and len(living) <= 5:
            found.append((Faction.WHITE_WOLF, "白狼在只有5个人未出局时自身未出局"))
        pipers = [p for p in self.members(position, Faction.PIPER) if position.in_game(p)]
        if pipers:
            mad = self.mad(position)
            if self.opt(position, "胜负") == "1":
                rest = [p for p in living if p not in pipers]
                if rest and all(p in mad for p in rest):
                    found.append((Faction.PIPER, "所有角色均处于癫狂状态"))
            else:
                rest = [p for p in living if p not in position.lovers
                        and self.faction_at(position, p) in (Faction.VILLAGE, Faction.WOLVES)]
                if all(p in mad for p in rest):
                    found.append((Faction.PIPER, "所有未出局的非情侣村民与狼人均处于癫狂状态"))
        return found
