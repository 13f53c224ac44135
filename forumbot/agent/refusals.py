"""The errors that are a person's to fix — a wrong config, a refused command, a forum
that says no, a game already running: a command says them in one line (错误：…), the
service shows them as that game's problem; anything else is a bug and keeps its
traceback."""

from __future__ import annotations


def domain_errors() -> tuple[type[BaseException], ...]:
    from engine.cards import CardError
    from engine.state import StateError
    from forumbot.config.gamefile import ConfigError
    from forumbot.game.director import DirectorError
    from forumbot.discuz.errors import ForumError
    from forumbot.agent.instance import InstanceError
    from forumbot.agent.journal import LogFileError
    from forumbot.store.outbox import OutboxError
    from forumbot.config.secrets import SecretError
    from forumbot.store.base import StoreOpenError
    from forumbot.store.cards import ProposalDecidedError

    return (ConfigError, DirectorError, StateError, CardError, OutboxError, SecretError, ForumError,
            ProposalDecidedError, StoreOpenError, InstanceError, LogFileError)


__all__ = ["domain_errors"]
