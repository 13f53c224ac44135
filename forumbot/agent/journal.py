"""The log lines a director reads in the journal: one line each, stamped in the forum's
time (game time under the demo's accelerated clock), to the console and an optional log
file that, when it cannot be written, is said once rather than a traceback per line.
``forumbot run`` and ``forumbot serve`` set it up the same way (the service adds the
game's name to each line, ``forumbot.service.logs``)."""

from __future__ import annotations

import logging
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

from forumbot.game.clock import AcceleratedClock, Clock
from forumbot.wording import os_error_zh


class LogFileError(ValueError):
    """The configured log file cannot be opened: a setting for the director to fix."""


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
            raise LogFileError(
                f"无法写入日志文件 {log_file}（{os_error_zh(exc)}）：请检查 {key} "
                "及其所在文件夹是否存在、可写") from None
    for handler in handlers:
        handler.setFormatter(ForumTimeFormatter(fmt, stamp))
        for one in filters:
            handler.addFilter(one)
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, handlers=handlers, force=True)
    logging.getLogger("httpx").setLevel(logging.WARNING)


__all__ = ["LOG_FORMAT", "ForumTimeFormatter", "LogFile", "LogFileError", "forum_time", "setup_logging"]
