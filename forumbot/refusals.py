"""The errors that are a person's to fix — a wrong config, a refused command, a forum
that says no, a game already running: a command says them in one line (错误：…), the
service shows them as that game's problem; anything else is a bug and keeps its
traceback."""

from __future__ import annotations


def domain_errors() -> tuple[type[BaseException], ...]:
    from engine.cards import CardError
    from engine.state import StateError
    from forumbot.config import ConfigError
    from forumbot.director import DirectorError
    from forumbot.errors import ForumError
    from forumbot.instance import InstanceError
    from forumbot.journal import LogFileError
    from forumbot.outbox import OutboxError
    from forumbot.secrets import SecretError
    from forumbot.store.base import StoreOpenError
    from forumbot.store.cards import ProposalDecidedError

    return (ConfigError, DirectorError, StateError, CardError, OutboxError, SecretError, ForumError,
            ProposalDecidedError, StoreOpenError, InstanceError, LogFileError)


__all__ = ["domain_errors"]
