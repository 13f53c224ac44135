"""The service's log: every line a game's work writes carries the game's name —
``[第三局] 第2日最终计票 #12 已发布 (pid 345)`` — whichever module wrote it (the agent, the
client, the outbox), because the scheduler runs each game's pass with the game set in a
context variable. Under systemd the lines go to the journal (stderr); a log file is
optional (``[service].log_file``)."""

from __future__ import annotations

import logging
from pathlib import Path

from forumbot.clock import Clock

FORMAT = "%(asctime)s %(name)s %(levelname)s %(game)s%(message)s"


class GameName(logging.Filter):
    """Puts ``[game] `` (or nothing) into each record as ``game``."""

    def filter(self, record: logging.LogRecord) -> bool:
        from forumbot.service.runner import CURRENT_GAME

        name = CURRENT_GAME.get()
        record.game = f"[{name}] " if name else ""
        return True


def setup(verbose: bool, log_file: Path | None, *, clock: Clock | None) -> None:
    from forumbot.commands.run import setup_logging

    setup_logging(verbose, log_file, clock=clock, fmt=FORMAT, key="[service].log_file", filters=(GameName(),))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)


__all__ = ["FORMAT", "GameName", "setup"]
