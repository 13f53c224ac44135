"""X3.5's HTML endpoints: forum index, thread list, thread pages, login, reply and edit.

Entry scripts dispatch on ``mod``/``action`` the way ``forum.php`` and ``member.php`` do;
``home.php`` (private messages) is :mod:`forumbot.simulator.x3.pm`'s.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from forumbot.simulator.agents import touch_decision
from forumbot.simulator.app import Visit
from forumbot.simulator.messages import Outcome
from forumbot.simulator.model import EDIT_STAMP_RE, GROUP_BANNED, GROUP_INACTIVE, Thread
from forumbot.simulator.wire import Request, Response, random_token
from forumbot.simulator.x3 import render, touch
from forumbot.simulator.x3.pm import X3PmRoutes
from forumbot.simulator.x3.messages import message


class X3Routes(X3PmRoutes):
    """Dispatch on script + ``mod``/``action`` the way Discuz's entry scripts do."""

    def route(self, req: Request, visit: Visit) -> Response:
        script = req.script or "forum.php"
        if script in ("forum.php", "index.php") and req.method == "GET":
            redirect = self.mobile_redirect(req)
            if redirect is not None:
                return redirect
        closed = self.data.settings.site_closed
        if script == "member.php":
            return self.member(req, visit)
        if closed is not None and req.path.endswith(".php"):
            if visit.viewer is None and req.method == "GET" and req.query.get("inajax"):
                # A closed site sends guests' ajax reads to the ajax login form (captured:
                # site_closed_viewthread_guest_inajax), not to the closed reason.
                url = ("member.php?mod=logging&action=login&handlekey=&infloat=yes&inajax=yes"
                       "&guestmessage=yes")
                return Response(302, b"", f"text/html; charset={self.charset}").location(url)
            return self.outcome(req, visit, self.closed_outcome(closed))
        if script == "home.php":
            return self.home(req, visit)
        if script in ("forum.php", "index.php"):
            mod = req.query.get("mod", "")
            handler = {"": self.index, "index": self.index, "forumdisplay": self.forumdisplay,
                       "viewthread": self.viewthread, "redirect": self.redirect,
                       "post": self.post, "topicadmin": self.topicadmin}.get(mod)
            if handler is not None:
                return handler(req, visit)
        return self.outcome(req, visit, message("undefined_action", status=404))

    def mobile_redirect(self, req: Request) -> Response | None:
        """``_init_mobile``: a desktop browser asking for ``mobile=2`` is sent back to the
        same page with ``mobile=no`` (captured note on viewthread_tid2_touch_page1)."""
        s = self.data.settings
        decision = touch_decision(req.user_agent, req.query.get("mobile", ""),
                                  req.cookies.get(self.cookiepre + "mobile", ""), s.mobile,
                                  s.mobile)
        if decision != "no-redirect":
            return None
        query = dict(parse_qsl(req.raw_target.partition("?")[2], keep_blank_values=True))
        query["mobile"] = "no"
        url = f"{self.site_url}{req.script or 'forum.php'}?{urlencode(query)}"
        return Response(302, b"", f"text/html; charset={self.charset}").location(url)

    # ---- reading ---------------------------------------------------------------------------
    def index(self, req: Request, visit: Visit) -> Response:
        return self.html(render.forum_index(self.ctx(visit), self.data.board_rows()))

    def forumdisplay(self, req: Request, visit: Visit) -> Response:
        fid = req.int_arg("fid")
        board = self.data.boards.get(fid)
        if board is None:
            return self.outcome(req, visit, message("forum_nonexistence"))
        if board.guests_barred and visit.viewer is None:
            return self.outcome(req, visit, message("viewperm_login_nopermission"))
        settings = self.data.settings
        rows, page, total = self.data.board_listing(
            fid, orderby=req.arg("orderby") or "lastpost", page=req.int_arg("page", 1),
            tpp=settings.tpp)
        if settings.forumdisplay_off:
            rows = []
        return self.html(render.forumdisplay(self.ctx(visit), board, rows, page, total,
                                             listing=not settings.forumdisplay_off))

    def viewthread(self, req: Request, visit: Visit) -> Response:
        thread = self.thread_or_none(req.int_arg("tid"))
        if thread is None:
            return self.outcome(req, visit, message("thread_nonexistence", status=404))
        authorid = req.int_arg("authorid") or None
        ordertype = req.int_arg("ordertype")
        shown, page, total = self.page_slice(thread, req.int_arg("page", 1), self.ppp,
                                             authorid, ordertype)
        with self.data.lock:
            thread.views += 1
        board = self.data.boards[thread.fid]
        if visit.touch and not req.inajax:
            return self.html(touch.viewthread_page(
                self.ctx(visit), board, thread, shown, page, total, ordertype,
                len(self.data.visible_posts(thread.tid)) - 1))
        return self.html(render.viewthread_page(
            self.ctx(visit), board, thread, shown, page, total,
            self.data.settings.captcha_post, authorid, ordertype))

    def redirect(self, req: Request, visit: Visit) -> Response:
        goto = req.query.get("goto", "")
        if goto == "findpost":
            post = self.post_or_none(req.int_arg("pid"))
            if post is None:
                return self.outcome(req, visit, message("post_nonexistence"))
            thread = self.data.thread(post.tid)
            page = self.page_of(thread, post.pid, self.ppp)
            if page is None:
                return self.outcome(req, visit, message("post_nonexistence"))
            url = f"forum.php?mod=viewthread&tid={thread.tid}&page={page}#pid{post.pid}"
            return Response(301, b"", f"text/html; charset={self.charset}").location(url)
        if goto == "lastpost":
            thread = self.thread_or_none(req.int_arg("tid") or req.int_arg("ptid"))
            if thread is None:
                return self.outcome(req, visit, message("thread_nonexistence", status=404))
            page = max(1, -(-len(self.data.visible_posts(thread.tid)) // self.ppp))
            url = f"forum.php?mod=viewthread&tid={thread.tid}&page={page}#lastpost"
            return Response(302, b"", f"text/html; charset={self.charset}").location(url)
        return self.outcome(req, visit, message("undefined_action"))

    # ---- posting ---------------------------------------------------------------------------
    def post(self, req: Request, visit: Visit) -> Response:
        newbie = self.newbie_outcome(visit)
        if newbie is not None:
            return self.outcome(req, visit, newbie)
        action = req.query.get("action", "")
        if action == "reply":
            if req.method == "POST" and req.arg("replysubmit"):
                return self.reply_submit(req, visit)
            return self.reply_form(req, visit)
        if action == "edit":
            if req.method == "POST" and req.arg("editsubmit"):
                return self.edit_submit(req, visit)
            return self.edit_form(req, visit)
        if action == "newthread":
            if req.method == "POST" and req.arg("topicsubmit"):
                return self.newthread_submit(req, visit)
            return self.newthread_form(req, visit)
        return self.outcome(req, visit, message("undefined_action"))

    # ---- new threads (post_newthread.php) --------------------------------------------------
    def newthread_access(self, req: Request, visit: Visit) -> Outcome | None:
        if self.data.boards.get(req.int_arg("fid")) is None:
            return message("forum_nonexistence")
        user = visit.viewer
        if user is None:
            return message("postperm_login_nopermission")
        if user.groupid in (GROUP_BANNED, GROUP_INACTIVE):
            return message("group_nopermission", grouptitle=user.grouptitle)
        return None

    def newthread_form(self, req: Request, visit: Visit) -> Response:
        refusal = self.newthread_access(req, visit)
        if refusal is not None:
            return self.outcome(req, visit, refusal)
        s = self.data.settings
        board = self.data.boards[req.int_arg("fid")]
        return self.html(render.newthread_form(self.ctx(visit), board, captcha=s.captcha_post,
                                               limits=(s.minpostsize, s.maxpostsize)))

    def newthread_submit(self, req: Request, visit: Visit) -> Response:
        """``submitcheck('topicsubmit', 0, $seccodecheck)`` → ``model_forum_thread::newthread``
        (subject, ``checkpost``, flood control) → stored, or held (审核新主题)."""
        refused = self.submitcheck(req, visit)
        if isinstance(refused, Response):
            return refused
        problem = refused or self.newthread_access(req, visit)
        s = self.data.settings
        if problem is None and s.captcha_post:
            problem = message("submit_seccode_invalid")
        subject = req.form.get("subject", "").strip()
        text = req.form.get("message", "")
        if problem is None and (not subject or not text.strip()):
            problem = message("post_sm_isnull")
        if problem is None and subject_length_x3(subject) > 255:
            problem = message("post_subject_toolong")
        if problem is None:
            problem = self.check_length_and_flood(visit, text)
        if problem is not None:
            return self.outcome(req, visit, problem)
        user = visit.viewer
        assert user is not None
        fid = req.int_arg("fid")
        held = s.moderate_threads
        tid, pid = self.data.add_thread(fid, subject, user.name, text, self.now(), held=held)
        values = {"fid": str(fid), "tid": str(tid), "pid": str(pid), "coverimg": "", "sechash": ""}
        if held:
            # The real X3.5 forwards a held thread to the thread too (seen on the lab forum).
            return self.outcome(req, visit, message(
                "post_newthread_mod_succeed", ok=True,
                url=f"forum.php?mod=viewthread&tid={tid}&extra=", **values))
        return self.outcome(req, visit, message(
            "post_newthread_succeed", ok=True, url=f"forum.php?mod=viewthread&tid={tid}&extra=",
            **values))

    # ---- thread moderation (forum_topicadmin.php) ------------------------------------------
    def topicadmin(self, req: Request, visit: Visit) -> Response:
        """Always answered as ajax (``$_G['inajax'] = 1``); a member who does not moderate
        the board is refused before anything else. Only ``action=moderate`` with
        ``optgroup=4`` (打开/关闭) is simulated."""
        req = req.as_ajax()
        fid = req.int_arg("fid")
        if not self.data.moderates(fid, visit.viewer):
            return self.outcome(req, visit, message("admin_nopermission"))
        if req.query.get("action") != "moderate":
            return self.outcome(req, visit, message("undefined_action"))
        tids = [int(t) for t in req.all_args("moderate[]") if t.isdigit()]
        threads = [t for t in (self.thread_or_none(tid) for tid in tids)
                   if t is not None and t.fid == fid and not t.held]
        if not threads:
            return self.outcome(req, visit, message("admin_moderate_invalid"))
        if not (req.method == "POST" and req.arg("modsubmit")):
            referer = req.headers.get("referer") or f"forum.php?mod=forumdisplay&fid={fid}"
            return self.xml(render.moderate_form(self.ctx(visit), self.data.boards[fid],
                                                 threads[0], referer))
        refused = self.submitcheck(req, visit)
        if isinstance(refused, Response):
            return refused
        if refused is not None:
            return self.outcome(req, visit, refused)
        operations = req.all_args("operations[]")
        if not operations:
            return self.outcome(req, visit, message("admin_nonexistence"))
        if any(op not in ("open", "close") for op in operations):
            return self.outcome(req, visit, message("admin_moderate_invalid"))
        with self.data.lock:
            for thread in threads:
                thread.closed = operations[-1] == "close"
        redirect = req.form.get("redirect") or f"forum.php?mod=forumdisplay&fid={fid}"
        return self.outcome(req, visit, message("admin_succeed", ok=True, url=redirect),
                            handlekey="mods")

    def reply_form(self, req: Request, visit: Visit) -> Response:
        thread = self.thread_or_none(req.int_arg("tid"))
        refusal = self.check_form_access(visit, thread)
        if refusal is not None:
            return self.outcome(req, visit, refusal)
        assert thread is not None
        hidden: dict[str, str] = {}
        qpid = req.int_arg("repquote") or req.int_arg("reppost")
        if qpid:
            quoted = self.post_or_none(qpid)
            if quoted is None:
                return self.outcome(req, visit, message("post_nonexistence"))
            trim = self.data.quote_block(qpid) if req.int_arg("repquote") else ""
            hidden = {"noticeauthor": random_token(43), "noticetrimstr": trim,
                      "noticeauthormsg": quoted.message[:100] if trim else "",
                      "reppid": str(qpid), "reppost": str(qpid)}
        board = self.data.boards[thread.fid]
        settings = self.data.settings
        return self.html(render.post_form(self.ctx(visit), board, thread, action="reply",
                                          hidden=hidden, captcha=settings.captcha_post,
                                          limits=(settings.minpostsize, settings.maxpostsize)))

    def check_form_access(self, visit: Visit, thread: Thread | None) -> Outcome | None:
        if visit.viewer is None:
            return message("replyperm_login_nopermission")
        if thread is None:
            return message("thread_nonexistence", status=404)
        # post.php: "$method == 'reply' && $thread['closed'] == 1 && !$_G['forum']['ismoderator']"
        if thread.closed and not self.data.moderates(thread.fid, visit.viewer):
            return message("post_thread_closed")
        return None

    def reply_submit(self, req: Request, visit: Visit) -> Response:
        refused = self.submitcheck(req, visit)
        if isinstance(refused, Response):
            return refused
        if refused is not None:
            return self.outcome(req, visit, refused)
        thread = self.thread_or_none(req.int_arg("tid"))
        text = req.form.get("message", "")
        problem = self.check_reply(visit, thread, text)
        if problem is not None:
            return self.outcome(req, visit, problem)
        assert thread is not None
        return self.outcome(req, visit, self.reply_outcome(visit, thread, self.reply_text(req)))

    def edit_form(self, req: Request, visit: Visit) -> Response:
        thread = self.thread_or_none(req.int_arg("tid"))
        refusal = self.check_form_access(visit, thread)
        if refusal is not None:
            return self.outcome(req, visit, refusal)
        assert thread is not None and visit.viewer is not None
        post = self.post_or_none(req.int_arg("pid"))
        if post is None:
            return self.outcome(req, visit, message("post_nonexistence"))
        if post.authorid != visit.viewer.uid:
            return self.outcome(req, visit, message("post_edit_nopermission"))
        board = self.data.boards[thread.fid]
        text = EDIT_STAMP_RE.sub("", post.message, count=1)
        return self.html(render.post_form(self.ctx(visit), board, thread, action="edit",
                                          message=text, page_no=req.int_arg("page", 1),
                                          pid=post.pid))

    def edit_submit(self, req: Request, visit: Visit) -> Response:
        refused = self.submitcheck(req, visit)
        if isinstance(refused, Response):
            return refused
        if refused is not None:
            return self.outcome(req, visit, refused)
        s = self.data.settings
        user = visit.viewer
        if user is None:
            return self.outcome(req, visit, message("replyperm_login_nopermission"))
        post = self.post_or_none(req.int_arg("pid"))
        if post is None:
            return self.outcome(req, visit, message("post_nonexistence"))
        thread = self.data.thread(post.tid)
        if post.authorid != user.uid or user.groupid != 10:
            return self.outcome(req, visit, message("post_edit_nopermission"))
        if thread.closed:
            return self.outcome(req, visit, message("post_thread_closed"))
        text = req.form.get("message", "")
        if self.post_size(text) < s.minpostsize:
            return self.outcome(req, visit, message(
                "post_message_tooshort", minpostsize=s.minpostsize, maxpostsize=s.maxpostsize))
        hold = s.moderate_replies and not post.first
        self.data.edit_post(post.pid, text, self.now(), user.name, hold=hold)
        if hold:
            return self.outcome(req, visit, message(
                "edit_reply_mod_succeed", ok=True, fid=thread.fid, tid=thread.tid, pid=post.pid,
                url=f"forum.php?mod=forumdisplay&fid={thread.fid}"))
        page = self.page_of(thread, post.pid, self.ppp) or 1
        url = f"forum.php?mod=viewthread&tid={thread.tid}&page={page}&extra=#pid{post.pid}"
        return self.outcome(req, visit, message(
            "post_edit_succeed", ok=True, url=url, fid=thread.fid, tid=thread.tid, pid=post.pid))

    # ---- member.php ------------------------------------------------------------------------
    def member(self, req: Request, visit: Visit) -> Response:
        if req.query.get("mod") != "logging":
            return self.outcome(req, visit, message("undefined_action"))
        action = req.query.get("action")
        if action == "logout":
            if req.query.get("formhash") != visit.formhash:
                return self.outcome(req, visit, message("submit_invalid"))
            self.log_out(visit)
            return self.outcome(req, visit, message("logout_succeed", ok=True,
                                                    url=self.site_url + "forum.php"))
        if action != "login":
            return self.outcome(req, visit, message("undefined_action"))
        if req.method != "POST" or not req.arg("loginsubmit"):
            loginhash = "L" + random_token(4)
            captcha = self.data.settings.captcha_login
            if req.inajax:
                form = render.login_form(self.ctx(visit), loginhash, captcha,
                                         req.arg("handlekey") or None)
                return self.xml(render.ajax_xml(self.charset, render.crlf(form)))
            return self.html(render.login_page(self.ctx(visit), loginhash, captcha))
        return self.login_submit(req, visit)

    def login_submit(self, req: Request, visit: Visit) -> Response:
        outcome, user = self.login_attempt(req, visit)
        handlekey = req.arg("handlekey") if not req.query.get("lssubmit") else ""
        if user is None:
            return self.outcome(req, visit, outcome, handlekey)
        self.log_in(visit, user, bool(req.form.get("cookietime")))
        url = outcome.url or self.site_url + "forum.php"
        if req.wants_json:
            return self.outcome(req, visit, outcome)
        if req.inajax:
            if req.query.get("lssubmit"):
                inner = (f"<script type=\"text/javascript\" reload=\"1\">window.location.href="
                         f"'{url}';</script>")
                return self.xml(render.ajax_xml(self.charset, inner))
            return self.xml(render.ajax_login_success(self.charset, url, outcome.text,
                                                      req.arg("handlekey")))
        return self.html(render.message_page(self.ctx(visit), outcome))


def subject_length_x3(subject: str) -> int:
    """``dstrlen``: a character beyond ASCII counts 2 (on UTF-8 and GBK alike)."""
    return sum(1 if ord(ch) < 0x80 else 2 for ch in subject)
