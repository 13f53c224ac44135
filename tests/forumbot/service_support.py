"""``forumbot serve`` beside the simulator, over real HTTP, on an accelerated clock: the
service in this process (a thread) or as a subprocess (``forumbot serve``), its desk on
a free port, many games on one simulated forum (``forumbot.demo.harness.many``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

import httpx

from forumbot.game.clock import AcceleratedClock
from forumbot.demo.harness import HarnessSimulator
from forumbot.demo.harness.many import ManyGames, build_games, write_games
from forumbot.game.runtime import CLOCK_ENV, clock_to_env, open_runtime
from forumbot.demo.scenario import BOT, GAME_START, PASSWORD
from forumbot.service import Service, ServiceSettings
from forumbot.simulator import Simulator
from tests.forumbot.agent_process import wait_for as _wait_for

FACTOR = 60.0  # a 60 s poll interval is one wall second
# [agent] settings of every game: the forum's time runs ×60, a request every 2 game s.
AGENT = {"poll_interval_seconds": 60, "poll_jitter_seconds": 0, "min_request_interval_seconds": 2,
         "running_count_interval_minutes": 30, "final_count_delay_minutes": 5}


@dataclass
class Served:
    many: ManyGames
    sim: Simulator
    clock: AcceleratedClock
    folder: Path
    service: Service | None = None
    thread: threading.Thread | None = None
    desk: object | None = None
    errors: list[BaseException] = field(default_factory=list)

    @property
    def base(self) -> str:
        return self.desk.url if self.desk is not None else ""  # type: ignore[attr-defined]

    def start(self, *, desk: bool = True) -> Served:
        os.environ["FORUMBOT_PASSWORD"] = PASSWORD
        self.service = Service(ServiceSettings(games=self.folder, scan_seconds=2), clock=self.clock)
        self.service.acquire()
        if desk:
            from forumbot.desk.service import start_service_desk

            self.desk = start_service_desk(self.service, port=0, clock=self.clock, poll_seconds=0)
            self.service.desk_url = self.desk.url  # type: ignore[attr-defined]

        def run() -> None:
            try:
                self.service.run()  # type: ignore[union-attr]
            except BaseException as exc:  # noqa: BLE001 - the test asserts there was none
                self.errors.append(exc)

        self.thread = threading.Thread(target=run, name="service", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.service is not None:
            self.service.stop.set()
        if self.thread is not None:
            self.thread.join(30)
        if self.desk is not None:
            self.desk.stop()  # type: ignore[attr-defined]
        self.sim.stop()

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.base.rstrip("/") + path, timeout=10)

    def game(self, name: str):
        return next(g for g in self.many.games if g.name == name)

    def summary(self, name: str):
        assert self.service is not None
        return next((g for g in self.service.view.games if g.name == name), None)

    def open(self, name: str):
        game = self.game(name)
        return open_runtime(game.config, clock=self.clock)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FORUMBOT_")}
        env.update(FORUMBOT_PASSWORD=PASSWORD, PYTHONUNBUFFERED="1")
        env[CLOCK_ENV] = clock_to_env(self.clock)
        return env

    def forumbot(self, *args: str, env: dict[str, str] | None = None, **popen) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "forumbot", *args], env=env or self.env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                                **popen)

    def cli(self, *args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "forumbot", *args], env=env or self.env(), capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def served(tmp: Path, count: int, *, votes: int = 3, deadline: timedelta = timedelta(hours=8),
           elapsed: timedelta = timedelta(hours=2), factor: float = FACTOR, names: list[str] | None = None,
           posts: int = 0, seed: int = 0, notify: dict[str, object] | None = None, days: int = 1,
           director: str | None = None, **agent: object) -> Served:
    """``count`` games on one simulator, day 1 begun ``elapsed`` ago with its deadline
    ``deadline`` after its start; each game's first ``votes`` players have voted.
    ``director``: one director for every game."""
    clock = AcceleratedClock(origin=GAME_START + elapsed, factor=factor)
    sim = HarnessSimulator(clock=clock, bot_name=BOT)  # on_bot_post: the crash test's window
    many = build_games(sim, count, start=GAME_START, deadline=GAME_START + deadline, posts=posts, seed=seed,
                       names=names, days=days, director=director)
    for game in many.games:
        people = game.plan.players
        for i, who in enumerate(people[:votes]):
            game.vote(who, people[(i + 1) % len(people)], at=GAME_START + timedelta(minutes=10 + i))
    base = sim.start()
    folder = tmp / "games"
    write_games(many, folder, base, notify=notify, **{**AGENT, **agent})
    return Served(many, sim, clock, folder)


def wait_for(check: Callable[[], object], timeout: float = 60.0, every: float = 0.05) -> object:
    """agent_process.wait_for with the service's longer default (fifty games start)."""
    return _wait_for(check, timeout=timeout, every=every)


def bot_times(many: ManyGames) -> list[datetime]:
    return sorted(p.dateline for p in many.bot_posts())


def gaps(times: list[datetime]) -> list[float]:
    return [(b - a).total_seconds() for a, b in zip(times, times[1:])]


__all__ = ["AGENT", "BOT", "FACTOR", "Served", "bot_times", "gaps", "served", "wait_for"]
