"""Which game's pass comes next, and which of its threads it reads: pure, no I/O.

One bot account on one forum is one throttle: ``min_request_interval_seconds`` (2 s by
default) between requests, 30 a minute. Fifty games of three threads each polled every
60 s would need 150 — so not every thread can be read every interval, and the order
matters more than the pace. In order:

0. **A moment that matters has come** for a game — a deadline (the day's re-read, then
   the final count once the settle delay is over) or a day's start: its pass goes first,
   with every thread it has due.
1. **Hot reads**: the voting thread of a day in the last hour before its deadline (late
   votes and changes are what a count is argued over), a game whose director just acted
   on the desk (an approval goes out at once), a game with posts waiting for the
   account's flood clock once the clock is free.
2. **Everything else that is due**: threads at their interval, a read that stopped at
   its page budget going on, a game's first pass.
3. **A pass without requests** for a game nothing was read for in a whole interval (the
   director's approvals are published, its drafts and results kept current).

Within a rank, the thread due earliest goes first and then the game served least
recently: round-robin over due *threads*, not one whole game after another. When other
games wait on the same account a pass reads one thread (and at most ``PAGE_BUDGET``
pages of it: a first read of a long thread is taken in parts); when none wait, all of
the game's due threads.

**What the boards say** (``forumbot.service.boards``). Where the account's board watch
vouches for a thread — its board's listing, read once per poll for every game, shows it
unchanged — the thread is not read at all: *quiet* threads are never due. A thread the
listing shows *moved* is a hot read (rank 1). A thread the listing cannot vouch for
(*unknown*: its board unreadable, the thread fallen off the pages read) is polled at its
interval as above. The **edit sweep** comes last before the passes without requests
(rank 3, ``SWEEP``): a voting thread of a day being played is read again whole once
``edit_sweep_minutes`` have passed since its last whole read — edits do not move a thread
in the listing. The listings themselves are read by the service between the urgent and
hot passes and the rest (``forumbot.service.runner``).

**Less often as load grows.** A thread is *idle* after ``IDLE_AFTER`` reads in a row
found nothing new (and it is not a hot voting thread). While everything fits in
``UTILISATION`` of the account's capacity every thread is read at its game's
``poll_interval_seconds``; beyond that, idle threads get what hot ones leave (at least a
quarter of it) and their interval stretches to fit, up to ``MAX_STRETCH`` times. A new
post makes a thread active again at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Hashable, Iterable

IDLE_AFTER = 3  # reads in a row with nothing new: the thread is idle
UTILISATION = 0.8  # the share of the account's request capacity the schedule plans for
MAX_STRETCH = 20.0  # an idle thread is read at least every 20 poll intervals
HOT_BEFORE_DEADLINE = timedelta(hours=1)
PAGE_BUDGET = 5  # pages one read takes when other games wait on the same account

URGENT, HOT, DUE, SWEEP, IDLE_PASS = 0, 1, 2, 3, 4
QUIET, MOVED = "quiet", "moved"  # what the board watch says of a thread (else: unknown)


@dataclass
class ThreadState:
    tid: int
    role: str  # "vote" | "discussion" | "progress"
    polled_at: datetime | None = None
    idle: int = 0  # reads in a row that found nothing new
    behind: bool = False  # the last read stopped at its page budget: it goes on next
    hot: bool = False  # a voting thread in its last hour (set by the game's plan)
    watch: str | None = None  # QUIET / MOVED from the board watch; None: it cannot tell
    sweep_at: datetime | None = None  # when its next whole re-read is due (None: no sweep)

    def note_read(self, at: datetime, *, new: bool, behind: bool) -> None:
        self.polled_at = at
        self.idle = 0 if new else self.idle + 1
        self.behind = behind

    @property
    def is_idle(self) -> bool:
        return not self.hot and self.idle >= IDLE_AFTER

    @property
    def vouched(self) -> bool:
        """The board watch says it is unchanged: it costs nothing until it moves."""
        return self.watch == QUIET and self.polled_at is not None and not self.behind


@dataclass
class GamePlan:
    """What the scheduler knows of one game (kept by the service, updated after each pass)."""

    name: str
    session: Hashable  # games with the same session share its throttle
    interval: float  # the game's poll_interval_seconds (game seconds)
    threads: dict[int, ThreadState] = field(default_factory=dict)
    crossing: datetime | None = None  # the next moment that needs a pass
    last_pass: datetime | None = None
    started: bool = False  # its first pass (login, how to read) is done
    changed: bool = False  # the director acted (the game's database changed elsewhere)
    waiting_write: bool = False  # posts wait for the account's flood clock
    not_before: datetime | None = None  # after a crash: not before this
    served: int = 0  # the scheduler's turn counter when this game last had a pass


@dataclass(frozen=True)
class SessionState:
    min_interval: float  # seconds between requests
    available: bool = True  # not down (or its probe is due)
    ready: bool = True  # the throttle would not wait now
    write_free: bool = True  # the flood clock allows a post now


@dataclass(frozen=True)
class Job:
    game: str
    threads: tuple[int, ...]  # what the pass reads (empty: no thread)
    rank: int
    budget: int | None  # pages one read may take (None: all)
    why: str
    sweeps: tuple[int, ...] = ()  # of ``threads``, those to read again whole (the edit sweep)


def stretch(plans: Iterable[GamePlan], min_interval: float) -> float:
    """How many poll intervals apart idle threads of one account are read (≥ 1)."""
    if min_interval <= 0:
        return 1.0
    capacity = UTILISATION / min_interval  # requests per game second
    hot = idle = 0.0
    for plan in plans:
        for thread in plan.threads.values():
            if thread.vouched:
                continue  # the listing reads it (a request per board, not per thread)
            if thread.is_idle:
                idle += 1 / plan.interval
            else:
                hot += 1 / plan.interval
    if hot + idle <= capacity or idle == 0:
        return 1.0
    spare = max(capacity - hot, capacity / 4)
    return min(max(idle / spare, 1.0), MAX_STRETCH)


def due_at(plan: GamePlan, thread: ThreadState, idle_stretch: float, now: datetime) -> datetime | None:
    """When ``thread`` is next due for a read (None: not until the listing says it moved,
    or its sweep — ``sweep_due``)."""
    if thread.polled_at is None or thread.behind:
        return now
    if thread.watch == MOVED:
        return now
    if thread.vouched:
        return None
    factor = idle_stretch if thread.is_idle else 1.0
    return thread.polled_at + timedelta(seconds=plan.interval * factor)


@dataclass(frozen=True)
class _Candidate:
    rank: int
    waits: bool  # its session's throttle would make it wait
    due: datetime
    served: int
    game: str
    tid: int | None  # the thread that made it due (None: a pass without a thread)
    why: str

    @property
    def key(self) -> tuple:
        return (self.rank, self.waits, self.due, self.served, self.game, self.tid or 0)


def pick(now: datetime, plans: dict[str, GamePlan], sessions: dict[Hashable, SessionState]) -> Job | None:
    """The next pass to run now, or None when nothing is due."""
    stretches = {key: stretch([p for p in plans.values() if p.session == key], s.min_interval)
                 for key, s in sessions.items()}
    candidates: list[_Candidate] = []
    due_threads: dict[str, list[tuple[datetime, int, int]]] = {}  # game → (due, rank, tid)
    sweeps: dict[str, list[int]] = {}  # game → threads whose edit sweep is due
    for plan in plans.values():
        if plan.not_before is not None and now < plan.not_before:
            continue
        session = sessions.get(plan.session, SessionState(0.0))
        if not session.available:
            continue  # the forum is down: nothing until its probe is due (Session.mark_down)
        waits = not session.ready
        if not plan.started:
            candidates.append(_Candidate(DUE, waits, now, plan.served, plan.name, None, "start"))
            continue
        mine = []
        for thread in plan.threads.values():
            at = due_at(plan, thread, stretches.get(plan.session, 1.0), now)
            if (thread.sweep_at is not None and thread.sweep_at <= now and thread.polled_at is not None
                    and not thread.behind):
                sweeps.setdefault(plan.name, []).append(thread.tid)
                if at is None or at > now:
                    candidates.append(_Candidate(SWEEP, waits, thread.sweep_at, plan.served, plan.name,
                                                 thread.tid, "sweep"))
            if at is not None and at <= now:
                moved = thread.watch == MOVED
                rank = HOT if thread.hot or moved else DUE
                mine.append((at, rank, thread.tid))
                candidates.append(_Candidate(rank, waits, at, plan.served, plan.name, thread.tid,
                                             "behind" if thread.behind else "moved" if moved
                                             else "hot" if thread.hot else "due"))
        due_threads[plan.name] = sorted(mine)
        if plan.crossing is not None and now >= plan.crossing:
            candidates.append(_Candidate(URGENT, waits, plan.crossing, plan.served, plan.name, None, "moment"))
        if plan.changed:
            candidates.append(_Candidate(HOT, waits, now, plan.served, plan.name, None, "changed"))
        if plan.waiting_write and session.write_free:
            candidates.append(_Candidate(HOT, waits, now, plan.served, plan.name, None, "write"))
        if plan.last_pass is None or now >= plan.last_pass + timedelta(seconds=plan.interval):
            candidates.append(_Candidate(IDLE_PASS, False, plan.last_pass or now, plan.served, plan.name, None,
                                         "interval"))
    if not candidates:
        return None
    best = min(candidates, key=lambda c: c.key)
    plan = plans[best.game]
    mine = due_threads.get(best.game, [])
    # Other games wanting the same account now (a pass without requests does not count).
    others = any(c.game != best.game and c.rank < IDLE_PASS and plans[c.game].session == plan.session
                 for c in candidates)
    if best.rank == URGENT or not others:
        threads = tuple(sorted(tid for _, _, tid in mine))
        budget = None if not others else PAGE_BUDGET
    elif best.tid is not None:
        threads, budget = (best.tid,), PAGE_BUDGET
    else:
        threads, budget = (), PAGE_BUDGET
    if best.why == "start":
        threads = ()
    swept: tuple[int, ...] = ()
    if best.why == "sweep":
        # One sweep per pass while others wait (a whole thread is several requests);
        # every due one when the account is free — or when the game's moment has come.
        swept = (best.tid,) if others and best.tid is not None else tuple(sorted(sweeps.get(best.game, ())))
        threads = tuple(sorted(set(threads) | set(swept)))
    elif best.rank == URGENT or not others:
        swept = tuple(sorted(sweeps.get(best.game, ())))
        threads = tuple(sorted(set(threads) | set(swept)))
    else:
        swept = tuple(t for t in sweeps.get(best.game, ()) if t in threads)  # read anyway: whole
    return Job(best.game, threads, best.rank, budget, best.why, swept)


def next_due(now: datetime, plans: dict[str, GamePlan], sessions: dict[Hashable, SessionState]) -> datetime | None:
    """The earliest moment something becomes due (for the service's wait)."""
    moments: list[datetime] = []
    stretches = {key: stretch([p for p in plans.values() if p.session == key], s.min_interval)
                 for key, s in sessions.items()}
    for plan in plans.values():
        if plan.not_before is not None and plan.not_before > now:
            moments.append(plan.not_before)
            continue
        for thread in plan.threads.values():
            at = due_at(plan, thread, stretches.get(plan.session, 1.0), now)
            if at is not None:
                moments.append(at)
            if thread.sweep_at is not None:
                moments.append(thread.sweep_at)
        if plan.crossing is not None:
            moments.append(plan.crossing)
        moments.append((plan.last_pass or now) + timedelta(seconds=plan.interval))
    return min(moments) if moments else None


__all__ = ["DUE", "HOT", "IDLE_AFTER", "IDLE_PASS", "GamePlan", "Job", "MAX_STRETCH", "MOVED", "PAGE_BUDGET",
           "QUIET", "SWEEP", "SessionState", "ThreadState", "URGENT", "UTILISATION", "due_at", "next_due", "pick", "stretch"]
