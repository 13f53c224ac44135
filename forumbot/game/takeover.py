"""What the bot does when the forum holds this game's posts from another state: take them
over as this state's history (``adopt``, and ``take_over`` of what such a state posts
later), or keep the alarm because this config is a copy (``mark_copy``); and, before a
final count or an announcement is drafted, whether one of this game is on the forum
already (``posted_elsewhere``). The survey of whose posts are whose is
``forumbot.game.provenance``; this module writes what the director decided about them."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from forumbot.game.provenance import KIND_SHORT, UNDECIDED, Found, Origin, Survey, settle_alarms, survey
from forumbot.store.identity import STATE_CONFLICT

if TYPE_CHECKING:  # pragma: no cover
    from forumbot.game.runtime import Runtime

log = logging.getLogger("forumbot.identity")


def take_over(rt: Runtime, found: list[Found], now: datetime, *, actor: str,
              warnings: list[str] | None = None) -> list[int]:
    """Record adopted posts as published drafts of this state, oldest first: a final
    count or announcement under its day's next numbered key, a 计票 answer under the key
    of the request it quotes, the rest without a key. Posts whose kind is unknown (a
    legacy post with no title the bot knows) are left as they are. Returns the new draft
    ids."""
    from forumbot.game.announce import numbered_drafts, numbered_key

    outbox = rt.outbox
    made: list[int] = []
    warnings = warnings if warnings is not None else []
    known = {r["marker"] for r in rt.store.db.query("SELECT marker FROM outbox")}
    for f in sorted(found, key=lambda f: f.pid):
        if f.kind is None or f.marker.text in known:
            continue
        key = None
        if f.kind in ("final_count", "announcement") and f.day is not None:
            key = numbered_key(f.kind, f.day, len(numbered_drafts(outbox, f.kind, f.day)) + 1)
        elif f.kind == "count_reply" and f.quoted is not None:
            key = f"count_reply:{f.quoted}"
            if outbox.by_dedupe_key(key) is not None:
                key = None  # answered here too: kept, without the key
        draft = outbox.record_found(f.kind, f.tid, f.pid, marker=f.marker.text, body=f.text, day=f.day,
                                    dedupe_key=key, posted_at=f.posted_at, now=now, actor=actor)
        known.add(f.marker.text)
        made.append(draft.id)
        if f.kind == "final_count" and f.day is not None:
            warning = _final_taken_over(rt, draft.id, f, now)
            if warning is not None:
                warnings.append(warning)
    return made


def _final_taken_over(rt: Runtime, draft_id: int, found: Found, now: datetime) -> str | None:
    """What a final count taken over decides: the day's result as this state tallies it
    (its posts read again), which becomes game state like any approved count's. The
    forum's post says its own result (「结果：…」); when it says another — the lost
    database held events this one lacks (a void, an alias) — a warning for the director
    (returned, and audited)."""
    from forumbot.game.views import tally_digest  # what a count shows, hashed
    from forumbot.game.views import result_line

    day = found.day
    assert day is not None
    snap = rt.store.tally(day)
    if snap is None:
        return None  # not tallied here yet: the day's last tally is taken when it is (announce.final_result)
    result = snap.data.get("result") or {}
    ours = result_line(result, day)
    shown = re.search(r"结果：\s*(.+)", found.text)
    theirs = shown.group(1).strip() if shown else None
    rt.store.set_meta(f"final_result:{draft_id}", json.dumps(result, ensure_ascii=False))
    if ours is not None and theirs == ours:
        rt.store.set_meta(f"final_count_tally:day{day}", tally_digest(snap.data))
        return None
    warning = (f"接管的第{day}日最终计票（pid {found.pid}）写的结果是「{theirs or '（没有结果行）'}」，这份状态重新计票得出"
               f"「{ours or '无结果'}」（记为当日结果）：旧数据库里录入的事件（判废、别名、替补、加速等）可能还没重新录入。"
               f"请补录后用 `forumbot tally --day {day}` 核对；若论坛上那篇本来就错了，用 `forumbot redraft --day {day}` 发更正")
    rt.store.audit("bot", "identity.final_differs", {"draft": draft_id, "day": day, "forum": theirs, "tally": ours},
                   at=now)
    return warning


def absorb(rt: Runtime, found: Survey, now: datetime) -> list[int]:
    """Each pass, after the alarms: posts of adopted states that appeared since (a post a
    moderator released late, a thread read later) are taken over too, and a final count
    or announcement of this state still waiting for the same day is rejected — the
    forum has that day's already. Returns the drafts rejected."""
    from forumbot.game.announce import WAITING, numbered_drafts

    fresh = [f for f in found.of(Origin.ADOPTED)]
    if not fresh:
        return []
    warnings: list[str] = []
    rejected: list[int] = []
    with rt.store.write():
        take_over(rt, fresh, now, actor="bot", warnings=warnings)
        for kind, day in sorted({(f.kind, f.day) for f in fresh
                                 if f.kind in ("final_count", "announcement") and f.day is not None}):
            for draft in numbered_drafts(rt.outbox, kind, day):
                if draft.state in WAITING:
                    rt.outbox.reject(draft.id, "bot", f"论坛上已有第{day}日的{KIND_SHORT[kind]}"
                                     "（已接管的另一份状态发的），这篇不再发出", now=now)
                    rejected.append(draft.id)
        if any(f.kind == "final_count" for f in fresh):
            from forumbot.game.gamelog import settle_result

            for day in sorted({f.day for f in fresh if f.kind == "final_count" and f.day is not None}):
                settle_result(rt, day, now)
    for warning in warnings:
        log.warning("%s", warning)
    for draft_id in rejected:
        log.warning("草稿 #%d 不再发出：论坛上已有同一日的同一篇（已接管的另一份状态发的）", draft_id)
    return rejected


def posted_elsewhere(rt: Runtime, kind: str, day: int, now: datetime) -> bool:
    """Is a ``kind`` for ``day`` of this game on the forum that this state did not send?
    Adopted ones are recorded as this state's (``take_over``) and then stand like its
    own; undecided ones stop the drafting too (the alarm is up). Another game's do not
    count."""
    found = [f for f in survey(rt).found if f.kind == kind and f.day == day
             and f.origin in (Origin.ADOPTED, *UNDECIDED)]
    if not found:
        return False
    warnings: list[str] = []
    take_over(rt, [f for f in found if f.origin is Origin.ADOPTED], now, actor="bot", warnings=warnings)
    for warning in warnings:
        log.warning("%s", warning)
    return True


@dataclass(frozen=True)
class Adopted:
    states: tuple[str, ...]
    posts: int
    drafts: tuple[int, ...]  # the published drafts recorded for them
    renewed: str | None  # this state's new id, when its old one was among them
    notable: tuple[str, ...]  # 第1日最终计票…
    warnings: tuple[str, ...] = ()  # a final count taken over that says another result


def adopt(rt: Runtime, now: datetime, *, actor: str) -> Adopted:
    """The director: the other states' posts in this game's threads are this game's
    history (the database they came from is lost). Recorded, the alarm cleared; the
    agent's next pass goes on from there."""
    from forumbot.game.gamelog import DirectorError

    store = rt.store
    with store.write():
        before = survey(rt)
        undecided = before.undecided
        if not undecided:
            raise DirectorError("没有需要接管的帖子：论坛上本局的帖子都是这份状态自己发的（或已经接管过）")
        old_state = store.state_id
        states = before.writers(*UNDECIDED)
        store.adopt_states(states, actor=actor, at=now)
        after = survey(rt)
        taken = [f for f in after.of(Origin.ADOPTED) if f.pid in {u.pid for u in undecided}]
        warnings: list[str] = []
        drafts = take_over(rt, taken, now, actor=actor, warnings=warnings)
        store.clear_alarm(STATE_CONFLICT, at=now, actor=actor, detail={"adopted": states})
        # A day whose final count is taken over is over here too: its result becomes game
        # state now (the agent no longer decides a day whose final count is published).
        from forumbot.game.gamelog import settle_result

        for day in sorted({f.day for f in taken if f.kind == "final_count" and f.day is not None}):
            settle_result(rt, day, now)
    renewed = store.state_id if store.state_id != old_state else None
    notable = tuple(dict.fromkeys(f.what for f in taken if f.kind in ("final_count", "announcement")))
    return Adopted(tuple(states), len(undecided), tuple(drafts), renewed, notable, tuple(warnings))


def mark_copy(rt: Runtime, now: datetime, *, actor: str) -> tuple[str, ...]:
    """The director: this config is a copy; the other states' posts are another live
    agent's. Nothing is taken over; the alarm stays (saying so) until the config is fixed."""
    from forumbot.game.gamelog import DirectorError

    store = rt.store
    with store.write():
        found = survey(rt)
        states = found.writers(Origin.OTHER_STATE)
        if not states:
            if found.of(Origin.COPY):
                raise DirectorError("已经确认过这份配置是副本：请改正它的 [agent].database 或各日的帖子号后重启机器人")
            raise DirectorError("论坛上没有本局另一份状态的帖子：没有什么需要确认")
        store.mark_copy(states, actor=actor, at=now)
    settle_alarms(rt, now)  # the alarm's text now says it is a copy
    return tuple(states)


__all__ = ["Adopted", "absorb", "adopt", "mark_copy", "posted_elsewhere", "take_over"]
