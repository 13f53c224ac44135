"""Discuz! X3.5's sessions, login and posting rules (``member.php``, ``forum.php?mod=post``).

The order of checks on a reply follows Discuz: site closed → ``cknewuser()`` (newbie
period) → form hash / Referer (``submitcheck``) → logged in → user group → thread →
closed → captcha → empty → ``minpostsize`` → flood control → store (or hold for moderation).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from forumbot.simulator.agents import is_robot_x3, touch_decision
from forumbot.simulator.app import ForumBase, Visit
from forumbot.simulator.messages import Outcome
from forumbot.simulator.model import GROUP_BANNED, GROUP_INACTIVE, Thread, User
from forumbot.simulator.wire import Request, Response, random_token
from forumbot.simulator.x3 import render
from forumbot.simulator.x3.messages import message

SUSPICIOUS = set("\"<>'()")
REPLY_301_KEYS = {"post_reply_succeed", "post_edit_succeed", "do_success", "post_newthread_succeed",
                  "admin_succeed"}


class X3App(ForumBase):
    generation = "x3"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # UCenter's failed-login log, per (IP, user name).
        self.failures: dict[tuple[str, str], list[datetime]] = {}

    # ---- sessions ------------------------------------------------------------------------
    def formhash_for(self, saltkey: str, user: User | None) -> str:
        return self.md5_hash(saltkey, user.uid if user else 0, user.name if user else "")[8:16]

    def visit(self, req: Request) -> Visit:
        set_cookies: list[str] = []
        saltkey = req.cookies.get(self.cookiepre + "saltkey", "")
        if not saltkey:
            saltkey = random_token(8)
            stamp = int(self.now().timestamp()) - 3600
            set_cookies += [self.cookie("saltkey", saltkey, httponly=True),
                            self.cookie("lastvisit", str(stamp))]
        set_cookies.append(self.cookie("sid", random_token(6), max_age=86400))
        set_cookies.append(self.cookie("lastact", f"{int(self.now().timestamp())}%09"
                                       f"{req.path.strip('/') or 'forum.php'}", max_age=86400))
        auth = req.cookies.get(self.cookiepre + "auth") or None
        viewer = self.viewer_for(auth)
        if viewer is None:
            auth = None
        s = self.data.settings
        touch = touch_decision(req.user_agent, req.query.get("mobile", ""),
                               req.cookies.get(self.cookiepre + "mobile", ""),
                               s.mobile, s.mobile) == "touch"
        return Visit(viewer, self.formhash_for(saltkey, viewer), auth, saltkey, set_cookies,
                     robot=is_robot_x3(req.user_agent), touch=touch,
                     pm_checked=bool(req.cookies.get(self.cookiepre + "checkpm")))

    def form_charset(self, req: Request) -> str:
        # _init_mobile converts every POSTed field from UTF-8 for mobile requests, and the
        # mobile API is one; desktop forms come in the page's charset.
        if req.path.startswith("/api/mobile/"):
            return "utf-8"
        s = self.data.settings
        if touch_decision(req.user_agent, req.query.get("mobile", ""),
                          req.cookies.get(self.cookiepre + "mobile", ""), s.mobile,
                          s.mobile) == "touch":
            return "utf-8"
        return self.charset

    def ctx(self, visit: Visit) -> render.Ctx:
        s = self.data.settings
        newpm = visit.viewer is not None and visit.viewer.uid in self.data.pms.member_newpm
        return render.Ctx(self.site_url, self.charset, self.cookiepre, s.bbname, self.now(),
                          visit.viewer, visit.formhash, s.dateconvert, visit.robot,
                          newpm=newpm, checknewpm=not visit.pm_checked)

    # ---- output helpers --------------------------------------------------------------------
    def html(self, text: str, status: int = 200) -> Response:
        return Response(status, self.encode(text), f"text/html; charset={self.charset}")

    def xml(self, text: str, status: int = 200) -> Response:
        return Response(status, self.encode(text), f"text/xml; charset={self.charset}")

    def outcome(self, req: Request, visit: Visit, outcome: Outcome,
                handlekey: str | None = None) -> Response:
        """One showmessage, in the form the request asked for (json, ajax, 301, page)."""
        if handlekey is None:
            handlekey = req.arg("handlekey")
        if req.wants_json:
            return Response(outcome.status, render.json_message(outcome).encode(),
                            f"application/json; charset={self.charset}")
        if req.inajax:
            if outcome.key == "thread_nonexistence":
                return self.xml(render.ajax_not_found(self.charset, outcome), outcome.status)
            return self.xml(render.ajax_message(self.charset, outcome, handlekey), outcome.status)
        if outcome.ok and outcome.key in REPLY_301_KEYS and outcome.url:
            return Response(301, b"", f"text/html; charset={self.charset}").location(outcome.url)
        return self.html(render.message_page(self.ctx(visit), outcome), outcome.status)

    def system_error(self, text: str = "您当前的访问请求当中含有非法字符，已经被系统拒绝") -> Response:
        host = urlsplit(self.site_url).netloc
        return Response(503, render.system_error(host, self.now(), text).encode("utf-8"),
                        "text/html; charset=utf-8")

    # ---- checks shared by POST handlers ------------------------------------------------
    def submitcheck(self, req: Request, visit: Visit) -> Outcome | Response | None:
        """``submitcheck``: POST, same-host Referer (or none), and the right form hash."""
        referer = req.headers.get("referer", "")
        if referer:
            host = (req.headers.get("host", "").rsplit(":", 1)[0]).strip("[]")
            if (urlsplit(referer).hostname or "") != host:
                return message("submit_invalid")
        sent = req.form.get("formhash", req.query.get("formhash", ""))
        if not sent:
            raw = req.raw_target + req.raw_body.decode("latin-1")
            if any(ch in SUSPICIOUS for ch in raw):
                return self.system_error()
            return message("submit_invalid")
        if sent != visit.formhash:
            return self.system_error()
        return None

    def closed_outcome(self, reason: str) -> Outcome:
        return message("site_closed", text=reason, adminemail=self.data.settings.adminemail)

    def newbie_outcome(self, visit: Visit) -> Outcome | None:
        """``cknewuser()`` at the top of ``forum_post.php``: a member registered less than
        ``newbiespan`` minutes ago may not post (nor open a post form)."""
        user = visit.viewer
        if user is not None and self.in_newbie_span(user, timedelta(minutes=1)):
            return message("no_privilege_newbiespan", newbiespan=self.data.settings.newbiespan)
        return None

    # ---- thread reading ------------------------------------------------------------------
    def page_slice(self, thread: Thread, page: int, ppp: int, authorid: int | None,
                   ordertype: int) -> tuple[list[render.ShownPost], int, int]:
        """The posts on a page, the page actually served (clamped) and the page count."""
        numbered = self.numbered(thread, authorid)
        banned = self.banned_uids()
        if ordertype == 1 and numbered and numbered[0][0].first:
            head, rest = numbered[0], list(reversed(numbered[1:]))
            total = self.total_pages(len(rest), ppp)
            page = min(max(page, 1), total)
            chunk = rest[(page - 1) * ppp: page * ppp]
            shown = [render.ShownPost(p, n, p.authorid in banned) for p, n in chunk]
            if page == 1:
                shown.insert(0, render.ShownPost(head[0], head[1], head[0].authorid in banned,
                                                 label_empty=True))
            return shown, page, total
        total = self.total_pages(len(numbered), ppp)
        page = min(max(page, 1), total)
        chunk = numbered[(page - 1) * ppp: page * ppp]
        return [render.ShownPost(p, n, p.authorid in banned) for p, n in chunk], page, total

    # ---- replies ---------------------------------------------------------------------------
    def check_reply(self, visit: Visit, thread: Thread | None, message_text: str) -> Outcome | None:
        """Everything that can refuse a reply after submitcheck, in Discuz's order."""
        s = self.data.settings
        user = visit.viewer
        if user is None:
            return message("replyperm_login_nopermission")
        if user.groupid in (GROUP_BANNED, GROUP_INACTIVE):
            return message("group_nopermission", grouptitle=user.grouptitle)
        if thread is None:
            return message("thread_nonexistence")
        if thread.closed and not self.data.moderates(thread.fid, user):  # a moderator may reply
            return message("post_thread_closed")
        if s.captcha_post:
            return message("submit_seccode_invalid")
        if not message_text.strip():
            return message("post_sm_isnull")
        return self.check_length_and_flood(visit, message_text)

    def check_length_and_flood(self, visit: Visit, message_text: str) -> Outcome | None:
        """``checkpost`` (the message's byte length) then flood control (a new thread's
        too: ``model_forum_thread::newthread`` checks ``post_flood_ctrl`` the same way)."""
        s = self.data.settings
        user = visit.viewer
        assert user is not None
        length = self.post_size(message_text)
        if length > s.maxpostsize:
            return message("post_message_toolong", minpostsize=s.minpostsize,
                           maxpostsize=s.maxpostsize)
        if length < s.minpostsize:
            return message("post_message_tooshort", minpostsize=s.minpostsize,
                           maxpostsize=s.maxpostsize)
        now = self.now()
        with self.data.lock:
            last = user.last_post_attempt
            if s.floodctrl and last is not None and (now - last).total_seconds() < s.floodctrl:
                self.data.flood_refusals += 1
                return message("post_flood_ctrl", floodctrl=s.floodctrl)
            user.last_post_attempt = now
        return None

    def reply_outcome(self, visit: Visit, thread: Thread, text: str) -> Outcome:
        """Store the reply (``model_forum_post::newreply``) and say so. A held reply is
        ``post_reply_mod_succeed`` with its pid and ``reply_mod`` 1, forwarding to the
        thread without a pid."""
        assert visit.viewer is not None
        pid, held = self.store_reply(visit.viewer, thread, text)
        params = {"fid": str(thread.fid), "tid": str(thread.tid), "pid": str(pid), "from": "",
                  "sechash": ""}
        if held:
            return message("post_reply_mod_succeed", ok=True,
                           url=f"forum.php?mod=viewthread&tid={thread.tid}", **params,
                           reply_mod="1")
        page = self.page_of(thread, pid, self.ppp) or 1
        url = f"forum.php?mod=viewthread&tid={thread.tid}&pid={pid}&page={page}&extra=#pid{pid}"
        return message("post_reply_succeed", ok=True, url=url, **params)

    def reply_text(self, req: Request) -> str:
        """The message as stored: ``noticetrimstr`` + blank line + the user's text."""
        text = req.form.get("message", "")
        trim = req.form.get("noticetrimstr", "")
        return f"{trim}\n\n{text}" if trim else text

    # ---- login -----------------------------------------------------------------------------
    def login_attempt(self, req: Request, visit: Visit) -> tuple[Outcome, User | None]:
        s = self.data.settings
        name = req.form.get("username", "").strip()
        password = req.form.get("password", "")
        key = (req.client_ip, name)
        now = self.now()
        window = timedelta(seconds=s.lockout_seconds)
        with self._lock:
            recent = [t for t in self.failures.get(key, []) if now - t < window]
            self.failures[key] = recent
        if s.captcha_login:
            # No captcha answer is ever right here: a bot must report the captcha, not try it.
            return message("submit_seccode_invalid"), None
        if len(recent) >= s.login_failures_allowed:
            return message("login_strike"), None
        user = self.data.user_by_name(name)
        if user is None or user.password != password:
            return self._failed(key, now), None
        if user.question is not None:
            qid, answer = user.question
            sent_qid = req.form.get("questionid", "0") or "0"
            sent_answer = req.form.get("answer", "")
            if sent_qid == "0" or not sent_answer:
                return message("login_question_empty"), None
            if sent_qid != str(qid) or sent_answer != answer:
                return self._failed(key, now, "login_question_invalid"), None
        key_ok = "login_succeed" if user.activated else "login_succeed_inactive_member"
        return message(key_ok, ok=True, url=self.site_url + "forum.php",
                       usergroup=user.grouptitle, username=user.name, uid=user.uid,
                       groupid=user.groupid), user

    def _failed(self, key: tuple[str, str], now: datetime, msgkey: str = "login_invalid") -> Outcome:
        s = self.data.settings
        with self._lock:
            self.failures.setdefault(key, []).append(now)
            remaining = s.login_failures_allowed - len(self.failures[key])
        if remaining <= 0:
            return message("login_strike")
        return message(msgkey, loginperm=remaining)

    def log_in(self, visit: Visit, user: User, remember: bool) -> None:
        token = random_token(40)
        self.new_auth(user, token)
        max_age = 2592000 if remember else None
        stamp = str(int(self.now().timestamp()))
        visit.set_cookies += [
            self.cookie("ulastactivity", stamp), self.cookie("auth", token, max_age, True),
            self.cookie("loginuser", "", -1), self.cookie("lip", f"127.0.0.1%2C{stamp}")]
        visit.viewer = user
        visit.auth = token
        visit.formhash = self.formhash_for(visit.saltkey, user)

    def log_out(self, visit: Visit) -> None:
        self.drop_auth(visit.auth)
        visit.set_cookies.append(self.cookie("auth", "", -86400 * 365))
        visit.viewer = None
        visit.auth = None
        visit.formhash = self.formhash_for(visit.saltkey, None)


def api_json(payload: object) -> bytes:
    """PHP ``json_encode``: ASCII with ``\\uXXXX`` escapes and escaped slashes."""
    return json.dumps(payload, ensure_ascii=True, separators=(",", ":")).replace("/", "\\/").encode()
