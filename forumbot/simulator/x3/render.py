"""HTML, ajax XML and JSON the X3 simulator serves, shaped like Discuz X3.5's default theme.

The markup is the simulator's own, kept small, but every hook a client or parser keys on is
where the real forum puts it: ids (``post_PID``, ``pidPID``, ``postnumPID``,
``authorpostonPID``, ``postmessage_PID``, ``thread_subject``, ``fastpostform``,
``messagetext``), classes (``plhin``, ``pls``/``plc``, ``authi``, ``t_f``, ``pg``, ``quote``,
``pstatus``, ``locked``), the inline JS (``discuz_uid``, ``cookiepre``, ``charset``), the
ajax envelopes (``succeedhandle_KEY``/``errorhandle_KEY`` in ``<root><![CDATA[…]]>``) and
the message texts. Pages use CRLF line endings like the real templates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from html import escape as _esc
from urllib.parse import quote

from forumbot.simulator.bbcode import escape as bb_escape
from forumbot.simulator.bbcode import render as render_bbcode
from forumbot.simulator.dates import absolute_minutes, post_time_html, relative_text, ymd
from forumbot.simulator.messages import Outcome
from forumbot.simulator.model import Board, ListedThread, StoredPost, Thread, User

FLOOR_NAMES = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}
CSS = """body{font:14px/1.6 sans-serif;margin:0;background:#f4f4f4;color:#333}
a{color:#336699;text-decoration:none}#hd{background:#fff;border-bottom:1px solid #ddd;padding:8px 16px}
.wp{max-width:960px;margin:0 auto}#ct{margin-top:12px}.bm{background:#fff;border:1px solid #ddd}
table.plhin{width:100%;border-top:1px solid #e5e5e5}td.pls{width:160px;vertical-align:top;
background:#f9fbfd;padding:8px}td.plc{vertical-align:top;padding:8px 16px}.pi{color:#777;font-size:12px}
.pi strong{float:right}.t_f{font-size:14px;padding:8px 0}.quote{background:#f9f9f9;border-left:3px solid
#ccc;margin:6px 0;padding:4px 8px}.quote blockquote{margin:0}.pstatus{color:#999;font-size:12px}
.locked{color:#999;border:1px dashed #ccc;padding:6px}.pg a,.pg strong{display:inline-block;
padding:0 8px;border:1px solid #ccc;margin-right:3px}.pg strong{background:#eee}#messagetext{
background:#fff;border:1px solid #ddd;padding:24px;margin:24px auto;max-width:600px}.alert_error p{
color:#c00}h1.ts{font-size:18px;margin:8px 16px}#f_pst{margin-top:12px;padding:8px}
#fastpostmessage{width:95%}tbody th{text-align:left;padding:4px 8px}#ft{color:#999;font-size:12px;
padding:16px}"""


@dataclass(frozen=True)
class Ctx:
    """What every page needs to know about the site and the viewer."""

    site_url: str
    charset: str
    cookiepre: str
    bbname: str
    now: datetime
    viewer: User | None
    formhash: str
    dateconvert: bool = True
    robot: bool = False  # IS_ROBOT: checkrobot() matched the User-Agent
    newpm: bool = False  # common_member.newpm: the header's 消息 is marked new
    checknewpm: bool = False  # no checkpm cookie: the footer asks op=checknewpm

    @property
    def uid(self) -> int:
        return self.viewer.uid if self.viewer else 0


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def js_str(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "")


def js_params(params: dict[str, str]) -> str:
    return "{" + ",".join(f"'{js_str(k)}':'{js_str(v)}'" for k, v in params.items()) + "}"


# ---- page shell ---------------------------------------------------------------------------
def _header(ctx: Ctx, fid: int | None = None) -> str:
    if ctx.viewer is not None:
        who = (f'<div id="um"><p><strong class="vwmy"><a href="home.php?mod=space&amp;uid='
               f'{ctx.uid}" target="_blank" title="访问我的空间">{_esc(ctx.viewer.name)}</a>'
               f'</strong><span class="pipe">|</span>{pm_link(ctx)}<span class="pipe">|</span>'
               f'<a href="member.php?mod=logging&amp;'
               f'action=logout&amp;formhash={ctx.formhash}">退出</a></p><p>用户组: '
               f'{ctx.viewer.grouptitle}</p></div>')
        if not ctx.robot:  # the 提醒 menu is not drawn for robots (captured x35/44)
            who = prompt_menu(ctx) + "\n" + who
    else:
        who = ('<form method="post" autocomplete="off" id="lsform" action="member.php?mod='
               'logging&amp;action=login&amp;loginsubmit=yes&amp;infloat=yes&amp;lssubmit=yes">\n'
               '<div class="fastlg cl"><input type="text" name="username" id="ls_username" '
               'placeholder="用户名" /> <input type="password" name="password" id="ls_password" '
               'placeholder="密码" /> <label><input type="checkbox" name="cookietime" '
               'value="2592000" />自动登录</label> <button type="submit">登录</button> '
               '<a href="member.php?mod=logging&amp;action=login">登录页</a>\n'
               f'<input type="hidden" name="formhash" value="{ctx.formhash}" />\n'
               '<input type="hidden" name="quickforward" value="yes" />\n'
               '<input type="hidden" name="handlekey" value="ls" />\n</div>\n</form>')
    search = ('<div id="scbar" class="cl"><form id="scbar_form" method="post" autocomplete="off" '
              'action="search.php?searchsubmit=yes" target="_blank">\n'
              f'<input type="hidden" name="formhash" value="{ctx.formhash}" />\n'
              f'<input type="hidden" name="srhfid" value="{fid or 0}" />\n</form></div>')
    return (f'<div id="hd"><div class="wp"><h2><a href="forum.php" title="{_esc(ctx.bbname)}">'
            f'{_esc(ctx.bbname)}</a></h2>\n{who}\n{search}\n</div></div>')


def pm_link(ctx: Ctx) -> str:
    """The header's 消息 link; ``class="new"`` once ``op=checknewpm`` found unread PMs."""
    new = ' class="new"' if ctx.newpm else ""
    return f'<a href="home.php?mod=space&amp;do=pm" id="pm_ntc"{new}>消息</a>'


def prompt_menu(ctx: Ctx) -> str:
    em = "prompt_news" if ctx.newpm else "prompt_news_0"
    return ('<ul id="myprompt_menu" class="p_pop" style="display: none;">\n<li><a href="home.php?'
            'mod=space&amp;do=pm" id="pm_ntc" style="background-repeat: no-repeat; background-'
            f'position: 0 50%;"><em class="{em}"></em>消息</a></li>\n</ul>')


def checknewpm_script(ctx: Ctx) -> str:
    """The footer script that makes Discuz look for new PMs (only without ``checkpm``)."""
    if not (ctx.checknewpm and ctx.viewer is not None and not ctx.robot):
        return ""
    return (f'<script src="home.php?mod=spacecp&ac=pm&op=checknewpm&rand={int(ctx.now.timestamp())}" '
            'type="text/javascript"></script>\n')


def page(ctx: Ctx, title: str, body: str, fid: int | None = None) -> str:
    js = (f"var STYLEID = '1', STATICURL = 'static/', IMGDIR = 'static/image/common', "
          f"VERHASH = 'sIm', charset = '{ctx.charset}', discuz_uid = '{ctx.uid}', "
          f"cookiepre = '{ctx.cookiepre}', cookiedomain = '', cookiepath = '/', "
          f"showusercard = '1', attackevasive = '0', SITEURL = '{ctx.site_url}', "
          f"JSPATH = 'data/cache/';")
    html = f"""<!DOCTYPE html>
<html>
<head>
<meta charset="{ctx.charset}" />
<meta http-equiv="Content-Type" content="text/html; charset={ctx.charset}" />
<title>{_esc(title)} -  {_esc(ctx.bbname)} -  Powered by Discuz!</title>
<meta name="generator" content="Discuz! X3.5" />
<base href="{ctx.site_url}" />
<style type="text/css">{CSS}</style>
<script type="text/javascript">{js}</script>
</head>
<body id="nv_forum" class="pg_viewthread">
{_header(ctx, fid)}
<div id="wp" class="wp">
{body}
</div>
<div id="ft" class="wp cl"><p class="xs0">GMT+8, {absolute_minutes(ctx.now)}</p>
<p>Powered by <strong>Discuz!</strong> <em>X3.5</em> (forumbot simulator)</p></div>
{checknewpm_script(ctx)}</body>
</html>
"""
    return crlf(html)


# ---- showmessage --------------------------------------------------------------------------
def message_page(ctx: Ctx, outcome: Outcome) -> str:
    if outcome.ok:
        url = _esc(outcome.url or ctx.site_url + "forum.php")
        inner = (f'<div id="messagetext" class="alert_right">\n<p>{_esc(outcome.text)}'
                 f'<script type="text/javascript" reload="1">setTimeout("window.location.href '
                 f"='{url}';\", 3000);</script></p>\n<p class=\"alert_btnleft\"><a href=\"{url}\">"
                 f"如果您的浏览器没有自动跳转，请点击此链接</a></p>\n</div>")
    else:
        inner = (f'<div id="messagetext" class="alert_error">\n<p>{_esc(outcome.text)}</p>\n'
                 '<p class="alert_btnleft"><a href="javascript:history.back()">'
                 '[ 点击这里返回上一页 ]</a></p>\n</div>')
    body = (f'<div id="ct" class="wp cl w">\n<div class="nfl">\n<div class="f_c altw">\n{inner}\n'
            '</div>\n</div>\n</div>')
    return page(ctx, "提示信息", body)


def ajax_xml(charset: str, inner: str) -> str:
    return f'<?xml version="1.0" encoding="{charset}"?>\r\n<root><![CDATA[{inner}]]></root>'


def ajax_message(charset: str, outcome: Outcome, handlekey: str) -> str:
    params = js_params(outcome.params)
    if outcome.ok:
        script = (f"if(typeof succeedhandle_{handlekey}=='function') {{succeedhandle_{handlekey}("
                  f"'{js_str(outcome.url or '')}', '{js_str(outcome.text)}', {params});}}")
        return ajax_xml(charset, f'<script type="text/javascript" reload="1">{script}</script>')
    script = (f"if(typeof errorhandle_{handlekey}=='function') {{errorhandle_{handlekey}("
              f"'{js_str(outcome.text)}', {params});}}")
    return ajax_xml(charset, f'{outcome.text}<script type="text/javascript" reload="1">'
                             f'{script}</script>')


def ajax_login_success(charset: str, url: str, text: str, handlekey: str) -> str:
    """The captured ajax login success: an empty succeedhandle_ plus the 欢迎 text in JS."""
    inner = (f"<script type=\"text/javascript\" reload=\"1\">if($('succeedmessage')) "
             f"{{$('succeedmessage').innerHTML = '';}}if(typeof succeedhandle_{handlekey}=="
             f"'function') {{succeedhandle_{handlekey}('{js_str(url)}', '', {{}});}}</script>"
             f"<script type=\"text/javascript\">setTimeout(\"window.location.href ='{url}';\", "
             f"3000);$('succeedmessage_href').href = '{url}';$('main_message').style.display = "
             f"'none';$('main_succeed').style.display = '';$('succeedlocation').innerHTML = "
             f"'{js_str(text)}';</script>")
    return ajax_xml(charset, inner)


def ajax_not_found(charset: str, outcome: Outcome) -> str:
    script = (f"if(typeof errorhandle_=='function') {{errorhandle_('{js_str(outcome.text)}', "
              f"{{}});}}")
    inner = ('<h3 class="flb"><em>提示信息</em></h3>\r\n<div class="c altw">\r\n'
             f'<div class="alert_error">{outcome.text}<script type="text/javascript" reload="1">'
             f'{script}</script></div>\r\n</div>\r\n')
    return ajax_xml(charset, inner)


def json_message(outcome: Outcome) -> str:
    data = dict(outcome.params)
    return json.dumps({"message": outcome.text, "data": data}, ensure_ascii=True)


def system_error(host: str, now: datetime, text: str) -> str:
    """The bare 503 "Discuz! System Error" page (wrong formhash, bad characters)."""
    return crlf(f"""<!DOCTYPE html>
<html>
<head>
<title>{host} - System Error</title>
<meta charset="utf-8" />
</head>
<body>
<div id="container">
<h1>Discuz! System Error</h1><p>Time: {now:%Y-%m-%d %H:%M:%S %z} IP: 127.0.0.1</p>
<div class="info"><li>{text}</li></div>
<div class="help"><a href="http://{host}">{host}</a> 已经将此出错信息详细记录, 由此给您带来的访问不便我们深感歉意</div>
</div>
</body>
</html>
""")


def cc_page(charset: str, url: str) -> str:
    """``securitymessage('attachsave_1_subject', …)``: texts as hex entities, like the real one."""
    subject = "".join(f"&#x{ord(c):x};" for c in "频繁刷新限制")
    text = "".join(f"&#x{ord(c):x};" for c in "您访问本站速度过快或者刷新间隔时间小于两秒！请等待页面自动跳转 ...")
    return crlf(f"""<html>
<head>
<meta http-equiv="Content-Type" content="text/html; charset={charset}" />
<title>{subject}</title>
</head>
<body bgcolor="#FFFFFF">
<table cellpadding="0" cellspacing="0" border="0" width="700" align="center" height="85%">
<tr align="center" valign="middle"><td><table cellpadding="10" cellspacing="0" border="0" width="80%" align="center" style="font-family: Verdana, Tahoma; color: #666666; font-size: 11px">
<tr><td valign="middle" align="center" bgcolor="#EBEBEB"><br /><b style="font-size: 16px">{subject}</b><br /><br />{text}<br /><br /></td></tr>
</table></td></tr>
</table>
<script language="JavaScript">setTimeout("window.location.replace('{url}')", 2000);</script>
</body>
</html>
""")


# ---- pagination ---------------------------------------------------------------------------
def pager(base: str, current: int, total: int) -> str:
    """``helper_page::multi``: only drawn when there is more than one page."""
    if total <= 1:
        return ""
    start, end = max(1, current - 4), min(total, max(current - 4, 1) + 9)
    parts: list[str] = []
    if start > 1:
        parts.append(f'<a href="{base}&amp;page=1" class="first">1 ...</a>')
    if current > 1:
        parts.append(f'<a href="{base}&amp;page={current - 1}" class="prev">&nbsp;&nbsp;</a>')
    for n in range(start, end + 1):
        parts.append(f"<strong>{n}</strong>" if n == current
                     else f'<a href="{base}&amp;page={n}">{n}</a>')
    if end < total:
        parts.append(f'<a href="{base}&amp;page={total}" class="last">... {total}</a>')
    parts.append(f'<label><input type="text" name="custompage" class="px" size="2" '
                 f'value="{current}" /><span title="共 {total} 页"> / {total} 页</span></label>')
    if current < total:
        parts.append(f'<a href="{base}&amp;page={current + 1}" class="nxt">下一页</a>')
    return '<div class="pg">' + "".join(parts) + "</div>"


# ---- viewthread ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ShownPost:
    post: StoredPost
    number: int  # the floor shown (a count of visible posts)
    author_banned: bool
    label_empty: bool = False  # reverse order: the first post's label is empty


def floor_label(number: int, first: bool, empty: bool) -> str:
    if empty:
        return "<em></em><sup>#</sup>"
    if number in FLOOR_NAMES:
        return FLOOR_NAMES[number]
    return f"<em>{number}</em><sup>#</sup>"


def post_html(ctx: Ctx, thread: Thread, shown: ShownPost, page_no: int) -> str:
    p = shown.post
    uid = p.authorid
    if p.first:
        href = f"forum.php?mod=viewthread&tid={thread.tid}"
    else:
        href = f"forum.php?mod=redirect&goto=findpost&ptid={thread.tid}&pid={p.pid}"
    extra_first = ""
    if p.first and not ctx.robot:
        extra_first = (f'\n<span class="pipe show">|</span><a href="forum.php?mod=viewthread&amp;'
                       f'tid={thread.tid}&amp;extra=&amp;ordertype=1" class="show">倒序浏览</a>')
    # viewthread_node.htm: IS_ROBOT drops the floor link (strong > a#postnumPID) and the
    # 电梯直达 box, and offers 显示全部楼层 where a browser gets 只看该作者.
    floor = ""
    if not ctx.robot:
        floor = (f'<strong>\n<a href="{href}" id="postnum{p.pid}" onclick="setCopy(this.href, '
                 f"'帖子地址复制成功');return false;\">\n"
                 f"{floor_label(shown.number, p.first, shown.label_empty)}</a>\n</strong>\n")
        only_author = (f'<a href="forum.php?mod=viewthread&amp;tid={thread.tid}&amp;page={page_no}'
                       f'&amp;authorid={uid}" rel="nofollow">只看该作者</a>')
    else:
        only_author = (f'<a href="forum.php?mod=viewthread&amp;tid={thread.tid}&amp;page={page_no}'
                       f'" rel="nofollow">显示全部楼层</a>')
    if shown.author_banned:
        body = '<div class="locked">提示: <em>作者被禁止或删除 内容自动屏蔽</em></div>'
    elif p.blocked:
        body = '<div class="locked">提示: <em>该帖被管理员或版主屏蔽</em></div>'
    else:
        body = ('<div class="t_fsz"><table cellspacing="0" cellpadding="0"><tr><td class="t_f" '
                f'id="postmessage_{p.pid}">\n{render_bbcode(p.message, ctx.site_url, "x3")}</td></tr>'
                '</table>\n</div>')
    actions = (f'<a class="fastre" href="forum.php?mod=post&amp;action=reply&amp;fid={thread.fid}'
               f'&amp;tid={thread.tid}&amp;repquote={p.pid}&amp;extra=&amp;page={page_no}">回复</a>')
    if ctx.viewer is not None and ctx.uid == uid:
        actions += (f'<a class="editp" href="forum.php?mod=post&amp;action=edit&amp;fid='
                    f'{thread.fid}&amp;tid={thread.tid}&amp;pid={p.pid}&amp;page={page_no}">编辑</a>')
    return f"""<div id="post_{p.pid}" ><table id="pid{p.pid}" class="plhin" summary="pid{p.pid}" cellspacing="0" cellpadding="0">
<tr>
<td class="pls" rowspan="2">
<div id="favatar{p.pid}" class="pls cl favatar">
<div class="pi">
<div class="authi"><a href="home.php?mod=space&amp;uid={uid}" target="_blank" class="xw1">{_esc(p.author)}</a>
</div>
</div>
<p><em><a href="home.php?mod=spacecp&amp;ac=usergroup&amp;gid={4 if shown.author_banned else 10}" target="_blank">{"禁止发言" if shown.author_banned else "新手上路"}</a></em></p>
</div>
</td>
<td class="plc">
<div class="pi">
{floor}<div class="pti">
<div class="authi">
<img class="authicn vm" id="authicon{p.pid}" src="static/image/common/online_member.gif" />
<em id="authorposton{p.pid}">发表于 {post_time_html(p.dateline, ctx.now, ctx.dateconvert)}</em>
<span class="pipe">|</span>
{only_author}{extra_first}
</div>
</div>
</div><div class="pct"><div class="pcb">
{body}
</div>
</div>
</td></tr>
<tr><td class="plc plm">
</td>
</tr>
<tr>
<td class="pls"></td>
<td class="plc"><div class="po hin"><div class="pob cl"><em>{actions}</em></div></div></td>
</tr>
</table>
</div>"""


def fastpost_form(ctx: Ctx, thread: Thread, captcha: bool) -> str:
    if thread.closed:
        return ('<div id="f_pst" class="pl bm bmw">\n<div class="area">\n<div class="pt hm">\n'
                '抱歉，本主题已关闭，不再接受新内容\n</div>\n</div>\n'
                f'<input type="hidden" name="formhash" value="{ctx.formhash}" />\n</div>')
    seccheck = ""
    if captcha:
        seccheck = ("<span id=\"seccode_cSIM\"></span><script type=\"text/javascript\" "
                    "reload=\"1\">updateseccode('cSIM', '<sec> <sec> <sec>', "
                    "'forum::viewthread');</script>")
    posttime = int(ctx.now.timestamp())
    return f"""<div id="f_pst" class="pl bm bmw">
<form method="post" autocomplete="off" id="fastpostform" action="forum.php?mod=post&amp;action=reply&amp;fid={thread.fid}&amp;tid={thread.tid}&amp;extra=&amp;replysubmit=yes&amp;infloat=yes&amp;handlekey=fastpost" onSubmit="return fastpostvalidate(this)">
<span id="fastpostreturn"></span>
<div class="area">
<textarea rows="6" cols="80" name="message" id="fastpostmessage" class="pt"></textarea>
</div>
<div id="seccheck_fastpost">{seccheck}
</div>
<input type="hidden" name="posttime" id="posttime" value="{posttime}" />
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<input type="hidden" name="usesig" value="1" />
<input type="hidden" name="subject" value="  " />
<p class="ptm pnpost">
<button type="submit" name="replysubmit" id="fastpostsubmit" class="pn pnc vm" value="replysubmit"><strong>发表回复</strong></button>
</p>
</form>
</div>"""


def viewthread_page(ctx: Ctx, board: Board, thread: Thread, shown: list[ShownPost], page_no: int,
                    total_pages: int, captcha_post: bool, authorid: int | None = None,
                    ordertype: int | None = None) -> str:
    base = f"forum.php?mod=viewthread&tid={thread.tid}&amp;extra="
    if authorid:
        base += f"&amp;authorid={authorid}"
    if ordertype:
        base += f"&amp;ordertype={ordertype}"
    pg = pager(base, page_no, total_pages)
    lock = '&nbsp;<i class="fico-lock fc-s" title="关闭"></i>\n' if thread.closed else ""
    posts = "".join(post_html(ctx, thread, s, page_no) for s in shown)
    reply_area = fastpost_form(ctx, thread, captcha_post)
    nxt = ""
    if page_no < total_pages:
        nxt = (f'<div class="pgbtn"><a href="{base}&amp;page={page_no + 1}" hidefocus="true" '
               'class="bm_h">下一页 &raquo;</a></div>')
    body = f"""<div id="pt" class="bm cl"><div class="z"><a href="./" class="nvhm" title="首页">{_esc(ctx.bbname)}</a> <em>&rsaquo;</em> <a href="forum.php?mod=forumdisplay&amp;fid={board.fid}">{_esc(board.name)}</a> <em>&rsaquo;</em> <a href="forum.php?mod=viewthread&amp;tid={thread.tid}">{_esc(thread.subject)}</a></div></div>
<div id="ct" class="wp cl">
<div id="pgt" class="pgs mbm cl ">
<div class="pgt">{pg}</div>
<span class="y pgb"><a href="forum.php?mod=forumdisplay&amp;fid={board.fid}">返回列表</a></span>
</div>
<div id="postlist" class="pl bm">
<table cellspacing="0" cellpadding="0">
<tr>
<td class="plc ptm pbn vwthd">
<h1 class="ts">
<span id="thread_subject">{_esc(thread.subject)}</span>
</h1>
<span class="xg1">
{lock}<a href="forum.php?mod=viewthread&amp;tid={thread.tid}">[复制链接]</a>
</span>
</td>
</tr>
</table>
{posts}<div id="postlistreply" class="pl"><div id="post_new" class="viewthread_table" style="display: none"></div></div>
</div>
<form method="post" autocomplete="off" name="modactions" id="modactions">
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<input type="hidden" name="page" value="{page_no}" />
</form>
{nxt}
<div class="pgs mtm mbm cl">
{pg}<span class="pgb y"><a href="forum.php?mod=forumdisplay&amp;fid={board.fid}">返回列表</a></span>
</div>
{reply_area}
</div>"""
    title = f"{thread.subject} - {board.name}"
    if page_no > 1:
        title = f"{thread.subject} - 第{page_no}页 - {board.name}"
    return page(ctx, title, body, board.fid)


# ---- lists --------------------------------------------------------------------------------
def forum_index(ctx: Ctx, boards: list[tuple[Board, int, int]]) -> str:
    rows = "".join(f'<tr><td class="fl_g"><h2><a href="forum.php?mod=forumdisplay&amp;fid='
                   f'{b.fid}">{_esc(b.name)}</a></h2></td><td class="fl_i">主题 {threads}, 帖数 '
                   f'{posts}</td></tr>\n' for b, threads, posts in boards)
    body = (f'<div id="ct" class="wp cl"><div class="fl bm"><div class="bm bmw flg cl">'
            f'<div class="bm_h cl"><h2><a href="forum.php">版块</a></h2></div>\n'
            f'<table cellspacing="0" cellpadding="0" class="fl_tb">\n{rows}</table>'
            f'</div></div></div>')
    return page(ctx, "论坛", body)


def _board_time(when: datetime, now: datetime, dateconvert: bool, *, date_only: bool = False) -> str:
    """``dgmdate($t, 'u')`` in a listing row: relative text in a span titled with the date
    (the author column: the day; the last post column: day and minute)."""
    when = when.astimezone(now.tzinfo)
    absolute = ymd(when) if date_only else absolute_minutes(when)
    text = relative_text(when, now) if dateconvert else None
    if text is None:
        return absolute
    return f'<span title="{absolute}">{text}</span>'


def _thread_row(ctx: Ctx, row: ListedThread) -> str:
    """One ``tbody#normalthread_TID`` (``stickthread_TID`` when sticky), as
    forumdisplay_list.htm draws it (captured: forumdisplay-fid3.html)."""
    t = row.thread
    kind = "stickthread" if row.sticky else "normalthread"
    icon = "fico-lock fc-s" if t.closed else ("fico-pin fc-i" if row.sticky else "fico-thread fic6 fc-n")
    lock = ' <i class="fico-lock fc-s" title="关闭"></i>' if t.closed else ""
    view = f"forum.php?mod=viewthread&amp;tid={t.tid}&amp;extra=page%3D1"
    author_when = _board_time(t.dateline, ctx.now, ctx.dateconvert, date_only=True)
    last_when = _board_time(row.lastpost, ctx.now, ctx.dateconvert)
    poster = quote(row.lastposter, encoding="gb18030" if ctx.charset == "gbk" else "utf-8")
    return crlf(f"""<tbody id="{kind}_{t.tid}">
<tr>
<td class="icn">
<a href="{view}" title="新窗口打开" target="_blank">
<i class="{icon}"></i>
</a>
</td>
<th class="common">
 <a href="{view}" onclick="atarget(this)" class="s xst">{_esc(t.subject)}</a>{lock}
</th>
<td class="by">
<cite>
<a href="home.php?mod=space&amp;uid={t.authorid}" c="1">{_esc(t.author)}</a></cite>
<em><span class="xi1">{author_when}</span></em>
</td>
<td class="num"><a href="{view}" class="xi2">{row.replies}</a><em>{t.views}</em></td>
<td class="by">
<cite><a href="home.php?mod=space&username={poster}" c="1">{_esc(row.lastposter)}</a></cite>
<em><a href="forum.php?mod=redirect&tid={t.tid}&goto=lastpost#lastpost">{last_when}</a></em>
</td>
</tr>
</tbody>
""")


def forumdisplay(ctx: Ctx, board: Board, rows: list[ListedThread], page_no: int = 1,
                 total: int = 1, *, listing: bool = True) -> str:
    """forumdisplay: sticky rows, the separator, the normal rows; the pager (div#pgt's
    div.pg) when there is more than one page. ``listing`` False: a theme that draws no
    thread table (a portal-style board) — the page has no table[summary=forum_FID]."""
    sticky = "".join(_thread_row(ctx, r) for r in rows if r.sticky)
    normal = "".join(_thread_row(ctx, r) for r in rows if not r.sticky)
    if not rows:
        normal = ('<tbody class="bw0_all"><tr><th colspan="5"><p class="emp">'
                  '本版块或指定的范围内尚无主题</p></th></tr></tbody>\r\n')
    separator = ('<tbody id="separatorline" class="emptb"><tr><td class="icn"></td><th></th>'
                 '<td class="by"></td><td class="num"></td><td class="by"></td></tr></tbody>\r\n')
    pg = pager(f"forum.php?mod=forumdisplay&amp;fid={board.fid}", page_no, total)
    table = (f'<table summary="forum_{board.fid}" cellspacing="0" cellpadding="0" '
             f'id="threadlisttableid">\r\n{sticky}{separator}{normal}</table>') if listing else (
             '<div class="bm_c"><p class="emp">本版块以门户方式展示</p></div>')
    body = (f'<div id="ct" class="wp cl"><div class="bm_h cl"><h1 class="xs2"><a href="forum.php?'
            f'mod=forumdisplay&amp;fid={board.fid}">{_esc(board.name)}</a></h1></div>\n'
            f'<div id="pgt" class="bm bw0 pgs cl">{pg}</div>\n'
            f'<div id="threadlist" class="tl bm bmw"><div class="bm_c"><form method="post" '
            f'autocomplete="off" name="moderate" id="moderate" action="forum.php?mod=topicadmin'
            f'&amp;action=moderate&amp;fid={board.fid}&amp;infloat=yes&amp;nopost=yes">\n'
            f'<input type="hidden" name="formhash" value="{ctx.formhash}" />\n'
            f'<input type="hidden" name="listextra" value="page%3D{page_no}" />\n{table}\n'
            f'</form></div></div>\n<div class="bm bw0 pgs cl">{pg}</div></div>')
    return page(ctx, board.name, body, board.fid)


# ---- forms --------------------------------------------------------------------------------
def login_form(ctx: Ctx, loginhash: str, captcha: bool, handlekey: str | None = None) -> str:
    action = "member.php?mod=logging&amp;action=login&amp;loginsubmit=yes"
    if handlekey:
        action += f"&amp;handlekey={handlekey}"
    action += f"&amp;loginhash={loginhash}"
    questions = "".join(f'<option value="{i}">{q}</option>' for i, q in enumerate(
        ["安全提问(未设置请忽略)", "母亲的名字", "爷爷的名字", "父亲出生的城市", "您其中一位老师的名字",
         "您个人计算机的型号", "您最喜欢的餐馆名称", "驾驶执照最后四位数字"]))
    seccode = ""
    if captcha:
        seccode = (f"<span id=\"seccode_c{loginhash}\"></span>\n<script type=\"text/javascript\" "
                   f"reload=\"1\">updateseccode('c{loginhash}', '<div class=\"rfm\"><sec> <sec>"
                   f"</div>', 'member::logging');</script>\n")
    return f"""<div id="main_messaqge_{loginhash}">
<div id="layer_login_{loginhash}">
<h3 class="flb"><em id="returnmessage_{loginhash}">用户登录</em></h3>
<form method="post" autocomplete="off" name="login" id="loginform_{loginhash}" class="cl" action="{action}">
<div class="c cl">
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<input type="hidden" name="referer" value="{ctx.site_url}./" />
<div class="rfm"><select name="loginfield" id="loginfield_{loginhash}"><option value="username">用户名</option><option value="email">Email</option></select>
<input type="text" name="username" id="username_{loginhash}" autocomplete="off" size="30" class="px p_fre" value="" /></div>
<div class="rfm"><label for="password3_{loginhash}">密码:</label> <input type="password" id="password3_{loginhash}" name="password" size="30" class="px p_fre" /></div>
<div class="rfm">安全提问: <select id="loginquestionid_{loginhash}" name="questionid">{questions}</select></div>
<div class="rfm" id="loginanswer_row_{loginhash}">答案: <input type="text" name="answer" id="loginanswer_{loginhash}" autocomplete="off" size="30" class="px p_fre" /></div>
{seccode}<div class="rfm"><label for="cookietime_{loginhash}"><input type="checkbox" class="pc" name="cookietime" id="cookietime_{loginhash}" value="2592000" />自动登录</label></div>
<div class="rfm mbw bw0"><button class="pn pnc" type="submit" name="loginsubmit" value="true"><strong>登录</strong></button></div>
</div>
</form>
</div>
</div>"""


def login_page(ctx: Ctx, loginhash: str, captcha: bool) -> str:
    body = f'<div id="ct" class="ptm wp w cl"><div class="mn" id="main_message">{login_form(ctx, loginhash, captcha)}</div></div>'
    return page(ctx, "登录", body)


def post_form(ctx: Ctx, board: Board, thread: Thread, *, action: str, message: str = "",
              hidden: dict[str, str] | None = None, captcha: bool = False,
              page_no: int = 1, pid: int | None = None,
              limits: tuple[int, int] | None = None) -> str:
    """The full editor form (#postform) for ``action=reply`` or ``action=edit``."""
    fields = {"formhash": ctx.formhash, "posttime": str(int(ctx.now.timestamp())),
              "wysiwyg": "0"}
    if action == "reply":
        url = (f"forum.php?mod=post&amp;action=reply&amp;fid={board.fid}&amp;tid={thread.tid}"
               "&amp;extra=&amp;replysubmit=yes")
        submit = ("replysubmit", "参与/回复主题")
        fields.update({"noticeauthor": "", "noticetrimstr": "", "noticeauthormsg": ""})
    else:
        url = "forum.php?mod=post&amp;action=edit&amp;extra=&amp;editsubmit=yes"
        submit = ("editsubmit", "保存")
        fields.update({"delattachop": "0", "fid": str(board.fid), "tid": str(thread.tid),
                       "pid": str(pid), "page": str(page_no)})
    fields.update(hidden or {})
    inputs = "\n".join(f'<input type="hidden" name="{k}" value="{bb_escape(v)}" />'
                       for k, v in fields.items())
    seccheck = ""
    if captcha:
        seccheck = ("<div id=\"seccheck\"><script type=\"text/javascript\" reload=\"1\">"
                    "updateseccode('cSIMP', '<sec> <sec> <sec>', 'forum::post');</script></div>")
    # post_editor.htm / post.htm: the editor's length check, as the captures show it
    # (postminchars = the forum's minpostsize, in bytes).
    script = ("<script type=\"text/javascript\">\nvar postminchars = parseInt('%d');\n"
              "var postmaxchars = parseInt('%d');\nvar disablepostctrl = parseInt('0');\n</script>\n"
              % limits) if limits else ""
    body = f"""<div id="pt" class="bm cl"><a href="forum.php?mod=forumdisplay&amp;fid={board.fid}">{_esc(board.name)}</a> <em>&rsaquo;</em> <a href="forum.php?mod=viewthread&amp;tid={thread.tid}">{_esc(thread.subject)}</a></div>
{script}<form method="post" autocomplete="off" id="postform" action="{url}">
<div id="ct" class="ct2_a ct2_a_r wp cl">
{inputs}
<div class="pbt cl"><input type="text" name="subject" id="subject" class="px" value="" /></div>
<div class="area">
<textarea name="message" id="e_textarea" class="pt" rows="15">{bb_escape(message)}</textarea>
</div>
{seccheck}
<input type="hidden" name="usesig" value="1" />
<div class="mtm mbm pnpost">
<button type="submit" id="postsubmit" class="pn pnc" value="true" name="{submit[0]}"><span>{submit[1]}</span></button>
<input type="hidden" id="postsave" name="save" value="" />
</div>
</div>
</form>"""
    return page(ctx, "参与/回复主题" if action == "reply" else "编辑帖子", body, board.fid)


def newthread_form(ctx: Ctx, board: Board, *, captcha: bool = False,
                   limits: tuple[int, int] | None = None) -> str:
    """``forum.php?mod=post&action=newthread&fid=F``: the full editor (#postform) with a
    subject, posted to ``…&extra=&topicsubmit=yes`` (template ``forum/post.htm``)."""
    fields = {"formhash": ctx.formhash, "posttime": str(int(ctx.now.timestamp())),
              "wysiwyg": "0", "special": "", "specialextra": ""}
    inputs = "\n".join(f'<input type="hidden" name="{k}" value="{bb_escape(v)}" />'
                       for k, v in fields.items())
    seccheck = ""
    if captcha:
        seccheck = ("<div id=\"seccheck\"><script type=\"text/javascript\" reload=\"1\">"
                    "updateseccode('cSIMP', '<sec> <sec> <sec>', 'forum::post');</script></div>")
    script = ("<script type=\"text/javascript\">\nvar postminchars = parseInt('%d');\n"
              "var postmaxchars = parseInt('%d');\nvar disablepostctrl = parseInt('0');\n</script>\n"
              % limits) if limits else ""
    url = f"forum.php?mod=post&amp;action=newthread&amp;fid={board.fid}&amp;extra=&amp;topicsubmit=yes"
    body = f"""<div id="pt" class="bm cl"><a href="forum.php?mod=forumdisplay&amp;fid={board.fid}">{_esc(board.name)}</a> <em>&rsaquo;</em> 发表帖子</div>
{script}<form method="post" autocomplete="off" id="postform" action="{url}">
<div id="ct" class="ct2_a ct2_a_r wp cl">
{inputs}
<div class="pbt cl"><input type="text" name="subject" id="subject" class="px" value="" tabindex="1" /></div>
<div class="area">
<textarea name="message" id="e_textarea" class="pt" rows="15"></textarea>
</div>
{seccheck}
<input type="checkbox" name="usesig" id="usesig" class="pc" value="1" checked="checked" />
<input type="checkbox" name="allownoticeauthor" id="allownoticeauthor" class="pc" value="1" checked="checked" />
<div class="mtm mbm pnpost">
<button type="submit" id="postsubmit" class="pn pnc" value="true" name="topicsubmit"><span>发表帖子</span></button>
<input type="hidden" id="postsave" name="save" value="" />
</div>
</div>
</form>"""
    return page(ctx, "发表帖子", body, board.fid)


def moderate_form(ctx: Ctx, board: Board, thread: Thread, referer: str) -> str:
    """``forum.php?mod=topicadmin&action=moderate&optgroup=4``: the 打开/关闭 float
    (template ``forum/topicadmin.htm``), inside the ajax envelope (topicadmin is always
    ajax). The radio checked is the thread's state."""
    opened, closed = ("", ' checked="checked"') if thread.closed else (' checked="checked"', "")
    inner = f"""<div class="tm_c" id="floatlayout_topicadmin">
<h3 class="flb"><em id="return_mods">选择了 1 篇帖子</em></h3>
<form id="moderateform" method="post" autocomplete="off" action="forum.php?mod=topicadmin&amp;action=moderate&amp;optgroup=4&amp;modsubmit=yes&amp;infloat=yes" onsubmit="ajaxpost('moderateform', 'return_mods', 'return_mods', 'onerror');return false;">
<input type="hidden" name="frommodcp" value="" />
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<input type="hidden" name="fid" value="{board.fid}" />
<input type="hidden" name="redirect" value="{_esc(referer)}" />
<input type="hidden" name="handlekey" value="mods" />
<input type="hidden" name="moderate[]" value="{thread.tid}" />
<div class="c"><ul class="tpcl">
<li id="itemcp_close"><table cellspacing="0" cellpadding="5" width="100%"><tr><td>
<p class="hasd"><label for="expirationclose" class="labeltxt">有效期</label>
<input type="text" name="expirationclose" id="expirationclose" class="px" autocomplete="off" value="" /></p>
<ul class="llst">
<li class="wide"><label><input type="radio" name="operations[]" class="pr" value="open"{opened} />打开</label></li>
<li class="wide"><label><input type="radio" name="operations[]" class="pr" value="close"{closed} />关闭</label></li>
</ul></td></tr></table></li>
</ul>
<div class="tpclg"><h4 class="cl">操作原因:</h4>
<p><textarea id="reason" name="reason" class="pt" rows="3"></textarea></p></div>
</div>
<p class="o pns"><label for="sendreasonpm"><input type="checkbox" name="sendreasonpm" id="sendreasonpm" class="pc" />通知作者</label>
<button type="submit" name="modsubmit" id="modsubmit" class="pn pnc" value="确定"><span>确定</span></button></p>
</form>
</div>"""
    return ajax_xml(ctx.charset, crlf(inner))
