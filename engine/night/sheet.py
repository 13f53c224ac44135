"""The identity sheet (who holds what), the sealed deal's reveal text and its commitment.

A ``Sheet`` is plain data in seat order: each player's identities, first identity first
(one for most rule sets, two for 双身份). Which names are known, which counts are right,
and whether a faction has already won are the rule set's to say (``Mode.read_sheet``,
``Mode.check_sheet``, ``Mode.deal``); this module only holds the sheet and what is
published about it (SPEC §10.1):

* the reveal text — one line per player in seat order, ``座位 玩家：身份[ / 第二身份]``,
  then ``盐：`` and 32 hex digits — posted verbatim at the end;
* its commitment, the SHA-256 (hex) of the text's exact UTF-8 bytes, posted at the start.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, replace
from typing import Protocol

from engine.night.identities import Identity



class Names(Protocol):
    """What the reveal needs of a rule set: each identity's name as its seed writes it
    (``Mode.name``)."""

    def name(self, identity: Identity) -> str: ...

SALT_DIGITS = 32
_SALT = re.compile(r"[0-9a-f]{32}")


class SheetError(ValueError):
    """A sheet that cannot be used; ``problems`` lists every reason (Chinese)."""

    def __init__(self, problems: list[str] | tuple[str, ...] | str) -> None:
        self.problems = (problems,) if isinstance(problems, str) else tuple(problems)
        super().__init__("；".join(self.problems))


@dataclass(frozen=True)
class Sheet:
    ruleset: str
    hands: tuple[tuple[str, tuple[Identity, ...]], ...]  # (player, identities), seat order
    # S10: the deal's option digits per skill (预言 → "12", 解药 → "1"), read from the version
    # suffix; empty for the rule sets without options.
    options: tuple[tuple[str, str], ...] = ()

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.hands)

    def hand(self, player: str) -> tuple[Identity, ...]:
        for p, hand in self.hands:
            if p == player:
                return hand
        raise KeyError(player)

    def first(self, player: str) -> Identity:
        return self.hand(player)[0]

    def holders(self, identity: Identity) -> tuple[str, ...]:
        """Players holding ``identity`` (as either identity), seat order."""
        return tuple(p for p, hand in self.hands if identity in hand)

    def ordered(self, player: str, first: Identity) -> Sheet:
        """双身份: ``player`` puts ``first`` in front (由演员决定身份的顺序). Raises
        SheetError when the player does not hold it."""
        hand = self.hand(player)
        if first not in hand:
            raise SheetError(f"{player} 没有这个身份，不能排在第一")
        rest = list(hand)
        rest.remove(first)
        new = (first, *rest)
        return replace(self, hands=tuple((p, new if p == player else h) for p, h in self.hands))


def new_salt(rng: random.Random) -> str:
    """32 hex digits from the given generator (the caller seeds it from a secret source)."""
    return f"{rng.getrandbits(4 * SALT_DIGITS):0{SALT_DIGITS}x}"


def reveal_text(mode: Names, sheet: Sheet, salt: str) -> str:
    """The text whose hash is published at the start and which is posted at the end.

    Every line ends with a newline (a text file as ``sha256sum`` reads it after a player
    saves the post's text into one)."""
    if not _SALT.fullmatch(salt):
        raise SheetError(f"盐应为 {SALT_DIGITS} 位十六进制数字（0-9a-f）")
    lines = []
    for seat, (player, hand) in enumerate(sheet.hands, start=1):
        lines.append(f"{seat} {player}：{' / '.join(mode.name(i) for i in hand)}")
    lines.append(f"盐：{salt}")
    return "".join(line + "\n" for line in lines)


def commitment(text: str) -> str:
    """SHA-256, in hex, of the exact UTF-8 bytes of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
