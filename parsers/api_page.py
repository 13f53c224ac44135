"""The mobile API's viewthread JSON (``api/mobile/index.php?version=4&module=viewthread``).

Envelope (DISCUZ.md §3): ``{"Version", "Charset", "Variables": {…}, "Message"?}``; every
scalar is a string. Posts are ``Variables.postlist[]``; times are ``dbdateline`` (unix
seconds, so SECOND precision). Errors come as ``{"error": TEXT}`` (site closed, plugin
off) or ``Message.messageval`` with an empty postlist (``thread_nonexistence``).

Floor: the API gives both ``number`` (the floor the page shows: a count that skips
deleted posts) and ``position`` (the DB position, which keeps the gap). The issue text
says "position as the floor", but ``Post.floor`` is documented as the number the page
shows, and the HTML pages show ``number`` (tid 2: pid 19 is floor 17, position 18), so
``floor = number`` and ``position`` is only the fallback when ``number`` is absent.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime, tzinfo

from parsers.html_page import page_error
from parsers.message import notice_for_text, parse_message_html
from parsers.models import ContentNotice, Post, ThreadPage, TimePrecision

__all__ = ["parse_thread_api"]

# Message keys that come with a good viewthread answer (none today; kept explicit).
_OK_MESSAGES: frozenset[str] = frozenset()


def _int(value: object) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _str(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _load(obj_or_text: object, source: str | None) -> Mapping[str, object]:
    if isinstance(obj_or_text, Mapping):
        return obj_or_text
    if isinstance(obj_or_text, bytes):
        obj_or_text = obj_or_text.decode("utf-8", errors="replace")
    if not isinstance(obj_or_text, str):
        raise page_error(f"不是手机版接口的 JSON（而是 {type(obj_or_text).__name__}）", source)
    try:
        obj = json.loads(obj_or_text)
    except ValueError as exc:
        raise page_error(f"不是有效的 JSON（第 {getattr(exc, 'lineno', '?')} 行第 {getattr(exc, 'colno', '?')} 列）", source) from exc
    if not isinstance(obj, Mapping):
        raise page_error("手机版接口的 JSON 不是一个对象", source)
    return obj


def _api_error(obj: Mapping[str, object], source: str | None) -> None:
    error = obj.get("error")
    if error:
        text = str(error)
        raise page_error(f"论坛的手机版接口说：{text}", source, text)
    message = obj.get("Message")
    variables = obj.get("Variables")
    postlist = variables.get("postlist") if isinstance(variables, Mapping) else None
    if isinstance(message, Mapping) and not postlist:
        key = str(message.get("messageval") or "")
        if key not in _OK_MESSAGES:
            text = str(message.get("messagestr") or key)
            raise page_error(f"论坛的手机版接口说：{key}（{text}）", source, key)


def _post(raw: Mapping[str, object], tid: int, tz: tzinfo, source: str | None) -> Post:
    pid = _int(raw.get("pid"))
    if pid is None:
        raise page_error(f"手机版接口里有一个帖子没有 pid：{dict(raw)!r:.200}", source)
    stamp = _int(raw.get("dbdateline"))
    if stamp is None:
        raise page_error(f"手机版接口里 pid {pid} 的帖子没有发帖时间（dbdateline）", source)
    try:
        posted_at = datetime.fromtimestamp(stamp, tz)
    except (OverflowError, OSError, ValueError) as exc:
        raise page_error(f"手机版接口里 pid {pid} 的发帖时间（dbdateline）无效：{stamp}", source) from exc
    html = str(raw.get("message") or "")
    parts = parse_message_html(html, tz=tz)
    notice = parts.notice
    if notice is None and html.startswith("提示:"):
        notice = notice_for_text(html)  # banned/blocked/password texts replace the message
    text = parts.text
    if notice in (ContentNotice.BANNED_AUTHOR, ContentNotice.POST_BLOCKED,
                  ContentNotice.PASSWORD, ContentNotice.AUTHOR_ONLY):
        text = ""
    anonymous = str(raw.get("anonymous") or "0") == "1"
    uid = _int(raw.get("authorid"))
    return Post(
        tid=_int(raw.get("tid")) or tid,
        pid=pid,
        floor=_int(raw.get("number")) or _int(raw.get("position")),
        author=None if anonymous else _str(raw.get("author")),
        author_uid=None if anonymous or not uid else uid,
        posted_at=posted_at,
        time_precision=TimePrecision.SECOND,
        html=html,
        text=text,
        edited_by=parts.edited_by,
        edited_at=parts.edited_at,
        quotes=parts.quotes,
        fonts=parts.fonts,
        links=parts.links,
        images=parts.images,
        attachments=parts.attachments,
        notice=notice,
        source="api",
    )


def parse_thread_api(
    obj_or_text: object, *, tz: tzinfo, source: str | None = None, page: int | None = None
) -> ThreadPage:
    """Read a viewthread API answer (dict, str or bytes). PageParseError otherwise.

    The API does not echo the page number; pass ``page`` when known, else it is worked
    out from the floors (``number``) and ``ppp``.
    """
    obj = _load(obj_or_text, source)
    _api_error(obj, source)
    variables = obj.get("Variables")
    if not isinstance(variables, Mapping):
        raise page_error("手机版接口的 JSON 里没有 Variables", source)
    postlist = variables.get("postlist")
    if not isinstance(postlist, list) or not postlist:
        raise page_error("手机版接口的 JSON 里没有 postlist：不是读帖子的回应", source)
    thread = variables.get("thread")
    thread = thread if isinstance(thread, Mapping) else {}
    tid = _int(thread.get("tid"))
    if tid is None:
        first = postlist[0]
        tid = _int(first.get("tid")) if isinstance(first, Mapping) else None
    if tid is None:
        raise page_error("手机版接口的 JSON 里没有帖子的 tid", source)
    posts: dict[int, Post] = {}
    for raw in postlist:
        if not isinstance(raw, Mapping):
            raise page_error(f"手机版接口的 postlist 里有一项不是对象：{raw!r:.100}", source)
        post = _post(raw, tid, tz, source)
        posts.setdefault(post.pid, post)
    ppp = _int(variables.get("ppp"))
    replies = _int(thread.get("replies"))
    total = math.ceil((replies + 1) / ppp) if ppp and replies is not None else None
    if page is None:
        floors = [p.floor for p in posts.values() if p.floor and p.floor > 1]
        page = (max(floors) - 1) // ppp + 1 if floors and ppp else 1
    total = max(total or 1, page)
    charset = str(obj.get("Charset") or "utf-8").lower()
    uid = _int(variables.get("member_uid"))
    return ThreadPage(
        tid=tid,
        page=page,
        total_pages=total,
        posts=tuple(posts.values()),
        formhash=_str(variables.get("formhash")),
        charset="gbk" if charset in ("gbk", "gb2312") else charset,
        viewer_uid=uid or 0,
        subject=_str(thread.get("subject")),
        closed=str(thread.get("closed") or "0") == "1",
        source="api",
        posts_per_page=ppp,
        cookiepre=_str(variables.get("cookiepre")),
        # The DB position of each pid (differs from the floor after a deletion).
        extras={"positions": {_int(r.get("pid")): _int(r.get("position")) for r in postlist}},
    )
