"""The Chinese words for the codes a director sees: draft kinds and states, cards, flags,
card proposals, who did something, rule sets. One table each, used by the CLI, the desk,
the alarms, the attention list and the game log alike, so a screen never says a thing
one way here and another there (and never falls back to the English code)."""

from __future__ import annotations

from typing import Any

from engine.reasons import describe_zh

DRAFT_KIND_ZH = {
    "running_count": "计票",
    "final_count": "最终计票",
    "announcement": "公示",
    "card_notice": "判罚通知",
    "count_reply": "计票回复",
    "acceleration_notice": "加速通知",
    "badge_notice": "警长通知",
}
# By stored value: a state another part adds is said here before its enum member exists.
DRAFT_STATE_ZH = {
    "draft": "待审批",
    "approved": "已批准，等待发出",
    "publishing": "发送中",
    "published": "已发布",
    "pending_moderation": "论坛审核中",
    "failed": "发送失败",
    "rejected": "已驳回",
    "superseded": "已被取代",
}
# A game thread's role (engine DayWindow.threads()), and the [[days]] key that names it.
THREAD_ROLE_ZH = {"vote": "投票帖", "discussion": "讨论帖", "progress": "进程帖"}
THREAD_ROLE_KEY = {"vote": "vote_thread", "discussion": "discussion_thread", "progress": "progress_thread"}
CARD_ZH = {"blue": "蓝牌", "yellow": "黄牌", "red": "红牌", "points": "扣分"}
FLAG_ZH = {"edit": "编辑", "zombie": "诈尸", "font": "字体", "evidence": "贴证", "target": "对象不明",
           "unknown_target": "对象不明"}
PROPOSAL_ZH = {"lurking_day": "潜水（单日）", "lurking_span": "潜水（连续三日）", "no_vote": "未投票",
               "zombie": "诈尸", "font": "字体", "evidence": "贴证"}
PROPOSAL_STATE_ZH = {"proposed": "待处理", "accepted": "已接受", "dismissed": "已忽略"}
ACTOR_ZH = {"director": "导演", "bot": "机器人", "director(pm)": "导演（站内信）", "director(desk)": "导演（导演台）",
            "director(cli)": "导演（命令行）", "forum_user": "其他论坛用户"}
# How a game ended, as the director declares it.
WINNERS = (("good", "好人阵营胜利"), ("wolf", "狼人阵营胜利"), ("third", "第三方胜利"), ("other", "其他结局"))
WINNER_ZH = dict(WINNERS)
RULESET_ZH = {"s09": "官方规则S09", "s10": "官方规则S10", "simple14": "14人简易规则", "dual": "双身份规则"}


def _value(code: Any) -> str:
    return str(getattr(code, "value", code))


def draft_kind_zh(kind: Any) -> str:
    return DRAFT_KIND_ZH.get(_value(kind), "帖子")


def draft_state_zh(state: Any) -> str:
    return DRAFT_STATE_ZH.get(_value(state), "未知状态")


def card_zh(color: Any) -> str:
    return CARD_ZH.get(_value(color), "判罚")


def card_said(color: Any, points: int | None = None) -> str:
    """A card as a post or screen says it: 「蓝牌」, or under the points rules 「扣3分」."""
    if _value(color) == "points":
        return f"扣{points}分" if points else "扣分"
    return card_zh(color)


def vote_ruling_zh(vote: dict[str, Any], change_window_minutes: int | None = None) -> str:
    """What became of one vote of a tally JSON, said the same on the desk, in ``status``,
    in ``tally`` (also ``--evidence``) and in an event's impact: a vote its voter changed
    later is 「有效，后被改票」 — ``counted`` is false for it too, but nobody left the game."""
    if not vote.get("valid"):
        return describe_zh(vote.get("reason"), change_window_minutes=change_window_minutes)
    if not vote.get("final"):
        return "有效，后被改票"
    if vote.get("counted") is False:
        who = "投票人" if vote.get("dropped") == "voter_out" else "投票对象"
        return f"有效，不计入（{who}截止前已出局）"
    return "有效"


__all__ = [
    "ACTOR_ZH", "CARD_ZH", "DRAFT_KIND_ZH", "DRAFT_STATE_ZH", "FLAG_ZH", "PROPOSAL_STATE_ZH",
    "PROPOSAL_ZH", "RULESET_ZH", "WINNERS", "WINNER_ZH", "card_said", "card_zh", "draft_kind_zh", "draft_state_zh",
    "vote_ruling_zh",
]
