"""Requests per poll at the simulator: what the agent costs a forum when nothing happens.

The agent runs in this process against the simulator on 127.0.0.1 with a manual game
clock (the scripted three-day game of ``forumbot.demo.scenario``, on day 2 at 12:00, every
thread already read once). Counted at the simulator (``sim.requests``):

* one idle pass (``Agent.tick``) over the active threads, and per thread (goal: exactly 1
  request per thread, the thread's last page, whose pids are all known);
* one pass after a single new post that lands on the last page, and after one that
  opens a new page (the new page must be read too: 2 requests for that thread).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from forumbot.agent.loop import Agent

from forumbot.notify import Notifier
from forumbot.game.state import current_state
from forumbot.game.runtime import make_client, open_runtime
from forumbot.demo.scenario import PASSWORD, Driver, at, build_world, write_config
from forumbot.simulator import SimClock, Simulator

GOAL_IDLE = "exactly 1 request per active thread"


class Setup:
    def __init__(self, workdir: Path) -> None:
        os.environ.setdefault("FORUMBOT_PASSWORD", PASSWORD)
        self.clock = SimClock(start=at(2, "12:00"))
        self.sim = Simulator(clock=self.clock)
        self.world = build_world(self.sim)
        Driver(self.world).apply_due(self.clock.now())  # days 1–2 up to noon
        base = self.sim.start()
        config = write_config(workdir / "game.toml", self.world, base, workdir / "game.sqlite",
                              poll_jitter_seconds=0)
        self.rt = open_runtime(config, clock=self.clock)
        self.agent = Agent(self.rt, make_client(self.rt), notifier=Notifier.for_agent)

    def requests_for(self, action) -> tuple[int, list[str]]:
        before = len(self.sim.requests)
        action()
        made = self.sim.requests[before:]
        return len(made), [f"{r.method} {r.query.get('tid', r.path)}:{r.query.get('page', '')}" for r in made]

    def tick(self) -> None:
        self.clock.advance(seconds=60)
        self.agent.tick()

    def close(self) -> None:
        self.rt.close()
        self.sim.stop()


def measure() -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="forumbot-bench-poll-") as tmp:
        s = Setup(Path(tmp))
        try:
            s.agent.start()
            s.tick()  # backfill every active thread
            s.tick()  # publish whatever the first pass drafted (running counts are auto)
            state = current_state(s.rt.config, s.rt.store)
            active = {tid for d in s.agent.active_days(state, s.clock.now()) for tid in d.threads()}
            idle, idle_log = s.requests_for(s.tick)
            talk = s.world.tids["talk2"]
            posts = len(s.sim.posts(talk))
            ppp = s.sim.posts_per_page
            # a post that stays on the last page (fill up to one short of a page boundary first)
            while (len(s.sim.posts(talk)) + 1) % ppp in (0, 1):
                s.sim.add_post(talk, "饺子", "补一句。", at=s.clock.now())
                s.tick()
            s.sim.add_post(talk, "包子", "我再说一句：月饼很可疑。", at=s.clock.now())
            same_page, same_log = s.requests_for(s.tick)
            # a post that opens a new page
            while len(s.sim.posts(talk)) % ppp != 0:
                s.sim.add_post(talk, "饺子", "补一句。", at=s.clock.now())
                s.tick()
            s.sim.add_post(talk, "包子", "新的一页。", at=s.clock.now())
            new_page, new_log = s.requests_for(s.tick)
            return {"threads": len(active), "idle": idle, "idle_log": idle_log,
                    "same_page": same_page, "same_log": same_log, "new_page": new_page,
                    "new_log": new_log, "posts": posts}
        finally:
            s.close()


def run() -> list[dict[str, object]]:
    m = measure()
    threads = int(m["threads"])  # type: ignore[arg-type]
    ref = (f"{threads} active threads (progress; day 1 awaiting its final count; day 2 vote "
           "and discussion), same run")
    return [
        {"benchmark": "poll", "figure": "requests per idle pass, per active thread",
         "value": m["idle"] / threads, "unit": "req/thread",  # type: ignore[operator]
         "reference": f"{m['idle']} requests for {ref}", "ratio": None, "goal": GOAL_IDLE},
        {"benchmark": "poll", "figure": "requests per pass with 1 new post (same last page)",
         "value": float(m["same_page"]), "unit": "req/pass",  # type: ignore[arg-type]
         "reference": f"idle pass: {m['idle']} requests; {ref}", "ratio": None,
         "goal": "idle + 0 (the post is on the page already read)"},
        {"benchmark": "poll", "figure": "requests per pass with 1 new post (opens a new page)",
         "value": float(m["new_page"]), "unit": "req/pass",  # type: ignore[arg-type]
         "reference": f"idle pass: {m['idle']} requests; {ref}", "ratio": None,
         "goal": "idle + 1 (the new page)"},
    ]


if __name__ == "__main__":
    m = measure()
    for k, v in m.items():
        print(k, v)


NOTES = """
Counted at the simulator, in process, with a manual clock (no timing involved). An idle
pass costs one request per active thread: the last page, whose pids are all known and
whose page count did not grow (`DiscuzClient.read_new`). A new post on that page costs
nothing more; a post that opens a new page costs one more request (the next page). A day
stays active until its final count is published (here day 1's final count waits for the
director), so the number of threads polled — not the cost per thread — is what grows when
the director is slow to approve.
"""
