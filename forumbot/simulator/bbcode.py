"""BBCode → HTML the way Discuz's ``discuzcode()`` renders a post, in four flavours.

``x3`` — the X3 thread page (``td.t_f``): quotes become ``div.quote > blockquote`` with
the findpost link made absolute, the edit stamp ``<i class="pstatus">``, images get
Discuz's ``aimg_`` id and zoom attributes.
``touch`` — X3's touch pages (``IN_MOBILE``): the same, but plain images and tables
without widths or colours.
``api`` — the mobile API v4 ``message``: quotes become ``div.reply_wrap``, ``[size]``,
``[align]`` and the edit stamp are dropped, links carry no target and their ``&amp;`` is
escaped twice (a real quirk of the captured forum), images sit in ``div.img``, tables are
``mobile_parsetable``'s ``table.dzcode_table`` (or a ``<ul>`` of ``|`` lines).
``d72`` — a Discuz! 7.2 page (``include/discuzcode.func.php``): links only for absolute
URLs, ``[align]`` → ``<p align>``, ``[hr]`` → ``hr.solidline``, images ``onload=thumbImg``.

Links (``parseurl()``), as each generation's source does them:

* 7.2 takes ``[url=ADDR]`` only when ADDR starts with a scheme of its list
  (``http(s)://``, ``ftp://`` … ``ed2k://``), ``www.`` or ``mailto:``, and holds no
  blank, ``[``, quote or apostrophe. Anything else — ``[url=redirect.php?…]`` — is not a
  link at all: the tag stays on the page as typed. ``[url]TEXT[/url]`` links the first
  absolute address in TEXT (shortened to 32 … 19 characters past 65); without one it
  becomes a link to nowhere (``href=""``).
* X3.5 takes any ADDR without a line break, ``[``, quote or apostrophe; one without a
  scheme (``http(s)://`` …, ``www.``, ``mailto:``, ``tel:``, ``magnet:``) is prefixed with
  the site's address as the page was asked for (``$_G['siteurl']``, ending in ``/``, so
  ``/x`` becomes ``SITE//x``); ``[url]TEXT[/url]`` as in 7.2, but without an address it
  links the site's front page.
* Both: ``www.`` gains ``http://``; the address keeps its ``&amp;``.

Tables (``[table]``, ``[tr]``, ``[td]``) follow ``parsetable()``: ``[table=W]`` /
``[table=W,COLOR]`` (W ≤ 560 px or ≤ 98 %), ``[tr=COLOR]``, ``[td=W]`` (X3 only),
``[td=COLSPAN,ROWSPAN(,W)]``; a table whose text does not start with ``[tr][td]`` loses
its row/cell tags; X3 also reads a table without ``[/tr]``/``[/td]`` as ``|``-separated
lines. Last, like ``discuzcode()``: tabs and runs of spaces become ``&nbsp;`` and line
breaks ``<br />`` (CRLF, as the templates are).
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal

Mode = Literal["x3", "touch", "api", "d72"]

_ENTITY_KEEP = re.compile(r"&amp;(#\d{3,5};|#x[0-9a-fA-F]{4};)")
_STAMP = re.compile(r"\[i=s\](.*?)\[/i\](?:\r?\n){0,2}", re.S)
_QUOTE = re.compile(r"\s?\[quote\][\r\n]*((?:(?!\[quote\]).)*?)[\r\n]*\[/quote\]\s?",
                    re.S | re.I)
# The schemes each generation's parseurl() names (7.2 knows ed2k, X3.5 qqdl instead).
_SCHEMES_D72 = "https?|ftp|gopher|news|telnet|rtsp|mms|callto|bctp|ed2k|thunder|synacast"
_SCHEMES_X3 = "https?|ftp|gopher|news|telnet|rtsp|mms|callto|bctp|thunder|qqdl|synacast"
# [url=ADDR]TEXT[/url] or [url]TEXT[/url]: groups addr (with its "="), scheme, text.
_URL_D72 = re.compile(r"\[url(?P<addr>=(?P<scheme>(?:" + _SCHEMES_D72 + r")://|www\.|mailto:)"
                      r"[^\s\[\"']+?)?\](?P<text>.+?)\[/url\]", re.S | re.I)
_URL_X3 = re.compile(r"\[url(?P<addr>=(?P<scheme>(?:" + _SCHEMES_X3 + r")://|www\.|mailto:|tel:|magnet:)?"
                     r"[^\r\n\[\"']+?)?\](?P<text>.+?)\[/url\]", re.S | re.I)
# In [url]TEXT[/url]: the first absolute address of TEXT.
_IN_TEXT_D72 = re.compile(r"(?:(?:" + _SCHEMES_D72 + r")://|www\.)[^\[\"']+", re.I)
_IN_TEXT_X3 = re.compile(r"(?:(?:" + _SCHEMES_X3 + r")://|www\.)[^\[\"']+", re.I)
_SHOWN_URL = 65  # a longer address shown as its text is cut to 32 … 19 characters
_IMG = re.compile(r"\[img(?:=\d+,\d+)?\](.*?)\[/img\]", re.S | re.I)
_SIMPLE = {"b": "strong", "i": "i", "u": "u", "s": "strike"}

_TABLE = re.compile(r"\[table(?:=(\d{1,4}%?)(?:,([\(\)%,#\w ]+))?)?\]\s*(.+?)\s*\[/table\]",
                    re.S | re.I)
_TR_COLOR = r"(?:=([\(\)\s%,#\w]+))?"


def escape(text: str) -> str:
    """``dhtmlspecialchars``: escape markup but keep numeric entities (``&#12345;``)."""
    out = (text.replace("&", "&amp;").replace('"', "&quot;")
           .replace("<", "&lt;").replace(">", "&gt;"))
    return _ENTITY_KEEP.sub(r"&\1", out)


def _absolute(url: str, site_url: str) -> str:
    if re.match(r"^[a-z][a-z0-9+.-]*://", url, re.I) or url.startswith("/"):
        return url
    return site_url + url


# ---- tables -----------------------------------------------------------------------------
def _width(width: str) -> str:
    if width.endswith("%"):
        return f"{min(int(width[:-1]), 98)}%" if int(width[:-1]) <= 98 else "98%"
    number = int(width or 0)
    return "" if not number else (f"{number}px" if number <= 560 else "98%")


def _cell(tr: str | None, colspan: str | None, rowspan: str | None, width: str | None,
          mode: Mode) -> str:
    """``parsetrtd``: close the previous cell (or open a row), then open a ``<td>``."""
    if mode == "api":  # mobile_parsetrtd: every cell after the first also closes the row
        row = f' style="background-color:{tr}"' if tr and tr != "td" else ""
        return ("</td></tr>" if tr == "td" else f"<tr{row}>") + '<td class="dzcode_td">'
    if tr == "td":
        head = "</td>"
    elif tr and mode == "d72":
        head = f'<tr bgcolor="{tr}">'
    elif tr and mode == "x3":
        head = f'<tr style="background-color:{tr}">'
    else:
        head = "<tr>"
    attrs = ""
    if colspan and int(colspan) > 1:
        attrs += f' colspan="{colspan}"'
    if rowspan and int(rowspan) > 1:
        attrs += f' rowspan="{rowspan}"'
    if width and mode != "touch":
        attrs += f' width="{width}"'
    return f"{head}<td{attrs}>"


def _table_open(width: str, bgcolor: str, mode: Mode) -> str:
    if mode == "touch":
        return "<table>"
    if mode == "api":
        return '<table class="dzcode_table" cellspacing="0" ' + (f' bgcolor="{bgcolor}">' if bgcolor else ">")
    style = f'style="width:{width}"' if width else ""
    return (f'<table cellspacing="0" class="t_table" {style}'
            + (f' bgcolor="{bgcolor}">' if bgcolor else ">"))


def _table(m: re.Match[str], mode: Mode) -> str:
    width, bgcolor, body = m.group(1) or "", m.group(2) or "", m.group(3)
    has_ends = "[/tr]" in body or "[/td]" in body
    if not has_ends and mode == "api":
        return "<ul>" + "".join("<li>" + row.replace("\\|", "&#124;").replace("|", "</li><li>")
                                + "</li>" for row in body.split("\n")) + "</ul>"
    if not has_ends and mode != "d72":
        # X3: a table of lines, cells split by "|".
        rows = "".join("<tr><td>" + row.replace("\\|", "&#124;").replace("|", "</td><td>")
                       + "</td></tr>" for row in body.split("\n"))
        return _table_open(_width(width) if width else "", bgcolor, mode) + rows + "</table>"
    starts = (r"^\[tr" + _TR_COLOR + r"\]\s*\[td([=\d,%]+)?\]" if mode != "d72" else
              r"^\[tr(?:=([\(\)%,#\w]+))?\]\s*\[td(?:=(\d{1,2}),(\d{1,2})(?:,(\d{1,4}%?))?)?\]")
    if not re.match(starts, body):
        return re.sub(r"\[tr(?:=[^\]]*)?\]|\[td(?:=[^\]]*)?\]|\[/td\]|\[/tr\]", "", body)
    if mode != "d72":
        body = re.sub(r"\[tr" + _TR_COLOR + r"\]\s*\[td(?:=(\d{1,4}%?))?\]",
                      lambda c: _cell(c.group(1), None, None, c.group(2), mode), body, flags=re.I)
        body = re.sub(r"\[/td\]\s*\[td(?:=(\d{1,4}%?))?\]",
                      lambda c: _cell("td", None, None, c.group(1), mode), body, flags=re.I)
    body = re.sub(r"\[tr" + _TR_COLOR + r"\]\s*\[td(?:=(\d{1,2}),(\d{1,2})(?:,(\d{1,4}%?))?)?\]",
                  lambda c: _cell(c.group(1), c.group(2), c.group(3), c.group(4), mode), body,
                  flags=re.I)
    body = re.sub(r"\[/td\]\s*\[td(?:=(\d{1,2}),(\d{1,2})(?:,(\d{1,4}%?))?)?\]",
                  lambda c: _cell("td", c.group(1), c.group(2), c.group(3), mode), body,
                  flags=re.I)
    body = re.sub(r"\[/td\]\s*\[/tr\]\s*", "</td></tr>", body, flags=re.I)
    return _table_open(_width(width), bgcolor, mode) + body + "</table>"


def _tables(html: str, mode: Mode) -> str:
    for _ in range(5):  # nested tables, as deep as discuzcode() goes
        if "[table" not in html.lower() or "[/table]" not in html.lower():
            break
        html = _TABLE.sub(lambda m: _table(m, mode), html)
    return html


# ---- links -------------------------------------------------------------------------------
def _link(m: re.Match[str], site_url: str, mode: Mode) -> str:
    """``parseurl()``: one ``[url]`` the generation's pattern took (see the module's doc)."""
    addr, scheme, text = m.group("addr"), m.group("scheme"), m.group("text")
    found = None if addr else (_IN_TEXT_D72 if mode == "d72" else _IN_TEXT_X3).search(text.strip())
    if found is not None:
        url = found.group(0)
        if len(url) > _SHOWN_URL:
            text = url[:int(_SHOWN_URL * 0.5)] + " ... " + url[-int(_SHOWN_URL * 0.3):]
        href = "http://" + url if url.lower().startswith("www.") else url
    else:
        href = (addr or "")[1:]
        if href.lower().startswith("www."):
            href = "http://" + href
        if mode != "d72" and not scheme:
            href = site_url + href
    if mode == "api":  # the captured API: no target, and its "&amp;" escaped once more
        return f'<a href="{href.replace("&amp;", "&amp;amp;")}">{text}</a>'
    return f'<a href="{href}" target="_blank">{text}</a>'


# ---- the rest ---------------------------------------------------------------------------
# [code]…[/code] (``codedisp()``): taken out before any other code is read — nothing inside
# is BBCode — with one blank before and after it; each line becomes an ``<li>``. X3.5's
# dhtmlspecialchars there keeps no entity (``&#091;`` shows as typed, seen on a real
# X3.5); 7.2's keeps numeric ones and drops the block's leading and trailing line breaks.
_CODE = re.compile(r"\s?\[code\](.+?)\[/code\]\s?", re.S | re.I)
_CODE_MARK = "\x00CODE{}\x00"


def _code_block(code: str, number: int, mode: Mode) -> str:
    if mode == "d72":
        code = escape(re.sub(r"^[\n\r]*(.+?)[\n\r]*$", r"\1", code, flags=re.S))
        box = f"code{number}"
    else:
        code = (code.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;"))
        box = f"code_{hashlib.md5(code.encode()).hexdigest()[:3]}"
    code = code.replace("\n", "<li>")
    return (f'<div class="blockcode"><div id="{box}"><ol><li>{code}</ol></div>'
            f"<em onclick=\"copycode($('{box}'));\">复制代码</em></div>")


def render(message: str, site_url: str, mode: Mode = "x3") -> str:
    codes: list[str] = []

    def take(m: re.Match[str]) -> str:
        codes.append(_code_block(m.group(1), len(codes), mode))
        return _CODE_MARK.format(len(codes) - 1)

    return _put_back(_render(_CODE.sub(take, message), site_url, mode), codes)


def _put_back(html: str, codes: list[str]) -> str:
    for number, block in enumerate(codes):
        html = html.replace(_CODE_MARK.format(number), block)
    return html


def _render(message: str, site_url: str, mode: Mode) -> str:
    html = escape(message)
    if mode == "api":
        html = _STAMP.sub("", html)
    else:
        html = _STAMP.sub(lambda m: f'<i class="pstatus">{m.group(1)}</i>\n\n', html)

    html = (_URL_D72 if mode == "d72" else _URL_X3).sub(lambda m: _link(m, site_url, mode), html)

    html = _tables(html, mode)

    quote_open = '<div class="reply_wrap">' if mode == "api" else '<div class="quote"><blockquote>'
    quote_close = "</div>" if mode == "api" else "</blockquote></div>"
    while True:
        html, n = _QUOTE.subn(lambda m: quote_open + m.group(1) + quote_close, html)
        if not n:
            break

    def image(m: re.Match[str]) -> str:
        src = m.group(1).strip()
        if mode == "d72":
            return f'<img src="{src}" onload="thumbImg(this)" alt="" />'
        src = _absolute(src, site_url)
        if mode == "api":
            return f'<div class="img"><img src="{src}" /></div>'
        if mode == "touch":
            return f'<img src="{src}" border="0" alt="" />'
        aid = hashlib.md5(src.encode()).hexdigest()[:5]
        return (f'<img id="aimg_{aid}" onclick="zoom(this, this.src, 0, 0, 0)" class="zoom" '
                f'src="{src}" onmouseover="img_onmouseoverfunc(this)" '
                f'onload="thumbImg(this)" border="0" alt="" />')

    html = _IMG.sub(image, html)
    for tag, element in _SIMPLE.items():
        html = re.sub(rf"\[{tag}\](.*?)\[/{tag}\]", rf"<{element}>\1</{element}>", html,
                      flags=re.S | re.I)
    align = '<p align="\\1">\\2</p>' if mode == "d72" else '<div align="\\1">\\2</div>'
    for _ in range(3):  # nested [color][size] pairs
        html = re.sub(r"\[color=([#\w(), ]+?)\](.*?)\[/color\]", r'<font color="\1">\2</font>',
                      html, flags=re.S | re.I)
        if mode == "api":
            html = re.sub(r"\[size=[\w.]+?\](.*?)\[/size\]", r"\1", html, flags=re.S | re.I)
            html = re.sub(r"\[align=\w+\](.*?)\[/align\]", r"\1", html, flags=re.S | re.I)
        else:
            html = re.sub(r"\[size=([\w.]+?)\](.*?)\[/size\]", r'<font size="\1">\2</font>',
                          html, flags=re.S | re.I)
            html = re.sub(r"\[align=(left|center|right)\](.*?)\[/align\]", align, html,
                          flags=re.S | re.I)
        html = re.sub(r"\[font=([^\]]+?)\](.*?)\[/font\]", r'<font face="\1">\2</font>', html,
                      flags=re.S | re.I)
    hr = '<hr class="solidline" />' if mode == "d72" else '<hr class="l" />'
    html = re.sub(r"\[hr\]", hr, html, flags=re.I)

    if mode == "api":
        html = html.replace("\r\n", "<br />\r")
        html = html.replace("\n", "<br />\n")
        return html.replace("<br />\r", "<br />\r\n")
    html = (html.replace("\t", "&nbsp; &nbsp; &nbsp; &nbsp; ")
            .replace("   ", "&nbsp; &nbsp;").replace("  ", "&nbsp;&nbsp;"))
    if mode == "d72":  # nl2br: the break goes before the line end as posted
        return re.sub(r"(\r\n|\n|\r)", r"<br />\1", html)
    return re.sub(r"\r?\n", "<br />\r\n", html)
