"""``forumbot run``: the agent beside a live game, until stopped."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from forumbot.clock import AcceleratedClock, Clock
from forumbot.commands._common import config_option, friendly, runtime
from forumbot.commands._console import terminal
from forumbot.commands.desk import desk_options, start_desk_for_run
from forumbot.wording import RULESET_ZH, os_error_zh

log = logging.getLogger("forumbot")

LOG_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"


def forum_time(clock: Clock | None) -> Callable[[float], datetime]:
    """Maps a log record's wall time to the agent's clock: the forum's time in the forum's
    zone (under the demo's accelerated clock, game time), so log lines line up with post
    times, deadlines and status."""
    if isinstance(clock, AcceleratedClock):
        return lambda t: clock.origin + timedelta(seconds=(t - clock.wall_origin) * clock.factor)
    tz = getattr(clock, "tz", None)
    if tz is not None:
        return lambda t: datetime.fromtimestamp(t, tz)
    if clock is not None:
        return lambda t: clock.now()
    return lambda t: datetime.fromtimestamp(t).astimezone()


class ForumTimeFormatter(logging.Formatter):
    """``2026-12-01 09:30:05+08:00``: the forum's time with its offset, never bare UTC."""

    def __init__(self, fmt: str, stamp: Callable[[float], datetime]) -> None:
        super().__init__(fmt)
        self.stamp = stamp

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return self.stamp(record.created).isoformat(sep=" ", timespec="seconds")


class LogFile(logging.FileHandler):
    """The configured ``log_file``. When it cannot be written (the disk is full) that is
    said once on stderr — not a traceback per log line — and the console keeps the log."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8")
        self.path = path
        self._failing: str | None = None

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802
        exc = sys.exc_info()[1]
        kind = f"{type(exc).__name__}:{getattr(exc, 'errno', '')}"
        if kind != self._failing:
            self._failing = kind
            why = os_error_zh(exc) if isinstance(exc, OSError) else exc
            sys.stderr.write(f"forumbot：无法写入日志文件 {self.path}（{why}）；"
                             "能写入之前，日志只输出到终端\n")


def setup_logging(verbose: bool, log_file: Path | None = None, *, clock: Clock | None = None,
                  fmt: str = LOG_FORMAT, key: str = "[agent].log_file",
                  filters: tuple[logging.Filter, ...] = ()) -> None:
    """The console (and ``log_file``), stamped in the forum's time. ``key`` names the
    setting a log file that cannot be written comes from (``forumbot serve`` passes its
    own format, key and the filter that names the game)."""
    stamp = forum_time(clock)
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if log_file is not None:
        try:
            handlers.append(LogFile(Path(log_file)))
        except OSError as exc:
            raise click.ClickException(
                f"无法写入日志文件 {log_file}（{os_error_zh(exc)}）：请检查 {key} "
                "及其所在文件夹是否存在、可写") from None
    for handler in handlers:
        handler.setFormatter(ForumTimeFormatter(fmt, stamp))
        for one in filters:
            handler.addFilter(one)
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, handlers=handlers, force=True)
    logging.getLogger("httpx").setLevel(logging.WARNING)


def hold_game(rt):
    """The game's single-instance lock for an agent on ``rt`` (``InstanceBusy``, a
    one-line refusal naming the holder, when another agent runs this game)."""
    from forumbot.instance import InstanceLock, lock_path

    return InstanceLock.acquire(lock_path(rt.settings.agent.database), role="agent", since=rt.clock.now())


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
    from forumbot.agent import Agent
    from forumbot.health import Health
    from forumbot.runtime import make_client

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

        agent = Agent(rt, client, progress=track, health=Health(lock))

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
            from forumbot.alarms import forum_words
            from forumbot.commands._common import Refusal

            why = (f"无法连接论坛 {client.base_url}" if report.unreachable
                   else f"无法登录：{forum_words(str(client.login_blocked))}" if client.login_blocked is not None
                   else "论坛上没有配置里的主题 " + "、".join(str(t) for t in report.missing_threads)
                   + "（见 forumbot status 的警报）")
            raise Refusal(f"这一轮没有完成：{why}")


commands = [run]
