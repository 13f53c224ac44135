"""The director lengthens one phase of one night (SPEC §10.2: 导演可以延长一个阶段) — the
CLI's ``forumbot night --extend N``, the PM ``延长 夜N 女巫 30分钟`` are these calls.

Like a deadline change (``forumbot.game.daychanges``) an extension is previewed first —
every phase of that night that moves, old → new: in 双身份 the phases after it move back as
much; 14人简易's 08:00 stays unless the lengthened phase would outlast it — then kept in the
store's ``night_extensions`` (append-only) and the game's config derived again
(``forumbot.game.days.with_store_days``), so the agent, the rulings told by PM, the
proposal and ``forumbot resolve`` (with the same ``[[night.extensions]]`` in the config)
see the same phases. Only lengthening: a phase that has ended, or a night whose result the
director confirmed, is never changed (the actions were ruled and told by its times).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from engine.calendar import when_zh
from engine.night import Identity, NightPlan, PlanError
from engine.night.phases import phase_key
from forumbot.game.daychanges import parse_span, parse_when
from forumbot.game.gamelog import DIRECTOR, DirectorError
from forumbot.game.runtime import Runtime
from forumbot.game.state import current_state

__all__ = ["ExtendRequest", "ExtensionPreview", "extend_phase", "preview_extension"]


@dataclass(frozen=True)
class ExtendRequest:
    """Night ``night``'s phase ``phase`` (any word for it: 女巫, witch, 夜晚4 …) lengthened
    by ``span`` (30分钟, 1小时) or until ``until`` (as typed: 08:30, 12-03 08:30)."""

    night: int
    phase: str
    span: str | None = None
    until: str | None = None
    why: str = ""


@dataclass(frozen=True)
class ExtensionPreview:
    night: int
    phase: Identity
    name: str
    minutes: int
    before: NightPlan
    after: NightPlan

    @property
    def shifts(self) -> list[tuple[str, datetime, datetime, datetime, datetime]]:
        """Each phase that moves: (name, old start, old end, new start, new end)."""
        return [(new.name, old.start, old.end, new.start, new.end)
                for old, new in zip(self.before.phases, self.after.phases) if (old.start, old.end) != (new.start, new.end)]

    def describe_zh(self) -> str:
        end = self.after.phase(self.phase)
        assert end is not None
        return f"第{self.night}晚的{self.name}阶段延长 {self.minutes} 分钟（至 {when_zh(end.end)}）"

    def lines_zh(self) -> tuple[str, ...]:
        moved = [f"  {name}：{_span(os, oe)} → {_span(ns, ne)}" for name, os, oe, ns, ne in self.shifts]
        return (self.describe_zh() + "：", *moved,
                f"第{self.night}晚的结算建议等到 {when_zh(self.after.held_until)} 之后")

    def as_json(self) -> dict[str, Any]:
        return {"night": self.night, "phase": self.name, "minutes": self.minutes, "change": self.describe_zh(),
                "shifts": [{"phase": name, "old_start": os.isoformat(), "old_end": oe.isoformat(),
                            "new_start": ns.isoformat(), "new_end": ne.isoformat()}
                           for name, os, oe, ns, ne in self.shifts],
                "phases": [{"phase": p.name, "start": p.start.isoformat(), "end": p.end.isoformat(),
                            "extended": p.extended} for p in self.after.phases]}


def _span(start: datetime, end: datetime) -> str:
    return f"{start:%m-%d %H:%M}–{end:%m-%d %H:%M}"


_CLOCK_ONLY = re.compile(r"^\s*\d{1,2}[:：点]\d{0,2}分?\s*$")


def _until(text: str, start: datetime) -> datetime:
    """A moment as typed; a clock time alone is the first one after the night began (at
    23:00 the night before, 08:30 is tomorrow's)."""
    moment = parse_when(text, start)
    if _CLOCK_ONLY.match(text) and moment <= start:
        moment += timedelta(days=1)
    return moment


def preview_extension(rt: Runtime, request: ExtendRequest, now: datetime) -> ExtensionPreview:
    """What the extension would move (nothing is recorded). Refused, in Chinese, for a game
    without identities, a night not begun or already confirmed, a phase that has ended."""
    from forumbot.game.nightrun import active

    config = rt.config
    if not active(rt) or config.night_mode is None:
        raise DirectorError("这局没有身份表（[identities]），夜晚由导演手动录入，没有夜晚阶段可延长")
    mode, night = config.night_mode, request.night
    if night < 1:
        if mode.first_night > 0:
            raise DirectorError(f"{mode.title}从第{mode.first_night}晚开始（没有第{night}晚）")
        raise DirectorError("第零晚从发牌到第1日开始为止：要延长它，请改第1日的开始时间（从第1晚起可延长一个阶段）")
    state = current_state(config, rt.store)
    try:
        deadline = state.day(night).deadline
    except ValueError:
        raise DirectorError(f"没有第{night}日，也就没有第{night}晚（第N晚在第N日截止之后）") from None
    decided = rt.store.night_proposal(night)
    if decided is not None and decided.state == "confirmed":
        raise DirectorError(f"第{night}晚的结算已于 {decided.decided_at:%m-%d %H:%M} 确认：不能再延长它的阶段")
    if decided is not None and decided.state == "corrected":
        raise DirectorError(f"第{night}晚的结果已由导演直接录入：不能再延长它的阶段")
    try:
        key = phase_key(request.phase.strip(), mode.phase_specs)
        before = mode.plan(night, deadline, config.night_settings)
    except PlanError as exc:
        raise DirectorError(str(exc)) from None
    phase = before.phase(key)
    assert phase is not None
    if now >= phase.end:
        raise DirectorError(f"第{night}晚的{phase.name}阶段已于 {when_zh(phase.end)} 结束：已结束的阶段不能再改"
                            "（其间的行动已按原来的时间裁定并告知）")
    if (request.span is None) == (request.until is None):
        raise DirectorError("请给出一种延长法：延长多久（30分钟），或延长到什么时候（08:30）")
    if request.until is not None:
        until = _until(request.until, before.start)
        if until <= phase.end:
            raise DirectorError(f"只能延长：第{night}晚的{phase.name}阶段现在 {when_zh(phase.end)} 结束，"
                                f"{when_zh(until)} 不在它之后")
        minutes = math.ceil((until - phase.end).total_seconds() / 60)
    else:
        assert request.span is not None
        minutes = math.ceil(parse_span(request.span).total_seconds() / 60)
    after = mode.plan(night, deadline, config.night_settings.extended(night, key.value, minutes))
    return ExtensionPreview(night, key, phase.name, minutes, before, after)


def extend_phase(rt: Runtime, request: ExtendRequest, now: datetime, *, actor: str = DIRECTOR) -> ExtensionPreview:
    """Preview, then keep the extension; the agent's next pass rules and proposes by it."""
    with rt.store.write():
        shown = preview_extension(rt, request, now)
        rt.store.add_night_extension(shown.night, shown.phase.value, shown.minutes, at=now, actor=actor,
                                     why=request.why)
    return shown
