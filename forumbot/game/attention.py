"""What needs a person now: one list for ``forumbot status``, the desk's banner and the
notifications (forum PMs) built on top of it.

    from forumbot.game.attention import attention
    for item in attention(rt, now):
        print(item.kind, item.key, item.since, item.summary)

Each :class:`Attention` is one matter the director (or the forum's admin) must act on:

=================  ===========================  =============================================
kind               key                          what it is / what settles it
=================  ===========================  =============================================
alarm              ``alarm:<alarm id>``         an active alarm (``forumbot.game.alarms``): the
                                                forum refuses the bot, or is down or closed;
                                                ``detail`` says who must do what
final_count        ``draft:<draft id>``         a day's deadline passed and its final count
                                                waits for approval (``forumbot approve``)
failed             ``failed:<draft id>``        the forum refused a post for good
                                                (``forumbot retry`` / ``edit`` / ``reject``)
approval           ``draft:<draft id>``         any other draft waiting for approval
night_result       ``night:day<N>``             the night before day N is not entered
                                                (``forumbot night --day N``)
successor          ``successor:<previous>:<t>`` the badge is vacant: a successor, or the draw
card_proposal      ``proposal:<id>``            the bot proposes a card (give or dismiss)
stale_published    ``stale:<draft id>``         a published post a later change made wrong
=================  ===========================  =============================================

``detail`` may name commands, config keys and environment variables between backticks
(`` `forumbot retry 12` ``); ``command`` is one such command, bare.

Keys are stable while the matter lasts and new when a new matter begins (an alarm raised
again after it cleared is a new alarm, a new id): a notifier can send each key once.
``since`` is when the matter began, in the forum's zone. The list is ordered by urgency
(kinds in the order above), then by ``since``. Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from forumbot.game.alarms import AlarmKind, forum_words, short_time
from forumbot.wording import DRAFT_KIND_ZH, card_zh, draft_place_zh
from forumbot.store.outbox import Draft, DraftKind, DraftState
from forumbot.game.runtime import Runtime

__all__ = ["Attention", "AttentionKind", "attention", "minute_precision_note"]


class AttentionKind(StrEnum):
    ALARM = "alarm"
    FINAL_COUNT = "final_count"
    FAILED = "failed"
    APPROVAL = "approval"
    NIGHT_RESULT = "night_result"
    SUCCESSOR = "successor"
    CARD_PROPOSAL = "card_proposal"
    STALE_PUBLISHED = "stale_published"


_ORDER = {kind: n for n, kind in enumerate(AttentionKind)}


@dataclass(frozen=True)
class Attention:
    key: str  # stable while the matter lasts (see the module's table)
    kind: AttentionKind
    summary: str  # one short line in Chinese
    since: datetime  # when the matter began
    detail: str = ""  # what to do, in Chinese (an alarm's whole text)
    command: str | None = None  # the CLI command that settles it (the desk has a form for each)
    ref: int | None = None  # the alarm, draft or proposal id, or the day number


ALARM_SUMMARY = {
    AlarmKind.CAPTCHA_LOGIN: "论坛登录要求验证码，机器人无法登录",
    AlarmKind.LOGIN_FAILED: "机器人登录失败",
    AlarmKind.LOGIN_LOCKED: "论坛锁定了登录（密码错误次数过多）",
    AlarmKind.CAPTCHA_POST: "论坛发帖要求验证码，机器人发不了帖",
    AlarmKind.NEWBIE: "机器人账号在新手见习期，发不了帖",
    AlarmKind.BANNED: "机器人账号被禁止发言",
    AlarmKind.NO_PERMISSION: "机器人没有回复权限",
    AlarmKind.THREAD_CLOSED: "主题已关闭，机器人回复不了",
    AlarmKind.THREAD_MISSING: "配置里的主题在论坛上不存在",
    AlarmKind.TOO_SHORT: "帖子少于论坛的最小字数被拒",
    AlarmKind.MODERATION: "帖子等待论坛审核",
    AlarmKind.SITE_CLOSED: "论坛已关闭",
    AlarmKind.ROBOT_PAGE: "论坛把机器人当成搜索引擎",
    AlarmKind.FORUM_DOWN: "论坛无法访问",
    AlarmKind.STATE_CONFLICT: "论坛上有本局另一份状态的帖子，本局暂停发帖",
    AlarmKind.FOREIGN_GAME: "主题里有另一局的机器人帖子，不在那里发帖",
}


def _where(alarm_detail: dict) -> str:
    parts = []
    if isinstance(alarm_detail.get("tid"), int):
        parts.append(f"主题 {alarm_detail['tid']}")
    if isinstance(alarm_detail.get("draft"), int):
        parts.append(f"帖子 #{alarm_detail['draft']}")
    return f"（{'，'.join(parts)}）" if parts else ""


def _alarms(rt: Runtime) -> list[Attention]:
    items = []
    for alarm in rt.store.alarms():
        try:
            kind = AlarmKind(alarm.kind)
            summary = ALARM_SUMMARY[kind] + _where(alarm.detail)
        except (ValueError, KeyError):
            summary = alarm.text.split("。")[0]
        login = alarm.kind in (AlarmKind.CAPTCHA_LOGIN, AlarmKind.LOGIN_FAILED, AlarmKind.LOGIN_LOCKED)
        command = f"forumbot login --config {rt.config.path}" if login else None
        if alarm.kind == AlarmKind.STATE_CONFLICT and not alarm.detail.get("copy"):
            command = f"forumbot adopt --config {rt.config.path}"
        items.append(Attention(f"alarm:{alarm.id}", AttentionKind.ALARM, summary, alarm.raised_at,
                               detail=alarm.text, ref=alarm.id, command=command))
    return items


def _failed_since(rt: Runtime, draft: Draft) -> datetime:
    history = rt.outbox.history(draft.id)
    return next((h.at for h in reversed(history) if h.to_state is DraftState.FAILED), draft.created_at)


def _drafts(rt: Runtime, now: datetime) -> list[Attention]:
    from forumbot.game.announce import final_draft
    from forumbot.game.state import current_state

    state = current_state(rt.config, rt.store)
    finals = {}
    for window in state.days:
        if window.deadline <= now and (final := final_draft(rt.outbox, window.number)) is not None:
            finals[final.id] = window
    items = []
    for draft in rt.outbox.awaiting_approval():
        what = DRAFT_KIND_ZH.get(draft.kind.value, draft.kind.value)
        if draft.id in finals:
            window = finals[draft.id]
            items.append(Attention(
                f"draft:{draft.id}", AttentionKind.FINAL_COUNT,
                f"第{window.number}日已截止，最终计票 #{draft.id} 待审批", draft.created_at,
                detail="审批后机器人会发出它，当日结果随之生效（`forumbot show` 可先看全文）",
                command=f"forumbot approve {draft.id}", ref=draft.id))
            continue
        day = f"第{draft.day}日" if draft.day else ""
        items.append(Attention(f"draft:{draft.id}", AttentionKind.APPROVAL,
                               f"{day}{what} #{draft.id} 待审批", draft.created_at,
                               command=f"forumbot approve {draft.id}", ref=draft.id))
    for draft in rt.outbox.drafts(DraftState.FAILED):
        what = DRAFT_KIND_ZH.get(draft.kind.value, draft.kind.value)
        items.append(Attention(
            f"failed:{draft.id}", AttentionKind.FAILED, f"{what} #{draft.id}（{draft_place_zh(draft)}）发送失败",
            _failed_since(rt, draft),
            detail=f"论坛拒绝了它：{forum_words(draft.last_error)}。重发：`forumbot retry {draft.id}`；"
                   f"改后重发：`forumbot edit {draft.id}`；放弃：`forumbot reject {draft.id} --why …`",
            command=f"forumbot retry {draft.id}", ref=draft.id))
    for draft in rt.outbox.drafts(DraftState.PUBLISHED):
        text = rt.store.get_meta(f"stale_published:{draft.id}")
        if text:
            items.append(Attention(f"stale:{draft.id}", AttentionKind.STALE_PUBLISHED,
                                   f"已发布的{DRAFT_KIND_ZH.get(draft.kind.value, draft.kind.value)} #{draft.id} 已过时",
                                   draft.published_at or draft.created_at, detail=text,
                                   command=f"forumbot redraft --day {draft.day}"
                                   if draft.kind is DraftKind.FINAL_COUNT and draft.day else None,
                                   ref=draft.id))
    return items


def _game(rt: Runtime, now: datetime) -> list[Attention]:
    from engine.badge import Succession
    from forumbot.game.state import current_state
    from forumbot.game.gamelog import badge
    from forumbot.game import nightrun

    state = current_state(rt.config, rt.store)
    items = []
    numbers = {d.number for d in state.days}
    ended = nightrun.ended_at(rt)
    for window in state.days:
        nxt = window.number + 1
        if ended is not None and window.deadline >= ended:
            continue  # the game was over before this night: no night is asked for any more
        if window.deadline <= now and nxt in numbers and rt.store.night_result(nxt) is None and nightrun.active(rt):
            # The bot runs the nights: the director is wanted once its proposal is ready.
            proposal = rt.store.night_proposal(window.number)
            if proposal is not None and proposal.state == "proposed":
                items.append(Attention(
                    f"night:day{nxt}", AttentionKind.NIGHT_RESULT,
                    f"第{window.number}晚的结算建议待确认（第{proposal.version}版）", proposal.proposed_at,
                    detail=f"确认后机器人会起草第{nxt}日的公示；要改就直接录入这晚的结果，以你录入的为准",
                    command=f"forumbot night --confirm {window.number}", ref=nxt))
        elif window.deadline <= now and nxt in numbers and rt.store.night_result(nxt) is None:
            # 双身份: a night takes an identity (身份死亡); only a second loss puts a player out.
            who = ("夜晚失去一层身份（身份死亡）的角色，已失去过一层的即出局；" if rt.config.rules.identities > 1
                   else "")
            items.append(Attention(
                f"night:day{nxt}", AttentionKind.NIGHT_RESULT, f"第{nxt}日前夜的结果尚未录入", window.deadline,
                detail=f"{who}录入后机器人会起草第{nxt}日的公示", command=f"forumbot night --day {nxt} --out …",
                ref=nxt))
    status = badge(rt, now)
    vacancy = status.vacancy
    if vacancy is not None and status.succession is not Succession.VACANT:
        since = vacancy.since or now
        command = "forumbot draw-sheriff" if status.draw_offered(now) else "forumbot sheriff …"
        items.append(Attention(f"successor:{vacancy.previous}:{since.isoformat()}", AttentionKind.SUCCESSOR,
                               status.describe(now), since, command=command))
    for p in rt.store.proposals(state="proposed"):
        colour = card_zh(p.color)
        given = "--points 分数" if p.color.value == "points" else p.color.value
        items.append(Attention(f"proposal:{p.id}", AttentionKind.CARD_PROPOSAL,
                               f"判罚提议 #{p.id}：{p.player} {colour}", p.created_at, detail=p.detail,
                               command=f"forumbot card {p.player} {given} --proposal {p.id} --why …",
                               ref=p.id))
    return items


def attention(rt: Runtime, now: datetime) -> list[Attention]:
    """Everything that needs a person now, most urgent first (see the module's table)."""
    items = _alarms(rt) + _drafts(rt, now) + _game(rt, now)
    return sorted(items, key=lambda a: (_ORDER[a.kind], a.since, a.key))


def minute_precision_note(rt: Runtime, now: datetime) -> str | None:
    """On a forum that shows post times to the minute only (Discuz 7.2, or X3 with
    dateconvert off read from pages), posts in the deadline's own minute cannot be put in
    order by time: the director's closing post (``[[days]].deadline_pid``) settles them.
    Said for the day under way (or just ended) when it names none."""
    from forumbot.game.state import current_state, day_at

    state = current_state(rt.config, rt.store)
    window = day_at(state, now)
    if window is None or window.vote_thread is None or window.deadline_pid is not None:
        return None
    row = rt.store._one("SELECT time_precision FROM posts WHERE tid = ? ORDER BY pid DESC LIMIT 1",
                        (window.vote_thread,))
    if row is None or row["time_precision"] != "minute":
        return None
    return (f"本论坛的发帖时间只精确到分钟：截止那一分钟（{short_time(window.deadline)}）内的帖子无法按时间分先后。"
            f"请在截止时在投票帖发一帖截止帖，并把它的 pid 写进配置第{window.number}日的 `deadline_pid`"
            "（截止帖之后的帖子算迟到）")
