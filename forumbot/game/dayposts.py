"""What the bot posts because the calendar says so (SPEC §11): a day's opening threads,
the reminders before the change freeze and the deadline, the closing post (截止).

Bodies come from the director-editable templates (``vote_thread.bbcode.j2``,
``discussion_thread.bbcode.j2`` and their ``*_subject.j2``, ``reminder.bbcode.j2``,
``closing.bbcode.j2``). Every draft has a dedupe key naming the day and the moment it is
for, so a pass repeated after a kill drafts nothing twice, and a moved deadline gets its
own reminders and closing post.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from engine.calendar import Reminder, ReminderKind, ScheduledDay, span_zh, when_zh
from engine.state import DayWindow
from forumbot.config.gamefile import name_for
from forumbot.game.render import render, thread_path, forum_root
from forumbot.game.runtime import Runtime
from forumbot.store.outbox import Draft, DraftKind

__all__ = ["OpeningView", "ReminderView", "closing_body", "closing_key", "draft_closing", "draft_reminder", "game_name",
           "opening_post", "reminder_key"]


def game_name(rt: Runtime) -> str:
    return name_for(rt.config.path)


@dataclass(frozen=True)
class OpeningView:
    game: str
    day: int
    start: str
    deadline: str
    freeze: str | None
    window: int  # the change window in minutes
    discussion_tid: int | None = None
    discussion_link: str | None = None
    vote_link: str | None = None


def _thread_link(rt: Runtime, tid: int | None) -> str | None:
    if tid is None:
        return None
    generation = rt.config.forum.discuz if rt.config.forum.discuz != "auto" else rt.store.get_meta("discuz")
    return (forum_root(rt.config.forum.base_url) or "") + thread_path(generation, tid)


def opening_view(rt: Runtime, day: ScheduledDay, *, vote_tid: int | None = None,
                 discussion_tid: int | None = None) -> OpeningView:
    return OpeningView(
        game=game_name(rt), day=day.number, start=when_zh(day.start), deadline=when_zh(day.deadline),
        freeze=when_zh(day.freeze) if day.freeze is not None and day.freeze > day.start else None,
        window=rt.config.rules.change_window_minutes,
        discussion_tid=discussion_tid, discussion_link=_thread_link(rt, discussion_tid),
        vote_link=_thread_link(rt, vote_tid),
    )


def opening_post(rt: Runtime, role: str, view: OpeningView) -> tuple[str, str]:
    """(subject, opening post) of a day's ``role`` thread ("vote" or "discussion")."""
    name = "vote_thread" if role == "vote" else "discussion_thread"
    subject = render(rt.env, f"{name}_subject.j2", {"d": view}).strip().splitlines()[0]
    return subject, render(rt.env, f"{name}.bbcode.j2", {"d": view})


# --- reminders --------------------------------------------------------------------------

@dataclass(frozen=True)
class ReminderView:
    day: int
    kind: str  # freeze | deadline
    left: str  # 1小时
    freeze: str
    deadline: str
    non_voters: tuple[str, ...]  # named (empty when the game shows counts only)
    count_non_voters: int


def reminder_key(day: ScheduledDay, reminder: Reminder) -> str:
    target = day.freeze if reminder.kind is ReminderKind.FREEZE else day.deadline
    minutes = int(reminder.before.total_seconds() // 60)
    return f"reminder:day{day.number}:{reminder.kind.value}:{target.isoformat()}:{minutes}"


def draft_reminder(rt: Runtime, window: DayWindow, day: ScheduledDay, reminder: Reminder, tally: dict[str, Any],
                   now: datetime, *, hide_voters: bool) -> Draft:
    target = day.freeze if reminder.kind is ReminderKind.FREEZE and day.freeze is not None else day.deadline
    non_voters = tuple(tally.get("non_voters", ()))
    left = max(target - now, timedelta(minutes=1))
    view = ReminderView(day.number, reminder.kind.value, span_zh(timedelta(minutes=round(left.total_seconds() / 60))),
                        when_zh(day.freeze), when_zh(day.deadline), () if hide_voters else non_voters,
                        len(non_voters))
    assert window.vote_thread is not None
    return rt.outbox.create_draft(DraftKind.REMINDER, window.vote_thread, render(rt.env, "reminder.bbcode.j2", {"r": view}),
                                  now=now, day=day.number, dedupe_key=reminder_key(day, reminder))


# --- the closing post -------------------------------------------------------------------

def closing_key(window: DayWindow) -> str:
    return f"closing:day{window.number}:{window.deadline.isoformat()}"


def closing_body(rt: Runtime, window: DayWindow, *, marks_deadline: bool) -> str:
    return render(rt.env, "closing.bbcode.j2", {"c": {"day": window.number, "deadline": when_zh(window.deadline),
                                                      "marks_deadline": marks_deadline}})


def draft_closing(rt: Runtime, window: DayWindow, now: datetime, *, marks_deadline: bool) -> Draft:
    assert window.vote_thread is not None
    body = closing_body(rt, window, marks_deadline=marks_deadline)
    return rt.outbox.create_draft(DraftKind.CLOSING, window.vote_thread, body, now=now, day=window.number,
                                  dedupe_key=closing_key(window))

