"""Post text → vote declaration (SPEC §3.1).

The format every rule set uses, each on its own line::

    投票对象：饺子          改票对象：包子
    投票理由：饺子好吃      改票理由：包子也好吃

:func:`parse_vote` reads what the poster declares and names any format problem; it knows
no players and no game state (matching a target to a player is the engine's job, §3.2).

How a line is read
------------------
The text is first reduced to what a reader sees as the poster's own words
(:func:`parsers.text.own_text`): ``[quote]`` blocks (nested too) and HTML quote blocks
removed, edit stamps removed, BBCode/HTML styling removed, invisible characters removed.
Then each line is classified:

* **target line** — starts with ``投票对象`` or ``改票对象`` (Traditional ``對象`` and the
  common typo ``对像``/``對像`` too; spaces allowed between the characters), followed by a
  separator: a colon-like character (``：`` ``:`` ``﹕`` ``︰``) with optional spaces, or
  at least one space. The key may be preceded by whitespace, list bullets
  (``·•●◆■*->``) and wrapped in one bracket pair (``【投票对象】：饺子``).
* **reason line** — the same with ``投票理由`` / ``改票理由``, or a bare ``理由：`` (only
  with a colon).
* **bad-format line** — starts (same leading allowance) with ``投票`` or ``改票`` followed
  *directly* (spaces allowed) by a colon-like character: ``投票: 饺子 我觉得饺子是狼``.
  Nothing else is: ``投票给饺子``, ``我投饺子一票吧``, ``大家投票要认真`` are chat.
* anything else is chat.

How the declaration is built
----------------------------
* No target line: a bad-format line, or a ``投票理由``/``改票理由`` line without any
  target line, gives a ``BAD_FORMAT`` declaration (target ``None``); otherwise the post is
  not a declaration (``None``).
* The target is the rest of the line, cleaned: NFKC, surrounding whitespace/punctuation
  stripped (bracket pairs kept when they are inside the name), not case-folded. If that
  rest carries its own reason key (``投票对象：饺子 投票理由：好吃``) it is cut there;
  any other trailing text stays as written (no guessing: an unknown name is void, §3.2).
  Any written form of 弃权 (棄權, 弃權, 棄权) becomes ``弃权``.
* Empty target lines are ignored when another target line names someone. If none does:
  ``NO_TARGET``. A name on the *next* line is not taken (no guessing).
* Different targets (compared with :func:`normalise_name`) on lines of one kind:
  ``TWO_TARGETS``. The same target written twice is one target.
* Both kinds: one target → a ``CHANGE`` to it (the ``改票`` line is the more specific
  statement; the engine still checks the change quotes the voter's own vote).
  Different targets → ``MIXED_KINDS``. The kind of a post with any ``改票对象`` line
  naming someone is ``CHANGE``, otherwise ``VOTE`` (when no line names anyone: ``CHANGE``
  if any empty ``改票对象`` line).
* A bad-format line next to a proper target line is ignored (the proper line decides).
* Reason: the text of the reason line of the declaration's kind (else of any reason
  line), markup and invisible characters removed, whitespace trimmed, otherwise as
  written (no NFKC: the reason is for people to read). An empty reason line takes the
  following paragraph (non-blank lines up to a blank line or the next key line). No
  usable reason: ``NO_REASON`` (lowest priority; the engine decides if it voids).
* Problem priority: ``MIXED_KINDS`` / ``TWO_TARGETS`` / ``NO_TARGET`` / ``BAD_FORMAT``,
  then ``NO_REASON``. Problem declarations have ``target=None``; ``targets_seen`` lists
  every distinct target written.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import Enum

from parsers.models import ABSTAIN, DeclarationProblem, VoteDeclaration, VoteKind
from parsers.text import normalise_name, own_text, strip_surrounding_punctuation

__all__ = ["clean_target", "parse_vote"]

_COLON = "[:：﹕︰]"
_LEAD = r"^[\s·•●○◆◇■□▪*>\-–—]*"
_OPENERS = "【[(（〔〖《〈「『"
_CLOSERS = "】])）〕〗》〉」』"


def _spaced(word: str) -> str:
    """``投票`` → ``投\\s*票``: tolerate spaces typed between the key's characters."""
    return r"\s*".join(re.escape(c) if c.isascii() else c for c in word)


_ACTION = rf"(?P<action>{_spaced('投票')}|{_spaced('改票')})"
_OBJECT = r"[对對]\s*[象像]"
_OPEN = rf"(?:[{re.escape(_OPENERS)}]\s*)?"
_CLOSE = rf"(?:\s*[{re.escape(_CLOSERS)}])?"
# Patterns are written so no two adjacent quantifiers can eat the same spaces: a line of
# thousands of spaces must not make matching quadratic.
_KEY_LINE = re.compile(
    _LEAD
    + _OPEN
    + rf"(?:{_ACTION}\s*(?P<field>{_OBJECT}|理\s*由)|(?P<bare>理\s*由))"
    + _CLOSE
    + rf"(?P<sep>\s*{_COLON}|\s+|$)"
    + r"(?P<value>.*)$"
)
_BAD_FORMAT_LINE = re.compile(_LEAD + _OPEN + _ACTION + _CLOSE + rf"\s*{_COLON}")
# A reason key inside a target line's value: "饺子 投票理由：好吃" → cut before it.
_INLINE_REASON = re.compile(rf"(?:(?:{_spaced('投票')}|{_spaced('改票')})\s*)?理\s*由\s*{_COLON}")
_ABSTAIN_FORMS = frozenset({"弃权", "棄權", "弃權", "棄权"})


class _Field(Enum):
    TARGET = "target"
    REASON = "reason"
    BAD = "bad"


@dataclass(frozen=True, slots=True)
class _KeyLine:
    index: int
    field: _Field
    kind: VoteKind | None  # None for a bare 理由 line
    value: str  # rest of the line, markup already removed
    line: str  # the whole line, trimmed


def _classify(index: int, line: str) -> _KeyLine | None:
    m = _KEY_LINE.match(line)
    if m:
        action = m.group("action")
        kind = None if action is None else _kind_of(action)
        bare = m.group("bare") is not None
        field = _Field.REASON if bare or "理" in m.group("field") else _Field.TARGET
        # A bare "理由" needs a colon ("理由 很简单" is chat). A key glued to text
        # ("投票对象是谁") never matches: the separator is required.
        if not bare or m.group("sep").strip():
            return _KeyLine(index, field, kind, m.group("value"), line.strip())
    b = _BAD_FORMAT_LINE.match(line)
    if b:
        return _KeyLine(index, _Field.BAD, _kind_of(b.group("action")), "", line.strip())
    return None


def _split_inline_reasons(lines: list[str]) -> list[str]:
    """``投票对象：饺子 投票理由：好吃`` on one line → the target line and the reason line."""
    out: list[str] = []
    for line in lines:
        m = _KEY_LINE.match(line)
        cut = _INLINE_REASON.search(line, m.start("value")) if m and m.group("field") else None
        if cut and "理" not in m.group("field"):
            out += [line[: cut.start()], line[cut.start() :]]
        else:
            out.append(line)
    return out


def _kind_of(action: str) -> VoteKind:
    return VoteKind.CHANGE if "改" in action else VoteKind.VOTE


def clean_target(value: str) -> str | None:
    """The written target as a declaration keeps it, or None when nothing usable is left.

    ``value`` is the rest of a target line with markup and invisible characters already
    removed: NFKC, surrounding whitespace/punctuation stripped, 棄權 & co. → ``弃权``.
    Not case-folded (that is :func:`parsers.text.normalise_name`, for comparing).
    """
    value = strip_surrounding_punctuation(unicodedata.normalize("NFKC", value))
    if not value:
        return None
    return ABSTAIN if value in _ABSTAIN_FORMS else value


def _usable(text: str) -> str | None:
    text = text.strip()
    return text if strip_surrounding_punctuation(text) else None


def _reason(lines: list[str], keys: list[_KeyLine], kind: VoteKind) -> str | None:
    """The reason text for a declaration of ``kind`` (see the module docstring)."""
    reasons = [k for k in keys if k.field is _Field.REASON]
    # The reason of the declaration's own kind first, then any other reason line.
    reasons.sort(key=lambda k: k.kind not in (kind, None))
    key_indexes = {k.index for k in keys}
    for k in reasons:
        text = _usable(k.value)
        if text is None:
            text = _following_paragraph(lines, k.index + 1, key_indexes)
        if text is not None:
            return text
    return None


def _following_paragraph(lines: list[str], start: int, stop_at: set[int]) -> str | None:
    taken: list[str] = []
    for i in range(start, len(lines)):
        if i in stop_at:
            break
        line = lines[i].strip()
        if not line:
            if taken:
                break
            continue
        taken.append(line)
    return _usable("\n".join(taken))


def _distinct(targets: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for t in targets:
        seen.setdefault(normalise_name(t), t)
    return list(seen.values())


def parse_vote(text: str, *, plain: bool = False) -> VoteDeclaration | None:
    """What ``text`` declares as the poster's own vote or change, or None for chat.

    ``text`` may be a post's own text, raw BBCode or the post's HTML; quoted blocks never
    count. ``plain=True`` says it is a parsed ``Post.text``, whose angle brackets and
    ampersands the player typed (:func:`parsers.text.own_text`). Never raises. The full rules are in this module's docstring; in short:

    * ``投票对象：X`` / ``改票对象：X`` lines (any colon, Traditional 對象, markup and
      invisible characters anywhere) make a VOTE / CHANGE declaration;
    * a line that *starts* with ``投票`` or ``改票`` directly followed by a colon
      (``投票: 饺子 我觉得饺子是狼``), or a ``投票理由`` line without any target line, is
      ``BAD_FORMAT``; chat that merely mentions voting (``我投饺子一票吧``) is None.
    """
    if not isinstance(text, str) or not text:
        return None
    lines = _split_inline_reasons(own_text(text, plain=plain).split("\n"))
    keys = [k for i, line in enumerate(lines) if (k := _classify(i, line)) is not None]
    if not keys:
        return None
    target_lines = [k for k in keys if k.field is _Field.TARGET]
    if not target_lines:
        return _bad_format(lines, keys)

    written = [(k, clean_target(k.value)) for k in target_lines]
    named = [(k, t) for k, t in written if t is not None]
    deciding = [k for k, _ in named] or target_lines
    kind = (
        VoteKind.CHANGE
        if any(k.kind is VoteKind.CHANGE for k in deciding)
        else VoteKind.VOTE
    )
    seen = tuple(_distinct([t for _, t in named]))
    by_kind = {
        kd: _distinct([t for k, t in named if k.kind is kd])
        for kd in (VoteKind.VOTE, VoteKind.CHANGE)
    }
    reason = _reason(lines, keys, kind)

    problem: DeclarationProblem | None = None
    target: str | None = None
    if not named:
        problem = DeclarationProblem.NO_TARGET
        shown = target_lines
    elif len(seen) > 1:
        both = by_kind[VoteKind.VOTE] and by_kind[VoteKind.CHANGE]
        problem = DeclarationProblem.MIXED_KINDS if both else DeclarationProblem.TWO_TARGETS
        shown = [k for k, _ in named]
    else:
        target = seen[0]
        # the line that gave the target, of the declaration's kind
        shown = [next(k for k, _ in named if k.kind is kind)]
    if problem is None and reason is None:
        problem = DeclarationProblem.NO_REASON
    return VoteDeclaration(
        kind=kind,
        target=target,
        reason=reason,
        problem=problem,
        targets_seen=seen,
        line="\n".join(k.line for k in shown),
    )


def _bad_format(lines: list[str], keys: list[_KeyLine]) -> VoteDeclaration | None:
    """A post with key-like lines but no target line: BAD_FORMAT, or chat."""
    suspects = [
        k
        for k in keys
        if k.field is _Field.BAD or (k.field is _Field.REASON and k.kind is not None)
    ]
    if not suspects:
        return None  # only bare "理由：…" lines: ordinary chat
    first = suspects[0]
    kind = first.kind or VoteKind.VOTE
    return VoteDeclaration(
        kind=kind,
        target=None,
        reason=_reason(lines, keys, kind),
        problem=DeclarationProblem.BAD_FORMAT,
        targets_seen=(),
        line=first.line,
    )
