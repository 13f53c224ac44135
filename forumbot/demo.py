"""``make demo``: a whole three-day game, played on the simulator, counted by the agent.

The simulator serves a Discuz-compatible forum on 127.0.0.1; scripted players post their
votes (changes, a change without a quote, a late vote, an edit that changes a target, a
lurker, an abstention, a tie the sheriff settles); the agent polls, rules, tallies and
drafts on a game clock that moves ten minutes per pass; the demo director approves each
manual draft after printing it and enters the nights' results. At the end it prints what
the bot posted and the URL where the threads can be read in a browser.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

from forumbot import director
from forumbot.agent import Agent, TickReport
from forumbot.instance import InstanceLock
from forumbot.outbox import Draft, DraftKind, DraftState
from forumbot.runtime import Runtime, make_client, open_runtime
from forumbot.scenario import (BOT, END, GAME_START, PASSWORD, Driver, World, build_world, config_from,
                               write_config)
from forumbot.simulator import SimClock, Simulator


@dataclass
class Game:
    """A scripted game wired up: simulator, world, config, runtime, agent, driver."""

    sim: Simulator
    world: World
    clock: SimClock
    rt: Runtime
    agent: Agent
    driver: Driver
    approved: list[Draft] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # what the agent's passes reported
    lock: InstanceLock | None = None  # held while the desk shows the agent's health (--desk)

    def close(self) -> None:
        if self.lock is not None:
            self.lock.release()
        self.rt.close()


EXAMPLE_CONFIG = Path(__file__).resolve().parents[1] / "config.toml"


def setup_game(workdir: Path, *, clock: SimClock | None = None, sim: Simulator | None = None,
               config_source: Path | None = None, **agent_settings: object) -> Game:
    """The scripted game on a fresh simulator. The config is ``config_source`` (the
    project's config.toml describes this game) pointed at the simulator, or one written
    from the scenario."""
    clock = clock or SimClock(start=GAME_START - timedelta(minutes=20))
    sim = sim or Simulator(clock=clock)
    world = build_world(sim)
    base_url = sim.start()
    if config_source is not None:
        config = config_from(config_source, workdir / "game.toml", base_url, workdir / "game.sqlite",
                             **agent_settings)
    else:
        config = write_config(workdir / "game.toml", world, base_url, workdir / "game.sqlite", **agent_settings)
    rt = open_runtime(config, clock=clock)
    client = make_client(rt)
    agent = Agent(rt, client)
    driver = Driver(world)
    driver.on_night = lambda action: director.record_night(rt, action.day, list(action.out), clock.now())
    return Game(sim, world, clock, rt, agent, driver)


def play(game: Game, *, until: datetime = END, step: timedelta = timedelta(minutes=10),
         approve: bool = True, on_tick: Callable[[TickReport], None] | None = None,
         on_approve: Callable[[Draft], None] | None = None,
         wait_for_director: Callable[[], bool] | None = None) -> None:
    """Advance the game clock ``step`` per pass: players post what is due, the agent
    ticks, the director approves what waits (printing it first via ``on_approve``).

    With ``wait_for_director`` the game clock stands still while it returns True (a
    person deciding on the desk) instead of the demo director approving."""
    game.agent.start()
    while game.clock.now() < until:
        game.driver.apply_due(game.clock.now())
        report = game.agent.tick()
        while wait_for_director is not None and wait_for_director():
            time.sleep(0.5)
            # Publish what the director approved meanwhile, but do not poll: each request
            # is spaced on the game clock (the client's throttle), which must stand still.
            waited = TickReport(at=game.clock.now())
            game.agent.publish(game.clock.now(), waited)
            report.published += waited.published
        game.errors += report.errors
        if on_tick:
            on_tick(report)
        if approve:
            for draft in director.waiting(game.rt):
                if on_approve:
                    on_approve(draft)
                game.approved.append(director.approve(game.rt, draft.id, game.clock.now()))
        game.clock.advance(seconds=step.total_seconds())
    game.agent.tick()  # publish what the last approvals released


def bot_posts(game: Game) -> list[tuple[str, int, str]]:
    """(thread key, pid, message) of every post the bot made, in order."""
    return game.world.bot_posts()


def keep_up(seconds: float | None, out) -> None:
    """Leave the forum up so the threads can be read in a browser."""
    try:
        if seconds is None and sys.stdin.isatty():
            input("The forum stays up until you press Enter… ")
        elif seconds:
            print(f"serving for {seconds:.0f} s more (Ctrl-C to stop)…", file=out)
            threading.Event().wait(seconds)
    except (KeyboardInterrupt, EOFError):
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep-serving", type=float, default=None,
                        help="seconds to keep the forum up at the end, to look at it in a browser "
                             "(default: until Enter when run in a terminal, else 0)")
    parser.add_argument("--quiet", action="store_true", help="only the summary")
    parser.add_argument("--desk", action="store_true",
                        help="you are the director: approve drafts and enter the nights on the desk "
                             "(http://127.0.0.1:8765/); the game waits for you")
    parser.add_argument("--config", type=Path, default=EXAMPLE_CONFIG if EXAMPLE_CONFIG.exists() else None,
                        help="the game config to play (default: the project's config.toml)")
    parser.add_argument("--discuz", choices=("x3", "7.2"), default="x3",
                        help="the simulated forum's generation: Discuz! X3.5 (default) or 7.2, the seeds' own")
    parser.add_argument("--gbk", action="store_true", help="serve the forum in GBK instead of UTF-8")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s")
    started = time.monotonic()
    out = sys.stdout

    def show(draft: Draft) -> None:
        if args.quiet:
            return
        print(f"\n── director approves draft #{draft.id} ({draft.kind.value}, thread {draft.tid}) ──", file=out)
        print(draft.body, file=out)

    def narrate(report: TickReport) -> None:
        if args.quiet:
            return
        for d in report.drafts:
            how = "auto-approved" if d.state is DraftState.APPROVED else "waits for the director"
            print(f"[{report.at:%m-%d %H:%M}] drafted #{d.id} {d.kind.value} ({how})", file=out)
        for p in report.published:
            if p.pid:
                print(f"[{report.at:%m-%d %H:%M}] published #{p.draft_id} as pid {p.pid} ({p.how.value})", file=out)
        for e in report.errors:
            print(f"[{report.at:%m-%d %H:%M}] {e}", file=out)

    with tempfile.TemporaryDirectory(prefix="forumbot-demo-") as tmp:
        import os

        os.environ.setdefault("FORUMBOT_PASSWORD", PASSWORD)
        clock = SimClock(start=GAME_START - timedelta(minutes=20))
        sim = Simulator(clock=clock, discuz=args.discuz, charset="gbk" if args.gbk else "utf-8")
        game = setup_game(Path(tmp), clock=clock, sim=sim, config_source=args.config,
                          poll_interval_seconds=600, poll_jitter_seconds=60)
        name = "Discuz! 7.2" if args.discuz == "7.2" else "Discuz! X3.5"
        print(f"forumbot demo: a simulated {name} forum ({sim.charset.upper()}) at {game.sim.base_url}", file=out)
        print(f"game: 8 players, 3 days, rule set simple14; bot account {BOT}", file=out)
        desk = None
        try:
            if args.desk:
                try:
                    desk = start_browser_director(game, out)
                except OSError as exc:  # the desk's port is taken: one line, not a traceback
                    from forumbot.desk import DEFAULT_PORT
                    from forumbot.desk.server import listen_error

                    print(listen_error("127.0.0.1", DEFAULT_PORT, exc, port_option=None), file=sys.stderr)
                    return 1
                play(game, on_tick=narrate, approve=False, wait_for_director=desk_waits(game, out))
            else:
                play(game, on_tick=narrate, on_approve=show)
            posts = bot_posts(game)
            print("\n══ what the bot posted ══", file=out)
            for subject, pid, message in posts:
                first = message.strip().splitlines()[0]
                print(f"pid {pid:>4}  {subject}: {first}", file=out)
            finals = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.FINAL_COUNT]
            for d in finals:
                print(f"\n── final count, day {d.day} (pid {d.pid}) ──\n{d.body}", file=out)
            announcements = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED)
                             if d.kind is DraftKind.ANNOUNCEMENT]
            for d in announcements:
                print(f"\n── announcement, day {d.day} (pid {d.pid}) ──\n{d.body}", file=out)
            print("\n── for the director: flags and card proposals (the bot proposes, you decide) ──", file=out)
            for day in (1, 2, 3):
                snapshot = game.rt.store.tally(day)
                for flag in (snapshot.data["flags"] if snapshot else []):
                    print(f"day {day} flag {flag['kind']}: {flag['floor']}楼 {flag['player']} — {flag['detail']}",
                          file=out)
            for p in game.rt.store.proposals():
                print(f"day {p.day} proposal #{p.id}: {p.player} {p.reason_code} ({p.color.value}?) {p.detail}",
                      file=out)
            tids = game.world.tids
            base = game.sim.base_url
            board, thread = (("forumdisplay.php?fid=2", "viewthread.php?tid=") if args.discuz == "7.2" else
                             ("forum.php?mod=forumdisplay&fid=2", "forum.php?mod=viewthread&tid="))
            print(f"\nRead the threads: {base}{board}", file=out)
            print(f"  voting day 2: {base}{thread}{tids['vote2']}", file=out)
            print(f"{len(posts)} bot posts, {len(game.sim.requests)} requests to the forum, "
                  f"{time.monotonic() - started:.1f} s", file=out)
            keep_up(args.keep_serving, out)
        finally:
            if desk is not None:
                desk.stop()
            game.close()
            game.sim.stop()
    return 0


def start_browser_director(game: Game, out, *, port: int | None = None, poll_seconds: float = 3.0):
    """Serve the desk on the game's clock; the scripted nights wait for the director.

    ``port``: the desk's port (default ``forumbot.desk.DEFAULT_PORT``; 0 picks a free one)."""
    from forumbot.desk import DEFAULT_PORT, start_desk
    from forumbot.health import Health
    from forumbot.instance import lock_path

    desk = start_desk(game.rt.config.path, port=DEFAULT_PORT if port is None else port, clock=game.clock,
                      poll_seconds=poll_seconds)
    # Held as `forumbot run` holds it, so the desk shows the demo's agent as running.
    game.lock = InstanceLock.acquire(lock_path(game.rt.settings.agent.database), role="agent",
                                     since=game.clock.now())
    game.lock.update(desk={"url": desk.url})
    game.agent.health = Health(game.lock)
    game.driver.on_night = lambda action: print(
        f"[{game.clock.now():%m-%d %H:%M}] night before day {action.day}: enter "
        f"{'、'.join(action.out)} as out on the desk ({desk.url}) to go on", file=out)
    print(f"You are the director: open {desk.url}", file=out)
    return desk


def desk_waits(game: Game, out) -> Callable[[], bool]:
    """True while a manual draft waits or a scripted night has not been entered."""
    said: set[str] = set()

    def waiting() -> bool:
        drafts = director.waiting(game.rt)
        nights = [a for a in game.driver.actions[:game.driver.done]
                  if a.kind == "night" and game.rt.store.night_result(a.day) is None]
        reason = (f"draft #{drafts[0].id} ({drafts[0].kind.value}) waits for your approval" if drafts else
                  f"the night before day {nights[0].day} waits for you" if nights else "")
        if reason and reason not in said:
            said.add(reason)
            print(f"[{game.clock.now():%m-%d %H:%M}] {reason}", file=out)
        return bool(reason)

    return waiting


if __name__ == "__main__":
    raise SystemExit(main())
