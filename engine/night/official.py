"""What 官方规则S10 and S09 share (seeds 000_… and 001_…), the base of their modules.

One identity each; 第零晚 (night 0) from the deal to day 1's start; states 存活 / 濒死 /
出局; the lovers; the hunter's 流弹; the win check with 优先判负 and, when every faction has
lost, 平局. What differs (S10's options, 白狼, 吹笛, 长老; S09's thief and little girl) is
in ``s10`` and ``s09``.

* 情侣：2人 —— 情侣互知共群。
  【私奔】若情侣的身份属于同一个阵营，情侣仍然属于该阵营；若情侣的身份不属于同一个阵营，
  情侣均脱离其原阵营，形成〖情侣阵营〗。
  【殉情】情侣中若有一人出局，另一人立即出局。
  【遗志】若情侣中有狼人且情侣属于〖情侣阵营〗，当〖狼人阵营〗优先判负后，狼人阵营的狼人失去
  技能【杀人】，情侣获得技能【杀人】。
* 【流弹】猎人出局时，可在15分钟内决定一名存活角色出局。 (使用对象: 任一存活/濒死)
* 胜负判定 —— 未曾达到判负条件且最先达到判胜条件的阵营将获得胜利。若有且只有一个阵营未达到
  判负条件，则该阵营获得胜利。胜利阵营确定后终止一切流程结算。 平局: 所有阵营均满足判负条件。
* 游戏流程 —— 每一步执行完毕后，执行胜负判定，顺序为〖白狼阵营〗、〖吹笛阵营〗、〖情侣阵营〗、
  〖狼人阵营〗与〖村民阵营〗。

The game's own facts beyond ``Position``'s fields live in ``Position.extra`` under the
keys below (``fact`` / ``with_fact``); night 0's pair is ``Position.lovers``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import ClassVar

from engine.events import EventKind, GameEvent, OutWhy
from engine.night.actions import Action
from engine.night.base import Mode, NightFacts
from engine.night.identities import Faction, Identity, Skill
from engine.night.judge import Choices, Feedback
from engine.night.position import Cause, Death, Outcome, Position, Trigger, Win

W, V, CU, H = Identity.WOLF, Identity.VILLAGER, Identity.CUPID, Identity.HUNTER

# Position.extra keys
SHERIFF = "sheriff"  # the badge's holder (S09's win counts its two votes)
ATTACKED = "attacked"  # tonight: (player, cause) of what made each 濒死
AUTO = "auto"  # players this mode took out as a consequence (殉情, 若愚): their own event is no news
LOST = "lost"  # S10: (faction, rule) of losses met while the piper's 癫狂 held (优先判负 stays)

ORDER = (Faction.WHITE_WOLF, Faction.PIPER, Faction.LOVERS, Faction.WOLVES, Faction.VILLAGE)


def fact(position: Position, key: str, default=None):
    for k, v in position.extra:
        if k == key:
            return v
    return default


def with_fact(position: Position, key: str, value) -> Position:
    items = dict(position.extra)
    items[key] = value
    return replace(position, extra=tuple(sorted(items.items(), key=lambda kv: kv[0])))


class Official(Mode):
    layers = 1
    first_night = 0
    shot_cause = Cause.STRAY
    event_kinds = frozenset({EventKind.OUT, EventKind.IDENTITY_LOST, EventKind.SURRENDER, EventKind.IDIOT,
                             EventKind.SHERIFF})
    # S10 【金箭】爱神转变为与情侣相同阵营; S09's cupid stays where it was.
    cupid_follows: ClassVar[bool] = False

    # --- who is what -----------------------------------------------------------------------

    def identity_of(self, position: Position, player: str) -> Identity:
        """The player's identity, in the game or out (S09: after 偷换)."""
        return position.sheet.first(player)

    def base_faction(self, position: Position, player: str) -> Faction:
        return Faction.WOLVES if self.identity_of(position, player) is W else Faction.VILLAGE

    def lovers_faction(self, position: Position) -> Faction | None:
        """【私奔】 the pair's faction (None: no lovers)."""
        if len(position.lovers) != 2:
            return None
        a, b = (self.base_faction(position, p) for p in position.lovers)
        return a if a is b else Faction.LOVERS

    def faction_at(self, position: Position, player: str) -> Faction:
        lovers = self.lovers_faction(position)
        if lovers is not None and player in position.lovers:
            return lovers
        if lovers is not None and self.cupid_follows and self.identity_of(position, player) is CU:
            return lovers
        return self.base_faction(position, player)

    def members(self, position: Position, faction: Faction) -> tuple[str, ...]:
        """Every player of ``faction``, in the game or out."""
        return tuple(p for p in position.players if self.faction_at(position, p) is faction)

    def factions(self, position: Position) -> tuple[Faction, ...]:
        """The factions in this game, in the win check's order (不存在 ones left out)."""
        return tuple(f for f in ORDER if self.members(position, f))

    def partner(self, position: Position, player: str) -> str | None:
        if player in position.lovers and len(position.lovers) == 2:
            a, b = position.lovers
            return b if player == a else a
        return None

    def mad(self, position: Position) -> frozenset[str]:
        """癫狂 players (S10's piper; none in S09)."""
        return frozenset()

    # --- the pack ------------------------------------------------------------------------

    def pack(self, position: Position) -> tuple[str, ...]:
        if self.will(position):
            return tuple(p for p in position.lovers if position.in_game(p))
        return self.wolves_pack(position)

    def wolves_pack(self, position: Position) -> tuple[str, ...]:
        return position.holds(W)

    def pack_at_deal(self, sheet) -> tuple[str, ...]:
        return sheet.holders(W)  # 所有存活状态的狼人可以共同选择 / 活狼共群

    def will(self, position: Position) -> bool:
        """【遗志】 in force: a wolf among lovers of 〖情侣阵营〗, and 〖狼人阵营〗 has lost."""
        if self.lovers_faction(position) is not Faction.LOVERS:
            return False
        if not any(self.identity_of(position, p) is W for p in position.lovers):
            return False
        return Faction.WOLVES in self.losses(position)

    # --- skills ------------------------------------------------------------------------

    def skills_now(self, position: Position, player: str, night: int | None = None) -> tuple[Skill, ...]:
        if not position.in_game(player):
            return ()
        found = list(self.own_skills(position, player, night))
        if (night is None or night >= 1) and player in self.pack(position):
            found.insert(0, Skill.KILL)
        return tuple(dict.fromkeys(found))

    def own_skills(self, position: Position, player: str, night: int | None) -> tuple[Skill, ...]:
        """The identity's own skills tonight (the pack's 杀人 is added by ``skills_now``)."""
        return ()

    def no_skill_note(self, position: Position, player: str, skill: Skill, night: int | None = None) -> str:
        identity = position.current(player)
        if identity is None:
            return ""
        if skill is Skill.KILL and identity is W and self.will(position):
            return "狼人阵营已判负，【遗志】：狼人失去杀人，由情侣杀人"
        if night == 0 and skill is not Skill.PASS and skill not in self.night_zero_skills():
            return f"第零晚只能使用{'、'.join(self.skill_name(s) for s in self.night_zero_skills())}"
        if night is not None and night >= 1 and skill in self.night_zero_skills():
            return f"{self.skill_name(skill)}只能在第零晚使用"
        return super().no_skill_note(position, player, skill, night)

    def night_zero_skills(self) -> tuple[Skill, ...]:
        return self.night_zero.skills if self.night_zero is not None else ()

    def first_stands_note(self, first: Action) -> str:
        if first.skill is Skill.ARROW:
            return f"已指定情侣（{'、'.join(first.targets)}）"
        return super().first_stands_note(first)

    # --- feedback ----------------------------------------------------------------------

    def divine_feedback(self, ctx, position: Position, action: Action):
        """预言 at once — 如果先知为情侣之一，则在此时（判定濒死状态的角色出局）而非夜晚3给出反馈:
        a lover seer is answered when the night's outs are settled (after the hunter's
        15 minutes)."""
        told = super().divine_feedback(ctx, position, action)
        if action.actor in position.lovers:
            later = ctx.plan.end + timedelta(minutes=self.shot_minutes)
            told = replace(told, at=max(later, told.at))
        return told

    def more_feedback(self, ctx, rulings, choices: Choices, now: datetime | None) -> tuple:
        if ctx.night != 0:
            return ()
        found: list[Feedback] = []
        arrow = choices.action(Skill.ARROW)
        if arrow is not None and len(arrow.targets) == 2:
            a, b = arrow.targets
            for lover, other in ((a, b), (b, a)):
                found.append(Feedback(lover, Skill.ARROW, "情侣", other, arrow.at,
                                      label=f"你与 {other} 成为情侣（互知共群）"))
        return tuple(found)

    # --- losing: 出局 and what it sets off ---------------------------------------------------

    def lose(self, position: Position, player: str, cause: str, at: datetime | None) -> tuple[Position, Outcome]:
        return self.out(position, player, cause, at)

    def out(self, position: Position, player: str, cause: str, at: datetime | None,
            by: str | None = None, origin: tuple[str, str | None] | None = None) -> tuple[Position, Outcome]:
        """``player`` 出局 by ``cause`` (``by``: whose skill; ``origin``: the cause and actor a
        殉情 goes back to), with everything it sets off."""
        if not position.in_game(player):
            return position, Outcome(notes=(f"{player} 已出局，{cause}无效",))
        identity = position.current(player)
        assert identity is not None
        had_skills = position.has_skills(player)
        before = position
        new = position.losing_layer(player)
        new = new.with_dying(new.dying - {player})
        outcome = Outcome(deaths=(Death(player, "out", identity, cause, at=at),))
        new, more = self.after_out(before, new, player, identity, cause, at, had_skills, by, origin or (cause, by))
        return new, outcome + more

    def after_out(self, before: Position, position: Position, player: str, identity: Identity, cause: str,
                  at: datetime | None, had_skills: bool, by: str | None, origin: tuple[str, str | None]
                  ) -> tuple[Position, Outcome]:
        outcome = Outcome()
        if identity is H and had_skills and cause != Cause.CARD and at is not None:
            until = at + timedelta(minutes=self.shot_minutes)
            outcome = outcome + Outcome(
                triggers=(Trigger(player, Skill.LAST_SHOT, at, until, identity, cause),),
                notes=(f"{player}（猎人）出局，可在 {self.shot_minutes} 分钟内发动流弹",))
        position, more = self.follow(position, player, at, origin)
        return position, outcome + more

    def follow(self, position: Position, player: str, at: datetime | None, origin: tuple[str, str | None]
               ) -> tuple[Position, Outcome]:
        """【殉情】情侣中若有一人出局，另一人立即出局。"""
        other = self.partner(position, player)
        if other is None or not position.in_game(other):
            return position, Outcome()
        position = with_fact(position, AUTO, fact(position, AUTO, frozenset()) | {other})
        position, outcome = self.out(position, other, Cause.LOVER, at, None, origin)
        return position, Outcome(notes=(f"{other} 殉情",)) + outcome

    def send_off(self, position: Position, player: str, at: datetime | None) -> tuple[Position, Outcome]:
        """A red card: out, no 流弹 (罚下不能发动技能) — but the pair goes together (殉情)."""
        position, outcome = super().send_off(position, player, at)
        if not outcome.deaths:
            return position, outcome
        position, more = self.follow(position, player, at, (Cause.CARD, None))
        return position, outcome + more

    # --- day steps ---------------------------------------------------------------------

    def vote_out(self, position: Position, player: str, at: datetime | None) -> tuple[Position, Outcome]:
        return self.out(position, player, Cause.VOTE, at)

    def concede(self, position: Position, player: str, at):
        faction = self.faction_at(position, player)
        return position.conceding(faction), Outcome(announcements=(f"{faction.value}投降",))

    def apply_event(self, position: Position, event: GameEvent, cause: str | None = None):
        player = event.player
        if event.kind is EventKind.SHERIFF:
            return with_fact(position, SHERIFF, player), Outcome()
        if player is None or player not in position.players:
            return position, Outcome()
        if event.kind in (EventKind.OUT, EventKind.IDENTITY_LOST) and not position.in_game(player) \
                and player in fact(position, AUTO, frozenset()):
            # 殉情 (or a revealed idiot losing 若愚) was applied with what set it off; the
            # director's own event for it is the same news.
            return position, Outcome()
        if event.kind in (EventKind.OUT, EventKind.IDENTITY_LOST) and event.why is OutWhy.VOTE \
                and event.cause in ("", Cause.VOTE) and not cause:
            return self.vote_out(position, player, event.at)
        return super().apply_event(position, event, cause)

    def answer(self, position: Position, trigger: Trigger, action: Action) -> tuple[Position, Outcome]:
        if trigger.skill is Skill.LAST_SHOT:
            return self.out(position, action.target, Cause.STRAY, trigger.since, trigger.player)  # type: ignore[arg-type]
        return super().answer(position, trigger, action)

    # Facts the day's events (not the night's actions) decide: where a night's deaths are
    # corrected by the events, these come from the events' replay, not the night's.
    event_facts: ClassVar[frozenset[str]] = frozenset({LOST, SHERIFF, AUTO})

    def knowing(self, before: Position, after: Position) -> Position:
        position = before.knowing(after)
        keep = self.event_facts
        items = dict(after.extra)
        for key in keep:
            items.pop(key, None)
        for key, value in before.extra:
            if key in keep:
                items[key] = value
        return replace(position, lovers=after.lovers, extra=tuple(sorted(items.items(), key=lambda kv: kv[0])))

    # --- night steps shared --------------------------------------------------------------

    def _arrow(self, position: Position, facts: NightFacts, so_far: Outcome):
        """【金箭】第零日夜晚，爱神须指定两名角色成为情侣 → 私奔's faction."""
        arrow = facts.choices.action(Skill.ARROW)
        if arrow is None or len(arrow.targets) != 2:
            cupids = [p for p in position.players if self.identity_of(position, p) is CU]
            return position, Outcome(notes=("爱神未指定情侣：本局没有情侣",) if cupids else ())
        pair = tuple(p for p in position.players if p in arrow.targets)
        position = replace(position, lovers=pair)
        faction = self.lovers_faction(position)
        return position, Outcome(notes=(f"{'、'.join(pair)} 成为情侣（{faction.value if faction else ''}）",),
                                 recheck=True)

    def _dying_out(self, position: Position, player: str, facts: NightFacts) -> tuple[Position, Outcome]:
        causes = dict(fact(position, ATTACKED, ()))
        return self.out(position, player, causes.get(player, Cause.KILL), facts.at)

    def _hunter_step(self, position: Position, facts: NightFacts, so_far: Outcome):
        """判定猎人是否出局，并等待可能的猎人行动 — a 濒死 hunter goes out here, before the
        others (判定濒死状态的角色出局 is the step after)."""
        outcome = Outcome()
        for player in [p for p in position.players if p in position.dying and position.current(p) is H]:
            position, more = self._dying_out(position, player, facts)
            outcome = outcome + more
        return position, outcome

    # --- winning -------------------------------------------------------------------------

    def losses(self, position: Position) -> dict[Faction, str]:
        """The loss conditions met now, by faction (only factions in the game)."""
        return {}

    def wins(self, position: Position) -> list[tuple[Faction, str]]:
        return []

    def win(self, position: Position) -> Win | None:
        factions = self.factions(position)
        lost = {f: r for f, r in self.losses(position).items() if f in factions}
        for faction in position.conceded:
            lost.setdefault(faction, f"{faction.value}投降，优先判负")
        for faction, rule in self.wins(position):
            if faction in factions and faction not in lost:
                return Win(faction, rule)
        standing = [f for f in factions if f not in lost]
        rules = "；".join(lost[f] for f in factions if f in lost)
        if len(standing) == 1 and lost:
            return Win(standing[0], f"{rules}（场上仅有{standing[0].value}尚未被判负）")
        if not standing and lost:
            return Win(Faction.DRAW, f"所有阵营均满足判负条件（{rules}）")
        return None

    def lovers_lost(self, position: Position) -> str | None:
        """〖情侣阵营〗负：情侣出局。"""
        if self.lovers_faction(position) is Faction.LOVERS and any(not position.in_game(p) for p in position.lovers):
            return "情侣出局"
        return None

    def _not_in(self, players, position: Position, mad: frozenset[str] = frozenset()) -> bool:
        return all(not position.in_game(p) or p in mad for p in players)

