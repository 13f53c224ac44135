"""Records read from private-message pages (站内信 / 短消息), whatever the generation.

A conversation page (or the X3.5 mobile API's ``mypm&subop=view``) gives
:class:`PrivateMessage` records; an inbox list gives :class:`PmConversation` records
(one per other user). :class:`PmPage` carries either, plus what the page says about the
viewer and the unread indicator.

Ids: ``PrivateMessage.id`` is the forum's **pmid**, which grows across the whole site on
both generations, so "new since id N" is ``id > N`` within a conversation.
``PmConversation.id`` is *not* a message id: X3.5's list shows the conversation's plid,
7.2's the pmid of a per-direction summary row that is reused for every later message.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from parsers.models import TimePrecision

__all__ = ["PmConversation", "PmPage", "PmPageKind", "PrivateMessage"]


class PmPageKind(StrEnum):
    CONVERSATION = "conversation"  # the messages exchanged with one user
    INBOX = "inbox"  # one row per conversation
    SENT = "sent"  # 7.2's answer to a reply: the one new message node


@dataclass(frozen=True, slots=True)
class PrivateMessage:
    """One message. ``own``: sent by the viewer. ``unread``: the recipient has not read it
    yet (7.2 marks that with NEW — for one's own messages it means the *other* side has
    not read it); None where the page does not say (X3.5's conversation view and API).
    ``time`` is the forum's time (Beijing); minute precision unless the page gave more
    (a relative "N 秒前" resolved against ``now``)."""

    id: int
    author: str | None
    uid: int | None
    time: datetime
    time_precision: TimePrecision
    text: str
    own: bool
    unread: bool | None = None


@dataclass(frozen=True, slots=True)
class PmConversation:
    """One inbox row. ``uid``/``name``: the other user. ``last_text``: the newest message
    the row shows (X3.5: of either side, ``last_own`` says whose; 7.2: the other side's
    newest). ``count``: X3.5's 共 N 条 (None on 7.2). ``time`` is None where the page's
    wording (今天 09:41) could not be placed without ``now``."""

    id: int
    uid: int
    name: str | None
    last_text: str
    last_own: bool
    time: datetime | None
    unread: bool
    count: int | None = None


@dataclass(frozen=True, slots=True)
class PmPage:
    """One PM page. ``generation``: ``"x3"`` or ``"7.2"``; ``source``: ``"html"``,
    ``"api"`` or ``"ajax"``. ``with_uid``/``with_name``: the conversation partner.
    ``total``: the count the page states (X3.5 共有 N 条 counts messages of the current
    second too, which are not listed yet; 7.2 共有短消息 N counts what is listed).
    ``earlier_page``: X3.5 shows the newest page of a conversation; the page number of
    the one before it, if any. ``new_pm``: the header's unread indicator (X3.5 消息
    ``class="new"``; 7.2 私人消息 (N) shown), None where the page has no header."""

    kind: PmPageKind
    generation: str
    source: str
    viewer_uid: int
    messages: tuple[PrivateMessage, ...] = ()
    conversations: tuple[PmConversation, ...] = ()
    with_uid: int | None = None
    with_name: str | None = None
    total: int | None = None
    earlier_page: int | None = None
    new_pm: bool | None = None
    formhash: str | None = None
