"""BBCode → HTML the way Discuz X3 renders a post (``discuzcode``), in two flavours.

``page``: the thread page (``td.t_f``): quotes become ``div.quote > blockquote`` with the
findpost link made absolute, the edit stamp ``<i class="pstatus">``, images get Discuz's
``aimg_`` id and zoom attributes, line breaks ``<br />`` + CRLF (the templates are CRLF).
``api``: the mobile API v4 ``message``: quotes become ``div.reply_wrap``, ``[size]``,
``[align]`` and the edit stamp are dropped, links carry no target and their ``&amp;`` is
escaped twice (a real quirk of the captured forum), images sit in ``div.img``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal

Mode = Literal["page", "api"]

_ENTITY_KEEP = re.compile(r"&amp;(#\d{3,5};|#x[0-9a-fA-F]{4};)")
_STAMP = re.compile(r"\[i=s\](.*?)\[/i\](?:\r?\n){0,2}", re.S)
_QUOTE = re.compile(r"\s?\[quote\][\r\n]*((?:(?!\[quote\]).)*?)[\r\n]*\[/quote\](?:\r\n|\s)?",
                    re.S | re.I)
_URL_EQ = re.compile(r"\[url=([^\]]+)\](.*?)\[/url\]", re.S | re.I)
_URL = re.compile(r"\[url\](.*?)\[/url\]", re.S | re.I)
_IMG = re.compile(r"\[img(?:=\d+,\d+)?\](.*?)\[/img\]", re.S | re.I)
_SIMPLE = {"b": "strong", "i": "i", "u": "u", "s": "strike"}


def escape(text: str) -> str:
    """``dhtmlspecialchars``: escape markup but keep numeric entities (``&#12345;``)."""
    out = (text.replace("&", "&amp;").replace('"', "&quot;")
           .replace("<", "&lt;").replace(">", "&gt;"))
    return _ENTITY_KEEP.sub(r"&\1", out)


def _absolute(url: str, site_url: str) -> str:
    if re.match(r"^[a-z][a-z0-9+.-]*://", url, re.I) or url.startswith("/"):
        return url
    return site_url + url


def render(message: str, site_url: str, mode: Mode = "page") -> str:
    html = escape(message)
    if mode == "page":
        html = _STAMP.sub(lambda m: f'<i class="pstatus">{m.group(1)}</i>\n\n', html)
    else:
        html = _STAMP.sub("", html)

    quote_open = ('<div class="quote"><blockquote>' if mode == "page"
                  else '<div class="reply_wrap">')
    quote_close = "</blockquote></div>" if mode == "page" else "</div>"
    while True:
        html, n = _QUOTE.subn(lambda m: quote_open + m.group(1) + quote_close, html)
        if not n:
            break

    def link(url: str, text: str) -> str:
        href = _absolute(url, site_url)
        if mode == "api":
            return f'<a href="{href.replace("&amp;", "&amp;amp;")}">{text}</a>'
        return f'<a href="{href}" target="_blank">{text}</a>'

    html = _URL_EQ.sub(lambda m: link(m.group(1), m.group(2)), html)
    html = _URL.sub(lambda m: link(m.group(1), m.group(1)), html)

    def image(m: re.Match[str]) -> str:
        src = _absolute(m.group(1).strip(), site_url)
        if mode == "api":
            return f'<div class="img"><img src="{src}" /></div>'
        aid = hashlib.md5(src.encode()).hexdigest()[:5]
        return (f'<img id="aimg_{aid}" onclick="zoom(this, this.src, 0, 0, 0)" class="zoom" '
                f'src="{src}" onmouseover="img_onmouseoverfunc(this)" '
                f'onload="thumbImg(this)" border="0" alt="" />')

    html = _IMG.sub(image, html)
    for tag, element in _SIMPLE.items():
        html = re.sub(rf"\[{tag}\](.*?)\[/{tag}\]", rf"<{element}>\1</{element}>", html,
                      flags=re.S | re.I)
    for _ in range(3):  # nested [color][size] pairs
        html = re.sub(r"\[color=([#\w(), ]+?)\](.*?)\[/color\]", r'<font color="\1">\2</font>',
                      html, flags=re.S | re.I)
        if mode == "page":
            html = re.sub(r"\[size=([\w.]+?)\](.*?)\[/size\]", r'<font size="\1">\2</font>',
                          html, flags=re.S | re.I)
            html = re.sub(r"\[align=(left|center|right)\](.*?)\[/align\]",
                          r'<div align="\1">\2</div>', html, flags=re.S | re.I)
        else:
            html = re.sub(r"\[size=[\w.]+?\](.*?)\[/size\]", r"\1", html, flags=re.S | re.I)
            html = re.sub(r"\[align=\w+\](.*?)\[/align\]", r"\1", html, flags=re.S | re.I)
        html = re.sub(r"\[font=([^\]]+?)\](.*?)\[/font\]", r'<font face="\1">\2</font>', html,
                      flags=re.S | re.I)
    html = re.sub(r"\[hr\]", '<hr class="l" />', html, flags=re.I)
    html = re.sub(r"\[code\](.*?)\[/code\]",
                  r'<div class="blockcode"><div><ol><li>\1</ol></div></div>', html,
                  flags=re.S | re.I)

    if mode == "page":
        return re.sub(r"\r?\n", "<br />\r\n", html)
    html = html.replace("\r\n", "<br />\r")
    html = html.replace("\n", "<br />\n")
    return html.replace("<br />\r", "<br />\r\n")
