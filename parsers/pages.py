"""One entry point for a captured or fetched thread page: bytes in, ThreadPage out.

Decides between the desktop HTML page and the mobile API JSON, decodes with the right
charset (HTTP header → meta tag → XML prolog, checked against the bytes: a page that is
clean in none of its declared charset, UTF-8 and GBK is refused rather than read with
replacement characters) and parses. Anything that is not a thread
page becomes a ``PageParseError`` naming ``source`` (and carrying the forum's own words in
``.forum_message`` when it gave any: 抱歉，指定的主题不存在…, a site-closed reason, an API
``messageval``). No other exception leaves ``read_page``.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterable
from datetime import datetime, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

from parsers.api_page import parse_thread_api
from parsers.charset import codec_for, sniff_charset
from parsers.errors import PageParseError
from parsers.html_page import page_error, parse_thread_html, parse_thread_html_bytes
from parsers.models import Post, ThreadPage

__all__ = ["FORUM_TZ", "INTERNAL_ERROR", "incomplete", "read_page", "read_page_files"]

FORUM_TZ = ZoneInfo("Asia/Shanghai")
# Prefix of the safety-net error (a bug in a parser, not a bad page); tests assert it
# never appears, so the net cannot hide bugs from the suite.
INTERNAL_ERROR = "读页面时程序内部出错"

_JSON_START = re.compile(rb"\s*[{\[]")
_XML_START = re.compile(rb"\s*<\?xml")
_NON_SPACE = re.compile(rb"\S")
_CDATA = re.compile(r"<!\[CDATA\[(.*?)(?:\]\]>|$)", re.S)


_SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)
_TAG = re.compile(r"<[^>]*>")
_AJAX_MESSAGE_MAX = 500  # longer plain text is not a message box


def _read_ajax(
    text: str, *, tz: tzinfo, now: datetime | None, source: str | None, charset: str
) -> ThreadPage:
    """An inajax=1 answer: a thread fragment, or a bare message (e.g. the site-closed
    reason followed by an errorhandle_ script), which becomes the forum message."""
    try:
        return parse_thread_html(text, tz=tz, now=now, source=source, charset=charset)
    except PageParseError as exc:
        if getattr(exc, "forum_message", None) is None:
            plain = " ".join(html_lib.unescape(_TAG.sub(" ", _SCRIPT.sub("", text))).split())
            if plain and len(plain) <= _AJAX_MESSAGE_MAX:
                raise page_error(f"不是帖子页面，论坛说：{plain}", source,
                                 plain) from exc
        raise


def _looks_like_json(data: bytes, content_type: str | None) -> bool:
    if content_type and "json" in content_type.lower():
        return True
    return _JSON_START.match(data) is not None


def read_page(
    data: bytes,
    *,
    content_type: str | None = None,
    source: str | None = None,
    tz: tzinfo = FORUM_TZ,
    now: datetime | None = None,
) -> ThreadPage:
    """Read a thread page (desktop HTML, ajax XML or mobile-API JSON) from raw bytes."""
    try:
        if _looks_like_json(data, content_type):
            return parse_thread_api(data, tz=tz, source=source)
        sniffed = sniff_charset(data, content_type)
        if not sniffed.clean:
            raise page_error(
                f"无法确定页面的编码：它不是完好的 {sniffed.declared}（从第 {sniffed.bad_offset} 字节起"
                "有坏字节），也不是 UTF-8 或 GBK；不用替换字符硬读（名字和投票会读错）", source)
        charset = sniffed.charset
        codec = codec_for(charset)
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        if _XML_START.match(data):
            # inajax=1 answers wrap the HTML in <root><![CDATA[…]]></root>.
            text = data.decode(codec, errors="replace")
            if "<![CDATA[" in text:
                text = "".join(m.group(1) for m in _CDATA.finditer(text))
                return _read_ajax(text, tz=tz, now=now, source=source, charset=charset)
        elif codec == "utf-8" and _NON_SPACE.search(data):
            # Hot path: libxml2 decodes UTF-8 itself (invalid bytes become U+FFFD, as
            # errors="replace" would), saving a str copy of the page.
            return parse_thread_html_bytes(data, codec=codec, tz=tz, now=now, source=source,
                                           charset=charset)
        else:
            text = data.decode(codec, errors="replace")
        return parse_thread_html(text, tz=tz, now=now, source=source, charset=charset)
    except PageParseError:
        raise
    except Exception as exc:  # noqa: BLE001 — the contract is PageParseError only
        raise page_error(f"{INTERNAL_ERROR}: {type(exc).__name__}: {exc}", source) from exc


def read_page_files(
    paths: Iterable[str | Path], *, tz: tzinfo = FORUM_TZ, now: datetime | None = None,
    complete: bool = True,
) -> tuple[Post, ...]:
    """Every post in saved pages (HTML or API JSON), once per (tid, pid), in thread order.

    A post seen in several files (page 1 and its API twin, a stuck reply) is kept from
    the first file that has it with a floor. A file that is not a thread page raises
    PageParseError naming it; OSError passes through. With ``complete`` (the default, for
    counting) a post left without an author or a floor raises PageParseError naming its
    file too: a count must not silently lose a voter or a floor.
    """
    found: dict[tuple[int, int], tuple[Post, Path]] = {}
    for path in paths:
        path = Path(path)
        data = path.read_bytes()
        content_type = "application/json" if path.suffix.lower() == ".json" else None
        page = read_page(data, content_type=content_type, source=str(path), tz=tz, now=now)
        for post in page.posts:
            key = (post.tid, post.pid)
            seen = found.get(key)
            if seen is None or (seen[0].floor is None and post.floor is not None):
                found[key] = (post, path)
    if complete:
        for post, path in found.values():
            if (missing := incomplete(post)) is not None:
                lacks = {"no author": "没有作者", "no floor": "没有楼层"}
                said = "和".join(lacks.get(part.strip(), part) for part in missing.replace(" and ", ",").split(","))
                raise page_error(f"pid {post.pid} 的帖子{said}：页面没有读全，不能据此计票", str(path))
    return tuple(sorted((post for post, _ in found.values()), key=lambda p: (p.tid, p.pid)))


def incomplete(post: Post) -> str | None:
    """What a post lacks for counting (``"no author"``, ``"no floor"``), or None."""
    lacks = [what for what, value in (("author", post.author), ("floor", post.floor)) if value is None]
    return "no " + " and no ".join(lacks) if lacks else None
