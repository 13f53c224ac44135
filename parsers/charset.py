"""Which charset a forum response is in, and decoding it.

Order of evidence (DISCUZ.md §6): the HTTP ``Content-Type`` header, then the page's
``<meta>`` tag, then the XML prolog of ajax responses. A UTF-8 byte-order mark wins over
all of them (a browser does the same). Nothing declared → UTF-8, the X3 default.

The declaration is checked against the bytes (:func:`sniff_charset`): a 7.2 GBK forum
sends no charset in its header, and a page saved by hand may lose its ``<meta>``; read
as UTF-8, such a page gives authors ``����`` and a tally in which no one voted. So a page
that does not decode cleanly as declared is tried as UTF-8, then as GBK, and the first
clean reading wins; one that is clean in none of them is reported as unclean (the thread
reader then refuses it, naming the file or URL). UTF-8 is tried before GBK because
GB18030 accepts much of any byte soup, UTF-8 Chinese included, while UTF-8 is strict.
Only whole bodies are judged: a cut-off buffer ends in half a character.

GBK sites are decoded with gb18030, a superset of GBK that also covers the characters
browsers send as four-byte sequences; :func:`decode` never raises (bad bytes become
U+FFFD).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

__all__ = ["Sniffed", "codec_for", "decode", "detect_charset", "sniff_charset"]

_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.I)
_META_CHARSET = re.compile(
    rb"<meta[^>]+?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.I
)
_XML_PROLOG = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9_.:-]+)", re.I)

# Names a forum may declare → the name we report. Aliases collapse so tests and callers
# see one spelling per charset.
_ALIASES = {
    "utf8": "utf-8",
    "gb2312": "gbk",
    "x-gbk": "gbk",
    "gbk": "gbk",
    "cp936": "gbk",
    "gb18030": "gb18030",
    "big-5": "big5",
    "big5": "big5",
}
# The codec that reads each reported charset correctly.
_CODECS = {"gbk": "gb18030", "big5": "big5hkscs"}

_SNIFF_BYTES = 4096  # the meta tag sits in <head>, well inside the first few KB


def _canonical(name: str) -> str | None:
    name = name.strip().lower()
    name = _ALIASES.get(name, name)
    try:
        codecs.lookup(_CODECS.get(name, name))
    except LookupError:
        return None
    return name


def detect_charset(data: bytes, content_type: str | None) -> str:
    """The charset the page declares, lower-case (``utf-8``, ``gbk``, …)."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8"
    if content_type:
        m = _HEADER_CHARSET.search(content_type)
        if m and (name := _canonical(m.group(1))):
            return name
    head = data[:_SNIFF_BYTES]
    for pattern in (_META_CHARSET, _XML_PROLOG):
        m = pattern.search(head)
        if m and (name := _canonical(m.group(1).decode("ascii", "replace"))):
            return name
    return "utf-8"


def codec_for(charset: str) -> str:
    """The Python codec used to read ``charset`` (gbk → gb18030)."""
    return _CODECS.get(charset, charset)


# What an undeclared or wrongly declared Discuz page can be in: UTF-8 (X3's default) or
# GBK (7.2's common edition, and X3 GBK). In this order, see the module docstring.
_ALTERNATIVES = ("utf-8", "gbk")


@dataclass(frozen=True)
class Sniffed:
    """The charset the bytes are in. ``clean`` is False when they decode cleanly in none
    of the candidates (``charset`` is then the declared one, read with U+FFFD);
    ``bad_offset`` is where the declared reading first fails."""

    charset: str
    declared: str
    clean: bool
    bad_offset: int | None = None

    @property
    def corrected(self) -> bool:
        return self.clean and self.charset != self.declared


def _first_error(data: bytes, charset: str) -> int | None:
    try:
        data.decode(codec_for(charset))
    except UnicodeDecodeError as exc:
        return exc.start
    return None


def sniff_charset(data: bytes, content_type: str | None) -> Sniffed:
    """The declared charset if the bytes decode cleanly in it, else the first clean one of
    UTF-8 and GBK; ``clean=False`` when none is."""
    declared = detect_charset(data, content_type)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    bad = _first_error(data, declared)
    if bad is None:
        return Sniffed(declared, declared, True)
    for candidate in _ALTERNATIVES:
        if codec_for(candidate) != codec_for(declared) and _first_error(data, candidate) is None:
            return Sniffed(candidate, declared, True, bad)
    return Sniffed(declared, declared, False, bad)


def decode(data: bytes, content_type: str | None) -> tuple[str, str]:
    """``(text, charset)``: the bytes decoded in the charset they are really in (see
    :func:`sniff_charset`), never raising."""
    charset = sniff_charset(data, content_type).charset
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return data.decode(codec_for(charset), errors="replace"), charset
