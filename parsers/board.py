"""A board's thread listing (forumdisplay) → BoardPage: what changed, in one request.

Three dresses, one record (``BoardThread``) per thread row:

* X3.5 HTML ``forum.php?mod=forumdisplay&fid=F`` (captures ``forumdisplay-fid3*.html``):
  ``table#threadlisttableid`` of ``tbody#normalthread_TID`` / ``tbody#stickthread_TID``
  rows (a ``tbody#separatorline`` between the sticky and the normal ones); the subject is
  ``a.xst``, the author the first ``td.by``'s ``cite a``, the replies ``td.num > a``, the
  last post the second ``td.by``: ``cite a`` (who) and ``em … span[title]`` (when, to the
  minute; the text is relative, "21 秒前", or absolute when dateconvert is off).
* X3.5 mobile API ``module=forumdisplay`` (``mobileapi-forumdisplay-fid3.json``):
  ``Variables.forum_threadlist[]`` with ``replies``, ``dblastpost`` (unix seconds, so
  SECOND precision), ``lastposter``, ``displayorder`` (> 0: sticky); ``tpp`` and
  ``forum.threads`` give the page count.
* 7.2 ``forumdisplay.php?fid=F`` (``guest_forumdisplay.html``): ``table#forum_F`` with the
  same ``tbody`` ids; the subject is ``span#thread_TID a``, the author ``td.author cite``,
  the replies ``td.nums strong``, the last post ``td.lastpost`` (``cite a``, ``em … span``).

The HTML listings give the last post time to the minute only, so what tells a reader a
thread moved is the triple (replies, last post time, last poster) — :attr:`BoardThread.mark`.
A page that is no listing (a nonexistent board, a board hidden from this viewer, a site
closed) raises ``PageParseError`` carrying the forum's own words in ``.forum_message``.
"""

from __future__ import annotations

import html as html_lib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, tzinfo

from lxml import etree

from parsers.charset import codec_for, sniff_charset
from parsers.errors import PageParseError
from parsers.html_page import _forum_message, _pager, page_error
from parsers.models import TimePrecision
from parsers.times import TimeUnreadable, parse_post_time

__all__ = ["BoardPage", "BoardThread", "parse_board_api", "parse_board_html", "read_board"]

_ROW_ID = re.compile(r"^(normal|stick)thread_(\d+)$")
_SUMMARY_FID = re.compile(r"^forum_(\d+)$")
_UID = re.compile(r"[?&;]uid=(\d+)")
_DIGITS = re.compile(r"\d+")
_DISCUZ_UID = re.compile(r"discuz_uid\s*=\s*'?(\d+)'?")
_JS_FID = re.compile(r"fid\s*=\s*parseInt\('(\d+)'\)")
_JSON_START = re.compile(rb"\s*[{\[]")
_HEAD_CHARS = 30000
_LOCK_MARKS = ("fico-lock", "folder_lock", "folder_closed")


@dataclass(frozen=True, slots=True)
class BoardThread:
    """One row of a board listing."""

    tid: int
    subject: str
    author: str | None
    author_uid: int | None
    replies: int
    last_post_at: datetime | None  # forum zone; None when the row's time cannot be read
    last_post_precision: TimePrecision | None
    last_poster: str | None
    sticky: bool  # 置顶 (stickthread_ rows, API displayorder > 0): kept on page 1 whatever its age
    closed: bool = False

    @property
    def mark(self) -> tuple[int, datetime | None, str | None]:
        """What moves when someone posts: compared pass to pass. Edits do not move it."""
        return (self.replies, self.last_post_at, self.last_poster)


@dataclass(frozen=True, slots=True)
class BoardPage:
    """One page of a board's thread listing."""

    fid: int | None
    page: int
    total_pages: int
    threads: tuple[BoardThread, ...]
    charset: str
    viewer_uid: int  # 0 for a guest
    formhash: str | None
    name: str | None
    source: str = "html"  # "html" or "api"
    threads_per_page: int | None = None  # the API says (tpp); the HTML pages do not

    def thread(self, tid: int) -> BoardThread | None:
        return next((t for t in self.threads if t.tid == tid), None)

    @property
    def tids(self) -> frozenset[int]:
        return frozenset(t.tid for t in self.threads)

    @property
    def full(self) -> bool:
        """Whether more threads exist past this page (a thread absent from it may be there)."""
        return self.page < self.total_pages


# ------------------------------------------------------------------ HTML


def _text(el: etree._Element | None) -> str:
    if el is None:
        return ""
    return " ".join("".join(el.itertext()).replace("\xa0", " ").split())


def _cells(row: etree._Element) -> list[etree._Element]:
    tr = row.find("tr")
    return [c for c in (tr if tr is not None else row) if c.tag in ("td", "th")]


def _cls(el: etree._Element) -> set[str]:
    return set((el.get("class") or "").split())


def _user(cell: etree._Element | None) -> tuple[str | None, int | None]:
    if cell is None:
        return None, None
    link = cell.find(".//cite//a")
    if link is None:
        link = cell.find(".//cite")
        name = _text(link) or None
        return name, None
    href = link.get("href") or ""
    uid = int(m.group(1)) if (m := _UID.search(href)) else None
    return _text(link) or None, uid


def _when(cell: etree._Element | None, tz: tzinfo,
          now: datetime | None) -> tuple[datetime | None, TimePrecision | None]:
    if cell is None:
        return None, None
    em = cell.find(".//em")
    if em is None:
        return None, None
    span = em.find(".//span[@title]")
    title = span.get("title") if span is not None else None
    try:
        when, precision = parse_post_time(title, _text(em), tz, now)
    except TimeUnreadable:
        return None, None
    return when, precision


def _row(row: etree._Element, tid: int, sticky: bool, tz: tzinfo,
         now: datetime | None, source: str | None) -> BoardThread:
    cells = _cells(row)
    subject_cell = next((c for c in cells if c.tag == "th"), None)
    by = [c for c in cells if c.tag == "td" and _cls(c) & {"by", "author", "lastpost"}]
    author_cell = next((c for c in by if _cls(c) & {"by", "author"}), None)
    last_cell = next((c for c in by if "lastpost" in _cls(c)), None)
    if last_cell is None and len(by) > 1:
        last_cell = by[-1]  # X3: the second td.by
    num_cell = next((c for c in cells if c.tag == "td" and _cls(c) & {"num", "nums"}), None)
    subject_link = None
    if subject_cell is not None:
        subject_link = subject_cell.find(f".//span[@id='thread_{tid}']/a")  # 7.2
        if subject_link is None:
            subject_link = next((a for a in subject_cell.iter("a") if "xst" in _cls(a)), None)
        if subject_link is None:  # any theme: the first link to the thread with text
            subject_link = next((a for a in subject_cell.iter("a")
                                 if f"tid={tid}" in (a.get("href") or "") and _text(a)), None)
    if num_cell is None:
        raise page_error(f"主题 {tid} 那一行没有回复数（td.num / td.nums）", source)
    # X3: <a>13</a><em>13</em> (replies, views); 7.2: <strong>27</strong>/<em>27</em>.
    count_el = num_cell.find("a")
    if count_el is None:
        count_el = num_cell.find("strong")
    m = _DIGITS.search(_text(count_el if count_el is not None else num_cell))
    if m is None:
        raise page_error(f"主题 {tid} 的回复数读不出来：{_text(num_cell)!r}", source)
    author, author_uid = _user(author_cell)
    poster, _ = _user(last_cell)
    when, precision = _when(last_cell, tz, now)
    markup = etree.tostring(subject_cell, encoding="unicode") if subject_cell is not None else ""
    icon_markup = "".join(etree.tostring(c, encoding="unicode") for c in cells[:2])
    closed = any(mark in markup or mark in icon_markup for mark in _LOCK_MARKS) or (
        subject_cell is not None and subject_cell.find(".//*[@title='关闭']") is not None)
    return BoardThread(
        tid=tid,
        subject=_text(subject_link),
        author=author,
        author_uid=author_uid,
        replies=int(m.group()),
        last_post_at=when,
        last_post_precision=precision,
        last_poster=poster,
        sticky=sticky,
        closed=closed,
    )


def parse_board_html(text: str, *, tz: tzinfo, now: datetime | None = None,
                     source: str | None = None, charset: str = "utf-8") -> BoardPage:
    """Read a forumdisplay page (X3.5 or 7.2, any charset once decoded)."""
    if not text.strip():
        raise page_error("空页面：不是版块的主题列表", source)
    root = etree.fromstring(text, etree.HTMLParser())
    if root is None:
        raise page_error("空页面：不是版块的主题列表", source)
    table = None
    for candidate in root.iterfind(".//table[@summary]"):
        if _SUMMARY_FID.match(candidate.get("summary") or ""):
            table = candidate
            break
    if table is None:
        message = _forum_message(root)
        if message:
            raise page_error(f"不是版块的主题列表，论坛说：{message}", source, message)
        raise page_error("找不到主题列表（table[summary=forum_FID]）：不是 Discuz 的版块页面", source)
    fid = int(_SUMMARY_FID.match(table.get("summary") or "").group(1))  # type: ignore[union-attr]
    threads: list[BoardThread] = []
    seen: set[int] = set()
    for body in table.iter("tbody"):
        m = _ROW_ID.match(body.get("id") or "")
        if not m:
            continue  # separatorline, the empty-board row
        tid = int(m.group(2))
        if tid in seen:
            continue
        seen.add(tid)
        threads.append(_row(body, tid, m.group(1) == "stick", tz, now, source))
    page, total = _pager(root)
    head = text[:_HEAD_CHARS]
    uid = int(m.group(1)) if (m := _DISCUZ_UID.search(head)) else 0
    formhash_input = root.find(".//input[@name='formhash']")
    return BoardPage(
        fid=fid,
        page=page,
        total_pages=total,
        threads=tuple(threads),
        charset=charset,
        viewer_uid=uid,
        formhash=formhash_input.get("value") if formhash_input is not None else None,
        name=_board_name(root, fid),
        source="html",
    )


def _board_name(root: etree._Element, fid: int) -> str | None:
    """X3: ``h1.xs2 > a`` (a link to the board); 7.2: ``div#forumheader > h1``; else the
    page title's first part ("版杀区 - 论坛名 - Powered by Discuz!")."""
    for h1 in root.iter("h1"):
        link = h1.find("a")
        if link is not None and f"fid={fid}" in (link.get("href") or ""):
            return _text(link) or None
        parent = h1.getparent()
        if parent is not None and parent.get("id") == "forumheader":
            return _text(h1) or None
    title = root.find(".//title")
    if title is not None and (first := _text(title).split(" - ")[0].strip()):
        return first
    return None


# ------------------------------------------------------------------ mobile API


def _int(value: object) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _str(value: object) -> str | None:
    if value is None:
        return None
    text = html_lib.unescape(str(value)).strip()
    return text or None


def parse_board_api(obj_or_text: object, *, tz: tzinfo, source: str | None = None,
                    page: int | None = None) -> BoardPage:
    """Read a ``module=forumdisplay`` answer (dict, str or bytes)."""
    obj = obj_or_text
    if isinstance(obj, bytes):
        obj = obj.decode("utf-8", errors="replace")
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except ValueError as exc:
            raise page_error("不是有效的 JSON：不是版块的主题列表", source) from exc
    if not isinstance(obj, Mapping):
        raise page_error("手机版接口的回应不是一个对象", source)
    if obj.get("error"):
        text = str(obj["error"])
        raise page_error(f"论坛的手机版接口说：{text}", source, text)
    variables = obj.get("Variables")
    if not isinstance(variables, Mapping):
        raise page_error("手机版接口的 JSON 里没有 Variables", source)
    rows = variables.get("forum_threadlist")
    message = obj.get("Message")
    if not isinstance(rows, list):
        if isinstance(message, Mapping):
            key = str(message.get("messageval") or "")
            said = str(message.get("messagestr") or key)
            raise page_error(f"论坛的手机版接口说：{key}（{said}）", source, said or key)
        raise page_error("手机版接口的 JSON 里没有 forum_threadlist：不是版块的主题列表", source)
    threads: list[BoardThread] = []
    seen: set[int] = set()
    for raw in rows:
        if not isinstance(raw, Mapping) or (tid := _int(raw.get("tid"))) is None:
            raise page_error(f"forum_threadlist 里有一项没有 tid：{raw!r:.100}", source)
        if tid in seen:
            continue
        seen.add(tid)
        replies = _int(raw.get("replies"))
        if replies is None:
            raise page_error(f"主题 {tid} 没有回复数（replies）", source)
        stamp = _int(raw.get("dblastpost"))
        when = None
        if stamp:
            try:
                when = datetime.fromtimestamp(stamp, tz)
            except (OverflowError, OSError, ValueError):
                when = None
        threads.append(BoardThread(
            tid=tid,
            subject=_str(raw.get("subject")) or "",
            author=_str(raw.get("author")),
            author_uid=_int(raw.get("authorid")) or None,
            replies=replies,
            last_post_at=when,
            last_post_precision=TimePrecision.SECOND if when is not None else None,
            last_poster=_str(raw.get("lastposter")),
            sticky=(_int(raw.get("displayorder")) or 0) > 0,
            closed=(_int(raw.get("closed")) or 0) > 0,
        ))
    forum = variables.get("forum")
    forum = forum if isinstance(forum, Mapping) else {}
    tpp = _int(variables.get("tpp"))
    served = _int(variables.get("page")) or page or 1
    count = _int(forum.get("threads"))
    total = math.ceil(count / tpp) if count and tpp else 1
    charset = str(obj.get("Charset") or "utf-8").lower()
    return BoardPage(
        fid=_int(forum.get("fid")),
        page=served,
        total_pages=max(total, served),
        threads=tuple(threads),
        charset="gbk" if charset in ("gbk", "gb2312") else charset,
        viewer_uid=_int(variables.get("member_uid")) or 0,
        formhash=_str(variables.get("formhash")),
        name=_str(forum.get("name")),
        source="api",
        threads_per_page=tpp,
    )


# ------------------------------------------------------------------ bytes in


def read_board(data: bytes, *, content_type: str | None = None, source: str | None = None,
               tz: tzinfo, now: datetime | None = None) -> BoardPage:
    """A fetched or saved board listing (HTML or API JSON, UTF-8 or GBK) → BoardPage.

    Only ``PageParseError`` leaves it. ``now`` resolves relative times ("21 秒前") where a
    row has no absolute title (a theme without it); the captured themes always have one.
    """
    try:
        if (content_type and "json" in content_type.lower()) or _JSON_START.match(data):
            return parse_board_api(data, tz=tz, source=source)
        sniffed = sniff_charset(data, content_type)
        if not sniffed.clean:
            raise page_error(f"无法确定版块页面的编码：它不是完好的 {sniffed.declared}，也不是 UTF-8 或 GBK",
                             source)
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        text = data.decode(codec_for(sniffed.charset), errors="replace")
        return parse_board_html(text, tz=tz, now=now, source=source, charset=sniffed.charset)
    except PageParseError:
        raise
    except Exception as exc:  # noqa: BLE001 — the contract is PageParseError only
        raise page_error(f"读版块页面时程序内部出错: {type(exc).__name__}: {exc}", source) from exc
