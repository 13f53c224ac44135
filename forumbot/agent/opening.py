"""Opening a day (SPEC §11): at its start, the day's voting thread (and its discussion
thread, ``[calendar].discussion_threads``) drafted as new threads in ``[forum].fid``, from
the templates; once the director approves, the outbox opens each exactly once (an
interrupted one is found again on the board by its marker) and the tid is recorded in the
store's days — the config is never edited. A thread the config names is the day's; the
bot opens only what is missing.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING

from engine.calendar import ScheduledDay
from engine.state import DayWindow
from forumbot.game import dayposts
from forumbot.store.outbox import Draft, DraftKind, DraftState

if TYPE_CHECKING:
    from forumbot.agent.loop import Agent, TickReport

log = logging.getLogger("forumbot.agent")

ROLES = ("vote", "discussion")
FID_MISSING = "calendar_fid"  # the alarm: the bot should open threads but has no board
NO_VOTE_THREAD = "no_vote_thread"  # the alarm: a day has started, its voting thread's draft was rejected


def thread_key(day: int, role: str) -> str:
    return f"new_thread:day{day}:{role}"


class DayOpener:
    def __init__(self, agent: "Agent") -> None:
        self.agent = agent

    @property
    def rt(self):
        return self.agent.rt

    def wanted(self, window: DayWindow) -> list[str]:
        roles = ["vote"] if window.vote_thread is None else []
        if self.rt.config.duties.discussion_threads and window.discussion_thread is None:
            roles.append("discussion")
        return roles

    def open_day(self, window: DayWindow, day: ScheduledDay, now: datetime, report: "TickReport") -> bool:
        """Draft what the day misses; True when a thread opened was recorded now."""
        recorded = bool(self.record_opened(window, now))
        window = self.rt.config.day(window.number)
        self.settled(window, now)
        missing = self.wanted(window)
        if not missing or now >= day.deadline:
            return recorded  # a day already over is not opened afterwards (the director decides)
        fid = self.rt.config.forum.fid
        store = self.rt.store
        if fid is None:
            store.raise_alarm(FID_MISSING, FID_MISSING,
                              f"第{window.number}日已开始，但配置里没有 [forum].fid（游戏版块的编号）：机器人无法开投票帖。"
                              "请在 [forum] 写上 fid = 版块编号，或在 [[days]] 写上这一日的 vote_thread", at=now)
            return recorded
        store.clear_alarm(FID_MISSING, at=now)
        outbox = self.rt.outbox
        for role in missing:
            key = thread_key(window.number, role)
            drafted = outbox.by_dedupe_key(key)
            if drafted is not None:
                if role == "vote" and drafted.state is DraftState.REJECTED:
                    store.raise_alarm(NO_VOTE_THREAD, f"{NO_VOTE_THREAD}:{window.number}",
                                      f"第{window.number}日没有投票帖：机器人起草的新帖 #{drafted.id} 已被驳回，不会再起草。"
                                      f"请自己开帖并在配置的 [[days]] 写上 number = {window.number} 和 vote_thread = 主题号",
                                      at=now, detail={"day": window.number, "draft": drafted.id})
                continue
            known = self.rt.config.day(window.number)
            view = dayposts.opening_view(self.rt, day, vote_tid=known.vote_thread,
                                         discussion_tid=known.discussion_thread)
            subject, body = dayposts.opening_post(self.rt, role, view)
            draft = outbox.create_new_thread(fid, subject, body, now=now, day=window.number, dedupe_key=key)
            report.drafts.append(draft)
            log.info("第%d日：已起草新%s #%d「%s」", window.number, "投票帖" if role == "vote" else "讨论帖", draft.id,
                     subject)
        return recorded

    def settled(self, window: DayWindow, now: datetime) -> None:
        """A day with its voting thread has no alarm about a missing one."""
        if window.vote_thread is not None:
            self.rt.store.clear_alarm(f"{NO_VOTE_THREAD}:{window.number}", at=now)

    def record_opened(self, window: DayWindow, now: datetime) -> list[int]:
        """The tids of the day's threads the outbox opened, into the store's days."""
        recorded = []
        for role in ROLES:
            draft = self.rt.outbox.by_dedupe_key(thread_key(window.number, role))
            tid = _opened(draft)
            if tid is None:
                continue
            kept = self.rt.store.stored_day(window.number)
            current = getattr(kept, f"{role}_thread", None) if kept is not None else None
            if current is None:
                self.rt.store.set_day_thread(window.number, role, tid, at=now)
                log.info("第%d日的%s：主题 %d（机器人开的新帖）", window.number, "投票帖" if role == "vote" else "讨论帖",
                         tid)
                recorded.append(tid)
        return recorded


def _opened(draft: Draft | None) -> int | None:
    if draft is None or draft.kind is not DraftKind.NEW_THREAD:
        return None
    if draft.state not in (DraftState.PUBLISHED, DraftState.PENDING_MODERATION) or not draft.tid:
        return None
    return draft.tid


__all__ = ["DayOpener", "FID_MISSING", "NO_VOTE_THREAD", "ROLES", "thread_key"]
