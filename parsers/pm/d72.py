"""Discuz! 7.2 private-message pages → PmPage: ``pm.php[?filter=newpm|privatepm]``
(inbox), ``pm.php?uid=N[&daterange=…]`` (conversation) and the reply's ajax answer (the
new message's ``li#pm_N``).

Hooks, from the captures (../shared/fixtures/discuz-pm/d72): ``ul.pm_list > li#pm_N``;
in a conversation N is the message's pmid, ``class="s_clear self"`` marks the viewer's
own, the author is in ``<cite>``, the uid only in ``avatar.php?uid=``, the time is
``Y-n-j H:i``, ``<img alt="NEW">`` marks a message its recipient has not read; in the
inbox N is the per-direction summary row's reused pmid, the other user's link is
``space.php?uid=U`` (and ``pm.php?uid=U…``), the time ``今天 H:i``/``昨天``/``前天`` or a date.
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo
from html import unescape

from parsers.errors import PageParseError
from parsers.pm.common import DISCUZ_UID, FORMHASH, day_word_time, html_text, pm_time
from parsers.pm.models import PmConversation, PmPage, PmPageKind, PrivateMessage

__all__ = ["is_d72_pm_page", "parse_d72_ajax", "parse_d72_html"]

_LI = re.compile(r'<li id="pm_(\d+)" class="([^"]*)">(.*?)</li>', re.S)
_CITE = re.compile(r"<p class=\"cite\">\s*<cite>(.*?)</cite>(.*?)</p>", re.S)
_AVATAR_UID = re.compile(r"avatar\.php\?uid=(\d+)")
_SPACE_UID = re.compile(r'space\.php\?uid=(\d+)')
_SUMMARY = re.compile(r'<div class="summary">(.*?)</div>', re.S)
_NEW = re.compile(r'alt="NEW"')
_WITH = re.compile(r"与 <strong>(.*?)</strong> 的短消息记录")
_WITH_UID = re.compile(r'pm\.php\?uid=(\d+)&amp;daterange=')
_TOTAL = re.compile(r"共有短消息 (\d+)")
_PROMPT = re.compile(r'<li( style="display:none")?><a id="prompt_pm"[^>]*>私人消息 \((\d+)\)</a>')
_VIEWER_NAME = re.compile(r'<div id="umenu">\s*<cite><a [^>]*>(.*?)</a></cite>', re.S)


def is_d72_pm_page(text: str) -> bool:
    return 'class="pm_list"' in text or ('pm.php?filter=newpm' in text and 'class="nodata"' in text)


def _message(pmid: str, classes: str, body: str, *, viewer: int, viewer_name: str | None,
             tz: tzinfo, source: str | None) -> PrivateMessage:
    cite = _CITE.search(body)
    avatar = _AVATAR_UID.search(body)
    summary = _SUMMARY.search(body)
    if cite is None or avatar is None or summary is None:
        raise PageParseError(f"消息 {pmid}：不是 7.2 的消息", source=source)
    found = pm_time(None, re.sub(r"<[^>]+>", "", cite.group(2)).replace("&nbsp;", " "), tz, None)
    if found is None:
        raise PageParseError(f"消息 {pmid}：读不出时间", source=source)
    own = "self" in classes.split()
    return PrivateMessage(int(pmid), unescape(cite.group(1)).strip() or None, int(avatar.group(1)),
                          found[0], found[1], html_text(summary.group(1)), own,
                          _NEW.search(cite.group(2)) is not None)


def parse_d72_html(text: str, *, tz: tzinfo, now: datetime | None = None,
                   source: str | None = None) -> PmPage:
    viewer = int(m.group(1)) if (m := DISCUZ_UID.search(text)) else 0
    viewer_name = unescape(m.group(1)) if (m := _VIEWER_NAME.search(text)) else None
    prompt = _PROMPT.search(text)
    new_pm = (prompt.group(1) is None and int(prompt.group(2)) > 0) if prompt else None
    formhash = m.group(1) if (m := FORMHASH.search(text)) else None
    if 'id="pmlist"' in text:
        messages = tuple(_message(pmid, classes, body, viewer=viewer, viewer_name=viewer_name,
                                  tz=tz, source=source) for pmid, classes, body in _LI.findall(text))
        name = _WITH.search(text)
        uid = _WITH_UID.search(text)
        total = _TOTAL.search(text)
        return PmPage(PmPageKind.CONVERSATION, "7.2", "html", viewer, messages,
                      with_uid=int(uid.group(1)) if uid else None,
                      with_name=unescape(name.group(1)).strip() if name else None,
                      total=int(total.group(1)) if total else None, new_pm=new_pm,
                      formhash=formhash)
    conversations = []
    for pmid, _classes, body in _LI.findall(text):
        cite = _CITE.search(body)
        uid = _SPACE_UID.search(body) or re.search(r"pm\.php\?uid=(\d+)", body)
        summary = _SUMMARY.search(body)
        if cite is None or uid is None or summary is None:
            raise PageParseError(f"对话 {pmid}：不是 7.2 收件箱里的一项", source=source)
        shown = re.sub(r"<[^>]+>", "", cite.group(2))
        conversations.append(PmConversation(
            int(pmid), int(uid.group(1)), html_text(cite.group(1)) or None,
            html_text(summary.group(1)), False, day_word_time(shown, tz, now),
            _NEW.search(cite.group(2)) is not None))
    return PmPage(PmPageKind.INBOX, "7.2", "html", viewer, conversations=tuple(conversations),
                  new_pm=new_pm, formhash=formhash)


def parse_d72_ajax(text: str, *, tz: tzinfo, source: str | None = None) -> PmPage:
    """The reply's answer: one ``li#pm_N`` (the message just stored)."""
    found = _LI.findall(text)
    if not found:
        raise PageParseError("不是 7.2 的消息", source=source)
    messages = tuple(_message(pmid, classes, body, viewer=0, viewer_name=None, tz=tz,
                              source=source) for pmid, classes, body in found)
    viewer = next((m.uid or 0 for m in messages if m.own), 0)
    return PmPage(PmPageKind.SENT, "7.2", "ajax", viewer, messages)
