"""The reminders by PM (``[calendar].remind_by_pm``, SPEC §11): when the bot's reminder
goes out in the voting thread, each living player without a valid vote yet gets a short
PM too — the yellow card for not voting is what it saves. Queued in the PM box (sent
exactly once, like the director's PMs), once per reminder post; a player whose forum uid
the bot has not seen (no post of theirs yet) is skipped and logged.
"""

from __future__ import annotations

import logging
import unicodedata
from datetime import datetime
from typing import TYPE_CHECKING

from engine.calendar import when_zh
from forumbot.game.state import count_day
from forumbot.store.outbox import DraftKind, DraftState

if TYPE_CHECKING:
    from forumbot.game.runtime import Runtime
    from forumbot.notify.pmbox import PmBox

log = logging.getLogger("forumbot.notify")

PURPOSE = "player_reminder"


def queue_player_reminders(rt: Runtime, pmbox: PmBox, now: datetime) -> int:
    """Queue in ``pmbox`` the PMs of every reminder post published and not yet followed by
    them; the number queued."""
    if not rt.config.duties.remind_by_pm or rt.config.calendar is None:
        return 0
    queued = 0
    for draft in rt.outbox.drafts(DraftState.PUBLISHED):
        if draft.kind is not DraftKind.REMINDER or draft.day is None:
            continue
        key = f"reminder_pm:{draft.id}"
        if rt.store.get_meta(key):
            continue
        window = rt.config.day(draft.day)
        with rt.store.write():
            if now < window.deadline:
                for name in count_day(rt.config, rt.store, draft.day).data.get("non_voters", []):
                    uid = _uid_of(rt, name)
                    if uid is None:
                        log.info("第%d日提醒：%s 的论坛 uid 还不知道（没见过 TA 的帖子），不发站内信", draft.day, name)
                        continue
                    pmbox.queue(uid, _text(rt, window, name), purpose=PURPOSE, now=now,
                                         detail={"day": draft.day, "player": name, "reminder": draft.id})
                    queued += 1
            rt.store.set_meta(key, now.isoformat())
    return queued


def _text(rt, window, name: str) -> str:
    from forumbot.game.dayposts import _thread_link

    link = _thread_link(rt, window.vote_thread)
    return (f"{name}：第{window.number}日的投票 {when_zh(window.deadline)} 截止，你还没有有效的投票。"
            f"请到投票帖投票{('：' + link) if link else ''}\n"
            "格式（各占一行）：投票对象：玩家名 / 投票理由：……（没有投票会被判黄牌）")


def _uid_of(rt, name: str) -> int | None:
    """The forum uid of a player's account, from their posts the bot has read."""
    wanted = unicodedata.normalize("NFKC", name).casefold()
    for row in rt.store.db.query("SELECT DISTINCT author, author_uid FROM posts WHERE author_uid IS NOT NULL"):
        if unicodedata.normalize("NFKC", row["author"] or "").casefold() == wanted:
            return int(row["author_uid"])
    return None
