"""The mobile API (``api/mobile/index.php?version=4&module=…``), shaped like the captures.

Envelope: ``{"Version","Charset","Variables":{…},"Message":{"messageval","messagestr"}}``,
every scalar a string, JSON ASCII-escaped even on GBK sites. ``module=check`` follows
X3.5's ``api/4/check.php``: the site facts (``discuzversion`` "X3.2" for old clients,
``truediscuzversion`` "X3.5", ``charset`` …) when the API is on, an empty JSON list ``[]``
when it is off; every other module then answers ``{"error":"mobile_is_closed"}``.
Login with ``version=4`` answers JSON here (the captured X3.5 build crashed with a 503
after logging in; set ``Settings.api_v4_login_crash`` to reproduce that).
"""

from __future__ import annotations

from forumbot.simulator import bbcode
from forumbot.simulator.app import Visit
from forumbot.simulator.dates import absolute_minutes, post_time_api
from forumbot.simulator.messages import Outcome
from forumbot.simulator.wire import Request, Response
from forumbot.simulator.x3.app import api_json
from forumbot.simulator.x3.messages import message
from forumbot.simulator.x3.routes import X3Routes

POSTNO = ["<sup>#</sup>", "楼主", "沙发", "板凳", "地板"]


class MobileApi(X3Routes):
    def api(self, req: Request, visit: Visit) -> Response:
        s = self.data.settings
        module = req.query.get("module", "")
        if module == "check":
            return self.api_out(self.api_check() if s.mobile_api else [])
        if not s.mobile_api:
            return self.api_out({"error": "mobile_is_closed"})
        if s.site_closed is not None:
            return self.api_out({"error": s.site_closed})
        handler = {"viewthread": self.api_viewthread, "login": self.api_login,
                   "sendreply": self.api_sendreply, "forumdisplay": self.api_forumdisplay,
                   "forumindex": self.api_forumindex, **self.api_pm_modules()}.get(module)
        if handler is None:
            return self.api_out({"error": "module_not_exists"})
        return handler(req, visit)

    def api_out(self, payload: object, status: int = 200) -> Response:
        return Response(status, api_json(payload), "application/json")

    def envelope(self, req: Request, visit: Visit, variables: dict[str, object],
                 outcome: Outcome | None = None, message_key: str | None = None) -> dict[str, object]:
        user = visit.viewer
        base: dict[str, object] = {
            "cookiepre": self.cookiepre, "auth": visit.auth, "saltkey": visit.saltkey,
            "member_uid": str(user.uid if user else 0),
            "member_username": user.name if user else "",
            "member_avatar": f"{self.site_url}uc_server/avatar.php?uid={user.uid if user else 0}"
                             "&size=small&ts=1",
            "groupid": str(user.groupid if user else 7), "formhash": visit.formhash,
            "ismoderator": "0", "readaccess": "10" if user else "1",
            "notice": {"newpush": "0",
                       "newpm": "1" if user and user.uid in self.ucenter.member_newpm else "0",
                       "newprompt": "0", "newmypost": "0"},
        }
        base.update(variables)
        out: dict[str, object] = {"Version": req.query.get("version", "4"),
                                  "Charset": self.charset.upper(), "Variables": base}
        if outcome is not None:
            key = message_key or outcome.key
            out["Message"] = {"messageval": key, "messagestr": f"mobile:{outcome.key}"}
        return out

    def api_check(self) -> dict[str, str]:
        with self.data.lock:
            posts = len([p for p in self.data.posts.values() if p.invisible == 0])
            members = len(self.data.users)
        return {"discuzversion": "X3.2", "truediscuzversion": "X3.5",
                "charset": self.charset.upper(), "version": "4", "pluginversion": "1.4.8",
                "regname": "register", "qqconnect": "0", "wsqqqconnect": "0",
                "wsqhideregister": "0", "sitename": self.data.settings.bbname, "mysiteid": "",
                "ucenterurl": self.site_url + "uc_server", "defaultfid": "",
                "totalposts": str(posts), "totalmembers": str(members)}

    def api_viewthread(self, req: Request, visit: Visit) -> Response:
        thread = self.thread_or_none(req.int_arg("tid"))
        ppp = req.int_arg("ppp") or self.ppp
        common = {"ppp": str(ppp), "cache_custominfo_postno": POSTNO, "forum": {"password": "0"}}
        if thread is None:
            variables = {"thread": {"allreplies": "0", "lastpost": "1970-1-1 08:00"},
                         "fid": "0", "postlist": [], **common}
            out = self.envelope(req, visit, variables, message("thread_nonexistence"))
            return self.api_out(out, 404)
        shown, page, total = self.page_slice(thread, req.int_arg("page", 1), ppp,
                                             req.int_arg("authorid") or None,
                                             req.int_arg("ordertype"))
        visible = self.data.visible_posts(thread.tid)
        s = self.data.settings
        now = self.now()
        postlist = []
        for item in shown:
            p = item.post
            if item.author_banned:
                html = "提示: <em>作者被禁止或删除 内容自动屏蔽</em>"
            elif p.blocked:
                html = "提示: <em>该帖被管理员或版主屏蔽</em>"
            else:
                html = bbcode.render(p.message, self.site_url, "api")
            postlist.append({
                "pid": str(p.pid), "tid": str(p.tid), "first": "1" if p.first else "0",
                "author": p.author, "authorid": str(p.authorid),
                "dateline": post_time_api(p.dateline, now, s.dateconvert), "message": html,
                "anonymous": "0", "attachment": "0", "status": "0", "replycredit": "0",
                "position": str(p.position), "username": p.author,
                "adminid": "-1" if item.author_banned else "0",
                "groupid": "4" if item.author_banned else "10", "memberstatus": "0",
                "number": str(item.number), "dbdateline": str(int(p.dateline.timestamp())),
                "groupiconid": None if item.author_banned else "1"})
        last = visible[-1] if visible else None
        variables = {
            "thread": {
                "tid": str(thread.tid), "fid": str(thread.fid), "author": thread.author,
                "authorid": str(thread.authorid), "subject": thread.subject,
                "dateline": str(int(thread.dateline.timestamp())),
                "lastpost": absolute_minutes(last.dateline.astimezone(now.tzinfo)) if last else "",
                "lastposter": last.author if last else "", "views": str(thread.views),
                "replies": str(max(0, len(visible) - 1)), "closed": "1" if thread.closed else "0",
                "maxposition": str(thread.maxposition), "allreplies": str(max(0, len(visible) - 1)),
                "short_subject": thread.subject, "ordertype": str(req.int_arg("ordertype")),
                "page": str(page), "totalpage": str(total)},
            "fid": str(thread.fid), "postlist": postlist, "allowpostcomment": ["1", "2"],
            "comments": [], "commentcount": [], **common}
        return self.api_out(self.envelope(req, visit, variables))

    def api_forumdisplay(self, req: Request, visit: Visit) -> Response:
        """``module=forumdisplay`` (captured: mobileapi-forumdisplay-fid3.json): the rows'
        strings, ``dblastpost`` in unix seconds, ``displayorder`` for stickies, ``tpp`` and
        the page; ``forum.threads`` counts the board's threads (the page count)."""
        fid = req.int_arg("fid")
        board = self.data.boards.get(fid)
        if board is None:
            return self.api_out(self.envelope(req, visit, {}, message("forum_nonexistence"),
                                              "forum_nonexistence"))
        if board.guests_barred and visit.viewer is None:
            return self.api_out(self.envelope(req, visit, {}, message("viewperm_login_nopermission"),
                                              "viewperm_login_nopermission"))
        settings = self.data.settings
        now = self.now()
        rows, page, total = self.data.board_listing(
            fid, orderby=req.arg("orderby") or "lastpost", page=req.int_arg("page", 1),
            tpp=settings.tpp)
        with self.data.lock:
            count = sum(1 for t in self.data.threads.values() if t.fid == fid)
            threadlist = [{
                "tid": str(r.thread.tid), "typeid": "0", "readperm": "0", "price": "0",
                "author": r.thread.author, "authorid": str(r.thread.authorid),
                "subject": r.thread.subject,
                "dateline": post_time_api(r.thread.dateline, now, settings.dateconvert),
                "lastpost": post_time_api(r.lastpost, now, settings.dateconvert),
                "lastposter": r.lastposter, "views": str(r.thread.views),
                "replies": str(r.replies), "displayorder": str(r.thread.displayorder),
                "digest": "0", "special": "0", "attachment": "0", "recommend_add": "0",
                "replycredit": "0", "dbdateline": str(int(r.thread.dateline.timestamp())),
                "dblastpost": str(int(r.lastpost.timestamp())), "rushreply": "0",
                "closed": "1" if r.thread.closed else "0",
            } for r in rows]
        forum = {"fid": str(fid), "picstyle": "0", "fup": "1", "name": board.name,
                 "threads": str(count), "posts": str(sum(r.replies + 1 for r in rows)),
                 "autoclose": "0", "threadcount": str(count), "password": "0"}
        return self.api_out(self.envelope(req, visit, {
            "forum": forum, "forum_threadlist": threadlist, "sublist": [],
            "tpp": str(settings.tpp), "page": str(page)}))

    def api_forumindex(self, req: Request, visit: Visit) -> Response:
        with self.data.lock:
            forums = [{"fid": str(b.fid), "name": b.name,
                       "threads": str(sum(1 for t in self.data.threads.values() if t.fid == b.fid))}
                      for b in self.data.boards.values()]
        return self.api_out(self.envelope(req, visit, {"forumlist": forums}))

    def api_login(self, req: Request, visit: Visit) -> Response:
        if req.method != "POST" or not req.arg("loginsubmit"):
            return self.api_out(self.envelope(req, visit, {}))
        outcome, user = self.login_attempt(req, visit)
        if user is not None:
            self.log_in(visit, user, True)
            if req.query.get("version", "4") == "4" and self.data.settings.api_v4_login_crash:
                return self.system_error("source/plugin/wechat/wsq.class.php")
        return self.api_out(self.envelope(req, visit, {}, outcome))

    def api_sendreply(self, req: Request, visit: Visit) -> Response:
        tid = req.int_arg("tid")
        extra = {"tid": str(tid), "pid": "0"}
        newbie = self.newbie_outcome(visit)  # sendreply runs forum_post.php: cknewuser()
        if newbie is not None:
            return self.api_out(self.envelope(req, visit, extra, newbie))
        refused = self.submitcheck(req, visit)
        if isinstance(refused, Response):
            return refused
        if refused is not None:
            return self.api_out(self.envelope(req, visit, extra, refused))
        thread = self.thread_or_none(tid)
        problem = self.check_reply(visit, thread, req.form.get("message", ""))
        if problem is not None:
            key = problem.key + ("//1" if problem.key == "replyperm_login_nopermission" else "")
            return self.api_out(self.envelope(req, visit, extra, problem, key))
        assert thread is not None
        outcome = self.reply_outcome(visit, thread, self.reply_text(req))
        extra["pid"] = outcome.params.get("pid", "0")
        return self.api_out(self.envelope(req, visit, extra, outcome))
