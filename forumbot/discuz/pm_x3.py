"""Discuz! X3.5 private messages (``source/include/spacecp/spacecp_pm.php``,
``space/space_pm.php``; the mobile API's ``sendpm``/``mypm``), as captured
(../shared/fixtures/discuz-pm/x35):

* to a uid: the mobile API ``module=sendpm&touid=N&pmsubmit=yes`` when ``check_api()``
  found it on (``Variables.pmid``), else the 发消息 popup's form posted as ajax,
  ``op=send&touid=N&inajax=1`` → ``succeedhandle_showMsgBox(…, {'pmid':'N'})``;
* to a user name: the full-page form ``op=send&touid=0&pmid=0`` with ``username`` → a bare
  301 to the inbox, no pmid;
* a conversation: ``home.php?mod=space&do=pm&subop=view&touid=N`` (10 a page, the newest
  page by default; ``&page=P`` for earlier ones) or ``mypm&subop=view`` (5 a page);
* unread: ``home.php?mod=space&do=pm&filter=newpm`` (or ``mypm&filter=newpm``).
"""

from __future__ import annotations

from datetime import datetime

from forumbot.discuz.pm import MAX_EARLIER_PAGES, PmContext, PmDialect, PmSent, newer
from forumbot.discuz.errors import UnexpectedPage
from parsers.pm import PmConversation, PrivateMessage


__all__ = ["X3Pm"]

FORM_PAGE = "home.php?mod=spacecp&ac=pm"
API = "api/mobile/index.php?version=4"


class X3Pm(PmDialect):
    shared_write_clock = True

    def send(self, client: PmContext, to_uid: int | None, to_username: str | None,
             text: str) -> PmSent:
        formhash = client.pm_formhash(FORM_PAGE)
        if client.use_api:
            target = f"&touid={to_uid}" if to_uid else ""
            fields = {"formhash": formhash, "message": text}
            if not to_uid:
                fields["username"] = to_username or ""
            response, reply = client.pm_post(f"{API}&module=sendpm{target}&pmsubmit=yes", fields,
                                             "发站内信（手机版接口）")
            pmid = reply.values.get("pmid", "")
            return PmSent(int(pmid) if pmid.isdigit() and int(pmid) > 0 else None, to_uid, "api")
        if to_uid:
            fields = {"pmsubmit": "true", "touid": str(to_uid), "formhash": formhash,
                      "handlekey": "showMsgBox", "message": text, "messageappend": ""}
            _, reply = client.pm_post(f"home.php?mod=spacecp&ac=pm&op=send&touid={to_uid}&inajax=1",
                                      fields, "发站内信（弹出表单）")
            pmid = reply.values.get("pmid", "")
            if not pmid.isdigit():
                raise UnexpectedPage("站内信已被接受，但回应里没有 pmid")
            return PmSent(int(pmid), to_uid, "popup")
        fields = {"referer": client.base_url + "home.php?mod=space&do=pm", "pmsubmit": "true",
                  "formhash": formhash, "username": to_username or "", "message": text,
                  "pmsubmit_btn": "true"}
        client.pm_post("home.php?mod=spacecp&ac=pm&op=send&touid=0&pmid=0", fields,
                       "发站内信（整页表单）", referer=client.base_url + FORM_PAGE)
        return PmSent(None, None, "page")

    def conversation(self, client: PmContext, uid: int, since_id: int | None,
                     seen_at: datetime | None = None) -> list[PrivateMessage]:
        if client.use_api:
            base = f"{API}&module=mypm&subop=view&touid={uid}"
        else:
            base = f"home.php?mod=space&do=pm&subop=view&touid={uid}"
        page = client.pm_page(base, f"与 uid {uid} 的对话")
        messages = list(page.messages)
        # The newest page comes first; older pages only while they may hold new ones.
        for _ in range(MAX_EARLIER_PAGES):
            if since_id is None or page.earlier_page is None:
                break
            if any(m.id <= since_id for m in page.messages):
                break
            page = client.pm_page(f"{base}&page={page.earlier_page}",
                                  f"与 uid {uid} 的对话第 {page.earlier_page} 页")
            messages.extend(page.messages)
        return newer(messages, since_id)

    def unread(self, client: PmContext) -> list[PmConversation]:
        path = (f"{API}&module=mypm&filter=newpm" if client.use_api
                else "home.php?mod=space&do=pm&filter=newpm")
        return [c for c in client.pm_page(path, "未读站内信").conversations if c.unread]
