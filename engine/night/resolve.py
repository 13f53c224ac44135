"""Resolving a night: the rule set's named steps in order, a win check between them.

``resolve`` rules the night's actions (``engine.night.judge``), then runs the mode's steps
from the position at the night's close. After each step that took an identity the win
is checked, and the first win stops everything after it (宣布阵营获得胜利会立即终止一切结
算). A step that sets off a triggered skill (猎人 最后一枪) is followed at once by the shot,
if one was sent in its window; an open window is listed in ``awaiting`` and the result is
not final until it is decided.

The ``NightResult`` is the proposal: deaths in order, marks, skills lost, what must be
announced, feedback, what it waits for, the win — and ``to_json()`` is §10.6's object.
``events()`` turns it, once the director confirms, into §9 events.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from engine.events import EventKind, GameEvent, OutWhy
from engine.night.actions import Action, ActionReason, ActionRuling, targets_wanted
from engine.night.base import Mode, NightFacts
from engine.night.identities import Skill
from engine.night.judge import Feedback, Judgement, NightContext, PackOrder, judge
from engine.night.position import SHOT_CAUSES, Cause, Death, Outcome, Position, SkillLoss, Trigger, Win


@dataclass(frozen=True)
class StepRecord:
    name: str
    outcome: Outcome
    win: Win | None = None


@dataclass(frozen=True)
class NightResult:
    mode: Mode
    night: int
    rulings: tuple[ActionRuling, ...]
    deaths: tuple[Death, ...]
    marks: tuple[str, ...]
    skills_lost: tuple[SkillLoss, ...]
    announcements: tuple[str, ...]
    feedback: tuple[Feedback, ...]
    awaiting: tuple[Trigger, ...]
    win: Win | None
    steps: tuple[StepRecord, ...]
    closed_at: datetime | None  # every acting identity had acted (None: not yet)
    waiting: tuple[tuple[str, datetime], ...]  # who has not acted, with their phase's end
    before: Position
    after: Position
    pack_orders: tuple[PackOrder, ...] = ()
    warnings: tuple[str, ...] = ()
    over: bool = True  # every phase has ended (at ``now``)

    @property
    def ready(self) -> bool:
        """The bot may propose it: everyone has acted (or their phases ended) and every
        triggered skill is decided. An actor may still change within its phase."""
        return self.closed_at is not None and not self.awaiting

    @property
    def final(self) -> bool:
        """Nothing more can change it: every phase has ended, every triggered skill decided."""
        return self.over and self.ready

    @property
    def disagreement(self) -> bool:
        return len({o.target for o in self.pack_orders}) > 1

    def pending(self) -> tuple[str, ...]:
        """What the proposal waits for, for the director (Chinese)."""
        lines = [f"等待{name}行动（至 {end:%m-%d %H:%M}）" for name, end in self.waiting]
        lines += [f"等待 {t.player} 发动{self.mode.skill_name(t.skill)}（至 {t.until:%m-%d %H:%M}）"
                  for t in self.awaiting]
        return tuple(lines)

    def events(self, at: datetime) -> list[GameEvent]:
        """The deaths as §9 events, taking effect at ``at`` (the next day's start), in
        order. A 最后一枪's (流弹's) death is ``why = hunter``, a 殉情 ``lover``; every other
        night death ``night``."""
        made = []
        for k, death in enumerate(self.deaths):
            why = (OutWhy.HUNTER if death.cause in SHOT_CAUSES else OutWhy.LOVER if death.cause == Cause.LOVER
                   else OutWhy.NIGHT)
            kind = EventKind.IDENTITY_LOST if death.effect == "identity_lost" or (
                self.mode.layers > 1) else EventKind.OUT
            made.append(GameEvent(kind, at, death.player, why, note=f"第{self.night}晚", seq=(k,),
                                  cause=death.cause))
        return made

    def to_json(self) -> dict:
        """SPEC §10.6's object, about this night only (keys may be added, never renamed)."""
        name, skill = self.mode.name, self.mode.skill_name
        return {
            "night": self.night,
            "ruleset": self.mode.code,
            "actions": [r.to_json(name, skill) for r in self.rulings],
            "deaths": [d.to_json(name) for d in self.deaths],
            "marks": list(self.marks),
            "skills_lost": [s.to_json(name) for s in self.skills_lost],
            "announcements": list(self.announcements),
            "feedback": [f.to_json(skill) for f in self.feedback],
            "awaiting": [t.to_json(skill) for t in self.awaiting],
            "win": self.win.to_json() if self.win else None,
            "ready": self.ready,
            "final": self.final,
            "pending": list(self.pending()),
            "steps": [{"name": s.name, "notes": list(s.outcome.notes)} for s in self.steps],
            "disagreement": self.disagreement,
            "warnings": list(self.warnings),
        }


def resolve(ctx: NightContext, actions: Iterable[Action], now: datetime | None = None) -> NightResult:
    """Night ``ctx.night`` from its stored actions, as it stands at ``now`` (None:
    everything stored is in and every window has passed)."""
    mode: Mode = ctx.mode  # type: ignore[assignment]
    # This night's actions only: a shot sent on an earlier night (a hunter's 最后一枪 before
    # he was hit) is that night's, ruled there — carried over it would be listed again
    # here, and a night resolved in memory would differ from the same night rebuilt from
    # the store after a restart (the chronicle hands each night its own actions).
    actions = [a for a in actions if a.night == ctx.night]
    judgement = judge(ctx, actions, now)
    close = judgement.settled_at or now or ctx.plan.end
    position = ctx.position_at(close)
    before = position
    rulings = {r.action: r for r in judgement.rulings}
    records: list[StepRecord] = []
    total = Outcome()
    awaiting: list[Trigger] = []
    warnings: list[str] = []
    if position.win is not None:
        warnings.append(f"游戏已结束（{position.win.faction.value}获胜），本晚不结算")
        return _result(mode, ctx, judgement, rulings, records, total, awaiting, position, before, warnings, now)
    facts = NightFacts(ctx.night, judgement.choices, close)
    for step in mode.night_steps(ctx.night):
        position, outcome = step.run(position, facts, total)
        total = total + outcome
        win = _check(mode, position, outcome, step.name)
        position = position.winning(win)
        records.append(StepRecord(step.name, outcome, win))
        if position.win is not None:
            break
        position, total = _shots(mode, ctx, actions, outcome.triggers, position, total, records, rulings,
                                 awaiting, now)
        if position.win is not None:
            break
    return _result(mode, ctx, judgement, rulings, records, total, awaiting, position, before, warnings, now)


def _check(mode: Mode, position: Position, outcome: Outcome, step: str) -> Win | None:
    if not outcome.changes_who_is_in:
        return None
    win = mode.win(position)
    if win is None:
        return None
    at = outcome.deaths[-1].at if outcome.deaths else None
    return replace(win, at=at, step=step)


def _shots(mode: Mode, ctx: NightContext, actions: list[Action], triggers: tuple[Trigger, ...],
           position: Position, total: Outcome, records: list[StepRecord],
           rulings: dict[Action, ActionRuling], awaiting: list[Trigger], now: datetime | None
           ) -> tuple[Position, Outcome]:
    for trigger in triggers:
        decided, shot_rulings = judge_shot(mode, trigger, actions, position)
        rulings.update({r.action: r for r in shot_rulings})
        if decided is None:
            # Offline (now None) every stored action is in and every window has passed.
            if now is not None and now < trigger.until:
                awaiting.append(trigger)
            continue
        name = mode.skill_name(trigger.skill)
        if decided.skill is Skill.PASS:
            records.append(StepRecord(name, Outcome(notes=(f"{trigger.player} 放弃{name}",))))
            continue
        position, outcome = mode.answer(position, trigger, decided)
        total = total + outcome
        win = _check(mode, position, outcome, name)
        position = position.winning(win)
        records.append(StepRecord(name, outcome, win))
        if position.win is not None:
            break
        position, total = _shots(mode, ctx, actions, outcome.triggers, position, total, records, rulings,
                                 awaiting, now)
    return position, total


def judge_shot(mode: Mode, trigger: Trigger, actions: Iterable[Action], position: Position
               ) -> tuple[Action | None, list[ActionRuling]]:
    """The triggered skill's actions: by the player who lost the identity, sent within
    its window (15 minutes). The first counting one is final (the bot goes on as soon
    as it has the shot); later ones do not count. ``position`` is the game right after
    the loss that set it off. (S10's 若愚 has no target; 孤刀 names another player.)"""
    mine = sorted((a for a in actions if a.actor == trigger.player and (
        a.skill is trigger.skill or (a.skill is Skill.PASS and a.at >= trigger.since))), key=Action.sort_key)
    rulings: list[ActionRuling] = []
    decided: Action | None = None
    name = mode.skill_name(trigger.skill)
    wanted = targets_wanted(trigger.skill)
    for action in mine:
        def no(reason: ActionReason, note: str) -> ActionRuling:
            return ActionRuling(action, trigger.identity, False, reason, note)

        if decided is not None:
            rulings.append(no(ActionReason.NO_SKILL, f"已于 {decided.at:%H:%M} {'放弃' if decided.skill is Skill.PASS else '发动'}{name}"))
        elif action.at < trigger.since:
            rulings.append(no(ActionReason.EARLY, f"{trigger.since:%m-%d %H:%M} 失去{mode.name(trigger.identity)}身份之前发出"))
        elif action.at > trigger.until:
            rulings.append(no(ActionReason.LATE, f"{name}须在 {trigger.until:%m-%d %H:%M} 前发动"))
        elif action.skill is Skill.PASS or (wanted == 0 and not action.targets):
            decided = action
            rulings.append(ActionRuling(action, trigger.identity, True))
        elif wanted == 0:
            rulings.append(no(ActionReason.TARGET_NOT_ALLOWED, f"{name}不需要目标"))
        elif len(action.targets) != 1:
            rulings.append(no(ActionReason.TARGET_NOT_ALLOWED, "需要一个目标"))
        elif action.skill is Skill.LONE_BLADE and action.target == trigger.player:
            rulings.append(no(ActionReason.TARGET_NOT_ALLOWED, "孤刀须选择一名其他角色"))
        elif action.target not in position.players:
            rulings.append(no(ActionReason.TARGET_NOT_ALLOWED, f"“{action.target}”不是玩家"))
        elif not position.in_game(action.target):  # type: ignore[arg-type]
            rulings.append(no(ActionReason.TARGET_OUT, f"{action.target} 已出局"))
        else:
            decided = action
            rulings.append(ActionRuling(action, trigger.identity, True))
    return decided, rulings


def _result(mode: Mode, ctx: NightContext, judgement: Judgement, rulings: dict[Action, ActionRuling],
            records: list[StepRecord], total: Outcome, awaiting: list[Trigger], position: Position,
            before: Position, warnings: list[str], now: datetime | None) -> NightResult:
    deaths = tuple(replace(d, order=k) for k, d in enumerate(total.deaths, start=1))
    ordered = tuple(sorted(rulings.values(), key=lambda r: r.action.sort_key()))
    return NightResult(
        mode=mode, night=ctx.night, rulings=ordered, deaths=deaths, marks=total.marks,
        skills_lost=total.skills_lost, announcements=tuple(dict.fromkeys(total.announcements)),
        feedback=judgement.feedback, awaiting=tuple(awaiting), win=position.win if position.win and (
            before.win is None) else None,
        steps=tuple(records), closed_at=judgement.closed_at, waiting=judgement.waiting,
        before=before, after=position, pack_orders=judgement.pack_orders, warnings=tuple(warnings),
        over=now is None or now >= ctx.plan.end,
    )
