"""官方规则S09暨狼人游戏原版 (seed 001_…): 21 players, 24 cards, the thief's choice on night 0,
the little girl, and the wolves' win by votes.

* 身份分配 — 21人共计24张身份，其中狼人4张、村民13张、先知、女巫、猎人、爱神、小女孩、盗贼各一。
  The director enters the deal (SPEC §10.1): 21 cards to the players and, where the thief
  is dealt, the two cards offered to it (the identities table's ``盗贼底牌``).
* 游戏流程 — 第零晚行动 (爱神【金箭】, 盗贼【偷换】); 夜晚1 先知 → 夜晚2 狼人 (小女孩【偷看】) →
  夜晚3 女巫, 持续15分钟 each; 判定猎人是否出局，并等待可能的猎人行动，持续15分钟; 判定濒死状态的
  角色出局.
* 【预言】反馈该角色身份。每晚限用一次。
* 【通灵】当晚成为【杀人】目标的角色名单。 【解药】一名【通灵】反馈的角色 → 存活状态。
  【毒药】若该角色不为【救药】目标，则立即出局。
* 【金箭】爱神须指定两名角色成为情侣 (the cupid's faction does not change: S09 does not say so).
* 【偷看】若被存活状态的狼人捕捉到…则替代当晚【杀人】目标立即出局，并跳过遗言阶段 — entered by
  the director (SPEC §10.2).
* 【偷换】盗贼将得到两张身份牌，可以选择其中一张作为自己的身份并弃置另一张，或保留盗贼身份。若两张
  牌均为狼人，则必须选择一张。
* 胜负判定 — 〖狼人阵营〗胜：狼人阵营存活的人数可投出的票数占总票数的一半或以上 (the sheriff ×2);
  负：狼人阵营所有角色均出局。〖村民阵营〗负：所有角色均出局。〖情侣阵营〗负：情侣出局。
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from engine.night.actions import Action, ActionReason
from engine.night.base import Composition, NightFacts, Step
from engine.night.identities import Faction, Identity, Skill
from engine.night.judge import Choices, Feedback
from engine.night.official import ATTACKED, SHERIFF, Official, fact, with_fact
from engine.night.phases import PhaseSpec
from engine.night.position import Cause, Outcome, Position
from engine.night.sheet import Sheet, SheetError

I = Identity
W, V, SE, WI, H, CU, GI, TH = I.WOLF, I.VILLAGER, I.SEER, I.WITCH, I.HUNTER, I.CUPID, I.GIRL, I.THIEF
CARDS = "盗贼底牌"  # the identities table's key for the thief's two cards (and Sheet.options')
PLAYERS = 21


class S09(Official):
    code = "s09"
    title = "官方规则S09"
    identity_names = {W: "狼人", V: "村民", SE: "先知", WI: "女巫", H: "猎人", CU: "爱神", GI: "小女孩", TH: "盗贼"}
    skill_names = {
        Skill.KILL: "杀人", Skill.DIVINE: "预言", Skill.PSYCHIC: "通灵", Skill.SAVE: "解药", Skill.POISON: "毒药",
        Skill.LAST_SHOT: "流弹", Skill.ARROW: "金箭", Skill.PEEK: "偷看", Skill.SWAP: "偷换", Skill.PASS: "放弃",
    }
    composition = ((W, 4), (V, 13), (SE, 1), (WI, 1), (H, 1), (CU, 1), (GI, 1), (TH, 1))
    phase_specs = (
        PhaseSpec(SE, "夜晚1 先知", (Skill.DIVINE,), minutes=15, follows=True),
        PhaseSpec(W, "夜晚2 狼人", (Skill.KILL, Skill.PEEK), minutes=15, follows=True, also=(GI,)),
        PhaseSpec(WI, "夜晚3 女巫", (Skill.SAVE, Skill.POISON), minutes=15, follows=True),
    )
    night_zero = PhaseSpec(CU, "第零晚", (Skill.ARROW, Skill.SWAP))
    night_skills = {SE: (Skill.DIVINE,), W: (Skill.KILL,), WI: (Skill.SAVE, Skill.POISON), CU: (Skill.ARROW,),
                    TH: (Skill.SWAP,)}
    once_a_game = frozenset({Skill.SAVE, Skill.POISON, Skill.ARROW, Skill.SWAP})  # <限定技>, 第零晚
    first_stands = frozenset({Skill.DIVINE, Skill.ARROW, Skill.SWAP})
    director_skills = frozenset({Skill.PEEK})

    # --- the sheet -----------------------------------------------------------------------

    def players_for(self, composition: Composition | None = None) -> int:
        return PLAYERS

    def cards(self, sheet: Sheet) -> tuple[Identity, ...]:
        """The two cards offered to the thief (none where no thief was dealt)."""
        text = dict(sheet.options).get(CARDS, "")
        return tuple(self.identity(w) for w in text.split("、") if w)

    def read_sheet(self, table: Mapping[str, object], players: Sequence[str],
                   composition: Composition | None = None) -> Sheet:
        table = dict(table)
        raw = table.pop(CARDS, None)
        problems: list[str] = []
        cards: list[Identity] = []
        if raw is not None:
            words = [raw] if isinstance(raw, str) else raw
            if not isinstance(words, (list, tuple)) or len(words) != 2 or not all(isinstance(w, str) for w in words):
                problems.append(f"{CARDS}应写成两个身份的列表（例如 [\"狼人\", \"村民\"]）")
            else:
                for word in words:
                    try:
                        cards.append(self.identity(word))
                    except SheetError as exc:
                        problems.extend(f"{CARDS}：{p}" for p in exc.problems)
        try:
            sheet = self.read_hands(table, players)
        except SheetError as exc:
            raise SheetError([*exc.problems, *problems]) from exc
        if problems:
            raise SheetError(problems)
        options = ((CARDS, "、".join(self.name(c) for c in cards)),) if cards else ()
        sheet = Sheet(self.code, sheet.hands, options)
        self.check_sheet(sheet, composition)
        return sheet

    def check_sheet(self, sheet: Sheet, composition: Composition | None = None) -> None:
        """21 players; the dealt cards and the thief's two within the 24; no faction decided."""
        problems = []
        if len(sheet.players) != PLAYERS:
            problems.append(f"{self.title}需要 {PLAYERS} 名玩家，现有 {len(sheet.players)} 名")
        cards = self.cards(sheet)
        thief = sheet.holders(TH)
        if thief and len(cards) != 2:
            problems.append(f"盗贼 {thief[0]} 须有两张底牌（身份表中写“{CARDS}”）")
        if not thief and cards:
            problems.append(f"没有发给玩家盗贼，不应有“{CARDS}”")
        have = Counter([i for _, hand in sheet.hands for i in hand] + list(cards))
        for identity, total in (composition or self.composition):
            if have[identity] > total:
                problems.append(f"{self.name(identity)}共 {total} 张，身份表与底牌中 {have[identity]} 张")
        if problems:
            raise SheetError(problems)
        decided = self.win(self.start(sheet))
        if decided is not None:
            raise SheetError(f"发牌即已分出胜负：{decided.faction.value}获胜（{decided.rule}）")

    def deal(self, players, rng, composition=None, attempts: int = 1000) -> Sheet:
        raise SheetError(f"{self.title}由导演发牌并录入身份表（[identities].file）：24张中21张发给玩家，"
                         f"盗贼的两张底牌写在“{CARDS}”")

    def last_words_count(self, composition: Composition | None = None) -> int:
        return PLAYERS  # 判定濒死状态的角色出局，并通知准备遗言 — every player out

    def last_words_excluded(self, cause: str) -> bool:
        return cause == Cause.PEEK  # 小女孩…立即出局，并跳过遗言阶段

    def briefing(self, sheet: Sheet, player: str, *, ordering: bool = False):
        told = super().briefing(sheet, player, ordering=ordering)
        identity = sheet.first(player)
        note = ""
        if identity is TH and self.cards(sheet):
            a, b = (self.name(c) for c in self.cards(sheet))
            note = f"你的两张底牌：{a}、{b}。第零晚发送“偷换 身份”选择其中一张，或“放弃”保留盗贼身份"
            note += "（两张均为狼人时必须选择一张）。" if a == b == self.name(W) else "。"
        elif identity is CU:
            note = "第零晚须发送“金箭 甲 乙”，指定两名角色成为情侣。"
        elif identity is GI:
            note = "夜晚2狼人活动期间可使用身份号在树洞偷看；是否被发现由导演判定。"
        return type(told)(told.player, told.identities, told.pack, told.ordering, note)

    # --- skills ------------------------------------------------------------------------

    def own_skills(self, position: Position, player: str, night: int | None) -> tuple[Skill, ...]:
        identity = position.current(player)
        if identity is None or not position.has_skills(player):
            return ()
        found = []
        if night == 0:
            if identity is CU and (player, Skill.ARROW) not in position.used:
                found.append(Skill.ARROW)
            if identity is TH and self.cards(position.sheet) and (player, Skill.SWAP) not in position.used:
                found.append(Skill.SWAP)
            return tuple(found)
        return tuple(s for s in self.night_skills.get(identity, ())
                     if s not in (Skill.KILL, Skill.ARROW, Skill.SWAP)
                     and not (s in self.once_a_game and (player, s) in position.used))

    def holds_skill(self, position: Position, player: str, skill: Skill, night: int | None = None) -> bool:
        if skill is Skill.PEEK:
            return position.current(player) is GI and (night is None or night >= 1)
        return super().holds_skill(position, player, skill, night)

    def check_target(self, position: Position, action: Action, choices: Choices):
        found = super().check_target(position, action, choices)
        if found is not None:
            return found
        cards = self.cards(position.sheet)
        names = [self.name(c) for c in cards]
        if action.skill is Skill.SWAP and action.target not in names:
            return ActionReason.TARGET_NOT_ALLOWED, f"只能选择两张底牌之一：{'、'.join(names)}"
        if action.skill is Skill.PASS and action.night == 0 and position.current(action.actor) is TH \
                and cards and all(c is W for c in cards):
            return ActionReason.TARGET_NOT_ALLOWED, "两张底牌均为狼人，必须选择一张"
        if action.skill is Skill.SAVE and action.target not in self.psychic_list(choices):
            return ActionReason.TARGET_NOT_ALLOWED, f"{action.target} 不是今晚【杀人】的目标（解药只能用于通灵反馈的角色）"
        return None

    # --- feedback ----------------------------------------------------------------------

    def divine_result(self, position: Position, target: str) -> str:
        return self.name(self.identity_of(position, target))

    def psychic_to(self, position: Position) -> str | None:
        for witch in position.holds(WI):
            if position.has_skills(witch):
                return witch
        return None

    def psychic_at(self, ctx, pack_final, phase_final):
        # The girl caught (entered by the director within 夜晚2) replaces the kill target.
        if ctx.start.holds(GI):
            return phase_final
        return pack_final

    def psychic_list(self, choices: Choices) -> tuple[str, ...]:
        peek = choices.action(Skill.PEEK)
        if peek is not None:
            return (peek.actor,)
        return (choices.kill,) if choices.kill else ()

    def psychic_feedback(self, position: Position, choices: Choices, at):
        witch = self.psychic_to(position)
        if witch is None:
            return None
        return Feedback(witch, Skill.PSYCHIC, self.psychic_list(choices), None, at)

    def more_feedback(self, ctx, rulings, choices: Choices, now):
        found = list(super().more_feedback(ctx, rulings, choices, now))
        if ctx.night != 0:
            return tuple(found)
        thieves = ctx.start.holds(TH)
        if not thieves or not self.cards(ctx.start.sheet):
            return tuple(found)
        thief = thieves[0]
        swap = choices.action(Skill.SWAP)
        phase = ctx.plan.phase_for(Skill.SWAP)
        if swap is not None:
            card, at = swap.target, swap.at
        elif phase is not None and (now is None or now >= phase.end):
            card, at = self._forced(ctx.start), phase.end
        else:
            return tuple(found)
        if card is None:
            return tuple(found)
        found.append(Feedback(thief, Skill.SWAP, card, None, at, label=f"你的身份为{card}"))
        if card == self.name(W):
            for wolf in ctx.start.holds(W):
                found.append(Feedback(wolf, Skill.SWAP, card, thief, at, label=f"盗贼 {thief} 换成狼人，与你们互知共群"))
        return tuple(found)

    def _forced(self, position: Position) -> str | None:
        """若两张牌均为狼人，则必须选择一张 — unchosen by night 0's end: the first."""
        cards = self.cards(position.sheet)
        if cards and all(c is W for c in cards):
            return self.name(W)
        return None

    # --- the night's steps ---------------------------------------------------------------

    def steps(self) -> tuple[Step, ...]:
        return (
            Step("杀人、偷看", self._attack),
            Step("解药", self._save),
            Step("毒药", self._poison),
            Step("猎人", self._hunter_step),
            Step("夜晚结束", self._night_end),
        )

    def night_steps(self, night: int) -> tuple[Step, ...]:
        if night == 0:
            return (Step("偷换", self._swap), Step("金箭", self._arrow))
        return self.steps()

    def _swap(self, position: Position, facts: NightFacts, so_far: Outcome):
        thieves = position.holds(TH)
        if not thieves or not self.cards(position.sheet):
            return position, Outcome()
        thief = thieves[0]
        swap = facts.choices.action(Skill.SWAP)
        card = swap.target if swap is not None else self._forced(position)
        if card is None:
            return position, Outcome(notes=(f"盗贼 {thief} 保留盗贼身份",))
        identity = self.identity(card)
        hands = tuple((p, (identity,) if p == thief else hand) for p, hand in position.sheet.hands)
        position = replace(position, sheet=replace(position.sheet, hands=hands)).using(thief, Skill.SWAP)
        how = "" if swap is not None else "（两张底牌均为狼人，未选择：取第一张）"
        return position, Outcome(notes=(f"盗贼 {thief} 偷换为{card}{how}",), recheck=True)

    def _attack(self, position: Position, facts: NightFacts, so_far: Outcome):
        peek = facts.choices.action(Skill.PEEK)
        if peek is not None and position.in_game(peek.actor):
            # 替代当晚【杀人】目标立即出局
            return self.out(position, peek.actor, Cause.PEEK, facts.at)
        kill = facts.choices.kill
        if kill is None or not position.in_game(kill):
            return position, Outcome(notes=("今晚无人被杀人",))
        position = with_fact(position.with_dying(position.dying | {kill}), ATTACKED, ((kill, Cause.KILL),))
        return position, Outcome(notes=(f"{kill} 进入濒死状态",))

    def _save(self, position: Position, facts: NightFacts, so_far: Outcome):
        target, witch = facts.choices.target(Skill.SAVE), facts.choices.actor(Skill.SAVE)
        if target is None or witch is None:
            return position, Outcome()
        position = position.using(witch, Skill.SAVE)
        if target in position.dying:
            return position.with_dying(position.dying - {target}), Outcome(notes=(f"解药：{target} 进入存活状态",))
        return position, Outcome(notes=(f"解药用在 {target}，其未处于濒死状态，无效果",))

    def _poison(self, position: Position, facts: NightFacts, so_far: Outcome):
        target, witch = facts.choices.target(Skill.POISON), facts.choices.actor(Skill.POISON)
        if target is None or witch is None:
            return position, Outcome()
        position = position.using(witch, Skill.POISON)
        if target == facts.choices.target(Skill.SAVE):
            return position, Outcome(notes=(f"{target} 是解药的目标：毒药无效（若该角色不为【救药】目标，则立即出局）",))
        if not position.in_game(target):
            return position, Outcome(notes=(f"{target} 已出局，毒药无效",))
        return self.out(position, target, Cause.POISON, facts.at, witch)

    def _night_end(self, position: Position, facts: NightFacts, so_far: Outcome):
        outcome = Outcome()
        for player in [p for p in position.players if p in position.dying]:
            if position.in_game(player):
                position, more = self._dying_out(position, player, facts)
                outcome = outcome + more
        return with_fact(position.with_dying(frozenset()), ATTACKED, ()), outcome

    # --- winning -------------------------------------------------------------------------

    def knowing(self, before: Position, after: Position) -> Position:
        return replace(super().knowing(before, after), sheet=after.sheet)  # 偷换

    def losses(self, position: Position) -> dict[Faction, str]:
        lost: dict[Faction, str] = {}
        lovers = self.lovers_lost(position)
        if lovers:
            lost[Faction.LOVERS] = lovers
        wolves = self.members(position, Faction.WOLVES)
        if wolves and self._not_in(wolves, position):
            lost[Faction.WOLVES] = "狼人阵营所有角色均出局"
        village = self.members(position, Faction.VILLAGE)
        if village and self._not_in(village, position):
            lost[Faction.VILLAGE] = "村民阵营中的所有角色均出局"
        return lost

    def votes(self, position: Position) -> tuple[int, int]:
        """(the living wolves' votes, all votes): one each, the sheriff's two (【领导】)."""
        sheriff = fact(position, SHERIFF)
        living = position.living
        wolves = [p for p in living if self.faction_at(position, p) is Faction.WOLVES]
        extra = sheriff if sheriff in living else None
        return len(wolves) + (extra in wolves), len(living) + (extra is not None)

    def wins(self, position: Position) -> list[tuple[Faction, str]]:
        wolves, total = self.votes(position)
        if total and wolves and 2 * wolves >= total:
            return [(Faction.WOLVES, "狼人阵营存活的人数可投出的票数占总票数的一半或以上")]
        return []
