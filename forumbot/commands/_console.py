"""The terminal's rich console: what it prints is text, never markup.

Player-written strings reach the terminal everywhere — names, targets, reasons, post
text, PM text, alarm and flag details. Printed through rich's default console, a post
``投票对象：小红[/]`` ends ``forumbot status`` in a ``MarkupError``, a player named
``[b]x[/b]`` shows in bold and one named ``:fire:`` as an emoji. Escaping each
interpolation by hand misses the next one added, so every command prints through this
console instead: markup and emoji codes are off (strings, table cells and titles are
shown exactly as written), and the few styled words are built as ``Text`` pieces with
:func:`line`, where no piece is ever read as markup.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

__all__ = ["line", "terminal"]


def terminal(*, stderr: bool = False) -> Console:
    """A console that shows every string as written (no markup, no ``:emoji:`` codes)."""
    return Console(stderr=stderr, markup=False, emoji=False)


def line(*parts: str | tuple[str, str]) -> Text:
    """One printed line from pieces: a plain string, or ``(text, style)`` for a styled
    piece — ``line(("⚠ 警报", "bold red"), "：", alarm.text)``. Nothing is parsed."""
    return Text.assemble(*parts)
