"""Which Discuz generation a page comes from: X2.5–X3.5 (``x3``) or 7.2 (``7.2``).

Evidence, strongest first, each read from the captured pages of both generations (UTF-8
and GBK: ../shared/fixtures/discuz-x3*, discuz-7.2*):

1. ``<meta name="generator" content="Discuz! X3.5" />`` / ``content="Discuz! 7.2"`` — in
   every default-template page of both, the site-closed and message pages included;
2. the footer ``Powered by <strong>…Discuz!…</strong> <em>X3.5</em>`` / ``<em>7.2</em>``
   (``Powered by Discuz! 7.2`` in plain text on the printable view);
3. the URL scheme of the page's own links, which no theme can change without breaking
   the site: X3 routes through ``forum.php?mod=…`` and ``member.php?mod=logging``; 7.2 has
   one script per page (``viewthread.php?tid=``, ``forumdisplay.php?fid=``,
   ``logging.php?action=``).

Themes often drop 1 and 2 (to hide the version), so 3 decides when they are absent:
whichever scheme has more links wins. A page with none of these (an error page of the
web server, a bare redirect) tells nothing: ``None``.
"""

from __future__ import annotations

import re
from enum import StrEnum

__all__ = ["Generation", "detect_generation", "parse_generation"]


class Generation(StrEnum):
    X3 = "x3"  # X2.5–X3.5 (X1.5/X2 share the routes and ids)
    D72 = "7.2"


_GENERATOR = re.compile(r"<meta\s+name=[\"']generator[\"']\s+content=[\"']Discuz!\s*(X?)\s*(\d+)", re.I)
# "Powered by <strong><a …>Discuz!</a></strong> <em>X3.5</em>", or plain text on the
# printable view: "Powered by Discuz! 7.2".
_POWERED = re.compile(
    r"Powered by\s*(?:<strong>(?:(?!</strong>).)*?Discuz!(?:(?!</strong>).)*</strong>\s*<em>|Discuz!)"
    r"\s*(X?)\s*(\d+)", re.I | re.S)
_X3_LINKS = re.compile(r"(?:forum|member|home|portal|misc)\.php\?mod=")
_D72_LINKS = re.compile(r"(?:viewthread\.php\?tid=|forumdisplay\.php\?fid=|logging\.php\?action=)")


def _by_version(x: str, major: str) -> Generation | None:
    if x:
        return Generation.X3
    return Generation.D72 if major == "7" else None


def detect_generation(text: str) -> Generation | None:
    """The generation ``text`` (a decoded HTML page) was served by, or None if it cannot tell."""
    for pattern in (_GENERATOR, _POWERED):
        if (m := pattern.search(text)) is not None:
            found = _by_version(*m.groups())
            if found is not None:
                return found
    x3, d72 = len(_X3_LINKS.findall(text)), len(_D72_LINKS.findall(text))
    if x3 > d72:
        return Generation.X3
    if d72 > x3:
        return Generation.D72
    return None


def parse_generation(value: str) -> Generation | None:
    """``[forum].discuz``: ``"auto"`` → None (detect), ``"x3"`` / ``"7.2"`` → that one."""
    if value == "auto":
        return None
    return Generation(value)
