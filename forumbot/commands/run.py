"""``forumbot run``: the agent beside a live game, until stopped."""

from __future__ import annotations

import logging
import signal
import threading

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from forumbot.commands._common import config_option, friendly, runtime
from forumbot.commands._console import terminal
from forumbot.commands.desk import desk_options, start_desk_for_run
from forumbot.agent.instance import hold_game
from forumbot.agent.journal import setup_logging
from forumbot.wording import RULESET_ZH

log = logging.getLogger("forumbot")

@click.command("run")
@config_option
@click.option("--once", is_flag=True, help="只跑一轮（读帖、判定、发帖）就退出。")
@click.option("-v", "--verbose", is_flag=True, help="输出调试日志。")
@desk_options
@friendly
def run(config_path: str, once: bool, verbose: bool, with_desk: bool, desk_host: str, desk_port: int) -> None:
    """让机器人陪着游戏运行：读帖、判定、计票、起草，发出你批准的帖子。

    它一直运行，直到按 Ctrl-C 或收到停止信号（一秒内干净地停下：等待和重试立即结束；
    发到一半的帖子再发之前会先在论坛上查找）。加 --once 时，这一轮连不上论坛或登录
    不了、或配置里的帖子在论坛上不存在，退出码为 1；论坛连不上时最多约 90 秒就结束（连不上
    的第一个请求重试 4 次，每次连接最多等 10 秒，这一轮其余的请求不再发出）。密码来自环境变量 FORUMBOT_PASSWORD 或配置里的 [bot].password_file。
    一局同时只能有一个机器人运行：第二个会拒绝启动，
    并说明第一个是哪个进程、在哪台机器上。

    加 --desk 同时打开导演台网页（http://127.0.0.1:8765/）；端口被占用时机器人照常
    运行，只是没有导演台，forumbot status 会说明。

    例：FORUMBOT_PASSWORD=… forumbot run --config game.toml --desk
    """
    from forumbot.agent.loop import Agent
    from forumbot.notify import Notifier
    from forumbot.agent.health import Health
    from forumbot.game.runtime import make_client

    with runtime(config_path, create=True) as rt, hold_game(rt) as lock:
        setup_logging(verbose, rt.settings.agent.log_file, clock=rt.clock)
        stop = threading.Event()  # set by SIGINT/SIGTERM: ends even a retry's backoff at once
        client = make_client(rt, stop=stop)
        console = terminal(stderr=True)
        progress = Progress(TextColumn("backfill thread {task.fields[tid]}", markup=False), BarColumn(),
                            MofNCompleteColumn(), console=console, transient=True)

        def track(tid: int, total: int):
            task = progress.add_task("backfill", total=total, tid=tid)
            return lambda page: progress.update(task, completed=page)

        agent = Agent(rt, client, progress=track, health=Health(lock), notifier=Notifier.for_agent)

        def ask_stop(signum, _frame):
            log.info("收到信号 %s：正在停止（不再发出请求，等待立即结束）", signal.Signals(signum).name)
            stop.set()

        signal.signal(signal.SIGINT, ask_stop)
        signal.signal(signal.SIGTERM, ask_stop)
        log.info("forumbot 开始运行：%s（%s），数据库 %s", rt.config.path, RULESET_ZH.get(rt.config.rules.name, rt.config.rules.name),
                 rt.settings.agent.database)
        desk = start_desk_for_run(config_path, desk_host, desk_port, clock=rt.clock, record=lock) \
            if with_desk else None
        try:
            with progress:
                agent.start()
                report = agent.run(stop, max_ticks=1 if once else None)
        finally:
            if desk is not None:
                desk.stop()
        client.save_session()
        log.info("已干净地停止")
        if once and report is not None and (report.unreachable or client.login_blocked is not None
                                            or report.missing_threads):
            from forumbot.game.alarms import forum_words
            from forumbot.commands._common import Refusal

            why = (f"无法连接论坛 {client.base_url}" if report.unreachable
                   else f"无法登录：{forum_words(str(client.login_blocked))}" if client.login_blocked is not None
                   else "论坛上没有配置里的主题 " + "、".join(str(t) for t in report.missing_threads)
                   + "（见 forumbot status 的警报）")
            raise Refusal(f"这一轮没有完成：{why}")


commands = [run]
