"""``python -m forumbot.demo.harness.agent_main --config game.toml --http-timeout 1.0``

``forumbot run`` with a chosen HTTP timeout: the harness makes the simulator answer
slowly on purpose and needs the agent to give up after about a second of wall time, not
the 30 s ``make_client`` uses against a real forum; a crash test may name moments for it
to die at (``--death-points``, ``deathpoints``). Everything else is ``forumbot run``:
the same runtime, client, agent loop, logging and clean stop on SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from pathlib import Path

import httpx

from forumbot.agent.loop import Agent
from forumbot.demo.harness.deathpoints import DeathPoints

from forumbot.notify import Notifier
from forumbot.agent.instance import hold_game
from forumbot.agent.journal import setup_logging
from forumbot.agent.health import Health
from forumbot.game.runtime import make_client, open_runtime

log = logging.getLogger("forumbot")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True)
    parser.add_argument("--http-timeout", type=float, default=30.0, help="wall seconds per request")
    parser.add_argument("--death-points", help="die at these moments (forumbot.demo.harness.deathpoints)")
    args = parser.parse_args(argv)
    rt = open_runtime(args.config)
    if args.death_points:
        DeathPoints(Path(args.death_points)).install(rt.store.db.conn)
    try:
        lock = hold_game(rt)  # one agent per game, as forumbot run
        setup_logging(False, rt.settings.agent.log_file, clock=rt.clock)
        timeout = httpx.Timeout(args.http_timeout, connect=min(args.http_timeout, 10.0))
        stop = threading.Event()
        client = make_client(rt, http=httpx.Client(timeout=timeout, follow_redirects=False), stop=stop)
        agent = Agent(rt, client, health=Health(lock), notifier=Notifier.for_agent)

        def ask_stop(signum, _frame) -> None:
            log.info("收到信号 %s：这一轮结束后停止", signal.Signals(signum).name)
            stop.set()

        signal.signal(signal.SIGINT, ask_stop)
        signal.signal(signal.SIGTERM, ask_stop)
        agent.start()
        agent.run(stop)
        client.save_session()
        log.info("已干净地停止")
    finally:
        rt.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
