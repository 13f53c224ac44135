"""A small BBCode → HTML previewer for the tags the bot's templates use.

Only ``b i u s url table tr td size color quote`` become HTML; every other bracket stays
as text. Everything is HTML-escaped: a player's name or reason copied into a draft can
never become markup in the desk. Discuz shows numeric entities of 3–5 digits (``&#091;``,
which ``forumbot.game.render.bb_escape`` writes for player-typed brackets) as the character,
so the preview does too — after the tags are parsed, so they never become tags.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urljoin, urlsplit

from markupsafe import Markup

_TAG = re.compile(r"\[(/?)(b|i|u|s|url|table|tr|td|size|color|quote)(?:=([^\]\n]{0,200}))?\]", re.IGNORECASE)
_ENTITY = re.compile(r"&#(\d{3,5});")
_COLOR = re.compile(r"^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20})$")
_WIDTH = re.compile(r"^\d{1,4}%?$")
_SIZE_PX = re.compile(r"^(\d{1,2})(px|pt)$")
_SIMPLE = {"b": "strong", "i": "em", "u": "u", "s": "s"}
# Discuz's [size=1..7] follow the old <font size> steps.
_FONT_SIZES = {1: "0.63em", 2: "0.82em", 3: "1em", 4: "1.13em", 5: "1.5em", 6: "2em", 7: "3em"}
_STRUCTURE = {"table", "tr"}  # where line breaks between cells are layout, not text


def _text(raw: str) -> str:
    decoded = _ENTITY.sub(lambda m: chr(int(m.group(1))) if int(m.group(1)) < 0x110000 else m.group(0), raw)
    return html.escape(decoded, quote=True)


def safe_href(target: str, base_url: str | None) -> str | None:
    """An absolute http(s) URL for a link, resolving forum-relative ones; None otherwise."""
    target = html.unescape(target.strip())
    if base_url:
        target = urljoin(base_url, target)
    parts = urlsplit(target)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return target


def _open(name: str, arg: str | None, base_url: str | None) -> str | None:
    """The HTML opening a tag, or None when its argument is not acceptable."""
    if name in _SIMPLE:
        return f"<{_SIMPLE[name]}>"
    if name == "table":
        if arg and not _WIDTH.match(arg):
            return None
        width = f' style="width:{html.escape(arg)}"' if arg else ""
        return f'<table class="bb-table"{width}>'
    if name == "tr":
        return "<tr>"
    if name == "td":
        return "<td>"
    if name == "quote":
        return '<blockquote class="bb-quote">'
    if name == "color":
        if not arg or not _COLOR.match(arg):
            return None
        return f'<span style="color:{arg}">'
    if name == "size":
        if arg and arg.isdigit() and int(arg) in _FONT_SIZES:
            return f'<span style="font-size:{_FONT_SIZES[int(arg)]}">'
        if arg and (m := _SIZE_PX.match(arg)) and int(m.group(1)) <= 72:
            return f'<span style="font-size:{arg}">'
        return None
    return None  # url is handled by the caller (it needs its text)


_CLOSE = {"b": "</strong>", "i": "</em>", "u": "</u>", "s": "</s>", "table": "</table>", "tr": "</tr>",
          "td": "</td>", "quote": "</blockquote>", "color": "</span>", "size": "</span>"}


def bbcode_to_html(source: str, *, base_url: str | None = None) -> Markup:
    """``source`` BBCode as safe HTML (a ``Markup``, so Jinja prints it as is)."""
    out: list[str] = []
    stack: list[str] = []
    pos = 0
    while pos <= len(source):
        m = _TAG.search(source, pos)
        end = m.start() if m else len(source)
        chunk = source[pos:end]
        if chunk:
            if stack and stack[-1] in _STRUCTURE and not chunk.strip():
                pass  # newlines between [tr]/[td] are layout
            else:
                out.append(_text(chunk).replace("\r\n", "\n").replace("\n", "<br>\n"))
        if m is None:
            break
        closing, name, arg = m.group(1), m.group(2).lower(), m.group(3)
        pos = m.end()
        if closing:
            if name in stack:
                while stack:
                    top = stack.pop()
                    out.append(_CLOSE.get(top, ""))
                    if top == name:
                        break
            else:
                out.append(_text(m.group(0)))
            continue
        if name == "url":
            close = source.lower().find("[/url]", pos)
            inner = source[pos:close] if close >= 0 else ""
            href = safe_href(arg if arg else inner, base_url) if close >= 0 else None
            if href is None:
                out.append(_text(m.group(0)))
                continue
            label = str(bbcode_to_html(inner, base_url=base_url)) if arg else _text(inner)
            out.append(f'<a href="{html.escape(href, quote=True)}" target="_blank" rel="noopener noreferrer">'
                       f"{label}</a>")
            pos = close + len("[/url]")
            continue
        opening = _open(name, arg, base_url)
        if opening is None:
            out.append(_text(m.group(0)))
            continue
        out.append(opening)
        stack.append(name)
    while stack:
        out.append(_CLOSE.get(stack.pop(), ""))
    return Markup("".join(out))
