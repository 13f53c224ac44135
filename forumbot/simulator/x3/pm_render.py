"""X3.5's private-message pages, shaped like ``template/default/home/space_pm*.htm`` and
``spacecp_pm.htm`` as captured (../shared/fixtures/discuz-pm/x35).

The markup is the simulator's own and small; the hooks a client or parser keys on are
where X3.5 puts them: the inbox's ``dl#pmlist_PLID`` (class ``newpm`` when unread, the
other user's avatar link, ``X 对 您 说`` or ``您 对 X 说``, the last message, the time
``<span title="Y-n-j H:i">…前</span>``, ``共 N 条``, the ``subop=view&touid=N`` link); the
conversation's ``dl#pmlist_PMID`` per message (``<span class="xi2 xw1">您</span>`` for
one's own, the author's avatar link otherwise), ``共有 <span id="membernum">N</span> 条``
and ``form#pmform``; the send page's ``form#pmform_0``; the popup's ``form#pmform_UID``.
"""

from __future__ import annotations

from datetime import datetime
from html import escape as _esc

from forumbot.simulator.dates import absolute_minutes, relative_text
from forumbot.simulator.model import User
from forumbot.simulator.pm import PmList, PmMember, PmMessage, uc_compile
from forumbot.simulator.x3.render import Ctx, ajax_xml, crlf, page


def pm_time(when: datetime, now: datetime) -> str:
    """``dgmdate($dateline, 'u')``: relative in a span titled ``Y-n-j H:i``, or absolute."""
    when = when.astimezone(now.tzinfo)
    text = relative_text(when, now)
    if text is None:
        return absolute_minutes(when)
    return f'<span title="{absolute_minutes(when)}">{text}</span>'


def _tabs(active: str) -> str:
    mark = {"privatepm": "", "announcepm": ""}
    mark[active] = ' class="a"'
    return ('<ul class="tb cl">\n<li class="y"><a href="home.php?mod=space&amp;do=pm&amp;subop=setting"'
            ' class="xi2">短消息设置</a></li>\n'
            f'<li{mark["privatepm"]}><a href="home.php?mod=space&amp;do=pm&amp;filter=privatepm">私人消息</a></li>\n'
            f'<li{mark["announcepm"]}><a href="home.php?mod=space&amp;do=pm&amp;filter=announcepm">公共消息</a></li>\n'
            '<li class="o"><a href="home.php?mod=spacecp&amp;ac=pm">发送消息</a></li>\n</ul>\n')


def _shell(ctx: Ctx, title: str, main: str, newpmcount: int = 0) -> str:
    count = f' <strong class="xi1">({newpmcount})</strong>' if newpmcount else " "
    body = (f'<div id="ct" class="ct2_a wp cl">\n<div class="mn">\n<div class="bm bw0">\n'
            f'<h1 class="mt">{title}</h1>\n{main}\n</div>\n</div>\n<div class="appl"><div class="tbn">\n'
            '<h2 class="mt bbda">通知</h2>\n<ul>\n<li class="a"><em class="notice_pm"></em>'
            f'<a href="home.php?mod=space&amp;do=pm">消息{count}</a></li>\n</ul>\n</div></div>\n</div>')
    return page(ctx, title, body)


# ---- the inbox --------------------------------------------------------------------------------

def inbox_entry(ctx: Ctx, conv: PmList, member: PmMember, other: User | None, touid: int) -> str:
    name = _esc(other.name) if other else ""
    if conv.last_authorid == ctx.uid:
        who = (f'<span class="xi2 xw1">您</span> 对 <a href="home.php?mod=space&amp;uid={touid}" '
               f'target="_blank">{name}</a> 说 :<br />')
    else:
        who = (f'<a href="home.php?mod=space&amp;uid={touid}" target="_blank" class="xw1">{name}</a>'
               ' 对 <span class="xi2">您</span> 说 :<br />')
    new = " newpm" if member.isnew else ""
    return f"""<dl id="pmlist_{conv.plid}" class="bbda cur1 cl{new}">
<dd class="m avt">
<div class="newpm_avt" title="有未读消息"></div>
<a href="home.php?mod=space&amp;uid={touid}" target="_blank"><img src="{ctx.site_url}uc_server/avatar.php?uid={touid}&size=small"></a>
</dd>
<dd class="ptm pm_c">
<div class="o">
<input type="checkbox" name="deletepm_deluid[]" id="a_delete_{conv.plid}" class="pc" value="{touid}" />
</div>
{who}
{_esc(conv.last_summary)} &nbsp;  <br />
<span class="xg1">{pm_time(member.lastdateline, ctx.now)}</span> &nbsp; 
<span class="pm_o y">
<span class="xg1 z">共 {member.pmnum} 条</span>
 | 
<a href="home.php?mod=space&amp;do=pm&amp;subop=view&amp;touid={touid}#last" id="pmlist_{conv.plid}_a">回复</a>
</span>
</dd>
</dl>"""


def inbox_page(ctx: Ctx, entries: list[str], filter_: str, newpmcount: int) -> str:
    tabs = _tabs("privatepm")
    notice = ""
    if filter_ == "newpm":
        notice = ('<div class="tbms mtm mbm">\n<a href="home.php?mod=space&amp;do=pm&amp;filter=privatepm" '
                  'class="xi2">查看全部私人消息</a>\n</div>\n')
    elif newpmcount:
        notice = ('<div class="tbms mtm mbm">\n<a href="home.php?mod=space&amp;do=pm&amp;filter=newpm" '
                  'class="xi2">查看新消息</a>\n</div>\n')
    if entries:
        listing = ('<form id="deletepmform" action="home.php?mod=spacecp&amp;ac=pm&amp;op=delete&amp;folder=" '
                   'method="post" autocomplete="off" name="deletepmform">\n<div class="xld xlda pml mtm mbm">\n'
                   + "".join(entries) + '\n</div>\n<input type="hidden" name="deletesubmit" value="true" />\n'
                   f'<input type="hidden" name="formhash" value="{ctx.formhash}" />\n</form>')
    else:
        listing = '<div class="emp">\n当前没有相应的短消息\n</div>'
    return _shell(ctx, "消息", tabs + notice + listing, newpmcount)


# ---- a conversation ---------------------------------------------------------------------------

def message_entry(ctx: Ctx, msg: PmMessage, author: User | None, last: bool) -> str:
    if msg.fromuid == ctx.uid:
        who = '<span class="xi2 xw1">您</span>'
    else:
        who = (f'<a href="home.php?mod=space&amp;uid={msg.fromuid}" target="_blank" class="xw1">'
               f'{_esc(author.name) if author else ""}</a>')
    anchor = '<a name="last"></a>' if last else ""
    return f"""{anchor}<dl id="pmlist_{msg.pmid}" class="bbda cl">
<dd class="m avt">
<a href="home.php?mod=space&amp;uid={msg.fromuid}" target="_blank"><img src="{ctx.site_url}uc_server/avatar.php?uid={msg.fromuid}&size=small"></a>
</dd>
<dd class="ptm">
{who}
 &nbsp; 
<br />
{uc_compile(msg.text)}<br />
<span class="xg1">{pm_time(msg.at, ctx.now)}</span>
</dd>
</dl>"""


def view_page(ctx: Ctx, other: User | None, touid: int, count: int, entries: list[str],
              first_pmid: int, shown_page: int, total_pages: int) -> str:
    name = _esc(other.name) if other else ""
    base = f"home.php?mod=space&amp;do=pm&amp;subop=view&amp;touid={touid}"
    prev = (f'<span class="pgb"><a href="{base}&amp;page={shown_page - 1}#last">上一页</a></span>'
            if shown_page > 1 else "")
    nxt = (f'<a href="{base}&amp;page={shown_page + 1}#last" class="nxt">下一页</a>'
           if shown_page < total_pages else "")
    pager = f'<div class="pbm bbda cl"><div class="pg">{prev}{nxt}</div></div>\n' if prev or nxt else ""
    main = (_tabs("privatepm")
            + '<div class="tbmu pml pm_op_r cl">\n<div class="xw1">\n'
            f'共有 <span id="membernum" class="xi1">{count}</span> 条与 <a href="home.php?mod=space&amp;'
            f'uid={touid}">{name}</a> 的交谈记录 &nbsp;\n</div>\n</div>\n'
            '<div id="pm_ul" class="xld xlda mbm pml">' + "".join(entries)
            + '<div id="pm_append" style="display: none"></div>\n</div>\n' + pager
            + f"""<div id="pm_ul_post" class="xld xlda pml">
<form id="pmform" name="pmform" method="post" autocomplete="off" action="home.php?mod=spacecp&amp;ac=pm&amp;op=send&amp;pmid={first_pmid}&amp;daterange=0&amp;handlekey=pmsend&amp;pmsubmit=yes">
<textarea rows="3" cols="40" name="message" class="pt" id="replymessage"></textarea>
<p class="mtn">
<button type="submit" name="pmsubmit" id="pmsubmit" class="pn pnc" value="true"><strong>发送</strong></button>
<span id="pmforum_return"></span>
</p>
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<input type="hidden" name="topmuid" value="{touid}" />
</form>
</div>""")
    return _shell(ctx, name or "消息", main)


# ---- sending ----------------------------------------------------------------------------------

def send_form_page(ctx: Ctx) -> str:
    main = f"""<ul class="tb cl">
<li class="y"><a href="home.php?mod=space&amp;do=pm&amp;view=inbox" class="xi2">返回消息列表</a></li>
<li class="a"><a href="home.php?mod=spacecp&amp;ac=pm">私人消息</a></li>
</ul>
<div id="__pmform_0">
<form id="pmform_0" name="pmform_0" method="post" autocomplete="off" action="home.php?mod=spacecp&amp;ac=pm&amp;op=send&amp;touid=0&amp;pmid=0">
<input type="hidden" name="referer" value="{ctx.site_url}home.php?mod=space&do=pm" />
<input type="hidden" name="pmsubmit" value="true" />
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<table cellspacing="0" cellpadding="0" class="tfm pmform mtm">
<tr><th><label for="username">收件人:</label></th>
<td><input type="text" name="username" id="username" autocomplete="off" />
<p class="d">多个用户使用逗号、分号或回车提示系统分开</p></td></tr>
<tr><th><label for="sendmessage">内容:</label></th>
<td><textarea rows="8" cols="40" name="message" class="pt" id="sendmessage"></textarea></td></tr>
<tr><th>&nbsp;</th><td><button type="submit" name="pmsubmit_btn" id="pmsubmit_btn" value="true" class="pn pnc"><strong>发送</strong></button></td></tr>
</table>
</form>
</div>"""
    return _shell(ctx, "发送消息", main)


def popup_xml(ctx: Ctx, other: User | None, touid: int, messages: list[tuple[PmMessage, str]],
              online: bool) -> str:
    """``op=showmsg`` (the 发消息 window): the day's messages and ``form#pmform_UID``."""
    name = _esc(other.name) if other else ""
    items, day = [], ""
    for msg, author in messages:
        key = msg.at.astimezone(ctx.now.tzinfo).strftime("%Y-%m-%d")
        if key != day:
            items.append(f'<li class="cl">\n<h4 class="xg1">{key}</h4>\n</li>')
            day = key
        items.append(f'<li class="cl pmm">\n<div class="pmt">{_esc(author)}: </div>\n'
                     f'<div class="pmd">{uc_compile(msg.text)}</div>\n</li>')
    state = "[在线]" if online else "[离线]"
    inner = f"""<div class="pm">
<h3 class="flb">
<em>正在与{name}聊天中……{state}</em>
<span><a href="javascript:;" onclick="hideWindow('showMsgBox');" class="flbc" title="关闭">关闭</a></span></h3>
<div class="pm_tac bbda cl">
<a href="home.php?mod=space&amp;do=pm&amp;subop=view&amp;touid={touid}#last" class="y" target="_blank">查看与{name}的聊天记录</a>
<a href="home.php?mod=space&amp;uid={touid}" target="_blank">访问{name}的空间</a>
</div>
<div class="c">
<ul class="pmb" id="msglist">{"".join(items)}
</ul>
<div class="pmfm">
<form id="pmform_{touid}" name="pmform_{touid}" method="post" autocomplete="off" action="home.php?mod=spacecp&amp;ac=pm&amp;op=send&amp;touid={touid}">
<input type="hidden" name="pmsubmit" value="true" />
<input type="hidden" name="touid" value="{touid}" />
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<div id="return_showMsgBox" class="xi1" style="margin-bottom:5px"></div>
<input type="hidden" name="handlekey" value="showMsgBox" />
<textarea rows="3" cols="80" name="message" class="pt" id="pmmessage"></textarea>
<input type="hidden" name="messageappend" id="messageappend" value="" />
<button type="submit" class="pn pnc" id="pmsubmit_btn"><strong>发送</strong></button>
</form>
</div>
</div>
</div>
"""
    return ajax_xml(ctx.charset, crlf(inner))
