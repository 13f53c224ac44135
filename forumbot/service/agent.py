"""The agent of one game inside the service: ``forumbot.agent.loop.Agent`` as it is — the
same pass, the same rules, the same outbox — with what the scheduler decides around it:

* which threads a pass reads (``due``: the scheduler's choice among the active ones);
* the page budget of a read (on the game's ``GameClient``), never for the deadline's
  re-read of a whole day, and no day decided while one of its threads is only partly
  read (a running count from half a thread would be wrong);
* no new post while the account's flood clock is running: the draft stays approved and
  the scheduler comes back when the clock is free (no thread waits 15 s on it);
* the same for the director's PMs (``[notify]``): they go through the shared session and
  count on the same clock (on X3.5 a PM right after a reply is refused: 两次发送短消息太快),
  so a PM stays queued while the clock runs and is sent on the pass that comes back;
* the director's PMs are read through the account's ``Switchboard`` (the session's): once
  per poll interval per director for all the games on the account, each command to its
  game (``forumbot.notify.switchboard``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Collection

from engine.state import DayWindow, GameState
from forumbot.agent.loop import Agent, TickReport
from forumbot.store.outbox import Draft, PublishOutcome, Refresh


class ServiceAgent(Agent):
    def __init__(self, *args, name: str | None = None, **kwargs) -> None:
        from forumbot.notify import Notifier

        kwargs.setdefault("notifier", Notifier.for_agent)  # the director by forum PM, on the shared session
        super().__init__(*args, **kwargs)
        self.due: set[int] | None = None  # the threads this pass reads (None: every active one)
        self.sweeps: set[int] = set()  # of those, the ones read again whole (the edit sweep)
        self.reads: dict[int, tuple[list, datetime]] = {}  # this pass's reads: last pages, start
        self.held_for_flood: list[int] = []  # drafts this pass left for the flood clock
        self.pms_held = False  # the director's PMs this pass left for the flood clock
        self.notifier.may_send = self._may_send_pm
        if name is not None:
            self.notifier.name = self.notifier.pmbox.game = name
        session = getattr(self.client, "session", None)
        if session is not None:
            self.notifier.use_board(session.board)

    def pass_over(self, threads: Collection[int] | None, sweeps: Collection[int] = ()) -> TickReport:
        """One pass reading ``threads`` (of the active ones; None: all of them); those in
        ``sweeps`` are read again whole, from page 1 (the edit sweep: an edit on an earlier
        page moves nothing in the board's listing)."""
        self.due = None if threads is None else set(threads)
        self.sweeps = set(sweeps)
        self.reads = {}
        self.held_for_flood = []
        self.pms_held = False
        try:
            return self.tick()
        finally:
            self.due = None
            self.sweeps = set()

    def poll_thread(self, tid: int, now: datetime, report: TickReport, *, rescan: bool = False) -> None:
        if tid in self.sweeps:
            self.sweeps.discard(tid)  # once: the pass's deadline re-read may ask again
            rescan = True
        super().poll_thread(tid, now, report, rescan=rescan)

    def thread_read(self, tid: int, posts: list, began: datetime) -> None:
        # Kept for the game's plan (forumbot.service.game.update_plan), which tells the
        # account's board watch once it knows the thread's board.
        self.reads[tid] = (posts, began)

    def threads_to_poll(self, now: datetime) -> list[int]:
        tids = super().threads_to_poll(now)
        return tids if self.due is None else [t for t in tids if t in self.due]

    def active_threads(self, now: datetime, state: GameState | None = None) -> dict[int, tuple[str, DayWindow]]:
        """Every thread of the active days: its role and the (latest) day it belongs to."""
        from forumbot.game.state import current_state

        threads: dict[int, tuple[str, DayWindow]] = {}
        for day in self.active_days(state or current_state(self.rt.config, self.rt.store), now):
            for tid, role in day.threads().items():
                if tid not in threads or role == "vote":
                    threads[tid] = (role, day)
        return threads

    def behind(self, day: DayWindow) -> bool:
        """One of the day's threads is only partly read (a first read taken in parts)."""
        for tid in day.threads():
            cursor = self.rt.store.cursor(tid)
            if cursor is not None and cursor.last_page < cursor.total_pages:
                return True
        return False

    def process_day(self, day: DayWindow, now: datetime, report: TickReport) -> None:
        if self.behind(day):
            return  # decided once every thread of the day is read to its end
        budget = getattr(self.client, "page_budget", None)
        self.client.page_budget = None  # the deadline's re-read is whole, always
        try:
            super().process_day(day, now, report)
        finally:
            self.client.page_budget = budget

    def _may_send_pm(self) -> bool:
        session = getattr(self.client, "session", None)
        if session is None or session.write_free(self.rt.clock.now()):
            return True
        self.pms_held = True
        return False

    def wait_out_flood(self, refused: PublishOutcome, report: TickReport) -> bool:
        """The forum refused a post for flood control: no game waits on the account's clock
        inside a pass. The draft stays approved; the scheduler comes back once the clock
        is free, and the pass then renders it again from what has been read by then."""
        self.held_for_flood.append(refused.draft_id)
        return False

    @property
    def waiting_write(self) -> bool:
        """Something this pass left for the account's flood clock (a post or a PM)."""
        return bool(self.held_for_flood or self.pms_held)

    def render_at_publish(self, draft: Draft, now: datetime) -> Refresh | None:
        refresh = super().render_at_publish(draft, now)
        session = getattr(self.client, "session", None)
        if session is None or not _can_wait() or session.write_free(self.rt.clock.now()):
            return refresh
        if refresh is not None and (refresh.drop or getattr(refresh, "wait", None)):
            return refresh
        if (refresh.edit_pid if refresh is not None else draft.edit_pid) is not None:
            return refresh  # an edit is not a new post: the flood clock does not apply
        self.held_for_flood.append(draft.id)
        free = session.write_free_at()
        return Refresh(wait=f"论坛发帖间隔：{free:%H:%M:%S} 后再发" if free else "论坛发帖间隔")  # type: ignore[call-arg]


def _can_wait() -> bool:
    """Whether the outbox knows ``Refresh.wait`` (a draft left approved, not tried)."""
    import dataclasses

    return any(f.name == "wait" for f in dataclasses.fields(Refresh))


__all__ = ["ServiceAgent"]
