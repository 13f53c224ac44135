"""What to tell the director by PM, and when. Texts only (Chinese); nothing is sent here.

A *matter* is one thing that needs the director, as ``forumbot.game.attention`` lists it (a
draft waiting, a post failed, an alarm, a night or a successor awaited…) plus the forum
coming back after an outage (``recovery``). It is told once: its identity is the
attention key with the moment it began (``failed:12@…``), so a draft that fails again
after a retry is a new matter, and so is an alarm raised again after it cleared.

When (``[notify]``): a matter of a kind not in ``kinds`` is never told; notices are at
least ``min_interval_seconds`` apart — the first matter after a quiet spell goes at once,
what comes meanwhile waits and goes in one PM listing them all; nothing is told in
``quiet_hours`` (answers to the director's commands still go, and take the waiting
matters along). A matter that ended before it could be told is not told.

An outage cannot be told while the forum is down (a PM goes through the same forum): the
``forum_down`` alarm is told if the forum lets PMs through meanwhile, and the recovery is
told when it is back, with how long it lasted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, time

from forumbot.game.alarms import recoveries, recovery_text, short_time
from forumbot.game.attention import Attention, AttentionKind, attention
from forumbot.store.outbox import DraftState
from forumbot.game.runtime import Runtime

__all__ = ["HELP", "NOTIFY_ALARM_KEY", "Matter", "current_matters", "hints", "in_quiet_hours", "no_api_keys",
           "notice_text", "status_text"]

# The alarm raised when the director cannot be reached by PM (it is on the desk and in
# `forumbot status`; telling it by PM would be pointless).
NOTIFY_ALARM_KEY = "notify"
NOTIFY_ALARM_KIND = "notify"

HELP = ("可用的指令（直接回复这条消息即可，编号不分大小写）：\n"
        "批准 编号 —— 发出这篇草稿\n"
        "驳回 编号 理由：…… —— 不发，写明理由\n"
        "查看 编号 —— 看草稿全文\n"
        "重发 编号 —— 发送失败的帖子再发一次（先在论坛上查找，不会重复）\n"
        "夜晚 第N日 出局：名字、名字 —— 录入第N日前夜的结果（没有人出局：平安夜 第N日）\n"
        "警长 名字 —— 指定继任警长\n"
        "截止 第N日 12-05 22:00 —— 改第N日的截止时间（现在截止：截止 第N日 现在）\n"
        "延长 第N日 1天 —— 把第N日延长（1天、2小时、30分钟）\n"
        "延长 夜N 女巫 30分钟 —— 把第N晚的一个阶段延长（或：延长 夜N 女巫 到 08:30）\n"
        "重开 第N日 —— 重新打开机器人关闭的投票帖\n"
        "确认 编号 —— 执行上一步预览的录入或改动\n"
        "状态 —— 现在的局面和待办\n"
        "同时导演几局游戏：在指令前写上游戏名，例如「第二局 平安夜 第2日」「第二局 状态」；"
        "编号只属于一局，不用写游戏名")


@dataclass(frozen=True)
class Matter:
    key: str  # the attention key (``draft:12``…) or ``recovery:<alarm id>``
    kind: str  # an AttentionKind value, or "recovery"
    summary: str
    since: datetime
    detail: str = ""
    draft_id: int | None = None
    day: int | None = None  # night_result: the day whose morning follows the night
    identities: int = 1  # the rule set's identities per player (双身份: 2, a night takes one)

    @property
    def matter(self) -> str:
        """Told once: the key and the moment the matter began."""
        return f"{self.key}@{self.since.isoformat()}"


_DRAFT_KINDS = {AttentionKind.FINAL_COUNT, AttentionKind.APPROVAL, AttentionKind.FAILED}


# The X3.5 mobile API answers a refusal with its language key (``mobile:post_flood_ctrl``):
# never shown to the director as is.
API_KEY = re.compile(r"mobile:[A-Za-z0-9_]+")


def no_api_keys(text: str) -> str:
    return API_KEY.sub("论坛拒绝（手机接口）", text)


def _matter(rt: Runtime, item: Attention) -> Matter:
    draft_id = item.ref if item.kind in _DRAFT_KINDS else None
    if item.kind is AttentionKind.ALARM:
        # A post held for moderation: its draft gets a code (驳回 by PM, not a CLI command).
        alarm = next((a for a in rt.store.alarms() if a.id == item.ref), None)
        if alarm is not None and alarm.key.startswith("moderation:") and alarm.key[11:].isdigit():
            draft_id = int(alarm.key[11:])
    day = item.ref if item.kind is AttentionKind.NIGHT_RESULT else None
    detail = item.detail
    if item.kind is AttentionKind.FAILED and draft_id is not None:
        from forumbot.wording import forum_error  # the refusal in Chinese, the forum's words kept

        detail = f"论坛拒绝了它：{forum_error(rt.outbox.get(draft_id).last_error).text}"
    return Matter(item.key, item.kind.value, no_api_keys(item.summary), item.since, no_api_keys(detail),
                  draft_id, day, rt.config.rules.identities)


def current_matters(rt: Runtime, now: datetime, kinds: Iterable[str] | None = None) -> list[Matter]:
    """What needs the director now (most urgent first), then the recoveries; only
    ``kinds`` when given. The PM trouble's own alarm is never among them."""
    wanted = set(kinds) if kinds is not None else None
    own = rt.store.alarm(NOTIFY_ALARM_KEY)
    from forumbot.game import nightrun

    # A night the bot runs is told by its own PM (the proposal with its code: nightpm).
    bot_nights = nightrun.active(rt)
    found = [_matter(rt, a) for a in attention(rt, now)
             if not (a.kind is AttentionKind.ALARM and own is not None and a.ref == own.id)
             and not (bot_nights and a.kind is AttentionKind.NIGHT_RESULT)]
    found += [Matter(f"recovery:{a.id}", "recovery", recovery_text(a), a.cleared_at or a.raised_at)
              for a in recoveries(rt.store, now)]
    return [m for m in found if wanted is None or m.kind in wanted]


def in_quiet_hours(now: datetime, quiet: tuple[time, time] | None) -> bool:
    if quiet is None:
        return False
    start, end = quiet
    t = now.timetz().replace(tzinfo=None)
    return start <= t < end if start < end else (t >= start or t < end)


# The CLI commands library texts name (alarms, attention), said as the PM command instead.
_CLI_COMMAND = re.compile(r"`forumbot (approve|retry|reject) (\d+)(?: --why …| --why [^`]*)?`")
_PM_VERB = {"approve": "批准 {code}", "retry": "重发 {code}", "reject": "驳回 {code} 理由：……"}


def by_pm(text: str, draft_code: Callable[[int], str | None] | None) -> str:
    """``text`` with the CLI commands it names for a draft (`` `forumbot reject 12 --why …` ``)
    said as the director's answer by PM (「驳回 K7M3 理由：……」): a director on a phone has
    no terminal. Commands of drafts without a code are left for ``plain`` to drop."""
    if draft_code is None:
        return text

    def say(m: re.Match[str]) -> str:
        code = draft_code(int(m.group(2)))
        return f"回复「{_PM_VERB[m.group(1)].format(code=code)}」" if code else m.group(0)

    return _CLI_COMMAND.sub(say, text)


def hints(matter: Matter, code: str | None, *, prefix: str = "",
          draft_code: Callable[[int], str | None] | None = None) -> list[str]:
    """What the director can answer to settle it (each line has more than a bare command,
    so a line pasted back is never read as a command: see ``commands.clean``). ``prefix``:
    the game's name and a space when the director runs several games (a command without a
    code must name its game)."""
    from forumbot.notify.handle import plain

    if matter.kind == AttentionKind.ALARM.value and matter.draft_id is not None and code:
        # Held for moderation: the director may stop waiting for it, by PM.
        detail = by_pm(matter.detail, lambda d: code if d == matter.draft_id else None)
        said = [plain(detail)] if detail else []
        if f"驳回 {code}" not in "".join(said):
            said.append(f"不再等它：回复「驳回 {code} 理由：……」")
        return said
    if matter.kind in (AttentionKind.FINAL_COUNT.value, AttentionKind.APPROVAL.value) and code:
        return [f"回复「批准 {code}」发出，「查看 {code}」看全文，「驳回 {code} 理由：……」不发"]
    if matter.kind == AttentionKind.FAILED.value and code:
        lines = [matter.detail] if matter.detail else []
        return lines + [f"回复「重发 {code}」再发一次（先在论坛上查找，不会重复），「查看 {code}」看全文，"
                        f"「驳回 {code} 理由：……」放弃"]
    if matter.kind == AttentionKind.NIGHT_RESULT.value and matter.day:
        if matter.identities > 1:  # 双身份: the night's victims lose an identity; a second loss is out
            return [f"回复「{prefix}夜晚 第{matter.day}日 身份死亡：名字、名字」录入（已失去过一层身份的即出局；"
                    f"没有人身份死亡回复「{prefix}平安夜 第{matter.day}日」）"]
        return [f"回复「{prefix}夜晚 第{matter.day}日 出局：名字、名字」录入（没有人出局回复「{prefix}平安夜 第{matter.day}日」）"]
    if matter.kind == AttentionKind.SUCCESSOR.value:
        return [f"回复「{prefix}警长 名字」指定继任警长（机器人会先说明影响，再等你确认）"]
    if matter.kind in (AttentionKind.ALARM.value, AttentionKind.STALE_PUBLISHED.value,
                       AttentionKind.CARD_PROPOSAL.value) and matter.detail:
        return [plain(by_pm(matter.detail, draft_code))]
    return []


def notice_text(matters: list[Matter], code_for: Callable[[Matter], str | None], *, prefix: str = "",
                draft_code: Callable[[int], str | None] | None = None) -> str:
    """One PM telling ``matters`` (most urgent first); ``prefix``: see ``hints``."""
    todo = [m for m in matters if m.kind != "recovery"]
    news = [m for m in matters if m.kind == "recovery"]
    lines: list[str] = []
    if len(todo) == 1:
        lines.append(f"【待你处理】{todo[0].summary}")
        lines += [f"　{h}" for h in hints(todo[0], code_for(todo[0]), prefix=prefix, draft_code=draft_code)]
    elif todo:
        lines.append(f"【待你处理】共 {len(todo)} 件：")
        for n, m in enumerate(todo, start=1):
            lines.append(f"{n}. {m.summary}")
            lines += [f"　{h}" for h in hints(m, code_for(m), prefix=prefix, draft_code=draft_code)]
    for m in news:
        lines.append(f"【通知】{m.summary}")
    lines.append(f"回复「{prefix}状态」看局面，「帮助」看全部指令。")
    return "\n".join(lines)


def status_text(rt: Runtime, now: datetime, code_for: Callable[[Matter], str | None]) -> str:
    """The answer to 状态: the day, the time left, the sheriff, who is out, the counts, and
    what waits for the director (with codes)."""
    from forumbot.game import director

    s = director.status(rt, now)
    lines = [f"【状态】{short_time(now)}"]
    if s.day is None:
        lines.append("游戏还没有开始")
    elif s.time_left is not None:
        lines.append(f"第{s.day.number}日投票中，剩余 {s.time_left}（{short_time(s.day.deadline)} 截止）")
    else:
        lines.append(f"第{s.day.number}日投票已于 {short_time(s.day.deadline)} 截止")
    if s.badge is not None:
        lines.append(s.badge.describe(now).replace("（forumbot draw-sheriff）", ""))
    if s.out:
        lines.append("已出局：" + "、".join(f"{p}（{why}）" for p, why in s.out))
    counts = (s.tally or {}).get("counts") or {}
    if s.day is not None and counts:
        shown = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        lines.append("当前票数：" + "、".join(f"{name} {n:g}" for name, n in shown))
    matters = current_matters(rt, now)
    todo = [m for m in matters if m.kind != "recovery"]
    if todo:
        lines.append(f"待你处理（{len(todo)} 件）：")
        for n, m in enumerate(todo, start=1):
            code = code_for(m)
            lines.append(f"{n}. {m.summary}" + (f"（编号 {code}）" if code else ""))
    else:
        lines.append("没有待你处理的事")
    for m in matters:
        if m.kind == "recovery":
            lines.append(m.summary)
    sending = [d for d in rt.outbox.drafts(DraftState.APPROVED, DraftState.PUBLISHING)]
    if sending:
        lines.append("正在发出：" + "、".join(f"#{d.id}" for d in sending))
    from forumbot.game import nightrun

    # The nights the bot runs, where each stands — not the proposal itself: a status can be
    # forwarded or read over a shoulder; the proposal came in its own PM.
    lines += nightrun.night_lines(rt, now)
    return "\n".join(lines)
