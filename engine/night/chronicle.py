"""The game across nights and days: everything only the nights know, rebuilt from the
stored actions and the §9 events (SPEC §10.6).

``Chronicle`` replays the game in game order: the events of each day (a vote-out, a red
card, a hunter's shot, a surrender — each through the rule set, so an elder voted out
costs the witch and the seer their skills), then each night resolved from its actions.
Where a replayed night's deaths differ from the events recorded for it, the events stand
(the director's word is final) and the difference is a warning; what only the night knows
— marks, potions spent, shields given — is kept from the actions either way.

Which events are a night's: outs and lost identities after night N began (day N's
deadline) up to the moment day N+1 starts, whose ``why`` is ``night`` or that take effect
exactly at day N+1's start (night outs take effect then, §9; a night's 最后一枪 too).
Others in between (a shot after the vote-out, a red card) are daytime changes at their own
time: an action sent after them is ruled on the game as they left it.

Nothing here is stored between calls: build a ``Chronicle`` from what the store holds,
ask, throw it away — a restart gives the same answers.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime

from engine.events import BEFORE, EventKind, GameEvent, OutWhy, ordered
from engine.night.actions import Action, ActionRuling
from engine.night.base import Mode
from engine.night.identities import Identity, Skill
from engine.night.judge import Judgement, NightContext, judge
from engine.night.phases import NightSettings
from engine.night.position import Cause, Outcome, Position, Trigger, Win
from engine.night.resolve import NightResult, judge_shot, resolve
from engine.night.sheet import Sheet
from engine.state import GameState

_DEATHS = (EventKind.OUT, EventKind.IDENTITY_LOST)


class ChronicleError(ValueError):
    """A question the game cannot answer (a night with no deadline); Chinese."""


@dataclass(frozen=True)
class DayStep:
    """One daytime change through the rule set (a §9 event), with what it set off."""

    event: GameEvent
    outcome: Outcome
    win: Win | None = None
    # The game right after it (a triggered skill is ruled on it: 孤刀's target is still in
    # even when its own out was entered at the same moment).
    after: Position | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class DayReport:
    """Day ``day``: its changes in order, what they set off, the shots they opened (and
    any shot sent but not yet entered as an event), the win."""

    day: int
    steps: tuple[DayStep, ...]
    triggers: tuple[Trigger, ...]
    shot_rulings: tuple[ActionRuling, ...]
    proposed_shots: tuple[tuple[Trigger, Action, Outcome], ...]  # counted, not yet an event
    awaiting: tuple[Trigger, ...]  # open, no shot yet
    win: Win | None

    @property
    def skills_lost(self):
        return tuple(s for step in self.steps for s in step.outcome.skills_lost)

    @property
    def announcements(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a for step in self.steps for a in step.outcome.announcements))


@dataclass
class _Night:
    ctx: NightContext
    actions: list[Action]
    events: list[GameEvent] = field(default_factory=list)  # its own deaths, as recorded
    result: NightResult | None = None
    after: Position | None = None
    warnings: list[str] = field(default_factory=list)


class Chronicle:
    def __init__(self, mode: Mode, sheet: Sheet, state: GameState, actions: Iterable[Action] = (),
                 settings: NightSettings = NightSettings()) -> None:
        if tuple(sheet.players) != tuple(state.players):
            raise ChronicleError("身份表的玩家与游戏的玩家（座位顺序）不一致")
        if sheet.ruleset != mode.code or state.identities != mode.layers:
            raise ChronicleError(f"身份表或游戏不是{mode.title}的（每人 {mode.layers} 个身份）")
        self.mode = mode
        self.sheet = sheet
        self.state = state
        self.actions = sorted(actions, key=Action.sort_key)
        self.settings = settings
        self.nights: dict[int, _Night] = {}
        self.days: dict[int, DayReport] = {}
        self.warnings: list[tuple[datetime, str]] = []  # (when, what), in game order
        self._times: list[datetime] = []
        self._positions: list[Position] = []
        self._replay()

    # --- questions -----------------------------------------------------------------------

    def position(self, at: datetime | None = None) -> Position:
        """The identities' game after everything at or before ``at`` (None: all)."""
        if at is None:
            return self._positions[-1]
        index = bisect_right(self._times, at)
        return self._positions[index - 1] if index else self._positions[0]

    @property
    def win(self) -> Win | None:
        return self.position().win

    def win_at(self, at: datetime) -> Win | None:
        """The win as it stood at ``at`` (the tally's ``win`` after a day's result)."""
        return self.position(at).win

    def night(self, number: int) -> NightContext:
        return self._record(number).ctx

    def _record(self, number: int) -> _Night:
        if number not in self.nights:
            known = "、".join(str(n) for n in sorted(self.nights)) or "无"
            raise ChronicleError(f"没有第{number}晚（需要第{number}日的截止时间；已知：{known}）")
        return self.nights[number]

    def judge(self, number: int, now: datetime | None = None) -> Judgement:
        """Night ``number``'s actions ruled as they stand at ``now``: the answer to each
        sender, the feedback known by then, the pack's orders, who has not acted."""
        record = self._record(number)
        return judge(record.ctx, record.actions, now)

    def resolve(self, number: int, now: datetime | None = None) -> NightResult:
        """Night ``number``'s proposal at ``now`` (None: every stored action is in),
        with the warnings of the replay before it."""
        record = self._record(number)
        result = resolve(record.ctx, record.actions, now)
        earlier = [w for when, w in self.warnings if when <= record.ctx.plan.start]
        return replace(result, warnings=(*earlier, *result.warnings))

    def day(self, number: int, now: datetime | None = None) -> DayReport:
        """Day ``number``'s changes through the rule set. ``now``: which shot windows are
        still open (None: every stored shot is in, every window has passed)."""
        report = self.days.get(number)
        if report is None:
            raise ChronicleError(f"没有第{number}日")
        awaiting = tuple(t for t in report.awaiting if now is not None and now < t.until)
        return DayReport(report.day, report.steps, report.triggers, report.shot_rulings,
                         report.proposed_shots, awaiting, report.win)

    def after(self, event: GameEvent) -> DayStep:
        """What entering ``event`` would do, on the game as it stands at its moment: the
        director's preview of a vote-out, a red card, a shot, a surrender."""
        position = self.position(event.when)
        new, outcome = self.mode.apply_event(position, event)
        win = self.mode.win(new) if outcome.changes_who_is_in or event.kind is EventKind.SURRENDER else None
        return DayStep(event, outcome, win if position.win is None else None)

    # --- replay --------------------------------------------------------------------------

    def _replay(self) -> None:
        mode, state = self.mode, self.state
        position = mode.start(self.sheet)
        self._mark(BEFORE, position)
        windows = sorted(state.days, key=lambda d: d.number)
        deadline = {d.number: d.deadline for d in windows}
        start = {d.number: d.start for d in windows}
        nights = [n for n in sorted(deadline) if n >= max(mode.first_night, 1)]
        events = [e for e in ordered(state.events) if e.kind in mode.event_kinds]
        own: dict[int, list[GameEvent]] = {n: [] for n in nights}
        during: dict[int, list[GameEvent]] = {n: [] for n in nights}
        daytime: list[GameEvent] = []
        for event in events:
            night = _night_of(event, nights, deadline, start)
            if night is None:
                daytime.append(event)
            elif event.kind in _DEATHS and (event.why is OutWhy.NIGHT or start.get(night + 1) == event.at):
                own[night].append(event)
            else:
                during[night].append(event)
        day_triggers: list[Trigger] = []
        pending = list(daytime)
        day_steps: dict[int, list[DayStep]] = {}
        if mode.first_night == 0 and 1 in start:
            # 第零晚: from the deal to day 1's start; what happened before the game first.
            while pending and pending[0].when < start[1]:
                event = pending.pop(0)
                position = self._day_event(position, event, None, day_steps, day_triggers, self._checks(event, pending))
            plan = mode.plan_zero(start[1], self.settings)
            record = _Night(NightContext(mode, 0, plan, position), [a for a in self.actions if a.night == 0])
            self.nights[0] = record
            if record.actions:
                position = self._settle(record, 0, start[1])
            self._mark(start[1], position)
        for night in nights:
            # The day's changes up to its deadline (the vote-out is at the deadline).
            while pending and pending[0].when <= deadline[night]:
                event = pending.pop(0)
                position = self._day_event(position, event, _day_of(event, windows), day_steps, day_triggers,
                                           self._checks(event, pending))
            self._mark(deadline[night], position)
            # Daytime changes landing during the night, each with the position after it.
            night_start = position
            changes = []
            for k, event in enumerate(during[night]):
                position = self._day_event(position, event, night, day_steps, day_triggers,
                                           self._checks(event, during[night][k + 1:]))
                changes.append((event.when, position))
            plan = mode.plan(night, deadline[night], self.settings)
            ctx = NightContext(mode, night, plan, night_start, tuple(changes))
            mine = [a for a in self.actions if a.night == night and not _answers(a, day_triggers)]
            record = _Night(ctx, mine, own[night])
            self.nights[night] = record
            if mine or own[night]:
                position = self._settle(record, night, start.get(night + 1))
            effect = start.get(night + 1) or plan.end
            self._mark(effect, position)
        while pending:
            event = pending.pop(0)
            position = self._day_event(position, event, _day_of(event, windows), day_steps, day_triggers,
                                       self._checks(event, pending))
        self._days(windows, day_steps, day_triggers)

    def _checks(self, event: GameEvent, following: list[GameEvent]) -> bool:
        """The win is checked after ``event`` unless it and the next event leave the game
        together (S10 孤刀: 该角色与之共同出局), in whichever order they were entered."""
        if not following or following[0].when != event.when:
            return True
        return not (self.mode.together(following[0]) or self.mode.together(event))

    def _mark(self, when: datetime, position: Position) -> None:
        if self._times and when < self._times[-1]:
            when = self._times[-1]
        self._times.append(when)
        self._positions.append(position)

    def _day_event(self, position: Position, event: GameEvent, day: int | None,
                   day_steps: dict[int, list[DayStep]], triggers: list[Trigger], check: bool = True) -> Position:
        before = position
        position, outcome = self.mode.apply_event(position, event)
        win = None
        if check and before.win is None and (outcome.changes_who_is_in or event.kind is EventKind.SURRENDER):
            win = self.mode.win(position)
            position = position.winning(win)
        if outcome.notes and not outcome.deaths and event.kind in _DEATHS:
            self.warnings.append((event.when, f"{event.describe()}：{'；'.join(outcome.notes)}"))
        triggers.extend(outcome.triggers)
        day_steps.setdefault(day or 0, []).append(DayStep(event, outcome, win, position))
        self._mark(event.when, position)
        return position

    def _settle(self, record: _Night, night: int, next_start: datetime | None) -> Position:
        """The night's result where the events agree with it, else the events with what
        only the night knows."""
        result = resolve(record.ctx, record.actions, None)
        record.result = result
        before = result.before
        expected = before
        for event in record.events:
            expected, _ = self.mode.apply_event(expected, event, Cause.OTHER)
        when = next_start or record.ctx.plan.end
        if _same_deaths(before, result.after, expected):
            record.after = result.after
            return result.after
        lines = _differences(self.mode, night, before, result.after, expected)
        if not record.actions:
            lines = [f"第{night}晚没有记录任何行动：以事件为准"]
        for line in lines:
            record.warnings.append(line)
            self.warnings.append((when, line))
        position = self.mode.knowing(before, result.after)
        causes: dict[str, list[str]] = {}
        for death in result.deaths:
            causes.setdefault(death.player, []).append(death.cause)
        for event in record.events:
            # The cause the director wrote, else the one the actions give for this
            # player's death, else (a night out) 杀人 — said aloud where it matters.
            cause = event.cause
            if not cause and causes.get(event.player or ""):
                cause = causes[event.player or ""].pop(0)
            if not cause:
                cause = Cause.KILL if event.why is OutWhy.NIGHT else ""
                lost = position.current(event.player) if event.player in position.players else None
                if lost is Identity.ELDER:
                    line = (f"第{night}晚：{event.player} 的出局未注明原因（cause），按杀人处理（不失去技能）；"
                            f"如为毒药请注明")
                    record.warnings.append(line)
                    self.warnings.append((when, line))
            before_win = position.win
            position, outcome = self.mode.apply_event(position, event, cause)
            if before_win is None and outcome.changes_who_is_in:
                position = position.winning(self.mode.win(position))
        record.after = position
        return position

    def _days(self, windows, day_steps: dict[int, list[DayStep]], triggers: list[Trigger]) -> None:
        for window in windows:
            steps = tuple(day_steps.get(window.number, ()))
            opened = tuple(t for s in steps for t in s.outcome.triggers)
            after = {id(t): s.after for s in steps for t in s.outcome.triggers}
            rulings: list[ActionRuling] = []
            proposed = []
            awaiting = []
            for trigger in opened:
                # Entered already: an out by the hunter within the window (it takes
                # effect at its own time, §9).
                shot_done = any(
                    s.event.kind in _DEATHS and self.mode.answered_by(trigger, s.event)
                    and trigger.since <= s.event.when <= trigger.until
                    for d in day_steps.values() for s in d)
                position = after.get(id(trigger)) or self.position(trigger.since)
                decided, mine = judge_shot(self.mode, trigger, self.actions, position)
                rulings.extend(mine)
                if shot_done:
                    continue
                if decided is None:
                    awaiting.append(trigger)
                elif decided.skill is not Skill.PASS:
                    _, outcome = self.mode.answer(position, trigger, decided)
                    proposed.append((trigger, decided, outcome))
            win = None
            for step in steps:
                win = win or step.win
            self.days[window.number] = DayReport(window.number, steps, opened, tuple(rulings), tuple(proposed),
                                                 tuple(awaiting), win)


def _night_of(event: GameEvent, nights: list[int], deadline: dict[int, datetime],
              start: dict[int, datetime]) -> int | None:
    """The night an event falls in (after its deadline, up to the next day's start)."""
    if event.at is None:
        return None
    found = None
    for night in nights:
        if deadline[night] < event.at:
            found = night
    if found is None:
        return None
    following = start.get(found + 1)
    if following is not None and event.at > following:
        return None
    return found


def _day_of(event: GameEvent, windows) -> int | None:
    for window in windows:
        if event.at is not None and window.start <= event.at <= window.deadline:
            return window.number
    return None


def _answers(action: Action, triggers: list[Trigger]) -> bool:
    """A 最后一枪 (流弹, 若愚, 孤刀) or 放弃 that answers a daytime trigger, not a night's action.
    若愚 answers only a vote-out: never a night's action, even once its 若愚 is entered (the
    trigger is gone then — listed with the night, it would read 没有这个技能)."""
    if action.skill is Skill.FOOL:
        return True
    for trigger in triggers:
        if action.actor != trigger.player:
            continue
        if action.skill is trigger.skill:
            return True
        if action.skill is Skill.PASS and trigger.since <= action.at <= trigger.until:
            return True
    return False


def _lost_by(before: Position, after: Position) -> dict[str, tuple[int, bool]]:
    return {p: (after.layers_lost(p) - before.layers_lost(p), after.in_game(p)) for p in before.players}


def _same_deaths(before: Position, resolved: Position, recorded: Position) -> bool:
    return _lost_by(before, resolved) == _lost_by(before, recorded)


def _differences(mode: Mode, night: int, before: Position, resolved: Position, recorded: Position) -> list[str]:
    a, b = _lost_by(before, resolved), _lost_by(before, recorded)
    lines = []
    for player in before.players:
        if a[player] != b[player]:
            lines.append(f"第{night}晚：按行动结算 {player} {_said(mode, a[player])}，"
                         f"事件记录为{_said(mode, b[player])} —— 以事件为准")
    return lines


def _said(mode: Mode, lost: tuple[int, bool]) -> str:
    layers, still_in = lost
    if layers == 0 and still_in:
        return "未出局"
    if not still_in:
        return "出局"
    return f"失去 {layers} 层身份"
