"""A scripted game wired up in this process: simulator, world, config, players, director.

``setup_plan`` builds the forum and the config for a ``GamePlan``; ``play_in_process`` is
the uninterrupted reference run (the agent ticking in this process on a ``SimClock``, ten
game minutes a pass, the way ``forumbot.demo.play`` does) for any plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

import httpx

from forumbot.game import director
from forumbot.game import gamelog
from forumbot.agent.loop import Agent, TickReport, final_draft
from forumbot.notify import Notifier
from forumbot.game.runtime import Runtime, make_client, open_runtime
from forumbot.demo.scenario import BOT, Action, Driver, GamePlan, World, build_world, write_config
from forumbot.simulator import SimClock
from forumbot.simulator.faults import FaultPlan
from forumbot.demo.harness.simulator import HarnessSimulator


class RecordingDriver(Driver):
    """A ``Driver`` that remembers the pid of every post it made (action index → pid)."""

    def __init__(self, world: World, actions: list[Action]) -> None:
        super().__init__(world, actions)
        self.posted: dict[int, int] = {}

    def _apply(self, action: Action) -> None:
        if action.kind != "post":
            super()._apply(action)
            return
        quote = self.pids[action.quote] if action.quote else None
        pid = self.world.sim.add_post(self.world.tids[action.thread], action.author, action.message,
                                      at=action.when, quote_pid=quote)
        self.posted[self.done] = pid
        if action.key:
            self.pids[action.key] = pid


@dataclass
class PlanGame:
    plan: GamePlan
    sim: HarnessSimulator
    world: World
    config: Path
    driver: RecordingDriver

    def vote_posts(self) -> list[tuple[Action, int]]:
        """Every scripted vote or change the driver has posted, with its pid."""
        out = []
        for index, pid in sorted(self.driver.posted.items()):
            action = self.plan.actions[index]
            if action.thread.startswith("vote") and action.message.startswith(("投票对象", "改票对象")):
                out.append((action, pid))
        return out


def setup_plan(plan: GamePlan, workdir: Path, clock, *, faults: FaultPlan | None = None,
               bot: dict[str, object] | None = None, forum: dict[str, object] | None = None,
               **agent: object) -> PlanGame:
    """``forum``: the simulator's ``discuz`` / ``charset`` (X3.5 UTF-8 by default)."""
    sim = HarnessSimulator(clock=clock, faults=faults, bot_name=BOT, **(forum or {}))
    world = build_world(sim, plan)
    base_url = sim.start()
    config = write_config(workdir / "game.toml", world, base_url, workdir / "game.sqlite", plan=plan,
                          bot=bot, **agent)
    return PlanGame(plan, sim, world, config, RecordingDriver(world, list(plan.actions)))


@dataclass
class Played:
    game: PlanGame
    rt: Runtime
    agent: Agent
    clock: SimClock
    errors: list[str] = field(default_factory=list)
    ticks: int = 0
    director_drafts: list = field(default_factory=list)
    applied: list = field(default_factory=list)  # what the director's scripted entries did

    def close(self) -> None:
        self.rt.close()
        self.game.sim.stop()


def play_in_process(plan: GamePlan, workdir: Path, *, faults: FaultPlan | None = None,
                    http_timeout: float | None = None, step: timedelta = timedelta(minutes=10),
                    on_tick: Callable[[TickReport, datetime], None] | None = None,
                    on_setup: Callable[[PlanGame], None] | None = None,
                    agent_down: Callable[[datetime], bool] | None = None,
                    settle_ticks: int = 30, **agent: object) -> Played:
    """The whole plan in this process: players post what is due, the agent ticks, the
    director approves what waits and enters the nights; after ``plan.end`` a few more
    passes publish what is still open. ``on_setup`` sees the game before the first pass
    (e.g. to plan faults), ``on_tick`` each pass's report; while ``agent_down(now)`` the
    players and the director go on but the agent does not run. The caller closes the result."""
    clock = SimClock(start=plan.days[0].start - timedelta(minutes=20))
    game = setup_plan(plan, workdir, clock, faults=faults, **agent)
    if on_setup:
        on_setup(game)
    rt = open_runtime(game.config, clock=clock)
    http = httpx.Client(timeout=http_timeout, follow_redirects=False) if http_timeout else None
    agent_ = Agent(rt, make_client(rt, http=http), notifier=Notifier.for_agent)
    game.driver.on_night = lambda a: director.record_night(rt, a.day, list(a.out), clock.now())
    game.driver.on_director = lambda a: director_acts(rt, a, clock.now())
    played = Played(game, rt, agent_, clock)
    agent_.start()

    def one_pass() -> None:
        for action in game.driver.apply_due(clock.now()):
            if action.kind == "event" and action.spec.kind == "night":
                # as ``forumbot night`` does: the morning announcement, once this pass's
                # entries (a successor named with the night) are in
                played.director_drafts.append(director.announcement_draft(rt, action.spec.day, clock.now()))
        if agent_down is not None and agent_down(clock.now()):
            clock.advance(seconds=step.total_seconds())
            return
        report = agent_.tick()
        played.ticks += 1
        played.errors += report.errors
        if on_tick:
            on_tick(report, clock.now())
        for draft in director.waiting(rt):
            director.approve(rt, draft.id, clock.now())
        clock.advance(seconds=step.total_seconds())

    while clock.now() < plan.end:
        one_pass()
    for _ in range(settle_ticks):
        if not rt.outbox.pending():
            break
        one_pass()
    return played


def director_acts(rt: Runtime, action: Action, now: datetime) -> object:
    """A scripted director's entry: an event through the game log, or a card."""
    if action.kind == "event":
        return gamelog.enter(rt, action.spec, now)
    player, colour, why, *points = action.spec
    return director.give_card(rt, player, colour, why, now, points=points[0] if points else None)


def final_published(rt: Runtime, day: int) -> bool:
    draft = final_draft(rt.outbox, day)
    return draft is not None and draft.state.value == "published"


__all__ = ["PlanGame", "Played", "RecordingDriver", "director_acts", "final_published", "play_in_process",
           "setup_plan"]
