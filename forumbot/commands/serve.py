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
              help="各局配置所在的文件夹（局名.toml 或 局名/game.toml）；也可以用环境变量 FORUMBOT_GAMES "
                   "指定（--game 和 status --all 也读它）。")
@click.option("--service", "service_file", envvar="FORUMBOT_SERVICE", type=click.Path(dir_okay=False),
              help="服务配置文件（其中的 [service] 表：各局文件夹、导演台地址与端口、日志文件…）；也可以用 FORUMBOT_SERVICE 指定。")
@click.option("--desk-host", default=None, help="导演台的地址（默认 127.0.0.1）。")
@click.option("--desk-port", default=None, type=int, help="导演台的端口（默认 8765）。")
@click.option("--no-desk", is_flag=True, help="不开导演台（运行状况只能用 forumbot status --all 看）。")
@click.option("-v", "--verbose", is_flag=True, help="输出调试日志。")
@friendly
def serve(games: str | None, service_file: str | None, desk_host: str | None, desk_port: int | None,
          no_desk: bool, verbose: bool) -> None:
    """一个进程运行文件夹里的每一局：一个导演台，每个论坛账号只登录一次。

    文件夹里的每个 局名.toml（或 局名/game.toml）是一局，和 forumbot run 一样有自己的
    数据库、待发帖子和审计日志。运行中加入、修改或移走的局不用重启就会生效；一局出错
    不会影响其他局。同一论坛、同一机器人账号的各局共用一次登录、一个请求节流和一个
    灌水间隔计时。

    导演台在 http://127.0.0.1:8765/ 列出每一局，每局的导演台在 /g/局名/ 下；/healthz
    给监控程序读。同一文件夹的第二个 serve，或对服务正在运行的一局再开 forumbot run，
    都会被拒绝。

    例：FORUMBOT_PASSWORD=… forumbot serve --games games/
    """
    from forumbot.config.gamefile import ConfigError
    from forumbot.commands._faces import desk as the_desk
    from forumbot.service import Service, ServiceBusy, ServiceSettings, load_service
    from forumbot.service import logs

    if service_file:
        settings = load_service(service_file)
        if games:
            settings = settings.with_options(games=Path(games))
    elif games:
        settings = ServiceSettings(games=Path(games))
    else:
        raise click.UsageError("请指定各局所在的文件夹：--games 文件夹，或 --service service.toml（FORUMBOT_SERVICE）")
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
        face = the_desk()
        try:
            token = settings.desk_token()
            desk = face.start_service_desk(service, host=settings.desk_host, port=settings.desk_port,
                                      clock=service.clock, token=token)
        except (face.security_error, ConfigError) as exc:
            service.close()
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            service.close()
            raise click.ClickException(face.listen_error(settings.desk_host, settings.desk_port, exc,
                                                    port_option="--desk-port")) from None
        service.desk_url = desk.url
        click.echo(desk.address_line, err=True)
        if service.lock is not None:
            service.lock.update(desk={"url": " ".join(desk.urls)})

    def ask_stop(signum, _frame):
        log.info("收到信号 %s：正在停止（不再发出请求，等待立即结束）", signal.Signals(signum).name)
        service.stop.set()

    signal.signal(signal.SIGINT, ask_stop)
    signal.signal(signal.SIGTERM, ask_stop)
    try:
        service.run()
    finally:
        if desk is not None:
            desk.stop()
    log.info("已干净地停止")


commands = [serve]
