"""The marker the bot writes into every post, so an interrupted post can be found again.

A marker is ``fb-<game hash>-<draft id>-<random>``, e.g. ``fb-3fa9c1-17-0b5e2d``: the game
hash keeps two games on one forum apart, the draft id names the outbox row, the random
part keeps a recreated database from matching an old game's posts. It goes at the end of
the post as a small grey line::

    [size=1][color=#999999]forumbot:fb-3fa9c1-17-0b5e2d[/color][/size]

Only letters, digits, ``-`` and ``:``: Discuz renders it as ``<font size="1"><font
color="#999999">forumbot:fb-…</font></font>`` and the page parser's plain text keeps it
verbatim, so the same search works on BBCode, HTML-derived text and the API's message.
"""

from __future__ import annotations

import hashlib
import random
import re

PREFIX = "forumbot:"
_MARKER = re.compile(r"forumbot:(fb-[0-9a-f]{6}-[0-9]+-[0-9a-f]{6})")
_MARKER_LINE = re.compile(
    r"\n?\[size=1\]\[color=#999999\]forumbot:fb-[0-9a-f]{6}-[0-9]+-[0-9a-f]{6}"
    r"\[/color\]\[/size\]\s*$"
)


def game_hash(game_key: str) -> str:
    """Six hex digits naming a game (stable for a given name)."""
    return hashlib.sha1(game_key.encode("utf-8")).hexdigest()[:6]


def make_marker(game_key: str, draft_id: int, rng: random.Random | None = None) -> str:
    suffix = (rng or random.SystemRandom()).getrandbits(24)
    return f"fb-{game_hash(game_key)}-{draft_id}-{suffix:06x}"


def is_marker(marker: str) -> bool:
    return _MARKER.fullmatch(PREFIX + marker) is not None


def add_marker(body: str, marker: str) -> str:
    """``body`` with the marker line appended (the body must not already carry one)."""
    if not is_marker(marker):
        raise ValueError(f"not a forumbot marker: {marker!r}")
    return f"{body.rstrip()}\n[size=1][color=#999999]{PREFIX}{marker}[/color][/size]"


def strip_marker(body: str) -> str:
    """``body`` without a trailing marker line (for showing and diffing drafts)."""
    return _MARKER_LINE.sub("", body)


def find_marker_in_text(text: str) -> str | None:
    """The marker in a post's text, BBCode or HTML, or None. With several, the last."""
    found = _MARKER.findall(text)
    return found[-1] if found else None
