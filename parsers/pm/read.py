"""The one entry point: bytes of a PM page (either generation, HTML, ajax or API JSON) →
:class:`~parsers.pm.models.PmPage`. No other exception than ``PageParseError`` leaves it."""

from __future__ import annotations

import json
import re
from datetime import datetime, tzinfo
from zoneinfo import ZoneInfo

from parsers.charset import codec_for, sniff_charset
from parsers.errors import PageParseError
from parsers.pm.d72 import is_d72_pm_page, parse_d72_ajax, parse_d72_html
from parsers.pm.models import PmPage
from parsers.pm.x35 import is_x35_pm_page, parse_x35_api, parse_x35_html

__all__ = ["read_pm_page"]

FORUM_TZ = ZoneInfo("Asia/Shanghai")
_CDATA = re.compile(r"<!\[CDATA\[(.*?)(?:\]\]>|$)", re.S)


def read_pm_page(content: bytes, *, content_type: str | None = None, source: str | None = None,
                 tz: tzinfo = FORUM_TZ, now: datetime | None = None) -> PmPage:
    """Read a PM page. ``now`` (aware) resolves relative times (X3.5's API gives only
    those; its pages give a minute-precise title, which ``now`` refines to the second
    for "N 秒前"); 7.2's inbox says 今天 09:41, placed with ``now`` or left None."""
    try:
        return _read(content, content_type, source, tz, now)
    except PageParseError:
        raise
    except Exception as exc:  # noqa: BLE001 — the contract is PageParseError only
        raise PageParseError(f"读页面时程序内部出错: {type(exc).__name__}: {exc}",
                             source=source) from exc


def _read(content: bytes, content_type: str | None, source: str | None, tz: tzinfo,
          now: datetime | None) -> PmPage:
    if not content.strip():
        raise PageParseError("空页面（7.2 对被当作搜索引擎的 User-Agent 回 403，没有内容）",
                             source=source)
    stripped = content.lstrip()
    if stripped[:1] in (b"{", b"[") or (content_type and "json" in content_type.lower()):
        try:
            doc = json.loads(content.decode("utf-8-sig"))
        except ValueError as exc:
            raise PageParseError("不是有效的 JSON", source=source) from exc
        if not isinstance(doc, dict):
            raise PageParseError("不是手机版接口的回应", source=source)
        return parse_x35_api(doc, tz=tz, now=now, source=source)
    sniffed = sniff_charset(content, content_type)
    if not sniffed.clean:
        raise PageParseError(f"无法确定页面的编码（从第 {sniffed.bad_offset} 字节起有坏字节）", source=source)
    text = content.decode(codec_for(sniffed.charset), errors="replace").lstrip("\ufeff")
    if text.lstrip().startswith("<?xml"):
        inner = "".join(m.group(1) for m in _CDATA.finditer(text))
        if '<li id="pm_' in inner:
            return parse_d72_ajax(inner, tz=tz, source=source)
        raise PageParseError("ajax 回应里没有消息", source=source)
    if is_x35_pm_page(text):
        return parse_x35_html(text, tz=tz, now=now, source=source)
    if is_d72_pm_page(text):
        return parse_d72_html(text, tz=tz, now=now, source=source)
    raise PageParseError("不是站内信页面（里面没有收件箱，也没有对话）",
                         source=source)
