"""From a vote posted to the draft count that includes it.

The scripted game's forum (``forumbot.demo.scenario``) runs here on 127.0.0.1; the agent runs
as ``python -m forumbot run`` in a subprocess; both share an accelerated clock
(``FORUMBOT_CLOCK``, ×FACTOR). The agent polls every POLL game seconds (no jitter) and
drafts a running count whenever the tally changes (``running_count_interval_minutes =
0``). Players post VOTES first votes at random moments; a watcher here reads the agent's
database every few milliseconds and notes when a running-count draft linking the vote's
pid first appears.

Two measures of the same events:

* **game time**: draft ``created_at`` − the vote's forum time. It is the wait for the
  next poll (up to POLL) plus the pass's own work, which the accelerated clock inflates
  ×FACTOR (a pass that takes 0.1 s of wall time is 0.1 × FACTOR game seconds).
* **wall time**: when the watcher saw the draft − when the vote was posted. At ×FACTOR
  the poll interval is POLL / FACTOR wall seconds; what remains is the pass's real work.

Goal (issue 6): within one poll interval plus one second. In wall time here that is
POLL / FACTOR + 1 s; against a real forum (clock ×1) the wait is up to POLL and the work
is the same wall seconds, so the wall figure's "work" part is what the goal's one second
must cover.
"""

from __future__ import annotations

import os
import random
import sqlite3
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

from bench.game import _child
from forumbot.game.clock import AcceleratedClock
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from forumbot.demo.scenario import PASSWORD, PLAYERS, at, build_world, write_config
from forumbot.simulator import Simulator

FACTOR = 60.0
POLL = 60.0  # game seconds between polls
VOTES = 8
STARTUP_WALL = 4.0  # seconds for the child to start, log in and backfill


def _drafts_after(db: Path, last_id: int) -> list[tuple[int, str, str]]:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            return conn.execute("SELECT id, created_at, body FROM outbox WHERE id > ? AND kind = "
                                "'running_count' ORDER BY id", (last_id,)).fetchall()
    except sqlite3.Error:
        return []  # not created yet, or busy: look again


def measure(votes: int = VOTES, factor: float = FACTOR, poll: float = POLL, seed: int = 3) -> dict:
    rnd = random.Random(seed)
    origin = at(1, "09:20")
    clock = AcceleratedClock(origin=origin, factor=factor, wall_origin=time.time())
    sim = Simulator(clock=clock)
    world = build_world(sim)
    base = sim.start()
    seen: list[tuple[float, int, datetime, str]] = []  # (wall, draft id, created_at, body)
    posted: list[tuple[int, float, datetime]] = []  # (pid, wall, game time)
    with tempfile.TemporaryDirectory(prefix="forumbot-bench-latency-") as tmp:
        work = Path(tmp)
        db = work / "game.sqlite"
        config = write_config(work / "game.toml", world, base, db, poll_interval_seconds=poll,
                              poll_jitter_seconds=0, running_count_interval_minutes=0,
                              min_request_interval_seconds=2)
        stop = threading.Event()

        def watch() -> None:
            last = 0
            while not stop.is_set():
                for draft_id, created, body in _drafts_after(db, last):
                    seen.append((time.time(), draft_id, datetime.fromisoformat(created), body))
                    last = draft_id
                stop.wait(0.005)

        def play() -> None:
            time.sleep(STARTUP_WALL)
            for who in PLAYERS[:votes]:
                if stop.wait(rnd.uniform(0.3, 2.5)):
                    return
                target = rnd.choice([p for p in PLAYERS if p != who])
                now = clock.now()
                pid = sim.add_post(world.tids["vote1"], who, f"投票对象：{target}\n投票理由：测延迟", at=now)
                posted.append((pid, time.time(), now))
            time.sleep(max(3.0, 3 * poll / factor))
            done.set()

        done = threading.Event()
        watcher = threading.Thread(target=watch, daemon=True)
        player = threading.Thread(target=play, daemon=True)
        watcher.start()
        player.start()
        env = {**os.environ, "FORUMBOT_PASSWORD": PASSWORD, CLOCK_ENV: clock_to_env(clock)}
        child = _child([sys.executable, "-m", "forumbot", "run", "--config", str(config)], env,
                       work / "agent.log", until=done.is_set, timeout=120)
        stop.set()
        watcher.join()
        player.join()
        requests = list(sim.requests)
        sim.stop()
    rows = []
    for pid, wall, game in posted:
        hit = next(((w, c) for w, _, c, body in seen if f"&pid={pid}]" in body), None)
        if hit is None:
            rows.append((pid, None, None, None))
            continue
        # the poll that read the vote: the first request for the vote thread after it was posted
        read = next((r.at for r in requests if r.query.get("tid") == str(world.tids["vote1"])
                     and r.at >= game), None)
        work_wall = (hit[0] - (clock.wall_origin + (read - origin).total_seconds() / factor)) if read else None
        rows.append((pid, (hit[1] - game).total_seconds(), hit[0] - wall, work_wall))
    return {"rows": rows, "child": child, "factor": factor, "poll": poll}


def run() -> list[dict[str, object]]:
    m = measure()
    rows, factor, poll = m["rows"], m["factor"], m["poll"]
    found = [r for r in rows if r[1] is not None]
    cores = os.cpu_count()
    if not found:
        return [{"benchmark": "latency", "figure": f"check: no draft included any of {len(rows)} votes",
                 "value": float("nan"), "unit": "", "reference": m["child"].log[-300:], "ratio": None,
                 "goal": "none"}]
    game = [r[1] for r in found]
    wall = [r[2] for r in found]
    work = [r[3] for r in found if r[3] is not None]
    setup = f"{len(found)}/{len(rows)} votes; poll {poll:.0f} game s, clock ×{factor:.0f}; {cores} cores"
    goal_wall = poll / factor + 1.0
    out = [
        {"benchmark": "latency", "figure": f"vote → draft count, game time, max ({setup})",
         "value": max(game), "unit": "game s",
         "reference": f"mean {sum(game) / len(game):.1f} game s; poll interval {poll:.0f} game s",
         "ratio": max(game) / poll,
         "goal": f"≤ {poll:.0f} s + 1 s of work (= {poll + factor:.0f} game s at ×{factor:.0f})"},
        {"benchmark": "latency", "figure": "vote → draft count, wall time, max",
         "value": max(wall), "unit": "s",
         "reference": f"mean {sum(wall) / len(wall):.2f} s; poll interval {poll / factor:.2f} wall s",
         "ratio": max(wall) / goal_wall, "goal": f"≤ {goal_wall:.2f} s (one poll interval + 1 s)"},
    ]
    if work:
        out.append({"benchmark": "latency", "figure": "of which the pass's work (poll request → draft seen), wall, max",
                    "value": max(work), "unit": "s",
                    "reference": f"mean {sum(work) / len(work):.3f} s", "ratio": max(work) / 1.0,
                    "goal": "≤ 1 s (the goal's allowance beyond the poll interval)"})
    if len(found) < len(rows):
        out.append({"benchmark": "latency", "figure": f"check: {len(rows) - len(found)} votes never reached a draft",
                    "value": float("nan"), "unit": "", "reference": "", "ratio": None, "goal": "none"})
    return out


if __name__ == "__main__":
    m = measure()
    for r in m["rows"]:
        print(r)
    print(m["child"].log[-1500:])


NOTES = """
How to read the two latency figures. The accelerated clock runs ×60: one poll interval
(60 game s) is 1 wall second. The *wall* figure is the real answer to "within one poll
interval plus one second": the wait for the next poll (≤ 1 wall s here, ≤ 60 s on a real
forum) plus the pass's own work — reading the page, storing it, re-ruling and re-tallying
the day, drafting — which the third row isolates (tens of milliseconds for a day of a few
hundred posts). The *game-time* figure is the same events on the forum's clock: the wait
is the same fraction of the interval, but each wall millisecond of work counts 60 game
milliseconds, so at ×60 the goal in game time is 60 s + 60 s. On a real forum (×1)
game time and wall time are the same and the latency is at most the poll interval plus
the wall-time work measured here (plus jitter, which this run sets to 0: with
`poll_jitter_seconds = j` the wait can be up to interval + j).
"""
