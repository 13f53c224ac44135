"""Domain records produced by the parsers.

These are the only shapes the rest of forumbot sees of a forum page: the engine rules on
``Post`` and ``VoteDeclaration``; the agent stores them. They carry no game knowledge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class ContentNotice(StrEnum):
    """Why a post's own content is not on the page (Discuz replaced or withheld it)."""

    BANNED_AUTHOR = "banned_author"  # 作者被禁止或删除 内容自动屏蔽
    POST_BLOCKED = "post_blocked"  # 该帖被管理员或版主屏蔽
    MODERATION_PENDING = "moderation_pending"  # 待审核
    DELETED = "deleted"  # 无效楼层，该帖已经被删除
    AUTHOR_ONLY = "author_only"  # 此帖仅作者可见
    PASSWORD = "password"  # 本帖为密码帖
    HIDDEN = "hidden"  # [hide] content not revealed to this viewer


class TimePrecision(StrEnum):
    SECOND = "second"  # span title, absolute date with seconds, API dbdateline
    MINUTE = "minute"  # "发表于 2026-11-30 00:24" (dateconvert off, Discuz 7.2)


@dataclass(frozen=True, slots=True)
class Quote:
    """One ``div.quote > blockquote`` in a post (a Discuz quote links the quoted *pid*)."""

    pid: int | None  # from the findpost link; None for hand-typed quotes
    tid: int | None
    author: str | None  # from "X 发表于 T" / "原帖由 X 于 T 发表"
    quoted_at: datetime | None  # minute precision at best
    text: str  # the quoted excerpt as plain text (header line removed)


@dataclass(frozen=True, slots=True)
class Font:
    """A ``<font>`` (or styled span) used in the post's own text."""

    color: str | None = None
    size: str | None = None  # as written: "6", "5", "24px", …


@dataclass(frozen=True, slots=True)
class Post:
    """One post as read from a thread page or the mobile API.

    ``pid`` is the identity; ``floor`` is the number the page shows (it shifts when an
    earlier post is deleted). ``text`` is the post's *own* text: quoted blocks and the
    edit stamp removed, line breaks kept as ``\\n``.
    """

    tid: int
    pid: int
    floor: int | None
    author: str | None  # None for anonymous / guest posts
    author_uid: int | None
    posted_at: datetime  # timezone-aware (forum's zone)
    time_precision: TimePrecision
    html: str  # inner HTML of the message cell, as served
    text: str
    edited_by: str | None = None
    edited_at: datetime | None = None
    quotes: tuple[Quote, ...] = ()
    fonts: tuple[Font, ...] = ()
    links: tuple[str, ...] = ()
    images: tuple[str, ...] = ()
    attachments: tuple[str, ...] = ()
    notice: ContentNotice | None = None
    source: str = "html"  # "html" or "api"

    @property
    def quoted_pids(self) -> tuple[int, ...]:
        return tuple(q.pid for q in self.quotes if q.pid is not None)


@dataclass(frozen=True, slots=True)
class ThreadPage:
    """One page of a thread (HTML or mobile API)."""

    tid: int
    page: int  # the page actually served (Discuz clamps past-the-end requests)
    total_pages: int
    posts: tuple[Post, ...]
    formhash: str | None
    charset: str
    viewer_uid: int  # 0 for a guest
    subject: str | None
    closed: bool
    source: str = "html"
    posts_per_page: int | None = None  # known from the API; None for HTML
    cookiepre: str | None = None
    extras: dict[str, object] = field(default_factory=dict, compare=False)


class VoteKind(StrEnum):
    VOTE = "vote"  # 投票对象
    CHANGE = "change"  # 改票对象


class DeclarationProblem(StrEnum):
    """Format problems the text parser can see (the engine voids such declarations)."""

    NO_TARGET = "no_target"  # a target line with nothing usable after it
    TWO_TARGETS = "two_targets"  # two target lines naming different targets
    NO_REASON = "no_reason"  # no 投票理由/改票理由 line (the engine decides if that matters)
    MIXED_KINDS = "mixed_kinds"  # both 投票对象 and 改票对象 lines naming different targets
    BAD_FORMAT = "bad_format"  # looks like a vote ("投票: 饺子") but lacks the 对象 line format


ABSTAIN = "弃权"


@dataclass(frozen=True, slots=True)
class VoteDeclaration:
    """What a post's own text declares. No player matching here: that is the engine's job.

    ``target`` is the written target, cleaned of markup, zero-width characters and
    surrounding punctuation, NFKC-normalised; ``弃权`` for an abstention.
    """

    kind: VoteKind
    target: str | None
    reason: str | None
    problem: DeclarationProblem | None = None
    targets_seen: tuple[str, ...] = ()  # every distinct target written (for two_targets)
    line: str = ""  # the target line as found, for explanations

    @property
    def abstain(self) -> bool:
        return self.target == ABSTAIN
