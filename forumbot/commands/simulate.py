"""``forumbot simulate``: serve a Discuz!-compatible forum on 127.0.0.1."""

from __future__ import annotations

import threading

import click

from forumbot.simulator.script import ScriptError
from forumbot.simulator.serve import prepare_forum


@click.command("simulate")
@click.option("--port", type=int, default=8080, show_default=True,
              help="Port on 127.0.0.1 (0 picks a free one).")
@click.option("--gbk", is_flag=True, help="Serve a GBK forum (pages and forms in GBK).")
@click.option("--script", "script", type=click.Path(dir_okay=False), default=None,
              help="TOML/JSON script with users, boards, threads, posts (default: demo game).")
@click.option("--ppp", type=click.IntRange(min=1), default=None,
              help="Posts per page (default 10, or the script's).")
def simulate(port: int, gbk: bool, script: str | None, ppp: int | None) -> None:
    """Serve a simulated Discuz! X3.5 forum you can open in a browser.

    Without --script it seeds a demo game: board 版杀区 with a discussion thread and a
    voting thread, users 导演, 计票机器人 and 8 players (password demo-password).

    Example:

        forumbot simulate --port 8080 --script game.toml --ppp 10
    """
    try:
        forum = prepare_forum(port=port, gbk=gbk, script=script, ppp=ppp)
        base = forum.sim.start()
    except ScriptError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from exc
    click.echo(f"Discuz! simulator ({forum.sim.charset}, {forum.source}) at {base}")
    click.echo(f"  cookie prefix {forum.sim.cookiepre}; Ctrl-C stops it")
    for name, password in forum.accounts:
        click.echo(f"  account {name} / {password}")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        click.echo("stopping")
    finally:
        forum.sim.stop()


commands = [simulate]
