"""Fifty games from one ``forumbot serve``, against one game per ``forumbot run``.

One simulator runs here (127.0.0.1) with 51 games of 12–20 players each, every one with a
first day of ``POSTS`` posts already on the forum (votes, quoted changes, discussion).
Fifty go in a folder for ``forumbot serve`` (one bot account for all of them); the 51st,
on another bot account, is run by ``forumbot run`` — the reference, in the same run, on the
same machine: both backfill, count, publish a running count and then poll idle threads.
Both share an accelerated clock (``FORUMBOT_CLOCK``, ×``FACTOR``) with the real settings:
``min_request_interval_seconds`` 2, ``poll_interval_seconds`` 60, flood control 15 s.

Measured:

* **peak RSS** (VmHWM) of the service's process and of the one-game agent's; the goal is
  the service under 150 MB for 50 games, against 50 × the one-game agent (we start one
  ``forumbot run``, not fifty: this 2-core machine would measure its own contention);
* **CPU per idle pass per game**, in this process afterwards: the same 50 databases,
  already read and counted, served by a ``Service`` in a thread; the scheduler thread's
  own CPU (``time.thread_time``) per pass while nothing changes on the forum, against the
  poll request alone (``DiscuzClient.read_new`` of one unchanged thread: the request, its
  page parsed, no store) times the threads the pass read — and, for scale, the same passes
  with the idle skip disabled (every day re-tallied each pass, as before);
* **the shared account's posts**: the gaps between its posts in the simulator's store
  (never less than the forum's ``floodctrl``), flood-control refusals, and login POSTs.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import httpx

from forumbot.game.clock import AcceleratedClock
from forumbot.demo.harness import HarnessSimulator, read_hwm_kb
from forumbot.demo.harness.many import ManyGames, build_games, write_games
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from forumbot.demo.scenario import BOT, GAME_START, PASSWORD

GAMES = 50
POSTS = 300  # player posts on each game's day 1
FACTOR = 100.0  # game seconds per wall second
RSS_GOAL_MB = 150.0
OTHER_BOT = "计票机器人二号"
AGENT = {"poll_interval_seconds": 60, "poll_jitter_seconds": 0, "min_request_interval_seconds": 2,
         "running_count_interval_minutes": 30}
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Measured:
    service_rss_mb: float = 0.0
    single_rss_mb: float = 0.0
    baseline_rss_mb: float = 0.0
    backfill_wall: float = 0.0
    posts: int = 0
    bot_gaps: list[float] = field(default_factory=list)
    floodctrl: int = 15
    refusals: int = 0
    logins: int = 0
    idle_pass_cpu_ms: float = 0.0  # per pass of one game, nothing changed
    idle_threads_per_pass: float = 0.0
    poll_cpu_ms: float = 0.0  # read_new of one unchanged thread, no store
    retally_pass_cpu_ms: float = 0.0  # per pass of one game with the idle skip disabled
    idle_passes: int = 0
    scheduler_pass_cpu_ms: float = 0.0  # the scheduler thread's CPU per pass, everything included
    notes: list[str] = field(default_factory=list)


def _env(clock: AcceleratedClock) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FORUMBOT_")}
    env.update(FORUMBOT_PASSWORD=PASSWORD, PYTHONUNBUFFERED="1")
    env[CLOCK_ENV] = clock_to_env(clock)
    return env


def _published_everywhere(games) -> bool:
    """Every game's voting thread holds a post by its bot (its running count)."""
    for game in games:
        bot = game.plan.game.get("bot", BOT)
        if not any(p.author == bot for p in game.world.sim.posts(game.tids["vote1"])):
            return False
    return True


def _baseline_rss(env: dict[str, str]) -> float:
    # VmHWM, not ru_maxrss: that carries this bench's own high-water mark across the spawn.
    done = subprocess.run([sys.executable, "-c", "import forumbot.agent.loop; print([l.split()[1] for l in "
                           "open('/proc/self/status') if l.startswith('VmHWM:')][0])"],
                          env=env, capture_output=True, text=True, cwd=ROOT)
    return int(done.stdout.strip() or 0) / 1024


def measure(workdir: Path) -> Measured:
    m = Measured()
    clock = AcceleratedClock(origin=GAME_START + timedelta(hours=6), factor=FACTOR)
    sim = HarnessSimulator(clock=clock, bot_name=BOT)
    many = build_games(sim, GAMES + 1, start=GAME_START, deadline=GAME_START + timedelta(hours=12), posts=POSTS,
                       seed=7)
    m.posts = sum(len(sim.posts(t)) for g in many.games for t in g.tids.values())
    single = many.games.pop()  # the reference game, on its own bot account
    many.add_user(OTHER_BOT)
    single.plan.game["bot"] = OTHER_BOT
    base = sim.start()
    folder, alone = workdir / "games", workdir / "alone"
    write_games(many, folder, base, **AGENT)
    solo = ManyGames(sim, [single], many.users)
    write_games(solo, alone, base, bot={"username": OTHER_BOT}, **AGENT)
    m.floodctrl = sim.settings.floodctrl
    env = _env(clock)
    m.baseline_rss_mb = _baseline_rss(env)
    logins_before = many.login_posts()
    began = time.monotonic()
    serve = subprocess.Popen([sys.executable, "-m", "forumbot", "serve", "--games", str(folder), "--desk-port", "0"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    run = subprocess.Popen([sys.executable, "-m", "forumbot", "run", "--config", str(single.config)], env=env,
                           stdout=subprocess.DEVNULL, stderr=open(workdir / "run.log", "w"), cwd=ROOT)
    try:
        line = serve.stderr.readline()
        port = line.split("127.0.0.1:")[1].split("/")[0] if "127.0.0.1:" in line else None
        threading.Thread(target=lambda: serve.stderr.read(), daemon=True).start()  # keep the pipe drained
        peak = {"serve": 0, "run": 0}

        def sample() -> None:
            peak["serve"] = max(peak["serve"], read_hwm_kb(serve.pid) or 0)
            peak["run"] = max(peak["run"], read_hwm_kb(run.pid) or 0)

        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not _published_everywhere(many.games + [single]):
            sample()
            time.sleep(0.2)
        m.backfill_wall = time.monotonic() - began
        if not _published_everywhere(many.games + [single]):
            m.notes.append("not every game had its running count published within 240 s")
        if port:  # the desk as an operator uses it: the list, one game's pages
            for path in ("/", f"/g/{quote(many.games[0].name)}/", "/healthz"):
                httpx.get(f"http://127.0.0.1:{port}{path}", timeout=30)
        settle = time.monotonic() + 15  # idle polling at the stretched intervals
        while time.monotonic() < settle:
            sample()
            time.sleep(0.2)
        sample()
        m.service_rss_mb, m.single_rss_mb = peak["serve"] / 1024, peak["run"] / 1024
    finally:
        for proc in (serve, run):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in (serve, run):
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
    times = sorted(p.dateline for p in many.bot_posts())
    m.bot_gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:])]
    m.refusals = sim.data.flood_refusals + sim.data.pm_flood_refusals
    m.logins = many.login_posts() - logins_before
    try:
        _idle_cpu(m, folder, clock)
    finally:
        sim.stop()
    return m


def _idle(report) -> bool:
    return report is not None and not (report.new_posts or report.edited_posts or report.drafts
                                       or report.published or report.errors)


def _idle_cpu(m: Measured, folder: Path, clock: AcceleratedClock) -> None:
    """The same 50 games in a ``Service`` in this process: CPU of each idle pass (the
    game's ``GameSlot.run``, in the scheduler's thread) and of the scheduler thread as a
    whole, against the poll request alone; then the same with the idle skip disabled."""
    import logging

    import forumbot.agent.loop as agent_module
    from forumbot.discuz import ThreadCursor
    from forumbot.service import Service, ServiceSettings
    from forumbot.service.game import GameSlot

    logging.getLogger("forumbot").setLevel(logging.ERROR)  # the stop's "run asked to end" lines
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    service = Service(ServiceSettings(games=folder), clock=clock)
    service.acquire()
    samples: dict[str, list[tuple[float, int]]] = {"idle": [], "retally": []}
    mode: dict[str, str | None] = {"now": None}
    real_run = GameSlot.run

    def timed_run(slot, job, turn):
        began = time.thread_time()
        report = real_run(slot, job, turn)
        key = mode["now"]
        if key is not None and job.threads and _idle(report):
            samples[key].append((time.thread_time() - began, len(job.threads)))
        return report

    GameSlot.run = timed_run  # type: ignore[method-assign]
    thread_cpu: dict[str, float] = {}

    def window(key: str, seconds: float) -> None:
        """``seconds`` of wall time in mode ``key``: the scheduler thread's CPU over it."""
        box: dict[str, float] = {}
        done = threading.Event()

        def mark(slot, job) -> None:  # runs in the scheduler's thread
            box.setdefault("t0", time.thread_time())
            box.setdefault("p0", service.passes)
            if done.is_set() and "t1" not in box:
                box["t1"], box["p1"] = time.thread_time(), service.passes

        service.on_pass = mark
        mode["now"] = key
        time.sleep(seconds)
        done.set()
        deadline = time.monotonic() + 10
        while "t1" not in box and time.monotonic() < deadline:
            time.sleep(0.05)
        mode["now"] = None
        service.on_pass = None
        if "t1" in box and box["p1"] > box["p0"]:
            thread_cpu[key] = (box["t1"] - box["t0"]) / (box["p1"] - box["p0"]) * 1000

    thread = threading.Thread(target=service.run, daemon=True)
    thread.start()
    try:
        time.sleep(8)  # every game started, caught up, decided once
        window("idle", 12)
        # The poll request alone, in the scheduler's own thread between two passes: one
        # unchanged thread's last page through the shared client, parsed, not stored.
        probed = threading.Event()
        poll_times: list[float] = []

        def probe(slot, job) -> None:
            if probed.is_set() or slot.agent is None or slot.rt is None:
                return
            client, rt = slot.agent.client.session.client, slot.rt
            tid = rt.config.days[0].vote_thread
            saved = rt.store.cursor(tid)
            cursor = ThreadCursor(tid, saved.last_page, saved.last_pid or 0, saved.total_pages, saved.ppp)
            for _ in range(30):
                t = time.thread_time()
                client.read_new(cursor)
                poll_times.append(time.thread_time() - t)
            probed.set()

        service.on_pass = probe
        probed.wait(60)
        service.on_pass = None
        m.poll_cpu_ms = statistics.median(poll_times) * 1000 if poll_times else float("nan")
        real_basis = agent_module.day_basis
        counter = iter(range(10**9))
        agent_module.day_basis = lambda store, day: (next(counter),)  # never equal: re-tally every pass
        try:
            window("retally", 12)
        finally:
            agent_module.day_basis = real_basis
    finally:
        service.stop.set()
        thread.join(60)
        GameSlot.run = real_run  # type: ignore[method-assign]
    idle = samples["idle"]
    if idle:
        m.idle_passes = len(idle)
        m.idle_pass_cpu_ms = statistics.median(s for s, _ in idle) * 1000
        m.idle_threads_per_pass = statistics.mean(n for _, n in idle)
    if samples["retally"]:
        m.retally_pass_cpu_ms = statistics.median(s for s, _ in samples["retally"]) * 1000
    m.scheduler_pass_cpu_ms = thread_cpu.get("idle", float("nan"))


def run() -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory(prefix="forumbot-bench-service-") as tmp:
        m = measure(Path(tmp))
    fifty = GAMES * m.single_rss_mb
    threads = m.idle_threads_per_pass or 1
    per_thread = m.idle_pass_cpu_ms / threads
    rows = [
        {"benchmark": "service", "figure": f"peak RSS, forumbot serve with {GAMES} games (12–20 players, "
                                           f"{POSTS} posts each on day 1)",
         "value": m.service_rss_mb, "unit": "MB",
         "reference": f"{GAMES} × one game's forumbot run ({m.single_rss_mb:.1f} MB, same run) = {fifty:.0f} MB; "
                      f"bare `import forumbot.agent.loop`: {m.baseline_rss_mb:.1f} MB",
         "ratio": m.service_rss_mb / fifty if fifty else None, "goal": f"< {RSS_GOAL_MB:.0f} MB for {GAMES} games"},
        {"benchmark": "service", "figure": "CPU per idle pass per game (its GameSlot.run, nothing changed; "
                                           f"median of {m.idle_passes} passes, {threads:.1f} threads read each)",
         "value": m.idle_pass_cpu_ms, "unit": "ms",
         "reference": f"the poll request alone (read_new of an unchanged thread, parsed, not stored): "
                      f"{m.poll_cpu_ms:.2f} ms × {threads:.1f} threads = {m.poll_cpu_ms * threads:.2f} ms",
         "ratio": m.idle_pass_cpu_ms / (m.poll_cpu_ms * threads) if m.poll_cpu_ms else None,
         "goal": "only the poll request's cost when nothing changed"},
        {"benchmark": "service", "figure": "CPU per idle pass per game with the idle skip disabled (every day "
                                           "re-tallied, as before)",
         "value": m.retally_pass_cpu_ms, "unit": "ms",
         "reference": f"with the skip: {m.idle_pass_cpu_ms:.2f} ms ({per_thread:.2f} ms per thread read)",
         "ratio": m.retally_pass_cpu_ms / m.idle_pass_cpu_ms if m.idle_pass_cpu_ms else None,
         "goal": "(reference)"},
        {"benchmark": "service", "figure": "the scheduler thread's whole CPU over the idle window per pass of "
                                           "any kind (choosing it, the folder scan, the desk's view; passes "
                                           "that read no thread included)",
         "value": m.scheduler_pass_cpu_ms, "unit": "ms",
         "reference": f"an idle pass that reads: {m.idle_pass_cpu_ms:.2f} ms (at ×{FACTOR:g} the per-second chores — "
                      f"folder scan every 5 game s, the desk's changes every wall second — weigh far more "
                      f"per pass than in real time)",
         "ratio": m.scheduler_pass_cpu_ms / m.idle_pass_cpu_ms if m.idle_pass_cpu_ms else None,
         "goal": "(reference)"},
        {"benchmark": "service", "figure": f"shared account: least gap between two of its posts "
                                           f"({len(m.bot_gaps) + 1} posts, {m.refusals} flood refusals of posts or PMs, "
                                           f"{m.logins} login POSTs for 51 games on 2 accounts)",
         "value": min(m.bot_gaps) if m.bot_gaps else float("nan"), "unit": "game s",
         "reference": f"the forum's flood interval: {m.floodctrl} s", "ratio": None,
         "goal": "never closer than the flood interval; 0 refusals; 1 login per account"},
        {"benchmark": "service", "figure": f"wall time until all {GAMES + 1} games were read, counted and their "
                                           "running count posted",
         "value": m.backfill_wall, "unit": "s",
         "reference": f"{m.posts:,} posts on the forum; clock ×{FACTOR:g}, 2 game s between requests", "ratio": None,
         "goal": "(no goal; bound by the throttle: " f"{m.posts / 10 / 0.5 / FACTOR:.0f} s of requests)"},
    ]
    if m.notes:
        rows[0]["reference"] = str(rows[0]["reference"]) + "; " + "; ".join(m.notes)
    return rows


NOTES = """
**How it is measured.** One simulator in the bench's process holds 51 games; fifty run in
one `forumbot serve` subprocess, the 51st (on another bot account) in one `forumbot run`
subprocess, side by side on the same accelerated clock, from their first read to idle
polling. Peak RSS is each process's VmHWM, sampled until they stop (the service's desk
served the list, one game's pages and `/healthz` once). We start one `forumbot run`, not
fifty, and multiply: fifty interpreters on this 2-core machine would mostly measure their
own contention, and each `run` process's memory is almost all its imports (see `game`).

**CPU per idle pass** is measured afterwards in the bench's own process on the same fifty
databases, with the service's scheduler in a thread: `time.thread_time()` around each
game's pass (`GameSlot.run`: the agent's pass and the service's bookkeeping after it),
counting only passes that read threads and found nothing (no new or edited post, nothing
drafted or published, no error). The reference is the poll request alone — `read_new` of
an unchanged thread's last page through the same shared client, the page parsed, nothing
stored — times the threads such a pass read, measured in the same thread in the same run.
What a pass adds to the request is the store's record of the read (posts, the page-fetch
record and the cursor in one transaction: one commit), the game's state and active days,
the day-basis query that lets the re-tally be skipped, the outbox, moderation and alarm
checks. "Idle skip disabled" makes `day_basis` never equal, so every pass re-tallies
every active day, as the agent did before. The scheduler row is the thread's whole CPU
over the idle window divided by the passes in it.

**Against the goals.** Memory: the fifty games' service stays far under 150 MB — the
interpreter and its imports are paid once (a bare `import forumbot.agent.loop` is most of one
game's `forumbot run`); each game adds its runtime, its SQLite connection (page cache cut
to 512 KiB) and its parsed rules. Idle CPU: the re-tally is skipped (the row with the
skip disabled shows what it cost), but an idle pass still costs about one and a half
poll requests, not one: the rest is the record of the read (one transaction, one commit:
the read is evidence, kept even when it found nothing), the day-basis query, and the
outbox, moderation and alarm checks — a few indexed queries each. That part of the goal
is not met to the letter; making it so would mean not recording reads that find nothing,
which the audit of "what did the bot see, when" relies on. Posts: the shared account's
posts keep the session's 16 s clock (the forum's 15 s plus one), with no refusal.

**Posts.** The gaps are between consecutive posts of the shared account in the
simulator's store (its own clock), over everything the service posted in the run.
"""

if __name__ == "__main__":
    for row in run():
        print(row)
