"""Every Chinese word and sentence a director or player reads for a code: draft kinds and
states, cards, flags, card proposals, who did something, rule sets, out causes, forum
and OS errors, the audit log's actions as sentences. One table each, used by the CLI,
the desk, the alarms, the attention list, the director's PMs, the service and the game
log alike, so a screen never says a thing one way here and another there (and never
falls back to the English code).

Some of the library's lines were written for the command line and name a command
(``（forumbot night --day 3）``); on the desk and by PM a button or a reply does that, so
``clean`` takes such hints out. What has no Chinese yet (an audit action added later, an
error this module does not know) is said generically, with the raw text kept for an
operator (``raw_detail``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping

from engine.events import WHY_IDENTITY_ZH, WHY_ZH, parse_why
from engine.reasons import describe_zh

DRAFT_KIND_ZH = {
    "running_count": "计票",
    "final_count": "最终计票",
    "announcement": "公示",
    "card_notice": "判罚通知",
    "count_reply": "计票回复",
    "acceleration_notice": "加速通知",
    "badge_notice": "警长通知",
    "sealed_deal": "身份封存",
    "game_end": "游戏结束",
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


# Forum errors (``forumbot.discuz.errors``) by class name, as the outbox stores them ("ClassName: message").
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


def hm(at: datetime | None) -> str:
    """``12-02 20:00``, the short time the desk and the status lines use; ``—`` for none."""
    return f"{at:%m-%d %H:%M}" if at else "—"


# The shared words (forumbot.wording), under the names the desk's templates know.
KIND_ZH = DRAFT_KIND_ZH
STATE_ZH = DRAFT_STATE_ZH
# The out causes the desk's 出局 form offers (a red card is given on the cards page, so
# the ledger and the send-off stay one decision).
OUT_WHY_CHOICES = (("vote", "投票出局"), ("night", "夜晚出局"), ("lover", "殉情出局"),
                   ("hunter", "被猎人带走"), ("other", "其他原因"))
IDENTITY_WHY_CHOICES = (("vote", "投票"), ("night", "夜晚"), ("lover", "殉情"), ("hunter", "被猎人带走"),
                        ("other", "其他原因"))
EVENT_KIND_ZH = {
    "out": "出局", "identity_lost": "身份死亡", "idiot": "若愚", "sheriff": "警长", "scapegoat": "替罪羊",
    "accelerate": "加速", "accelerated": "加速", "voters": "冤死·可投票名单", "night": "夜晚结果",
    "alias": "别名", "substitute": "替补", "void": "判废", "retract": "撤销",
}




def ruleset_zh(rules: Any) -> str:
    return RULESET_ZH.get(getattr(rules, "name", ""), "自定义规则")


kind_zh = draft_kind_zh


state_zh = draft_state_zh


def actor_zh(actor: str | None) -> str:
    return ACTOR_ZH.get(actor or "", actor or "—")




# ---------------------------------------------------------------- library lines

_CLI_HINT = re.compile(r"[（(][^（）()]*(?:forumbot |--)[^（）()]*[）)]")
_CLI_LEFT = re.compile(r"forumbot [a-z-]+(?: --?[a-z-]+(?: \S+)?)*")
_SEED = re.compile(r" ?\(badge draw seed=(\d+)\)")  # how give_card marks a card that drew the badge
_CLI_WORDS = (
    ("请用 --day 指定", "请指定是第几日"),
    ("请用 identity-lost", "请用「身份死亡」"),
    ("本局请用出局（out）", "本局请用出局"),
)


def clean(text: str | None) -> str:
    """A library line as the desk shows it: without the command-line hints the CLI
    prints after it (the desk has a button for that)."""
    if not text:
        return ""
    for cli, desk in _CLI_WORDS:
        text = text.replace(cli, desk)
    text = _SEED.sub(r"（警徽随机移交，随机种子 \1）", text)
    text = _CLI_HINT.sub("", text)
    text = _CLI_LEFT.sub("", text)
    return text.replace("；可随机移交", "；可以随机移交").strip()


# ---------------------------------------------------------------- errors

# Forum refusals (``forumbot.discuz.errors``) as the outbox stores them: "ClassName: message".
# (the table lives in forumbot.wording: the log and the CLI say them the same way)
_CLASS_PREFIX = re.compile(r"^([A-Z][A-Za-z]+): ?(.*)$", re.S)


@dataclass(frozen=True)
class Said:
    """A message for the director, and (when it had English in it) the raw text for an
    operator, shown collapsed."""

    text: str
    raw: str = ""


def forum_error(error: str | None) -> Said:
    """A draft's ``last_error`` in Chinese (the forum's own Chinese words kept)."""
    if not error:
        return Said("")
    m = _CLASS_PREFIX.match(error)
    name, rest = (m.group(1), m.group(2)) if m else ("", error)
    label = FORUM_ERROR_ZH.get(name)
    if rest.startswith("looking for marker: "):
        inner = forum_error(rest.removeprefix("looking for marker: "))
        return Said(f"在论坛上查找这篇帖子时出错：{inner.text}", error)
    if label is None:
        label = "发送时出错"
    if rest and _chinese(rest):  # the forum's own words
        return Said(f"{label}：{rest}", "" if not name else error)
    return Said(label, error)


_OUTBOX_STATE = re.compile(r"^draft #(\d+) is (\w+); cannot move it to (\w+)$")
_PROPOSAL_DONE = re.compile(r"^card proposal #(\d+) is already (\w+)$")
_NO_DRAFT = re.compile(r"^no draft #(\d+) in the outbox$")
_NO_PROPOSAL = re.compile(r"^no card proposal #(\d+)$")


def error_zh(exc: BaseException) -> Said:
    """A refusal from the library, in Chinese. The director's library already speaks
    Chinese; the outbox and the store say a few things in English, translated here."""
    text = str(exc).strip().strip("'\"")
    if m := _OUTBOX_STATE.match(text):
        return Said(f"#{m.group(1)} 现在是「{state_zh(m.group(2))}」，不能再改为「{state_zh(m.group(3))}」", text)
    if m := _PROPOSAL_DONE.match(text):
        return Said(f"判罚提议 #{m.group(1)} 已经{PROPOSAL_STATE_ZH.get(m.group(2), '处理过')}", text)
    if m := _NO_DRAFT.match(text):
        return Said(f"没有帖子 #{m.group(1)}", text)
    if m := _NO_PROPOSAL.match(text):
        return Said(f"没有判罚提议 #{m.group(1)}", text)
    if "refusing an empty body" in text or "empty body" in text:
        return Said("帖子内容不能为空", text)
    if "changed under us" in text:
        return Said("这篇帖子刚刚被机器人改变了状态：请刷新后再试", text)
    if _chinese(text):  # the library's own refusal (a player's name may be Latin)
        return Said(clean(text))
    return Said("操作未能完成（原因见原始信息）", text or type(exc).__name__)


def _chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


# ---------------------------------------------------------------- times


def iso_text(value: Any) -> str:
    if isinstance(value, str) and value:
        try:
            return hm(datetime.fromisoformat(value))
        except ValueError:
            return value
    return "—"


# ---------------------------------------------------------------- the audit log


@dataclass(frozen=True)
class LogContext:
    """What a sentence needs beyond the entry: events and drafts by id."""

    events: Mapping[int, str]  # event id → its summary (Chinese)
    drafts: Mapping[int, Any]  # draft id → Draft


def _draft_name(ctx: LogContext, draft_id: Any, detail: Mapping[str, Any] | None = None) -> str:
    draft = ctx.drafts.get(draft_id) if isinstance(draft_id, int) else None
    kind = kind_zh(draft.kind) if draft else kind_zh((detail or {}).get("kind", ""))
    day = (draft.day if draft else (detail or {}).get("day"))
    return f"#{draft_id} {kind}" + (f"（第{day}日）" if day else "")


def _out_text(detail: Mapping[str, Any], identity: bool = False) -> str:
    why = parse_why(detail.get("why"))
    said = (WHY_IDENTITY_ZH if identity else WHY_ZH).get(why, "出局")
    return f"{detail.get('player')} {said}"


def audit_sentence(action: str, detail: Mapping[str, Any], ctx: LogContext) -> str:
    """One audit entry as a sentence (who did it is shown beside it)."""
    d = detail
    if action.startswith("event."):
        kind = action.removeprefix("event.")
        event_id = d.get("event")
        summary = ctx.events.get(event_id) if isinstance(event_id, int) else None
        when = f"，生效时间 {iso_text(d.get('game_at'))}" if d.get("game_at") else ""
        if kind == "retract":
            why = f"：{d.get('why')}" if d.get("why") else ""
            return f"撤销了事件 #{d.get('event')}{why}"
        if d.get("corrects") and kind != "night":
            head = f"更正事件 #{d.get('corrects')} 为"
        else:
            head = f"记录事件 #{event_id}" if isinstance(event_id, int) else "记录事件"
        body = summary or _event_fallback(kind, d)
        because = f"（更正理由：{d['why_correction']}）" if d.get("why_correction") else ""
        return f"{head}：{clean(body)}{when}{because}"
    if action.startswith("outbox."):
        state = action.removeprefix("outbox.")
        name = _draft_name(ctx, d.get("draft"), d)
        if state == "draft":
            return f"起草 {name}"
        if state == "approved":
            if d.get("from") == "failed" and d.get("retry"):
                return f"重新发送 {name}"
            if d.get("policy") == "auto":
                return f"自动批准 {name}（此类帖子无需审批）"
            return f"批准 {name}" + ("（按修改稿）" if d.get("edited") else "")
        if state == "publishing":
            if d.get("edit_refused"):
                return f"论坛不允许编辑 {name} 要替换的帖子，改为发新帖"
            return f"开始发送 {name}（第 {d.get('attempt', 1)} 次）" + \
                ("，已按发出时的票数重新生成" if d.get("rendered_at_publish") else "")
        if state == "published":
            if d.get("found_by_marker"):
                return f"在论坛上找到了 {name}（pid {d.get('pid')}），不再重发"
            if d.get("moderated") or d.get("pid") is None:
                return f"{name} 已提交，论坛审核中"
            return f"{name} 已发布（pid {d.get('pid')}）"
        if state == "failed":
            return f"{name} 发送失败：{forum_error(d.get('error')).text}"
        if state == "rejected":
            return f"驳回 {name}" + (f"：{clean(d.get('why'))}" if d.get("why") else "")
        if state == "superseded":
            if d.get("by"):
                return f"{name} 被新的 #{d.get('by')} 取代，不再发送"
            return f"{name} 已过时，不再发送"
        if state == "pending_moderation":
            return f"{name} 已提交，论坛审核中"
        if state == "error":
            return f"发送 {name} 时出错：{forum_error(d.get('error')).text}"
        return f"{name}：{state_zh(state)}"
    if action == "card.given":
        points = f" {d.get('points')} 分" if d.get("points") and d.get("color") != "points" else ""
        day = f"（第{d['day']}日）" if d.get("day") else ""
        return f"给 {d.get('player')} {card_said(d.get('color'), d.get('points'))}{points}{day}：{clean(d.get('reason'))}"
    if action == "card.retracted":
        return f"撤销判罚 #{d.get('entry')}（{d.get('player')} 的{card_said(d.get('color'))}）：{clean(d.get('why'))}"
    if action == "card.proposed":
        day = f"第{d['day']}日" if d.get("day") else ""
        return (f"提议给 {d.get('player')} {card_zh(d.get('color'))}：{day}"
                f"{PROPOSAL_ZH.get(str(d.get('reason')), '违规')}（判罚提议 #{d.get('proposal')}）")
    if action == "card.dismissed":
        return f"忽略判罚提议 #{d.get('proposal')}" + (f"：{d.get('why')}" if d.get("why") else "")
    if action == "retally":
        return f"重新计票第{d.get('day')}日：" + ("有变化" if d.get("changed") else "无变化")
    if action == "config.changed":
        return "游戏配置有变化（已保存新的配置快照）"
    if action == "count_request_skipped":
        return f"没有回复 {d.get('player')} 的计票请求（pid {d.get('pid')}）：距上一次回复太近"
    if action == "stale_published":
        return f"已发布的 {_draft_name(ctx, d.get('draft'))} 因事件 #{d.get('event')} 已不正确（不会改动它）"
    if action == "stale_published_cleared":
        return f"事件 #{d.get('event')} 之后，已发布的 {_draft_name(ctx, d.get('draft'))} 又与计票一致"
    if action == "evidence.exported":
        return f"导出第{d.get('day')}日的证据文件（文件位置和校验和见原始数据）"
    if action == "game.over":
        return f"宣布游戏结束：{WINNER_ZH.get(str(d.get('winner')), '其他结局')}" + \
            (f"（{d.get('note')}）" if d.get("note") else "")
    if action == "game.resumed":
        return "撤销游戏结束" + (f"：{d.get('why')}" if d.get("why") else "")
    if action.startswith("notify."):
        return _notify_sentence(action.removeprefix("notify."), d)
    return "其他操作（见原始数据）"


_NOTIFY_RESULT_ZH = {"done": "已执行", "answered": "已回复", "previewed": "已回复影响，等待确认",
                     "refused": "未执行", "not_understood": "没看懂，已回复"}


def _notify_sentence(kind: str, d: Mapping[str, Any]) -> str:
    """The director by forum PM (forumbot.notify)."""
    if kind == "command":
        return f"站内信指令「{clean(str(d.get('command') or ''))}」：{_NOTIFY_RESULT_ZH.get(str(d.get('result')), '已处理')}"
    if kind == "foreign":
        return (f"{d.get('name') or '某用户'}（uid {d.get('uid')}）发来站内信指令，不是导演，未执行："
                + "、".join(str(c) for c in d.get("commands") or []))
    if kind == "told":
        return f"用站内信告诉导演 {len(d.get('matters') or [])} 件待办"
    if kind == "sent":
        return "站内信已发出" + ("（中断后在对话里找到，未重发）" if d.get("found_by_marker") else "")
    if kind == "started":
        return "开始读取导演的站内信（此前的消息不当作指令）"
    return "站内信（见原始数据）"


def _event_fallback(kind: str, d: Mapping[str, Any]) -> str:
    if kind in ("out",):
        return _out_text(d)
    if kind == "identity_lost":
        return _out_text(d, identity=True)
    if kind == "night":
        return "、".join(d.get("out") or []) or "平安夜"
    if kind == "sheriff":
        return f"警长：{d.get('player') or '无'}"
    return EVENT_KIND_ZH.get(kind, "事件")


# The audit detail's keys as the desk's 原始数据 names them (a key not listed keeps its name).
RAW_KEY_ZH = {
    "draft": "草稿", "day": "第几日", "kind": "类型", "tid": "帖子 tid", "pid": "pid", "from": "原状态",
    "to": "新状态", "policy": "审批方式", "marker": "标记", "dedupe_key": "去重键", "attempt": "第几次发送",
    "moderated": "论坛审核", "error": "错误", "edited": "按修改稿", "rendered_at_publish": "发出时重新生成",
    "found_by_marker": "按标记找到", "edit_pid": "编辑的帖子 pid", "edit_refused": "编辑被拒绝",
    "instead": "改为", "retry": "重新发送", "by": "被取代于", "why": "原因", "player": "玩家",
    "players": "玩家", "color": "颜色", "points": "扣分", "entry": "判罚编号", "proposal": "提议编号",
    "reason": "理由", "event": "事件", "game_at": "生效时间", "entered_at": "录入时间", "name": "名字",
    "out": "出局", "note": "备注", "source": "来源", "what": "内容", "changed": "有变化", "hash": "配置校验",
    "file": "文件", "sha256": "校验和", "winner": "结局", "command": "指令", "commands": "指令",
    "result": "结果", "uid": "uid", "since_pid": "审核前最新的 pid", "corrects": "更正的事件",
    "why_correction": "更正理由", "accelerated": "加速", "matters": "待办", "state": "状态",
    "account": "账号", "seat": "座位", "alias": "别名", "seed": "随机种子", "candidates": "候选",
}
_RAW_VALUES = {
    "kind": lambda v: draft_kind_zh(v) if v in DRAFT_KIND_ZH else EVENT_KIND_ZH.get(v, v),
    "from": draft_state_zh, "to": draft_state_zh, "state": draft_state_zh,
    "policy": lambda v: {"auto": "自动发出", "manual": "导演审批"}.get(v, v),
    "color": card_zh, "reason": lambda v: PROPOSAL_ZH.get(v, v),
    "why": lambda v: {**dict(IDENTITY_WHY_CHOICES), "card": "红牌"}.get(v, v),  # a cause, or the words given
    "source": lambda v: {"result": "计票结果"}.get(v, v), "instead": lambda v: {"new post": "发新帖"}.get(v, v),
    "winner": lambda v: WINNER_ZH.get(v, v), "result": lambda v: _NOTIFY_RESULT_ZH.get(v, v),
}


def _raw_value(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    if value is None:
        return "无"
    if isinstance(value, (list, tuple)):
        return "、".join(_raw_value(key, v) for v in value) or "无"
    if isinstance(value, str) and key in _RAW_VALUES:
        return str(_RAW_VALUES[key](value))
    return str(value)


def raw_detail(action: str, detail: Mapping[str, Any]) -> str:
    """The entry as stored, for an operator (shown collapsed): the action's code, then
    each field under its Chinese name, codes said in words (``草稿=3；按修改稿=是``)."""
    return action + "  " + "；".join(f"{RAW_KEY_ZH.get(k, k)}={_raw_value(k, v)}" for k, v in sorted(detail.items()))
