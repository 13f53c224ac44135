"""The agent in a subprocess, killed and restarted, beside a simulated game.

``run_with_kills(plan, workdir, options)`` runs a ``GamePlan`` on a shared
``AcceleratedClock`` (the agent gets it through ``FORUMBOT_CLOCK``): the simulator and
two threads live in this process — the players (``RecordingDriver``, posting on schedule;
the director enters the nights) and the director (approving every waiting draft through
``forumbot.game.director``) — while the agent runs as ``python -m forumbot run`` (or
``forumbot.demo.harness.agent_main`` when an HTTP timeout is chosen). SQLite in WAL mode lets
both processes use the database.

The agent is SIGKILLed at chosen game moments and restarted at once. Some kills are
"window kills": armed at a moment, they fire in the simulator's server thread right
after the forum stored the bot's next post and before the answer is written — the agent
dies between the forum having the post and the agent recording it, the case the
outbox's marker lookup exists for.

Kills stay out of ``plan.watched`` windows (less ``watch_margin`` before them): a post
edited there must be seen before its edit, or the first-seen ruling differs (the agent
would see the edited text first and flag ``edited_before_seen``: a documented, different
result, not a bug).
"""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from forumbot.game import director
from forumbot.game.clock import AcceleratedClock
from forumbot.store.outbox import DraftState
from forumbot.game.runtime import Runtime, clock_to_env, open_runtime
from forumbot.demo.scenario import PASSWORD, GamePlan
from forumbot.simulator.model import StoredPost
from forumbot.simulator.pm import PmMessage
from forumbot.demo.harness.deathpoints import fired, write_points
from forumbot.demo.harness.game import PlanGame, final_published, setup_plan
from forumbot.demo.harness.simulator import RandomFaults


@dataclass
class KillOptions:
    factor: float = 3000.0  # game seconds per wall second
    kills: int = 20  # SIGKILLs at random game moments (ignored with kill_every)
    window_kills: int = 5  # how many of them wait for the next bot post to be stored
    kill_every: timedelta | None = None  # instead: one kill per this much game time (± 50 %)
    fault_rate: float = 0.0  # random simulator faults per request
    seed: int = 0
    http_timeout: float | None = None  # None: the real `forumbot run` (30 s timeout)
    slow_delay: float = 1.5  # wall seconds a SLOW fault waits
    watch_margin: timedelta = timedelta(hours=2)
    wall_limit: float = 600.0
    agent: dict[str, Any] = field(default_factory=dict)  # [agent] settings for the config
    # Named moments (each fires once per PM / key, besides the random kills):
    pm_kills: tuple[str, ...] = ()  # right after the forum stored a bot PM containing one of these
    death_points: dict[str, str] = field(default_factory=dict)  # the agent dies at a statement (deathpoints)
    gate: Callable[[PlanGame, Any], bool] | None = None  # may the players' due action go out yet?
    forum: dict[str, Any] = field(default_factory=dict)  # the simulator's discuz / charset


@dataclass(frozen=True)
class Kill:
    at: datetime  # game time
    kind: str  # "timed" | "window" | "pm" (after a stored bot PM) | "point" (a death point)
    rss_kb: int | None
    detail: str = ""


@dataclass
class KillRun:
    game: PlanGame
    workdir: Path
    database: Path
    log_file: Path
    stderr_file: Path
    cookie_file: Path
    kills: list[Kill] = field(default_factory=list)
    starts: int = 0
    unexpected_exits: list[str] = field(default_factory=list)
    thread_errors: list[str] = field(default_factory=list)
    peak_rss_kb: int = 0
    wall_seconds: float = 0.0
    finished: bool = False  # the game reached its end with nothing left to publish
    faults: Counter = field(default_factory=Counter)
    requests: int = 0

    @property
    def window_kills(self) -> int:
        return sum(1 for k in self.kills if k.kind == "window")


def read_hwm_kb(pid: int) -> int | None:
    """Peak resident set size (VmHWM) of a live process, in KiB."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


class AgentProcess:
    """Starts, kills and restarts the agent subprocess (thread-safe)."""

    def __init__(self, cmd: list[str], env: dict[str, str], cwd: Path, stderr: Path) -> None:
        self.cmd, self.env, self.cwd, self.stderr_path = cmd, env, cwd, stderr
        self.lock = threading.RLock()
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.peak_rss_kb = 0
        self.killed_by_us = False

    def start(self) -> None:
        with self.lock, open(self.stderr_path, "ab") as err:
            self.proc = subprocess.Popen(self.cmd, env=self.env, cwd=self.cwd, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err)
            self.starts += 1
            self.killed_by_us = False

    def _note_rss(self) -> int | None:
        rss = read_hwm_kb(self.proc.pid) if self.proc else None
        if rss:
            self.peak_rss_kb = max(self.peak_rss_kb, rss)
        return rss

    def kill(self) -> int | None:
        """SIGKILL now (if running); returns the process's peak RSS just before."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                return None
            rss = self._note_rss()
            self.killed_by_us = True
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            return rss

    def exited(self) -> int | None:
        """The exit code if the process is gone (None while it runs)."""
        with self.lock:
            return None if self.proc is None else self.proc.poll()

    def sample(self) -> None:
        with self.lock:
            if self.proc is not None and self.proc.poll() is None:
                self._note_rss()

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM (a clean stop), SIGKILL if it does not stop in ``timeout`` wall seconds."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                return self.proc.returncode if self.proc else None
            self._note_rss()
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                return self.proc.wait()


def kill_schedule(plan: GamePlan, options: KillOptions, rng: random.Random) -> list[datetime]:
    """Game moments to kill at: random (or about every ``kill_every``), outside the
    watched windows and their margins, sorted."""
    begin = plan.days[0].start - timedelta(minutes=10)
    end = plan.end - timedelta(minutes=15)
    blocked = [(a - options.watch_margin, b + timedelta(minutes=5)) for a, b in plan.watched]

    def allowed(t: datetime) -> bool:
        return all(not (a <= t <= b) for a, b in blocked)

    moments: list[datetime] = []
    span = (end - begin).total_seconds()
    if options.kill_every is not None:
        step = options.kill_every.total_seconds()
        t = begin + timedelta(seconds=step * rng.uniform(0.5, 1.5))
        while t < end:
            if allowed(t):
                moments.append(t)
            t += timedelta(seconds=step * rng.uniform(0.5, 1.5))
        return moments
    tries = 0
    while len(moments) < options.kills and tries < 100_000:
        tries += 1
        t = begin + timedelta(seconds=rng.uniform(0, span))
        if allowed(t):
            moments.append(t)
    return sorted(moments)


def agent_command(config: Path, http_timeout: float | None, death_points: Path | None = None) -> list[str]:
    if http_timeout is None and death_points is None:
        return [sys.executable, "-m", "forumbot", "run", "--config", str(config)]
    cmd = [sys.executable, "-m", "forumbot.demo.harness.agent_main", "--config", str(config),
           "--http-timeout", str(30.0 if http_timeout is None else http_timeout)]
    return cmd + (["--death-points", str(death_points)] if death_points is not None else [])


def run_with_kills(plan: GamePlan, workdir: Path, options: KillOptions) -> KillRun:
    """Play ``plan`` with the agent in a subprocess, killing it as ``options`` say.
    Leaves the simulator running (the caller checks the forum, then ``game.sim.stop()``)."""
    rng = random.Random(options.seed)
    origin = plan.days[0].start - timedelta(minutes=20)
    clock = AcceleratedClock(origin=origin, factor=options.factor)
    faults = RandomFaults(options.fault_rate, seed=options.seed, slow_delay=options.slow_delay) \
        if options.fault_rate > 0 else None
    log_file, stderr_file, cookie_file = workdir / "agent.log", workdir / "agent.stderr", workdir / "cookies.json"
    game = setup_plan(plan, workdir, clock, faults=faults, bot={"cookie_file": str(cookie_file)},
                      log_file=str(log_file), forum=options.forum, **options.agent)
    database = workdir / "game.sqlite"
    run = KillRun(game, workdir, database, log_file, stderr_file, cookie_file)
    schedule = kill_schedule(plan, options, rng)
    window_at = set(rng.sample(range(len(schedule)), min(options.window_kills, len(schedule))))
    blocked = [(a - options.watch_margin, b + timedelta(minutes=5)) for a, b in plan.watched]

    # The game starts now: the agent and this process agree on the clock from here.
    clock.wall_origin = time.time()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FORUMBOT_")}
    env.update(FORUMBOT_PASSWORD=PASSWORD, FORUMBOT_CLOCK=clock_to_env(clock), PYTHONUNBUFFERED="1")
    points = workdir / "death-points.json" if options.death_points else None
    if points is not None:
        write_points(points, options.death_points)
    agent = AgentProcess(agent_command(game.config, options.http_timeout, points), env, workdir, stderr_file)
    armed = threading.Semaphore(0)
    stop = threading.Event()

    def on_bot_post(post: StoredPost) -> None:
        now = clock.now()
        if any(a <= now <= b for a, b in blocked):
            return
        if armed.acquire(blocking=False):
            rss = agent.kill()
            run.kills.append(Kill(now, "window", rss, f"after the forum stored pid {post.pid}"))

    game.sim.on_bot_post = on_bot_post
    killed_after: set[int] = set()

    def on_bot_pm(message: PmMessage) -> None:
        if message.pmid not in killed_after and any(t in message.text for t in options.pm_kills):
            killed_after.add(message.pmid)
            rss = agent.kill()
            run.kills.append(Kill(clock.now(), "pm", rss, f"after the forum stored pm {message.pmid}"))

    if options.pm_kills:
        game.sim.on_bot_pm = on_bot_pm
    players = threading.Thread(target=_players, args=(game, clock, stop, run, options.gate), name="players",
                               daemon=True)
    desk = threading.Thread(target=_director, args=(game, clock, stop, run), name="director", daemon=True)
    watch = open_runtime(game.config, clock=clock)
    started = time.monotonic()
    agent.start()
    players.start()
    desk.start()
    try:
        next_kill = 0
        while time.monotonic() - started < options.wall_limit:
            now = clock.now()
            code = agent.exited()
            if code is not None:
                died = fired(points)[len([k for k in run.kills if k.kind == "point"]):] if points else []
                if died and code == -signal.SIGKILL:
                    run.kills.extend(Kill(now, "point", None, key) for key in died)
                elif not agent.killed_by_us:
                    run.unexpected_exits.append(f"{now:%m-%d %H:%M} exit code {code}")
                agent.start()
            if next_kill < len(schedule) and schedule[next_kill] <= now:
                if next_kill in window_at:
                    armed.release()
                else:
                    rss = agent.kill()
                    run.kills.append(Kill(now, "timed", rss))
                next_kill += 1
            if now >= plan.end and _settled(watch, plan):
                run.finished = True
                break
            agent.sample()
            time.sleep(0.005)
    finally:
        stop.set()
        agent.stop()
        players.join(5)
        desk.join(5)
        watch.close()
    run.starts = agent.starts
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    run.peak_rss_kb = agent.peak_rss_kb or children
    run.wall_seconds = time.monotonic() - started
    run.faults = Counter(faults.injected) if faults else Counter()
    run.requests = len(game.sim.requests)
    return run


def _settled(rt: Runtime, plan: GamePlan) -> bool:
    """Every day's final count published and nothing left in the outbox."""
    try:
        return all(final_published(rt, d.number) for d in plan.days) and not rt.outbox.pending()
    except Exception:  # noqa: BLE001 - a busy database: ask again next time
        return False


def _players(game: PlanGame, clock: AcceleratedClock, stop: threading.Event, run: KillRun,
             gate: Callable[[PlanGame, Any], bool] | None = None) -> None:
    rt = open_runtime(game.config, clock=clock)
    game.driver.on_night = lambda a: director.record_night(rt, a.day, list(a.out), clock.now())
    game.driver.on_director = lambda a: _director_acts(rt, a, clock.now())
    # An edit in a watched window waits until the agent has stored the post it edits: the
    # first-seen ruling must not depend on how fast a loaded machine runs the agent.
    game.driver.gate = lambda a: ((a.kind != "edit" or rt.store.has_post(game.driver.pids[a.key or ""]))
                                  and (gate is None or gate(game, a)))
    try:
        while not stop.is_set():
            try:
                game.driver.apply_due(clock.now())
            except Exception as exc:  # noqa: BLE001 - reported, the run goes on
                run.thread_errors.append(f"players: {type(exc).__name__}: {exc}")
                game.driver.done += 1  # skip the action that failed
            time.sleep(0.003)
    finally:
        rt.close()


def _director_acts(rt: Runtime, action, now: datetime) -> None:
    from forumbot.demo.harness.game import director_acts

    director_acts(rt, action, now)
    if action.kind == "event" and action.spec.kind == "night":
        director.announcement_draft(rt, action.spec.day, now)


def _confirm_nights(rt: Runtime, now: datetime) -> None:
    """A game whose nights the bot runs: the director confirms each night's proposal once
    it is final (nothing can change it any more), as ``forumbot night --confirm N``."""
    from forumbot.game import nightrun

    if not nightrun.active(rt):
        return
    for status in nightrun.status_of(rt, now):
        if status.proposal is not None and status.proposal.state == "proposed" and status.result is not None \
                and status.result.final:
            nightrun.confirm(rt, status.night, now, actor="director", version=status.proposal.version)
            director.announcement_draft(rt, status.night + 1, now)


def _director(game: PlanGame, clock: AcceleratedClock, stop: threading.Event, run: KillRun) -> None:
    rt = open_runtime(game.config, clock=clock)
    try:
        while not stop.is_set():
            try:
                for draft in director.waiting(rt):
                    if draft.state is DraftState.DRAFT:
                        director.approve(rt, draft.id, clock.now())
                _confirm_nights(rt, clock.now())
            except Exception as exc:  # noqa: BLE001 - reported, the run goes on
                run.thread_errors.append(f"director: {type(exc).__name__}: {exc}")
            time.sleep(0.01)
    finally:
        rt.close()


__all__ = ["AgentProcess", "Kill", "KillOptions", "KillRun", "agent_command", "kill_schedule",
           "read_hwm_kb", "run_with_kills"]
