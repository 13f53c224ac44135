"""``forumbot desk``: the director's web page for one game (and ``--desk`` for ``run``)."""

from __future__ import annotations

import logging

import click

from forumbot.commands._common import config_option, friendly

log = logging.getLogger("forumbot.desk")


@click.command("desk")
@config_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="监听的地址（0.0.0.0：本机的所有地址）。本机回环地址（127.0.0.1 等）以外的地址需要设置 "
                   "FORUMBOT_DESK_TOKEN，并要求登录。")
@click.option("--port", default=8765, show_default=True, type=int, help="监听的端口。")
@friendly
def desk(config_path: str, host: str, port: int) -> None:
    """打开导演台：在浏览器里看局面、计票，批准草稿，给判罚，录入事件。

    在浏览器里打开它打印出的地址。同一网络里的手机要用 --host 0.0.0.0 并设置口令
    （可用的地址会打印出来）。在这里批准的帖子由运行中的机器人（forumbot run）发出。

    例：forumbot desk --config game.toml --port 8765
    """
    from forumbot.commands._common import runtime
    from forumbot.commands._faces import desk as the_desk
    from forumbot.game.runtime import open_runtime

    # A config that cannot be read is said here, naming the file and the key — not by a
    # desk whose every page would answer 「导演台出错了」 (the state is looked for below).
    open_runtime(config_path, create=False, scratch=True).close()

    def ready(line: str) -> None:
        # The game's state must exist: the desk shows it and does not create one. Asked
        # once the address is settled, so an unsafe host or a taken port is said first.
        with runtime(config_path):
            pass
        click.echo(f"{line}（Ctrl-C 停止）")

    face = the_desk()
    try:
        face.serve(config_path, host=host, port=port, ready=ready)
    except face.security_error as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(face.listen_error(host, port, exc)) from None


def desk_options(fn):
    """The options ``forumbot run`` adds to start the desk beside the agent."""
    fn = click.option("--desk-port", default=8765, show_default=True, type=int, help="导演台的端口。")(fn)
    fn = click.option("--desk-host", default="127.0.0.1", show_default=True, help="导演台的地址。")(fn)
    fn = click.option("--desk", "with_desk", is_flag=True, help="同时打开导演台（网页）。")(fn)
    return fn


def start_desk_for_run(config_path: str, host: str = "127.0.0.1", port: int = 8765, *, clock=None,
                       record=None):
    """Start the desk in a background thread for ``forumbot run --desk``; returns the
    ``DeskServer`` (call ``.stop()`` after the agent stops), or None when it cannot listen
    (a taken port): the agent runs on without it — it has a game to count — says so in
    one line, and ``record`` (the instance lock) carries it to ``forumbot status``. A
    desk that would be unsafe (no token off loopback) stops the start instead: that is
    a setting to fix, not a passing condition."""
    from forumbot.commands._faces import desk as the_desk

    face = the_desk()
    try:
        server = face.start_desk(config_path, host=host, port=port, clock=clock)
    except face.security_error as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        message = face.listen_error(host, port, exc, port_option="--desk-port")
        log.warning("导演台没有打开：%s；代理程序照常运行，只是没有导演台", message)
        if record is not None:
            record.update(desk={"error": message})
        return None
    click.echo(server.address_line, err=True)
    if record is not None:
        record.update(desk={"url": " ".join(server.urls)})
    return server


commands = [desk]
