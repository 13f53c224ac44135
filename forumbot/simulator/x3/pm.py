"""X3.5's private-message routes: ``home.php?mod=spacecp&ac=pm`` (send forms, sending,
the 发消息 popup, ``op=checknewpm``) and ``home.php?mod=space&do=pm`` (the inbox and a
conversation), following ``source/include/spacecp/spacecp_pm.php`` and
``source/include/space/space_pm.php`` of X3.5 over :class:`~forumbot.simulator.pm.UcenterX3`.

Sending (``op=send``), in the source's order:

1. ``interval_check('post')``: refused with ``message_can_not_send_2`` while the sender's
   ``lastpost`` is less than ``floodctrl`` seconds old — any post or PM sets it, so a
   thread reply is followed by a PM only after 15 s. (A thread *reply* is checked against
   the ``post_lock_UID`` lock instead, which a PM does not take; see docs/decisions.md.)
2. ``cknewuser()``, then ``submitcheck('pmsubmit')`` (no submit: the page is drawn).
3. By the recipient's ``touid`` (the popup, the API), by ``pmid`` (the conversation's
   reply form: the conversation of that message, recipient ``topmuid``), or by
   ``username`` (the full page, the API): ``message_bad_touid`` / ``message_bad_touser``
   for nobody; an empty message ``unable_to_send_air_news``.
4. UCenter's own ``pmfloodctrl`` (15 s since the sender's last PM, ``<=``): return -2,
   ``message_can_not_send_2`` again; sending to oneself -8.
5. Stored: ``lastpost`` = now; ``do_success`` — with ``{'pmid': N}`` for the touid and
   pmid paths (ajax: ``succeedhandle_KEY``; a page: 301), without for the username path
   (a bare 301 to ``home.php?mod=space&do=pm``).
"""

from __future__ import annotations

from datetime import timedelta

from forumbot.simulator.app import Visit
from forumbot.simulator.dates import post_time_api
from forumbot.simulator.messages import Outcome
from forumbot.simulator.model import GROUP_BANNED, GROUP_INACTIVE, User
from forumbot.simulator.pm import PmList, PmMember, UcenterX3, uc_compile
from forumbot.simulator.wire import Request, Response
from forumbot.simulator.x3 import pm_render
from forumbot.simulator.x3.app import X3App
from forumbot.simulator.x3.messages import message

PMFLOODCTRL = 15  # uc_settings pmfloodctrl (uc_server/install/uc.sql)
PAGE_PERPAGE = 10  # space_pm.php: a conversation page
API_PERPAGE = 5  # the same in IN_MOBILE (the mobile API)
INBOX_PERPAGE = 15


class X3PmRoutes(X3App):
    """``home.php``'s PM family; the mobile API's ``mypm``/``sendpm``/``checknewpm`` reuse it."""

    @property
    def ucenter(self) -> UcenterX3:
        store = self.data.pms
        assert isinstance(store, UcenterX3)
        return store

    def home(self, req: Request, visit: Visit) -> Response:
        mod = req.query.get("mod", "")
        if mod == "spacecp" and req.query.get("ac") == "pm":
            return self.spacecp_pm(req, visit)
        if mod == "space" and req.query.get("do") == "pm":
            return self.space_pm(req, visit)
        return self.outcome(req, visit, message("undefined_action", status=404))

    # ---- spacecp_pm.php ----------------------------------------------------------------
    def spacecp_pm(self, req: Request, visit: Visit) -> Response:
        op = req.query.get("op", "")
        if visit.viewer is None:
            if op == "checknewpm":
                return self.checknewpm(visit)
            return self.outcome(req, visit, message("to_login"))
        if op == "checknewpm":
            return self.checknewpm(visit)
        if op == "showmsg":
            return self.showmsg(req, visit)
        if op == "send":
            outcome, _ = self.pm_send(req, visit)
            if outcome is None:  # no submit: the send page
                return self.html(pm_render.send_form_page(self.ctx(visit)))
            if isinstance(outcome, Response):
                return outcome
            return self.outcome(req, visit, outcome)
        return self.html(pm_render.send_form_page(self.ctx(visit)))

    def checknewpm(self, visit: Visit) -> Response:
        """An empty script; sets ``common_member.newpm`` from UCenter and ``checkpm``."""
        if visit.viewer is not None:
            self.ucenter.checknewpm(visit.viewer.uid)
        response = Response(200, b"", "text/javascript;charset=UTF-8")
        response.cookies.append(self.cookie("checkpm", "1", max_age=30))
        return response

    def showmsg(self, req: Request, visit: Visit) -> Response:
        assert visit.viewer is not None
        touid = req.int_arg("touid")
        other = self.data.users.get(touid)
        now = self.now()
        # daterange=2: since yesterday's midnight (``dateline > today - 86400``)
        start = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
        _, _, shown = self.ucenter.view(visit.viewer.uid, touid, now, None, 10 ** 6)
        users = self.data.users
        messages = [(m, users[m.fromuid].name if m.fromuid in users else "")
                    for m in shown if m.at > start]
        if not req.arg("msgonly"):
            self.ucenter.open_inbox(visit.viewer.uid)
        return self.xml(pm_render.popup_xml(self.ctx(visit), other, touid, messages,
                                            online=touid in self.online_uids()))

    def online_uids(self) -> set[int]:
        with self._lock:
            return set(self.auth_tokens.values())

    def pm_send(self, req: Request, visit: Visit) -> tuple[Outcome | Response | None, int | None]:
        """``op=send``: (the answer, the value the API reports as ``pmid``). ``None`` for
        the answer means no submit: the caller draws the page."""
        user = visit.viewer
        assert user is not None
        s = self.data.settings
        now = self.now().replace(microsecond=0)
        if s.floodctrl and user.last_post_at is not None:
            waited = int(now.timestamp()) - int(user.last_post_at.timestamp())
            if s.floodctrl - waited > 0:
                with self.data.lock:
                    self.data.pm_flood_refusals += 1
                return message("message_can_not_send_2"), None
        newbie = self.newbie_outcome(visit)
        if newbie is not None:
            return newbie, None
        if user.groupid in (GROUP_BANNED, GROUP_INACTIVE):
            return message("group_nopermission", grouptitle=user.grouptitle), None
        if not req.arg("pmsubmit"):
            return None, None
        refused = self.submitcheck(req, visit)
        if refused is not None:
            return refused, None
        text = (req.form.get("messageappend", "") + "\n" if req.form.get("messageappend") else "")
        text += req.form.get("message", req.query.get("message", "")).strip()
        touid = req.int_arg("touid") or req.int_arg("uid")
        pmid = req.int_arg("pmid")
        username = req.form.get("username", "").strip()
        if not text:
            return message("unable_to_send_air_news"), 0
        if touid:
            if touid not in self.data.users:
                return message("message_bad_touid"), 0
            to = self.data.users[touid]
        elif pmid:
            replied = self.ucenter.message(pmid)
            if replied is None:
                return message("message_can_not_send_11"), -11
            members = {replied.fromuid, replied.touid}
            if user.uid not in members:
                return message("message_can_not_send_12"), -12
            to = self.data.users[(members - {user.uid}).pop()]
        elif username:
            found = self.data.user_by_name(username)
            if found is None:
                return message("message_bad_touser"), 0
            if found.uid == user.uid:
                return message("message_can_not_send_to_self"), 0
            to = found
        else:
            return message("message_can_not_send_9"), 0
        if to.uid == user.uid:
            return message("message_can_not_send_8"), -8
        last = self.ucenter.last_sent(user.uid)
        if last is not None and int(now.timestamp()) - int(last.timestamp()) <= PMFLOODCTRL:
            with self.data.lock:
                self.data.pm_flood_refusals += 1
            return message("message_can_not_send_2"), -2
        new_pmid = self.ucenter.send(user.uid, to.uid, text, now)
        with self.data.lock:
            user.last_post_at = now  # common_member_status.lastpost
        if username and not touid and not pmid:
            return message("do_success", ok=True, url="home.php?mod=space&do=pm",
                           users="", succeed="1"), new_pmid
        return message("do_success", ok=True,
                       url=f"home.php?mod=space&do=pm&subop=view&touid={touid}",
                       pmid=new_pmid), new_pmid

    # ---- space_pm.php --------------------------------------------------------------------
    def space_pm(self, req: Request, visit: Visit) -> Response:
        if visit.viewer is None:
            return self.outcome(req, visit, message("to_login"))
        if req.query.get("subop") == "view":
            touid = req.int_arg("touid")
            if not touid:
                return self.outcome(req, visit, message("parameters_error"))
            return self.html(self.view_html(visit, touid, req.int_arg("page")))
        filter_ = req.query.get("filter", "")
        filter_ = filter_ if filter_ in ("newpm", "privatepm") else "privatepm"
        ctx = self.ctx(visit)  # drawn with the indicator as it was before the list cleared it
        rows, newpm = self.inbox(visit.viewer, filter_)
        entries = [pm_render.inbox_entry(ctx, conv, member, self.data.users.get(touid), touid)
                   for conv, member, touid in rows]
        return self.html(pm_render.inbox_page(ctx, entries, filter_, newpm))

    def inbox(self, viewer: User, filter_: str) -> tuple[list[tuple[PmList, PmMember, int]], int]:
        """``uc_pm_list`` (which clears ``uc_newpm``), the unread count, and clearing
        ``common_member.newpm``: (rows of (conversation, member, other uid), unread)."""
        uc = self.ucenter
        rows = []
        for conv, member in uc.conversations(viewer.uid, filter_ == "newpm")[:INBOX_PERPAGE]:
            touid = conv.pair[0] if conv.pair[1] == viewer.uid else conv.pair[1]
            rows.append((conv, member, touid))
        newpm = uc.unread_conversations(viewer.uid)
        uc.open_inbox(viewer.uid)
        return rows, newpm

    def view_html(self, visit: Visit, touid: int, page: int) -> str:
        assert visit.viewer is not None
        count, shown_page, shown = self.ucenter.view(visit.viewer.uid, touid, self.now(), page,
                                                     PAGE_PERPAGE)
        ctx = self.ctx(visit)
        users = self.data.users
        entries = [pm_render.message_entry(ctx, m, users.get(m.fromuid), i == len(shown) - 1)
                   for i, m in enumerate(shown)]
        total = max(1, -(-count // PAGE_PERPAGE))
        return pm_render.view_page(ctx, users.get(touid), touid, count, entries,
                                   shown[0].pmid if shown else 0, shown_page, total)

    # ---- the mobile API (api/mobile/index.php?version=4&module=…) ----------------------
    # These run the same spacecp/space code as the pages (the API modules include
    # home.php); ``envelope``/``api_out`` are the MobileApi's.
    def api_pm_modules(self) -> dict:
        return {"mypm": self.api_mypm, "sendpm": self.api_sendpm,
                "checknewpm": self.api_checknewpm}

    def api_checknewpm(self, req: Request, visit: Visit) -> Response:
        return self.checknewpm(visit)

    def api_sendpm(self, req: Request, visit: Visit) -> Response:
        if visit.viewer is None:
            out = self.envelope(req, visit, {"pmid": None}, message("to_login"), "to_login//1")
            return self.api_out(out)
        outcome, value = self.pm_send(req, visit)
        if isinstance(outcome, Response):
            return outcome
        variables = {"pmid": None if value is None else str(value)}
        if outcome is None:
            return self.api_out(self.envelope(req, visit, variables))
        return self.api_out(self.envelope(req, visit, variables, outcome))

    def api_mypm(self, req: Request, visit: Visit) -> Response:
        user = visit.viewer
        if user is None:
            out = self.envelope(req, visit, {"list": []}, message("to_login"), "to_login//1")
            return self.api_out(out)
        now = self.now()
        if req.query.get("subop") == "view":
            touid = req.int_arg("touid")
            count, shown_page, shown = self.ucenter.view(user.uid, touid, now,
                                                         req.int_arg("page"), API_PERPAGE)
            plid = self.ucenter.plid_for(user.uid, touid) or 0
            subject = self.ucenter.lists[plid].subject if plid in self.ucenter.lists else ""
            users = self.data.users
            items = [{"plid": str(m.plid), "subject": subject, "pmid": str(m.pmid),
                      "message": uc_compile(m.text), "touid": str(m.touid),
                      "msgfromid": str(m.fromuid),
                      "msgfrom": users[m.fromuid].name if m.fromuid in users else "",
                      "vdateline": post_time_api(m.at, now)} for m in shown]
            variables = {"list": items, "count": str(count), "perpage": str(API_PERPAGE),
                         "page": str(shown_page), "pmid": str(shown[0].pmid) if shown else "0"}
            return self.api_out(self.envelope(req, visit, variables))
        filter_ = req.query.get("filter", "")
        filter_ = filter_ if filter_ in ("newpm", "privatepm") else "privatepm"
        rows, _ = self.inbox(user, filter_)
        users = self.data.users
        items = []
        for conv, member, touid in rows:
            last = conv.last_authorid
            items.append({
                "plid": str(conv.plid), "isnew": "1" if member.isnew else "0",
                "subject": conv.subject, "touid": str(touid), "pmid": str(conv.plid),
                "msgfromid": str(last), "msgfrom": users[last].name if last in users else "",
                "message": conv.last_summary,
                "tousername": users[touid].name if touid in users else "",
                "vdateline": post_time_api(member.lastdateline, now)})
        variables = {"list": items, "count": str(len(self.ucenter.conversations(user.uid, filter_ == "newpm"))),
                     "perpage": str(INBOX_PERPAGE), "page": "1"}
        return self.api_out(self.envelope(req, visit, variables))
