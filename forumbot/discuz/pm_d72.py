"""Discuz! 7.2 private messages (``pm.php``, UCenter 1.5), as captured
(../shared/fixtures/discuz-pm/d72):

* to a uid: the conversation's reply form, ``pm.php?action=send&uid=N&pmsubmit=yes&
  infloat=yes&inajax=1`` (``handlekey=pmreply``): its answer is the new ``li#pm_N`` — the
  pmid. It works for any uid, whether or not the two have written before;
* to a user name: the send form, ``…&sendnew=yes&inajax=1`` → ``messagehandle_sendpm('1',
  '短消息发送成功。')``, no pmid;
* a conversation: ``pm.php?uid=N&daterange=D`` — not paged, but windowed by date (1 today,
  4 this week, 5 all): polls ask for today, and widen only when every listed message is
  newer than the last one handled (older new ones may lie outside the window) — unless
  the caller says when a read last listed everything up to ``since_id`` (``seen_at``):
  then the one window reaching back that far is read;
* unread: ``pm.php?filter=newpm``.

``pm.php`` answers a robot's User-Agent 403 with an empty body (``RobotForbidden``). Its
flood rule (``pmfloodctrl``, 15 s) applies only to PMs to someone who never wrote to the
sender — whichever form is used — so replies in the director's conversation are never
limited once the director has written once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from forumbot.discuz.pm import PmContext, PmDialect, PmSent, newer
from forumbot.discuz.errors import UnexpectedPage
from parsers.pm import PmConversation, PmPageKind, PrivateMessage


__all__ = ["D72Pm"]

FORM_PAGE = "pm.php?action=new"
WINDOWS = (1, 4, 5)  # daterange: today, this week, everything
# A message the forum lists late (its dateline is the second its request began) may be this
# much older than a read that did not list it.
SEEN_MARGIN = timedelta(minutes=5)


class D72Pm(PmDialect):
    def send(self, client: PmContext, to_uid: int | None, to_username: str | None,
             text: str) -> PmSent:
        formhash = client.pm_formhash(FORM_PAGE)
        if to_uid:
            now = client.forum_now()
            fields = {"formhash": formhash, "handlekey": "pmreply",
                      "lastdaterange": f"{now.year}-{now.month}-{now.day}", "message": text}
            response, _ = client.pm_post(
                f"pm.php?action=send&uid={to_uid}&pmsubmit=yes&infloat=yes&inajax=1", fields,
                "发站内信（回复表单）", node=True)
            page = client.pm_read(response, "发站内信的回应")
            if page.kind is not PmPageKind.SENT or not page.messages:
                raise UnexpectedPage("发站内信的回应里没有消息")
            return PmSent(page.messages[-1].id, to_uid, "reply")
        fields = {"formhash": formhash, "handlekey": "sendpm", "msgto": to_username or "",
                  "message": text, "pmsubmit": "true"}
        client.pm_post("pm.php?action=send&pmsubmit=yes&infloat=yes&sendnew=yes&inajax=1", fields,
                       "发站内信（发送表单）")
        return PmSent(None, None, "page")

    def conversation(self, client: PmContext, uid: int, since_id: int | None,
                     seen_at: datetime | None = None) -> list[PrivateMessage]:
        windows = WINDOWS if since_id is not None else (5,)
        if since_id is not None and seen_at is not None:
            # Every message above since_id is newer than seen_at (a read then listed the
            # rest): the narrowest window that reaches back that far is enough, and no
            # widening is needed when it lists nothing old (a new day, a quiet week).
            start = (seen_at - SEEN_MARGIN).astimezone(client.tz)
            today = client.forum_now().replace(hour=0, minute=0, second=0, microsecond=0)
            windows = (1,) if start >= today else (4,) if start >= today - timedelta(days=7) else (5,)
        messages: list[PrivateMessage] = []
        for daterange in windows:
            page = client.pm_page(f"pm.php?uid={uid}&daterange={daterange}",
                                  f"与 uid {uid} 的对话")
            messages = list(page.messages)
            if since_id is None or any(m.id <= since_id for m in messages):
                break
        return newer(messages, since_id)

    def unread(self, client: PmContext) -> list[PmConversation]:
        return [c for c in client.pm_page("pm.php?filter=newpm", "未读站内信").conversations
                if c.unread]
