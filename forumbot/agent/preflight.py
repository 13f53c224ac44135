"""``forumbot check``: before a game, does the forum let the bot do its work?

Logs in (one attempt, with the current password) and reads every configured thread and
one reply form per board, posting nothing, and says for each prerequisite whether it
holds — in Chinese, with what to do when it does not:

* the forum answers, is a Discuz! of a known generation (and the one the config names),
  in which charset, and is open;
* the bot can log in (no captcha on the login form, the password right);
* the forum serves it ordinary pages (not the spider pages Discuz gives robots);
* every thread of the config exists, is readable as the bot, and sits in one board; the
  threads the bot still has to post in are open;
* where the forum says so before a post: the bot may reply (the reply form opens, shows no
  captcha); its user group; the forum's minimum post size;
* whether the bot's account moderates the game's board (版主权限): it then closes the
  voting thread at the deadline; a warning, not a failure, when it does not;
* the mobile API is on or off; post times are to the second, or only to the minute (then
  the director's closing post, ``[[days]].deadline_pid``, settles the deadline's minute).

What the forum only says when a post is sent — the newbie period on some versions, replies
held for moderation, flood control — is listed as a warning with what to check by hand; the
running agent raises an alarm for each if it happens (``forumbot.game.alarms``). ``ok`` is True
only when everything needed passed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from forumbot.discuz import errors
from forumbot.game.alarms import captcha_fix
from forumbot.discuz import DiscuzClient, Generation, detect_generation
from forumbot.game.runtime import Runtime
from forumbot.config.secrets import SecretError
from forumbot.wording import THREAD_ROLE_ZH
from parsers.models import ThreadPage, TimePrecision

__all__ = ["Check", "Outcome", "Preflight", "password_problem", "preflight"]

_MINCHARS = re.compile(r"postminchars\s*=\s*parseInt\('(\d+)'\)")
_GROUP = re.compile(r"用户组:\s*([^<\s][^<]*?)\s*<")
# The shortest post the bot can send: one character and the marker line (forumbot.store.marker).
SHORTEST_BOT_POST = 60


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    WARN = "warn"  # cannot be told before posting, or not needed: check it by hand
    INFO = "info"


OUTCOME_ZH = {Outcome.PASS: "通过", Outcome.FAIL: "不通过", Outcome.WARN: "请留意", Outcome.INFO: "说明"}


@dataclass(frozen=True)
class Check:
    name: str  # what is checked (Chinese)
    outcome: Outcome
    detail: str  # what was found, and what to do when it fails (Chinese)


@dataclass
class Preflight:
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(c.outcome is Outcome.FAIL for c in self.checks)

    def add(self, name: str, outcome: Outcome, detail: str) -> None:
        self.checks.append(Check(name, outcome, detail))


def _roles(rt: Runtime) -> dict[int, list[tuple[int, str]]]:
    """tid → [(day, role)] for every configured thread."""
    found: dict[int, list[tuple[int, str]]] = {}
    for day in rt.config.days:
        for tid, role in day.threads().items():
            found.setdefault(tid, []).append((day.number, role))
    return found


def password_problem(exc: SecretError, rt: Runtime) -> str:
    """Why the password could not be read, with what to do (``forumbot.config.secrets`` names the
    file; this says it for the check's list)."""
    text = str(exc)
    where = rt.settings.bot.password_file
    if "别人也能读" in text:
        return f"密码文件 {where} 别人也能读：请运行 chmod 600 {where}"
    if "不存在" in text:
        return f"密码文件 {where} 不存在：请创建它（只写密码一行，chmod 600）"
    if "是空的" in text:
        return f"密码文件 {where} 是空的：请把机器人账号的密码写进去"
    return "没有机器人的密码：请设置环境变量 FORUMBOT_PASSWORD，或在配置里写 [bot].password_file（一个只有你能读的文件）"


ROLE_ZH = THREAD_ROLE_ZH


def preflight(rt: Runtime, client: DiscuzClient, now: datetime) -> Preflight:
    """Every check, in order; stops early only when the forum cannot be reached at all."""
    result = Preflight()
    if not _forum(rt, client, result):
        return result
    logged_in = _login(rt, client, result)
    if logged_in:
        _board(rt, client, result)
    pages = _threads(rt, client, result, now, logged_in)
    if logged_in and pages:
        _posting(rt, client, result, pages, now)
    if logged_in:
        _moderation(rt, client, result, pages)
    _times(rt, client, result, pages)
    return result


def _game_board(rt: Runtime, client: DiscuzClient, pages: dict[int, ThreadPage]) -> int | None:
    """The game's board: ``[forum].fid`` when the config names it, else the one board every
    configured thread sits in (None when they sit in several, or none was read)."""
    configured = getattr(rt.config.forum, "fid", None)
    if isinstance(configured, int) and configured > 0:
        return configured
    fids = {fid for tid in pages if (fid := client.fid_for(tid)) is not None}
    return fids.pop() if len(fids) == 1 else None


def _moderation(rt: Runtime, client: DiscuzClient, result: Preflight,
                pages: dict[int, ThreadPage]) -> None:
    """Whether the bot's account moderates the game's board, so it can close (lock) the
    voting thread at the deadline. Asked without naming a thread: nothing changes. Not
    needed for a game (late votes are void either way): a warning when it cannot."""
    name = "版主权限"
    if getattr(rt.config, "calendar", None) is not None and getattr(rt.config.forum, "fid", None):
        # A game whose days the bot opens in [forum].fid: the calendar's own check says
        # whether it closes the voting threads (截止时关闭投票帖); not said twice.
        return
    fid = _game_board(rt, client, pages)
    if fid is None:
        result.add(name, Outcome.INFO, "不知道游戏在哪个版块（配置没有 [forum].fid，主题也不在同一个版块）：没有检查能否锁帖")
        return
    try:
        moderates = client.may_moderate(fid)
    except errors.ForumUnavailable as exc:
        result.add(name, Outcome.WARN, f"查看版块 fid {fid} 的管理权限时论坛无法访问（{exc.cause_name}）：没能确认能否锁帖")
        return
    except errors.ForumRefused as exc:
        result.add(name, Outcome.WARN, f"查看版块 fid {fid} 的管理权限时论坛拒绝了（{exc.message}）：没能确认能否锁帖")
        return
    close = "关闭" if client.generation is Generation.X3 else "关闭主题"
    if moderates:
        result.add(name, Outcome.PASS, f"机器人账号是版块 fid {fid} 的版主：截止时会锁上投票帖（主题管理 → {close}），"
                                       "导演要求时再打开")
        return
    where = ("后台 → 论坛 → 版块管理 → 编辑 → 版主" if client.generation is Generation.X3
             else "系统设置 → 论坛版块 → 编辑版块 → 版主")
    result.add(name, Outcome.WARN, f"机器人账号不是版块 fid {fid} 的版主：截止时不能锁上投票帖（截止后的投票仍按规则"
                                   f"作废）。要让机器人锁帖，请论坛管理员把它设为这个版块的版主（{where}）")


def _targets(rt: Runtime, now: datetime) -> dict[int, str]:
    """The threads the bot will still post in (voting and progress threads of days not
    over yet), with their names as the checks show them."""
    roles = _roles(rt)
    deadlines = {d.number: d.deadline for d in rt.config.days}
    return {tid: _thread_name(tid, roles[tid]) for tid in sorted(roles)
            if any(role in ("vote", "progress") and deadlines[day] > now for day, role in roles[tid])}


def _thread_name(tid: int, roles: list[tuple[int, str]]) -> str:
    return f"主题 {tid}（{'、'.join(f'第{day}日{ROLE_ZH.get(role, role)}' for day, role in roles)}）"


# ---------------------------------------------------------------- the forum itself


def _forum(rt: Runtime, client: DiscuzClient, result: Preflight) -> bool:
    base = client.base_url
    try:
        response, reply = client.transport.call("GET", "", follow=True)
    except errors.ForumUnavailable as exc:
        result.add("论坛可访问", Outcome.FAIL, f"{base} 无法访问（{exc.cause_name}）：请检查 [forum].base_url、"
                                              "论坛服务器和网络")
        return False
    text = client.transport.text_of(response)
    found = detect_generation(text)
    if found is None:
        result.add("论坛可访问", Outcome.FAIL, f"{base} 能打开，但不像 Discuz! 论坛的首页：请检查 [forum].base_url "
                                              "是否指向论坛的根目录（forum.php 或 index.php 所在的地方）")
        return False
    result.add("论坛可访问", Outcome.PASS, base)
    configured = rt.config.forum.discuz
    name = "Discuz! X2.5–X3.5" if found is Generation.X3 else "Discuz! 7.2"
    if configured not in ("auto", found.value):
        result.add("Discuz! 版本", Outcome.FAIL, f"论坛是 {name}，但配置写的是 [forum].discuz = \"{configured}\"："
                                                f"请改成 \"{found.value}\" 或 \"auto\"")
        return False
    result.add("Discuz! 版本", Outcome.PASS, name)
    client.dialect()  # the dialect the config names, or the one detected
    result.add("字符集", Outcome.INFO, client.charset.upper())
    if reply.kind.value == "refused" and reply.key == "board_closed":
        result.add("论坛开放", Outcome.FAIL, f"论坛已关闭（{reply.message}）：请论坛管理员重新打开站点")
    else:
        result.add("论坛开放", Outcome.PASS, "站点开放")
    return True


def _login(rt: Runtime, client: DiscuzClient, result: Preflight) -> bool:
    name = "机器人登录"
    username = rt.settings.bot.username
    client.http.cookies.clear()  # one real login with the current password, not a saved session
    try:
        uid = client.login()
    except errors.CaptchaRequired:
        result.add(name, Outcome.FAIL, "论坛的登录表单要求验证码，机器人无法登录：请论坛管理员关闭登录验证码"
                                       f"（{captcha_fix(_generation(client), 'login')}）")
        return False
    except errors.ForumRefused as exc:
        from forumbot.game.alarms import login_text

        _, text = login_text(exc, username=username, config=str(rt.config.path),
                             generation=client.generation.value if client.generation else None)
        result.add(name, Outcome.FAIL, text)
        return False
    except errors.ForumUnavailable as exc:
        result.add(name, Outcome.FAIL, f"登录时论坛无法访问（{exc.cause_name}）")
        return False
    except SecretError as exc:
        result.add(name, Outcome.FAIL, password_problem(exc, rt))
        return False
    result.add(name, Outcome.PASS, f"以“{username}”登录成功（uid {uid}），登录表单没有验证码")
    return True


def _board(rt: Runtime, client: DiscuzClient, result: Preflight) -> None:
    """A game whose days the bot opens ([calendar], SPEC §11): the board is named, and
    whether the account moderates it (it then closes each voting thread at the deadline)."""
    config = rt.config
    if config.calendar is None:
        return
    fid = config.forum.fid
    if fid is None:
        if any(d.vote_thread is None for d in config.days):
            result.add("游戏版块", Outcome.FAIL, "机器人要开每一日的投票帖，但配置里没有 [forum].fid：请写上游戏版块的编号"
                                              "（版块地址里 fid= 后的数字）")
        return
    try:
        moderates = client.may_moderate(fid)
    except errors.ForumRefused as exc:
        result.add("游戏版块", Outcome.FAIL, f"版块 fid {fid}：{exc.message}")
        return
    except errors.ForumUnavailable as exc:
        result.add("游戏版块", Outcome.FAIL, f"查看版块 fid {fid} 时论坛无法访问（{exc.cause_name}）")
        return
    result.add("游戏版块", Outcome.INFO, f"机器人在版块 fid {fid} 开每一日的帖子（发新帖的权限要到第一次开帖时才知道）")
    if not config.duties.lock_threads:
        result.add("截止时关闭投票帖", Outcome.INFO, "配置 [calendar].lock_threads = false：不关闭")
    elif moderates:
        result.add("截止时关闭投票帖", Outcome.PASS, f"机器人是版块 fid {fid} 的版主：截止时关闭投票帖")
    else:
        result.add("截止时关闭投票帖", Outcome.WARN, f"机器人不是版块 fid {fid} 的版主：截止时不会关闭投票帖"
                                                    "（截止后的帖子照样算迟到）；要关闭，请论坛管理员设它为版主")


# ---------------------------------------------------------------- the threads


def _threads(rt: Runtime, client: DiscuzClient, result: Preflight, now: datetime,
             logged_in: bool) -> dict[int, ThreadPage]:
    pages: dict[int, ThreadPage] = {}
    robot_said = False
    roles = _roles(rt)
    targets = _targets(rt, now)
    for tid in sorted(roles):
        name = _thread_name(tid, roles[tid])
        try:
            page = client.fetch_page(tid, 1)
        except errors.RobotPage:
            if not robot_said:
                result.add("普通页面（不是搜索引擎页面）", Outcome.FAIL,
                           "论坛发来的是给搜索引擎的页面（没有楼层）：请把 [bot].user_agent 改成普通电脑浏览器的，"
                           "或删掉这一项用默认值")
                robot_said = True
            continue
        except errors.ThreadNotFound:
            result.add(name, Outcome.FAIL, f"论坛说主题 {tid} 不存在：请核对配置 [[days]] 里的主题号（帖子地址里 tid= 后的数字）")
            continue
        except errors.ForumRefused as exc:
            result.add(name, Outcome.FAIL, f"论坛不让机器人读它：{exc.message}")
            continue
        except errors.ForumUnavailable as exc:
            result.add(name, Outcome.FAIL, f"读取时论坛无法访问（{exc.cause_name}）")
            continue
        pages[tid] = page
        fid = client.fid_for(tid)
        subject = f"「{page.subject}」" if page.subject else ""
        if logged_in and page.viewer_uid == 0:
            result.add(name, Outcome.FAIL, f"{subject}读帖时论坛把机器人当作游客：登录没有生效（cookie 被拒？）")
            continue
        if page.closed and tid not in targets:
            result.add(name, Outcome.WARN, f"{subject}已被关闭（机器人不再在里面发帖，只读）")
        else:  # a thread the bot posts in: its reply form says whether it is open (_posting)
            result.add(name, Outcome.PASS, f"{subject}存在，可读，版块 fid {fid or '?'}，共 {page.total_pages} 页")
    if pages and not robot_said:
        result.add("普通页面（不是搜索引擎页面）", Outcome.PASS, "帖子带楼层号（User-Agent 没被当成搜索引擎）")
    fids = {client.fid_for(tid) for tid in pages} - {None}
    if len(fids) > 1:
        result.add("同一版块", Outcome.WARN, f"主题分在不同的版块（fid {'、'.join(str(f) for f in sorted(fids))}）："
                                             "请确认机器人在每个版块都能回复、不被审核")
    elif fids:
        result.add("同一版块", Outcome.PASS, f"全部在版块 fid {fids.pop()}")
    return pages


# ---------------------------------------------------------------- posting


def _posting(rt: Runtime, client: DiscuzClient, result: Preflight, pages: dict[int, ThreadPage],
             now: datetime) -> None:
    """The reply form of every thread the bot still posts in: open (not closed), allowed
    (not the newbie period, not banned), without a captcha. Read, never posted."""
    targets = {tid: name for tid, name in _targets(rt, now).items() if tid in pages} or {
        min(pages): f"主题 {min(pages)}"}
    form = None
    for tid, name in targets.items():
        try:
            found = client.reply_form(tid)
        except errors.ThreadClosed:
            result.add(f"{name}可回复", Outcome.FAIL,
                       "主题已被关闭，机器人要在里面发帖：请版主打开它（主题管理 → 打开）")
            continue
        except errors.ForumRefused as exc:
            _refused_form(result, exc, _generation(client))
            return
        except errors.ForumUnavailable as exc:
            result.add("发帖权限", Outcome.FAIL, f"读取回复表单时论坛无法访问（{exc.cause_name}）")
            return
        result.add(f"{name}可回复", Outcome.PASS, "回复表单能打开")
        form = form or found
    if form is None:
        return
    _form_checks(client, result, form)


def _generation(client: DiscuzClient) -> str | None:
    return client.generation.value if client.generation else None


def _post_captcha(generation: str | None) -> str:
    return ("回复表单要求验证码，机器人发不了帖：请论坛管理员为机器人账号关闭发帖验证码"
            f"（{captcha_fix(generation, 'post')}）")


def _refused_form(result: Preflight, exc: errors.ForumRefused, generation: str | None) -> None:
    if isinstance(exc, errors.NewbiePeriod):
        result.add("发帖权限", Outcome.FAIL, f"机器人账号还在新手见习期（论坛说：{exc.message}）：请论坛管理员缩短"
                                            "新手见习期限，或把机器人账号移出见习用户组")
    elif isinstance(exc, errors.UserBanned):
        result.add("发帖权限", Outcome.FAIL, f"机器人账号被禁止发言（论坛说：{exc.message}）")
    elif isinstance(exc, errors.CaptchaRequired):
        result.add("发帖验证码", Outcome.FAIL, _post_captcha(generation))
    else:
        result.add("发帖权限", Outcome.FAIL, f"回复表单打不开（论坛说：{exc.message}）：请论坛管理员给机器人账号"
                                            "所在的用户组开放回复权限（是否被禁言？）")


def _form_checks(client: DiscuzClient, result: Preflight, form) -> None:
    result.add("发帖权限", Outcome.PASS, "回复表单能打开（没有见习期、禁言或权限的拒绝）")
    if client.asks_captcha(form):
        result.add("发帖验证码", Outcome.FAIL, _post_captcha(_generation(client)))
    else:
        result.add("发帖验证码", Outcome.PASS, "回复表单没有验证码")
    text = form.text
    if (m := _GROUP.search(text)) is not None:
        result.add("用户组", Outcome.INFO, f"机器人账号在用户组「{m.group(1)}」：上面各项按这个用户组的权限检查")
    if (m := _MINCHARS.search(text)) is not None:
        size = int(m.group(1))
        if size > SHORTEST_BOT_POST:
            result.add("帖子最小字数", Outcome.WARN,
                       f"论坛要求每帖至少 {size} 字节：机器人的计票和公示都更长，但导演改得很短的帖子可能被拒"
                       "（被拒会有警报）。玩家要计票也得多写几个字")
        else:
            result.add("帖子最小字数", Outcome.PASS,
                       f"{size} 字节：机器人的帖子都更长。玩家只回「计票」两个字会被论坛拒绝，"
                       "请让他们写「计票一下，谢谢」之类（含“计票”即可）")
    result.add("见习期、发帖审核、灌水预防", Outcome.WARN,
               "论坛要到发帖时才说：请确认机器人账号已过新手见习期、它的回复不需要审核、并知道两次发帖的最短间隔。"
               "机器人遇到审核或见习期会发出警报；遇到灌水预防会等待后重发")


def _times(rt: Runtime, client: DiscuzClient, result: Preflight, pages: dict[int, ThreadPage]) -> None:
    try:
        api = client.check_api()
    except errors.ForumError:
        api = False
    if client.generation is Generation.D72:
        result.add("手机接口", Outcome.INFO, "Discuz! 7.2 没有手机接口（掌上论坛），机器人读帖子页面")
    else:
        result.add("手机接口", Outcome.INFO, "掌上论坛接口已开启" if api else "掌上论坛接口未开启（机器人读帖子页面）")
    posts = [p for page in pages.values() for p in page.posts]
    if not posts:
        return
    minutes = any(p.time_precision is TimePrecision.MINUTE for p in posts)
    if not minutes:
        result.add("发帖时间精度", Outcome.PASS, "精确到秒")
    elif api:
        result.add("发帖时间精度", Outcome.PASS, "帖子页面只到分钟，机器人改读手机接口（精确到秒）")
    else:
        result.add("发帖时间精度", Outcome.WARN,
                   "发帖时间只精确到分钟：截止那一分钟内的帖子分不出先后。请每天截止时在投票帖发一帖截止帖，"
                   "并把它的 pid 写进配置那一天的 deadline_pid（截止帖之后的帖子算迟到）")
