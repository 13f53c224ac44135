"""Which charset a forum response is in, and decoding it.

Order of evidence (DISCUZ.md §6): the HTTP ``Content-Type`` header, then the page's
``<meta>`` tag, then the XML prolog of ajax responses. A UTF-8 byte-order mark wins over
all of them (a browser does the same). Nothing declared → UTF-8, the X3 default.

GBK sites are decoded with gb18030, a superset of GBK that also covers the characters
browsers send as four-byte sequences; decoding never raises (bad bytes become U+FFFD).
"""

from __future__ import annotations

import codecs
import re

__all__ = ["codec_for", "decode", "detect_charset"]

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


def decode(data: bytes, content_type: str | None) -> tuple[str, str]:
    """``(text, charset)``: the bytes decoded as the page says, never raising."""
    charset = detect_charset(data, content_type)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return data.decode(codec_for(charset), errors="replace"), charset
