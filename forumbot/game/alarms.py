"""Alarms: every refusal the bot cannot fix itself, said in Chinese with who must do what.

The forum may refuse the bot for reasons only a person can cure — a captcha, the newbie
period, a ban, a closed thread, a post held for moderation, a wrong password — or be down
or closed for a while. Each becomes an *alarm* in the store (``forumbot.store.alarms``)
that stays on ``forumbot status`` and the desk's front page until it clears, so nothing
the director must act on hides in a log line.

The kinds (:class:`AlarmKind`), their keys and when they clear:

==================  =====================  ================================================
kind                key                    clears when
==================  =====================  ================================================
captcha_login       ``login``              a login works (``forumbot login``, a restart)
login_failed        ``login``              ditto
login_locked        ``login``              ditto
captcha_post        ``captcha_post``       a post goes through
newbie              ``newbie``             a post goes through
banned              ``banned``             a post goes through
no_permission       ``no_permission:TID``  a post in TID goes through, or its drafts are no
                                           longer failed (retried, rejected)
thread_closed       ``thread_closed:TID``  ditto
thread_missing      ``thread_missing:TID`` a pass reads TID, or no day of the config names
                                           it any more
too_short           ``too_short:DRAFT``    the draft is no longer failed
moderation          ``moderation:DRAFT``   the draft is no longer held (released, rejected)
site_closed         ``site_closed``        a pass reads the forum without the closed page
robot_page          ``robot_page``         a pass reads thread pages with floors
forum_down          ``forum_down``         a pass reaches the forum; the recovery is kept
                                           (``recoveries``) and shown as 恢复于 …
state_conflict      ``state_conflict``     the game's threads hold no post of another state
                                           of this game the director has not taken over
                                           (``forumbot adopt``; ``forumbot.game.provenance``)
foreign_game        ``foreign_game:TID``   TID holds no post of another game (the config
                                           was fixed)
==================  =====================  ================================================

``state_conflict`` stops the game posting and drafting, ``foreign_game`` posting in TID
(``Store.posting_block``): both are raised and cleared by ``forumbot.game.provenance``.

``forum_down`` is raised only after the forum has been unreachable for
``[agent].outage_alarm_minutes`` (a single failed pass is a blip, retried anyway).

Commands, config keys and environment variables in the texts are between backticks
(`` `forumbot retry 12` ``): the terminal shows them as they are, the desk as code, a
notification as typed.

The agent feeds an :class:`AlarmWatch` what it saw in a pass (forum errors, publish
outcomes, the client's login state) and calls :meth:`AlarmWatch.finish`, which raises and
clears. ``forumbot login`` clears the login alarm itself (:func:`clear_login`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING

from forumbot.discuz import errors
from forumbot.store.alarms import Alarm
from forumbot.wording import DRAFT_KIND_ZH, THREAD_ROLE_KEY, THREAD_ROLE_ZH, draft_place_zh

if TYPE_CHECKING:  # pragma: no cover
    from forumbot.store.outbox import Outbox, PublishOutcome
    from forumbot.store import Store

log = logging.getLogger("forumbot.alarms")

# How long a recovery (the forum back after an outage alarm) stays on status and the desk.
RECOVERY_SHOWN = timedelta(hours=12)



class AlarmKind(StrEnum):
    CAPTCHA_LOGIN = "captcha_login"
    LOGIN_FAILED = "login_failed"
    LOGIN_LOCKED = "login_locked"
    CAPTCHA_POST = "captcha_post"
    NEWBIE = "newbie"
    BANNED = "banned"
    NO_PERMISSION = "no_permission"
    THREAD_CLOSED = "thread_closed"
    THREAD_MISSING = "thread_missing"
    TOO_SHORT = "too_short"
    MODERATION = "moderation"
    SITE_CLOSED = "site_closed"
    ROBOT_PAGE = "robot_page"
    FORUM_DOWN = "forum_down"
    STATE_CONFLICT = "state_conflict"  # forumbot.game.provenance: another state of this game posted
    FOREIGN_GAME = "foreign_game"  # forumbot.game.provenance: another game posted in the thread


LOGIN_KEY = "login"
# Forum-wide trouble with posting: cleared by the next post that goes through.
_POSTING_KINDS = (AlarmKind.CAPTCHA_POST, AlarmKind.NEWBIE, AlarmKind.BANNED)


def short_time(at: datetime) -> str:
    return at.strftime("%m-%d %H:%M")


def forum_words(error: str | None) -> str:
    """A stored publish error (``CaptchaRequired: 抱歉，验证码填写错误``) as a director reads
    it: the forum's own words, without the exception's name."""
    if not error:
        return "原因不明"
    name, sep, rest = error.partition(": ")
    if sep and name.isidentifier() and rest:
        return rest
    return error


# ---------------------------------------------------------------- the texts


def _x3(generation: str | None) -> bool:
    return generation != "7.2"


def _where(generation: str | None, x3: str, d72: str) -> str:
    """An admin-panel path: X3.5's menus as they are; 7.2's by the page's name."""
    return x3 if _x3(generation) else d72


# Where an administrator turns the captcha off, read from each generation's admin panel
# (X3.5 source/admincp/admincp_menu.php, admincp_setting.php, admincp_usergroups.php; 7.2
# admin/menu.inc.php, settings.inc.php): X3.5 also has a per-group switch, 7.2 only a
# threshold of posts past which a member is not asked.
_CAPTCHA_FIX = {
    ("x3", "login"): "后台 安全 → 验证设置 → 验证码设置，「登录时启用验证码」选「不启用」",
    ("x3", "post"): ("后台 安全 → 验证设置 → 验证码设置，「发表信息时启用验证码」选「不启用」；"
                     "或只为机器人账号的用户组关闭：用户 → 用户组 → 编辑 → 基本设置，"
                     "「启用验证码或验证问答机制」选「否」"),
    ("7.2", "login"): ("后台 全局 → 安全验证 → 验证码设置，「启用验证码」里取消勾选「用户登录」"
                       "（或「登录失败时显示验证码」选「是」：只在输错 3 次后才要）"),
    ("7.2", "post"): ("后台 全局 → 安全验证 → 验证码设置，「启用验证码」里取消勾选「发表主题与回复」；"
                      "或把「验证码发帖限制」设得比机器人账号的发帖数小（7.2 没有按用户组关闭验证码的开关）"),
}


def captcha_fix(generation: str | None, action: str) -> str:
    """Where the forum's captcha on ``action`` ("login" or "post") is turned off, in the
    admin panel of the forum's generation (None: X3, until the forum has been seen)."""
    return _CAPTCHA_FIX[("x3" if _x3(generation) else "7.2", action)]


def login_text(refusal: errors.ForumRefused, *, username: str, config: str,
               generation: str | None) -> tuple[AlarmKind, str]:
    """The alarm for a refused login (the client blocks further tries until the operator acts)."""
    fix = f"改好后运行 `forumbot login --config {config}`（机器人在此之前不再尝试登录，运行中的也会接着用新的登录）"
    if isinstance(refusal, errors.CaptchaRequired):
        return AlarmKind.CAPTCHA_LOGIN, (
            f"论坛登录要求验证码：机器人不能填写验证码，无法登录（现在只以游客身份读帖，不能发帖）。"
            f"请论坛管理员关闭登录验证码（{captcha_fix(generation, 'login')}）；{fix}")
    if isinstance(refusal, errors.LoginLockedOut):
        return AlarmKind.LOGIN_LOCKED, (
            f"论坛因密码错误次数过多暂时锁定了本机的登录（{refusal.message}）：15 分钟内本机所有账号"
            f"（玩家也一样）都登不上。请核对机器人账号“{username}”的密码（`FORUMBOT_PASSWORD` 或 "
            f"`[bot].password_file`），等锁定解除后{fix.removeprefix('改好后')}")
    what = refusal.message or type(refusal).__name__
    if isinstance(refusal, (errors.SecurityQuestionRequired, errors.SecurityQuestionWrong)):
        hint = "请核对 `[bot].question_id` 和安全提问的答案（`[bot].answer_env` 指定的环境变量）"
    elif isinstance(refusal, errors.AccountNotActivated):
        hint = "请论坛管理员激活机器人账号"
    else:
        hint = "请核对密码（`FORUMBOT_PASSWORD` 或 `[bot].password_file`）"
    return AlarmKind.LOGIN_FAILED, (
        f"机器人账号“{username}”登录失败：{what}。{hint}；{fix}。论坛 15 分钟内只容许输错 5 次，"
        "超过会锁住本机所有账号，所以机器人不会自己再试")


def posting_text(refusal: errors.ForumRefused, *, draft_id: int, tid: int, kind: str,
                 generation: str | None, place: str | None = None) -> tuple[AlarmKind, str, str] | None:
    """(kind, key, text) for a refused post the bot cannot cure, or None (an ordinary
    failed post: the director sees it among the failed drafts). ``place``: where it posts
    when not a reply in ``tid`` (a new thread: ``wording.draft_place_zh``)."""
    what = f"帖子 #{draft_id}（{DRAFT_KIND_ZH.get(kind, kind)}，{place or f'主题 {tid}'}）"
    forum = refusal.message or type(refusal).__name__
    resend = f"改好后 `forumbot retry {draft_id}` 重发它（之后的计票会自动发出）"
    if isinstance(refusal, errors.CaptchaRequired):
        return AlarmKind.CAPTCHA_POST, AlarmKind.CAPTCHA_POST.value, (
            f"论坛要求验证码：机器人不能填写验证码，{what}没有发出。请论坛管理员为机器人账号关闭发帖验证码"
            f"（{captcha_fix(generation, 'post')}）；{resend}")
    if isinstance(refusal, errors.NewbiePeriod):
        where = _where(generation, "全局 → 注册与访问控制 → 新手见习期限", "后台「注册与访问控制」的新手见习期限")
        return AlarmKind.NEWBIE, AlarmKind.NEWBIE.value, (
            f"机器人账号还在论坛的新手见习期内，不能发帖（论坛说：{forum}），{what}没有发出。"
            f"请论坛管理员缩短见习期限（{where}）或把机器人账号移出见习用户组，或等见习期过后重发；{resend}")
    if isinstance(refusal, errors.UserBanned):
        return AlarmKind.BANNED, AlarmKind.BANNED.value, (
            f"机器人账号被论坛禁止发言（论坛说：{forum}），{what}没有发出。请论坛管理员解除机器人账号的禁言"
            f"（把它移回普通会员用户组）；{resend}")
    if isinstance(refusal, errors.ThreadClosed):
        return AlarmKind.THREAD_CLOSED, f"thread_closed:{tid}", (
            f"主题 {tid} 已被关闭，机器人不能在里面回复，{what}没有发出。请版主打开该主题（主题管理 → 打开），"
            f"然后 `forumbot retry {draft_id}`；或者 `forumbot reject {draft_id} --why …` 放弃它")
    if isinstance(refusal, errors.MessageTooShort):
        size = f"（{refusal.min_size} 字节）" if refusal.min_size else ""
        where = _where(generation, "全局 → 用户权限 → 帖子最小字数", "后台的帖子最小字数设置")
        return AlarmKind.TOO_SHORT, f"too_short:{draft_id}", (
            f"论坛拒绝了{what}：少于论坛的帖子最小字数{size}。请论坛管理员调低帖子最小字数（{where}），"
            f"或把这篇帖子写长一些后重发（`forumbot edit {draft_id}`）")
    if isinstance(refusal, errors.NoPermission) and kind == "new_thread":
        return AlarmKind.NO_PERMISSION, f"no_permission:new_thread:{draft_id}", (
            f"机器人账号没有在这个版块发新帖的权限（论坛说：{forum}），{what}没有发出。"
            f"请论坛管理员查看机器人账号所在的用户组和该版块的发帖权限；{resend}")
    if isinstance(refusal, errors.NoPermission):
        return AlarmKind.NO_PERMISSION, f"no_permission:{tid}", (
            f"机器人账号没有在主题 {tid} 回复的权限（论坛说：{forum}），{what}没有发出。"
            f"请论坛管理员查看机器人账号所在的用户组（是否被禁言）和该版块的回复权限；{resend}")
    return None


def moderation_text(*, draft_id: int, tid: int, kind: str, generation: str | None,
                    place: str | None = None) -> str:
    where = _where(generation, "论坛 → 版块管理 → 编辑版块 → 帖子选项 → 发帖审核", "后台版块设置里的发帖审核")
    paused = "；在它通过之前，这个主题的计票暂停更新" if kind == "running_count" else ""
    return (f"帖子 #{draft_id}（{DRAFT_KIND_ZH.get(kind, kind)}，{place or f'主题 {tid}'}）被论坛扣下等待审核，玩家还看不到它"
            f"{paused}。请版主审核通过它（机器人不会重发，通过后自动确认）；若不想每帖都审核，请论坛管理员"
            f"关闭该版块的发帖审核（{where}）或让机器人账号所在的用户组免审核。"
            f"不再等它：`forumbot reject {draft_id} --why …`")


def thread_missing_text(tid: int, roles: list[tuple[int, str]], refusal: errors.ForumRefused) -> str:
    """A configured game thread the forum says does not exist: nothing in it is read, so
    every vote of its day is missing from the count (everyone a non-voter)."""
    where = "、".join(f"第{day}日{THREAD_ROLE_ZH.get(role, role)}" for day, role in roles) or "配置里的帖子"
    keys = "、".join(dict.fromkeys(f"`{THREAD_ROLE_KEY.get(role, role)}`" for _, role in roles)) or "`vote_thread`"
    lost = ("这一日的投票一张也读不到，计票里人人都是未投票" if any(role == "vote" for _, role in roles)
            else "里面的发言一条也读不到（发言数、潜水判罚都会出错）")
    return (f"{where}（主题 {tid}）在论坛上不存在（论坛说：{refusal.message or '主题不存在'}）：{lost}。"
            f"请核对配置 `[[days]]` 里的 {keys}（帖子地址里 tid= 后面的数字），或请版主恢复、审核通过这个主题；"
            "改好后机器人下一轮自动读取")


def site_closed_text(refusal: errors.ForumRefused, generation: str | None) -> str:
    where = _where(generation, "全局 → 站点信息 → 关闭站点", "后台的站点开关")
    return (f"论坛已关闭（论坛说：{refusal.message}）：机器人照常等待，论坛重新开放后自动继续。"
            f"若不是有意关闭，请论坛管理员重新打开站点（{where}）")


def robot_page_text(error: errors.ForumError) -> str:
    return ("论坛把机器人当成了搜索引擎，发给它的页面没有楼层，无法计票。请把配置里的 `[bot].user_agent` "
            "改成普通电脑浏览器的（或删掉这一项用默认值），然后重启机器人（`forumbot run`）")


def outage_text(since: datetime, cause: str) -> str:
    return (f"论坛无法访问（自 {short_time(since)} 起）：{cause}。机器人会自动重试，论坛恢复后自动继续；"
            "若一直如此，请检查论坛服务器和网络")


def recovery_text(alarm: Alarm) -> str:
    """「论坛曾无法访问 … 恢复于 …」 for a cleared ``forum_down`` alarm."""
    since = alarm.detail.get("down_since")
    start = datetime.fromisoformat(since) if isinstance(since, str) else alarm.raised_at
    back = alarm.cleared_at or alarm.raised_at
    minutes = max(1, round((back - start).total_seconds() / 60))
    return f"论坛曾无法访问（{short_time(start)} 起，约 {minutes} 分钟），恢复于 {short_time(back)}"


def recoveries(store: Store, now: datetime) -> list[Alarm]:
    """Outages cleared in the last ``RECOVERY_SHOWN`` (newest last)."""
    return store.alarms(active=False, kind=AlarmKind.FORUM_DOWN.value, cleared_since=now - RECOVERY_SHOWN)


def _cause(exc: errors.ForumError) -> str:
    if isinstance(exc, errors.ForumUnavailable):
        return {
            errors.UnavailableReason.CONNECT: "连接不上",
            errors.UnavailableReason.TIMEOUT: "响应超时",
            errors.UnavailableReason.DROPPED: "连接中断",
            errors.UnavailableReason.SERVER_ERROR: "服务器出错",
            errors.UnavailableReason.TRUNCATED: "页面不完整",
            errors.UnavailableReason.CC_PROTECTION: "论坛的防刷新保护",
        }.get(exc.reason, "无法访问") + f"（{exc.cause_name}）"
    return exc.message


def clear_login(store: Store, now: datetime, *, actor: str = "bot") -> Alarm | None:
    """The bot is logged in: the login alarm (captcha, wrong password, lock-out) clears."""
    return store.clear_alarm(LOGIN_KEY, at=now, actor=actor)


def raise_login(store: Store, refusal: errors.ForumRefused, now: datetime, *, username: str, config: str,
                generation: str | None) -> Alarm:
    kind, text = login_text(refusal, username=username, config=config, generation=generation)
    return store.raise_alarm(kind.value, LOGIN_KEY, text, at=now,
                             detail={"forum": refusal.message, "refusal": type(refusal).__name__})


# ---------------------------------------------------------------- what a pass saw


@dataclass
class AlarmWatch:
    """Collects what one pass of the agent saw and turns it into alarms (``finish``)."""

    store: Store
    outbox: Outbox
    username: str
    config: str  # the config path, for the commands the texts name
    outage_after: timedelta = timedelta(minutes=10)
    generation: str | None = None
    errors: list[errors.ForumError] = field(default_factory=list)
    outcomes: list[PublishOutcome] = field(default_factory=list)
    # tid → (its days and roles, the refusal) for configured threads the forum says do
    # not exist; the tids read this pass; every tid the config names.
    missing: dict[int, tuple[list[tuple[int, str]], errors.ForumRefused]] = field(default_factory=dict)
    read: set[int] = field(default_factory=set)
    configured: set[int] | None = None

    def begin(self) -> None:
        self.errors.clear()
        self.outcomes.clear()
        self.missing.clear()
        self.read.clear()

    def thread_missing(self, tid: int, roles: list[tuple[int, str]], refusal: errors.ForumRefused) -> None:
        self.missing[tid] = (roles, refusal)

    def thread_read(self, tid: int) -> None:
        self.read.add(tid)

    def saw(self, exc: BaseException) -> None:
        if isinstance(exc, errors.ForumError):
            self.errors.append(exc)

    def published(self, outcomes: list[PublishOutcome]) -> None:
        self.outcomes.extend(outcomes)

    def finish(self, now: datetime, *, reached: bool, login_blocked: errors.ForumRefused | None,
               logged_in: bool, began: datetime | None = None) -> None:
        """Raise what this pass saw, clear what it showed to be over. ``now`` is the end of
        the pass, ``began`` its start (a pass against a dead forum lasts minutes: every
        request is retried with backoff)."""
        self._login(now, login_blocked, logged_in)
        self._posting(now)
        self._forum(now, reached)
        self._outage(now, reached, began or now)
        self._threads(now)
        self._draft_bound(now)

    # -- each family

    def _login(self, now: datetime, blocked: errors.ForumRefused | None, logged_in: bool) -> None:
        if blocked is not None:
            raise_login(self.store, blocked, now, username=self.username, config=self.config,
                        generation=self.generation)
        elif logged_in and clear_login(self.store, now) is not None:
            log.info("警报解除：机器人已登录")

    def _posting(self, now: datetime) -> None:
        from forumbot.store.outbox import DraftState, PublishHow

        sent_tids: set[int] = set()
        for outcome in self.outcomes:
            draft = self.outbox.get(outcome.draft_id)
            place = draft_place_zh(draft) if draft.kind.value == "new_thread" else None
            if outcome.how in (PublishHow.SENT, PublishHow.FOUND):
                if draft.tid > 0:
                    sent_tids.add(draft.tid)
                if outcome.state is DraftState.PENDING_MODERATION:
                    self.store.raise_alarm(
                        AlarmKind.MODERATION.value, f"moderation:{draft.id}",
                        moderation_text(draft_id=draft.id, tid=draft.tid, kind=draft.kind.value,
                                        generation=self.generation, place=place),
                        at=now, detail={"draft": draft.id, "tid": draft.tid, "pid": draft.pid})
            elif outcome.refusal is not None:
                found = posting_text(outcome.refusal, draft_id=draft.id, tid=draft.tid, kind=draft.kind.value,
                                     generation=self.generation, place=place)
                if found is not None:
                    kind, key, text = found
                    self.store.raise_alarm(kind.value, key, text, at=now,
                                           detail={"draft": draft.id, "tid": draft.tid,
                                                   "forum": outcome.refusal.message})
                    log.warning("警报 %s：%s", key, outcome.refusal.message)
        if not sent_tids:
            return
        for kind in _POSTING_KINDS:
            self.store.clear_alarm(kind.value, at=now)
        for tid in sent_tids:
            for prefix in (AlarmKind.THREAD_CLOSED, AlarmKind.NO_PERMISSION):
                self.store.clear_alarm(f"{prefix.value}:{tid}", at=now)

    def _forum(self, now: datetime, reached: bool) -> None:
        closed = next((e for e in self._all_errors() if isinstance(e, errors.SiteClosed)), None)
        robot = next((e for e in self.errors if isinstance(e, errors.RobotPage)), None)
        if closed is not None:
            self.store.raise_alarm(AlarmKind.SITE_CLOSED.value, AlarmKind.SITE_CLOSED.value,
                                   site_closed_text(closed, self.generation), at=now,
                                   detail={"forum": closed.message})
        elif reached:
            self.store.clear_alarm(AlarmKind.SITE_CLOSED.value, at=now)
        if robot is not None:
            self.store.raise_alarm(AlarmKind.ROBOT_PAGE.value, AlarmKind.ROBOT_PAGE.value,
                                   robot_page_text(robot), at=now, detail={"error": robot.message})
        elif reached and not any(isinstance(e, errors.ForumRefused) for e in self.errors):
            self.store.clear_alarm(AlarmKind.ROBOT_PAGE.value, at=now)

    def _outage(self, now: datetime, reached: bool, began: datetime) -> None:
        down = [e for e in self.errors if isinstance(e, errors.ForumUnavailable)]
        key = AlarmKind.FORUM_DOWN.value
        since_text = self.store.get_meta("forum_down_since") or ""
        if down and not reached:
            since = datetime.fromisoformat(since_text) if since_text else began
            if not since_text:
                self.store.set_meta("forum_down_since", began.isoformat())
            if now - since >= self.outage_after:
                if self.store.alarm(key) is None:
                    log.warning("警报：论坛自 %s 起无法访问", since.isoformat())
                self.store.raise_alarm(key, key, outage_text(since, _cause(down[-1])), at=now,
                                       detail={"down_since": since.isoformat()})
            return
        if not reached:
            return  # nothing asked of the forum this pass: nothing learnt
        if since_text:
            self.store.set_meta("forum_down_since", "")
        cleared = self.store.clear_alarm(key, at=now, detail={"back_at": now.isoformat()})
        if cleared is not None:
            log.info("警报解除：%s", recovery_text(cleared))

    def _threads(self, now: datetime) -> None:
        for tid, (roles, refusal) in self.missing.items():
            key = f"{AlarmKind.THREAD_MISSING.value}:{tid}"
            if self.store.alarm(key) is None:
                log.warning("警报 %s：论坛说主题 %d 不存在", key, tid)
            self.store.raise_alarm(AlarmKind.THREAD_MISSING.value, key, thread_missing_text(tid, roles, refusal),
                                   at=now, detail={"tid": tid, "forum": refusal.message})
        for alarm in self.store.alarms(kind=AlarmKind.THREAD_MISSING.value):
            tid = alarm.detail.get("tid")
            if tid in self.read or (self.configured is not None and tid not in self.configured):
                self.store.clear_alarm(alarm.key, at=now)

    def _draft_bound(self, now: datetime) -> None:
        """Alarms about one draft (or a thread's failed drafts) end with the draft's trouble:
        retried and sent, rejected, superseded, released."""
        from forumbot.store.outbox import DraftState, UnknownDraftError

        for alarm in self.store.alarms():
            if alarm.kind not in (AlarmKind.MODERATION, AlarmKind.TOO_SHORT, AlarmKind.THREAD_CLOSED,
                                  AlarmKind.NO_PERMISSION):
                continue
            draft_id = alarm.detail.get("draft")
            if not isinstance(draft_id, int):
                continue
            try:
                state = self.outbox.get(draft_id).state
            except UnknownDraftError:
                state = None
            waiting = DraftState.PENDING_MODERATION if alarm.kind == AlarmKind.MODERATION else DraftState.FAILED
            if state is not waiting:
                self.store.clear_alarm(alarm.key, at=now)

    def _all_errors(self) -> list[errors.ForumError]:
        return self.errors + [o.refusal for o in self.outcomes if o.refusal is not None]


__all__ = [
    "AlarmKind", "AlarmWatch", "DRAFT_KIND_ZH", "LOGIN_KEY", "captcha_fix", "RECOVERY_SHOWN", "clear_login", "forum_words",
    "login_text", "thread_missing_text",
    "moderation_text", "outage_text", "posting_text", "raise_login", "recoveries", "recovery_text",
    "short_time",
]
