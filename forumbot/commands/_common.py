"""Pieces every director command shares: the --config option and error translation."""

from __future__ import annotations

import contextlib
import functools
import re
from typing import Any, Callable, Iterator

import click

from forumbot.config import ConfigError
from forumbot.runtime import Runtime, open_runtime

config_option = click.option(
    "--config", "config_path", envvar="FORUMBOT_CONFIG", default="config.toml", show_default=True,
    type=click.Path(dir_okay=False), help="本局的配置文件（也可以用环境变量 FORUMBOT_CONFIG 指定）。",
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


class Refusal(click.ClickException):
    """A command's one-line refusal, its prefix in the message's language: the director
    reads 「错误：第3日还没有开始」, not 「Error: 第3日…」 (the config checker's messages,
    which name TOML keys, are English and keep click's 「Error:」)."""

    def show(self, file: Any = None) -> None:
        message = self.format_message()
        prefix = "错误：" if _CJK.search(message) else "Error: "
        click.echo(prefix + message, file=file, err=file is None)


_CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")


def friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Domain errors become a one-line refusal, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except _domain_errors() as exc:
            raise Refusal(str(exc)) from None
        except LookupError as exc:  # unknown draft / proposal ids
            raise Refusal(str(exc).strip("'\"")) from None

    return wrapper


@contextlib.contextmanager
def runtime(config_path: str) -> Iterator[Runtime]:
    rt = open_runtime(config_path)
    try:
        yield rt
    finally:
        rt.close()
