"""``forumbot serve``: every game config in a folder, from one process (forumbot.service)."""

from __future__ import annotations

import logging
import signal
from pathlib import Path

import click

from forumbot.commands._common import friendly

log = logging.getLogger("forumbot.service")


@click.command("serve")
@click.option("--games", "games", envvar="FORUMBOT_GAMES", type=click.Path(file_okay=False),
              help="The folder of game configs (NAME.toml, or NAME/game.toml); or set FORUMBOT_GAMES "
                   "(as --game NAME and status --all read it).")
@click.option("--service", "service_file", envvar="FORUMBOT_SERVICE", type=click.Path(dir_okay=False),
              help="The service file ([service]: games, desk_host, desk_port, log_file…); or set FORUMBOT_SERVICE.")
@click.option("--desk-host", default=None, help="Address of the desk (default 127.0.0.1).")
@click.option("--desk-port", default=None, type=int, help="Port of the desk (default 8765).")
@click.option("--no-desk", is_flag=True, help="Serve no desk (health is then only in forumbot status --all).")
@click.option("-v", "--verbose", is_flag=True, help="Debug logging.")
@friendly
def serve(games: str | None, service_file: str | None, desk_host: str | None, desk_port: int | None,
          no_desk: bool, verbose: bool) -> None:
    """Run every game in a folder: one process, one desk, one forum session per account.

    Each NAME.toml in the folder is a game (as for forumbot run: its own database,
    outbox and audit log). Games added, changed or removed while it runs are picked up
    without a restart; one game's error never stops the others. Games on the same forum
    and bot account share one login, one throttle and one flood clock.

    The desk lists every game at http://127.0.0.1:8765/ and serves each game's desk
    below /g/NAME/; /healthz answers a monitor. A second serve on the same folder, or a
    forumbot run on a game the service runs, refuses.

    Example: FORUMBOT_PASSWORD=… forumbot serve --games games/
    """
    from forumbot.config import ConfigError
    from forumbot.desk import DeskSecurityError
    from forumbot.desk.server import listen_error
    from forumbot.service import Service, ServiceBusy, ServiceSettings, load_service
    from forumbot.service import logs

    if service_file:
        settings = load_service(service_file)
        if games:
            settings = settings.with_options(games=Path(games))
    elif games:
        settings = ServiceSettings(games=Path(games))
    else:
        raise click.UsageError("name the games folder: --games DIR, or --service service.toml (FORUMBOT_SERVICE)")
    settings = settings.with_options(desk_host=desk_host, desk_port=desk_port,
                                     desk=False if no_desk else None, verbose=verbose or None)
    service = Service(settings)
    try:
        service.acquire()
    except ServiceBusy as exc:
        raise click.ClickException(str(exc)) from None
    logs.setup(settings.verbose, settings.log_file, clock=service.clock)
    desk = None
    if settings.desk:
        from forumbot.desk.service import start_service_desk

        try:
            token = settings.desk_token()
            desk = start_service_desk(service, host=settings.desk_host, port=settings.desk_port,
                                      clock=service.clock, token=token)
        except (DeskSecurityError, ConfigError) as exc:
            service.close()
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            service.close()
            raise click.ClickException(listen_error(settings.desk_host, settings.desk_port, exc,
                                                    port_option="--desk-port")) from None
        service.desk_url = desk.url
        click.echo(desk.address_line, err=True)
        if service.lock is not None:
            service.lock.update(desk={"url": " ".join(desk.urls)})

    def ask_stop(signum, _frame):
        log.info("signal %s: stopping (no new request; waits end now)", signal.Signals(signum).name)
        service.stop.set()

    signal.signal(signal.SIGINT, ask_stop)
    signal.signal(signal.SIGTERM, ask_stop)
    try:
        service.run()
    finally:
        if desk is not None:
            desk.stop()
    log.info("stopped cleanly")


commands = [serve]
