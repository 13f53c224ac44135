"""Errors raised by the parsers."""

from __future__ import annotations


class PageParseError(ValueError):
    """A page could not be read as a thread page. Names the page it came from."""

    def __init__(self, message: str, *, source: str | None = None) -> None:
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)


class RobotPageError(PageParseError):
    """A thread page as Discuz serves it to search robots: its posts carry no floor link
    (``a#postnumPID``), so floors cannot be read. Never a page to count from."""
