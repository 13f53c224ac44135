"""The ``forumbot`` command: a thin click layer over the library.

Every command lives in its own module under ``forumbot/commands/`` and exports a
``commands`` list; this module only gathers them, and hands the commands that open the
director's desk its entry points (the CLI and the desk are independent rooms). The group is a ``ChineseGroup``
(``forumbot/commands/_help.py``): every command added to it writes its help and its
usage errors in Chinese.
"""

from __future__ import annotations

import importlib
import pkgutil

import click

from forumbot import __version__
from forumbot import commands as _commands_pkg
from forumbot.commands._help import VERSION_MESSAGE, VERSION_OPTION_HELP, ChineseGroup


@click.group("forumbot", cls=ChineseGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="forumbot", help=VERSION_OPTION_HELP, message=VERSION_MESSAGE)
def main() -> None:
    """forumbot：版杀导演的助手，在 Discuz! 论坛上陪一局游戏跑到底。

    它读游戏的各个帖子，按规则判定每一票，按规则集的平票规则计票，替导演起草公示、
    计票和判罚通知；导演批准后才发出，每篇只发一次。

    每个命令后加 -h 查看它的用法，例：forumbot approve -h
    """


class _Desk:
    """The desk's entry points, imported when a command first opens it (Flask is not
    loaded for the commands that never do)."""

    def serve(self, *args, **kwargs):
        from forumbot.desk import serve

        return serve(*args, **kwargs)

    def start_desk(self, *args, **kwargs):
        from forumbot.desk import start_desk

        return start_desk(*args, **kwargs)

    def start_service_desk(self, *args, **kwargs):
        from forumbot.desk.service import start_service_desk

        return start_service_desk(*args, **kwargs)

    def listen_error(self, *args, **kwargs) -> str:
        from forumbot.desk.server import listen_error

        return listen_error(*args, **kwargs)

    @property
    def security_error(self) -> type[Exception]:
        from forumbot.desk import DeskSecurityError

        return DeskSecurityError


def _hand_in_the_desk() -> None:
    """The CLI and the desk do not import each other; the commands that open the desk get
    its entry points from here (``forumbot.commands._faces``)."""
    from forumbot.commands._faces import use_desk

    use_desk(_Desk())


def _register_commands() -> None:
    for info in sorted(pkgutil.iter_modules(_commands_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{_commands_pkg.__name__}.{info.name}")
        for command in getattr(module, "commands", []):
            main.add_command(command)


_hand_in_the_desk()
_register_commands()
