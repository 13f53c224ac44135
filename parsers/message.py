"""A post's message cell (HTML) → its own text, quotes, styling, links and notices.

Works on the lxml element of ``td#postmessage_PID`` (desktop pages) or on the ``message``
HTML of the mobile API, whose quotes are ``div.reply_wrap`` instead of
``div.quote > blockquote`` (DISCUZ.md §1.3, §3). One pass over the cell's elements in
Python: cells are small, and this keeps the page scan on lxml's C tree (no BeautifulSoup).

"Own text" is what the poster wrote in this post: quoted blocks, the
``本帖最后由 X 于 T 编辑`` stamp, scripts and attachment widgets removed; ``<br>`` is a line
break and the source newline Discuz writes after each ``<br />`` is dropped; CRLF → LF;
&nbsp; → space; trailing whitespace stripped per line; leading/trailing blank lines dropped.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass
from datetime import datetime, tzinfo

import lxml.html
from lxml import etree

from parsers.models import ContentNotice, Font, Quote
from parsers.times import parse_absolute

__all__ = [
    "MessageParts",
    "notice_for_text",
    "parse_message",
    "parse_message_html",
    "parse_edit_stamp",
]

_DATE = r"\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?"
_EDIT_STAMP = re.compile(r"本帖最后由\s*(.+?)\s*于\s*(" + _DATE + r")\s*编辑")
# The stamp as plain text at the top of an API message ([i=s] dropped) or the no-bbcode
# variant "[ 本帖最后由 … 编辑 ]".
_EDIT_STAMP_LINE = re.compile(r"^\s*\[?\s*本帖最后由\s*(.+?)\s*于\s*(" + _DATE + r")\s*编辑\s*\]?\s*$")
# Quote headers: X3 "X 发表于 T"; 7.2/6.x "原帖由 X 于 T 发表".
_QUOTE_HEADER = re.compile(r"^[ \t]*(.+?)[ \t]+发表于[ \t]+(" + _DATE + r")[ \t]*$", re.M)
_QUOTE_HEADER_OLD = re.compile(r"^[ \t]*原帖由[ \t]*(.+?)[ \t]*于[ \t]*(" + _DATE + r")[ \t]*发表[ \t]*$", re.M)
_PID = re.compile(r"[?&;]pid=(\d+)")
_PTID = re.compile(r"[?&;]ptid=(\d+)")
_AID = re.compile(r"[?&;]aid=([\w%=-]+)")
_STYLE_COLOR = re.compile(r"(?:^|;)\s*color\s*:\s*([^;]+)", re.I)
_STYLE_SIZE = re.compile(r"font-size\s*:\s*([^;]+)", re.I)

# Notice texts Discuz puts in place of (or around) a post's content, most specific first.
_NOTICES: tuple[tuple[str, ContentNotice], ...] = (
    ("作者被禁止或删除", ContentNotice.BANNED_AUTHOR),
    ("该帖被管理员或版主屏蔽", ContentNotice.POST_BLOCKED),
    ("无效楼层", ContentNotice.DELETED),
    ("该帖已经被删除", ContentNotice.DELETED),
    ("此帖仅作者可见", ContentNotice.AUTHOR_ONLY),
    ("本帖为密码帖", ContentNotice.PASSWORD),
    ("隐藏内容", ContentNotice.HIDDEN),
    ("待审核", ContentNotice.MODERATION_PENDING),
)

_BLOCKS = frozenset({"div", "p", "blockquote", "table", "tr", "li", "ul", "ol", "h1", "h2",
                     "h3", "h4", "h5", "h6", "pre", "dl", "dt", "dd", "hr"})
_SKIP = frozenset({"script", "style", "noscript", "textarea", "select", "button"})


def notice_for_text(text: str) -> ContentNotice | None:
    """The notice a replaced-content text stands for (作者被禁止或删除 → BANNED_AUTHOR …)."""
    for needle, notice in _NOTICES:
        if needle in text:
            return notice
    return None


def parse_edit_stamp(text: str, tz: tzinfo) -> tuple[str, datetime | None] | None:
    """``(editor, edited_at)`` from a 本帖最后由 stamp, or None."""
    m = _EDIT_STAMP.search(text.replace("\xa0", " "))
    if not m:
        return None
    found = parse_absolute(m.group(2), tz)
    return m.group(1).strip(), found[0] if found else None


@dataclass(frozen=True, slots=True)
class MessageParts:
    text: str
    quotes: tuple[Quote, ...] = ()
    fonts: tuple[Font, ...] = ()
    links: tuple[str, ...] = ()
    images: tuple[str, ...] = ()
    attachments: tuple[str, ...] = ()
    smileys: tuple[str, ...] = ()
    edited_by: str | None = None
    edited_at: datetime | None = None
    notice: ContentNotice | None = None


class _Collector:
    __slots__ = ("tz", "out", "quotes", "fonts", "links", "images", "attachments",
                 "smileys", "stamp", "notice")

    def __init__(self, tz: tzinfo) -> None:
        self.tz = tz
        self.out: list[str] = []
        self.quotes: list[Quote] = []
        self.fonts: list[Font] = []
        self.links: list[str] = []
        self.images: list[str] = []
        self.attachments: list[str] = []
        self.smileys: list[str] = []
        self.stamp: tuple[str, datetime | None] | None = None
        self.notice: ContentNotice | None = None


def _classes(el: etree._Element) -> list[str]:
    value = el.get("class")
    return value.split() if value else []


def _newline(out: list[str]) -> None:
    if out and not out[-1].endswith("\n"):
        out.append("\n")


def _text(text: str | None, out: list[str], after_br: bool = False) -> None:
    if not text:
        return
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if after_br and text.startswith("\n"):
        text = text[1:]  # the newline Discuz writes after every <br />
    if text:
        out.append(text)


def _walk(el: etree._Element, c: _Collector, out: list[str]) -> None:
    _text(el.text, out)
    for child in el:
        tag = child.tag
        if not isinstance(tag, str):  # comment or processing instruction
            _text(child.tail, out)
            continue
        tag = tag.lower()
        if tag == "br":
            out.append("\n")
            _text(child.tail, out, after_br=True)
            continue
        classes = _classes(child)
        if tag in _SKIP:
            pass
        elif (tag == "div" and ("quote" in classes or "reply_wrap" in classes)) or tag == "blockquote":
            c.quotes.append(_read_quote(child, c.tz))
            _newline(out)
        elif tag == "i" and "pstatus" in classes:
            if c.stamp is None:
                c.stamp = parse_edit_stamp("".join(child.itertext()), c.tz)
        elif tag == "div" and "locked" in classes:
            c.notice = c.notice or notice_for_text("".join(child.itertext()))
            _newline(out)
        elif tag == "ignore_js_op" or "attach" in classes or (
            tag == "span" and (child.get("id") or "").startswith("attach_")
        ):
            _read_attachment(child, c)
        elif tag == "img":
            _read_image(child, c)
        else:
            if tag == "a":
                href = child.get("href")
                if href and "&amp;" in href:
                    href = html_lib.unescape(href)  # the API escapes hrefs twice
                if href and not href.startswith("javascript:"):
                    if "mod=attachment" in href or _AID.search(href) and "attachment" in href:
                        c.attachments.append(href)
                    else:
                        c.links.append(href)
            elif tag in ("font", "span"):
                _read_font(child, c)
            block = tag in _BLOCKS
            if block:
                _newline(out)
            _walk(child, c, out)
            if block:
                _newline(out)
        _text(child.tail, out)


def _read_font(el: etree._Element, c: _Collector) -> None:
    color = el.get("color")
    size = el.get("size")
    style = el.get("style")
    if style:
        if color is None and (m := _STYLE_COLOR.search(style)):
            color = m.group(1).strip()
        if size is None and (m := _STYLE_SIZE.search(style)):
            size = m.group(1).strip()
    if color is not None or size is not None:
        c.fonts.append(Font(color=color, size=size))


def _read_image(el: etree._Element, c: _Collector) -> None:
    src = el.get("zoomfile") or el.get("file") or el.get("src")
    if not src:
        return
    if el.get("smilieid") is not None or "/smiley/" in src:
        c.smileys.append(src)
    else:
        c.images.append(src)


def _read_attachment(el: etree._Element, c: _Collector) -> None:
    found: list[str] = []
    for a in el.iter("a"):
        href = a.get("href") or ""
        if "aid=" in href or "mod=attachment" in href:
            found.append(href)
            break
    for img in el.iter("img"):
        src = img.get("zoomfile") or img.get("file")
        if src:  # the attachment's picture (src is often a placeholder)
            c.images.append(src)
            if not found and img.get("aid"):
                found.append(f"aid:{img.get('aid')}")
            break
    if not found and (el.get("id") or "").startswith("attach_"):
        found.append(el.get("id", ""))
    c.attachments.extend(found)


def _plain(el: etree._Element, tz: tzinfo) -> str:
    """The element's text with <br> as newlines (used for quote excerpts)."""
    out: list[str] = []
    _walk(el, _Collector(tz), out)
    return _finish("".join(out))


def _read_quote(el: etree._Element, tz: tzinfo) -> Quote:
    pid = tid = None
    for a in el.iter("a"):
        href = a.get("href") or ""
        if "findpost" in href:
            if m := _PID.search(href):
                pid = int(m.group(1))
            if m := _PTID.search(href):
                tid = int(m.group(1))
            break
    body = el.find("blockquote") if el.tag == "div" else None
    text = _plain(body if body is not None else el, tz)  # nested quotes inside are dropped
    author = quoted_at = None
    m = _QUOTE_HEADER.search(text) or _QUOTE_HEADER_OLD.search(text)
    if m:
        author = m.group(1).strip() or None
        found = parse_absolute(m.group(2), tz)
        quoted_at = found[0] if found else None
        text = _finish(text[: m.start()] + text[m.end():])
    return Quote(pid=pid, tid=tid, author=author, quoted_at=quoted_at, text=text)


def _finish(raw: str) -> str:
    raw = raw.replace("\xa0", " ")
    lines = [line.rstrip() for line in raw.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def parse_message(cell: etree._Element, *, tz: tzinfo) -> MessageParts:
    """Read a message cell element (``td#postmessage_PID`` or an API message wrapper)."""
    c = _Collector(tz)
    out: list[str] = []
    _walk(cell, c, out)
    text = _finish("".join(out))
    stamp = c.stamp
    if stamp is None and "本帖最后由" in text:
        first, _, rest = text.partition("\n")
        if m := _EDIT_STAMP_LINE.match(first):
            found = parse_absolute(m.group(2), tz)
            stamp = (m.group(1).strip(), found[0] if found else None)
            text = _finish(rest)
    return MessageParts(
        text=text,
        quotes=tuple(c.quotes),
        fonts=tuple(c.fonts),
        links=tuple(c.links),
        images=tuple(c.images),
        attachments=tuple(c.attachments),
        smileys=tuple(c.smileys),
        edited_by=stamp[0] if stamp else None,
        edited_at=stamp[1] if stamp else None,
        notice=c.notice,
    )


def parse_message_html(html: str, *, tz: tzinfo) -> MessageParts:
    """Read a message given as an HTML fragment (the mobile API's ``message``)."""
    if not html or not html.strip():
        return MessageParts(text="")
    try:
        wrapper = lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return MessageParts(text=_finish(html))
    return parse_message(wrapper, tz=tz)
