"""Private messages (站内信 / 短消息) through the client: what both generations share.

The per-generation work is a :class:`PmDialect` (``pm_x3.X3Pm``, ``pm_d72.D72Pm``);
:class:`~forumbot.discuz.client.DiscuzClient` drives it (login, second chances, the
write clock) and exposes ``send_pm``, ``read_conversation``, ``find_own_pm``,
``unread_conversations`` and ``has_new_pm``.

What a caller must know (docs/decisions.md, "Private messages"):

* **pmids** grow across the whole site on both generations: "new since id N" is
  ``id > N`` within a conversation. (Inbox rows carry other ids: never compare those.)
* **The current second is invisible**: a conversation view lists only messages with
  ``dateline < now``. A message sent this second — by anyone — is not listed yet. So
  a read that does not show one's own message proves nothing until a read that began at
  least :data:`PM_SETTLE_SECONDS` after the attempt; never conclude "lost" on one read.
* **Flood clocks**: X3.5 checks a PM against the sender's ``lastpost``, which every post
  and PM sets (15 s), and UCenter's ``pmfloodctrl`` against the last PM (15 s, ``<=``);
  7.2 limits a PM only when the recipient has never written to the sender.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from datetime import tzinfo
from typing import Protocol

import httpx

from forumbot.discuz.responses import ForumReply
from parsers.pm import PmConversation, PmPage, PrivateMessage

__all__ = ["PM_SETTLE_SECONDS", "PmContext", "PmDialect", "PmSent"]

# A read must start this long after a send attempt before an absent message counts as
# not stored: one second for ``dateline < now``, one for the two clocks' skew.
PM_SETTLE_SECONDS = 2.0
# X3.5: wait this long after a post or PM before the next PM (floodctrl 15, checked
# with a strict and a non-strict comparison by the two layers) — and, to be safe,
# before a thread reply after a PM.
X3_WRITE_SPACING = 16.0
MAX_EARLIER_PAGES = 20


@dataclass(frozen=True)
class PmSent:
    """A PM the forum stored. ``pmid`` when its answer names it (X3.5 popup, reply and
    mobile API; 7.2 with a uid), None for the full-page forms (to a user name): then
    :meth:`DiscuzClient.find_own_pm` is the only way to learn it. ``via`` says which
    form was used (``api``, ``popup``, ``reply``, ``page``)."""

    pmid: int | None
    to_uid: int | None
    via: str


class PmContext(Protocol):
    """What a PM dialect may ask of the client driving it (the ``DiscuzClient`` meets it):
    the session's requests with the forum's refusals raised, and its clock — so the
    dialects sit below the client that chooses them, not beside it."""

    base_url: str
    tz: tzinfo
    use_api: bool

    def pm_formhash(self, page: str) -> str: ...

    def pm_post(self, path: str, fields: dict[str, str], what: str, *, node: bool = False,
                referer: str | None = None) -> tuple[httpx.Response, ForumReply]: ...

    def pm_page(self, path: str, what: str) -> PmPage: ...

    def pm_read(self, response: httpx.Response, what: str) -> PmPage: ...

    def forum_now(self) -> datetime: ...


class PmDialect(ABC):
    """One generation's PM requests; ``client`` is the client driving them."""

    # X3.5: a PM and a thread reply share the sender's lastpost flood clock.
    shared_write_clock: bool = False

    @abstractmethod
    def send(self, client: PmContext, to_uid: int | None, to_username: str | None,
             text: str) -> PmSent: ...

    @abstractmethod
    def conversation(self, client: PmContext, uid: int, since_id: int | None,
                     seen_at: datetime | None = None) -> list[PrivateMessage]:
        """The messages with ``uid`` (``id > since_id`` when given), oldest first.
        ``seen_at``: when a read listed everything up to ``since_id`` (a hint: 7.2 then
        reads one date window, X3.5 pages by id anyway)."""

    @abstractmethod
    def unread(self, client: PmContext) -> list[PmConversation]:
        """The conversations with unread messages (the inbox's 未读 list)."""


def newer(messages: list[PrivateMessage], since_id: int | None) -> list[PrivateMessage]:
    seen: dict[int, PrivateMessage] = {}
    for m in messages:
        if since_id is None or m.id > since_id:
            seen.setdefault(m.id, m)
    return sorted(seen.values(), key=lambda m: m.id)
