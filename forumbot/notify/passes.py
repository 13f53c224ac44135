"""What one pass of the director-by-PM did (``PassResult``), below the notifier and the
parts it runs each pass (the switchboard, the nights by PM): they fill it in without
knowing the notifier that made it."""

from __future__ import annotations

from dataclasses import dataclass, field

from forumbot.notify.pmbox import SendOutcome
from parsers.pm import PrivateMessage

__all__ = ["PassResult"]


@dataclass
class PassResult:
    """What one pass of the notifier did (for logs and tests)."""

    read: list[PrivateMessage] = field(default_factory=list)  # the director's new messages
    commands: int = 0
    queued: list[int] = field(default_factory=list)  # PM rows queued
    told: list[str] = field(default_factory=list)  # matters told
    sent: list[SendOutcome] = field(default_factory=list)
    foreign: int = 0  # commands from others, refused
