"""``forumbot simulate``: serve a Discuz!-compatible forum on 127.0.0.1."""

from __future__ import annotations

import threading

import click

from forumbot.simulator.script import ScriptError
from forumbot.simulator.serve import prepare_forum


@click.command("simulate")
@click.option("--port", type=int, default=8080, show_default=True,
              help="Port on 127.0.0.1 (0 picks a free one).")
@click.option("--discuz", type=click.Choice(["x3", "7.2"]), default=None,
              help="Discuz! generation: x3 (X3.5, the default) or 7.2.")
@click.option("--gbk", is_flag=True, help="Serve a GBK forum (pages and forms in GBK).")
@click.option("--script", "script", type=click.Path(dir_okay=False), default=None,
              help="A simulator script (TOML or JSON, format below); default: the demo game.")
@click.option("--ppp", type=click.IntRange(min=1), default=None,
              help="Posts per page (default 10, or the script's).")
def simulate(port: int, discuz: str | None, gbk: bool, script: str | None,
             ppp: int | None) -> None:
    """Serve a simulated Discuz! forum (X3.5 or 7.2) you can open in a browser.

    Without --script it seeds a demo game: board 版杀区 with a discussion thread and a
    voting thread, users 导演, 计票机器人 and 8 players (password demo-password). The
    same game is served by both generations.

    Example:

        forumbot simulate --port 8080 --script game.toml --ppp 10

        forumbot simulate --discuz 7.2 --gbk

    A script describes a forum, not a game (a game config with [game] is refused):
    TOML (.toml) or JSON, every table optional, times ISO or an offset from
    site.start such as "-2h", "+90s", "-1h30m".

    \b
    [site]
    start = "2026-11-30T09:00:00+08:00"
    discuz = "x3"            # or "7.2"
    charset = "utf-8"        # or "gbk"
    posts_per_page = 10
    [site.settings]          # switches, e.g. moderate_replies = true,
    floodctrl = 15           # captcha_login, captcha_post, newbiespan
    [[users]]
    name = "导演"
    password = "pw"          # uid, banned, registered = "-1m" optional
    [[forums]]
    name = "版杀区"
    [[threads]]
    key = "vote"
    forum = "版杀区"
    subject = "【饺子村】第一日 投票帖"
    author = "导演"
    message = "投票格式：投票对象：玩家名"
    at = "-2h"
    [[posts]]
    key = "v1"               # lets later posts quote it
    thread = "vote"
    author = "导演"
    message = "投票对象：饺子"
    at = "-1h"               # quote = "KEY", blocked = true optional
    [[edits]]
    post = "v1"
    message = "投票对象：包子"
    at = "-50m"
    """
    try:
        forum = prepare_forum(port=port, gbk=gbk, script=script, ppp=ppp, discuz=discuz)
        base = forum.sim.start()
    except ScriptError as exc:
        raise click.ClickException(str(exc)) from exc
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from exc
    name = "Discuz! 7.2" if forum.sim.discuz == "7.2" else "Discuz! X3.5"
    click.echo(f"{name} simulator ({forum.sim.charset}, {forum.source}) at {base}")
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
