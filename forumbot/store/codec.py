"""Post ⇄ JSON, datetimes ⇄ ISO text, and canonical JSON for hashing.

Every datetime the store keeps is timezone-aware and written as ISO 8601 with its offset,
so a file read on another machine (or in another zone) means the same instant.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from parsers.models import ContentNotice, Font, Post, Quote, TimePrecision


class NaiveDatetimeError(ValueError):
    """A datetime without a timezone was handed to the store."""


def iso(value: datetime, *, what: str = "time") -> str:
    if value.tzinfo is None or value.utcoffset() is None:
        raise NaiveDatetimeError(f"{what} must be timezone-aware, got {value!r}")
    return value.isoformat()


def iso_or_none(value: datetime | None, *, what: str = "time") -> str | None:
    return None if value is None else iso(value, what=what)


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def parse_time_or_none(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def canonical_json(data: Any) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 kept (Chinese stays readable)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def post_to_dict(post: Post) -> dict[str, Any]:
    return {
        "tid": post.tid,
        "pid": post.pid,
        "floor": post.floor,
        "author": post.author,
        "author_uid": post.author_uid,
        "posted_at": iso(post.posted_at, what=f"posted_at of pid {post.pid}"),
        "time_precision": post.time_precision.value,
        "html": post.html,
        "text": post.text,
        "edited_by": post.edited_by,
        "edited_at": iso_or_none(post.edited_at, what=f"edited_at of pid {post.pid}"),
        "quotes": [
            {
                "pid": q.pid,
                "tid": q.tid,
                "author": q.author,
                "quoted_at": iso_or_none(q.quoted_at, what="quoted_at"),
                "text": q.text,
            }
            for q in post.quotes
        ],
        "fonts": [{"color": f.color, "size": f.size} for f in post.fonts],
        "links": list(post.links),
        "images": list(post.images),
        "attachments": list(post.attachments),
        "notice": post.notice.value if post.notice else None,
        "source": post.source,
    }


def post_from_dict(data: dict[str, Any]) -> Post:
    return Post(
        tid=data["tid"],
        pid=data["pid"],
        floor=data["floor"],
        author=data["author"],
        author_uid=data["author_uid"],
        posted_at=parse_time(data["posted_at"]),
        time_precision=TimePrecision(data["time_precision"]),
        html=data["html"],
        text=data["text"],
        edited_by=data["edited_by"],
        edited_at=parse_time_or_none(data["edited_at"]),
        quotes=tuple(
            Quote(
                pid=q["pid"],
                tid=q["tid"],
                author=q["author"],
                quoted_at=parse_time_or_none(q["quoted_at"]),
                text=q["text"],
            )
            for q in data["quotes"]
        ),
        fonts=tuple(Font(color=f["color"], size=f["size"]) for f in data["fonts"]),
        links=tuple(data["links"]),
        images=tuple(data["images"]),
        attachments=tuple(data["attachments"]),
        notice=ContentNotice(data["notice"]) if data["notice"] else None,
        source=data.get("source", "html"),
    )


# What makes two sightings of a post "different versions". Left out on purpose: the
# floor (it shifts when an earlier post is deleted), the HTML (it carries per-view noise
# such as lazy-load attributes; the text, fonts, links and images cover what matters) and
# the source (HTML page vs mobile API read the same post).
_CONTENT_FIELDS = (
    "author",
    "text",
    "edited_by",
    "edited_at",
    "quotes",
    "fonts",
    "links",
    "images",
    "attachments",
    "notice",
)


def content_hash(post_dict: dict[str, Any]) -> str:
    return sha256_hex(canonical_json({k: post_dict[k] for k in _CONTENT_FIELDS}))
