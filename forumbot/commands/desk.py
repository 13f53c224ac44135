"""``forumbot desk``: the director's web page for one game (and ``--desk`` for ``run``)."""

from __future__ import annotations

import click

from forumbot.commands._common import config_option, friendly


@click.command("desk")
@config_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. Anything but loopback requires FORUMBOT_DESK_TOKEN and a login.")
@click.option("--port", default=8765, show_default=True, type=int, help="Port to listen on.")
@friendly
def desk(config_path: str, host: str, port: int) -> None:
    """Serve the director's desk: the game, tallies, drafts to approve, cards, forms.

    Open the printed address in a browser (a phone on the same machine's network needs
    --host and a token). The agent (forumbot run) publishes what you approve here.

    Example: forumbot desk --config game.toml --port 8765
    """
    from forumbot.desk import DeskSecurityError, serve

    try:
        serve(config_path, host=host, port=port,
              ready=lambda url: click.echo(f"director's desk: {url}  (Ctrl-C to stop)"))
    except DeskSecurityError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def desk_options(fn):
    """The options ``forumbot run`` adds to start the desk beside the agent."""
    fn = click.option("--desk-port", default=8765, show_default=True, type=int, help="Port of the desk.")(fn)
    fn = click.option("--desk-host", default="127.0.0.1", show_default=True, help="Address of the desk.")(fn)
    fn = click.option("--desk", "with_desk", is_flag=True, help="Also serve the director's desk.")(fn)
    return fn


def start_desk_for_run(config_path: str, host: str = "127.0.0.1", port: int = 8765, *, clock=None):
    """Start the desk in a background thread for ``forumbot run --desk``; returns the
    ``DeskServer`` (call ``.stop()`` after the agent stops). Domain errors become a
    one-line ClickException like every command's."""
    from forumbot.desk import DeskSecurityError, start_desk

    try:
        server = start_desk(config_path, host=host, port=port, clock=clock)
    except DeskSecurityError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"desk: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    click.echo(f"director's desk: {server.url}", err=True)
    return server


commands = [desk]
