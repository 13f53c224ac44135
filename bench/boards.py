"""The forum's budget: 200 games in 4 boards on one bot account, read from the listings.

One simulator (127.0.0.1) holds 200 games of 12–20 players, 50 per board, each on day 1
with its 进程帖, 讨论帖 and 投票帖 (600 threads). One ``forumbot serve`` (a ``Service`` in a
thread of this process, on an accelerated clock: ×``FACTOR``) runs them all on one
account with the real settings — a request every 2 s, a 60 s poll, a 10 minute edit
sweep — first reading what changed from the boards' listings (``[agent].board_listing``,
the default), then, in the same run on the same games, polling every thread on its own
as before (``board_listing = false``). Running counts are drafted at every change
(interval 0) and left for the director (manual), so a draft is the moment the bot knew.

Measured, in game time and at the simulator:

* **requests per idle pass** (a poll interval in which nothing is posted): listing
  requests per board, thread reads besides the sweeps (goal: 1 per board, 0 thread
  reads), and the sweeps' own requests (200 voting threads once per 10 minutes);
* **requests per pass with one new vote**: listings + the thread reads of that poll
  interval, sweeps apart (goal: boards + 1);
* **vote → draft**: a vote posted at a random moment, until its game's running count is
  drafted (goal: ≤ 60 s + one request);
* **edit → count**: an earlier vote edited to another target (the listing does not move),
  until the game's tally shows the edit (goal: ≤ the edit sweep);
* the same passes and votes with per-thread polling, for comparison.
"""

from __future__ import annotations

import os
import random
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from forumbot.demo.harness import HarnessSimulator
from forumbot.demo.harness.many import ManyGames, build_games, write_games
from forumbot.demo.scenario import BOT, GAME_START, PASSWORD
from forumbot.game.clock import AcceleratedClock
from forumbot.game.runtime import open_runtime
from forumbot.store.outbox import DraftKind

GAMES = int(os.environ.get("FORUMBOT_BENCH_BOARDS_GAMES", "200"))  # fewer: a quick look
BOARDS = 4
FACTOR = 20.0  # game seconds per wall second: the scheduler must keep up with 200 games
POLL = 60.0
SPACING = 2.0
SWEEP_MINUTES = 10.0
VOTES = 8  # votes measured in each mode
PER_THREAD_VOTES = 3  # each may wait up to 20 polls (the stretch): fewer
EDITS = 6
AGENT = {"poll_interval_seconds": POLL, "poll_jitter_seconds": 0, "min_request_interval_seconds": SPACING,
         "running_count_interval_minutes": 0, "final_count_delay_minutes": 5,
         "edit_sweep_minutes": SWEEP_MINUTES, "board_listing": True}
POLICIES = {"running_count": "manual"}


@dataclass
class Mode:
    name: str
    listing_per_pass: list[float] = field(default_factory=list)  # per board
    reads_per_idle_pass: list[float] = field(default_factory=list)
    sweeps_per_pass: list[float] = field(default_factory=list)
    requests_with_vote: list[float] = field(default_factory=list)
    vote_latency: list[float] = field(default_factory=list)  # seconds
    edit_latency: list[float] = field(default_factory=list)
    missed: int = 0


class Counter:
    """Requests by kind, counted from the service's hooks (in its scheduler thread)."""

    def __init__(self, service) -> None:
        self.service = service
        self.lock = threading.Lock()
        self.listings = self.reads = self.sweeps = 0
        self._last: int | None = None
        service.on_pass = self._pass
        service.on_listing = self._listing

    def _count(self) -> int:
        return sum(s.client.request_count for s in self.service.pool.sessions.values())

    def _delta(self) -> int:
        now = self._count()
        delta = now - (self._last if self._last is not None else now)
        self._last = now
        return delta

    def _listing(self, session) -> None:
        with self.lock:
            self.listings += self._delta()

    def _pass(self, slot, job) -> None:
        with self.lock:
            spent = self._delta()
            if job.sweeps:
                self.sweeps += spent
            else:
                self.reads += spent

    def snapshot(self) -> tuple[int, int, int]:
        with self.lock:
            return self.listings, self.reads, self.sweeps


def _build(workdir: Path, clock: AcceleratedClock) -> tuple[HarnessSimulator, ManyGames, Path]:
    sim = HarnessSimulator(clock=clock, bot_name=BOT)
    many = build_games(sim, GAMES, start=GAME_START, deadline=GAME_START + timedelta(hours=12), seed=22)
    fids = [next(iter(sim.data.boards))] + [sim.add_forum(f"版杀{n}区") for n in range(2, BOARDS + 1)]
    with sim.data.lock:  # 50 games a board
        for index, game in enumerate(many.games):
            for tid in game.tids.values():
                sim.data.threads[tid].fid = fids[index % BOARDS]
                for post in sim.data.posts.values():
                    if post.tid == tid:
                        post.fid = fids[index % BOARDS]
    rnd = random.Random(5)
    for game in many.games:  # three votes each, so every game has a count
        people = game.plan.players
        for i, who in enumerate(people[:3]):
            game.vote(who, people[(i + 1) % len(people)], at=GAME_START + timedelta(minutes=10 + i))
        rnd.random()
    base = sim.start()
    folder = workdir / "games"
    write_games(many, folder, base, policies=POLICIES, **AGENT)
    return sim, many, folder


def _drafts(game, clock) -> list[datetime]:
    rt = open_runtime(game.config, clock=clock)
    try:
        return [d.created_at for d in rt.outbox.drafts() if d.kind is DraftKind.RUNNING_COUNT]
    finally:
        rt.close()


def _flagged(game, clock, pid: int) -> bool:
    rt = open_runtime(game.config, clock=clock)
    try:
        snap = rt.store.tally(1)
        return snap is not None and any(f["pid"] == pid and f["kind"] == "edit" for f in snap.data.get("flags", []))
    finally:
        rt.close()


def _wait(check, clock: AcceleratedClock, game_seconds: float) -> bool:
    end = time.monotonic() + game_seconds / FACTOR
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())


def _sleep_game(seconds: float) -> None:
    time.sleep(seconds / FACTOR)


def _warm(service, many: ManyGames, clock: AcceleratedClock) -> None:
    """Every game started and every thread read once, quickly (the throttle off), then the
    throttle back at 2 s and a few polls to settle."""
    def read_all() -> bool:
        slots = [service.slots.get(g.name) for g in many.games]
        return all(s is not None and s.plan is not None and s.plan.threads
                   and all(t.polled_at is not None for t in s.plan.threads.values()) for s in slots)

    def throttle(seconds: float) -> None:
        for session in service.pool.sessions.values():
            session.client.transport.throttle.min_interval = seconds

    end = time.monotonic() + 600
    while time.monotonic() < end and not read_all():
        throttle(0.0)
        time.sleep(0.2)
    throttle(SPACING)
    _sleep_game(3 * POLL)


def _measure_mode(mode: Mode, service, counter: Counter, many: ManyGames, sim, clock, rnd: random.Random,
                  *, edits: bool) -> None:
    # Idle passes: nothing posted for a whole edit sweep's worth of poll intervals.
    for _ in range(int(SWEEP_MINUTES * 60 / POLL)):
        a = counter.snapshot()
        _sleep_game(POLL)
        b = counter.snapshot()
        mode.listing_per_pass.append((b[0] - a[0]) / BOARDS)
        mode.reads_per_idle_pass.append(b[1] - a[1])
        mode.sweeps_per_pass.append(b[2] - a[2])
    # One new vote per poll interval, at a random moment in it.
    for _ in range(VOTES if mode.name == "board" else PER_THREAD_VOTES):
        game = rnd.choice(many.games)
        before = len(_drafts(game, clock))
        _sleep_game(rnd.uniform(0, POLL))
        a = counter.snapshot()
        people = game.plan.players
        voted = clock.now()
        game.vote(rnd.choice(people[3:]), rnd.choice(people), at=voted)
        limit = 25 * POLL if mode.name == "per-thread" else 5 * POLL
        if _wait(lambda: len(_drafts(game, clock)) > before, clock, limit):
            created = _drafts(game, clock)[-1]
            mode.vote_latency.append((created - voted).total_seconds())
        else:
            mode.missed += 1
        rest = (voted + timedelta(seconds=POLL) - clock.now()).total_seconds()
        if rest > 0:
            _sleep_game(rest)
        b = counter.snapshot()
        span = max((clock.now() - voted).total_seconds(), POLL)
        # The poll interval that began with the vote: its listings and thread reads.
        mode.requests_with_vote.append((b[0] - a[0] + b[1] - a[1]) * POLL / span)
    if not edits:
        return
    pending = []
    for game in rnd.sample(many.games, min(EDITS, len(many.games))):  # one edit a game: a second
        # edit could put back the first-seen target, which is no change to the count
        posts = [p for p in sim.posts(game.tids["vote1"]) if not p.first and "投票对象" in p.message]
        post = posts[0]
        target = next(p for p in game.plan.players if p not in post.message and p != post.author)
        _sleep_game(rnd.uniform(0, SWEEP_MINUTES * 60 / EDITS))
        sim.edit_post(post.pid, f"投票对象：{target}\n投票理由：编辑了", at=clock.now())
        pending.append((game, post.pid, clock.now()))
    for game, pid, at in pending:
        left = max(0.0, (at + timedelta(minutes=2 * SWEEP_MINUTES) - clock.now()).total_seconds())
        if _wait(lambda: _flagged(game, clock, pid), clock, left):
            mode.edit_latency.append(_first_flagged(game, clock, pid, at))
        else:
            mode.missed += 1


def _first_flagged(game, clock, pid: int, edited: datetime) -> float:
    """When the game's tally first showed the edit (its snapshot's time)."""
    rt = open_runtime(game.config, clock=clock)
    try:
        rows = rt.store.db.execute("SELECT json, at FROM snapshots WHERE kind = 'tally' AND day = 1 "
                                   "ORDER BY id").fetchall()
    finally:
        rt.close()
    import json

    for data, created in rows:
        if any(f.get("pid") == pid and f.get("kind") == "edit" for f in json.loads(data).get("flags", [])):
            return (datetime.fromisoformat(created) - edited).total_seconds()
    return float("nan")


def _per_thread(folder: Path) -> None:
    for path in folder.glob("*.toml"):
        text = path.read_text(encoding="utf-8")
        assert '"board_listing" = true' in text, path
        path.write_text(text.replace('"board_listing" = true', '"board_listing" = false'), encoding="utf-8")


def measure(workdir: Path) -> tuple[Mode, Mode]:
    from forumbot.service import Service, ServiceSettings

    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = AcceleratedClock(origin=GAME_START + timedelta(hours=2), factor=FACTOR)
    sim, many, folder = _build(workdir, clock)
    rnd = random.Random(22)
    board, thread = Mode("board"), Mode("per-thread")
    service = Service(ServiceSettings(games=folder, scan_seconds=5, desk=False), clock=clock)
    service.acquire()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            service.run()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    worker = threading.Thread(target=run, name="bench-service", daemon=True)
    worker.start()
    try:
        counter = Counter(service)
        _warm(service, many, clock)
        _measure_mode(board, service, counter, many, sim, clock, rnd, edits=True)
        _per_thread(folder)  # the same games, reloaded by the service's next scan
        _sleep_game(3 * POLL)
        _warm(service, many, clock)
        _measure_mode(thread, service, counter, many, sim, clock, rnd, edits=False)
    finally:
        service.stop.set()
        worker.join(60)
        sim.stop()
    if errors:
        raise errors[0]
    return board, thread


def _worst(values: list[float]) -> float:
    return max(values) if values else float("nan")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def run() -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as tmp:
        board, thread = measure(Path(tmp))
    one_request = SPACING
    rows = [
        {"benchmark": "boards", "figure": f"listing requests per board per idle pass ({GAMES} games, {BOARDS} boards)",
         "value": _mean(board.listing_per_pass), "unit": "req/board",
         "reference": f"per-thread polling: {_mean(thread.reads_per_idle_pass):.1f} thread reads per pass "
                      f"(the throttle's {POLL / SPACING:.0f}), {3 * GAMES} threads",
         "ratio": None, "goal": "1 per board"},
        {"benchmark": "boards", "figure": "thread reads per idle pass, sweeps apart",
         "value": _mean(board.reads_per_idle_pass), "unit": "req",
         "reference": f"the edit sweep: {_mean(board.sweeps_per_pass):.1f} req per pass "
                      f"({GAMES} voting threads every {SWEEP_MINUTES:g} min)",
         "ratio": None, "goal": "0"},
        {"benchmark": "boards", "figure": "requests per pass with one new vote (listings + reads, sweeps apart)",
         "value": _mean(board.requests_with_vote), "unit": "req",
         "reference": f"per-thread: {_mean(thread.requests_with_vote):.1f}", "ratio": None,
         "goal": f"boards + 1 = {BOARDS + 1}"},
        {"benchmark": "boards", "figure": f"worst vote → draft ({len(board.vote_latency)} votes)",
         "value": _worst(board.vote_latency), "unit": "s",
         "reference": f"per-thread polling: worst {_worst(thread.vote_latency):.0f} s "
                      f"({len(thread.vote_latency)} votes, {thread.missed} not drafted within 25 polls)",
         "ratio": (_worst(board.vote_latency) / _worst(thread.vote_latency)) if thread.vote_latency else None,
         "goal": f"≤ {POLL:.0f} s + one request ({POLL + one_request:.0f} s)"},
        {"benchmark": "boards", "figure": f"worst edit → count ({len(board.edit_latency)} edits on page 1)",
         "value": _worst(board.edit_latency), "unit": "s",
         "reference": f"{board.missed} vote(s)/edit(s) not seen in time", "ratio": None,
         "goal": f"≤ the edit sweep ({SWEEP_MINUTES * 60:.0f} s)"},
    ]
    return rows


__all__ = ["measure", "run"]


NOTES = """\
**boards** (issue 22): 200 games in 4 boards on one account, one `forumbot serve`, the real
settings (a request every 2 s, a 60 s poll, a 10 minute edit sweep), on a clock ×20; then
the same games in the same run with `[agent].board_listing = false` (every active thread
polled on its own, as before). Requests are counted from the service's own hooks: a
listing, a pass's thread reads, a pass's edit sweep.

* An idle pass costs one listing request per board and no thread read: 4 requests for 600
  threads, where per-thread polling spends the whole throttle (30 a minute) and still
  reaches each thread only every ~20 polls (the stretch).
* The edit sweep is the rest of the budget: each voting thread of a day being played is
  read again whole once per `edit_sweep_minutes` (200 one-page threads: 20 requests a
  minute). It is the lowest rank before passes without requests: listings and changed
  threads go first, so a vote is drafted within a poll whatever the sweeps cost; an edit
  waits for its sweep (the listing does not move on an edit), and the deadline's re-read
  catches every edit before the final count.
* How many games one account can serve: docs/service.md.
"""
