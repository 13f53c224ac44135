"""The service's log: every line a game's work writes carries the game's name —
``[第三局] 第2日最终计票 #12 已发布 (pid 345)`` — whichever module wrote it (the agent, the
client, the outbox), because the scheduler runs each game's pass with the game set in a
context variable. Under systemd the lines go to the journal (stderr); a log file is
optional (``[service].log_file``). A game whose config names ``[agent].log_file`` gets
its own lines there too, as ``forumbot run`` would write them (:func:`game_log_file`)."""

from __future__ import annotations

import logging
from pathlib import Path

from forumbot.game.clock import Clock

FORMAT = "%(asctime)s %(name)s %(levelname)s %(game)s%(message)s"


class GameName(logging.Filter):
    """Puts ``[game] `` (or nothing) into each record as ``game``."""

    def filter(self, record: logging.LogRecord) -> bool:
        from forumbot.service.runner import CURRENT_GAME

        name = CURRENT_GAME.get()
        record.game = f"[{name}] " if name else ""
        return True


def setup(verbose: bool, log_file: Path | None, *, clock: Clock | None) -> None:
    from forumbot.agent.journal import setup_logging

    setup_logging(verbose, log_file, clock=clock, fmt=FORMAT, key="[service].log_file", filters=(GameName(),))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)


class OneGame(logging.Filter):
    """Only the lines written while the scheduler works on game ``name``."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.game = name

    def filter(self, record: logging.LogRecord) -> bool:
        from forumbot.service.runner import CURRENT_GAME

        return CURRENT_GAME.get() == self.game


def game_log_file(name: str, path: Path, *, clock: Clock | None) -> logging.Handler:
    """Game ``name``'s ``[agent].log_file``: its own lines, in ``forumbot run``'s format
    and the forum's time, beside the service's console and file. ``OSError`` when the
    file cannot be opened (the caller says it as the game's problem)."""
    from forumbot.agent.journal import LOG_FORMAT, ForumTimeFormatter, LogFile, forum_time

    handler = LogFile(Path(path))
    handler.setFormatter(ForumTimeFormatter(LOG_FORMAT, forum_time(clock)))
    handler.addFilter(OneGame(name))
    logging.getLogger().addHandler(handler)
    return handler


def drop_handler(handler: logging.Handler | None) -> None:
    if handler is not None:
        logging.getLogger().removeHandler(handler)
        handler.close()


__all__ = ["FORMAT", "GameName", "OneGame", "drop_handler", "game_log_file", "setup"]
