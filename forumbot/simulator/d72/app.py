"""Discuz! 7.2's sessions, login lock-out and posting rules (``include/common.inc.php``,
``logging.php``, ``include/login.func.php``, ``include/misc.func.php``, ``post.php``).

* Cookies are ``<cookiepre><name>`` with a 3-character random prefix the installer writes
  into ``config.inc.php`` (``yNt_``, ``8zs_`` on the captured sites); a first visit gets
  ``sid``; a login sets ``cookietime`` and ``auth`` and deletes ``loginuser``,
  ``activationauth`` and ``pmnum``.
* ``formhash()`` depends on the user only (every guest shares one), not on a session.
* Login lock-out is per IP (``failedlogins``): ``logincheck()`` runs on every visit to the
  login page and, when the IP has no row younger than 15 minutes, writes one with
  count 1 and allows 4 more tries; a failure adds one; at 5 it answers ``login_strike``.
  So a fresh IP sees 登录失败，您还可以尝试 4 次, then 3, 2, 1, then the lock-out.
* Flood control compares the member's ``lastpost`` — the time of the last post that was
  stored visibly — with ``floodctrl`` (``$timestamp - $floodctrl <= $lastpost``).
* ``showmessage`` answers: a page (``alert_right``/``alert_info``/``alert_error``), a 302
  for the messages in ``msgforward`` (``post_reply_succeed``, ``post_edit_succeed``) when
  not ajax, the bare text for ``inajax=1``, ``submithandle_KEY``/``messagehandle_KEY``
  with ``infloat=yes&handlekey=KEY``, and the login-box page for ``NOPERM`` refusals.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from forumbot.simulator.agents import is_robot_d72
from forumbot.simulator.app import ForumBase, Visit
from forumbot.simulator.d72 import render
from forumbot.simulator.d72.messages import message
from forumbot.simulator.messages import Outcome
from forumbot.simulator.model import GROUP_BANNED, GROUP_INACTIVE, User
from forumbot.simulator.wire import Request, Response, random_token

FORWARD_302 = {"post_reply_succeed", "post_edit_succeed", "post_newthread_succeed", "admin_succeed"}  # msgforward['messages'] ∩ ours


@dataclass
class FailedLogins:
    count: int
    last: datetime


class D72App(ForumBase):
    generation = "7.2"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.failedlogins: dict[str, FailedLogins] = {}

    # ---- sessions ------------------------------------------------------------------------
    def formhash_for(self, user: User | None) -> str:
        return self.md5_hash(user.uid if user else 0, user.name if user else "")[8:16]

    def visit(self, req: Request) -> Visit:
        set_cookies: list[str] = []
        if not req.cookies.get(self.cookiepre + "sid"):
            set_cookies.append(self.cookie("sid", random_token(6), max_age=604800,
                                           httponly=True))
        auth = req.cookies.get(self.cookiepre + "auth") or None
        viewer = self.viewer_for(auth)
        if viewer is None:
            auth = None
        return Visit(viewer, self.formhash_for(viewer), auth, set_cookies=set_cookies,
                     robot=is_robot_d72(req.user_agent),
                     pm_checked=bool(req.cookies.get("checkpm")))

    def ctx(self, visit: Visit) -> render.Ctx:
        s = self.data.settings
        prompts = getattr(self.data.pms, "prompts", {})
        return render.Ctx(self.site_url, self.charset, s.bbname, self.now(), visit.viewer,
                          visit.formhash, s.dateconvert, s.adminemail,
                          pm_prompt=prompts.get(visit.viewer.uid, 0) if visit.viewer else 0)

    def clearcookies(self, visit: Visit) -> None:
        """``clearcookies()``: the session and auth cookies go, the viewer is a guest."""
        for name in ("sid", "auth", "visitedfid", "onlinedetail", "loginuser", "activationauth",
                     "indextype"):
            visit.set_cookies.append(self.cookie(name, "", -1))
        visit.viewer = None
        visit.auth = None
        visit.formhash = self.formhash_for(None)

    # ---- output --------------------------------------------------------------------------
    def content_type(self) -> str:
        # As captured: the UTF-8 site's header names its charset (PHP 8's default_charset);
        # the GBK site's carries none (headercharset=0, as shipped) — only the meta tag does.
        return "text/html; charset=UTF-8" if self.charset == "utf-8" else "text/html"

    def html(self, text: str, status: int = 200) -> Response:
        return Response(status, self.encode(text), self.content_type())

    def xml(self, text: str) -> Response:
        return Response(200, self.encode(text), f"application/xml; charset={self.charset}")

    def forward(self, url: str, header: str = "Location") -> Response:
        response = Response(302, b"", self.content_type())
        response.headers.append((header, url))
        return response

    def forbidden(self) -> Response:
        """``define('NOROBOT', TRUE)`` scripts: ``exit(header("HTTP/1.1 403 Forbidden"))``."""
        return Response(403, b"", self.content_type())

    def outcome(self, req: Request, visit: Visit, outcome: Outcome, captcha: bool = False) -> Response:
        """``showmessage``: ajax text/handlers, a 302 for ``msgforward`` messages, a page."""
        if req.inajax:
            return self.xml(render.ajax_message(self.charset, outcome, req.arg("handlekey"),
                                                bool(req.arg("infloat"))))
        if outcome.url and (outcome.key in FORWARD_302 or req.arg("quickforward")):
            return self.forward(outcome.url, "location")
        if outcome.extra == "NOPERM":
            return self.html(render.nopermission_page(self.ctx(visit), outcome, captcha))
        return self.html(render.message_page(self.ctx(visit), outcome))

    # ---- checks --------------------------------------------------------------------------
    def submitcheck(self, req: Request, visit: Visit, seccodecheck: bool) -> Outcome | None:
        """``submitcheck()``: POST, the form hash, an empty or same-host Referer — else
        ``submit_invalid``; then the captcha, which no answer passes here."""
        referer = req.headers.get("referer", "")
        host = req.headers.get("host", "").split(":", 1)[0]
        same_host = not referer or (urlsplit(referer).hostname or "") == host
        if req.method != "POST" or req.form.get("formhash", "") != visit.formhash or not same_host:
            return message("submit_invalid")
        if seccodecheck:
            return message("submit_seccode_invalid")
        return None

    def newbie_outcome(self, visit: Visit) -> Outcome | None:
        """``post.php``: a member registered less than ``newbiespan`` hours ago."""
        user = visit.viewer
        if user is not None and self.in_newbie_span(user, timedelta(hours=1)):
            return message("post_newbie_span", newbiespan=self.data.settings.newbiespan)
        return None

    def reply_permission(self, visit: Visit, fid: int) -> Outcome | None:
        """``newreply.inc.php``: guests, then groups without ``allowreply`` (banned,
        awaiting verification) — both answered with the login-box page (``NOPERM``)."""
        user = visit.viewer
        if user is None:
            return message("replyperm_login_nopermission", extra="NOPERM")
        if user.groupid in (GROUP_BANNED, GROUP_INACTIVE):
            return message("replyperm_none_nopermission", extra="NOPERM", fid=fid, permgroups="")
        return None

    def post_checks(self, user: User, text: str, check_flood: bool = True) -> Outcome | None:
        """``checkpost()`` then ``checkflood()``: length in bytes without quotes, then the
        member's lastpost against ``floodctrl``."""
        s = self.data.settings
        if s.maxpostsize and len(text.encode(self.charset, "xmlcharrefreplace")) > s.maxpostsize:
            return message("post_message_toolong", maxpostsize=s.maxpostsize)
        if s.minpostsize and self.post_size(text) < s.minpostsize:
            return message("post_message_tooshort", minpostsize=s.minpostsize)
        if check_flood and s.floodctrl and user.last_post_at is not None:
            if (self.now() - user.last_post_at).total_seconds() <= s.floodctrl:
                self.data.flood_refusals += 1
                return message("post_flood_ctrl", floodctrl=s.floodctrl)
        return None

    # ---- login ---------------------------------------------------------------------------
    def logincheck(self, ip: str) -> int:
        """``logincheck()``: the tries left for this IP (0: locked out)."""
        s = self.data.settings
        now = self.now()
        with self._lock:
            row = self.failedlogins.get(ip)
            if row is None or (now - row.last).total_seconds() > s.lockout_seconds:
                self.failedlogins[ip] = FailedLogins(1, now)
                return s.login_failures_allowed - 1
            return max(0, s.login_failures_allowed - row.count)

    def loginfailed(self, ip: str) -> None:
        with self._lock:
            row = self.failedlogins.setdefault(ip, FailedLogins(0, self.now()))
            row.count += 1
            row.last = self.now()

    def userlogin(self, req: Request) -> tuple[User | None, str]:
        """``uc_user_login``: (user, failure key) — the key is ``login_invalid`` or a
        security-question one when the password was right but the answer not."""
        name = req.form.get("username", req.query.get("username", "")).strip()
        password = req.form.get("password", req.query.get("password", ""))
        field = req.arg("loginfield")
        if field == "uid":
            user = self.data.users.get(int(name)) if name.isdigit() else None
        else:
            user = self.data.user_by_name(name)
        if user is None or user.password != password:
            return None, "login_invalid"
        if user.question is not None:
            qid, answer = user.question
            sent_qid = req.arg("questionid", "0") or "0"
            sent_answer = req.arg("answer")
            if sent_qid != str(qid) or sent_answer != answer:
                empty = sent_qid == "0" or sent_answer == ""
                return None, "login_question_empty" if empty else "login_question_invalid"
        return user, ""

    def log_in(self, visit: Visit, user: User, cookietime: int) -> None:
        token = random_token(40)
        self.new_auth(user, token)
        visit.set_cookies += [
            self.cookie("cookietime", str(cookietime), 31536000),
            self.cookie("auth", token, cookietime or None, httponly=True),
            self.cookie("loginuser", "", -1), self.cookie("activationauth", "", -1),
            self.cookie("pmnum", "", -1)]
        visit.viewer = user
        visit.auth = token
        visit.formhash = self.formhash_for(user)

    def log_out(self, visit: Visit) -> None:
        self.drop_auth(visit.auth)
        self.clearcookies(visit)
