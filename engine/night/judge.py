"""Ruling a night's actions (SPEC §10.2): which count, which stand, what is told at once.

Actions are taken in game order (``Action.sort_key``: time, then the store's order), never
in the order they were read, so a restart or a late PM gives the same rulings. Each is
checked on its own — the actor in the game and holding the skill when it was sent, sent
after the night began and before its phase ended, the target allowed — and then the
counting ones compete for the standing choices (``Mode.slots``): the last counting action
of an actor for a skill stands, the pack's one order is the last counting order of any of
its wolves, 放弃 fills all of the actor's slots, a skill answered at once (预言) stands at
its first counting use. What no longer stands is ``superseded``.

The pack's order is final at the end of its phase, or earlier when every wolf of the pack
has sent an order naming the same target (then 通灵 can be told; later orders are
``late``). The night is ready to propose (``closed_at``) at the end of its last phase, or
earlier at the moment every acting identity has acted — never before the end of a phase the
director lengthened (``NightPlan.held_until``: the time was given to be used); an actor may still change its
action until its own phase ends (救药 then 毒药: the last stands), and the proposal with it.

Phases are ruled in their order, so a choice that depends on earlier ones (双身份: 解药 only
on a 濒死 player, which depends on 守卫 and 狼人) sees them final.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from engine.night.actions import CARD_TARGET, Action, ActionReason, ActionRuling, targets_wanted
from engine.night.base import Mode
from engine.night.identities import Identity, Skill
from engine.night.phases import NightPlan, Phase
from engine.night.position import Position

from engine.night.standing import Choices, Feedback, Slot  # noqa: F401 - re-exported: judge.Feedback


@dataclass(frozen=True)
class PackOrder:
    wolf: str
    target: str | None  # None: 放弃
    at: datetime


@dataclass
class NightContext:
    """A night as ruled: the rule set, the plan, the position when it began and the
    daytime changes that land during it (a shot after the vote-out, a red card), each
    with the position right after."""

    mode: Mode
    night: int
    plan: NightPlan
    start: Position
    changes: tuple[tuple[datetime, Position], ...] = ()

    def position_at(self, at: datetime | None) -> Position:
        found = self.start
        for when, position in self.changes:
            if at is not None and when <= at:
                found = position
        return found


@dataclass(frozen=True)
class Judgement:
    night: int
    rulings: tuple[ActionRuling, ...]  # in game order
    choices: Choices
    pack_final_at: datetime | None  # None: not final yet
    closed_at: datetime | None  # when every acting identity had acted (None: not yet at ``now``)
    waiting: tuple[tuple[str, datetime], ...]  # (phase name, its end) of who has not acted
    feedback: tuple[Feedback, ...]
    pack_orders: tuple[PackOrder, ...] = ()

    @property
    def settled_at(self) -> datetime | None:
        """The moment the night's result dates from: the close, or a later change still
        inside its phase (None: not closed)."""
        if self.closed_at is None:
            return None
        counted = [r.action.at for r in self.rulings if r.counted and r.action.at is not None]
        return max([self.closed_at, *counted])

    @property
    def disagreement(self) -> bool:
        """The pack's wolves' latest orders name different targets (the director sees it)."""
        return len({o.target for o in self.pack_orders}) > 1

    def ruling(self, action: Action) -> ActionRuling | None:
        for ruling in self.rulings:
            if ruling.action == action:
                return ruling
        return None


@dataclass
class _Run:
    rulings: dict[int, ActionRuling] = field(default_factory=dict)
    standing: dict[Slot, int] = field(default_factory=dict)
    slots: dict[int, tuple[Slot, ...]] = field(default_factory=dict)
    orders: dict[str, PackOrder] = field(default_factory=dict)
    pack_final_at: datetime | None = None
    pack_final_index: int | None = None


def night_actions(actions: Iterable[Action], night: int) -> list[Action]:
    return sorted((a for a in actions if a.night == night), key=Action.sort_key)


def judge(ctx: NightContext, actions: Iterable[Action], now: datetime | None = None) -> Judgement:
    """Rule night ``ctx.night``'s actions as they stand at ``now`` (None: everything
    stored, the night over)."""
    acts = [a for a in night_actions(actions, ctx.night) if now is None or a.at <= now]
    moments = sorted({a.at for a in acts} | {p.end for p in ctx.plan.phases})
    closed_at = None
    held = ctx.plan.held_until
    for moment in moments:
        if now is not None and moment > now:
            break
        if held is not None and moment < held:
            continue  # a lengthened phase is waited for to its end (its actor may change)
        run = _rule(ctx, acts, moment)
        if not _waiting(ctx, run, acts, moment):
            closed_at = moment
            break
    run = _rule(ctx, acts, now)
    waiting = () if closed_at is not None else _waiting(ctx, run, acts, now)
    if closed_at is None and not waiting and held is not None and now is not None:
        waiting = tuple((p.name, p.end) for p in ctx.plan.phases if p.extended > 0 and now < p.end)
    return _judgement(ctx, acts, run, closed_at, waiting, now)


def _rule(ctx: NightContext, acts: list[Action], cutoff: datetime | None) -> _Run:
    mode = ctx.mode
    run = _Run()
    included = [(i, a) for i, a in enumerate(acts) if cutoff is None or a.at <= cutoff]
    order = {p.key: k for k, p in enumerate(ctx.plan.phases)}
    groups = sorted(included, key=lambda ia: (order.get(_phase_key(ctx, ia[1]), -1), ia[0]))
    for index, action in groups:
        run.rulings[index] = _rule_one(ctx, run, index, action)
    for index, ruling in list(run.rulings.items()):
        if ruling.counted and not any(run.standing.get(s) == index for s in run.slots.get(index, ())):
            later = [acts[run.standing[s]] for s in run.slots.get(index, ()) if s in run.standing]
            note = ""
            if later:
                by = later[-1]
                note = f"被{by.actor} {by.at:%H:%M} 的{mode.skill_name(by.skill)}取代"
            run.rulings[index] = ActionRuling(ruling.action, ruling.identity, False, ActionReason.SUPERSEDED, note)
    return run


def _phase_key(ctx: NightContext, action: Action) -> Identity | None:
    phase = _phase_of(ctx, ctx.position_at(action.at), action)
    return phase.key if phase is not None else None


def _phase_of(ctx: NightContext, position: Position, action: Action) -> Phase | None:
    skill = action.skill
    if skill is Skill.PASS:
        skills = ctx.mode.skills_now(position, action.actor, action.night) if action.actor in position.players else ()
        skill = skills[0] if skills else Skill.PASS
    return ctx.plan.phase_for(skill)


def _rule_one(ctx: NightContext, run: _Run, index: int, action: Action) -> ActionRuling:
    mode = ctx.mode
    position = ctx.position_at(action.at)
    actor = action.actor

    def no(reason: ActionReason, note: str = "", identity: Identity | None = None) -> ActionRuling:
        return ActionRuling(action, identity, False, reason, note)

    if actor not in position.players:
        return no(ActionReason.NO_SKILL, f"“{actor}”不是玩家")
    identity = position.current(actor)
    if identity is None:
        return no(ActionReason.ACTOR_OUT, f"{actor} 已出局", position.sheet.hand(actor)[-1])
    skills = mode.skills_now(position, actor, action.night)
    if action.skill in mode.director_skills:
        if not action.by_director:
            return no(ActionReason.NO_SKILL, f"{mode.skill_name(action.skill)}由导演录入", identity)
        held = mode.holds_skill(position, actor, action.skill, action.night)
    else:
        held = bool(skills) if action.skill is Skill.PASS else action.skill in skills
    if not held:
        return no(ActionReason.NO_SKILL, mode.no_skill_note(position, actor, action.skill, action.night), identity)
    if action.at < ctx.plan.start:
        return no(ActionReason.EARLY, f"第{ctx.night}晚 {ctx.plan.start:%m-%d %H:%M} 开始", identity)
    phase = _phase_of(ctx, position, action)
    if phase is not None and action.at >= phase.end:
        return no(ActionReason.LATE, f"{phase.name}行动 {phase.end:%m-%d %H:%M} 截止", identity)
    slots = mode.slots(position, action)
    pack_slot = ("", Skill.KILL)
    if pack_slot in slots and run.pack_final_at is not None and run.pack_final_index is not None:
        return no(ActionReason.LATE, f"狼队的指杀目标已于 {run.pack_final_at:%H:%M} 确定", identity)
    for slot in slots:
        held = run.standing.get(slot)
        if held is not None and run.rulings[held].action.skill in mode.first_stands:
            first = run.rulings[held].action
            return no(ActionReason.NO_SKILL, mode.first_stands_note(first), identity)
    problem = _target_problem(ctx, position, action, run)
    if problem is not None:
        return no(problem[0], problem[1], identity)
    run.slots[index] = slots
    for slot in slots:
        run.standing[slot] = index
    if pack_slot in slots:
        run.orders[actor] = PackOrder(actor, action.target if action.skill is Skill.KILL else None, action.at)
        pack = mode.pack(position)
        latest = [run.orders.get(w) for w in pack]
        if pack and all(o is not None for o in latest) and len({o.target for o in latest if o}) == 1:
            run.pack_final_at, run.pack_final_index = action.at, index
    return ActionRuling(action, identity, True)


def _target_problem(ctx: NightContext, position: Position, action: Action, run: _Run) -> tuple[ActionReason, str] | None:
    mode = ctx.mode
    wanted = targets_wanted(action.skill)
    choices = Choices(tuple((slot, _action_of(run, i)) for slot, i in run.standing.items()))
    if wanted == 0:
        if action.targets:
            return ActionReason.TARGET_NOT_ALLOWED, f"{mode.skill_name(action.skill)}不需要目标"
        return mode.check_target(position, action, choices)
    if len(action.targets) != wanted:
        if wanted == 1:
            return ActionReason.TARGET_NOT_ALLOWED, "需要一个目标" if not action.targets else "只能有一个目标"
        return ActionReason.TARGET_NOT_ALLOWED, f"{mode.skill_name(action.skill)}需要 {wanted} 个目标"
    if action.skill in CARD_TARGET:  # S09 偷换: a card, the rule set checks it
        return mode.check_target(position, action, choices)
    for target in action.targets:
        if target not in position.players:
            return ActionReason.TARGET_NOT_ALLOWED, f"“{target}”不是玩家"
        if not position.in_game(target):
            return ActionReason.TARGET_OUT, f"{target} 已出局"
    if len(set(action.targets)) != len(action.targets):
        return ActionReason.TARGET_NOT_ALLOWED, "两个目标须是不同的角色"
    return mode.check_target(position, action, choices)


def _action_of(run: _Run, index: int) -> Action:
    return run.rulings[index].action


def _waiting(ctx: NightContext, run: _Run, acts: list[Action], at: datetime | None) -> tuple[tuple[str, datetime], ...]:
    """Who has not acted by ``at`` while their phase is open (empty: the night is done)."""
    mode = ctx.mode
    position = ctx.position_at(at)
    waiting: list[tuple[str, datetime]] = []
    wolves = ctx.plan.phase_for(Skill.KILL)
    pack = mode.pack(position)
    if wolves is not None and pack and run.pack_final_at is None and (at is None or at < wolves.end):
        waiting.append((wolves.name, wolves.end))
    for player in position.living:
        if not mode.skills_now(position, player, ctx.night):
            continue
        probe = Action(ctx.night, player, Skill.PASS, (), at)
        slots = [s for s in mode.slots(position, probe) if s != ("", Skill.KILL)]
        if not slots or all(s in run.standing for s in slots):
            continue
        phase = _phase_of(ctx, position, probe)
        if phase is not None and (at is None or at < phase.end):
            waiting.append((phase.name, phase.end))
    if at is None:
        return ()  # everything stored is in: the night is over
    return tuple(dict.fromkeys(waiting))


def _judgement(ctx: NightContext, acts: list[Action], run: _Run, closed_at: datetime | None,
               waiting: tuple[tuple[str, datetime], ...], now: datetime | None) -> Judgement:
    mode = ctx.mode
    rulings = tuple(run.rulings[i] for i in sorted(run.rulings))
    standing = tuple((slot, acts[i]) for slot, i in run.standing.items())
    choices = Choices(standing)
    wolves = ctx.plan.phase_for(Skill.KILL)
    pack_final = run.pack_final_at
    if pack_final is None and wolves is not None and (now is None or now >= wolves.end or closed_at is not None):
        pack_final = min(wolves.end, closed_at) if closed_at is not None else wolves.end
    if pack_final is None and wolves is not None and not mode.pack(ctx.start):
        pack_final = ctx.plan.start  # no wolf can give an order: nothing to wait for
    phase_final = None  # the kill's phase is over (S10: 撕咬 is final too)
    if wolves is not None and (now is None or now >= wolves.end or closed_at is not None):
        phase_final = min(wolves.end, closed_at) if closed_at is not None else wolves.end
    feedback: list[Feedback] = []
    for ruling in rulings:
        a = ruling.action
        if ruling.counted and a.skill is Skill.DIVINE and a.target is not None:
            told = mode.divine_feedback(ctx, ctx.position_at(a.at), a)
            if told is not None:
                feedback.append(told)
    psychic_at = mode.psychic_at(ctx, pack_final, phase_final) if wolves is not None else None
    if psychic_at is not None:
        told = mode.psychic_feedback(ctx.position_at(psychic_at), choices, psychic_at)
        if told is not None:
            feedback.append(told)
    feedback.extend(mode.more_feedback(ctx, rulings, choices, now))
    # Known later than now (S10: a lover seer is answered at the night's end): not yet.
    feedback = [f for f in feedback if now is None or f.at is None or f.at <= now]
    pack = mode.pack(ctx.position_at(now if now is not None else closed_at))
    orders = tuple(run.orders[w] for w in pack if w in run.orders)
    return Judgement(ctx.night, rulings, choices, pack_final, closed_at, waiting, tuple(feedback), orders)
