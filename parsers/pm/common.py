"""What both generations' PM readers share: HTML → text, times, the page header."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo
from html import unescape

from parsers.models import TimePrecision
from parsers.times import parse_absolute, parse_relative

__all__ = ["html_text", "pm_time", "DISCUZ_UID", "FORMHASH"]

DISCUZ_UID = re.compile(r"discuz_uid\s*=\s*'?(\d+)'?")
FORMHASH = re.compile(r'name="formhash"[^>]*value="([0-9a-zA-Z]{8})"')
_BR = re.compile(r"<br\s*/?>\r?\n?", re.I)
_TAG = re.compile(r"<[^>]+>")
_SECONDS = re.compile(r"刚刚|刚才|\d+\s*秒前")


def html_text(html: str) -> str:
    """A message's HTML as the text its author typed: ``<br />`` → newline, tags out,
    entities decoded, ``&nbsp;`` as spaces; outer whitespace trimmed."""
    text = _BR.sub("\n", html.replace("\r\n", "\n"))
    text = unescape(_TAG.sub("", text)).replace("\xa0", " ")
    return text.strip()


def pm_time(title: str | None, shown: str, tz: tzinfo,
            now: datetime | None) -> tuple[datetime, TimePrecision] | None:
    """A PM time: the span title (``Y-n-j H:i``, minutes) or absolute text; a relative
    text in seconds (刚刚, N 秒前) resolved with ``now`` when it agrees with the title's
    minute, which makes it exact to the second; other relative texts with ``now``."""
    shown = unescape(shown).replace("\xa0", " ").strip()
    titled = parse_absolute(title, tz) if title else None
    if now is not None and _SECONDS.search(shown):
        exact = parse_relative(shown, now, tz)
        if exact is not None and (titled is None or
                                  exact[0].replace(second=0, microsecond=0) == titled[0]):
            return exact[0].replace(microsecond=0), TimePrecision.SECOND
    if titled is not None:
        return titled
    found = parse_absolute(shown, tz)
    if found is not None:
        return found
    if now is not None:
        return parse_relative(shown, now, tz)
    return None


def day_word_time(text: str, tz: tzinfo, now: datetime | None) -> datetime | None:
    """7.2's inbox wording: 今天/昨天/前天 H:i, or ``Y-n-j H:i``."""
    text = unescape(text).replace("\xa0", " ").strip()
    if found := parse_absolute(text, tz):
        return found[0]
    m = re.search(r"(今天|昨天|前天)\s*(\d{1,2}):(\d{2})", text)
    if m is None or now is None:
        return None
    back = {"今天": 0, "昨天": 1, "前天": 2}[m.group(1)]
    day = now.astimezone(tz) - timedelta(days=back)
    return day.replace(hour=int(m.group(2)), minute=int(m.group(3)), second=0, microsecond=0)
