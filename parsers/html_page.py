"""A desktop thread page (``forum.php?mod=viewthread``, X1.5–X3.5, and 7.2) → ThreadPage.

Keys on element ids, which themes keep because core JS looks them up (DISCUZ.md §1.1):
``post_PID`` (one per post), ``pidPID``, ``postnumPID`` (floor), ``authorpostonPID``
(time), ``postmessage_PID`` (message), ``favatarPID`` (sidebar). Classes are used only
where Discuz offers nothing else: ``div.pg``/``div.pages`` (pager), ``div.locked``
(replaced content), ``i.pstatus`` (edit stamp), ``div.quote`` (quotes).

Speed: the page is parsed once by lxml's plain ``etree.HTMLParser`` (no lxml.html
element-class lookup per node) and elements are fetched with XPath ``id('a b c')``:
libxml2's HTML parser registers every ``id`` attribute in a hash table, so one call per
page returns every post's pid table, floor link, time, sidebar and message cell without
walking the tree. Python-level ``find('.//*[@id=…]')`` walks cost 3× the parse itself on the
large thread. See bench/parse.py.
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo

from collections.abc import Callable

from lxml import etree

from parsers.errors import PageParseError, RobotPageError
from parsers.message import notice_for_text, parse_message
from parsers.models import ContentNotice, Post, ThreadPage
from parsers.times import TimeUnreadable, parse_post_time

__all__ = ["by_ids", "page_error", "parse_thread_html", "parse_thread_html_bytes"]

_POST_ID = re.compile(r"^post_(\d+)$")
_PTID = re.compile(r"[?&;]ptid=(\d+)")
_TID = re.compile(r"[?&;]tid=(\d+)")
_PAGE_TID = re.compile(r"(?:mod=viewthread&(?:amp;)?tid=|viewthread\.php\?tid=|thread-)(\d+)")
_UID = re.compile(r"[?&;]uid=(\d+)")
_DISCUZ_UID = re.compile(r"discuz_uid\s*=\s*'?(\d+)'?")
_COOKIEPRE = re.compile(r"cookiepre\s*=\s*'([^']*)'")
_FORMHASH = re.compile(r"formhash=([0-9a-fA-F]{8})")
_FORMHASH_INPUT = re.compile(r'<input[^>]*name="formhash"[^>]*value="([0-9a-zA-Z]+)"')
_TOTAL_PAGES = re.compile(r"共\s*(\d+)\s*页")
_PAGE_PARAM = re.compile(r"[?&;]page=(\d+)")
_DIGITS = re.compile(r"\d+")
_CUSTOM_FLOORS = {"楼主": 1, "沙发": 2, "板凳": 3, "地板": 4}
_HEAD_CHARS = 30000  # the inline JS with discuz_uid/cookiepre sits in <head>


def page_error(message: str, source: str | None, forum_message: str | None = None) -> PageParseError:
    """A PageParseError carrying the forum's own message (``.forum_message``) when it gave one."""
    err = PageParseError(message, source=source)
    err.forum_message = forum_message  # type: ignore[attr-defined]
    return err


_BY_ID = etree.XPath("id($ids)")
_PARSER = etree.HTMLParser()


def _text_of(el: etree._Element | None) -> str:
    if el is None:
        return ""
    return "".join(el.itertext()).replace("\xa0", " ").strip()


def by_ids(root: etree._Element, *ids: str) -> dict[str, etree._Element]:
    """Elements by id (first of each), via libxml2's id table: no tree walk."""
    found: dict[str, etree._Element] = {}
    for el in _BY_ID(root, ids=" ".join(ids)):
        found.setdefault(el.get("id"), el)
    return found


def _is_space_link(href: str) -> bool:
    return "uid=" in href and ("mod=space&" in href or "space.php" in href or "space-uid-" in href)


def _author(*areas: etree._Element | None) -> tuple[str | None, int | None]:
    """The first profile link with a name in the post header, else in the sidebar."""
    for area in areas:
        if area is None:
            continue
        for a in area.iter("a"):
            href = a.get("href") or ""
            if not _is_space_link(href):
                continue
            name = _text_of(a)
            if not name:
                continue  # the avatar link
            m = _UID.search(href)
            return name, int(m.group(1)) if m else None
    return None, None


def _floor(postnum: etree._Element | None) -> int | None:
    """The number the page shows: ``<em>N</em>``, or 楼主/沙发/板凳/地板 = 1–4."""
    if postnum is None:
        return None
    em = postnum.find("em")
    if em is not None:
        digits = _DIGITS.search(_text_of(em))
        if digits:
            return int(digits.group())
        # An empty <em></em> labels the first post on a reverse-order page; its link is
        # the thread itself, not a findpost URL.
        if "findpost" not in (postnum.get("href") or ""):
            return 1
        return None
    label = _text_of(postnum)
    for name, number in _CUSTOM_FLOORS.items():
        if name in label:
            return number
    digits = _DIGITS.search(label)  # "来自 N#" on a stuck reply
    return int(digits.group()) if digits else None


def _header_div(el: etree._Element | None) -> etree._Element | None:
    """The ``div.pi`` header around an element (the nearest enclosing div's parent chain)."""
    while el is not None:
        if el.tag == "div" and "pi" in (el.get("class") or "").split():
            return el
        el = el.getparent()
    return None


def _inner_html(cell: etree._Element) -> str:
    html = etree.tostring(cell, method="html", encoding="unicode", with_tail=False)
    start = html.find(">") + 1
    end = html.rfind("</")
    return html[start:end] if 0 < start <= end else ""


class _Page:
    """The state of one page read: tz, clock and where it came from."""

    def __init__(self, tz: tzinfo, now: datetime | None, source: str | None) -> None:
        self.tz = tz
        self.now = now
        self.source = source
        self.deleted: list[tuple[int, int | None]] = []
        self.without_floor_link: list[int] = []
        self.read = 0  # posts read (deleted floors excluded)

    def read_post(
        self, post_div: etree._Element, pid: int, tid: int, ids: dict[str, etree._Element]
    ) -> Post | None:
        """One post; ``ids`` holds the page's elements by id (see ``post_ids``)."""
        table = ids.get(f"pid{pid}")
        scope = table if table is not None else post_div
        postnum = ids.get(f"postnum{pid}")
        floor = _floor(postnum)
        if table is not None and "plhin" not in (table.get("class") or "").split():
            if notice_for_text(_text_of(table)) is ContentNotice.DELETED:
                self.deleted.append((pid, floor))  # no author, no time: not a Post
                return None
        self.read += 1
        if postnum is None:
            self.without_floor_link.append(pid)
        poston = ids.get(f"authorposton{pid}")
        if poston is None:
            raise page_error(f"pid {pid} 的帖子没有发帖时间（em#authorposton{pid}）", self.source)
        title = None
        span = poston.find(".//span[@title]")
        if span is not None:
            title = span.get("title")
        try:
            posted_at, precision = parse_post_time(title, _text_of(poston), self.tz, self.now)
        except TimeUnreadable as exc:
            raise page_error(f"pid {pid} 的帖子：{exc}", self.source) from exc
        header = _header_div(postnum)
        if header is None:
            header = poston.getparent()
        author, uid = _author(header, ids.get(f"favatar{pid}"))

        cell = ids.get(f"postmessage_{pid}")
        notice = None
        if cell is not None:
            parts = parse_message(cell, tz=self.tz)
            html = _inner_html(cell)
            notice = parts.notice
        else:
            parts = None
            html = ""
        if cell is None:
            # Banned author / blocked post: div.locked replaces the whole message cell.
            # (A [hide] box inside a present cell is read by parse_message.)
            locked = scope.find(".//div[@class='locked']")
            if locked is not None:
                notice = notice_for_text(_text_of(locked))
                parent = locked.getparent()
                html = _inner_html(parent) if parent is not None else ""
        if notice is None and header is not None:
            for span in header.iter("span"):
                if span.text and "待审核" in span.text:
                    notice = ContentNotice.MODERATION_PENDING
                    break
        if cell is None and notice is None:
            raise page_error(f"pid {pid} 的帖子没有正文（td#postmessage_{pid}）", self.source)
        return Post(
            tid=tid,
            pid=pid,
            floor=floor,
            author=author,
            author_uid=uid,
            posted_at=posted_at,
            time_precision=precision,
            html=html,
            text=parts.text if parts else "",
            edited_by=parts.edited_by if parts else None,
            edited_at=parts.edited_at if parts else None,
            quotes=parts.quotes if parts else (),
            fonts=parts.fonts if parts else (),
            links=parts.links if parts else (),
            images=parts.images if parts else (),
            attachments=parts.attachments if parts else (),
            notice=notice,
            source="html",
        )


def _post_divs(root: etree._Element) -> list[tuple[int, etree._Element]]:
    """``(pid, div#post_PID)`` in page order; ``#postlist`` children first, else anywhere."""
    found: list[tuple[int, etree._Element]] = []
    postlist = by_ids(root, "postlist").get("postlist")
    if postlist is not None:
        for child in postlist:
            ident = child.get("id")
            if ident and (m := _POST_ID.match(ident)):
                found.append((int(m.group(1)), child))
    if not found:
        for el in root.xpath("//*[starts-with(@id, 'post_')]"):
            if m := _POST_ID.match(el.get("id") or ""):
                found.append((int(m.group(1)), el))
    return found


def _pager(root: etree._Element) -> tuple[int, int]:
    """(page served, total pages). No pager means a single page."""
    top = by_ids(root, "pgt").get("pgt")  # X3: div#pgt holds the top div.pg
    pager = top.find(".//div[@class='pg']") if top is not None else None
    if pager is None:
        pager = root.find(".//div[@class='pg']")
    if pager is None:
        pager = root.find(".//div[@class='pages']")  # Discuz 7.2
    if pager is None:
        return 1, 1
    current = pager.find(".//strong")
    page = None
    if current is not None and (m := _DIGITS.search(_text_of(current))):
        page = int(m.group())
    total = None
    for span in pager.iter("span"):
        if (m := _TOTAL_PAGES.search(span.get("title") or "")):
            total = int(m.group(1))
            break
    if total is None:
        numbers = [page or 1]
        for a in pager.iter("a"):
            if m := _PAGE_PARAM.search(a.get("href") or ""):
                numbers.append(int(m.group(1)))
            if m := _DIGITS.search(_text_of(a)):
                numbers.append(int(m.group()))
        total = max(numbers)
    page = page or 1
    return page, max(total, page)


def _closed(root: etree._Element, subject: etree._Element | None) -> bool:
    # What marks a closed thread (compared viewthread-tid2-page1-closed.html and
    # -page3-closed-loggedin.html with the open captures): the lock icon
    # <i class="fico-lock" title="关闭"> (X3.4 and earlier: <img ... title="关闭">) in the
    # subject cell, on EVERY page and for every viewer. "本主题由 X 于 T 关闭" (div.modact)
    # is only on page 1 and the "本主题已关闭" reply-area text only for logged-in viewers,
    # so neither is keyed on.
    scope = subject.getparent() if subject is not None else None
    while scope is not None and scope.tag not in ("td", "div", "body"):
        scope = scope.getparent()
    if scope is None:
        return False
    return scope.find(".//*[@title='关闭']") is not None


def _scoped_ids(scope: etree._Element, wanted: tuple[str, ...]) -> dict[str, etree._Element]:
    found: dict[str, etree._Element] = {}
    for ident in wanted:
        el = scope.find(f".//*[@id='{ident}']")
        if el is not None:
            found[ident] = el
    return found


def post_ids(pid: int) -> tuple[str, ...]:
    """The ids a post's parts carry (DISCUZ.md §1.1)."""
    return (f"pid{pid}", f"postnum{pid}", f"authorposton{pid}", f"favatar{pid}",
            f"postmessage_{pid}")


def _thread_id(
    ids: dict[str, etree._Element], posts: list[tuple[int, etree._Element]],
    text: Callable[[], str],
) -> int | None:
    for pid, _ in posts:
        postnum = ids.get(f"postnum{pid}")
        href = postnum.get("href") if postnum is not None else None
        if href and (m := _PTID.search(href) or _TID.search(href)):
            return int(m.group(1))
    m = _PAGE_TID.search(text())
    return int(m.group(1)) if m else None


def _forum_message(root: etree._Element) -> str | None:
    box = by_ids(root, "messagetext").get("messagetext")
    if box is None:
        for cls in ("alert_error", "alert_info", "alert_right"):
            box = root.find(f".//div[@class='{cls}']")
            if box is not None:
                break
    if box is None:
        return None
    para = box.find("p")
    if para is not None and _text_of(para):
        return _text_of(para)
    for script in box.iter("script"):
        script.text = ""
    return _text_of(box) or None


def _check_floor_links(reader: _Page, source: str | None) -> None:
    """Every post of a thread page has its floor link ``a#postnumPID``; Discuz leaves it out
    only for search robots (``!IS_ROBOT`` around it in viewthread_node.htm). A post without
    one would be counted with floor None: refuse the page instead."""
    missing = reader.without_floor_link
    if not missing:
        return
    if len(missing) >= reader.read:
        raise RobotPageError(
            f"这是给搜索引擎看的页面：{reader.read} 个帖子都没有楼层链接（a#postnumPID），"
            "Discuz 只对搜索引擎这样做：论坛把 User-Agent 当成了搜索引擎",
            source=source,
        )
    raise page_error(f"pid {missing[0]} 的帖子没有楼层链接（a#postnum{missing[0]}）", source)


def parse_thread_html(
    text: str,
    *,
    tz: tzinfo,
    now: datetime | None = None,
    source: str | None = None,
    charset: str = "utf-8",
) -> ThreadPage:
    """Read one desktop thread page. Raises PageParseError (naming ``source``) otherwise."""
    if text.lstrip().startswith("<?xml"):
        text = text[text.find("?>") + 2:]  # lxml refuses str with an encoding declaration
    if not text.strip():
        raise page_error("空页面", source)
    try:
        root = etree.fromstring(text, _PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        raise page_error("不是 HTML 页面", source) from exc
    if root is None:
        raise page_error("不是 HTML 页面：没有可读的内容", source)
    return read_tree(root, text[:_HEAD_CHARS], lambda: text, tz=tz, now=now, source=source,
                     charset=charset)


_BYTES_PARSERS: dict[str, etree.HTMLParser] = {}


def _bytes_parser(codec: str) -> etree.HTMLParser:
    parser = _BYTES_PARSERS.get(codec)
    if parser is None:
        parser = _BYTES_PARSERS[codec] = etree.HTMLParser(encoding=codec)
    return parser


def parse_thread_html_bytes(
    data: bytes,
    *,
    codec: str,
    tz: tzinfo,
    now: datetime | None = None,
    source: str | None = None,
    charset: str = "utf-8",
) -> ThreadPage:
    """Like parse_thread_html, but lets libxml2 decode ``data`` (which must decode
    cleanly with ``codec``): saves the str round trip on the hot path."""
    parser = _bytes_parser(codec)
    try:
        root = etree.fromstring(data, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        raise page_error("不是 HTML 页面", source) from exc
    if root is None:
        raise page_error("不是 HTML 页面：没有可读的内容", source)
    head = data[:_HEAD_CHARS].decode(codec, errors="ignore")
    return read_tree(root, head, lambda: data.decode(codec, errors="replace"), tz=tz,
                     now=now, source=source, charset=charset)


def read_tree(
    root: etree._Element,
    head: str,
    text: Callable[[], str],
    *,
    tz: tzinfo,
    now: datetime | None,
    source: str | None,
    charset: str,
) -> ThreadPage:
    """Read an already-parsed page. ``head`` is the start of the source (inline JS with
    discuz_uid/cookiepre); ``text()`` gives all of it, for rarely needed fallbacks."""
    divs = _post_divs(root)
    if not divs:
        message = _forum_message(root)
        if message:
            raise page_error(f"不是帖子页面，论坛说：{message}", source, message)
        if root.find(".//div[@class='message']") is not None and root.xpath(
            "//div[starts-with(@id, 'pid')]"
        ):
            raise page_error(
                "触屏版页面（mobile=2）：没有电脑版的帖子编号，也没有完整的时间；"
                "请改用电脑版页面或手机版接口",
                source,
            )
        raise page_error("找不到任何帖子（没有 div#post_PID）：不是 Discuz 的帖子页面", source)
    # One id() lookup for every post part on the page (one XPath call, hash lookups).
    ids = by_ids(root, "thread_subject", *(i for pid, _ in divs for i in post_ids(pid)))
    tid = _thread_id(ids, divs, text)
    if tid is None:
        raise page_error("页面上找不到帖子的 tid", source)
    reader = _Page(tz, now, source)
    posts: dict[int, Post] = {}
    seen_pids: set[int] = set()
    for pid, div in divs:
        post_parts = ids
        if pid in seen_pids:
            # A stuck/hot reply repeats a post, so its ids appear twice; id() returns the
            # first copy only. Look this copy's parts up inside its own div instead.
            post_parts = _scoped_ids(div, post_ids(pid))
        seen_pids.add(pid)
        post = reader.read_post(div, pid, tid, post_parts)
        if post is None:
            continue
        seen = posts.get(pid)
        # Stuck/hot replies repeat a post on page 1: keep one, preferring a real floor.
        if seen is None or (seen.floor is None and post.floor is not None):
            posts[pid] = post
    _check_floor_links(reader, source)
    page, total = _pager(root)
    subject_el = ids.get("thread_subject")
    formhash = None
    if m := _FORMHASH_INPUT.search(head):
        formhash = m.group(1)
    else:
        formhash_input = root.find(".//input[@name='formhash']")
        formhash = formhash_input.get("value") if formhash_input is not None else None
    if not formhash and (m := _FORMHASH.search(head) or _FORMHASH.search(text())):
        formhash = m.group(1)
    uid_match = _DISCUZ_UID.search(head) or _DISCUZ_UID.search(text())
    cookie_match = _COOKIEPRE.search(head)
    extras: dict[str, object] = {}
    if reader.deleted:
        extras["deleted_floors"] = tuple(reader.deleted)
    return ThreadPage(
        tid=tid,
        page=page,
        total_pages=total,
        posts=tuple(posts.values()),
        formhash=formhash or None,
        charset=charset,
        viewer_uid=int(uid_match.group(1)) if uid_match else 0,
        subject=_text_of(subject_el) or None,
        closed=_closed(root, subject_el),
        source="html",
        cookiepre=cookie_match.group(1) if cookie_match else None,
        extras=extras,
    )
