"""The interface every rule set's module implements (``Mode``), with what they share.

A rule set is a ``Mode``: its identities and their names, its composition, who is in the
wolves' pack, its night phases and skills, which targets a skill allows, the ordered
night steps, what losing an identity sets off, and its win check. The shared machinery —
reading and dealing a sheet, ruling actions (``engine.night.judge``), running the steps
with a win check between them (``engine.night.resolve``), replaying a game
(``engine.night.chronicle``) — asks the mode and never which mode it has.

A rule set is one module: a ``Mode`` subclass registered in ``engine.night.registry``.
S10 and S09 (``s10``, ``s09`` on ``official``) use what the shared machinery asks of a
mode beyond 14人简易 and 双身份: ``first_night = 0`` and ``plan_zero`` (第零晚), skills by
night (``skills_now(…, night)``), ``Sheet.options`` (the option digits of the deal),
``Position.lovers`` and ``Position.extra``, actions with two targets or a card
(``actions.TWO_TARGETS``, ``CARD_TARGET``), director-entered skills, the feedback hooks
(``psychic_at``, ``psychic_feedback``, ``divine_feedback``, ``more_feedback``), triggered
skills answered by ``answer``, ``Outcome.recheck`` (a win without a death), events that
leave together (``together``) and the event kinds a mode reads (``event_kinds``).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from parsers.text import normalise_name

from engine.events import BEFORE, EventKind, GameEvent, OutWhy
from engine.night.actions import Action, ActionReason
from engine.night.identities import SKILL_ZH, Faction, Identity, Skill, read_identity, read_skill
from engine.night.phases import NightPlan, NightSettings, PhaseSpec, lay_out, night_zero
from engine.night.position import Cause, Death, Outcome, Position, SkillLoss, Trigger, Win
from engine.night.sheet import Sheet, SheetError
from engine.night.standing import Choices, Feedback


Composition = tuple[tuple[Identity, int], ...]


@dataclass(frozen=True)
class Briefing:
    """What a player is told at the deal (the PM): their identities and, for a wolf in a
    pack that knows itself, the other wolves."""

    player: str
    identities: tuple[str, ...]  # Chinese names, first identity first
    pack: tuple[str, ...] = ()  # the other wolves this player knows
    ordering: bool = False  # 双身份: the player still orders their two identities
    note: str = ""  # S10/S09: what else this identity is told at the deal (Chinese, one sentence)

    def text(self) -> str:
        if len(self.identities) == 1:
            line = f"你的身份：{self.identities[0]}。"
        else:
            line = f"你的两个身份：{' / '.join(self.identities)}。"
            if self.ordering:
                line += (f"请在第一天开始前告诉导演哪个是你的第一身份；"
                         f"未排序则按发牌顺序，{self.identities[0]}为第一身份。")
        if self.pack:
            line += f"狼人同伴：{'、'.join(self.pack)}。"
        if self.note:
            line += self.note
        return line


@dataclass(frozen=True)
class Step:
    """One named step of the night: a pure function of the position (and the night's
    standing choices and what earlier steps revealed) to a new position and what it
    reveals."""

    name: str
    run: Callable[[Position, NightFacts, Outcome], tuple[Position, Outcome]]


@dataclass(frozen=True)
class NightFacts:
    """What the steps read: the standing choices and the moment the night closed."""

    night: int
    choices: Choices
    at: datetime  # when the night's actions were final (deaths and triggers date from it)


class Mode(ABC):
    code: ClassVar[str]  # the rule set's config name (simple14, dual)
    title: ClassVar[str]
    layers: ClassVar[int] = 1  # identities per player
    first_night: ClassVar[int] = 1  # S10/S09: 0 (第零晚)
    identity_names: ClassVar[dict[Identity, str]]
    skill_names: ClassVar[dict[Skill, str]]
    composition: ClassVar[Composition]
    phase_specs: ClassVar[tuple[PhaseSpec, ...]]
    night_skills: ClassVar[dict[Identity, tuple[Skill, ...]]]
    once_a_game: ClassVar[frozenset[Skill]] = frozenset()
    # Skills whose first counting use of a night is final (answered at once): 预言.
    first_stands: ClassVar[frozenset[Skill]] = frozenset({Skill.DIVINE})
    # Skills ruled once the skills of the phases before are final (双身份 解药 needs 濒死).
    deferred: ClassVar[frozenset[Skill]] = frozenset()
    last_words: ClassVar[int] = 0  # 遗言 holders (14人简易: as many as there are wolves)
    shot_minutes: ClassVar[int] = 15
    # What a hunter's shot is called as a cause (S10/S09: 流弹).
    shot_cause: ClassVar[str] = Cause.LAST_SHOT
    # Skills only the director enters (S09 偷看: the little girl caught by the wolves).
    director_skills: ClassVar[frozenset[Skill]] = frozenset()
    # Skills answered in a window after what set them off (a shot; S10 若愚, 孤刀).
    triggered: ClassVar[frozenset[Skill]] = frozenset({Skill.LAST_SHOT})
    # The §9 event kinds that change the identities' game (S10 adds 若愚, S09 the badge).
    event_kinds: ClassVar[frozenset[EventKind]] = frozenset(
        {EventKind.OUT, EventKind.IDENTITY_LOST, EventKind.SURRENDER})

    # --- words ---------------------------------------------------------------------------

    def name(self, identity: Identity | None) -> str:
        return self.identity_names[identity] if identity is not None else ""

    def skill_name(self, skill: Skill) -> str:
        return self.skill_names.get(skill) or SKILL_ZH[skill]

    def identity(self, text: str) -> Identity:
        """The identity a word names in this rule set; SheetError naming the word."""
        found = read_identity(text)
        if found is None:
            raise SheetError(f"不认识的身份“{text}”")
        if found not in self.identity_names:
            raise SheetError(f"{self.title}没有“{text}”这个身份")
        return found

    def skill(self, text: str) -> Skill | None:
        """The skill a word names, if this rule set has it (None: unknown here)."""
        found = read_skill(text)
        return found if found is not None and found in self.skill_names else None

    # --- factions and the pack -----------------------------------------------------------

    def faction(self, hand: tuple[Identity, ...]) -> Faction:
        """两个身份中有"狼人"的角色属于狼人阵营 (one identity: the same rule)."""
        return Faction.WOLVES if Identity.WOLF in hand else Faction.VILLAGE

    def faction_of(self, sheet: Sheet, player: str) -> Faction:
        return self.faction(sheet.hand(player))

    @abstractmethod
    def pack(self, position: Position) -> tuple[str, ...]:
        """The wolves who may give the pack's order now."""

    @abstractmethod
    def pack_at_deal(self, sheet: Sheet) -> tuple[str, ...]:
        """The wolves who know each other from the deal (told by PM)."""

    def briefing(self, sheet: Sheet, player: str, *, ordering: bool = False) -> Briefing:
        pack = self.pack_at_deal(sheet)
        others = tuple(p for p in pack if p != player) if player in pack else ()
        names = tuple(self.name(i) for i in sheet.hand(player))
        return Briefing(player, names, others, ordering and self.layers > 1)

    # --- the sheet -----------------------------------------------------------------------

    def read_composition(self, table: Mapping[str, int]) -> Composition:
        """A director's composition (身份 → count), for a variant of the rule set."""
        counts: Counter[Identity] = Counter()
        for word, count in table.items():
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise SheetError(f"身份“{word}”的数量应为非负整数")
            counts[self.identity(word)] += count
        return tuple((i, counts[i]) for i in self.identity_names if counts[i])

    def players_for(self, composition: Composition | None = None) -> int:
        total = sum(n for _, n in (composition or self.composition))
        return total // self.layers

    def read_sheet(self, table: Mapping[str, object], players: Sequence[str],
                   composition: Composition | None = None) -> Sheet:
        """A sheet from ``"player" = "预言家"`` (双身份: ``["女巫", "狼人"]``, first identity
        first). Names are compared as votes are (NFKC…); identity words with their
        synonyms. SheetError lists every problem at once."""
        sheet = self.read_hands(table, players)
        self.check_sheet(sheet, composition)
        return sheet

    def read_hands(self, table: Mapping[str, object], players: Sequence[str]) -> Sheet:
        """The sheet as written (names, words, one entry per player), not yet checked
        against the composition."""
        problems: list[str] = []
        seats = {normalise_name(p): p for p in players}
        hands: dict[str, tuple[Identity, ...]] = {}
        seen: set[str] = set()
        for key, value in table.items():
            player = seats.get(normalise_name(str(key)))
            if player is None:
                problems.append(f"“{key}”不是玩家")
                continue
            if player in seen:
                problems.append(f"{player} 在身份表中出现了两次")
                continue
            seen.add(player)
            words = [value] if isinstance(value, str) else value
            if not isinstance(words, (list, tuple)) or not all(isinstance(w, str) for w in words):
                problems.append(f"{player} 的身份应写成文字" + ("或两个身份的列表" if self.layers > 1 else ""))
                continue
            if len(words) != self.layers:
                problems.append(f"{player} 应有 {self.layers} 个身份，表中 {len(words)} 个")
                continue
            hand = []
            for word in words:
                try:
                    hand.append(self.identity(word))
                except SheetError as exc:
                    problems.extend(f"{player}：{p}" for p in exc.problems)
            if len(hand) == len(words):
                hands[player] = tuple(hand)
        missing = [p for p in players if p not in seen]
        if missing:
            problems.append(f"身份表缺少：{'、'.join(missing)}")
        if problems:
            raise SheetError(problems)
        return Sheet(self.code, tuple((p, hands[p]) for p in players))

    def check_sheet(self, sheet: Sheet, composition: Composition | None = None) -> None:
        """Counts as the composition says, and no faction already won or lost."""
        wanted = Counter(dict(composition or self.composition))
        problems = []
        if len(sheet.players) != self.players_for(composition):
            problems.append(f"{self.title}需要 {self.players_for(composition)} 名玩家，现有 {len(sheet.players)} 名")
        have = Counter(i for _, hand in sheet.hands for i in hand)
        for identity in self.identity_names:
            if have[identity] != wanted[identity]:
                problems.append(f"{self.name(identity)}应为 {wanted[identity]} 个，身份表中 {have[identity]} 个")
        if problems:
            raise SheetError(problems)
        decided = self.win(self.start(sheet))
        if decided is not None:
            raise SheetError(f"发牌即已分出胜负：{decided.faction.value}获胜（{decided.rule}）")

    def deal_once(self, players: Sequence[str], rng: random.Random,
                  composition: Composition | None = None) -> Sheet:
        pool = [i for i, n in (composition or self.composition) for _ in range(n)]
        if len(pool) != len(players) * self.layers:
            raise SheetError(f"{self.title}需要 {self.players_for(composition)} 名玩家，现有 {len(players)} 名")
        rng.shuffle(pool)
        hands = tuple((p, tuple(pool[k * self.layers:(k + 1) * self.layers])) for k, p in enumerate(players))
        return Sheet(self.code, hands)

    def deal(self, players: Sequence[str], rng: random.Random, composition: Composition | None = None,
             attempts: int = 1000) -> Sheet:
        """A random sheet from the composition; dealt again (from the same generator)
        while a faction has already won or lost on it."""
        last: SheetError | None = None
        for _ in range(attempts):
            sheet = self.deal_once(players, rng, composition)
            try:
                self.check_sheet(sheet, composition)
                return sheet
            except SheetError as exc:
                last = exc
        raise SheetError(f"发牌 {attempts} 次都已分出胜负，请检查身份配置（{last}）")

    def start(self, sheet: Sheet) -> Position:
        return Position(sheet)

    # --- nights: phases, skills, targets -------------------------------------------------

    def plan(self, night: int, deadline: datetime, settings: NightSettings = NightSettings()) -> NightPlan:
        return lay_out(self.phase_specs, night, deadline, settings)

    # 第零晚's slot (S10/S09): who acts from the deal to day 1's start.
    night_zero: ClassVar[PhaseSpec | None] = None

    def plan_zero(self, day_one: datetime, settings: NightSettings = NightSettings(),
                  dealt: datetime | None = None) -> NightPlan:
        """Night 0's plan: one slot from the deal (unknown: any time before) to day 1's start."""
        if self.night_zero is None:
            raise ValueError(f"{self.title}没有第零晚")
        return night_zero(self.night_zero, dealt or BEFORE, day_one)

    def skills_now(self, position: Position, player: str, night: int | None = None) -> tuple[Skill, ...]:
        """The phase skills ``player`` can use now (on night ``night``, where the rule set
        has skills for some nights only): the current identity's, if its skills are not
        lost, without the once-a-game ones spent."""
        identity = position.current(player)
        if identity is None or not position.has_skills(player):
            return ()
        return tuple(s for s in self.night_skills.get(identity, ())
                     if not (s in self.once_a_game and (player, s) in position.used))

    def holds_skill(self, position: Position, player: str, skill: Skill, night: int | None = None) -> bool:
        """A director-entered skill (S09 偷看): whether ``player`` holds it now."""
        return skill in self.skills_now(position, player, night)

    def first_stands_note(self, first: Action) -> str:
        """Why a second use of a skill whose first use stands does not count."""
        return f"今晚已{self.skill_name(first.skill)}（{first.target}），每晚限用一次"

    def no_skill_note(self, position: Position, player: str, skill: Skill, night: int | None = None) -> str:
        identity = position.current(player)
        if identity is None:
            return ""
        if skill in self.night_skills.get(identity, ()) or skill is Skill.PASS:
            if not position.has_skills(player):
                return f"{self.name(identity)}已失去技能"
            if skill in self.once_a_game and (player, skill) in position.used:
                return f"{self.skill_name(skill)}已用过"
        if skill is Skill.PASS:
            return f"{self.name(identity)}今晚没有可放弃的技能"
        return f"{self.name(identity)}没有{self.skill_name(skill)}"

    def slots(self, position: Position, action: Action) -> tuple[tuple[str, Skill], ...]:
        """The standing choices an action fills: the pack's one order for 杀人; otherwise
        the actor's own, per skill; 放弃 fills all of the actor's."""
        actor = action.actor
        if action.skill is Skill.PASS:
            return tuple(self._slot(actor, s) for s in self.skills_now(position, actor, action.night))
        return (self._slot(actor, action.skill),)

    def _slot(self, actor: str, skill: Skill) -> tuple[str, Skill]:
        return ("", Skill.KILL) if skill is Skill.KILL else (actor, skill)

    def check_target(self, position: Position, action: Action, choices: Choices) -> tuple[ActionReason, str] | None:
        """A rule set's own target rules (after "is a player" and "is in the game")."""
        if action.skill is Skill.DIVINE and action.target == action.actor:
            return ActionReason.TARGET_NOT_ALLOWED, "不能查验自己"
        return None

    # --- nights: steps, feedback ---------------------------------------------------------

    @abstractmethod
    def steps(self) -> tuple[Step, ...]:
        """The night's steps in order (§10.3)."""

    @abstractmethod
    def divine_result(self, position: Position, target: str) -> str:
        """What the seer is told about ``target``."""

    @abstractmethod
    def psychic_to(self, position: Position) -> str | None:
        """The witch who is told the kill targets tonight (None: no one)."""

    def night_steps(self, night: int) -> tuple[Step, ...]:
        """Night ``night``'s steps (S10/S09: night 0 has its own)."""
        return self.steps()

    def psychic_at(self, ctx, pack_final: datetime | None, phase_final: datetime | None) -> datetime | None:
        """When 通灵 can be told: once the pack's order is final (S10: and 撕咬's)."""
        return pack_final

    def psychic_feedback(self, position: Position, choices: Choices, at: datetime):
        """通灵: the kill targets, to the witch who is told them (None: no one)."""

        witch = self.psychic_to(position)
        if witch is None:
            return None
        kill = choices.kill
        return Feedback(witch, Skill.PSYCHIC, (kill,) if kill else (), None, at)

    def divine_feedback(self, ctx, position: Position, action: Action):
        """预言's answer, told at once."""

        assert action.target is not None
        return Feedback(action.actor, Skill.DIVINE, self.divine_result(position, action.target), action.target,
                        action.at)

    def more_feedback(self, ctx, rulings, choices: Choices, now: datetime | None) -> tuple:
        """What else the night tells its owners (S10/S09 night 0: the lovers, 归群, 偷换)."""
        return ()

    def answer(self, position: Position, trigger: Trigger, action: Action) -> tuple[Position, Outcome]:
        """A triggered skill's counting action applied (the hunter's shot)."""
        return self.shoot(position, action.target, trigger.since)  # type: ignore[arg-type]

    def answered_by(self, trigger: Trigger, event: GameEvent) -> bool:
        """The event (an out or lost identity in the trigger's window) is the triggered
        skill's result, already entered: a shot is ``why = hunter``."""
        return event.why is OutWhy.HUNTER

    def knowing(self, before: Position, after: Position) -> Position:
        """``before`` with what only the night knows from ``after`` (a night whose deaths
        the events correct)."""
        return before.knowing(after)

    def together(self, event: GameEvent) -> bool:
        """The event leaves the game together with the one before it at the same moment
        (S10 孤刀): the win is checked once both are applied."""
        return False

    def composition_of(self, sheet: Sheet) -> Composition:
        """The composition the sheet was dealt from (S10: its version's row)."""
        return self.composition

    def last_words_count(self, composition: Composition | None = None) -> int:
        """How many may leave 遗言 (14人简易: as many as the composition's wolves)."""
        count = self.last_words
        if composition is not None and count:
            count = sum(n for identity, n in composition if identity is Identity.WOLF)
        return count

    def last_words_excluded(self, cause: str) -> bool:
        """A departure with this cause neither gets last words nor uses a place (S09: the
        little girl caught; a red card is excluded everywhere)."""
        return False

    # --- losing identities ---------------------------------------------------------------

    def lose(self, position: Position, player: str, cause: str, at: datetime | None) -> tuple[Position, Outcome]:
        """``player`` loses its current identity (双身份: the second becomes first; the
        last one: out). What the loss sets off is ``after_loss``'s."""
        if not position.in_game(player):
            return position, Outcome(notes=(f"{player} 已出局，{cause}无效",))
        layer = position.layer(player)
        identity = position.current(player)
        assert identity is not None
        had_skills = position.has_skills(player, layer)
        new = position.losing_layer(player)
        effect = "identity_lost" if new.in_game(player) else "out"
        outcome = Outcome(deaths=(Death(player, effect, identity, cause, at=at),))
        new, more = self.after_loss(new, player, identity, layer, cause, at, had_skills)
        return new, outcome + more

    def after_loss(self, position: Position, player: str, identity: Identity, layer: int, cause: str,
                   at: datetime | None, had_skills: bool) -> tuple[Position, Outcome]:
        return position, Outcome()

    def send_off(self, position: Position, player: str, at: datetime | None) -> tuple[Position, Outcome]:
        """红牌罚下 / 扣满12分: out whatever it holds, setting nothing off (红牌罚下出局的角色…
        不能发动…技能；角色因罚下而离开游戏不触发相应出局技能)."""
        if not position.in_game(player):
            return position, Outcome(notes=(f"{player} 已出局",))
        identity = position.current(player)
        assert identity is not None
        return position.sending_off(player), Outcome(deaths=(Death(player, "out", identity, Cause.CARD, at=at),))

    def shot_trigger(self, player: str, identity: Identity, at: datetime | None) -> Outcome:
        if at is None:
            return Outcome()
        from datetime import timedelta

        until = at + timedelta(minutes=self.shot_minutes)
        shot = self.skill_name(Skill.LAST_SHOT)
        return Outcome(triggers=(Trigger(player, Skill.LAST_SHOT, at, until, identity),),
                       notes=(f"{player} 失去{self.name(identity)}身份，可在 {self.shot_minutes} 分钟内发动{shot}",))

    def scapegoat(self, position: Position) -> str | None:
        """The player whose living first identity is 替罪羊 with its skill (双身份)."""
        return None

    # --- day steps -----------------------------------------------------------------------

    def vote_out(self, position: Position, player: str, at: datetime | None) -> tuple[Position, Outcome]:
        """The day's vote result: 14人简易 out, 双身份 the first identity dies."""
        return self.lose(position, player, Cause.VOTE, at)

    def shoot(self, position: Position, target: str, at: datetime | None) -> tuple[Position, Outcome]:
        return self.lose(position, target, self.shot_cause, at)

    def concede(self, position: Position, player: str, at: datetime | None) -> tuple[Position, Outcome]:
        faction = self.faction_of(position.sheet, player)
        return position.conceding(faction), Outcome(announcements=(f"{faction.value}投降",))

    def apply_event(self, position: Position, event: GameEvent, cause: str | None = None
                    ) -> tuple[Position, Outcome]:
        """A §9 event's effect on the identities: an out or lost identity (with its cause:
        ``cause``, else the event's, else what its ``why`` implies), a red card, a
        surrender. Other kinds change nothing here."""
        player = event.player
        if player is None or player not in position.players:
            return position, Outcome()
        if event.kind is EventKind.SURRENDER:
            return self.concede(position, player, event.at)
        if event.kind not in (EventKind.OUT, EventKind.IDENTITY_LOST):
            return position, Outcome()
        if event.why is OutWhy.CARD or event.cause == Cause.CARD:
            return self.send_off(position, player, event.at)
        cause = cause or event_cause(event, self.shot_cause)
        if event.kind is EventKind.IDENTITY_LOST:
            return self.lose(position, player, cause, event.at)
        outcome = Outcome()
        while position.in_game(player):
            position, more = self.lose(position, player, cause, event.at)
            outcome = outcome + more
            if not more.deaths:
                break
        return position, outcome

    # --- winning -------------------------------------------------------------------------

    @abstractmethod
    def win(self, position: Position) -> Win | None:
        """The first faction to win at this position (§10.4), None while the game goes on."""

    def concluded(self, position: Position, lost: dict[Faction, str], wins: list[tuple[Faction, str]],
                  factions: tuple[Faction, ...]) -> Win | None:
        """§10.4's order: a faction meeting a loss condition has lost (优先判负); the first
        faction meeting a win condition that has not lost wins; else, if exactly one
        faction has not lost, it wins (场上仅有一个阵营尚未被判负)."""
        for faction in position.conceded:
            lost.setdefault(faction, f"{faction.value}投降，优先判负")
        for faction, rule in wins:
            if faction not in lost:
                return Win(faction, rule)
        standing = [f for f in factions if f not in lost]
        if len(standing) == 1 and lost:
            rules = "；".join(lost[f] for f in factions if f in lost)
            return Win(standing[0], f"{rules}（场上仅有{standing[0].value}尚未被判负）")
        return None

    def lost_skills(self, position: Position, layers: set[tuple[str, int]]) -> tuple[SkillLoss, ...]:
        return tuple(SkillLoss(p, position.sheet.hand(p)[i]) for p, i in sorted(
            layers, key=lambda pl: (position.players.index(pl[0]), pl[1])))


def event_cause(event: GameEvent, shot: str = Cause.LAST_SHOT) -> str:
    """The cause an event names, or the one its ``why`` implies (a night out says none;
    a hunter's out is ``shot``: 最后一枪, or 流弹 in S10/S09)."""
    if event.cause:
        return event.cause
    return {
        OutWhy.VOTE: Cause.VOTE, OutWhy.CARD: Cause.CARD, OutWhy.HUNTER: shot,
        OutWhy.LOVER: Cause.LOVER, OutWhy.OTHER: Cause.OTHER,
    }.get(event.why or OutWhy.OTHER, "")
