"""Private messages (站内信 / 短消息) as the simulated forum's UCenter keeps them.

Both generations hand PMs to UCenter, but to two different UCenters with two storage
models, and the pages and the rules follow from the storage:

* **X3.5** (UCenter 1.6, ``uc_client/model/pm.php``): one conversation row per pair of
  users (``pm_lists``, ``min_max`` = "small_big" uid), one ``pm_indexes`` row per message
  — the **pmid**, site-wide — and one ``pm_members`` row per (conversation, member) with
  ``isnew`` (the conversation is unread for that member), ``pmnum``, ``lastupdate`` (when
  that member last *sent* in it: UCenter's ``pmfloodctrl`` reads it) and ``lastdateline``.
  ``newpm`` holds the uids told "you have new PMs" until an inbox list is opened;
  ``common_member.newpm`` (:attr:`UcenterX3.member_newpm`) is the bit the header
  indicator shows, set only by ``op=checknewpm``.
* **7.2** (UCenter 1.5, ``uc_client/model/pm.php`` of Discuz! 7.2): a single ``uc_pms``
  table. Every message is a ``related=1`` row; besides, each direction of a pair has one
  ``related=0`` **summary row** (created on the first message, then overwritten with each
  later message of that direction — its pmid is reused), plus a reverse summary row made
  with ``new=0`` for the recipient's own list. Message pmids and summary pmids come from
  the same sequence, so message pmids grow site-wide but skip numbers.

What both share (:class:`PmStoreBase`): one id sequence, the message record, and the
rule that a conversation view lists only messages with ``dateline < now`` — a message
sent in the current second is not listed yet (captured: x35/42 says 共有 4 条 and lists
3; d72/30 misses the replies sent that second).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from forumbot.simulator.bbcode import escape

__all__ = ["TEXT_COLUMN_BYTES", "PmMessage", "PmStoreBase", "Ucenter15", "UcenterX3", "uc_compile",
           "uc_cutstr", "uc_removecode", "uc_text_column"]

_TAG = re.compile(r"<[^>]*>")


@dataclass
class PmMessage:
    """One message: who to whom, the text as stored (BBCode), when, and (7.2) whether
    the recipient has read it; ``plid`` is the X3 conversation (0 on 7.2)."""

    pmid: int
    fromuid: int
    touid: int
    text: str
    at: datetime
    plid: int = 0
    new: bool = True


# ---- UCenter's text helpers -----------------------------------------------------------------

def uc_compile(text: str) -> str:
    """``uccode::complie`` for plain text and the few tags a PM carries: escaped, ``[b]``,
    ``[i]``, ``[u]`` as tags, runs of spaces as ``&nbsp;``, line breaks ``<br />``."""
    html = escape(text)
    for tag, out in (("b", "strong"), ("i", "i"), ("u", "u")):
        html = html.replace(f"[{tag}]", f"<{out}>").replace(f"[/{tag}]", f"</{out}>")
    html = html.replace("\t", "&nbsp; &nbsp; &nbsp; &nbsp; ").replace("   ", "&nbsp; &nbsp;")
    html = html.replace("  ", "&nbsp;&nbsp;")
    return html.replace("\r\n", "\n").replace("\n", "<br />\n")


def uc_cutstr(text: str, length: int, charset: str, dot: str = " ...") -> str:
    """UCenter's ``cutstr``: untouched while its bytes fit ``length``; otherwise cut where
    the count (ASCII 1, any other character 2) reaches ``length``, then ``dot``."""
    if len(text.encode(charset, "xmlcharrefreplace")) <= length:
        return text
    count, out = 0, []
    for ch in text:
        step = 1 if (ch in "\t\n" or 32 <= ord(ch) <= 126) else 2
        count += step
        out.append(ch)
        if count >= length:
            break
    if count > length:
        out.pop()
    return "".join(out) + dot


# The message column of both UCenters is a MySQL ``text`` (64 KiB). Discuz and UCenter set
# ``sql_mode=''`` on connecting (db_driver_mysqli.php, uc_client/lib/dbi.class.php), so a
# longer message is stored cut to the column, silently, at a character boundary.
TEXT_COLUMN_BYTES = 65535


def uc_text_column(text: str, charset: str) -> str:
    """``text`` as the ``message`` column keeps it: at most 65535 bytes in the site charset."""
    data = text.encode(charset, "xmlcharrefreplace")
    if len(data) <= TEXT_COLUMN_BYTES:
        return text
    return data[:TEXT_COLUMN_BYTES].decode(charset, "ignore")


def uc_removecode(text: str, length: int, charset: str) -> str:
    """``pmmodel::removecode`` (X3.5): compiled, tags stripped, cut, trimmed — the
    ``subject`` (80) and ``lastsummary`` (150) of a conversation."""
    plain = _TAG.sub("", uc_compile(text))
    return uc_cutstr(plain, length, charset).strip()


# ---- the store ------------------------------------------------------------------------------

class PmStoreBase:
    """The id sequence and the messages, behind the model's lock."""

    def __init__(self, lock: threading.RLock, charset: str = "utf-8") -> None:
        self.lock = lock
        self.charset = charset
        self.messages: dict[int, PmMessage] = {}
        self._next_pmid = 1

    def send(self, fromuid: int, touid: int, text: str, at: datetime) -> int:
        raise NotImplementedError

    def _new_id(self) -> int:
        pmid = self._next_pmid
        self._next_pmid += 1
        return pmid

    def between(self, uid: int, other: int) -> list[PmMessage]:
        """Every message of the pair, oldest first (same second: the lower pmid first)."""
        with self.lock:
            return sorted((m for m in self.messages.values()
                           if {m.fromuid, m.touid} == {uid, other}),
                          key=lambda m: (m.at, m.pmid))

    def message(self, pmid: int) -> PmMessage | None:
        return self.messages.get(pmid)


@dataclass
class PmList:
    """``pm_lists``: one private conversation."""

    plid: int
    authorid: int
    subject: str
    pair: tuple[int, int]  # min_max
    founded: datetime
    last_authorid: int = 0
    last_summary: str = ""


@dataclass
class PmMember:
    """``pm_members``: one member's side of a conversation."""

    isnew: bool
    pmnum: int
    lastupdate: datetime | None  # when this member last sent in it (None: never)
    lastdateline: datetime


class UcenterX3(PmStoreBase):
    """UCenter 1.6 as Discuz! X3.5 ships it."""

    def __init__(self, lock: threading.RLock, charset: str = "utf-8") -> None:
        super().__init__(lock, charset)
        self.lists: dict[int, PmList] = {}
        self.members: dict[tuple[int, int], PmMember] = {}
        self.newpm: set[int] = set()  # uc_newpm
        self.member_newpm: set[int] = set()  # common_member.newpm bit 1
        self._next_plid = 1

    def plid_for(self, uid: int, other: int) -> int | None:
        pair = (min(uid, other), max(uid, other))
        with self.lock:
            return next((p.plid for p in self.lists.values() if p.pair == pair), None)

    def send(self, fromuid: int, touid: int, text: str, at: datetime) -> int:
        """``sendpm`` (or ``replypm`` into the pair's conversation): the new pmid."""
        text = uc_text_column(text, self.charset)
        with self.lock:
            plid = self.plid_for(fromuid, touid)
            summary = uc_removecode(text, 150, self.charset)
            if plid is None:
                plid = self._next_plid
                self._next_plid += 1
                self.lists[plid] = PmList(plid, fromuid, uc_removecode(text, 80, self.charset),
                                          (min(fromuid, touid), max(fromuid, touid)), at)
            pmid = self._new_id()
            self.messages[pmid] = PmMessage(pmid, fromuid, touid, text, at, plid)
            self.lists[plid].last_authorid = fromuid
            self.lists[plid].last_summary = summary
            them = self.members.get((plid, touid))
            if them is None:
                self.members[(plid, touid)] = PmMember(True, 1, None, at)
            else:
                them.isnew, them.pmnum, them.lastdateline = True, them.pmnum + 1, at
            me = self.members.get((plid, fromuid))
            if me is None:
                self.members[(plid, fromuid)] = PmMember(False, 1, at, at)
            else:
                me.isnew, me.pmnum, me.lastupdate, me.lastdateline = False, me.pmnum + 1, at, at
            self.newpm.add(touid)
            return pmid

    def last_sent(self, uid: int) -> datetime | None:
        """``ispminterval``: the newest ``lastupdate`` of the member's conversations."""
        with self.lock:
            times = [m.lastupdate for (_, u), m in self.members.items()
                     if u == uid and m.lastupdate is not None]
            return max(times, default=None)

    def unread_conversations(self, uid: int) -> int:
        """``getpmnum(uid, 1, 1)``: conversations with ``isnew`` for this member."""
        with self.lock:
            return sum(1 for (_, u), m in self.members.items() if u == uid and m.isnew)

    def conversations(self, uid: int, new_only: bool) -> list[tuple[PmList, PmMember]]:
        """``getpmlist``: the member's conversations, newest activity first."""
        with self.lock:
            rows = [(self.lists[plid], m) for (plid, u), m in self.members.items()
                    if u == uid and (m.isnew or not new_only)]
            return sorted(rows, key=lambda r: (r[1].lastdateline, r[0].plid), reverse=True)

    def view(self, uid: int, other: int, now: datetime, page: int | None,
             perpage: int) -> tuple[int, int, list[PmMessage]]:
        """``space_pm.php`` + ``getprivatepmbyplid``: (count, page shown, messages).

        The count is the member's ``pmnum``; the page defaults to the last one; a page
        lists ``perpage`` messages counted from the newest *visible* one (``dateline <
        now``), oldest first; viewing clears the member's ``isnew``."""
        with self.lock:
            plid = self.plid_for(uid, other)
            member = self.members.get((plid, uid)) if plid is not None else None
            if plid is None or member is None:
                return 0, 1, []
            count = member.pmnum
            total = max(1, -(-count // perpage))
            shown = total if not page else max(1, min(page, total))
            uc_page = max(1, min(total - shown + 1, total))
            visible = sorted((m for m in self.messages.values()
                              if m.plid == plid and m.at < now.replace(microsecond=0)),
                             key=lambda m: (m.at, m.pmid), reverse=True)
            start = (uc_page - 1) * perpage
            chunk = list(reversed(visible[start:start + perpage]))
            member.isnew = False
            return count, shown, chunk

    def open_inbox(self, uid: int) -> None:
        """Any inbox list: ``DELETE FROM newpm`` and ``common_member.newpm = 0``."""
        with self.lock:
            self.newpm.discard(uid)
            self.member_newpm.discard(uid)

    def checknewpm(self, uid: int) -> None:
        """``op=checknewpm``: while the member bit is off, ask UCenter and set it."""
        with self.lock:
            if uid in self.member_newpm:
                return
            if uid in self.newpm and self.unread_conversations(uid):
                self.member_newpm.add(uid)


@dataclass
class PmRow:
    """One ``uc_pms`` row (7.2): a message (``related``) or a per-direction summary."""

    pmid: int
    fromuid: int
    touid: int
    text: str
    at: datetime
    new: bool
    related: bool


class Ucenter15(PmStoreBase):
    """UCenter 1.5 as Discuz! 7.2 ships it (``uc_pms`` + ``uc_newpm`` + ``cdb_prompt``)."""

    def __init__(self, lock: threading.RLock, charset: str = "utf-8") -> None:
        super().__init__(lock, charset)
        self.rows: dict[int, PmRow] = {}
        self.newpm: set[int] = set()  # uc_newpm
        self.prompts: dict[int, int] = {}  # cdb_prompt, typeid pm: the header's (N)

    def summary(self, fromuid: int, touid: int) -> PmRow | None:
        with self.lock:
            return next((r for r in self.rows.values() if not r.related
                         and (r.fromuid, r.touid) == (fromuid, touid)), None)

    def send(self, fromuid: int, touid: int, text: str, at: datetime) -> int:
        """``pmmodel::sendpm``: the summary rows of both directions, then the message."""
        text = uc_text_column(text, self.charset)
        with self.lock:
            mine = self.summary(fromuid, touid)
            if mine is None:
                pmid = self._new_id()
                self.rows[pmid] = PmRow(pmid, fromuid, touid, text, at, True, False)
            else:
                mine.text, mine.at, mine.new = text, at, True
            if self.summary(touid, fromuid) is None:
                pmid = self._new_id()
                self.rows[pmid] = PmRow(pmid, touid, fromuid, text, at, False, False)
            pmid = self._new_id()
            self.rows[pmid] = PmRow(pmid, fromuid, touid, text, at, True, True)
            self.messages[pmid] = PmMessage(pmid, fromuid, touid, text, at)
            self.newpm.add(touid)
            return pmid

    def count_from(self, uid: int, seconds: float, now: datetime) -> int:
        """``count_pm_by_fromuid``: every row (summaries included) from ``uid`` newer than
        ``now - seconds``."""
        since = now - timedelta(seconds=seconds)
        with self.lock:
            return sum(1 for r in self.rows.values() if r.fromuid == uid and r.at > since)

    def is_reply(self, uid: int, touid: int) -> bool:
        """``is_reply_pm``: ``touid`` has ever sent ``uid`` a message."""
        with self.lock:
            return any(r.related and (r.fromuid, r.touid) == (touid, uid)
                       for r in self.rows.values())

    def unread(self, uid: int) -> int:
        """``check_newpm``: unread summary rows addressed to ``uid`` (conversations)."""
        with self.lock:
            return sum(1 for r in self.rows.values()
                       if not r.related and r.touid == uid and r.fromuid > 0 and r.new)

    def inbox(self, uid: int, new_only: bool) -> list[PmRow]:
        """``get_pm_list``: the summary rows addressed to ``uid``, newest first; opening
        the inbox clears ``uc_newpm``."""
        with self.lock:
            rows = [r for r in self.rows.values() if not r.related and r.touid == uid
                    and r.fromuid > 0 and (r.new or not new_only)]
            self.newpm.discard(uid)
            return sorted(rows, key=lambda r: (r.at, r.pmid), reverse=True)

    def view(self, uid: int, other: int, start: datetime, now: datetime) -> list[PmRow]:
        """``get_pm_by_touid`` + ``onview``: the pair's messages with ``start <= dateline
        < now`` (the viewer's own first within a second, PHP 8's stable sort); when any
        listed one is unread, every row from ``other`` to ``uid`` becomes read."""
        end = now.replace(microsecond=0)
        with self.lock:
            mine = sorted((r for r in self.rows.values() if r.related and r.fromuid == uid
                           and r.touid == other and start <= r.at < end),
                          key=lambda r: (r.at, r.pmid))
            theirs = sorted((r for r in self.rows.values() if r.related and r.fromuid == other
                             and r.touid == uid and start <= r.at < end),
                            key=lambda r: (r.at, r.pmid))
            listed = sorted(mine + theirs, key=lambda r: r.at)  # stable: mine first
            shown = [PmRow(**vars(r)) for r in listed]
            if any(r.new for r in listed):
                for r in self.rows.values():
                    if (r.fromuid, r.touid) == (other, uid):
                        r.new = False
                for m in self.messages.values():
                    if (m.fromuid, m.touid) == (other, uid):
                        m.new = False
            return shown

