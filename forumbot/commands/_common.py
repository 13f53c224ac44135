"""Pieces every director command shares: the --config option and error translation."""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator

import click

from forumbot.config import ConfigError
from forumbot.runtime import Runtime, open_runtime

config_option = click.option(
    "--config", "config_path", envvar="FORUMBOT_CONFIG", default="config.toml", show_default=True,
    type=click.Path(dir_okay=False), help="The game's config file (or set FORUMBOT_CONFIG).",
)


def _domain_errors() -> tuple[type[BaseException], ...]:
    from engine.cards import CardError
    from engine.state import StateError
    from forumbot.director import DirectorError
    from forumbot.errors import ForumError
    from forumbot.outbox import OutboxError
    from forumbot.secrets import SecretError
    from forumbot.instance import InstanceError
    from forumbot.store.base import StoreOpenError
    from forumbot.store.cards import ProposalDecidedError

    return (ConfigError, DirectorError, StateError, CardError, OutboxError, SecretError, ForumError,
            ProposalDecidedError, StoreOpenError, InstanceError)


def friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Domain errors become a one-line ClickException, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except _domain_errors() as exc:
            raise click.ClickException(str(exc)) from None
        except LookupError as exc:  # unknown draft / proposal ids
            raise click.ClickException(str(exc).strip("'\"")) from None

    return wrapper


@contextlib.contextmanager
def runtime(config_path: str) -> Iterator[Runtime]:
    rt = open_runtime(config_path)
    try:
        yield rt
    finally:
        rt.close()
