"""Pieces every director command shares: the --config option and error translation."""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from typing import Any, Callable, Iterator

import click

from forumbot.config.gamefile import ConfigError
from forumbot.agent.refusals import domain_errors
from forumbot.game.runtime import Runtime, open_runtime
from forumbot.wording import os_error_zh

_config = click.option(
    "--config", "config_path", envvar="FORUMBOT_CONFIG", default="config.toml", show_default=True,
    type=click.Path(dir_okay=False), help="本局的配置文件（也可以用环境变量 FORUMBOT_CONFIG 指定）。",
)
_game = click.option(
    "--game", "game_name", envvar="FORUMBOT_GAME", default=None, metavar="局名",
    help="服务（forumbot serve）里的一局，按局名（它的配置在服务的各局文件夹里：由 "
         "FORUMBOT_SERVICE=service.toml 或 FORUMBOT_GAMES=文件夹 指定）。代替 --config。",
)


def config_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--config FILE`` (one game), or ``--game NAME`` (a game of ``forumbot serve``,
    resolved to its config in the service's folder): the command gets ``config_path``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, game_name: str | None = None, **kwargs: Any) -> Any:
        if game_name:
            try:
                kwargs["config_path"] = str(game_config(game_name))
            except ConfigError as exc:  # the service file itself is wrong
                raise click.ClickException(str(exc)) from None
        return fn(*args, **kwargs)

    return _config(_game(wrapper))


def game_config(name: str) -> Any:
    """The config of the service's game ``name`` (a one-line error naming the folder and
    the games it holds when there is no such game)."""
    from forumbot.service.scanner import find_game, scan

    from forumbot.service.settings import games_folder

    folder = games_folder()
    if folder is None:
        raise click.UsageError("--game 局名 要知道服务的设置：请设置 FORUMBOT_SERVICE=service.toml"
                               "（或 FORUMBOT_GAMES=文件夹），或改用这一局的 --config")
    try:
        found = find_game(folder, name)
        names = sorted(scan(folder)) if found is None else []
    except OSError as exc:
        raise click.ClickException(f"无法读取游戏文件夹 {folder}：{os_error_zh(exc)}") from None
    if found is None:
        raise click.ClickException(f"游戏文件夹 {folder} 里没有名为「{name}」的游戏"
                                   f"（有：{'、'.join(names) or '无'}）")
    return found.path


class Refusal(click.ClickException):
    """A command's one-line refusal: the director reads 「错误：第3日还没有开始」, not
    「Error: 第3日…」 (every message of the library, the config checker's too, is Chinese)."""

    def show(self, file: Any = None) -> None:
        click.echo("错误：" + self.format_message(), file=file, err=file is None)


def show_preview(shown: Any, as_json: bool) -> bool:
    """A change's preview (``forumbot deadline``, ``forumbot night --extend``): its JSON
    object with ``--json`` (True: nothing more is to be done), else its lines in Chinese."""
    if as_json:
        click.echo(json.dumps(shown.as_json(), ensure_ascii=False, indent=2))
        return True
    for line in shown.lines_zh():
        click.echo(line)
    return False


YES = ("y", "yes", "是", "是的", "确认", "好", "对")
NO = ("", "n", "no", "否", "不", "不是", "取消")


def confirm(question: str) -> bool:
    """Ask before a change; the director may answer y/n or 是/否. click.confirm would say
    「Error: invalid input」 to 是 — and an answer it cannot read is asked again, in
    Chinese. End of input (or Ctrl-C) aborts: 已取消."""
    while True:
        click.echo(f"{question} [y/N] ", nl=False)
        line = sys.stdin.readline()
        if not line:
            click.echo()
            raise click.Abort()
        answer = line.strip().lower()
        if answer in YES:
            return True
        if answer in NO:
            return False
        click.echo("请回答 y（是）或 n（否）。")


def friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Domain errors become a one-line refusal, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except domain_errors() as exc:
            raise Refusal(str(exc)) from None
        except LookupError as exc:  # unknown draft / proposal ids
            raise Refusal(str(exc).strip("'\"")) from None

    return wrapper


@contextlib.contextmanager
def runtime(config_path: str, *, create: bool = False, scratch: bool = False) -> Iterator[Runtime]:
    """The game's runtime. Its database must exist (a missing one is a one-line refusal
    that creates nothing) unless ``create`` (``run``, ``init``); ``scratch``: a missing
    one is a store in memory (``check``, ``login``: they keep nothing of a game)."""
    rt = open_runtime(config_path, create=create, scratch=scratch)
    try:
        yield rt
    finally:
        rt.close()
