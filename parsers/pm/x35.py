"""Discuz! X3.5 private-message pages → PmPage: the desktop pages
``home.php?mod=space&do=pm[&filter=…]`` (inbox) and ``…&subop=view&touid=N``
(conversation), and the mobile API's ``module=mypm`` (list) and ``mypm&subop=view``.

Hooks, from the captures (../shared/fixtures/discuz-pm/x35): one ``dl#pmlist_N`` per
conversation (N the plid; class ``newpm`` when unread; ``X 对 您 说`` or ``您 对 X 说``;
the last message; ``<span title="Y-n-j H:i">…前</span>``; ``共 N 条``) or per message
(N the pmid; ``<span class="xi2 xw1">您</span>`` for the viewer's own, else the author's
``a.xw1`` link; the avatar link carries the author's uid; the text between the first
``<br />`` and the time); ``共有 <span id="membernum">N</span> 条与 <a …uid=U>NAME</a>``.
The API's ``vdateline`` is relative ("11&nbsp;秒前") and needs ``now``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, tzinfo
from html import unescape

from parsers.errors import PageParseError
from parsers.pm.common import DISCUZ_UID, FORMHASH, html_text, pm_time
from parsers.pm.models import PmConversation, PmPage, PmPageKind, PrivateMessage

__all__ = ["is_x35_pm_page", "parse_x35_api", "parse_x35_html"]

_DL = re.compile(r'<dl id="pmlist_(\d+)"([^>]*)>(.*?)</dl>', re.S)
_PTM = re.compile(r'<dd class="ptm">(.*?)</dd>', re.S)
_PMC = re.compile(r'<dd class="ptm pm_c">(.*?)</dd>\s*$', re.S)
_AVATAR_UID = re.compile(r'<dd class="m avt"[^>]*>.*?uid=(\d+)', re.S)
_MESSAGE = re.compile(r"^(?P<who>.*?)<br\s*/?>(?P<msg>.*)<br\s*/?>\s*<span class=\"xg1\">"
                      r"(?P<time>.*?)</span>\s*$", re.S)
_TIME = re.compile(r'<span title="([^"]*)">(.*?)</span>|^(.*)$', re.S)
_AUTHOR_LINK = re.compile(r'<a href="home\.php\?mod=space&amp;uid=(\d+)"[^>]*>(.*?)</a>', re.S)
_OWN = re.compile(r'<span class="xi2 xw1">您</span>')
_LIST_ROW = re.compile(r"^(?P<who>.*?说\s*:)\s*<br\s*/?>(?P<msg>.*?)&nbsp;\s*<br\s*/?>\s*"
                       r"<span class=\"xg1\">(?P<time>.*?)</span></span>", re.S)
_COUNT = re.compile(r"共\s*(\d+)\s*条")
_MEMBERNUM = re.compile(r'共有 <span id="membernum"[^>]*>(\d+)</span> 条与 <a href="home\.php\?mod=space'
                        r'&amp;uid=(\d+)">(.*?)</a>', re.S)
_EARLIER = re.compile(r'<span class="pgb"><a href="[^"]*[?&;]page=(\d+)#last">')
_VIEWER_NAME = re.compile(r'<strong class="vwmy"><a [^>]*>(.*?)</a>')
_PM_NTC = re.compile(r'<a href="home\.php\?mod=space&amp;do=pm" id="pm_ntc"( class="new")?>')


def is_x35_pm_page(text: str) -> bool:
    return "home.php?mod=space&amp;do=pm" in text and (
        'id="pm_ul"' in text or 'id="deletepmform"' in text or "当前没有相应的短消息" in text)


def _error(message: str, source: str | None) -> PageParseError:
    return PageParseError(message, source=source)


def _time(html: str, tz: tzinfo, now: datetime | None, what: str, source: str | None):
    m = _TIME.match(html.strip())
    assert m is not None
    title, shown = (m.group(1), m.group(2)) if m.group(1) is not None else (None, m.group(3))
    found = pm_time(title, shown, tz, now)
    if found is None:
        raise _error(f"{what}：读不出时间 {unescape(shown)!r}"
                     + ("" if now else "（相对时间要知道页面的抓取时间 `now`）"), source)
    return found


def parse_x35_html(text: str, *, tz: tzinfo, now: datetime | None = None,
                   source: str | None = None) -> PmPage:
    viewer = int(m.group(1)) if (m := DISCUZ_UID.search(text)) else 0
    viewer_name = unescape(m.group(1)) if (m := _VIEWER_NAME.search(text)) else None
    ntc = _PM_NTC.search(text)
    new_pm = (ntc.group(1) is not None) if ntc else None
    formhash = m.group(1) if (m := FORMHASH.search(text)) else None
    if 'id="pm_ul"' in text:
        messages = []
        for pmid, _attrs, body in _DL.findall(text):
            ptm = _PTM.search(body)
            parts = _MESSAGE.match(ptm.group(1)) if ptm else None
            if parts is None:
                raise _error(f"消息 {pmid}：不是对话里的一条消息", source)
            own = _OWN.search(parts.group("who")) is not None
            avatar = _AVATAR_UID.search(body)
            uid = int(avatar.group(1)) if avatar else None
            if own:
                author, uid = viewer_name, viewer or uid
            else:
                link = _AUTHOR_LINK.search(parts.group("who"))
                author = unescape(link.group(2)).strip() if link else None
                uid = int(link.group(1)) if link else uid
            when, precision = _time(parts.group("time"), tz, now, f"消息 {pmid}", source)
            messages.append(PrivateMessage(int(pmid), author, uid, when, precision,
                                           html_text(parts.group("msg")), own))
        head = _MEMBERNUM.search(text)
        earlier = _EARLIER.search(text)
        return PmPage(PmPageKind.CONVERSATION, "x3", "html", viewer, tuple(messages),
                      with_uid=int(head.group(2)) if head else None,
                      with_name=unescape(head.group(3)).strip() if head else None,
                      total=int(head.group(1)) if head else None,
                      earlier_page=int(earlier.group(1)) if earlier else None,
                      new_pm=new_pm, formhash=formhash)
    conversations = []
    for plid, attrs, body in _DL.findall(text):
        pmc = _PMC.search(body)
        row = _LIST_ROW.search(re.sub(r'^\s*<div class="o">.*?</div>\s*', "", pmc.group(1), flags=re.S)) if pmc else None
        avatar = _AVATAR_UID.search(body)
        if row is None or avatar is None:
            raise _error(f"对话 {plid}：不是收件箱里的一项", source)
        who = row.group("who")
        link = _AUTHOR_LINK.search(who)
        when, _ = _time(row.group("time"), tz, now, f"对话 {plid}", source)
        count = _COUNT.search(pmc.group(1)) if pmc else None
        conversations.append(PmConversation(
            int(plid), int(avatar.group(1)), unescape(link.group(2)).strip() if link else None,
            html_text(row.group("msg")), who.lstrip().startswith('<span class="xi2 xw1">您</span>'),
            when, "newpm" in attrs.split('class="', 1)[-1].split('"', 1)[0].split(),
            int(count.group(1)) if count else None))
    return PmPage(PmPageKind.INBOX, "x3", "html", viewer, conversations=tuple(conversations),
                  new_pm=new_pm, formhash=formhash)


def parse_x35_api(doc: Mapping[str, object], *, tz: tzinfo, now: datetime | None = None,
                  source: str | None = None) -> PmPage:
    variables = doc.get("Variables")
    if not isinstance(variables, Mapping) or not isinstance(variables.get("list"), list):
        raise _error("不是手机版接口的站内信回应（没有 Variables.list）", source)
    viewer = int(str(variables.get("member_uid") or 0))
    notice = variables.get("notice")
    new_pm = str(notice.get("newpm")) == "1" if isinstance(notice, Mapping) else None
    formhash = str(variables["formhash"]) if variables.get("formhash") else None
    items = [i for i in variables["list"] if isinstance(i, Mapping)]
    view = "pmid" in variables or any("isnew" not in i for i in items)
    if view:
        messages, other = [], None
        for item in items:
            pmid = int(str(item.get("pmid")))
            from_uid = int(str(item.get("msgfromid") or 0))
            own = from_uid == viewer
            other = other or (int(str(item.get("touid") or 0)) if own else from_uid)
            found = pm_time(None, str(item.get("vdateline") or ""), tz, now)
            if found is None:
                raise _error(f"消息 {pmid}：读不出时间 {item.get('vdateline')!r}"
                             + ("" if now else "（手机版接口的时间是相对的：要知道抓取时间 `now`）"), source)
            messages.append(PrivateMessage(pmid, str(item.get("msgfrom") or "") or None, from_uid,
                                           found[0], found[1], html_text(str(item.get("message") or "")),
                                           own))
        page = int(str(variables.get("page") or 1))
        return PmPage(PmPageKind.CONVERSATION, "x3", "api", viewer, tuple(messages),
                      with_uid=other, total=int(str(variables.get("count") or len(items))),
                      earlier_page=page - 1 if page > 1 else None, new_pm=new_pm,
                      formhash=formhash)
    conversations = []
    for item in items:
        found = pm_time(None, str(item.get("vdateline") or ""), tz, now)
        conversations.append(PmConversation(
            int(str(item.get("plid"))), int(str(item.get("touid") or 0)),
            str(item.get("tousername") or "") or None, html_text(str(item.get("message") or "")),
            str(item.get("msgfromid")) == str(viewer), found[0] if found else None,
            str(item.get("isnew")) == "1"))
    return PmPage(PmPageKind.INBOX, "x3", "api", viewer, conversations=tuple(conversations),
                  new_pm=new_pm, formhash=formhash)
