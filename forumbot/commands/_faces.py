"""The other face some commands open: the director's desk (``run --desk``, ``desk``,
``serve``'s game list).

The CLI and the desk are independent rooms — neither imports the other (the import
contract in pyproject.toml holds it). ``forumbot.cli``, which gathers the commands and
sits above both, hands the desk's entry points in here once (``use_desk``); a command
asks for them with ``desk()``.
"""

from __future__ import annotations

from typing import Any, Protocol


class DeskEntry(Protocol):
    """What the CLI needs of the desk: start it (in the foreground, in a thread beside an
    agent, as the service's list), and say its refusals."""

    def serve(self, *args: Any, **kwargs: Any) -> Any: ...  # one game's desk, until Ctrl-C

    def start_desk(self, *args: Any, **kwargs: Any) -> Any: ...  # in a thread (run --desk)

    def start_service_desk(self, *args: Any, **kwargs: Any) -> Any: ...  # the service's list

    def listen_error(self, *args: Any, **kwargs: Any) -> str: ...  # a port it cannot listen on

    @property
    def security_error(self) -> type[Exception]: ...  # an unsafe address (no token off loopback)


_desk: DeskEntry | None = None


def use_desk(entry: DeskEntry) -> None:
    global _desk
    _desk = entry


def desk() -> DeskEntry:
    if _desk is None:  # a programming error: every command is reached through forumbot.cli
        raise RuntimeError("导演台没有交给命令行：请通过 forumbot.cli 调用命令")
    return _desk


__all__ = ["DeskEntry", "desk", "use_desk"]
