"""Where the game stands as only the identities know it, and what a step reveals.

A ``Position`` is immutable: who holds which identities, how many layers each has lost
(双身份: the first identity dies, the second becomes first), who was sent off, the
elder's mark, the once-a-game skills used, the shields given (per identity layer), the
layers whose skills are lost, conceded factions and the first win. Steps (night or day)
are functions Position → (Position, Outcome); ``Outcome`` is what the step reveals:
deaths in order, marks, skills lost, what must be announced, a triggered skill waiting.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from engine.night.identities import Faction, Identity, Skill
from engine.night.sheet import Sheet


class Cause:
    """What took an identity (SPEC §10.6 ``cause``): the seed's words."""

    KILL = "杀人"
    POISON = "毒药"
    LAST_SHOT = "最后一枪"
    VOTE = "投票"
    CARD = "红牌"
    OTHER = "其他"
    # S10 / S09
    BITE = "撕咬"
    STRAY = "流弹"  # the hunter's shot where the seed calls it 流弹
    LOVER = "殉情"
    FOOL = "若愚"  # a revealed idiot who loses 若愚 is out (若此技能已发动，则失去此技能时，白痴出局)
    LONE_BLADE = "孤刀"
    PEEK = "偷看"  # S09: the little girl caught, out instead of the kill target


# The causes that are a hunter's shot (a §9 out with why = hunter).
SHOT_CAUSES = frozenset({Cause.LAST_SHOT, Cause.STRAY})


@dataclass(frozen=True)
class Death:
    """One identity lost. ``effect`` is ``out`` when the player leaves the game with it,
    ``identity_lost`` when (双身份) a second identity remains."""

    player: str
    effect: str  # "out" | "identity_lost"
    identity: Identity
    cause: str  # a Cause value
    order: int = 0  # 1, 2, … within the night (or day step); set when collected
    at: datetime | None = None

    def to_json(self, name) -> dict:
        return {"player": self.player, "effect": self.effect, "identity": name(self.identity),
                "cause": self.cause, "order": self.order}


@dataclass(frozen=True)
class SkillLoss:
    player: str
    identity: Identity

    def to_json(self, name) -> dict:
        return {"player": self.player, "identity": name(self.identity)}


@dataclass(frozen=True)
class Trigger:
    """A triggered skill open to ``player`` from ``since`` to ``until`` (猎人 最后一枪)."""

    player: str
    skill: Skill
    since: datetime
    until: datetime
    identity: Identity
    cause: str = ""  # what set it off (S10: a hunter voted out may shoot the lone wolf into 孤刀)

    def to_json(self, skill_name) -> dict:
        return {"player": self.player, "skill": skill_name(self.skill),
                "since": self.since.isoformat(), "until": self.until.isoformat()}


@dataclass(frozen=True)
class Win:
    faction: Faction
    rule: str  # the seed's sentence that decided it
    at: datetime | None = None
    step: str = ""  # the step after which it was checked

    def to_json(self) -> dict:
        return {"faction": self.faction.value, "rule": self.rule}


@dataclass(frozen=True)
class Outcome:
    deaths: tuple[Death, ...] = ()
    marks: tuple[str, ...] = ()
    skills_lost: tuple[SkillLoss, ...] = ()
    announcements: tuple[str, ...] = ()
    triggers: tuple[Trigger, ...] = ()
    notes: tuple[str, ...] = ()  # for the director: what the step did and why (Chinese)
    # A change that can decide the game without anyone leaving it (S10: 癫狂, a faction
    # changed by 归群 or 私奔): the win is checked after the step as after a death.
    recheck: bool = False

    def __add__(self, other: Outcome) -> Outcome:
        return Outcome(
            self.deaths + other.deaths, self.marks + other.marks,
            self.skills_lost + other.skills_lost, self.announcements + other.announcements,
            self.triggers + other.triggers, self.notes + other.notes, self.recheck or other.recheck,
        )

    @property
    def changes_who_is_in(self) -> bool:
        """The step may have decided the game: someone left it, or (S10) a state the win
        conditions read changed."""
        return bool(self.deaths) or self.recheck


@dataclass(frozen=True)
class Position:
    sheet: Sheet
    lost: tuple[tuple[str, int], ...] = ()  # player → layers lost (only players with any)
    sent_off: frozenset[str] = frozenset()
    marked: frozenset[str] = frozenset()  # 长寿之命's mark
    used: frozenset[tuple[str, Skill]] = frozenset()  # once-a-game skills spent
    shielded: frozenset[tuple[str, int]] = frozenset()  # (player, layer) given 守护之盾
    disabled: frozenset[tuple[str, int]] = frozenset()  # (player, layer) without skills
    conceded: frozenset[Faction] = frozenset()  # 投降: 该阵营优先判负
    dying: frozenset[str] = frozenset()  # 濒死: only during a night's steps (双身份, S10)
    win: Win | None = None
    # S10 / S09: 金箭's pair (情侣). Empty for the rule sets without lovers.
    lovers: tuple[str, ...] = ()
    extra: tuple[tuple[str, object], ...] = field(default=())  # a later rule set's own facts

    # --- reading -------------------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return self.sheet.players

    def layers_lost(self, player: str) -> int:
        return dict(self.lost).get(player, 0)

    def in_game(self, player: str) -> bool:
        if player not in self.players or player in self.sent_off:
            return False
        return self.layers_lost(player) < len(self.sheet.hand(player))

    @property
    def living(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if self.in_game(p))

    def layer(self, player: str) -> int:
        """Index of the player's current first identity."""
        return self.layers_lost(player)

    def current(self, player: str) -> Identity | None:
        """The player's current (first) identity, None when out."""
        if not self.in_game(player):
            return None
        return self.sheet.hand(player)[self.layer(player)]

    def remaining(self, player: str) -> tuple[Identity, ...]:
        if not self.in_game(player):
            return ()
        return self.sheet.hand(player)[self.layer(player):]

    def dead_layer(self, player: str, index: int) -> bool:
        return not self.in_game(player) or index < self.layer(player)

    def has_skills(self, player: str, layer: int | None = None) -> bool:
        """The identity layer (default: the current one) still has its skills."""
        index = self.layer(player) if layer is None else layer
        return (player, index) not in self.disabled

    def holds(self, identity: Identity) -> tuple[str, ...]:
        """Players in the game whose current identity is ``identity``."""
        return tuple(p for p in self.players if self.current(p) is identity)

    # --- changing ------------------------------------------------------------------------

    def losing_layer(self, player: str) -> Position:
        counts = dict(self.lost)
        counts[player] = counts.get(player, 0) + 1
        return replace(self, lost=tuple(sorted(counts.items(), key=lambda kv: self.players.index(kv[0]))))

    def sending_off(self, player: str) -> Position:
        return replace(self, sent_off=self.sent_off | {player})

    def marking(self, player: str) -> Position:
        return replace(self, marked=self.marked | {player})

    def using(self, player: str, skill: Skill) -> Position:
        return replace(self, used=self.used | {(player, skill)})

    def shielding(self, player: str) -> Position:
        return replace(self, shielded=self.shielded | {(player, self.layer(player))})

    def disabling(self, layers: set[tuple[str, int]] | frozenset[tuple[str, int]]) -> Position:
        return replace(self, disabled=self.disabled | frozenset(layers))

    def with_dying(self, players: frozenset[str] | set[str]) -> Position:
        return replace(self, dying=frozenset(players))

    def conceding(self, faction: Faction) -> Position:
        return replace(self, conceded=self.conceded | {faction})

    def winning(self, win: Win | None) -> Position:
        if win is None or self.win is not None:
            return self
        return replace(self, win=win)

    def knowing(self, other: Position) -> Position:
        """This position with what only the night knows taken from ``other`` (marks,
        skills spent, shields given): a night whose deaths the events correct."""
        return replace(self, marked=self.marked | other.marked, used=self.used | other.used,
                       shielded=self.shielded | other.shielded)

