"""The marker the bot writes into every post: which game, which state, which draft, and
what the post is.

A marker is ``<game>-<state>-<draft id>-<kind><day>``, e.g. ``3fa9c1-7e21d0-17-f1``:

* ``game`` — six hex digits of the game's identity (``forumbot.config.gamefile.game_key``: the
  threads of its first day). A new database for the same game, or a copy of its config,
  has the same; another game has another.
* ``state`` — the store's random state id (``Store.state_id``, created with the store).
  A state that replaced a lost database, or a copy, has another: its posts tell it that
  the forum holds posts it has no record of (``forumbot.game.provenance``).
* ``draft id`` — the outbox row: unique within a state, so an interrupted post is found
  again by its marker.
* ``kind`` and ``day`` — one letter (``KIND_LETTERS``: ``f`` a final count, ``a`` an
  announcement…) and the day, so a final count or an announcement on the forum is known
  for what it is even by a state that never drafted it: it is never drafted again.

It goes at the end of the post as one small grey line that says what it is::

    [size=1][color=#999999]机器人标记 3fa9c1-7e21d0-17-f1[/color][/size]

Discuz renders it as ``<font size="1"><font color="#999999">机器人标记 3fa9c1-…</font>
</font>`` and the page parser's plain text keeps it verbatim, so the same search works on
BBCode, HTML-derived text and the mobile API's message. The line is part of every post's
length: it alone is longer than Discuz's minimum post size (``minpostsize``, 10 bytes by
default; ``forumbot.agent.preflight.SHORTEST_BOT_POST``), so no post of the bot is refused as too
short however short the director makes its body.

Posts of forumbot before this form (store schema 8 and older) end with
``forumbot:fb-<hash>-<draft id>-<random>``, the hash naming the store (game and state were
one then) and no kind or day. They are still recognised — a game upgraded mid-way finds
its earlier posts — and a draft of that time keeps its marker (written with the new
label) until it is sent.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

LABEL = "机器人标记"  # what the grey line says it is, before the id
LEGACY_PREFIX = "forumbot:"

# The outbox's kinds (``forumbot.store.outbox.DraftKind`` values) as one letter each.
KIND_LETTERS: dict[str, str] = {
    "running_count": "r",
    "final_count": "f",
    "announcement": "a",
    "card_notice": "c",
    "count_reply": "q",
    "acceleration_notice": "x",
    "badge_notice": "b",
    "sealed_deal": "s",
    "game_end": "e",
}
_KIND_OF_LETTER = {letter: kind for kind, letter in KIND_LETTERS.items()}

_HEX6 = "[0-9a-f]{6}"
_NEW_ID = rf"{_HEX6}-{_HEX6}-[0-9]+-[a-z][0-9]*"
_OLD_ID = rf"fb-{_HEX6}-[0-9]+-{_HEX6}"
_ID = rf"(?:{_NEW_ID}|{_OLD_ID})(?![0-9A-Za-z])"
# The label, then at most one space (an HTML page may carry it as &nbsp;).
_LEAD = rf"(?:{LABEL}(?: |&nbsp;|\u00a0)?|{re.escape(LEGACY_PREFIX)})"
_MARKER = re.compile(rf"{_LEAD}({_ID})")
_MARKER_LINE = re.compile(
    rf"\n?\[size=1\]\[color=#999999\]{_LEAD}{_ID}\[/color\]\[/size\]\s*$"
)


def game_hash(game_key: str) -> str:
    """Six hex digits naming a game (stable for a given key)."""
    return hashlib.sha1(game_key.encode("utf-8")).hexdigest()[:6]


@dataclass(frozen=True, slots=True)
class Marker:
    """A marker taken apart. ``legacy``: the form before schema 9, whose ``game`` is the
    hash of the store that wrote it (game and state were one) and which names no kind,
    day or state."""

    text: str
    game: str
    state: str | None
    draft_id: int
    kind: str | None  # a DraftKind value
    day: int | None
    legacy: bool = False

    @property
    def writer(self) -> str:
        """The state that wrote it, as ``forumbot.game.provenance`` keeps states: the state id,
        or ``old:<hash>`` for a legacy marker."""
        return self.state if self.state is not None else f"old:{self.game}"


def make_marker(*, game: str, state: str, draft_id: int, kind: str, day: int | None) -> str:
    """The marker of draft ``draft_id`` of ``kind`` for ``day`` in state ``state`` of the
    game whose hash is ``game``."""
    if not re.fullmatch(_HEX6, game) or not re.fullmatch(_HEX6, state):
        raise ValueError(f"game and state must be six hex digits: {game!r}, {state!r}")
    marker = f"{game}-{state}-{int(draft_id)}-{KIND_LETTERS[kind]}{'' if day is None else int(day)}"
    assert is_marker(marker)
    return marker


def parse_marker(marker: str) -> Marker | None:
    """``marker`` (the id alone, either form) taken apart; None if it is not one."""
    if re.fullmatch(_NEW_ID, marker):
        game, state, draft, tail = marker.split("-")
        kind = _KIND_OF_LETTER.get(tail[0])
        if kind is None:
            return None
        return Marker(marker, game, state, int(draft), kind, int(tail[1:]) if tail[1:] else None)
    if re.fullmatch(_OLD_ID, marker):
        _, game, draft, _random = marker.split("-")
        return Marker(marker, game, None, int(draft), None, None, legacy=True)
    return None


def is_marker(marker: str) -> bool:
    return parse_marker(marker) is not None


def add_marker(body: str, marker: str) -> str:
    """``body`` with the marker line appended (the body must not already carry one)."""
    if not is_marker(marker):
        raise ValueError(f"not a forumbot marker: {marker!r}")
    return f"{body.rstrip()}\n[size=1][color=#999999]{LABEL} {marker}[/color][/size]"


def strip_marker(body: str) -> str:
    """``body`` without a trailing marker line, of either form (for showing and diffing
    drafts)."""
    return _MARKER_LINE.sub("", body)


def find_marker_in_text(text: str) -> str | None:
    """The marker in a post's text, BBCode or HTML, or None. With several, the last (the
    post's own line comes after anything it quotes)."""
    found = _MARKER.findall(text)
    return found[-1] if found else None


def read_marker(text: str) -> Marker | None:
    """``find_marker_in_text``, taken apart."""
    found = find_marker_in_text(text)
    return parse_marker(found) if found is not None else None


__all__ = ["KIND_LETTERS", "LABEL", "LEGACY_PREFIX", "Marker", "add_marker", "find_marker_in_text", "game_hash",
           "is_marker", "make_marker", "parse_marker", "read_marker", "strip_marker"]
