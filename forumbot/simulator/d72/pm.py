"""Discuz! 7.2's ``pm.php`` over :class:`~forumbot.simulator.pm.Ucenter15`, following the
script and UCenter 1.5's ``uc_client`` (``control/pm.php``, ``model/pm.php``):

* ``NOROBOT``: a robot's User-Agent gets 403 with an empty body (``D72Routes.route_any``);
  a guest ``not_loggedin`` (the login-box page).
* ``pm.php?checknewpm=…``: counts the unread conversations, stores that number as the
  header's prompt when it changed (answering the script that shows 私人消息 (N)), sets
  the unprefixed ``checkpm`` cookie for 30 s.
* ``pm.php[?filter=newpm|privatepm]``: one row per conversation (the summary row, pmid
  reused); the default is ``newpm`` while any is unread; drawn with the prompt as it
  was, then the prompt is cleared; a ``checkpm`` cookie is deleted.
* ``pm.php?uid=N[&daterange=1|2|3|4|5]``: the pair's messages from the range's start
  (1 today — the default —, 2 yesterday, 3 three days, 4 a week, 5 all) up to *before
  the current second*; viewing marks them read.
* ``pm.php?action=new[&uid=N]``: the send form (``inajax``: the float window).
* ``pm.php?action=send&pmsubmit=yes`` (a wrong formhash falls through to the list page,
  as ``submitcheck`` returning false does there): newbie span, the recipient (``uid``,
  else ``msgto`` by name — ``pm_send_nonexistence``), self, empty; then UCenter: more
  than ``pmlimit1day`` (100) rows in a day or any row within ``pmfloodctrl`` (15 s) —
  refused only when the recipient is no friend and has never sent the sender a message
  (``is_reply_pm``). Without ``sendnew`` the answer is the new ``li#pm_N`` node;
  with it, ``pm_send_succeed`` (``messagehandle_KEY('1', …)`` in a float, an
  ``alert_info`` page otherwise).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from forumbot.simulator.app import Visit
from forumbot.simulator.d72 import pm_render
from forumbot.simulator.d72.app import D72App
from forumbot.simulator.d72.messages import message
from forumbot.simulator.dates import ymd
from forumbot.simulator.messages import Outcome
from forumbot.simulator.pm import Ucenter15
from forumbot.simulator.wire import Request, Response

PMFLOODCTRL = 15  # uc_settings (uc_server/install/uc.sql)
PMLIMIT1DAY = 100
DATERANGE_DAYS = {1: 0, 2: 1, 3: 2, 4: 7}  # onview(): today - N·86400; 5 is everything


class D72PmRoutes(D72App):
    @property
    def ucenter(self) -> Ucenter15:
        store = self.data.pms
        assert isinstance(store, Ucenter15)
        return store

    def pm(self, req: Request, visit: Visit) -> Response:
        user = visit.viewer
        if user is None:
            return self.outcome(req, visit, message("not_loggedin", extra="NOPERM"))
        if "checknewpm" in req.query:
            return self.pm_checknew(visit)
        action = req.query.get("action", "")
        if not action and (req.query.get("uid") or req.query.get("pmid")):
            action = "view"
        if action == "view":
            return self.pm_view(req, visit)
        if action == "new":
            return self.pm_new(req, visit)
        if action == "send" and req.arg("pmsubmit") and self.submitcheck(req, visit, False) is None:
            return self.pm_send(req, visit)
        return self.pm_list(req, visit)

    def pm_checknew(self, visit: Visit) -> Response:
        assert visit.viewer is not None
        uid = visit.viewer.uid
        uc = self.ucenter
        count = uc.unread(uid)
        script = ""
        if uc.prompts.get(uid, 0) != count:
            uc.prompts[uid] = count
            if not count:
                uc.prompts.pop(uid, None)
            script = (f"$('prompt_pm').innerHTML='私人消息 ({count})';"
                      "$('prompt_pm').parentNode.style.display='';" if count
                      else "$('prompt_pm').innerHTML='私人消息';")
        response = self.xml(pm_render.checknew_xml(self.ctx(visit), script, self.site_url))
        response.cookies.append(f"checkpm=1; expires={self._expires(30)}; Max-Age=30; path=/")
        return response

    def _expires(self, seconds: int) -> str:
        at = datetime.fromtimestamp(self.now().timestamp() + seconds, timezone.utc)
        return f"{at:%a, %d %b %Y %H:%M:%S} GMT"

    def pm_list(self, req: Request, visit: Visit) -> Response:
        assert visit.viewer is not None
        uid = visit.viewer.uid
        uc = self.ucenter
        filter_ = req.query.get("filter", "")
        if filter_ not in ("newpm", "privatepm"):
            filter_ = "newpm" if uc.unread(uid) else "privatepm"
        ctx = self.ctx(visit)  # the prompt as loaded, before it is cleared below
        rows = uc.inbox(uid, filter_ == "newpm")
        users = self.data.users
        entries = [pm_render.inbox_entry(ctx, r, users.get(r.fromuid), filter_) for r in rows]
        response = self.html(pm_render.inbox_page(ctx, entries, filter_))
        if req.cookies.get("checkpm"):
            response.cookies.append("checkpm=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0")
        uc.prompts.pop(uid, None)
        return response

    def pm_view(self, req: Request, visit: Visit) -> Response:
        assert visit.viewer is not None
        uid = req.int_arg("uid")
        daterange = req.int_arg("daterange") or 1
        now = self.now()
        today = now.replace(hour=0, minute=0, second=0, microsecond=0)
        if daterange in DATERANGE_DAYS:
            start = today - timedelta(days=DATERANGE_DAYS[daterange])
        else:
            start = today.replace(year=1970, month=1, day=1)
        rows = self.ucenter.view(visit.viewer.uid, uid, start, now)
        ctx = self.ctx(visit)
        users = self.data.users
        nodes, day, seen_new = [], "", False
        for row in rows:
            date = ymd(row.at.astimezone(now.tzinfo))
            first_new = row.new and not seen_new
            seen_new = seen_new or row.new
            nodes.append(pm_render.node(ctx, row, users.get(row.fromuid), first_new,
                                        date if date != day else ""))
            day = date
        return self.html(pm_render.view_page(ctx, users.get(uid), uid, daterange, nodes,
                                             len(rows), day))

    def pm_new(self, req: Request, visit: Visit) -> Response:
        other = self.data.users.get(req.int_arg("uid"))
        msgto = other.name if other else ""
        if req.inajax:
            return self.xml(pm_render.send_float(self.ctx(visit), msgto, req.arg("handlekey")))
        return self.html(pm_render.send_page(self.ctx(visit), msgto))

    def pm_send(self, req: Request, visit: Visit) -> Response:
        user = visit.viewer
        assert user is not None
        refused = self.send_check(req, visit)
        if isinstance(refused, Outcome):
            return self.outcome(req, visit, refused)
        touid, text = refused
        now = self.now().replace(microsecond=0)
        uc = self.ucenter
        busy = uc.count_from(user.uid, PMFLOODCTRL, now)
        over = uc.count_from(user.uid, 86400, now) > PMLIMIT1DAY
        if (over or busy) and not uc.is_reply(user.uid, touid):
            return self.outcome(req, visit, message(
                "pm_send_limit1day_error" if over else "pm_send_floodctrl_error"))
        pmid = uc.send(user.uid, touid, text, now)
        if req.arg("sendnew"):
            return self.outcome(req, visit, message("pm_send_succeed", extra="1"))
        row = uc.rows[pmid]
        date = ymd(row.at.astimezone(self.now().tzinfo))
        head = date if date != req.form.get("lastdaterange", "") else ""
        return self.xml(pm_render.node_xml(self.ctx(visit), row, head))

    def send_check(self, req: Request, visit: Visit) -> Outcome | tuple[int, str]:
        """pm.php's checks before UCenter: newbie span, recipient, self, empty."""
        user = visit.viewer
        assert user is not None
        if self.in_newbie_span(user, timedelta(hours=1)):
            return message("pm_newbie_span", newbiespan=self.data.settings.newbiespan)
        if req.arg("uid"):
            touid = req.int_arg("uid")
            if touid not in self.data.users:
                # uc_pm_send finds no member row for that uid and sends nothing: 0.
                return message("pm_send_invalid")
        else:
            found = self.data.user_by_name(req.form.get("msgto", "").strip())
            if found is None:
                return message("pm_send_nonexistence")
            touid = found.uid
        if touid == user.uid:
            return message("pm_send_self_ignore")
        text = req.form.get("message", "")
        if not text.strip():
            return message("pm_send_empty")
        return touid, text
