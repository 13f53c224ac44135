"""The director moves a deadline, lengthens a day, closes it early, or has its voting
thread opened again (SPEC §11) — the CLI's ``forumbot deadline`` / ``reopen``, the desk's
form and the PM commands 截止 / 延长 / 重开 are these calls.

A change is previewed first (what moves: the day's deadline and change freeze, the days
after it), then recorded in the store's ``day_changes`` and the days laid out again; the
agent's next pass follows it (reminders for the new moments, the closing post at the new
deadline). A change that cannot be made says why, in Chinese (``DirectorError``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from engine.calendar import CalendarError, Change, CloseEarly, ExtendDay, MoveDeadline, Preview, preview, when_zh
from engine.state import DayWindow
from forumbot.game.days import applicable, calendar_of, changes_of, day_count, record_change, sync_days
from forumbot.game.gamelog import DIRECTOR, DirectorError
from forumbot.game.runtime import Runtime
from forumbot.game.state import current_state, day_at

__all__ = ["REOPEN_ASKED", "DeadlineRequest", "ask_reopen", "change_deadline", "parse_span", "parse_when",
           "preview_deadline", "proposed_change"]

# Store meta key: the director asked for the day's voting thread to be opened again (the
# agent does it on its next pass: ``forumbot.agent.days``).
REOPEN_ASKED = "reopen_asked:day{day}"


@dataclass(frozen=True)
class DeadlineRequest:
    """What the director asked: a new deadline (``at``), a longer day (``extend``), or the
    day closed now or at a moment (``close``: an accelerated day)."""

    day: int | None = None
    at: datetime | None = None
    extend: timedelta | None = None
    close_now: bool = False
    why: str = ""


_SPAN = re.compile(r"^\s*(?:(?P<d>\d+|一|两|二|三)\s*(?:d|天|日))?\s*(?:(?P<h>\d+)\s*(?:h|小时|个小时|时))?"
                   r"\s*(?:(?P<m>\d+)\s*(?:m|min|分钟|分))?\s*$", re.IGNORECASE)
_CN_DAYS = {"一": 1, "两": 2, "二": 2, "三": 3}


def parse_span(text: str) -> timedelta:
    """1天 / 一天 / 2小时 / 30分钟 / 1d / 2h / 90m / 1天2小时."""
    m = _SPAN.match(text.strip())
    if m is None or not any(m.group(g) for g in "dhm"):
        raise DirectorError(f"看不懂延长多久：{text!r}（例：1天、2小时、30分钟）")
    days = m.group("d")
    span = timedelta(days=_CN_DAYS.get(days, 0) if days and not days.isdigit() else int(days or 0),
                     hours=int(m.group("h") or 0), minutes=int(m.group("m") or 0))
    if span <= timedelta(0):
        raise DirectorError("延长的时间要大于 0")
    return span


_WHEN = re.compile(r"^\s*(?:(?P<y>\d{4})[-/.年])?(?:(?P<mo>\d{1,2})[-/.月](?P<d>\d{1,2})日?)?[\sT]*"
                   r"(?P<h>\d{1,2})[:：点](?P<mi>\d{2})?分?(?::(?P<s>\d{2}))?\s*$")


def parse_when(text: str, now: datetime) -> datetime:
    """A moment as a director types it, in the game's time zone: ISO 8601
    (2026-12-05T22:00:00+08:00), 2026-12-05 22:00, 12-05 22:00, 12月5日 22:00, or 22:00 (today)."""
    text = text.strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is not None:
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=now.tzinfo)
    m = _WHEN.match(text)
    if m is None:
        raise DirectorError(f"看不懂这个时间：{text!r}（例：2026-12-05 22:00、12-05 22:00 或 22:00）")
    year = int(m.group("y") or now.year)
    month, day = (int(m.group("mo")), int(m.group("d"))) if m.group("mo") else (now.month, now.day)
    try:
        return datetime.combine(datetime(year, month, day).date(),
                                time(int(m.group("h")), int(m.group("mi") or 0), int(m.group("s") or 0)),
                                tzinfo=now.tzinfo)
    except ValueError:
        raise DirectorError(f"没有这个时间：{text!r}") from None


def _day(rt: Runtime, wanted: int | None, now: datetime) -> DayWindow:
    state = current_state(rt.config, rt.store)
    if wanted is not None:
        try:
            return state.day(wanted)
        except ValueError:
            raise DirectorError(f"没有第{wanted}日（本局有第{'、'.join(str(d.number) for d in state.days)}日）") from None
    window = day_at(state, now)
    if window is None:
        raise DirectorError("第1日还没开始：请写明第几日")
    if now >= window.deadline:
        later = [d for d in state.days if d.start > now]
        if later:
            return state.day(min(later, key=lambda d: d.start).number)
    return window


def proposed_change(rt: Runtime, request: DeadlineRequest, now: datetime) -> Change:
    window = _day(rt, request.day, now)
    given = [request.at is not None, request.extend is not None, request.close_now]
    if sum(given) != 1:
        raise DirectorError("请给出一种改法：新的截止时间、延长多久，或现在截止")
    if request.extend is not None:
        return ExtendDay(window.number, request.extend, now, request.why)
    if request.close_now:
        return CloseEarly(window.number, now, None, request.why)
    assert request.at is not None
    return MoveDeadline(window.number, request.at, now, request.why)


def preview_deadline(rt: Runtime, request: DeadlineRequest, now: datetime) -> Preview:
    """What the change would move (nothing is recorded)."""
    config = rt.config
    origin = config.origin or config
    change = proposed_change(rt, request, now)
    kept = applicable(origin, changes_of(rt.store))
    try:
        return preview(calendar_of(origin), kept, change, days=max(day_count(origin, kept), change.day))
    except CalendarError as exc:
        raise DirectorError(str(exc)) from None


def change_deadline(rt: Runtime, request: DeadlineRequest, now: datetime, *, actor: str = DIRECTOR) -> Preview:
    """Preview, then record the change and lay the days out again."""
    shown = preview_deadline(rt, request, now)
    with rt.store.write():
        record_change(rt.store, shown.change, actor=actor)
        sync_days(rt.base_config, rt.store, now)
    return shown


def ask_reopen(rt: Runtime, day: int | None, now: datetime, *, actor: str = DIRECTOR) -> str:
    """Ask the agent to open the day's voting thread again (it was locked at the deadline);
    it is not locked again for that day. The answer says what will happen (Chinese)."""
    window = _day(rt, day, now) if day is not None else _closed_day(rt, now)
    kept = rt.store.stored_day(window.number)
    if window.vote_thread is None:
        raise DirectorError(f"第{window.number}日还没有投票帖")
    if kept is None or kept.locked_at is None:
        raise DirectorError(f"第{window.number}日的投票帖（主题 {window.vote_thread}）没有被机器人关闭，不用重新打开")
    with rt.store.write():
        rt.store.set_meta(REOPEN_ASKED.format(day=window.number), now.isoformat())
        rt.store.audit(actor, "day.reopen_asked", {"day": window.number, "tid": window.vote_thread}, at=now)
    return (f"第{window.number}日的投票帖（主题 {window.vote_thread}）将在机器人的下一轮重新打开；"
            f"这一日不会再被自动关闭。截止时间不变（{when_zh(window.deadline)}），截止后的帖子仍算迟到")


def _closed_day(rt: Runtime, now: datetime) -> DayWindow:
    state = current_state(rt.config, rt.store)
    locked = [d for d in rt.store.stored_days() if d.locked_at is not None]
    if not locked:
        raise DirectorError("机器人没有关闭过任何一日的投票帖")
    return state.day(max(locked, key=lambda d: d.number).number)
