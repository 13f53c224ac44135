"""Discuz! 7.2's private-message pages (``templates/default/pm.htm``, ``pm_node.htm``,
``pm_send.htm``, ``pm_checknew.htm``) as captured (../shared/fixtures/discuz-pm/d72).

The hooks: the inbox's ``ul.pm_list > li#pm_PMID`` per conversation (the summary row's
reused pmid), its ``cite`` name link ``space.php?uid=N``, ``今天 H:i``/``昨天``/``前天``/date,
``img[alt=NEW]`` when unread, ``div.summary`` and the ``pm.php?uid=N&…#new`` link; a
conversation's ``li#pm_PMID`` per message (``class="s_clear self"`` for one's own, the
author in ``<cite>``, the uid only in ``avatar.php?uid=``, ``Y-n-j H:i``, ``NEW`` while
the recipient has not read it, ``<a name="new">`` on the first such), ``共有短消息 N``
and ``form#pmform``; the send form ``form#sendpmform``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from html import escape as _esc

from forumbot.simulator.dates import absolute_minutes
from forumbot.simulator.d72.render import Ctx, ajax_xml, crlf, page
from forumbot.simulator.model import User
from forumbot.simulator.pm import PmRow, uc_compile

IMG_NEW = '&nbsp;&nbsp;<img src="images/default/notice_newpm.gif" alt="NEW" />'


def _header(filter_: str) -> str:
    cur = {k: ' class="current"' if k == filter_ else "" for k in ("newpm", "privatepm")}
    return ('<div class="itemtitle s_clear">\n<h1>短消息</h1>\n</div>\n'
            '<div class="pm_header colplural itemtitle s_clear">\n<a href="pm.php?action=new" '
            'onclick="showWindow(\'sendpm\', this.href);return false;" class="postpm">+ 发送短消息</a>\n<ul>\n'
            f'<li {cur["newpm"]}><a href="pm.php?filter=newpm" hidefocus="true"><span>未读消息</span></a></li>\n'
            f'<li {cur["privatepm"]}><a href="pm.php?filter=privatepm" hidefocus="true"><span>私人消息</span></a></li>\n'
            '</ul>\n</div>\n')


def _shell(ctx: Ctx, inner: str) -> str:
    body = (f'<div id="wrap" class="wrap with_side s_clear">\n<div class="main">\n<div class="content">\n'
            f'{inner}\n</div>\n</div>\n</div>')
    return page(ctx, "", body, "&raquo; 短消息", "pm")


def list_time(when: datetime, now: datetime) -> str:
    """pm.php's list: 今天/昨天/前天 H:i (by the forum's day), else ``Y-n-j H:i``."""
    when = when.astimezone(now.tzinfo)
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    for days, word in ((0, "今天"), (1, "昨天"), (2, "前天")):
        if when >= today - timedelta(days=days):
            return f"{word} {when:%H:%M}"
    return absolute_minutes(when)


def daterange_of(when: datetime, now: datetime) -> int:
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    for days, value in ((0, 1), (1, 2), (2, 3)):
        if when.astimezone(now.tzinfo) >= today - timedelta(days=days):
            return value
    return 5


def inbox_entry(ctx: Ctx, row: PmRow, sender: User | None, filter_: str) -> str:
    uid = row.fromuid
    name = _esc(sender.name) if sender else ""
    new = IMG_NEW if row.new else ""
    summary = _esc(_plain(row.text))
    return f"""<li id="pm_{row.pmid}" class="s_clear ">
<a class="avatar"><img src="{ctx.site_url}uc_server/avatar.php?uid={uid}&size=small" /></a>
<p class="cite">
<cite><a href="space.php?uid={uid}" target="_blank">{name}</a></cite>{list_time(row.at, ctx.now)}{new}</p>
<div class="summary">
{summary}</div>
<p class="more"><a href="pm.php?uid={uid}&amp;filter={filter_}&amp;daterange={daterange_of(row.at, ctx.now)}#new" class="to">查看消息</a></p>
<span class="action">
<input name="uid[]" class="checkbox" type="checkbox" value="{uid}" />
</span>
</li>"""


def _plain(text: str) -> str:
    """``removecode($message, 200)`` for a list row: code/quote/img blocks and tags out."""
    text = re.sub(r"\[(email|code|quote|img)=?.*\].*?\[/(email|code|quote|img)\]", "", text,
                  flags=re.S | re.I)
    text = re.sub(r"\[/?(b|i|url|u|color|size|font|align|list|indent|float)=?[^\]]*\]", "", text,
                  flags=re.I)
    return text.replace("\r\n", "").strip()


def inbox_page(ctx: Ctx, entries: list[str], filter_: str) -> str:
    if entries:
        listing = (f'<form method="post" id="pmform" action="pm.php?action=del&amp;filter={filter_}&amp;page=1">\n'
                   '<input name="readopt" type="hidden" value="0" />\n<ul class="pm_list">'
                   + "\n".join(entries) + '</ul>\n<div class="s_clear" style="margin: 10px 0;">\n'
                   f'共 {len(entries)} 组消息\n</div>\n</form>')
    else:
        listing = '<p class="nodata">暂无数据</p>'
    return _shell(ctx, _header(filter_) + "\n" + listing)


def node(ctx: Ctx, row: PmRow, author: User | None, first_new: bool, date_head: str) -> str:
    """``pm_node.htm``: one message of a conversation."""
    own = row.fromuid == ctx.uid
    name = _esc(ctx.viewer.name if own and ctx.viewer else (author.name if author else ""))
    href = "" if own else f' href="space.php?uid={row.fromuid}"'
    anchor = '<a name="new"></a>' if first_new else ""
    head = f'<li class="pm_date"><strong>{date_head}</strong></li>' if date_head else ""
    return f"""{head}<li id="pm_{row.pmid}" class="s_clear {'self' if own else ''}">
<a name="pm_{row.pmid}"></a>
{anchor}<a{href} class="avatar"><img src="{ctx.site_url}uc_server/avatar.php?uid={row.fromuid}&size=small" /></a>
<p class="cite">
<cite>{name}</cite>
{absolute_minutes(row.at.astimezone(ctx.now.tzinfo))}{IMG_NEW if row.new else ''}</p>
<div class="summary">{uc_compile(row.text)}</div>
<span class="action">
<a href="pm.php?action=new&amp;pmid={row.pmid}" onclick="showWindow('sendpm', this.href);return false;">转发</a>
</span>
</li>
"""


def view_page(ctx: Ctx, other: User | None, uid: int, daterange: int, nodes: list[str],
              count: int, lastdaterange: str) -> str:
    name = _esc(other.name) if other else ""
    cur = {k: ' class="current"' if v else "" for k, v in
           (("3", daterange <= 3), ("4", daterange == 4), ("5", daterange == 5))}
    listing = "".join(nodes) if nodes else "<li>没有相关短消息</li>"
    inner = (_header("privatepm")
             + f"""<div class="itemtitle newpm_notice s_clear">
<span class="right">
共有短消息 {count}<span class="pipe">|</span><a href="pm.php?uid={uid}&amp;daterange=5&amp;export=yes">导出</a>
</span>
<span class="left">与 <strong>{name}</strong> 的短消息记录：</span>
<ul>
<li{cur["3"]}><a href="pm.php?uid={uid}&amp;daterange=3" hidefocus="true"><span>最近三天</span></a></li>
<li{cur["4"]}><a href="pm.php?uid={uid}&amp;daterange=4" hidefocus="true"><span>本周</span></a></li>
<li{cur["5"]}><a href="pm.php?uid={uid}&amp;daterange=5" hidefocus="true"><span>全部</span></a></li>
</ul>
</div>
<div id="pmlist">
<ul class="pm_list">
{listing}</ul>
<div id="pm_list">
<ul id="pm_new" class="pm_list" style="display: none"></ul>
</div>
<form id="pmform" method="post" action="pm.php?action=send&amp;uid={uid}&amp;pmsubmit=yes&amp;infloat=yes" class="pmreply">
<input type="hidden" name="formhash" id="formhash" value="{ctx.formhash}" />
<input type="hidden" name="handlekey" value="pmreply" />
<input type="hidden" name="lastdaterange" value="{lastdaterange}" />
<textarea id="pmreplymessage" name="message" class="txtarea" cols="30" rows="5"></textarea>
<p style="margin: 5px 0;"><button onclick="pmreplysubmit();return false;">回复</button></p>
</form>
</div>""")
    return _shell(ctx, inner)


def send_form(ctx: Ctx, msgto: str, handlekey: str) -> str:
    """``pm_send.htm``: ``form#sendpmform`` (the float adds the handlekey field)."""
    hk = f'\n<input type="hidden" name="handlekey" value="{handlekey}" />' if handlekey else ""
    return f"""<div class="fcontent" id="pmsendfloat">
<h3 class="float_ctrl">
<em id="return_{handlekey}">发送短消息</em>
</h3>
<div id="sendpmmsg" class="postbox">
<form id="sendpmform" method="post" action="pm.php?action=send&amp;pmsubmit=yes&amp;infloat=yes&amp;sendnew=yes">
<input type="hidden" name="formhash" value="{ctx.formhash}" />{hk}
<table class="formtable" cellspacing="0" cellpadding="0">
<tr><td width="60">收件人: </td><td><input name="msgto" value="{_esc(msgto)}" class="txt" tabindex="1" /></td></tr>
<tr><td valign="top">内容: </td><td><textarea id="pmsendmessage" name="message" cols="60" rows="10" class="txtarea" tabindex="1"></textarea></td></tr>
<tr><td></td><td><button type="submit" name="pmsubmit" value="true" id="sendpm_submit">发送</button></td></tr>
</table>
</form>
</div>
</div>
"""


def send_page(ctx: Ctx, msgto: str) -> str:
    body = (f'<div id="wrap" class="wrap s_clear">\n<div class="main"><div class="content nofloat">\n'
            f'{send_form(ctx, msgto, "")}\n</div></div>\n</div>')
    return page(ctx, "", body, "&raquo; 短消息", "pm")


def send_float(ctx: Ctx, msgto: str, handlekey: str) -> str:
    return ajax_xml(ctx.charset, crlf("\n" + send_form(ctx, msgto, handlekey)))


def checknew_xml(ctx: Ctx, script: str, site_url: str) -> str:
    """``pm_checknew.htm``: the prompt update and the sound, or nothing when unchanged."""
    if not script:
        return ajax_xml(ctx.charset, "")
    return ajax_xml(ctx.charset, (
        f"<script type=\"text/javascript\" reload=\"1\">{script};$('myprompt').className='new';"
        "$('myprompt').onmouseover=function(){showMenu({'ctrlid':'myprompt'});}</script>"
        "<div id=\"pmsound\" style=\"position:absolute;top:-100000px\"></div><script type=\"text/"
        "javascript\" reload=\"1\">$('pmsound').innerHTML = AC_FL_RunContent('id', 'pmsoundplayer', "
        "'name', 'pmsoundplayer', 'width', '0', 'height', '0', 'src', "
        f"'{site_url}images/sound/player.swf', 'FlashVars', 'sFile={site_url}images/sound/pm_1.mp3', "
        "'menu', 'false',  'allowScriptAccess', 'sameDomain', 'swLiveConnect', 'true');</script>"))


def node_xml(ctx: Ctx, row: PmRow, date_head: str) -> str:
    """The reply's answer: ``header_ajax`` + ``pm_node.htm`` + ``appendpmnode()``."""
    inner = node(ctx, row, ctx.viewer, row.new, date_head)
    return ajax_xml(ctx.charset, crlf(inner) + '<script type="text/javascript" reload="1">'
                    "appendpmnode();</script>")


__all__ = ["checknew_xml", "inbox_entry", "inbox_page", "list_time", "node", "node_xml",
           "send_float", "send_page", "view_page"]
