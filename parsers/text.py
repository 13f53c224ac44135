"""Text normalisation shared by the parsers and the engine.

Two kinds of helpers live here:

* cleaning a post's text the way a reader sees it: quoted blocks, edit stamps, BBCode and
  HTML markup and invisible characters removed (:func:`own_text`, :func:`strip_quotes`,
  :func:`strip_edit_stamps`, :func:`strip_bbcode`, :func:`strip_html`,
  :func:`strip_zero_width`);
* normalising a written name so it can be compared with a player's name
  (:func:`normalise_name`, :func:`strip_surrounding_punctuation`).

Everything here is total: any ``str`` in, a ``str`` out, never an exception, and every
pattern is linear (no nested quantifiers) so hostile input cannot make it slow.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter

__all__ = [
    "INVISIBLE_CHARS",
    "normalise_name",
    "own_text",
    "strip_bbcode",
    "strip_edit_stamps",
    "strip_html",
    "strip_quotes",
    "strip_surrounding_punctuation",
    "strip_zero_width",
]

# ---------------------------------------------------------------------------------------
# Invisible characters
# ---------------------------------------------------------------------------------------


def _ranges(*spans: tuple[int, int]) -> frozenset[str]:
    return frozenset(chr(c) for lo, hi in spans for c in range(lo, hi + 1))


# Characters that render as nothing and are used (on purpose or by input methods) inside
# names: zero-width space/joiners, direction marks and embeddings, word joiner and
# invisible operators, BOM, soft hyphen, Mongolian vowel separator, combining grapheme
# joiner, Hangul fillers, variation selectors and tag characters.
INVISIBLE_CHARS: frozenset[str] = _ranges(
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels (invisible)
    (0x180B, 0x180F),  # Mongolian variation selectors + vowel separator
    (0x200B, 0x200F),  # ZWSP, ZWNJ, ZWJ, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings/overrides
    (0x2060, 0x2064),  # word joiner, invisible operators
    (0x2066, 0x206F),  # bidi isolates, deprecated format characters
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # BOM / zero-width no-break space
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xE0000, 0xE007F),  # tag characters
    (0xE0100, 0xE01EF),  # variation selectors supplement
)
_INVISIBLE_TABLE = {ord(c): None for c in INVISIBLE_CHARS}


def strip_zero_width(s: str) -> str:
    """``s`` without zero-width and other invisible characters (see INVISIBLE_CHARS)."""
    return s.translate(_INVISIBLE_TABLE)


# ---------------------------------------------------------------------------------------
# Surrounding punctuation
# ---------------------------------------------------------------------------------------

_OPEN_TO_CLOSE = {
    "(": ")", "[": "]", "{": "}", "<": ">",
    "（": "）", "［": "］", "｛": "｝", "＜": "＞",
    "【": "】", "〔": "〕", "〖": "〗", "〘": "〙", "〚": "〛",
    "《": "》", "〈": "〉", "「": "」", "『": "』", "｢": "｣",
    "“": "”", "‘": "’", "«": "»", "‹": "›",
}  # fmt: skip
_CLOSE_TO_OPEN = {v: k for k, v in _OPEN_TO_CLOSE.items()}


def _is_edge_junk(c: str) -> bool:
    """Punctuation, symbols, spaces and controls: what may be stripped around a name."""
    return unicodedata.category(c)[0] in "PSZC"


def strip_surrounding_punctuation(s: str) -> str:
    """Strip whitespace, punctuation and symbols from both ends of ``s``.

    Brackets are treated as pairs: a bracket pair enclosing the whole string goes
    (``【饺子】`` → ``饺子``), but a bracket whose partner is still inside stays
    (``饺子(3号)`` keeps its parentheses). Letters, digits and marks inside are untouched.
    """
    i, j = 0, len(s)
    counts = Counter(s)
    while i < j:
        first, last = s[i], s[j - 1]
        if j - i >= 2 and _OPEN_TO_CLOSE.get(first) == last:
            counts[first] -= 1
            counts[last] -= 1
            i, j = i + 1, j - 1
        elif _is_edge_junk(last) and counts[_CLOSE_TO_OPEN.get(last, "")] <= 0:
            counts[last] -= 1
            j -= 1
        elif _is_edge_junk(first) and counts[_OPEN_TO_CLOSE.get(first, "")] <= 0:
            counts[first] -= 1
            i += 1
        else:
            break
    return s[i:j]


def normalise_name(s: str) -> str:
    """The form in which a written target and a player's name are compared.

    NFKC, case-fold, invisible characters removed, surrounding whitespace/punctuation
    stripped — exactly that (SPEC §3.2) and nothing more: no alias, no pinyin, no guess.
    """
    s = strip_zero_width(s)
    s = unicodedata.normalize("NFKC", s).casefold()
    # case-folding can leave a non-NFKC sequence behind (rare); normalise once more.
    s = unicodedata.normalize("NFKC", s)
    return strip_surrounding_punctuation(strip_zero_width(s))


# ---------------------------------------------------------------------------------------
# Quotes
# ---------------------------------------------------------------------------------------

_BB_QUOTE_TOKEN = re.compile(r"\[(/?)quote(?:=[^\]\n]{0,200})?\]", re.IGNORECASE)
_BLOCKQUOTE_TOKEN = re.compile(r"<(/?)blockquote\b[^<>]{0,500}>", re.IGNORECASE)
_DIV_TOKEN = re.compile(r"<(/?)div\b([^<>]{0,500})>", re.IGNORECASE)
_QUOTE_DIV_CLASS = re.compile(
    r"""class\s*=\s*["']?[^"'<>]*\b(?:quote|reply_wrap)\b""", re.IGNORECASE
)


def _cut(s: str, spans: list[tuple[int, int]]) -> str:
    out: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if start < pos:
            continue
        out.append(s[pos:start])
        out.append("\n")  # a quote block is a block: never glue the lines around it
        pos = end
    out.append(s[pos:])
    return "".join(out)


def _strip_paired(s: str, token: re.Pattern[str]) -> str:
    """Remove every outermost matched open…close span of ``token`` (nesting counted).

    An unmatched opening or closing token stays where it is, as Discuz renders it: as
    literal text (the tag itself goes later with the other markup), so the poster's words
    after a stray ``[quote]`` are still theirs. A matched pair inside an unmatched opener
    is still a quote.
    """
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    for m in token.finditer(s):
        if not m.group(1):
            stack.append(m.start())
        elif stack:
            start = stack.pop()
            spans.append((start, m.end()))
    if not spans:
        return s
    # keep only spans not contained in another span
    spans.sort(key=lambda sp: (sp[0], -sp[1]))
    outer: list[tuple[int, int]] = []
    for sp in spans:
        if outer and sp[1] <= outer[-1][1]:
            continue
        outer.append(sp)
    return _cut(s, outer)


def _strip_quote_divs(s: str) -> str:
    """Remove ``<div class="quote">…</div>`` / ``<div class="reply_wrap">…</div>`` (API)."""
    spans: list[tuple[int, int]] = []
    depth = 0
    start = 0
    for m in _DIV_TOKEN.finditer(s):
        closing = bool(m.group(1))
        if depth == 0:
            if not closing and _QUOTE_DIV_CLASS.search(m.group(2)):
                depth, start = 1, m.start()
            continue
        depth += -1 if closing else 1
        if depth == 0:
            spans.append((start, m.end()))
    if depth > 0:  # an unclosed quote div runs to the end (as an HTML parser would)
        spans.append((start, len(s)))
    return _cut(s, spans) if spans else s


def strip_quotes(s: str) -> str:
    """``s`` without quoted blocks: ``[quote]…[/quote]`` (nested too), and in HTML
    ``div.quote``, ``div.reply_wrap`` (mobile API) and ``<blockquote>`` elements."""
    s = _strip_quote_divs(s)
    s = _strip_paired(s, _BLOCKQUOTE_TOKEN)
    return _strip_paired(s, _BB_QUOTE_TOKEN)


# ---------------------------------------------------------------------------------------
# Edit stamps, HTML, BBCode
# ---------------------------------------------------------------------------------------

# "本帖最后由 月饼 于 2026-11-30 00:26 编辑" as BBCode ([i=s]…[/i]), HTML (i.pstatus) or the
# plain text the mobile API leaves. Traditional forms too (本帖最後由 … 編輯).
_EDIT_STAMP = re.compile(
    r"本帖最[后後]由[^\n]{0,120}?[于於]\s*\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?"
    r"\s*[编編][辑輯]"
)


def strip_edit_stamps(s: str) -> str:
    """``s`` without Discuz's "本帖最后由 X 于 T 编辑" edit notices (the wrapping
    ``[i=s]`` or ``<i class="pstatus">`` tags are left for the markup strippers)."""
    return _EDIT_STAMP.sub("", s)


_HTML_BREAK = re.compile(r"<br\s*/?>|</?(?:p|div|li|tr|blockquote|h[1-6])\b[^<>]{0,500}>", re.I)
# Only ASCII tag names: "<饺子>" typed by a player is text, not a tag.
_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]{0,20}(?:\s[^<>]{0,500})?\s*/?>")
_HTML_COMMENT = re.compile(r"<!--.{0,2000}?-->", re.S)
_HTML_DROP_CONTENT = re.compile(
    r"<(script|style)\b[^<>]{0,500}>.{0,20000}?</\1\s*>", re.IGNORECASE | re.S
)


def strip_html(s: str) -> str:
    """Plain text of an HTML fragment: ``<br>`` and block ends become newlines, other tags
    go, entities are decoded. Text that only looks like a tag (``<饺子>``) stays."""
    s = _HTML_DROP_CONTENT.sub("", s)
    s = _HTML_COMMENT.sub("", s)
    s = _HTML_BREAK.sub("\n", s)
    s = _HTML_TAG.sub("", s)
    return html.unescape(s)


# Tags whose content is not text a reader sees (a URL, an attachment id).
_BB_DROP_CONTENT = re.compile(
    r"\[(img|attach|attachimg|media|flash|audio|swf|qq)(?:=[^\]\n]{0,200})?\][^\[]{0,2000}?\[/\1\]",
    re.IGNORECASE,
)
# Styling and layout tags: the tag goes, the text inside stays ([url=…]text[/url] → text).
_BB_TAG = re.compile(
    r"\[/?(?:b|i|u|s|strike|color|size|font|align|float|backcolor|bgcolor|url|email|p|"
    r"list|indent|sup|sub|hr|table|tr|td|th|hide|free|code|quote|spoil|spoiler|"
    r"postbg|password|payto|\*)(?:=[^\]\n]{0,200})?\]",
    re.IGNORECASE,
)
# Discuz smiley codes as stored in BBCode: {:1_234:}
_BB_SMILEY = re.compile(r"\{:\d{1,3}_\d{1,5}:\}")


def strip_bbcode(s: str) -> str:
    """``s`` without BBCode markup: styling tags removed (their text kept), image /
    attachment / media tags removed with their content, smiley codes removed."""
    s = _BB_DROP_CONTENT.sub("", s)
    s = _BB_TAG.sub("", s)
    return _BB_SMILEY.sub("", s)


def own_text(s: str, *, plain: bool = False) -> str:
    """What a reader sees as the poster's own words, one ``\\n`` per line break.

    Works on plain text, raw BBCode or a post's HTML alike: invisible characters,
    quoted blocks, edit stamps and markup removed; CR/LF unified.

    ``plain=True`` for text already read out of its HTML (a parsed ``Post.text``): the
    HTML was the page's, not the player's, so ``<`` and ``&`` in it are characters the
    player typed — a reason ``<script>…</script>`` or ``a<b`` is kept, ``&lt;`` is not
    decoded a second time. Only the BBCode a player types is still markup.
    """
    s = strip_zero_width(s)
    s = _strip_paired(s, _BB_QUOTE_TOKEN) if plain else strip_quotes(s)
    s = strip_edit_stamps(s)
    s = s.replace("\r\n", "\n").replace("\r", "\n")
    if not plain:
        s = strip_html(s)
    s = strip_bbcode(s)
    # html.unescape may have produced new invisible characters (&#8203;).
    return strip_zero_width(s)
