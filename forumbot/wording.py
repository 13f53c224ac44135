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


# Forum errors (``forumbot.errors``) by class name, as the outbox stores them ("ClassName: message").
FORUM_ERROR_ZH = {
    "ForumRefused": "论坛拒绝", "LoginFailed": "登录失败（用户名或密码不对）",
    "LoginLockedOut": "登录失败次数过多，论坛暂时锁定", "CaptchaRequired": "论坛要求验证码",
    "AccountNotActivated": "机器人账号未激活", "SecurityQuestionRequired": "论坛要求安全提问",
    "SecurityQuestionWrong": "安全提问回答错误", "NotLoggedIn": "未登录", "LoginBlocked": "登录被阻止",
    "FloodControl": "发帖太快（论坛的灌水限制）", "PostsPerHourLimit": "超过每小时发帖数限制",
    "MessageTooShort": "帖子太短", "MessageTooLong": "帖子太长", "MessageEmpty": "帖子为空",
    "ThreadClosed": "帖子已关闭", "NoPermission": "没有权限", "UserBanned": "机器人账号被禁言",
    "NewbiePeriod": "机器人账号处于新手见习期", "WordBanned": "含有论坛屏蔽的词语",
    "BadFormHash": "表单校验失败", "SiteClosed": "论坛关闭中", "ThreadNotFound": "帖子不存在",
    "PostNotFound": "楼层不存在", "ForumNotFound": "版块不存在", "EditNotAllowed": "不允许编辑",
    "MobileApiClosed": "论坛的手机接口已关闭", "UnknownRefusal": "论坛拒绝",
    "ForumUnavailable": "论坛没有响应", "UnexpectedPage": "论坛返回了看不懂的页面",
    "RobotPage": "论坛返回了给搜索引擎的页面", "Interrupted": "已中断",
}


def forum_error_zh(error: str | None) -> str:
    """A stored or logged forum error (``FloodControl: 您两次发表间隔少于 15 秒``) in
    Chinese: what kind of trouble it is, and the forum's (or forumbot's) own words."""
    if not error:
        return "原因不明"
    name, sep, rest = error.partition(": ")
    if not (sep and name.isidentifier()):
        name, rest = "", error
    label = FORUM_ERROR_ZH.get(name, "出错" if name else "")
    if not label:
        return rest
    return f"{label}：{rest}" if rest and rest != label else label


# What the operating system said, in Chinese (its own ``strerror`` is English).
OS_ERROR_ZH = {
    "ENOENT": "文件或文件夹不存在", "EACCES": "没有权限", "EPERM": "没有权限", "EROFS": "磁盘是只读的",
    "EISDIR": "这是一个文件夹", "ENOTDIR": "路径中有一段不是文件夹", "ENOSPC": "磁盘已满",
    "EDQUOT": "磁盘配额已满", "EEXIST": "已经存在", "EADDRINUSE": "端口已被占用",
    "EADDRNOTAVAIL": "本机没有这个地址", "ECONNREFUSED": "连接被拒绝", "ETIMEDOUT": "连接超时",
    "EIO": "读写出错（磁盘故障？）", "ENAMETOOLONG": "文件名太长", "EMFILE": "打开的文件太多",
    "ENOTEMPTY": "文件夹不是空的", "EBUSY": "正在被占用",
}


def os_error_zh(exc: BaseException) -> str:
    """An ``OSError`` as a director reads it: the Chinese for its errno, else its own words."""
    import errno

    code = getattr(exc, "errno", None)
    name = errno.errorcode.get(code, "") if isinstance(code, int) else ""
    if name in OS_ERROR_ZH:
        return OS_ERROR_ZH[name]
    return getattr(exc, "strerror", None) or str(exc)


__all__ = [
    "ACTOR_ZH", "CARD_ZH", "DRAFT_KIND_ZH", "DRAFT_STATE_ZH", "FLAG_ZH", "PROPOSAL_STATE_ZH",
    "PROPOSAL_ZH", "RULESET_ZH", "WINNERS", "WINNER_ZH", "card_said", "card_zh", "draft_kind_zh", "draft_state_zh",
    "vote_ruling_zh", "FORUM_ERROR_ZH", "OS_ERROR_ZH", "forum_error_zh", "os_error_zh",
]
