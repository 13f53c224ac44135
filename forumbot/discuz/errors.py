"""One exception tree for everything a Discuz! forum can do to a request.

Two families, kept apart because the agent reacts to them differently:

* :class:`ForumUnavailable`: no usable answer came back (connect/read error, timeout,
  5xx, truncated page, CC-protection page). Keeps the original exception and/or the
  response, and says whether the request *may have reached the server* (``sent``): a
  reply POST that may have been stored is never re-sent blindly.
* :class:`ForumRefused`: the forum answered "no". Keeps the forum's own text
  (``message``), its language key when knowable (``key``) and the response. Each refusal
  the bot must tell apart has its own class.

Message key → class is the table :data:`KEY_EXCEPTIONS` (in the manner of prawcore's
``STATUS_EXCEPTIONS``); :func:`refusal_for` builds the exception from a classified
reply. No message ever contains the password: only the forum's own text goes in.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import httpx

    from forumbot.discuz.responses import ForumReply


class ForumError(Exception):
    """Base of every forum error."""

    def __init__(self, message: str, *, response: httpx.Response | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.response = response


class UnavailableReason(StrEnum):
    CONNECT = "connect"  # never reached the server (connection refused, connect timeout)
    TIMEOUT = "timeout"  # read/write timeout after the request was (maybe) sent
    DROPPED = "dropped"  # connection closed mid-exchange
    SERVER_ERROR = "server_error"  # 5xx, Discuz! System Error page
    TRUNCATED = "truncated"  # body cut short / empty where content was due
    CC_PROTECTION = "cc_protection"  # attackevasive page instead of content


class ForumUnavailable(ForumError):
    """No usable response. ``sent`` is False only when the request surely never left."""

    def __init__(
        self,
        message: str,
        *,
        reason: UnavailableReason,
        sent: bool,
        original: BaseException | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(message, response=response)
        self.reason = reason
        self.sent = sent
        self.original = original

    @property
    def cause_name(self) -> str:
        """What to call this failure in a log line (``ReadTimeout``, ``HTTP 503`` …)."""
        if self.original is not None:
            return type(self.original).__name__
        if self.response is not None and self.reason is UnavailableReason.SERVER_ERROR:
            return f"HTTP {self.response.status_code}"
        return self.reason.value


class UnexpectedPage(ForumError):
    """The forum answered with a page we cannot read as what we asked for."""


class RobotPage(UnexpectedPage):
    """The forum served a spider page: thread posts without floor links, which Discuz
    renders only for search robots. Its ``checkrobot()`` looks for bot/crawl/spider/…
    in the User-Agent; the cure is a browser-like ``[bot].user_agent``."""


class Interrupted(ForumError):
    """The run was asked to stop (SIGTERM, Ctrl-C) while the client waited (throttle,
    backoff, flood control). Raised instead of sending anything more."""


class ForumRefused(ForumError):
    """The forum answered no. ``message`` is the forum's own text."""

    def __init__(
        self,
        message: str,
        *,
        key: str | None = None,
        values: dict[str, str] | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(message, response=response)
        self.key = key
        self.values = dict(values or {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(key={self.key!r}, message={self.message!r})"


class LoginFailed(ForumRefused):
    """Wrong user name or password. ``attempts_left`` as the forum counts them."""

    @property
    def attempts_left(self) -> int | None:
        return _int(self.values.get("loginperm"))


class LoginLockedOut(ForumRefused):
    """Too many failures (5 per 15 min per IP and name): never retry blindly."""


class CaptchaRequired(ForumRefused):
    """A captcha (seccode/secqaa) guards this action: report it, do not attempt it."""


class AccountNotActivated(ForumRefused):
    pass


class SecurityQuestionRequired(ForumRefused):
    pass


class SecurityQuestionWrong(ForumRefused):
    pass


class NotLoggedIn(ForumRefused):
    pass


class LoginBlocked(NotLoggedIn):
    """An earlier login of this process failed (``cause``); the client does not try again
    by itself until told (``reset_login``): Discuz allows five failures per 15 minutes per
    IP and name, and a lock-out shuts out every account behind the IP, players included."""

    def __init__(self, cause: ForumRefused) -> None:
        super().__init__(
            f"登录失败后不再自动登录（{cause.message}）；请先解决账号的问题（密码、验证码、安全提问），"
            "再运行 forumbot login（或重启机器人）",
            key=cause.key, values=cause.values, response=cause.response,
        )
        self.cause = cause


class FloodControl(ForumRefused):
    """Posted again too soon. ``seconds`` is the interval the forum names."""

    @property
    def seconds(self) -> float | None:
        value = _int(self.values.get("floodctrl"))
        return float(value) if value is not None else None


class PostsPerHourLimit(ForumRefused):
    pass


class MessageTooShort(ForumRefused):
    @property
    def min_size(self) -> int | None:
        return _int(self.values.get("minpostsize"))


class MessageTooLong(ForumRefused):
    pass


class MessageEmpty(ForumRefused):
    pass


class ThreadClosed(ForumRefused):
    pass


class SubjectTooLong(ForumRefused):
    """A new thread's subject is longer than the forum takes (80 characters)."""


class ModerationNotAllowed(ForumRefused):
    """The account may not moderate this board (admin_nopermission: not its moderator), or
    its group may not close threads (no_privilege_closethread)."""


class ModerationNothingChosen(ForumRefused):
    """A thread moderation named no thread the forum could act on (admin_moderate_invalid:
    the thread is not in that board, or is held for moderation)."""


class NoPermission(ForumRefused):
    pass


class UserBanned(NoPermission):
    """The account is in a banned group (禁止发言 / 禁止访问)."""


class NewbiePeriod(NoPermission):
    """Account too new to post (newbiespan)."""


class WordBanned(ForumRefused):
    pass


class BadFormHash(ForumRefused):
    """Stale or wrong formhash / foreign Referer (submit_invalid, request_tainted)."""


class SiteClosed(ForumRefused):
    """The site is closed by its admin. ``reason`` is the admin's text."""

    @property
    def reason(self) -> str:
        return self.message


class ThreadNotFound(ForumRefused):
    pass


class PostNotFound(ThreadNotFound):
    pass


class ForumNotFound(ForumRefused):
    pass


class EditNotAllowed(ForumRefused):
    pass


class MobileApiClosed(ForumRefused):
    pass


class PmFloodControl(FloodControl):
    """A private message sent too soon after the last one (X3.5: or after any post — the
    sender's ``lastpost`` clock is shared; 7.2: only to someone who never wrote to the
    sender). The forum names no interval: ``seconds`` is 16 then (15 s ``<=`` checks)."""

    @property
    def seconds(self) -> float | None:
        return super().seconds or 16.0


class UnknownRecipient(ForumRefused):
    """No such user to send a private message to (用户不存在或被冻结 / 收件人不存在)."""


class PmNotAccepted(ForumRefused):
    """The recipient does not take this sender's private messages (blacklist, friends
    only, 7.2's 收件人拒收 — also its answer for a uid that does not exist), or the
    recipient is the sender."""


class PmDailyLimit(ForumRefused):
    """Too many private messages in 24 hours (7.2: 100 to people who never wrote back)."""


class RobotForbidden(ForumRefused):
    """HTTP 403 with an empty body: a 7.2 ``NOROBOT`` script (``pm.php``…) took the
    User-Agent for a search robot (a 'bot' word and no browser name)."""


class UnknownRefusal(ForumRefused):
    """The forum said no in words not in our table: carries its text for the director."""


# Discuz language key (or the pseudo keys responses.py derives) → refusal class.
KEY_EXCEPTIONS: dict[str, type[ForumRefused]] = {
    "login_invalid": LoginFailed,
    "login_password_invalid": LoginFailed,
    "login_strike": LoginLockedOut,
    "login_seccheck2": CaptchaRequired,
    "submit_seccode_invalid": CaptchaRequired,
    "submit_secqaa_invalid": CaptchaRequired,
    "captcha_required": CaptchaRequired,
    "location_activation": AccountNotActivated,
    "login_question_empty": SecurityQuestionRequired,
    "login_question_invalid": SecurityQuestionWrong,
    "replyperm_login_nopermission": NotLoggedIn,
    "login_required": NotLoggedIn,
    "viewperm_login_nopermission": NotLoggedIn,
    "post_flood_ctrl": FloodControl,
    "post_flood_ctrl_posts_per_hour": PostsPerHourLimit,
    "post_message_tooshort": MessageTooShort,
    "post_message_toolong": MessageTooLong,
    "post_sm_isnull": MessageEmpty,
    "post_thread_closed": ThreadClosed,
    "post_subject_toolong": SubjectTooLong,
    "thread_flood_ctrl_threads_per_hour": PostsPerHourLimit,
    "post_forum_newthread_nopermission": NoPermission,
    "postperm_none_nopermission": NoPermission,
    "postperm_login_nopermission": NotLoggedIn,
    "admin_nopermission": ModerationNotAllowed,
    "no_privilege_closethread": ModerationNotAllowed,
    "admin_moderate_invalid": ModerationNothingChosen,
    "replyperm_none_nopermission": NoPermission,
    "post_forum_newreply_nopermission": NoPermission,
    "group_nopermission": NoPermission,
    "thread_nopermission": NoPermission,
    "forum_passwd": NoPermission,
    "user_banned": UserBanned,
    "post_newbie_span": NewbiePeriod,
    "word_banned": WordBanned,
    "submit_invalid": BadFormHash,
    "request_tainted": BadFormHash,
    "board_closed": SiteClosed,
    "thread_nonexistence": ThreadNotFound,
    "forum_nonexistence": ForumNotFound,
    "post_nonexistence": PostNotFound,
    "post_edit_nopermission": EditNotAllowed,
    "post_edit_timelimit": EditNotAllowed,
    "mobile_is_closed": MobileApiClosed,
    "module_not_exists": MobileApiClosed,
    # Private messages (texts: responses.MESSAGE_KEYS; mobile-API keys as the forum sends them).
    "pm_flood_ctrl": PmFloodControl,
    "message_can_not_send_2": PmFloodControl,
    "pm_daily_limit": PmDailyLimit,
    "message_can_not_send_1": PmDailyLimit,
    "message_can_not_send_16": PmDailyLimit,
    "pm_unknown_recipient": UnknownRecipient,
    "message_bad_touser": UnknownRecipient,
    "message_bad_touid": UnknownRecipient,
    "pm_not_accepted": PmNotAccepted,
    "pm_send_self": PmNotAccepted,
    "message_can_not_send_to_self": PmNotAccepted,
    "message_can_not_send_6": PmNotAccepted,
    "message_can_not_send_8": PmNotAccepted,
    "message_can_not_send_9": PmNotAccepted,
    "message_can_not_send_onlyfriend": PmNotAccepted,
    "is_blacklist": PmNotAccepted,
    "pm_empty": MessageEmpty,
    "unable_to_send_air_news": MessageEmpty,
    "to_login": NotLoggedIn,
    "robot_forbidden": RobotForbidden,
}


def refusal_for(reply: ForumReply, *, default: type[ForumRefused] = UnknownRefusal) -> ForumRefused:
    """The exception for a refused reply, by the key table."""
    cls = KEY_EXCEPTIONS.get(reply.key or "", default)
    text = reply.message or (reply.key or "论坛拒绝了这个请求")
    return cls(text, key=reply.key, values=reply.values, response=reply.response)


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
