"""The agent's duties on the calendar's moments (SPEC §11), for a game with ``[calendar]``.

Each pass, before publishing (``draft_due``):

* **a day's start**: the day's voting thread (and discussion thread) drafted as new
  threads in ``[forum].fid`` when neither the config nor the store names them; once the
  director approves, the outbox posts each exactly once and the tid is recorded in the
  store's days (``record_opened``);
* **a reminder** before the change freeze or the deadline: a short post in the voting
  thread, drafted while its moment has come and the freeze (or deadline) has not — a
  reminder missed while the agent was down is not posted after the moment it is about;
* **the deadline**: the closing post (截止) in the voting thread.

After publishing (``settle``): the closing post's pid becomes the day's ``deadline_pid``
on a forum that shows post times to the minute (when it went out within the deadline's
minute: a later one proves nothing about that minute), the voting thread is locked where
the account may moderate, and opened again when the director asked (``forumbot reopen``).

A game without ``[calendar]`` (every day written out with its threads) is left as it was:
none of this is done for it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from engine.calendar import MilestoneKind, ReminderKind, ScheduledDay
from engine.state import DayWindow, GameState
from forumbot.discuz.errors import ForumError
from forumbot.game import dayposts
from forumbot.game.daychanges import REOPEN_ASKED
from forumbot.game.drafting import counts_only
from forumbot.game.state import count_day, current_state
from forumbot.store.outbox import Draft, DraftKind, DraftState, Refresh, hand_edited
from parsers.models import TimePrecision

if TYPE_CHECKING:
    from forumbot.agent.loop import Agent, TickReport

log = logging.getLogger("forumbot.agent")

# A closing post still on its way holds the final count back (the deadline's minute on
# 7.2 is settled by it); not forever: a forum that refuses it must not stop the game.
CLOSING_WAIT = timedelta(minutes=30)

# What the calendar drafts for a day (dropped when the game ends before the day starts).
DAY_DUTIES = (DraftKind.NEW_THREAD, DraftKind.REMINDER, DraftKind.CLOSING, DraftKind.RUNNING_COUNT,
              DraftKind.COUNT_REPLY)

_NOT_SENT = (DraftState.DRAFT, DraftState.APPROVED, DraftState.PUBLISHING, DraftState.FAILED)


class DayDuties:
    def __init__(self, agent: "Agent") -> None:
        from forumbot.agent.opening import DayOpener

        self.agent = agent
        self.opener = DayOpener(agent)

    @property
    def rt(self):
        return self.agent.rt

    def enabled(self) -> bool:
        return self.rt.config.calendar is not None

    # ------------------------------------------------------------------ before publishing

    def draft_due(self, now: datetime, report: "TickReport") -> None:
        if not self.enabled() or self.rt.store.game_blocked() is not None:
            return
        config = self.rt.config
        laid = config.schedule(len(config.days))
        state = current_state(config, self.rt.store)
        after_end: list[int] = []
        for day in laid.days:
            if day.start > now:
                break
            if self.agent.after_end(day.start):
                after_end.append(day.number)
                continue  # the game is over: this day is never opened
            try:
                if self.open_day(state.day(day.number), day, now, report):
                    # a thread just recorded: the game's days as they are now
                    state = current_state(self.rt.config, self.rt.store)
                window = state.day(day.number)
                if window.vote_thread is None:
                    continue
                if self.agent.after_end(now) and self.agent.ended < day.deadline:
                    continue  # ended during the day: no reminder, no closing post
                if now < day.deadline:
                    self.remind(state, window, day, now, report)
                else:
                    self.close(window, now, report)
            except ForumError as exc:
                self.agent._note(report, f"第{day.number}日的日程", exc)
        if after_end:
            self.drop_after_end(after_end, now)

    def drop_after_end(self, days: list[int], now: datetime) -> None:
        """The threads, reminders and closing posts of ``days`` still waiting (drafted before
        the win was recorded — the night confirmed after the day's start) are never posted.
        One read of the waiting drafts a pass, however many days the calendar has left."""
        outbox = self.rt.outbox
        for draft in outbox.drafts(DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED):
            if draft.day in days and draft.kind in DAY_DUTIES:
                outbox.reject(draft.id, "bot", "游戏已经结束：这一日不再进行", now=now)
                log.info("第%d日：游戏已结束，作废未发出的 #%d", draft.day, draft.id)

    def open_day(self, window: DayWindow, day: ScheduledDay, now: datetime, report: "TickReport") -> bool:
        """The day's threads, when the config and the store name none (``forumbot.agent.opening``);
        True when a thread the outbox opened was recorded now."""
        return self.opener.open_day(window, day, now, report)

    def remind(self, state: GameState, window: DayWindow, day: ScheduledDay, now: datetime,
               report: "TickReport") -> None:
        due = [r for r in day.reminders if r.at <= now]
        if not due:
            return
        reminder = due[-1]  # the latest one due: an earlier one missed is not posted now
        target = day.freeze if reminder.kind is ReminderKind.FREEZE else day.deadline
        if target is None or now >= target:
            return
        if reminder.kind is ReminderKind.FREEZE and window.accelerated:
            return  # an accelerated day takes no changes: nothing to remind of
        outbox = self.rt.outbox
        if outbox.by_dedupe_key(dayposts.reminder_key(day, reminder)) is not None:
            return
        tally = count_day(self.rt.config, self.rt.store, day.number).data
        hide = counts_only(self.rt.config.rules, self.rt.settings.agent.counts_only)
        draft = dayposts.draft_reminder(self.rt, window, day, reminder, tally, now, hide_voters=hide)
        report.drafts.append(draft)
        log.info("第%d日：已起草%s提醒 #%d", day.number, "改票截止" if reminder.kind is ReminderKind.FREEZE else "投票截止",
                 draft.id)

    def close(self, window: DayWindow, now: datetime, report: "TickReport") -> None:
        key = dayposts.closing_key(window)
        if self.rt.outbox.by_dedupe_key(key) is not None:
            return
        if self._final_drafted(window.number):
            return  # the day was closed before the calendar's duties existed (or by hand)
        # Only a closing post in the deadline's own minute can tell the posts of that minute apart.
        marks = self.minutes_only(window) and now < window.deadline + timedelta(minutes=1)
        draft = dayposts.draft_closing(self.rt, window, now, marks_deadline=marks)
        report.drafts.append(draft)
        log.info("第%d日：已起草截止帖 #%d", window.number, draft.id)

    def _final_drafted(self, day: int) -> bool:
        from forumbot.game.announce import final_draft

        return final_draft(self.rt.outbox, day) is not None

    def minutes_only(self, window: DayWindow) -> bool:
        """The forum shows the voting thread's post times to the minute only (Discuz 7.2,
        or a forum with dateconvert off): what the stored posts of the thread carry."""
        tid = window.vote_thread
        row = self.rt.store.db.execute("SELECT time_precision FROM posts WHERE tid = ? ORDER BY pid DESC LIMIT 1",
                                       (tid,)).fetchone()
        if row is not None:
            return row[0] == TimePrecision.MINUTE.value
        return self.rt.store.get_meta("discuz") == "7.2" and not self.agent.client.use_api

    def holds_final(self, window: DayWindow, now: datetime) -> bool:
        """The final count waits for the day's closing post while it is on its way (it
        says which posts came after the deadline's minute), at most ``CLOSING_WAIT``."""
        if not self.enabled() or now >= window.deadline + CLOSING_WAIT:
            return False
        draft = self.rt.outbox.by_dedupe_key(dayposts.closing_key(window))
        return draft is not None and draft.state in _NOT_SENT

    def render_reminder(self, draft: Draft, now: datetime) -> Refresh | None:
        """A reminder that could not go out before the moment it is about is not sent."""
        parts = (draft.dedupe_key or "").split(":", 3)
        if len(parts) < 4:
            return None
        target = datetime.fromisoformat(parts[3].rsplit(":", 1)[0])
        if now >= target and not hand_edited(draft):
            return Refresh(drop="提醒的时刻已经过去：不再发出")
        return None

    def wait_at_most(self, now: datetime, seconds: float) -> float:
        """``seconds``, or less when a calendar moment comes sooner (the agent wakes for it)."""
        if not self.enabled():
            return seconds
        later = milestones_after(self.rt.config, now)
        if not later:
            return seconds
        return max(1.0, min(seconds, (min(later) - now).total_seconds()))

    def render_closing(self, draft: Draft, now: datetime) -> Refresh | None:
        """The closing post says it is the deadline's boundary only when it goes out in the
        deadline's minute on a minutes-only forum (what ``settle`` then records)."""
        if hand_edited(draft) or draft.day is None:
            return None
        window = self.rt.config.day(draft.day)
        marks = self.minutes_only(window) and now < window.deadline + timedelta(minutes=1)
        return Refresh(body=dayposts.closing_body(self.rt, window, marks_deadline=marks))

    # ------------------------------------------------------------------ after publishing

    def settle(self, now: datetime, report: "TickReport") -> None:
        if not self.enabled():
            return
        store = self.rt.store
        for window in current_state(self.rt.config, store).days:
            if window.start > now:
                continue
            if self.opener.record_opened(window, now):
                window = current_state(self.rt.config, store).day(window.number)  # the config as it is now
            if window.vote_thread is None:
                continue
            try:
                self._settle_day(window, now, report)
            except ForumError as exc:
                self.agent._note(report, f"第{window.number}日的投票帖", exc)

    def _settle_day(self, window: DayWindow, now: datetime, report: "TickReport") -> None:
        store = self.rt.store
        kept = store.stored_day(window.number)
        if kept is None:
            return
        closing = self.rt.outbox.by_dedupe_key(dayposts.closing_key(window))
        if closing is not None and closing.state is DraftState.PUBLISHED and closing.pid is not None \
                and kept.closing_pid != closing.pid:
            self._record_closing(window, closing, now)
            kept = store.stored_day(window.number)
            assert kept is not None
        if store.get_meta(REOPEN_ASKED.format(day=window.number)):
            if kept.locked_at is not None:
                self.agent.client.open_thread(window.vote_thread)
                store.set_day_fields(window.number, at=now, locked_at=None, reopened_at=now)
                log.info("第%d日：投票帖 %d 已按导演的要求重新打开", window.number, window.vote_thread)
            store.set_meta(REOPEN_ASKED.format(day=window.number), "")
            return
        if kept.locked_at is None and kept.reopened_at is None and now >= window.deadline \
                and closing is not None and closing.state is DraftState.PUBLISHED:
            self.lock(window, now)

    def _record_closing(self, window: DayWindow, closing: Draft, now: datetime) -> None:
        store = self.rt.store
        fields: dict[str, object] = {"closing_pid": closing.pid}
        sent = closing.published_at or now
        if self.minutes_only(window) and window.deadline_pid is None:
            same_minute = sent.replace(second=0, microsecond=0) == window.deadline.replace(second=0, microsecond=0) \
                or window.deadline <= sent < window.deadline + timedelta(minutes=1)
            if same_minute:
                fields["deadline_pid"] = closing.pid
                log.info("第%d日：截止帖 pid %d 作为截止的分界（论坛只显示到分钟）", window.number, closing.pid)
            else:
                log.warning("第%d日：截止帖 %s 才发出，晚于截止的那一分钟（%s）：不能作为截止的分界；"
                            "截止那一分钟的帖子由导演判断（[[days]].deadline_pid）", window.number,
                            f"{sent:%H:%M}", f"{window.deadline:%H:%M}")
        store.set_day_fields(window.number, at=now, **fields)

    def lock(self, window: DayWindow, now: datetime) -> None:
        """Close the voting thread (关闭主题) when the config lets the bot and the account may."""
        config = self.rt.config
        if not config.duties.lock_threads or config.forum.fid is None:
            return
        client = self.agent.client
        key = "may_moderate"
        known = self.rt.store.get_meta(key)
        if known is None:
            known = "yes" if client.may_moderate(config.forum.fid) else "no"
            self.rt.store.set_meta(key, known)
        if known != "yes":
            return
        assert window.vote_thread is not None
        client.close_thread(window.vote_thread)
        self.rt.store.set_day_fields(window.number, at=now, locked_at=now)
        log.info("第%d日：投票帖 %d 已关闭（截止）", window.number, window.vote_thread)


def milestones_after(config, now: datetime) -> list[datetime]:
    """The calendar's moments still to come (the service wakes a game for them)."""
    if config.calendar is None:
        return []
    laid = config.schedule(len(config.days))
    return [m.at for m in laid.milestones() if m.at > now and m.kind is not MilestoneKind.FREEZE]


__all__ = ["DayDuties", "REOPEN_ASKED", "milestones_after"]
