"""The ``forumbot`` command: a thin click layer over the library.

Every command lives in its own module under ``forumbot/commands/`` and exports a
``commands`` list; this module only gathers them.
"""

from __future__ import annotations

import importlib
import pkgutil

import click

from forumbot import __version__
from forumbot import commands as _commands_pkg


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="forumbot")
def main() -> None:
    """forumbot — the director's assistant for 版杀 games on Discuz! forums.

    It reads the game's threads, rules on every vote, tallies with the rule set's tie
    rules and drafts the posts a director would type, publishing them once approved.
    """


def _register_commands() -> None:
    for info in sorted(pkgutil.iter_modules(_commands_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{_commands_pkg.__name__}.{info.name}")
        for command in getattr(module, "commands", []):
            main.add_command(command)


_register_commands()
