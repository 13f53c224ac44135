"""Discuz! 7.2's entry scripts: one handler per ``*.php``, as the real forum has one file each.

``index.php``, ``forumdisplay.php?fid=F``, ``viewthread.php?tid=T&page=N[&ordertype=1]
[&authorid=U]``, ``redirect.php?goto=findpost&pid=P&ptid=T`` (302 to the page) and
``?ptid=T&postno=N``, ``logging.php?action=login|logout``, ``post.php?action=reply|edit``.
Before any script, like ``include/common.inc.php``: scripts that define ``NOROBOT``
answer a robot 403 with an empty body, and a closed site answers everything but
``logging.php`` with its reason (logging the visitor out). Not simulated, and saying so
with a 404: registration, the archiver and the printable view. ``post.php?action=newthread``
and ``topicadmin.php?action=moderate`` (打开/关闭主题 only) are.
Private messages (``pm.php``) are :mod:`forumbot.simulator.d72.pm`'s.
"""

from __future__ import annotations

import math
from typing import Callable

from forumbot.simulator.app import Visit
from forumbot.simulator.d72 import render
from forumbot.simulator.d72.pm import D72PmRoutes
from forumbot.simulator.d72.messages import message
from forumbot.simulator.messages import Outcome
from forumbot.simulator.model import (
    EDIT_STAMP_RE,
    GROUP_BANNED,
    GROUP_INACTIVE,
    StoredPost,
    Thread,
    User,
    excerpt_d72,
)
from forumbot.simulator.wire import Request, Response

# 7.2 scripts that start with define('NOROBOT', TRUE) (of those a bot may touch).
NOROBOT = {"logging.php", "post.php", "pm.php", "register.php", "member.php", "memcp.php",
           "misc.php", "my.php", "search.php", "topicadmin.php", "ajax.php", "seccode.php",
           "notice.php", "task.php", "stats.php", "modcp.php", "attachment.php"}
NOT_SIMULATED = {"register.php": "registration",
                 "archiver": "the archiver", "printable": "the printable view"}
# common.inc.php lets these through a closed site.
OPEN_WHEN_CLOSED = {"logging.php", "seccode.php", "ajax.php"}


class D72Routes(D72PmRoutes):
    SCRIPTS: dict[str, str] = {
        "index.php": "index", "forumdisplay.php": "forumdisplay", "viewthread.php": "viewthread",
        "redirect.php": "redirect", "logging.php": "logging", "post.php": "post",
        "pm.php": "pm",  # private messages: forumbot.simulator.d72.pm
        "topicadmin.php": "topicadmin",
    }

    def route_any(self, req: Request, visit: Visit) -> Response:
        script = req.script or "index.php"
        if req.path.startswith("/archiver"):
            return self.not_simulated("archiver")
        if req.path.count("/") > 1:  # 7.2 has no api/mobile/ (nor other folders a bot uses)
            return self.not_simulated(req.path)
        if script in NOROBOT and visit.robot:
            return self.forbidden()
        closed = self.data.settings.site_closed
        if closed is not None and script not in OPEN_WHEN_CLOSED:
            self.clearcookies(visit)
            return self.outcome(req, visit, message("board_closed", text=closed or None,
                                                    extra="NOPERM",
                                                    adminemail=self.data.settings.adminemail))
        name = self.SCRIPTS.get(script)
        if name is None:
            return self.not_simulated(script)
        handler: Callable[[Request, Visit], Response] = getattr(self, name)
        return handler(req, visit)

    def not_simulated(self, what: str) -> Response:
        text = f"{NOT_SIMULATED.get(what, what)} is not simulated"
        return Response(404, text.encode(), "text/plain; charset=utf-8")

    # ---- index and lists -------------------------------------------------------------------
    def index(self, req: Request, visit: Visit) -> Response:
        return self.html(render.forum_index(self.ctx(visit), self.data.board_rows()))

    def forumdisplay(self, req: Request, visit: Visit) -> Response:
        board = self.data.boards.get(req.int_arg("fid"))
        if board is None:
            return self.outcome(req, visit, message("forum_nonexistence", extra="HALTED"))
        if board.guests_barred and visit.viewer is None:
            return self.outcome(req, visit, message("viewperm_login_nopermission"))
        settings = self.data.settings
        rows, page, total = self.data.board_listing(
            board.fid, orderby=req.arg("orderby") or "lastpost", page=req.int_arg("page", 1),
            tpp=settings.tpp)
        if settings.forumdisplay_off:
            rows = []
        return self.html(render.forumdisplay(self.ctx(visit), board, rows, page, total,
                                             listing=not settings.forumdisplay_off))

    # ---- viewthread.php --------------------------------------------------------------------
    def viewthread(self, req: Request, visit: Visit, page: int | None = None) -> Response:
        if req.query.get("action") == "printable":
            return self.not_simulated("printable")
        thread = self.thread_or_none(req.int_arg("tid"))
        if thread is None:
            return self.outcome(req, visit, message("thread_nonexistence"))
        authorid = req.int_arg("authorid") or None
        ordertype = req.int_arg("ordertype")
        visible = self.data.visible_posts(thread.tid, authorid)
        if not visible:
            return self.outcome(req, visit, message("undefined_action"))
        shown, page, total = self.page_slice(visible, max(page or req.int_arg("page", 1), 1),
                                             ordertype)
        with self.data.lock:
            thread.views += 1
        if not req.cookies.get(self.cookiepre + "visitedfid"):
            visit.set_cookies.append(self.cookie("visitedfid", str(thread.fid)))
        user = visit.viewer
        can_reply = (user is not None and (not thread.closed or self.data.moderates(thread.fid, user))
                     and self.reply_permission(visit, thread.fid) is None)
        return self.html(render.viewthread_page(
            self.ctx(visit), self.data.boards[thread.fid], thread, shown, page, total,
            authorid=authorid, ordertype=ordertype, can_reply=can_reply,
            captcha=self.data.settings.captcha_post))

    def page_slice(self, visible: list[StoredPost], page: int,
                   ordertype: int) -> tuple[list[render.ShownPost], int, int]:
        """viewthread.php: ``totalpage = ceil((replies + 1) / ppp)``, a later page is
        clamped to the last; forward order numbers posts ``++$numpost`` from
        ``(page - 1) * ppp``; ``ordertype=1`` lists the first post, then the rest newest
        first (``ORDER BY first DESC, dateline DESC``), numbering them down from
        ``replies + 2 - (page - 1) * ppp (+1 after page 1)`` while the first post stays 1."""
        ppp = self.ppp
        total = max(1, math.ceil(len(visible) / ppp))
        page = min(page, total)
        banned = self.banned_uids()
        start = (page - 1) * ppp
        if ordertype != 1:
            return [render.ShownPost(p, start + i + 1, p.authorid in banned)
                    for i, p in enumerate(visible[start:start + ppp])], page, total
        # Same-second posts: MySQL returned them in pid order within the second (the
        # captured ordertype=1 page 2 lists pids 17–20, then 11–15, then 6).
        ordered = ([p for p in visible if p.first]
                   + sorted((p for p in visible if not p.first),
                            key=lambda p: (-p.dateline.timestamp(), p.pid)))
        numpost = len(visible) - 1 + 2 - start + (1 if page > 1 else 0)
        shown = []
        for post in ordered[start:start + ppp]:
            if post.first:
                number = 1
            else:
                numpost -= 1
                number = numpost
            shown.append(render.ShownPost(post, number, post.authorid in banned))
        return shown, page, total

    # ---- redirect.php ----------------------------------------------------------------------
    def redirect(self, req: Request, visit: Visit) -> Response:
        goto = req.query.get("goto", "")
        ordertype = req.int_arg("ordertype")
        if not goto and req.int_arg("ptid"):
            return self.findpost(req, visit, self.pid_for_postno(req.int_arg("ptid"),
                                                                 req.int_arg("postno"), ordertype))
        if goto == "findpost":
            return self.findpost(req, visit, req.int_arg("pid"))
        if goto == "lastpost":
            thread = self.thread_or_none(req.int_arg("tid"))
            if thread is None:
                return self.outcome(req, visit, message("thread_nonexistence"))
            count = len(self.data.visible_posts(thread.tid))
            return self.viewthread(req, visit, page=max(1, math.ceil(count / self.ppp)))
        return self.outcome(req, visit, message("undefined_action", extra="HALTED"))

    def pid_for_postno(self, tid: int, postno: int, ordertype: int) -> int:
        visible = self.data.visible_posts(tid)
        if ordertype == 1 and postno <= 1:
            firsts = [p for p in visible if p.first]
            return firsts[0].pid if firsts else 0
        index = max(postno - 1, 0)
        return visible[index].pid if index < len(visible) else 0

    def findpost(self, req: Request, visit: Visit, pid: int) -> Response:
        """``goto=findpost``: 302 to ``viewthread.php?tid=T&rpid=P&ordertype=O&page=N#pidP``.

        The page counts the thread's posts up to this one (``dateline <=``; the
        simulator breaks same-second ties by pid), held ones included, as 7.2 does."""
        post = self.post_or_none(pid)
        ordertype = req.int_arg("ordertype")
        if post is None:
            ptid = req.int_arg("ptid")
            if ptid:
                return self.forward(f"viewthread.php?tid={ptid}", "location")
            return self.outcome(req, visit, message("post_check", ptid=ptid, extra="HALTED"))
        posts = self.data.thread_posts(post.tid)
        count = sum(1 for p in posts if (p.dateline, p.pid) <= (post.dateline, post.pid))
        if ordertype != 1:
            page = math.ceil(count / self.ppp)
        else:
            replies = len(self.data.visible_posts(post.tid)) - 1
            page = math.ceil((replies - count + 3) / self.ppp) if count > 1 else 1
        return self.forward(f"viewthread.php?tid={post.tid}&rpid={pid}&ordertype={ordertype}"
                            f"&page={max(page, 1)}#pid{pid}")

    # ---- logging.php -----------------------------------------------------------------------
    def logging(self, req: Request, visit: Visit) -> Response:
        action = req.query.get("action", "")
        if action == "logout" and req.arg("formhash"):
            if req.arg("formhash") == visit.formhash:
                self.log_out(visit)
            return self.outcome(req, visit, message("logout_succeed", url="index.php",
                                                    formhash=visit.formhash))
        if action != "login":
            return self.outcome(req, visit, message("undefined_action"))
        if visit.viewer is not None:
            return self.outcome(req, visit, message("login_succeed", url="index.php",
                                                    username=visit.viewer.name))
        loginperm = self.logincheck(req.client_ip)
        if not loginperm:
            return self.outcome(req, visit, message("login_strike"))
        captcha = self.data.settings.captcha_login
        if not req.arg("loginsubmit"):
            return self.html(render.login_page(self.ctx(visit), captcha))
        if captcha:  # submitcheck('loginsubmit', 1, $seccodecheck): the captcha only
            return self.outcome(req, visit, message("submit_seccode_invalid"))
        user, failure = self.userlogin(req)
        if user is None:
            self.loginfailed(req.client_ip)
            return self.outcome(req, visit, message(failure, url="logging.php?action=login",
                                                    loginperm=loginperm))
        try:
            cookietime = int(req.form.get("cookietime", "0") or 0)
        except ValueError:
            cookietime = 0
        self.log_in(visit, user, cookietime)
        referer = req.form.get("referer", "")
        url = referer if referer and "logging.php" not in referer else "index.php"
        if req.inajax:
            return self.xml(render.ajax_login_success(self.charset, user.grouptitle, user.name,
                                                      url))
        if not user.activated:
            return self.outcome(req, visit, message("login_succeed_inactive_member",
                                                    url="memcp.php", username=user.name))
        return self.outcome(req, visit, message("login_succeed", url=url, username=user.name))

    # ---- post.php --------------------------------------------------------------------------
    def post(self, req: Request, visit: Visit) -> Response:
        action = req.query.get("action", "")
        if action == "newthread":
            return self.newthread(req, visit)
        if action not in ("reply", "edit"):
            return self.outcome(req, visit, message("undefined_action", extra="HALTED"))
        thread = self.thread_or_none(req.int_arg("tid"))
        if thread is None:
            return self.outcome(req, visit, message("thread_nonexistence"))
        # post.php: "$action == 'reply' && $thread['closed'] == 1 && !$forum['ismoderator']"
        if action == "reply" and thread.closed and not self.data.moderates(thread.fid, visit.viewer):
            return self.outcome(req, visit, message("post_thread_closed"))
        newbie = self.newbie_outcome(visit)
        if newbie is not None:
            return self.outcome(req, visit, newbie)
        if action == "reply":
            return self.reply(req, visit, thread)
        return self.edit(req, visit, thread)

    def reply(self, req: Request, visit: Visit, thread: Thread) -> Response:
        s = self.data.settings
        refused = self.reply_permission(visit, thread.fid)
        if refused is not None:
            return self.outcome(req, visit, refused, captcha=s.captcha_login)
        if not req.arg("replysubmit"):
            return self.reply_form(req, visit, thread)
        user = visit.viewer
        assert user is not None
        problem = self.submitcheck(req, visit, s.captcha_post)
        text = req.form.get("message", "").strip()
        if problem is None and not text and not req.form.get("subject", "").strip():
            problem = message("post_sm_isnull")
        if problem is None and thread.closed and not self.data.moderates(thread.fid, user):
            problem = message("post_thread_closed")
        if problem is None:
            problem = self.post_checks(user, text)
        if problem is not None:
            return self.outcome(req, visit, problem)
        return self.outcome(req, visit, self.reply_outcome(req, user, thread, text))

    def reply_outcome(self, req: Request, user: User, thread: Thread, text: str) -> Outcome:
        """Store; ``post_reply_mod_succeed`` (to the forum list, no pid) when held, else
        ``post_reply_succeed`` to ``viewthread.php?tid=T&pid=P&page=N&extra=E#pidP`` with
        ``page = ceil((replies + 2) / ppp)`` counted before this reply."""
        replies = len(self.data.visible_posts(thread.tid)) - 1
        pid, held = self.store_reply(user, thread, text)
        if held:
            return message("post_reply_mod_succeed", url=f"forumdisplay.php?fid={thread.fid}")
        page = math.ceil((replies + 2) / self.ppp)
        extra = req.arg("extra")
        return message("post_reply_succeed", fid=thread.fid,
                       url=f"viewthread.php?tid={thread.tid}&pid={pid}&page={page}&extra={extra}#pid{pid}")

    def reply_form(self, req: Request, visit: Visit, thread: Thread) -> Response:
        """``post.php?action=reply``: with ``repquote=P`` the quote block is already in the
        textarea (and in ``noticetrimstr``); the reply is sent as written."""
        hidden: dict[str, str] = {}
        text = ""
        qpid = req.int_arg("repquote")
        if qpid:
            quoted = self.post_or_none(qpid)
            if quoted is None or quoted.tid != thread.tid or quoted.invisible != 0:
                return self.outcome(req, visit, message("undefined_action", extra="HALTED"))
            text = self.data.quote_block(qpid)
            hidden = {"noticeauthor": f"q|{quoted.authorid}|{quoted.author}",
                      "noticetrimstr": text,
                      "noticeauthormsg": excerpt_d72(quoted.message, self.charset)}
        return self.html(render.post_form(self.ctx(visit), self.data.boards[thread.fid], thread,
                                          action="reply", message=text, hidden=hidden,
                                          captcha=self.data.settings.captcha_post,
                                          limits=(self.data.settings.minpostsize,
                                                  self.data.settings.maxpostsize)))

    def edit(self, req: Request, visit: Visit, thread: Thread) -> Response:
        s = self.data.settings
        post = self.post_or_none(req.int_arg("pid"))
        if post is None or post.tid != thread.tid:
            return self.outcome(req, visit, message("undefined_action"))
        user = visit.viewer
        if user is None or user.uid != post.authorid:
            return self.outcome(req, visit, message("post_edit_nopermission", extra="HALTED"))
        if not req.arg("editsubmit"):
            return self.html(render.post_form(
                self.ctx(visit), self.data.boards[thread.fid], thread, action="edit",
                message=EDIT_STAMP_RE.sub("", post.message, count=1),
                page_no=req.int_arg("page", 1), pid=post.pid))
        problem = self.submitcheck(req, visit, False)
        text = req.form.get("message", "").strip()
        if problem is None:
            problem = self.post_checks(user, text, check_flood=False)
        if problem is None and not text and not req.form.get("subject", "").strip():
            problem = message("post_sm_isnull")
        if problem is not None:
            return self.outcome(req, visit, problem)
        hold = s.moderate_replies and not post.first
        self.data.edit_post(post.pid, text, self.now(), user.name, hold=hold)
        if hold:
            return self.outcome(req, visit, message("edit_reply_mod_succeed",
                                                    url=f"forumdisplay.php?fid={thread.fid}"))
        url = (f"viewthread.php?tid={thread.tid}&page={req.arg('page') or 1}"
               f"&extra={req.arg('extra')}#pid{post.pid}")
        return self.outcome(req, visit, message("post_edit_succeed", url=url, fid=thread.fid))


    # ---- post.php?action=newthread (include/newthread.inc.php) -------------------------------
    def newthread(self, req: Request, visit: Visit) -> Response:
        """The board, then ``postperm`` (guests and groups without it: the login-box page),
        the newbie period, the form — or ``submitcheck`` (captcha), empty subject or
        message, ``checkpost`` (subject over 80 bytes, message length), ``checkflood``;
        stored (302 to the thread) or held (审核新主题: a message, no tid)."""
        s = self.data.settings
        fid = req.int_arg("fid")
        board = self.data.boards.get(fid)
        if board is None:
            return self.outcome(req, visit, message("forum_nonexistence"))
        user = visit.viewer
        if user is None:
            return self.outcome(req, visit, message("postperm_login_nopermission", extra="NOPERM"),
                                captcha=s.captcha_login)
        if user.groupid in (GROUP_BANNED, GROUP_INACTIVE):
            return self.outcome(req, visit, message("group_nopermission", extra="NOPERM",
                                                    grouptitle=user.grouptitle))
        newbie = self.newbie_outcome(visit)
        if newbie is not None:
            return self.outcome(req, visit, newbie)
        if not req.arg("topicsubmit"):
            return self.html(render.newthread_form(self.ctx(visit), board, captcha=s.captcha_post,
                                                   limits=(s.minpostsize, s.maxpostsize)))
        problem = self.submitcheck(req, visit, s.captcha_post)
        subject = req.form.get("subject", "").strip()
        text = req.form.get("message", "").strip()
        if problem is None and (not subject or not text):
            problem = message("post_sm_isnull")
        if problem is None and len(subject.encode(self.charset, "xmlcharrefreplace")) > 80:
            problem = message("post_subject_toolong")
        if problem is None:
            problem = self.post_checks(user, text)
        if problem is not None:
            return self.outcome(req, visit, problem)
        now = self.now()
        tid, _pid = self.data.add_thread(fid, subject, user.name, text, now,
                                         held=s.moderate_threads)
        if s.moderate_threads:
            return self.outcome(req, visit, message("post_newthread_mod_succeed",
                                                    url=f"forumdisplay.php?fid={fid}"))
        with self.data.lock:
            user.last_post_at = now  # the member's lastpost: checkflood() counts from it
        return self.outcome(req, visit, message("post_newthread_succeed", fid=fid,
                                                url=f"viewthread.php?tid={tid}&extra={req.arg('extra')}"))

    # ---- topicadmin.php (include/moderation.inc.php) ---------------------------------------
    def topicadmin(self, req: Request, visit: Visit) -> Response:
        """A member who does not moderate the board: 您没有权限使用管理功能 (HALTED) first;
        then ``action=moderate``: no thread of the board named → 您没有选择主题; the form;
        ``modsubmit``: ``operations[]`` open/close → 302 back (admin_succeed)."""
        fid = req.int_arg("fid")
        if not self.data.moderates(fid, visit.viewer):
            return self.outcome(req, visit, message("admin_nopermission", extra="HALTED"))
        if req.query.get("action") != "moderate":
            return self.outcome(req, visit, message("undefined_action", extra="HALTED"))
        tids = [int(t) for t in req.all_args("moderate[]") if t.isdigit()]
        threads = [t for t in (self.thread_or_none(tid) for tid in tids)
                   if t is not None and t.fid == fid and not t.held]
        if not threads:
            return self.outcome(req, visit, message("admin_moderate_invalid"))
        if not req.arg("modsubmit"):
            return self.html(render.moderate_form(self.ctx(visit), self.data.boards[fid],
                                                  threads[0], req.arg("operation")))
        problem = self.submitcheck(req, visit, False)
        if problem is not None:
            return self.outcome(req, visit, problem)
        operations = req.all_args("operations[]")
        if not operations:
            return self.outcome(req, visit, message("admin_nonexistence"))
        if any(op not in ("open", "close") for op in operations):
            return self.outcome(req, visit, message("undefined_action"))
        with self.data.lock:
            for thread in threads:
                thread.closed = operations[-1] == "close"
        # The real 7.2 answers 302 to the board's list (seen on the lab forum: its $referer
        # is forumdisplay.php?fid=F& whatever page the form was read from).
        return self.outcome(req, visit, message("admin_succeed", url=f"forumdisplay.php?fid={fid}&"))
