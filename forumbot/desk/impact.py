"""What a change will do, as the confirm page shows it (``forumbot.game.gamelog.Impact``).

The library's ``Impact.lines()`` is written for the terminal (it names ``forumbot
redraft``); the desk shows the same facts from the structure: per day the result and
counts before and after and each ruling that changes, the drafts it redrafts, the
published posts it makes wrong (with where to fix them on the desk).

A ``fingerprint`` of the effect travels with the confirm form: if the game changed
between the preview and the confirmation so that the effect differs (another result,
other drafts), the change is not applied and the new effect is shown to confirm again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from forumbot.wording import clean, kind_zh
from forumbot.game.gamelog import DayImpact, DraftImpact, Impact


@dataclass(frozen=True)
class DayView:
    day: int
    result_before: str
    result_after: str
    result_changed: bool
    counts: list[tuple[str, int | None, int | None]]  # (target, before, after), only changed rows
    non_voters_before: str | None  # None: unchanged
    non_voters_after: str | None
    rulings: list[tuple[str, str, str, str]]  # (where, voter, before, after)


@dataclass(frozen=True)
class DraftView:
    id: int
    text: str
    published: bool
    day: int | None
    final: bool  # a final count (the desk can draft its correction)


@dataclass(frozen=True)
class ImpactView:
    summary: str
    warnings: list[str] = field(default_factory=list)
    days: list[DayView] = field(default_factory=list)
    drafts: list[DraftView] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    badge: str | None = None
    notes: list[str] = field(default_factory=list)  # what the desk adds (a notice draft…)
    fingerprint: str = ""

    @property
    def changes_nothing(self) -> bool:
        return not (self.days or self.drafts or self.effects or self.badge)

    @property
    def stale_published(self) -> list[DraftView]:
        return [d for d in self.drafts if d.published]


def _day(change: DayImpact) -> DayView:
    targets = list(dict.fromkeys([*change.counts_before, *change.counts_after]))
    counts = [(t, change.counts_before.get(t), change.counts_after.get(t)) for t in targets
              if change.counts_before.get(t) != change.counts_after.get(t)]
    nv_changed = change.non_voters_before != change.non_voters_after
    return DayView(
        day=change.day,
        result_before=clean(change.result_before) or "（无结果）",
        result_after=clean(change.result_after) or "（无结果）",
        result_changed=change.result_before != change.result_after,
        counts=counts,
        non_voters_before=("、".join(change.non_voters_before) or "无") if nv_changed else None,
        non_voters_after=("、".join(change.non_voters_after) or "无") if nv_changed else None,
        rulings=[(f"{r.floor}楼" if r.floor else f"pid {r.pid}", r.voter, clean(r.before), clean(r.after))
                 for r in change.rulings],
    )


def _draft(d: DraftImpact) -> DraftView:
    draft = d.draft
    what = kind_zh(draft.kind) + (f"（第{draft.day}日）" if draft.day else "")
    final = draft.kind.value == "final_count"
    if d.published:
        where = f"pid {draft.pid}" if draft.pid else "论坛审核中"
        fix = "；可在「待发帖子」页起草更正的最终计票" if final else "；请决定是否另发更正"
        text = f"已发布的{what} #{draft.id}（{where}）将不再正确：机器人不会改动已发布的帖子{fix}"
    else:
        text = f"待发的{what} #{draft.id} 已过时：确认后作废并重新起草，等你审批"
    return DraftView(draft.id, text, d.published, draft.day, final)


def fingerprint(impact: Impact) -> str:
    """What the director confirms: the summary, warnings, each day's result, the drafts
    affected, the events' effects and the badge — not the raw counts, which move with
    every vote the agent reads meanwhile."""
    parts = [impact.summary, *impact.warnings]
    parts += [f"{d.day}:{d.result_before}->{d.result_after}" for d in impact.days]
    parts += [f"draft{d.draft.id}:{int(d.published)}" for d in impact.drafts]
    parts += list(impact.effects) + [impact.badge or ""]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:16]


def view(impact: Impact, *, notes: list[str] | None = None) -> ImpactView:
    return ImpactView(
        summary=clean(impact.summary),
        warnings=[clean(w) for w in impact.warnings],
        days=[_day(d) for d in impact.days],
        drafts=[_draft(d) for d in impact.drafts],
        effects=[clean(e) for e in impact.effects],
        badge=clean(impact.badge) if impact.badge else None,
        notes=list(notes or []),
        fingerprint=fingerprint(impact),
    )
