"""A night's phases: fixed slots from the day's deadline (SPEC §10.2).

Each rule set lays its phases out from the deadline (an aware datetime: a phase that ends
at a clock time — 14人简易's witch, 次日八点之前 — ends at that time in the deadline's own
time zone). ``NightSettings`` carries what a game config may change: a phase's length (or
clock time) and the director's extensions of one night's phase. In a rule set whose
phases follow one another (双身份: 守卫 → 先知 → 狼人 → 女巫), lengthening one moves the
later ones back by as much; a phase that ends at a clock time stays where it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta

from engine.night.identities import Identity, Skill


class PlanError(ValueError):
    """A phase setting that names no phase, or a length that is no length; names it."""


@dataclass(frozen=True)
class PhaseSpec:
    """A rule set's phase: who acts, with which skills, for how long (minutes from its
    start) or until which clock time."""

    key: Identity  # the acting identity (config key: its code or its Chinese name)
    name: str  # Chinese, as the seed calls the slot
    skills: tuple[Skill, ...]
    minutes: int | None = None
    until: time | None = None  # a clock time the next morning (14人简易 女巫: 08:00)
    follows: bool = False  # starts where the previous phase ends (双身份's slots)
    # Other identities acting in the same slot, whose names also name it (S10 夜晚3、4、5:
    # 先知, 狼人, 白狼 together).
    also: tuple[Identity, ...] = ()


@dataclass(frozen=True)
class Phase:
    key: Identity
    name: str
    skills: tuple[Skill, ...]
    start: datetime
    end: datetime
    extended: int = 0  # minutes the director added to this night's phase (negative: closed early)

    def describe(self) -> str:
        return f"{self.name} {self.start:%H:%M}–{self.end:%H:%M}" + (f"（延长 {self.extended} 分钟）"
                                                                     if self.extended > 0 else "")


@dataclass(frozen=True)
class NightSettings:
    """Per game: ``lengths`` phase → minutes, or a ``time`` for a phase that ends at a
    clock time; ``extensions`` (night, phase) → extra minutes the director gave (negative:
    closed early, 这个时间也可能根据女巫的需求提前); ``shot_minutes``: the hunter's window."""

    lengths: tuple[tuple[str, int | time], ...] = ()
    extensions: tuple[tuple[int, str, int], ...] = ()
    shot_minutes: int = 15

    def extended(self, night: int, phase: str, minutes: int) -> NightSettings:
        return replace(self, extensions=(*self.extensions, (night, phase, minutes)))


@dataclass(frozen=True)
class NightPlan:
    night: int
    start: datetime  # the day's deadline
    phases: tuple[Phase, ...] = field(default=())

    @property
    def end(self) -> datetime:
        return max((p.end for p in self.phases), default=self.start)

    @property
    def held_until(self) -> datetime | None:
        """The end of the last phase the director lengthened: the night is not proposed
        before it even when everyone has acted (the time was given to be used — an actor
        may still change its action until then). None: no phase lengthened."""
        return max((p.end for p in self.phases if p.extended > 0), default=None)

    def phase(self, key: Identity) -> Phase | None:
        for phase in self.phases:
            if phase.key is key:
                return phase
        return None

    def phase_for(self, skill: Skill) -> Phase | None:
        for phase in self.phases:
            if skill in phase.skills:
                return phase
        return None

    def describe(self) -> str:
        return f"第{self.night}晚：" + "；".join(p.describe() for p in self.phases)


def phase_key(text: str | Identity, specs: tuple[PhaseSpec, ...]) -> Identity:
    """The phase a config key names: the identity's code, the slot's name, or any word
    for the identity (狼人, 女巫, 先知/预言家…)."""
    from engine.night.identities import read_identity

    for spec in specs:
        if text == spec.key or text == spec.key.value or text == spec.name:
            return spec.key
    found = read_identity(str(text))
    for spec in specs:
        if found is not None and (spec.key is found or found in spec.also):
            return spec.key
    known = "、".join(s.name for s in specs)
    raise PlanError(f"没有“{text}”这个夜晚阶段（阶段：{known}）")


def lay_out(specs: tuple[PhaseSpec, ...], night: int, deadline: datetime,
            settings: NightSettings = NightSettings()) -> NightPlan:
    """The phases of ``night`` from ``deadline``."""
    if deadline.tzinfo is None or deadline.utcoffset() is None:
        raise PlanError("截止时间须带时区（论坛所在时区）")
    lengths: dict[Identity, int | time] = {}
    for key, value in settings.lengths:
        ident = phase_key(key, specs)
        if isinstance(value, bool) or not isinstance(value, (int, time)):
            raise PlanError(f"阶段“{key}”的时长应为分钟数或时刻，而不是 {value!r}")
        if isinstance(value, int) and value <= 0:
            raise PlanError(f"阶段“{key}”的时长应大于 0 分钟")
        lengths[ident] = value
    extra: dict[Identity, int] = {}
    for n, key, minutes in settings.extensions:
        if n == night:
            ident = phase_key(key, specs)
            extra[ident] = extra.get(ident, 0) + minutes
    phases: list[Phase] = []
    previous_end = deadline
    planned: list[datetime] = []  # each phase's end before the director's extensions
    for spec in specs:
        start = previous_end if spec.follows and phases else deadline
        length = lengths.get(spec.key, spec.until if spec.until is not None else spec.minutes)
        if isinstance(length, time):
            # 次日八点之前: the first such clock time after the phases before it have ended
            # (a deadline at 07:30 does not give the witch half an hour) — as planned: an
            # extension of the wolves does not push the witch to the following morning; it
            # only keeps her open until the wolves close when they would close after 08:00.
            latest = max([start, *planned])
            end = max([next_clock(latest, length), *(p.end for p in phases)])
        else:
            end = start + timedelta(minutes=length or 0)
        planned.append(end)
        added = extra.get(spec.key, 0)
        end = max(end + timedelta(minutes=added), start)
        phases.append(Phase(spec.key, spec.name, spec.skills, start, end, added))
        previous_end = end
    return NightPlan(night, deadline, tuple(phases))


def night_zero(spec: PhaseSpec, start: datetime, end: datetime) -> NightPlan:
    """第零晚 (S10/S09): one slot from the deal (``start``; BEFORE when the deal's time is
    not known) to day 1's start."""
    return NightPlan(0, start, (Phase(spec.key, spec.name, spec.skills, start, max(start, end)),))


def next_clock(after: datetime, clock: time) -> datetime:
    """The first moment at ``clock`` (local to ``after``'s zone) strictly after ``after``.

    Built as a wall-clock time in the zone, so a zone with summer time still ends the
    phase at 08:00 on the clock; Asia/Shanghai and a fixed +08:00 give the same."""
    tz = after.tzinfo
    local = after
    candidate = datetime.combine(local.date(), clock, tzinfo=tz)
    if candidate <= after:
        candidate = datetime.combine(local.date() + timedelta(days=1), clock, tzinfo=tz)
    return candidate
