"""What the bot announces about the game, built from the game state and drafted into the
outbox: the morning 公示, the final count (and a corrected one), and short notices when a
day is accelerated or the badge passes.

Every body here is a function of the game state and the stored posts, so the same call
after a correction says whether a waiting draft is stale (its body would now differ).
Drafts of one kind and day are numbered by dedupe key (``announcement:day3``, then
``announcement:day3:2`` after a redraft…): one indexed lookup each, and a kill between
two steps never drafts the same thing twice.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from engine.badge import Succession, badge_status
from engine.events import EventKind as GameKind
from engine.events import GameEvent, OutWhy
from engine.rules import Quorum
from engine.state import DayWindow, GameState, StateError
from forumbot.game.drafting import (
    acceleration_notice_body,
    announcement_body,
    badge_notice_body,
    count_body,
    counts_only,
)
from forumbot.store.outbox import Draft, DraftKind, DraftState, Outbox
from forumbot.game.lastwords import posted_words, waits_for_words, words_basis
from forumbot.game.runtime import Runtime
from forumbot.wording import card_said
from forumbot.game.views import (
    CARD_NAMES,
    AccelerationNoticeView,
    AnnouncementView,
    BadgeNoticeView,
    CardLine,
    OutLine,
    format_time,
    result_line,
)

DONE = (DraftState.REJECTED, DraftState.SUPERSEDED)
WAITING = (DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED)
SENT = (DraftState.PUBLISHING, DraftState.PENDING_MODERATION, DraftState.PUBLISHED)  # on the forum

# How an out reads in an announcement (the cause only; 出局/身份死亡 is said beside it).
WHY_SHORT = {
    OutWhy.VOTE.value: "投票", OutWhy.NIGHT.value: "夜晚", OutWhy.CARD.value: "罚下",
    OutWhy.LOVER.value: "殉情", OutWhy.HUNTER.value: "猎人开枪", OutWhy.OTHER.value: "其他",
}
DAYTIME = {OutWhy.CARD.value, OutWhy.LOVER.value, OutWhy.HUNTER.value, OutWhy.OTHER.value}


# ---------------------------------------------------------------- numbered drafts


def numbered_key(prefix: str, day: int, number: int) -> str:
    return f"{prefix}:day{day}" + (f":{number}" if number > 1 else "")


def numbered_drafts(outbox: Outbox, prefix: str, day: int) -> list[Draft]:
    """Every draft of ``prefix`` for ``day``, oldest first."""
    found: list[Draft] = []
    while (draft := outbox.by_dedupe_key(numbered_key(prefix, day, len(found) + 1))) is not None:
        found.append(draft)
    return found


def standing(outbox: Outbox, prefix: str, day: int) -> Draft | None:
    """The newest draft of ``prefix`` for ``day`` that was not rejected or superseded."""
    live = [d for d in numbered_drafts(outbox, prefix, day) if d.state not in DONE]
    return live[-1] if live else None


def final_drafts(outbox: Outbox, day: int) -> list[Draft]:
    return numbered_drafts(outbox, "final_count", day)


def final_draft(outbox: Outbox, day: int) -> Draft | None:
    """The day's final count that stands: the newest one not rejected (or superseded)."""
    return standing(outbox, "final_count", day)


def notice_thread(state: GameState, day: int) -> int | None:
    """Where announcements and notices go: the day's progress thread, else its
    discussion or vote thread, else the latest earlier day's that has one (a [calendar]
    game's days after its end were never opened: the end post goes where it was played)."""
    try:
        window: DayWindow | None = state.day(day)
    except StateError:
        window = None
    if window is not None:
        tid = window.progress_thread or window.discussion_thread or window.vote_thread
        if tid is not None:
            return tid
    for earlier in sorted((d for d in state.days if d.number < day), key=lambda d: -d.number):
        tid = earlier.progress_thread or earlier.discussion_thread or earlier.vote_thread
        if tid is not None:
            return tid
    return None


def supersede(rt: Runtime, draft: Draft, why: str, now: datetime) -> None:
    """Take a waiting draft out of the way: the outbox only rejects, so the bot rejects
    it with the reason (it is never published; the history says why)."""
    rt.outbox.reject(draft.id, "bot", why, now=now)


# ---------------------------------------------------------------- final counts


def draft_final(rt: Runtime, state: GameState, day: DayWindow, tally: dict[str, Any], now: datetime,
                *, correction: bool = False, actor: str = "bot") -> Draft:
    """A final count for ``day`` under the next free key; its tally digest and result are
    kept beside it (the result is what becomes game state once it is approved)."""
    from forumbot.game.views import tally_digest  # what a count shows, hashed

    earlier = final_drafts(rt.outbox, day.number)
    body = count_body(rt.env, tally, state=state, rules=rt.config.rules, now=now, final=True,
                      hide_voters=counts_only(rt.config.rules, rt.settings.agent.counts_only),
                      correction=correction)
    assert day.vote_thread is not None
    key = numbered_key("final_count", day.number, len(earlier) + 1)
    with rt.store.write():
        draft = rt.outbox.create_draft(DraftKind.FINAL_COUNT, day.vote_thread, body, now=now,
                                       day=day.number, dedupe_key=key, actor=actor)
        rt.store.set_meta(f"final_count_tally:day{day.number}", tally_digest(tally))
        rt.store.set_meta(f"final_result:{draft.id}", json.dumps(tally.get("result") or {}, ensure_ascii=False))
        retire_running_counts(rt, day.number, draft, now)
    return draft


# What a final count makes pointless: the day's counts that were still to go out.
_RUNNING_KINDS = (DraftKind.RUNNING_COUNT, DraftKind.COUNT_REPLY)


def retire_running_counts(rt: Runtime, day: int, final: Draft, now: datetime) -> list[Draft]:
    """The day's running counts and 计票 answers not sent yet when its final count is
    drafted (waiting for the director, approved but held back, failed) are dropped: the
    final count speaks for the day, and nothing may go out after it saying the day is
    still on. Each says why in its history and the audit (``outbox.superseded``)."""
    why = f"第{day}日最终计票（#{final.id}）已代替它：截止后进行中的计票不再发出"
    retired = []
    for draft in rt.outbox.drafts(DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED):
        if draft.kind in _RUNNING_KINDS and draft.day == day:
            done = rt.outbox.supersede(draft.id, by=final.id, why=why, now=now)
            if done is not None:
                retired.append(done)
    return retired


def final_result(rt: Runtime, draft: Draft) -> dict[str, Any]:
    """The result a final count carried when drafted (older drafts: the day's last tally)."""
    saved = rt.store.get_meta(f"final_result:{draft.id}")
    if saved:
        return json.loads(saved)
    snap = rt.store.tally(draft.day or 0)
    return (snap.data.get("result") or {}) if snap else {}


# ---------------------------------------------------------------- the announcement


def _vote_recorded(state: GameState, window: DayWindow) -> bool:
    """Is the day's own result already an event (the vote-out, or day 1's election)?"""
    for event in state.events:
        if event.at != window.deadline:
            continue
        if window.number == 1 and event.kind is GameKind.SHERIFF:
            return True
        if event.kind in (GameKind.OUT, GameKind.IDENTITY_LOST) and event.why is OutWhy.VOTE:
            return True
    return False


def with_pending_result(state: GameState, window: DayWindow, result: dict[str, Any]) -> GameState:
    """The state as if the day's result were recorded (its final count may still wait for
    the director): the announcement shows it in its place."""
    if _vote_recorded(state, window):
        return state
    if window.number == 1 and result.get("sheriff"):
        return state.with_events([GameEvent(GameKind.SHERIFF, window.deadline, result["sheriff"])])
    if result.get("out"):
        kind = GameKind.IDENTITY_LOST if state.identities > 1 else GameKind.OUT
        return state.with_events([GameEvent(kind, window.deadline, result["out"], OutWhy.VOTE)])
    return state


def announcement_view(rt: Runtime, state: GameState, day: int, now: datetime) -> AnnouncementView:
    """The morning announcement of ``day``: the previous day's vote, every out since the
    previous morning in the order it took effect, the badge and the living at this
    morning, the cards given on the previous day."""
    from forumbot.game.state import tally_with  # game imports announce's siblings; keep it late

    rules = rt.config.rules
    try:
        window: DayWindow | None = state.day(day)
    except StateError:
        window = None
    try:
        previous: DayWindow | None = state.day(day - 1)
    except StateError:
        previous = None
    vote_line = None
    result: dict[str, Any] = {}
    if previous is not None and previous.vote_thread is not None:
        result = tally_with(rt, state, previous.number).get("result") or {}
        state = with_pending_result(state, previous, result)
        vote_line = result_line(result, previous.number)
    morning = window.start if window is not None else now
    after = previous.start if previous is not None else None
    outs = []
    night = False
    for d in state.departures(after, morning):
        why = d.why
        night = night or why == OutWhy.NIGHT.value
        cause = WHY_SHORT.get(why, why)
        if why == OutWhy.OTHER.value and d.note:
            cause = d.note
        when = f"{d.at:%m-%d %H:%M}" if why in DAYTIME and d.at is not None else None
        outs.append(OutLine(d.player, "身份死亡" if d.kind == "identity_lost" else "出局", cause, when))
    moment = state.moment(morning)
    badge = badge_status(state, rules, morning)
    note = None
    if badge.vacancy is not None:
        gone = badge.vacancy.previous
        if badge.succession is Succession.VACANT:
            note = f"原警长 {gone} 被罚下，不触发【殉职】"
        elif badge.succession is Succession.DRAW:
            note = f"原警长 {gone} 被罚下，警徽随机移交"
        else:
            note = f"等待原警长 {gone} 指定继任者"
    cards = tuple(
        CardLine(player=c.player, card_name=CARD_NAMES.get(c.color.value) or card_said(c.color, c.points),
                 why=c.reason.split(" (badge draw")[0], sent_off=c.color.value == "red" or bool(c.events))
        for c in rt.store.cards() if c.day == day - 1
    )
    over = _over_by(rt, state, morning)
    return AnnouncementView(
        day=day,
        vote_day=previous.number if previous is not None and previous.vote_thread is not None else None,
        vote_line=vote_line,
        outs=tuple(outs),
        night_quiet=not night,
        sheriff=moment.sheriff,
        badge_vacant=badge.vacancy is not None,
        badge_note=note,
        cards=cards,
        alive=tuple(p for p in state.players if not moment.is_out(p)),
        next_deadline=None if over else format_time(window.deadline) if window is not None else None,
        game_over=over,
        dual=state.identities > 1,
        night_notes=_night_notes(rt, day),
        last_words=posted_words(rt, state, day),
    )


def _over_by(rt: Runtime, state: GameState, morning: datetime) -> str | None:
    """「游戏结束：…」 when a faction won by ``morning`` (that day is never played), else None.
    The identities' win as the end post reads it (forumbot.game.sealing.end_of_game), taken
    from the chronicle here: sealing drafts into this module's threads."""
    from forumbot.game.nights import NightsError, runtime_chronicle

    if rt.config.identities is None:
        return None
    try:
        chronicle = runtime_chronicle(rt, state)
    except NightsError:
        return None  # a sheet the nights cannot replay: the director says when it ends
    win = chronicle.win if chronicle is not None else None
    if win is None or win.at is None or win.at > morning:
        return None
    # The rule that decided it names identities (预言家、女巫、长老出局): it waits for the
    # end post, which reveals the sheet with it.
    return f"游戏结束：{win.faction.value}获胜。判定和身份公布见结束帖"


def _night_notes(rt: Runtime, day: int) -> tuple[str, ...]:
    """A night the bot resolved and the director confirmed: what its rules say must be
    announced (14人简易: 女巫、预言家失去技能 after the elder is poisoned). Never who holds what."""
    proposal = rt.store.night_proposal(day - 1)
    if proposal is None or proposal.state != "confirmed":
        return ()
    return tuple(str(n) for n in proposal.data.get("announcements") or ())


def announcement_text(rt: Runtime, state: GameState, day: int, now: datetime) -> str:
    return announcement_body(rt.env, announcement_view(rt, state, day, now))


def draft_announcement(rt: Runtime, day: int, now: datetime, *, state: GameState | None = None) -> Draft | None:
    """The morning announcement of ``day``, once the director has entered the night
    before it. A waiting draft whose text the game no longer matches (an event entered
    or corrected since) is replaced by a fresh one; a published one is never touched."""
    from forumbot.game.state import current_state

    if rt.store.night_result(day) is None:
        return None
    current = standing(rt.outbox, "announcement", day)
    if current is not None and current.state in SENT:
        return current
    from forumbot.game.takeover import posted_elsewhere

    if posted_elsewhere(rt, DraftKind.ANNOUNCEMENT.value, day, now):
        # On the forum already, sent by another state of this game: taken over (it stands
        # as this state's now) or waiting for the director (the alarm is up). Never again.
        found = standing(rt.outbox, "announcement", day)
        if current is not None and found is not None and found.id != current.id and current.state in WAITING:
            supersede(rt, current, "论坛上已有这一日的公示（另一份状态发的，已接管）", now)
        return found if found is not None and found.state in SENT else None
    # What the text depends on: the events, the previous day's tally, the cards. The agent
    # asks every pass; the text is rendered again only when one of them has changed.
    basis = _basis(rt, day)
    if current is not None and rt.store.get_meta(f"announcement_basis:{current.id}") == basis:
        return current
    state = state or current_state(rt.config, rt.store)
    if current is None and waits_for_words(rt, state, day, now):
        return None  # a holder of 遗言 may still answer (forumbot.game.lastwords: how long)
    body = announcement_text(rt, state, day, now)
    if current is not None:
        if current.original_body.strip() == body.strip():
            rt.store.set_meta(f"announcement_basis:{current.id}", basis)
            return current
        supersede(rt, current, "已过时：游戏事件有变，已按最新情况重新起草公示", now)
    tid = notice_thread(state, day)
    if tid is None:
        raise StateError(f"第{day}日：没有可发公示的帖子")
    key = numbered_key("announcement", day, len(numbered_drafts(rt.outbox, "announcement", day)) + 1)
    with rt.store.write():
        draft = rt.outbox.create_draft(DraftKind.ANNOUNCEMENT, tid, body, now=now, day=day, dedupe_key=key)
        rt.store.set_meta(f"announcement_basis:{draft.id}", basis)
    return draft


def _basis(rt: Runtime, day: int) -> str:
    events = rt.store.events()
    last = events[-1].id if events else 0
    snap = rt.store.tally(day - 1)
    return (f"{last}:{len(events)}|{snap.version if snap else 0}|{len(rt.store.cards())}"
            f"|{words_basis(rt, day)}")


# ---------------------------------------------------------------- notices


def acceleration_notice(rt: Runtime, state: GameState, day: int, requests: tuple[str, ...], living: int,
                        now: datetime, *, actor: str = "director") -> Draft | None:
    rules = rt.config.rules
    tid = notice_thread(state, day)
    if tid is None:
        return None
    rule = {Quorum.MAJORITY: "超过存活玩家的一半申请即加速", Quorum.ALL: "所有角色均同意方可缩短游戏日",
            Quorum.DIRECTOR: "由导演决定"}[rules.acceleration_quorum]
    view = AccelerationNoticeView(day, rules.acceleration_voids_changes, requests, living, rule)
    return rt.outbox.create_draft(DraftKind.ACCELERATION_NOTICE, tid, acceleration_notice_body(rt.env, view),
                                  now=now, day=day, actor=actor)


def badge_notice(rt: Runtime, state: GameState, day: int, view: BadgeNoticeView, now: datetime,
                 *, actor: str = "director") -> Draft | None:
    tid = notice_thread(state, day)
    if tid is None:
        return None
    return rt.outbox.create_draft(DraftKind.BADGE_NOTICE, tid, badge_notice_body(rt.env, view),
                                  now=now, day=day, actor=actor)


__all__ = [
    "acceleration_notice", "announcement_text", "announcement_view", "badge_notice", "draft_announcement",
    "draft_final", "final_draft", "final_drafts", "final_result", "notice_thread", "numbered_drafts",
    "numbered_key", "retire_running_counts", "standing", "supersede", "with_pending_result",
]
