"""Classify whatever a Discuz! forum answered into one typed record.

Discuz answers in several dresses (DISCUZ.md §4, §5.3, §7):

* ajax XML ``<root><![CDATA[…]]></root>`` with ``succeedhandle_KEY(url, msg, {values})``
  or ``MSG<script>…errorhandle_KEY('MSG', {values})</script>``;
* a full HTML ``showmessage`` page: ``div#messagetext.alert_right|alert_info|alert_error``
  (X3), or ``div.postbox > div.alert_right|alert_info|alert_error`` with the text in its
  ``<p>``s (7.2, whose "no permission" page puts the reason in a second ``<p>``);
* the bare "Discuz! System Error" page (HTTP 503), e.g. a wrong formhash (非法字符);
* mobile-API JSON: ``Message.messageval`` / ``{"error": …}``;
* CC-protection (attackevasive) pages instead of content;
* a 301/302 whose ``Location`` is the success (new pid) or a login redirect (7.2 answers a
  reply or an edit with a 302 to ``viewthread.php?tid=T&pid=PID…``);
* an ordinary page (thread, form) with no message at all.

:func:`classify` turns each into a :class:`ForumReply`. Texts → language keys is the
table :data:`MESSAGE_KEYS`, so the same key comes out whatever the dress — and whatever
the generation: X3 and 7.2 word their messages differently (7.2's ``messages.lang.php``:
对不起，您还未登录… / 您没有输入标题或内容… / …通过审核后将被显示出来), and both wordings
sit in the one table. The numbers a message names (tries left, flood interval, minimum
length) are read from its text when no ajax values carry them (:data:`TEXT_VALUES`). The
exception for a key is ``errors.KEY_EXCEPTIONS``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from html import unescape
from urllib.parse import parse_qs, urlsplit

import httpx

from parsers.charset import decode

__all__ = [
    "MESSAGE_KEYS",
    "TEXT_VALUES",
    "ForumReply",
    "ReplyKind",
    "classify",
    "key_for_text",
    "page_facts",
]


class ReplyKind(StrEnum):
    SUCCESS = "success"  # succeedhandle_, alert_right, success redirect, API *_succeed
    REFUSED = "refused"  # errorhandle_, alert_error/alert_info, API error key
    UNAVAILABLE = "unavailable"  # 5xx, CC-protection, truncated or empty body
    PAGE = "page"  # an ordinary page: no message in it
    REDIRECT = "redirect"  # a 3xx that is neither a success nor a login redirect


class ReplyFormat(StrEnum):
    AJAX = "ajax"
    HTML = "html"
    API = "api"
    REDIRECT = "redirect"
    SYSTEM_ERROR = "system_error"
    CC = "cc"
    EMPTY = "empty"


@dataclass(frozen=True)
class ForumReply:
    kind: ReplyKind
    format: ReplyFormat
    status: int
    key: str | None = None  # Discuz language key (or a pseudo key, see MESSAGE_KEYS)
    message: str = ""  # the forum's own text, tags stripped
    values: dict[str, str] = field(default_factory=dict)  # pid, tid, floodctrl, loginperm…
    forward_url: str | None = None
    charset: str = "utf-8"
    response: httpx.Response | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.kind is ReplyKind.SUCCESS

    @property
    def pid(self) -> int | None:
        return _int(self.values.get("pid"))

    @property
    def moderated(self) -> bool:
        return self.key in ("post_reply_mod_succeed", "post_newthread_mod_succeed")


# Forum text → language key, first match wins (more specific before more general).
# Pseudo keys where Discuz has none we can see: user_banned (group 禁止发言),
# login_required (302 to the login form), cc_protection, captcha_required.
MESSAGE_KEYS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p), key)
    for p, key in [
        # Private messages (X3.5 lang_message.php, 7.2 messages.lang.php).
        (r"两次发送短消息太快|两次发送短消息间隔太短", "pm_flood_ctrl"),
        (r"24小时最大发送短消息数|24小时内发短消息数量的上限|24小时内两人会话的上限", "pm_daily_limit"),
        (r"用户不存在或被冻结|收件人不存在或存在重复", "pm_unknown_recipient"),
        (r"收件人拒收|对方屏蔽了您的短消息|只接收好友发送的短消息|受对方的隐私设置影响", "pm_not_accepted"),
        (r"不能给自己发", "pm_send_self"),
        (r"不能发送空消息|没有填写短消息内容", "pm_empty"),
        (r"注册时间起.*后才有发短消息权限", "post_newbie_span"),
        (r"短消息发送成功", "pm_send_succeed"),
        (r"登录失败，您还可以尝试\s*\d+\s*次", "login_invalid"),
        (r"密码空或包含非法字符", "login_password_invalid"),
        (r"密码错误次数过多", "login_strike"),
        (r"请输入验证码后继续", "login_seccheck2"),
        (r"验证码填写错误|验证码.*(错误|不正确)", "submit_seccode_invalid"),
        (r"验证问答.*错误", "submit_secqaa_invalid"),
        (r"安全提问.*(错误|不正确)|答案.*(错误|不正确)", "login_question_invalid"),
        (r"安全提问", "login_question_empty"),
        (r"非激活|激活", "location_activation"),  # before 欢迎您回来: inactive logins say both
        (r"欢迎您回来", "login_succeed"),
        (r"您已退出站点", "logout_succeed"),
        # New threads (X3.5 post_newthread_*, 7.2 messages.lang.php) before the reply texts:
        # 新主题需要审核 would read as a held reply.
        (r"新主题需要审核|对新主题进行审核", "post_newthread_mod_succeed"),
        (r"主题已发布|主题已经发布", "post_newthread_succeed"),
        (r"标题超过(\s*\d+\s*个字符|最大字符限制)", "post_subject_toolong"),
        (r"每小时限制发主题", "thread_flood_ctrl_threads_per_hour"),
        # Thread moderation (topicadmin): before the general 没有权限.
        (r"管理操作成功", "admin_succeed"),
        (r"没有权限使用管理功能", "admin_nopermission"),
        (r"没有权限(关闭|打开)此主题", "no_privilege_closethread"),
        (r"尚未选择主题|没有选择主题", "admin_moderate_invalid"),
        (r"回复需要审核|需要审核|需要对新回复进行审核|通过审核后将被显示", "post_reply_mod_succeed"),
        (r"回复发布成功|回复已经发布", "post_reply_succeed"),
        (r"帖子编辑成功", "post_edit_succeed"),
        (r"两次发表间隔少于", "post_flood_ctrl"),
        (r"每小时.*发帖|发帖数量超过|每小时最多只能发表", "post_flood_ctrl_posts_per_hour"),
        (r"帖子小于\s*\d+\s*个字符", "post_message_tooshort"),
        (r"(帖子|内容).*(超过|大于)\s*\d+\s*个字符", "post_message_toolong"),
        (r"(尚未|没有)输入标题或内容", "post_sm_isnull"),
        (r"本主题已关闭", "post_thread_closed"),
        (r"尚未登录|还未登录|需要先登录|请先登录", "replyperm_login_nopermission"),
        (r"用户组\(禁止|账号被禁用", "user_banned"),
        (r"用户组.*无法进行此操作", "group_nopermission"),
        (r"见习期间|注册时间起.*后才有发帖权限", "post_newbie_span"),
        (r"敏感词|不适当的内容|包含不良内容", "word_banned"),
        (r"来路不正确|表单验证串不符", "submit_invalid"),
        (r"含有非法字符", "request_tainted"),
        (r"指定的主题不存在", "thread_nonexistence"),
        (r"指定的版块不存在", "forum_nonexistence"),
        (r"指定的帖子不存在", "post_nonexistence"),
        (r"阅读权限高于", "thread_nopermission"),
        (r"本版块需要密码|版块.*密码", "forum_passwd"),
        (r"没有权限编辑|不能编辑|无权编辑", "post_edit_nopermission"),
        (r"编辑时间|超过.*编辑", "post_edit_timelimit"),
        (r"没有权限|无权在该版块|无权进行当前操作", "replyperm_none_nopermission"),
        (r"(站点|本站|论坛)(已|暂时)?关闭|维护", "board_closed"),
    ]
]

# Numbers a message names, read from its text when the answer carries no ajax values
# (HTML showmessage pages, 7.2's bare ajax texts): key → (value name, pattern).
TEXT_VALUES: dict[str, tuple[str, re.Pattern[str]]] = {
    "login_invalid": ("loginperm", re.compile(r"尝试\s*(\d+)\s*次")),
    "post_flood_ctrl": ("floodctrl", re.compile(r"少于\s*(\d+)\s*秒")),
    "post_message_tooshort": ("minpostsize", re.compile(r"小于\s*(\d+)\s*个字符")),
}

# CC protection (misc_security.php) serves these instead of the page asked for.
_CC_PATTERNS = re.compile(r"频繁刷新限制|刷新间隔时间小于|页面重载开启")
_SUCCESS_KEYS = {
    "post_reply_succeed",
    "post_reply_mod_succeed",
    "post_edit_succeed",
    "post_newthread_succeed",
    "post_newthread_mod_succeed",
    "admin_succeed",
    "login_succeed",
    "location_login_succeed",
    "location_login_succeed_mobile",
    "logout_succeed",
    "pm_send_succeed",
    "do_success",  # X3.5 spacecp (a PM sent): 操作成功
}
_API_SOFT_ERRORS = {"mobile_is_closed", "module_not_exists"}

_CDATA = re.compile(r"<root>\s*<!\[CDATA\[(.*)\]\]>\s*</root>", re.S)
_HANDLE = re.compile(
    r"(succeedhandle|errorhandle)_(\w*)\(\s*((?:'(?:[^'\\]|\\.)*'\s*,\s*)+)\{(.*?)\}\s*\)",
    re.S,
)
_JS_STRING = re.compile(r"'((?:[^'\\]|\\.)*)'")
_JS_PAIR = re.compile(r"'(\w+)'\s*:\s*'((?:[^'\\]|\\.)*)'")
_MESSAGETEXT = re.compile(
    r"<div[^>]*\bid=\"messagetext\"[^>]*\bclass=\"(alert_\w+)\"[^>]*>(.*?)</div>", re.S
)
_MESSAGETEXT_ANY = re.compile(r"<div[^>]*\bclass=\"(alert_\w+)\"[^>]*>(.*?)</div>", re.S)
_FIRST_P = re.compile(r"<p>(.*?)</p>", re.S)
# 7.2's showmessage.htm / nopermission.htm: no id, the box is the first div in div.postbox.
_MESSAGE_72 = re.compile(r"<div class=\"postbox\">\s*<div class=\"(alert_\w+)\">(.*?)</div>", re.S)
_PARAS = re.compile(r"<p(?:\s+class=\"([^\"]*)\")?>(.*?)</p>", re.S)
_SUCCEEDLOCATION = re.compile(r"\$\('succeedlocation'\)\.innerHTML\s*=\s*'((?:[^'\\]|\\.)*)'")
_BTN_HREF = re.compile(r"<p class=\"alert_btnleft\"><a href=\"([^\"]+)\"")
_SYSTEM_ERROR = re.compile(r"<h1>Discuz! System Error</h1>")
_SYSTEM_ERROR_TEXT = re.compile(r"<div class=\"info\">\s*<li>(.*?)</li>", re.S)
_TAGS = re.compile(r"<[^>]+>")
_SCRIPTS = re.compile(r"<script\b.*?</script>", re.S | re.I)
_LOCATION_ONLY = re.compile(r"window\.location\.href\s*=\s*'([^']+)'")

_DISCUZ_UID = re.compile(r"discuz_uid\s*=\s*'?(\d+)'?")  # 7.2 writes it unquoted
_FORMHASH = re.compile(r"name=\"formhash\"[^>]*value=\"([0-9a-f]{8})\"|formhash=([0-9a-f]{8})")
_COOKIEPRE = re.compile(r"cookiepre\s*=\s*'([^']*)'")
_FID = re.compile(r"fid = parseInt\('(\d+)'\)|name=\"srhfid\" value=\"(\d+)\"|[?&;]fid=(\d+)")


def key_for_text(text: str) -> str | None:
    """The language key of a forum message text, by the :data:`MESSAGE_KEYS` table."""
    for pattern, key in MESSAGE_KEYS:
        if pattern.search(text):
            return key
    return None


def classify(response: httpx.Response) -> ForumReply:
    """What the forum answered, whatever the dress. Never raises on odd bodies."""
    data = response.content
    content_type = response.headers.get("content-type", "")
    text, charset = decode(data, content_type)
    status = response.status_code
    base = {"status": status, "charset": charset, "response": response}

    if 300 <= status < 400 and "location" in response.headers:
        return _classify_redirect(response.headers["location"], base)
    stripped = text.strip()
    if status == 403 and not stripped:
        # 7.2's NOROBOT scripts (pm.php, logging.php, post.php …) answer a robot's
        # User-Agent so: a refusal, not a truncated answer worth retrying.
        return ForumReply(ReplyKind.REFUSED, ReplyFormat.EMPTY, key="robot_forbidden",
                          message="HTTP 403，页面为空", **base)
    if not stripped:
        return ForumReply(ReplyKind.UNAVAILABLE, ReplyFormat.EMPTY, key="empty", **base)
    if _SYSTEM_ERROR.search(text):
        return _classify_system_error(text, base)
    if "javascript" in content_type:  # e.g. the seccode update script: a resource, no message
        return ForumReply(ReplyKind.PAGE, ReplyFormat.HTML, **base)
    if stripped.startswith("{") or "json" in content_type:
        return _classify_api(stripped, base)
    if stripped.startswith("<?xml") or stripped.startswith("<root>"):
        return _classify_ajax(text, base)
    if _is_cc_page(text):
        return ForumReply(
            ReplyKind.UNAVAILABLE, ReplyFormat.CC, key="cc_protection",
            message=_plain(text)[:200], **base,
        )
    if "</html>" not in text.lower():
        return ForumReply(ReplyKind.UNAVAILABLE, ReplyFormat.HTML, key="truncated", **base)
    return _classify_html(text, base)


def page_facts(response: httpx.Response) -> dict[str, str]:
    """Login state and form anchors any HTML page carries: uid, formhash, cookiepre, fid."""
    text, charset = decode(response.content, response.headers.get("content-type"))
    facts = {"charset": charset}
    if m := _DISCUZ_UID.search(text):
        facts["uid"] = m.group(1)
    if m := _FORMHASH.search(text):
        facts["formhash"] = m.group(1) or m.group(2)
    if m := _COOKIEPRE.search(text):
        facts["cookiepre"] = m.group(1)
    if m := _FID.search(text):
        facts["fid"] = next(g for g in m.groups() if g)
    return facts


def _classify_redirect(location: str, base: dict) -> ForumReply:
    query = parse_qs(urlsplit(location).query)
    values = {k: v[0] for k, v in query.items() if k in ("tid", "pid", "page", "fid")}
    fragment = urlsplit(location).fragment
    if "pid" not in values and (m := re.fullmatch(r"pid(\d+)", fragment)):
        values["pid"] = m.group(1)
    fmt = ReplyFormat.REDIRECT
    if ("mod=logging" in location or "logging.php" in location) and "action=login" in location:
        return ForumReply(ReplyKind.REFUSED, fmt, key="login_required", forward_url=location, **base)
    request = base["response"].request if _has_request(base["response"]) else None
    if request is not None and request.method == "POST" and "do=pm" in location:
        # X3.5's full-page PM form: 301 to the inbox, no pmid (captured x35/09).
        return ForumReply(ReplyKind.SUCCESS, fmt, key="do_success", forward_url=location, **base)
    if request is not None and request.method == "POST" and (
            "mod=viewthread" in location or "viewthread.php" in location):
        key = "post_reply_succeed" if "pid" in query else None
        if "editsubmit" in str(request.url):
            key = "post_edit_succeed"
        elif "topicsubmit" in str(request.url):
            key = "post_newthread_succeed"
        return ForumReply(ReplyKind.SUCCESS, fmt, key=key, values=values, forward_url=location, **base)
    return ForumReply(ReplyKind.REDIRECT, fmt, values=values, forward_url=location, **base)


def _classify_system_error(text: str, base: dict) -> ForumReply:
    m = _SYSTEM_ERROR_TEXT.search(text)
    message = _plain(m.group(1)) if m else "Discuz! System Error"
    key = key_for_text(message)
    if key == "request_tainted":  # rejected at init, before anything was stored
        return ForumReply(ReplyKind.REFUSED, ReplyFormat.SYSTEM_ERROR, key=key, message=message, **base)
    return ForumReply(
        ReplyKind.UNAVAILABLE, ReplyFormat.SYSTEM_ERROR, key="system_error", message=message, **base
    )


def _classify_api(text: str, base: dict) -> ForumReply:
    try:
        doc = json.loads(text)
    except ValueError:
        return ForumReply(ReplyKind.UNAVAILABLE, ReplyFormat.API, key="truncated", **base)
    if not isinstance(doc, dict):  # e.g. module=check with the plugin off answers []
        return ForumReply(ReplyKind.PAGE, ReplyFormat.API, **base)
    if "error" in doc and "Variables" not in doc:
        error = str(doc["error"])
        # The only documented error codes; any other text is the site-closed reason.
        key = error if error in _API_SOFT_ERRORS else (key_for_text(error) or "board_closed")
        return ForumReply(ReplyKind.REFUSED, ReplyFormat.API, key=key, message=error, **base)
    variables = doc.get("Variables") or {}
    values = {
        k: str(v)
        for k, v in variables.items()
        if isinstance(v, (str, int)) and k in ("tid", "pid", "fid", "member_uid", "formhash", "ppp", "pmid")
    }
    message = doc.get("Message")
    if not isinstance(message, dict) or not message.get("messageval"):
        return ForumReply(ReplyKind.PAGE, ReplyFormat.API, values=values, **base)
    key = str(message["messageval"]).split("//")[0]
    text_ = str(message.get("messagestr") or key)
    if key in _SUCCESS_KEYS or key.endswith("_succeed"):
        return ForumReply(ReplyKind.SUCCESS, ReplyFormat.API, key=key, message=text_, values=values, **base)
    return ForumReply(ReplyKind.REFUSED, ReplyFormat.API, key=key, message=text_, values=values, **base)


def _classify_ajax(text: str, base: dict) -> ForumReply:
    m = _CDATA.search(text)
    if m is None:
        return ForumReply(ReplyKind.UNAVAILABLE, ReplyFormat.AJAX, key="truncated", **base)
    body = m.group(1)
    handle = _HANDLE.search(body)
    if handle is not None:
        which, _handlekey, args, pairs = handle.groups()
        strings = [_js_unescape(s) for s in _JS_STRING.findall(args)]
        values = {k: _js_unescape(v) for k, v in _JS_PAIR.findall(pairs)}
        if which == "succeedhandle":
            url, msg = (strings + ["", ""])[:2]
            if not msg and (loc := _SUCCEEDLOCATION.search(body)):
                msg = _js_unescape(loc.group(1))
            values = _values_from_url(url, values)
            key = key_for_text(msg) if msg else None
            return ForumReply(
                ReplyKind.SUCCESS, ReplyFormat.AJAX, key=key, message=_plain(msg),
                values=values, forward_url=url or None, **base,
            )
        msg = _plain(strings[0]) if strings else _plain(body)
        return _refused(msg, values, ReplyFormat.AJAX, base)
    if _CC_PATTERNS.search(body):
        return ForumReply(ReplyKind.UNAVAILABLE, ReplyFormat.CC, key="cc_protection", **base)
    if (alert := _MESSAGETEXT_ANY.search(body)) and alert.group(1) != "alert_right":
        return _refused(_plain(_SCRIPTS.sub("", alert.group(2))), {}, ReplyFormat.AJAX, base)
    plain = _plain(_SCRIPTS.sub("", body))
    if not plain and (loc := _LOCATION_ONLY.search(body)):
        # header quick login answers success with a bare location change
        return ForumReply(ReplyKind.SUCCESS, ReplyFormat.AJAX, forward_url=loc.group(1), **base)
    if "<form" in body or "<div" in body:
        return ForumReply(ReplyKind.PAGE, ReplyFormat.AJAX, **base)
    if plain:
        return _refused(plain, {}, ReplyFormat.AJAX, base)
    return ForumReply(ReplyKind.UNAVAILABLE, ReplyFormat.AJAX, key="empty", **base)


def _classify_html(text: str, base: dict) -> ForumReply:
    m = _MESSAGETEXT.search(text)
    if m is None:
        for m72 in _MESSAGE_72.finditer(text):
            # The 7.2 login page carries an empty, hidden alert_right box (the ajax login's
            # answer goes there): only a box with words is a message.
            found = _classify_html_72(*m72.groups(), base)
            if found is not None:
                return found
        return ForumReply(ReplyKind.PAGE, ReplyFormat.HTML, **base)
    alert, inner = m.groups()
    if alert == "alert_right":
        msg = ""
        if loc := _SUCCEEDLOCATION.search(inner):
            msg = _js_unescape(loc.group(1))
        else:
            p = _FIRST_P.search(inner)
            msg = _plain(_SCRIPTS.sub("", p.group(1))) if p else ""
        href = _BTN_HREF.search(inner)
        url = unescape(href.group(1)) if href else None
        values = _values_from_url(url or "", {})
        return ForumReply(
            ReplyKind.SUCCESS, ReplyFormat.HTML, key=key_for_text(msg) if msg else None,
            message=msg, values=values, forward_url=url, **base,
        )
    p = _FIRST_P.search(inner)
    msg = _plain(_SCRIPTS.sub("", p.group(1) if p else inner))
    return _refused(msg, {}, ReplyFormat.HTML, base)


def _classify_html_72(alert: str, inner: str, base: dict) -> ForumReply | None:
    """7.2's message box: every ``<p>`` but the link row is the message (the no-permission
    page says 您无权进行当前操作，原因如下： and gives the reason in the next one)."""
    texts = [_plain(_SCRIPTS.sub("", body)) for cls, body in _PARAS.findall(inner)
             if cls != "alert_btnleft"]
    msg = " ".join(t for t in texts if t)
    if not msg:
        return None
    href = _BTN_HREF.search(inner)
    url = unescape(href.group(1)) if href else None
    if url and url.startswith("javascript:"):
        url = None
    if alert == "alert_right":
        values = _values_from_url(url or "", {})
        return ForumReply(
            ReplyKind.SUCCESS, ReplyFormat.HTML, key=key_for_text(msg) if msg else None,
            message=msg, values=values, forward_url=url, **base,
        )
    if len(texts) > 1 and texts[0].startswith(_NOPERM_72):
        # nopermission.htm: the reason decides. Every reason 7.2 gives is a language string
        # of the table but one: a closed site's, which is the admin's own text.
        reason = " ".join(t for t in texts[1:] if t)
        key = key_for_text(reason) or "board_closed"
        return ForumReply(ReplyKind.REFUSED, ReplyFormat.HTML, key=key,
                          message=reason if key == "board_closed" else msg, **base)
    return _refused(msg, {}, ReplyFormat.HTML, base)


_NOPERM_72 = "您无权进行当前操作"


def _is_cc_page(text: str) -> bool:
    # The real page writes its texts as hex entities (&#x9891;…); it is tiny, content is not.
    if "postmessage_" in text or len(text) > 20000:
        return False
    return bool(_CC_PATTERNS.search(text) or _CC_PATTERNS.search(unescape(text)))


def _refused(message: str, values: dict[str, str], fmt: ReplyFormat, base: dict) -> ForumReply:
    key = key_for_text(message)
    if key in TEXT_VALUES:
        name, pattern = TEXT_VALUES[key]
        if name not in values and (m := pattern.search(message)):
            values = {**values, name: m.group(1)}
    if "adminemail" in values and key is None:
        key = "board_closed"  # showmessage(closedreason, …, {'adminemail': …})
    if key in _SUCCESS_KEYS:  # e.g. "回复需要审核" arrives as a message, not an error
        return ForumReply(ReplyKind.SUCCESS, fmt, key=key, message=message, values=values, **base)
    return ForumReply(ReplyKind.REFUSED, fmt, key=key, message=message, values=values, **base)


def _values_from_url(url: str, values: dict[str, str]) -> dict[str, str]:
    out = dict(values)
    if not url:
        return out
    query = parse_qs(urlsplit(url).query)
    for name in ("tid", "pid", "page", "fid"):
        if name not in out and name in query:
            out[name] = query[name][0]
    return out


def _plain(html: str) -> str:
    return " ".join(unescape(_TAGS.sub("", html)).split())


def _js_unescape(s: str) -> str:
    return s.replace("\\'", "'").replace('\\"', '"').replace("\\\\", "\\")


def _has_request(response: httpx.Response) -> bool:
    try:
        response.request
    except RuntimeError:
        return False
    return True


def _int(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
