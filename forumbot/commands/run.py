"""``forumbot run``: the agent beside a live game, until stopped."""

from __future__ import annotations

import logging
import signal
import threading

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from forumbot.commands._common import config_option, friendly, runtime
from forumbot.commands.desk import desk_options, start_desk_for_run

log = logging.getLogger("forumbot")


def setup_logging(verbose: bool, log_file=None) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if log_file is not None:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)


@click.command("run")
@config_option
@click.option("--once", is_flag=True, help="One pass (poll, decide, publish) and exit.")
@click.option("-v", "--verbose", is_flag=True, help="Debug logging.")
@desk_options
@friendly
def run(config_path: str, once: bool, verbose: bool, with_desk: bool, desk_host: str, desk_port: int) -> None:
    """Run the agent beside the game: poll, rule, tally, draft, publish approved posts.

    It keeps going until Ctrl-C or SIGTERM (a clean stop within a second: waits and
    retries end at once; a post cut short is looked up before it is ever sent again).
    With --once it exits 1 when the pass could not reach the forum or log in.
    The password comes from FORUMBOT_PASSWORD or [bot].password_file.

    With --desk the director's web page is served too (http://127.0.0.1:8765/).

    Example: FORUMBOT_PASSWORD=… forumbot run --config game.toml --desk
    """
    from forumbot.agent import Agent
    from forumbot.runtime import make_client

    with runtime(config_path) as rt:
        setup_logging(verbose, rt.settings.agent.log_file)
        stop = threading.Event()  # set by SIGINT/SIGTERM: ends even a retry's backoff at once
        client = make_client(rt, stop=stop)
        console = Console(stderr=True)
        progress = Progress(TextColumn("backfill thread {task.fields[tid]}"), BarColumn(),
                            MofNCompleteColumn(), console=console, transient=True)

        def track(tid: int, total: int):
            task = progress.add_task("backfill", total=total, tid=tid)
            return lambda page: progress.update(task, completed=page)

        agent = Agent(rt, client, progress=track)

        def ask_stop(signum, _frame):
            log.info("signal %s: stopping (no new request; waits end now)", signal.Signals(signum).name)
            stop.set()

        signal.signal(signal.SIGINT, ask_stop)
        signal.signal(signal.SIGTERM, ask_stop)
        log.info("forumbot running for %s (%s), database %s", rt.config.path, rt.config.rules.name,
                 rt.settings.agent.database)
        desk = start_desk_for_run(config_path, desk_host, desk_port, clock=rt.clock) if with_desk else None
        if desk is not None:
            log.info("director's desk at %s", desk.url)
        try:
            with progress:
                agent.start()
                report = agent.run(stop, max_ticks=1 if once else None)
        finally:
            if desk is not None:
                desk.stop()
        client.save_session()
        log.info("stopped cleanly")
        if once and report is not None and (report.unreachable or client.login_blocked is not None):
            why = (f"could not reach the forum at {client.base_url}" if report.unreachable
                   else f"could not log in: {client.login_blocked}")
            raise click.ClickException(f"this pass was incomplete: {why}")


commands = [run]
