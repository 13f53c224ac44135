"""Last words (遗言, SPEC §10.5): who may leave them, and the words as they are posted.

* 14人简易 — 遗言数量等于狼人的数量，靠前出局且可以留下遗言的角色会收到可以留下遗言的通知。
  放弃遗言不会使留遗言的权利留给以后出局的角色。 红牌罚下出局的角色没有遗言权利。
* 双身份 — 该规则下角色出局没有遗言。
* S10 — 前N（N为狼人+白狼总数）名出局的角色可以留下遗言且遗言不修改。
* S09 — as S10 (N = the wolves); the little girl caught 偷看 跳过遗言阶段.
* 遗言中禁止使用Discuz!代码 — the words go into the announcement as plain text.
"""

from __future__ import annotations

import re

from parsers.text import strip_bbcode

from engine.events import OutWhy
from engine.night.base import Composition, Mode
from engine.state import GameState

# Whatever still looks like a Discuz code after the known tags are gone: [xxx], [/xxx], [xxx=…].
_LEFTOVER_TAG = re.compile(r"\[/?[A-Za-z][A-Za-z0-9]{0,15}(?:=[^\]\n]{0,200})?\]")


def last_words_holders(mode: Mode, state: GameState, composition: Composition | None = None) -> tuple[str, ...]:
    """The players who may leave last words, in the order they went out: the first N out
    (N: the rule set's count — 14人简易 the number of wolves), a red card neither giving
    the right nor using a place. A right once given stays given (放弃遗言不会使留遗言的权利
    留给以后出局的角色): the answer only grows as the game goes on."""
    count = mode.last_words_count(composition)
    causes = {(e.player, e.at, (e.why or OutWhy.OTHER).value): e.cause for e in state.events if e.cause}
    holders: list[str] = []
    for departure in state.departures():
        if len(holders) >= count:
            break
        if departure.kind != "out" or departure.why == OutWhy.CARD.value:
            continue
        if mode.last_words_excluded(causes.get((departure.player, departure.at, departure.why), "")):
            continue
        holders.append(departure.player)
    return tuple(holders)


def clean_last_words(text: str) -> str:
    """The words without Discuz codes (tags, smilies, images), line ends as ``\\n``, no
    blank lines at either end."""
    plain = strip_bbcode(text.replace("\r\n", "\n").replace("\r", "\n"))
    plain = _LEFTOVER_TAG.sub("", plain)
    lines = [line.rstrip() for line in plain.split("\n")]
    return "\n".join(lines).strip("\n").strip()
