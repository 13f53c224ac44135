"""HTML and ajax XML the 7.2 simulator serves, shaped like Discuz! 7.2's default templates.

The markup is the simulator's own and kept small, but every hook a client or parser keys
on is where 7.2 puts it (read from ``templates/default/*.htm`` and the captures in
``../shared/fixtures/discuz-7.2*``): ``div#postlist.mainbox.viewthread > div#post_PID >
table#pidPID`` with ``td.postauthor`` / ``td.postcontent``; the floor
``div.postinfo > strong > a#postnumPID[href="javascript:;"]`` whose findpost URL sits only
in its ``onclick``; ``div.authorinfo > a.posterlink[href="space.php?uid=UID"]`` and
``em#authorpostonPID``; the UID in the sidebar's ``<dt>UID</dt><dd>N</dd>``; the title in
the first post's ``div#threadtitle > h1``; the body ``td.t_msgfont#postmessage_PID``; the
pager ``div.pages``; the inline JS ``discuz_uid = N`` (no ``cookiepre``: 7.2 has none);
``showmessage`` boxes ``div.alert_right|alert_info|alert_error > p``; the ajax envelope
``<?xml …?><root><![CDATA[…]]></root>`` with nothing between prolog and root.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from html import escape as _esc
from urllib.parse import quote

from forumbot.simulator.bbcode import escape as bb_escape
from forumbot.simulator.bbcode import render as render_bbcode
from forumbot.simulator.dates import absolute_minutes, post_time_html_d72, ymd
from forumbot.simulator.messages import Outcome
from forumbot.simulator.model import Board, ListedThread, StoredPost, Thread, User

QUESTIONS = ["安全提问", "母亲的名字", "爷爷的名字", "父亲出生的城市", "您其中一位老师的名字",
             "您个人计算机的型号", "您最喜欢的餐馆名称", "驾驶执照的最后四位数字"]


@dataclass(frozen=True)
class Ctx:
    """What every page needs to know about the site and the viewer."""

    site_url: str
    charset: str
    bbname: str
    now: datetime
    viewer: User | None
    formhash: str
    dateconvert: bool = True
    adminemail: str = "admin@example.com"
    pm_prompt: int = 0  # cdb_prompt's pm number: the header's 私人消息 (N)

    @property
    def uid(self) -> int:
        return self.viewer.uid if self.viewer else 0


def crlf(text: str) -> str:
    """The templates' line ends are CRLF; content marked ``raw`` keeps its own."""
    text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text.replace("\x00", "\n").replace("\x01", "\r")


def raw(text: str) -> str:
    """Content (a post, a textarea, a form value) whose line breaks stay as stored: 7.2's
    ``nl2br`` keeps the posted ``\n`` or ``\r\n`` after each ``<br />``."""
    return text.replace("\n", "\x00").replace("\r", "\x01")


def js_str(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "")


# ---- page shell ---------------------------------------------------------------------------
def _umenu(ctx: Ctx) -> str:
    if ctx.viewer is None:
        return ('<div id="umenu">\n<a href="register.php" class="noborder">注册</a>\n'
                '<a href="logging.php?action=login">登录</a>\n</div>')
    new = ' class="new"' if ctx.pm_prompt else ""
    return (f'<div id="umenu">\n<cite><a href="space.php?uid={ctx.uid}" class="noborder">'
            f'{_esc(ctx.viewer.name)}</a></cite>\n<span class="pipe">|</span>\n'
            f'<a id="myprompt" href="notice.php"{new}>提醒</a>\n<span id="myprompt_check"></span>\n'
            '<a href="pm.php" id="pm_ntc" target="_blank">短消息</a>\n'
            '<span class="pipe">|</span>\n<a href="memcp.php">个人中心</a>\n'
            f'<a href="logging.php?action=logout&amp;formhash={ctx.formhash}">退出</a>\n</div>')


def prompt_menu(ctx: Ctx) -> str:
    """The 提醒 menu's 私人消息 item: hidden at (0), shown with the count the last
    ``pm.php?checknewpm`` stored (captured d72/14); a guest's page has it too (d72/01)."""
    shown = "<li>" if ctx.pm_prompt else '<li style="display:none">'
    return ('<div id="myprompt_menu" style="display:none" class="promptmenu">\n<div class="promptcontent">\n'
            f'<ul class="s_clear">{shown}<a id="prompt_pm" href="pm.php?filter=newpm" target="_blank">'
            f'私人消息 ({ctx.pm_prompt})</a></li></ul>\n</div>\n</div>\n')


def page(ctx: Ctx, title: str, body: str, nav: str, body_id: str = "viewthread",
         fid: int = 0, tid: int = 0) -> str:
    js = (f"var STYLEID = '1', IMGDIR = 'images/default', VERHASH = 'sIm', charset = "
          f"'{ctx.charset}', discuz_uid = {ctx.uid}, cookiedomain = '', cookiepath = '/', "
          f"attackevasive = '0', disallowfloat = 'newthread|reply', fid = parseInt('{fid}'), "
          f"tid = parseInt('{tid}')")
    return crlf(f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<meta http-equiv="Content-Type" content="text/html; charset={ctx.charset}" />
<title>{_esc(title)} {_esc(ctx.bbname)}  - Powered by Discuz!</title>
<meta name="generator" content="Discuz! 7.2" />
<script type="text/javascript">{js}</script>
</head>
<body id="{body_id}">
<div id="header">
<div class="wrap s_clear">
<h2><a href="index.php" title="{_esc(ctx.bbname)}">{_esc(ctx.bbname)}</a></h2>
{_umenu(ctx)}
</div>
{prompt_menu(ctx)}</div>
<div id="nav"><a href="index.php">{_esc(ctx.bbname)}</a> {nav}</div>
{body}
<div id="footer">
<div class="wrap s_clear">
<p class="smalltext">GMT+8, {absolute_minutes(ctx.now)}</p>
<p>Powered by <strong>Discuz!</strong> <em>7.2</em> (forumbot simulator)</p>
</div>
</div>
</body>
</html>
""")


# ---- showmessage --------------------------------------------------------------------------
def _alert_type(outcome: Outcome) -> str:
    """showmessage.htm: forwarding → alert_right for *_succeed else alert_info; otherwise
    alert_error when the text offers 返回, else alert_info."""
    if outcome.url:
        return "alert_right" if outcome.key.endswith("_succeed") else "alert_info"
    return "alert_error" if "返回" in outcome.text else "alert_info"


def message_page(ctx: Ctx, outcome: Outcome) -> str:
    text = outcome.text
    link = ""
    if outcome.url:
        url = _esc(outcome.url)
        text += f"<script>setTimeout(\"window.location.href ='{url}';\", 3000);</script>"
        link = f'\n<p class="alert_btnleft"><a href="{url}">如果您的浏览器没有自动跳转，请点击此链接</a></p>'
    elif "返回" in outcome.text:
        link = '\n<p class="alert_btnleft"><a href="javascript:history.back()">[ 点击这里返回上一页 ]</a></p>'
    body = (f'<div id="wrap" class="wrap s_clear"><div class="main"><div class="content nofloat">\n'
            f'<div class="fcontent alert_win">\n<h3 class="float_ctrl"><em>{_esc(ctx.bbname)} 提示信息'
            f'</em></h3>\n<hr class="shadowline" />\n<div class="postbox"><div class="'
            f'{_alert_type(outcome)}">\n<p>{text}</p>{link}\n</div></div>\n</div>\n</div></div></div>')
    return page(ctx, "", body, "&raquo; 提示信息", "message")


def _login_table(ctx: Ctx, captcha: bool) -> str:
    questions = "\n".join(f'<option value="{i}">{q}</option>' for i, q in enumerate(QUESTIONS))
    seccheck = f"<tr><th></th><td>\n{seccheck_html('logging')}</td></tr>\n" if captcha else ""
    return f"""<form method="post" name="login" id="loginform" class="gateform" action="logging.php?action=login&amp;loginsubmit=yes">
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<table cellspacing="0" cellpadding="0" class="formtable">
<tr><th><select name="loginfield" id="loginfield"><option value="username">用户名</option><option value="uid">UID</option><option value="email">Email</option></select></th>
<td><input type="text" name="username" autocomplete="off" size="36" class="txt" value="" /></td></tr>
<tr><th><label for="password3">密码</label></th><td><input type="password" id="password3" name="password" size="36" class="txt" /></td></tr>
<tr><th><label for="questionid">安全提问</label></th><td><select id="questionid" name="questionid">
{questions}
</select></td></tr>
<tr><th><label for="answer">回答</label></th><td><input type="text" name="answer" id="answer" autocomplete="off" size="36" class="txt" /></td></tr>
{seccheck}<tr><th>&nbsp;</th><td><button class="submit" type="submit" name="loginsubmit" value="true">登录</button>
<input type="checkbox" class="checkbox" name="cookietime" id="cookietime" value="2592000" /> <label for="cookietime">记住我的登录状态</label></td></tr>
</table>
</form>"""


def nopermission_page(ctx: Ctx, outcome: Outcome, captcha: bool) -> str:
    """nopermission.htm: 您无权进行当前操作，原因如下： + the reason, and a login box for guests."""
    if ctx.viewer is not None:
        tail = ('<p class="alert_btnleft"><a href="faq.php?action=grouppermission" '
                'target="_blank">查看您当前用户组的权限</a></p></div>')
    else:
        tail = f'<div class="alert_act">\n{_login_table(ctx, captcha)}\n</div>'
    body = (f'<div id="wrap" class="wrap s_clear"><div class="main"><div class="content nofloat">\n'
            f'<div class="fcontent alert_win">\n<h3 class="float_ctrl"><em>{_esc(ctx.bbname)} 提示信息'
            f'</em></h3>\n<hr class="shadowline" />\n<div class="postbox"><div class="alert_error">\n'
            f'<p>您无权进行当前操作，原因如下：</p>\n<p>{outcome.text}</p></div>{tail}\n</div>\n'
            '</div></div></div>')
    return page(ctx, "", body, "&raquo; 提示信息", "message")


def ajax_xml(charset: str, inner: str) -> str:
    return f'<?xml version="1.0" encoding="{charset}"?><root><![CDATA[{inner}]]></root>'


def ajax_text(outcome: Outcome) -> str:
    """showmessage's ajax text: ``，请返回`` shortened the way ``return_search`` does."""
    return outcome.text.replace("，请返回", "，请").replace("，请。", "。")


def ajax_message(charset: str, outcome: Outcome, handlekey: str, infloat: bool) -> str:
    """``inajax=1``: the bare text; with ``infloat`` and a handlekey, the text plus
    ``messagehandle_KEY`` — or, when the message forwards, ``submithandle_KEY(URL, MSG)``."""
    if outcome.extra == "NOPERM":
        text = js_str(outcome.text)
        return ajax_xml(charset, "<script type=\"text/javascript\" reload=\"1\">\nfunction "
                        f"ajaxerror() {{\nhideMenu();\nshowDialog('{text}', 'notice', '', null, 0);"
                        "\n}\najaxerror();\n</script>")
    text = ajax_text(outcome)
    if infloat and handlekey:
        js = text.replace("'", "\\'")
        if outcome.url:
            return ajax_xml(charset, f"<script type=\"text/javascript\" reload=\"1\">\nif($('return_"
                            f"{handlekey}')) $('return_{handlekey}').className = 'onright';\nif("
                            f"typeof submithandle_{handlekey} =='function') {{submithandle_"
                            f"{handlekey}('{outcome.url}', '{js}');}} else {{location.href="
                            f"'{outcome.url}'}}\n</script>")
        # showmessage(…, '', 1): with infloat the third argument is the handler's key
        key = outcome.extra if outcome.extra.isdigit() else "0"
        return ajax_xml(charset, f"{text}<script type=\"text/javascript\" reload=\"1\">\nif(typeof "
                                 f"messagehandle_{handlekey} =='function') {{messagehandle_"
                                 f"{handlekey}('{key}', '{js}');}}\n</script>")
    if outcome.extra == "HALTED":
        return ajax_xml(charset, f"{text}<script type=\"text/javascript\" reload=\"1\">\nfunction "
                                 f"ajaxerror() {{\nhideMenu();\nshowDialog('{js_str(text)}', "
                                 "'notice', '', null, 0);\n}\najaxerror();\n</script>")
    return ajax_xml(charset, text)


def ajax_login_success(charset: str, grouptitle: str, name: str, url: str) -> str:
    """login.htm with ``$message = 1``: the welcome text goes into #messageleft by script."""
    return ajax_xml(charset, crlf(
        "<script type=\"text/javascript\" reload=\"1\">\ndisplay('main_messaqge');\n"
        "display('layer_login');\ndisplay('layer_message');\n"
        f"$('messageleft').innerHTML = '<p>欢迎您回来 {js_str(grouptitle)} {js_str(name)}</p>';\n"
        f"$('messageright').innerHTML = '<a href=\"{url}\">现在将转入登录前页面</a>';\n"
        f"setTimeout(\"window.location.href='{url}'\", 3000);\n</script>\n</div></div>\n</div>\n"))


# ---- captcha ------------------------------------------------------------------------------
def seccheck_html(script: str) -> str:
    """seccheck.htm: the ``seccodeverify`` box and ``updateseccode()`` (seccodestatus on)."""
    return (f'<input name="seccodeverify" id="seccodeverify_{script}" type="text" autocomplete="off" '
            'style="width:50px" value="验证码" class="txt" href="ajax.php?action=updateseccode" />\n'
            '<a href="javascript:;" onclick="updateseccode();doane(event);">换一个</a>\n'
            f'<span id="checkseccodeverify_{script}"><img src="images/common/none.gif" width="16" '
            'height="16"></span>\n')


# ---- viewthread ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ShownPost:
    post: StoredPost
    number: int  # the floor shown
    author_banned: bool


def pager(base: str, current: int, total: int) -> str:
    """7.2's ``multi()``: ``div.pages`` with ``<strong>`` for the page served, ``a.prev``,
    ``a.next`` 下一页 and ``a.last`` "... N" outside the window; no "/ N 页"."""
    if total <= 1:
        return ""
    start, end = max(1, current - 4), min(total, max(current - 4, 1) + 9)
    parts: list[str] = []
    if start > 1:
        parts.append(f'<a href="{base}&amp;page=1" class="first">1 ...</a>')
    if current > 1:
        parts.append(f'<a href="{base}&amp;page={current - 1}" class="prev">&lsaquo;&lsaquo;</a>')
    for n in range(start, end + 1):
        parts.append(f"<strong>{n}</strong>" if n == current
                     else f'<a href="{base}&amp;page={n}">{n}</a>')
    if end < total:
        parts.append(f'<a href="{base}&amp;page={total}" class="last">... {total}</a>')
    if current < total:
        parts.append(f'<a href="{base}&amp;page={current + 1}" class="next">下一页</a>')
    return '<div class="pages">' + "".join(parts) + "</div>"


def post_html(ctx: Ctx, thread: Thread, shown: ShownPost, page_no: int, ordertype: int) -> str:
    p = shown.post
    uid = p.authorid
    if p.first:
        copy = f"{ctx.site_url}viewthread.php?tid={thread.tid}"
    else:
        copy = f"{ctx.site_url}redirect.php?goto=findpost&amp;ptid={thread.tid}&amp;pid={p.pid}"
    extra_first = ""
    if p.first:
        order = ('<a href="viewthread.php?tid={t}&amp;extra=" class="left">正序看帖</a>'
                 if ordertype == 1 else
                 '<a href="viewthread.php?tid={t}&amp;extra=&amp;ordertype=1" class="left">倒序看帖</a>')
        extra_first = ('\n<em class="rpostno" title="跳转到指定楼层">跳转到 <input id="rpostnovalue" '
                       'size="3" type="text" class="txtarea" /><span id="rpostnobtn" onclick="window.'
                       f"location='redirect.php?ptid={thread.tid}&ordertype={ordertype}&postno='+$("
                       "'rpostnovalue').value\">&raquo;</span></em>\n" + order.format(t=thread.tid))
    if shown.author_banned:
        body = '<div class="locked">提示: <em>作者被禁止或删除 内容自动屏蔽</em></div>'
    elif p.blocked:
        body = '<div class="locked">提示: <em>该帖被管理员或版主屏蔽</em></div>'
    else:
        body = ('<div class="t_msgfontfix">\n<table cellspacing="0" cellpadding="0"><tr><td '
                f'class="t_msgfont" id="postmessage_{p.pid}">'
                f'{raw(render_bbcode(p.message, ctx.site_url, "d72"))}</td></tr></table>\n</div>')
    title = (f'<div id="threadtitle">\n<h1>{_esc(thread.subject)}</h1>\n</div>\n'
             if p.first else "")
    actions = ""
    if ctx.viewer is not None:
        link = f"post.php?action=reply&amp;fid={thread.fid}&amp;tid={thread.tid}"
        actions = (f'<a class="fastreply" href="{link}&amp;reppost={p.pid}&amp;extra=&amp;page='
                   f'{page_no}">回复</a>\n<a class="repquote" href="{link}&amp;repquote={p.pid}'
                   f'&amp;extra=&amp;page={page_no}">引用</a>')
        if ctx.uid == uid:
            actions += (f'\n<a class="editpost" href="post.php?action=edit&amp;fid={thread.fid}&amp;'
                        f'tid={thread.tid}&amp;pid={p.pid}&amp;page={page_no}">编辑</a>')
    group = "禁止发言" if shown.author_banned else "新手上路"
    return f"""<div id="post_{p.pid}"><table id="pid{p.pid}" summary="pid{p.pid}" cellspacing="0" cellpadding="0">
<tr>
<td class="postauthor" rowspan="2">
<div class="popupmenu_popup userinfopanel" id="userinfo{p.pid}" style="display: none; position: absolute;">
<div class="popuserinfo">
<p><a href="space.php?uid={uid}" target="_blank">{_esc(p.author)}</a></p>
<dl class="s_clear"><dt>UID</dt><dd>{uid}&nbsp;</dd></dl>
</div>
</div>
<div>
<div class="avatar"><a href="space.php?uid={uid}" target="_blank"><img src="{ctx.site_url}uc_server/avatar.php?uid={uid}&size=middle" /></a></div>
<p><em><a href="faq.php?action=grouppermission&amp;searchgroupid={4 if shown.author_banned else 10}" target="_blank">{group}</a></em></p>
</div>
</td>
<td class="postcontent">
<div class="postinfo">
<strong><a title="复制本帖链接" id="postnum{p.pid}" href="javascript:;" onclick="setCopy('{copy}', '帖子地址已经复制到剪贴板')"><em>{shown.number}</em><sup>#</sup></a>{extra_first}
</strong>
<div class="posterinfo">
<div class="authorinfo">
<img class="authicon" id="authicon{p.pid}" src="images/common/online_member.gif" />
<a href="space.php?uid={uid}" class="posterlink" target="_blank">{_esc(p.author)}</a><em id="authorposton{p.pid}">发表于 {post_time_html_d72(p.dateline, ctx.now, ctx.dateconvert)}</em>
 | <a href="viewthread.php?tid={thread.tid}&amp;page={page_no}&amp;authorid={uid}" rel="nofollow">只看该作者</a>
</div>
</div>
</div>
<div class="defaultpost">
<div class="postmessage {'firstpost' if p.first else ''}">
{title}{body}
</div>
</div>
</td></tr>
<tr><td class="postcontent postbottom"></td></tr>
<tr>
<td class="postauthor"></td>
<td class="postcontent">
<div class="postactions">
<div class="postact s_clear">
<em>
{actions}</em>
</div>
</div>
</td>
</tr>
</table>
</div>"""


def fastpost_form(ctx: Ctx, thread: Thread, captcha: bool, ordertype: int) -> str:
    """viewthread_fastpost.htm: only for those allowed to reply (a member, thread open)."""
    ajax = "&amp;infloat=yes&amp;handlekey=fastpost" if ordertype != 1 else ""
    seccheck = f'<div class="fastcheck">{seccheck_html("viewthread")}</div>\n' if captcha else ""
    return f"""<div id="f_post" class="mainbox viewthread">
<form method="post" id="fastpostform" action="post.php?action=reply&amp;fid={thread.fid}&amp;tid={thread.tid}&amp;extra=&amp;replysubmit=yes{ajax}">
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<input type="hidden" name="subject" value="" />
<input type="hidden" name="usesig" value="0" />
<span id="fastpostreturn"></span>
<textarea rows="5" cols="80" name="message" id="fastpostmessage" class="txtarea"></textarea>
{seccheck}<p><button type="submit" name="replysubmit" id="fastpostsubmit" value="replysubmit">发表回复</button></p>
</form>
</div>"""


def viewthread_page(ctx: Ctx, board: Board, thread: Thread, shown: list[ShownPost], page_no: int,
                    total: int, *, authorid: int | None, ordertype: int, can_reply: bool,
                    captcha: bool) -> str:
    base = f"viewthread.php?tid={thread.tid}&amp;extra="
    if ordertype:
        base += f"&amp;ordertype={ordertype}"
    if authorid:
        base += f"&amp;authorid={authorid}"
    pg = pager(base, page_no, total)
    posts = "".join(post_html(ctx, thread, s, page_no, ordertype) for s in shown)
    closed = ('<div class="locked">本主题已关闭</div>\n' if thread.closed else "")
    reply = fastpost_form(ctx, thread, captcha, ordertype) if can_reply else ""
    body = f"""<div id="wrap" class="wrap s_clear threadfix">
<div class="forumcontrol"><table cellspacing="0" cellpadding="0"><tr><td class="modaction"></td><td>
{pg}<span class="pageback"><a href="forumdisplay.php?fid={board.fid}">返回列表</a></span>
</td></tr></table></div>
{closed}<div id="postlist" class="mainbox viewthread">{posts}</div>
<div id="postlistreply" class="mainbox viewthread"><div id="post_new" class="viewthread_table" style="display: none"></div></div>
<form method="post" name="modactions" id="modactions">
<input type="hidden" name="formhash" value="{ctx.formhash}" />
</form>
<div class="forumcontrol s_clear"><table cellspacing="0" cellpadding="0" class="narrow"><tr><td class="modaction"></td><td>
{pg}<span class="pageback"><a href="forumdisplay.php?fid={board.fid}">返回列表</a></span>
</td></tr></table></div>
{reply}
</div>"""
    nav = (f'&raquo; <a href="forumdisplay.php?fid={board.fid}">{_esc(board.name)}</a> &raquo; '
           f'{_esc(thread.subject)}')
    return page(ctx, f"{thread.subject} - {board.name} - ", body, nav, "viewthread",
                board.fid, thread.tid)


# ---- lists --------------------------------------------------------------------------------
def forum_index(ctx: Ctx, boards: list[tuple[Board, int, int]]) -> str:
    rows = "".join(f'<tr><th><h2><a href="forumdisplay.php?fid={b.fid}">{_esc(b.name)}</a></h2>'
                   f'</th><td class="forumnums"><em>{threads}</em> / {posts}</td></tr>\n'
                   for b, threads, posts in boards)
    body = (f'<div id="wrap" class="wrap s_clear"><div class="mainbox list">\n<table '
            f'cellspacing="0" cellpadding="0">\n{rows}</table>\n</div></div>')
    return page(ctx, "", body, "", "index")


def _thread_row(ctx: Ctx, row: ListedThread) -> str:
    """One ``tbody#normalthread_TID`` (``stickthread_TID``) as 7.2's forumdisplay.htm
    draws it (captured: guest_forumdisplay.html): the last post to the minute."""
    t = row.thread
    kind = "stickthread" if row.sticky else "normalthread"
    folder = "folder_lock" if t.closed else "folder_common"
    view = f"viewthread.php?tid={t.tid}&amp;extra=page%3D1"
    poster = quote(row.lastposter, encoding="gb18030" if ctx.charset == "gbk" else "utf-8")
    when = post_time_html_d72(row.lastpost, ctx.now, ctx.dateconvert)
    sticky = '<label><img src="images/default/pin_1.gif" alt="本版置顶" /></label>' if row.sticky else "<label>&nbsp;</label>"
    return crlf(f"""<tbody id="{kind}_{t.tid}">
<tr>
<td class="folder">
<a href="{view}" title="新窗口打开" target="_blank">
<img src="images/default/{folder}.gif" /></a>
</td>
<td class="icon">
&nbsp;</td>
<th class="subject common">
{sticky}
 <span id="thread_{t.tid}"><a href="{view}">{_esc(t.subject)}</a></span>
</th>
<td class="author">
<cite>
<a href="space.php?uid={t.authorid}">{_esc(t.author)}</a>
</cite>
<em>{ymd(t.dateline.astimezone(ctx.now.tzinfo))}</em>
</td>
<td class="nums"><strong>{row.replies}</strong>/<em>{t.views}</em></td>
<td class="lastpost">
<cite><a href="space.php?username={poster}">{_esc(row.lastposter)}</a></cite>
<em><a href="redirect.php?tid={t.tid}&amp;goto=lastpost#lastpost">{when}</a></em>
</td>
</tr>
</tbody>
""")


def forumdisplay(ctx: Ctx, board: Board, rows: list[ListedThread], page_no: int = 1,
                 total: int = 1, *, listing: bool = True) -> str:
    """forumdisplay.php: table#forum_FID of sticky then normal rows (a separation row
    between), div.pages above and below when there is more than one page. ``listing``
    False: a theme that draws no thread table."""
    sticky = "".join(_thread_row(ctx, r) for r in rows if r.sticky)
    normal = "".join(_thread_row(ctx, r) for r in rows if not r.sticky)
    separation = ('<tbody><tr><td class="folder"></td><td>&nbsp;</td><th class="subject">'
                  '版块主题</th><td>&nbsp;</td><td>&nbsp;</td><td>&nbsp;</td></tr></tbody>\r\n'
                  if sticky and normal else "")
    if not rows:
        normal = '<tbody><tr><th colspan="6">本版块或指定的范围内尚无主题。</th></tr></tbody>\r\n'
    pages = pager(f"forumdisplay.php?fid={board.fid}", page_no, total)
    table = (f'<table summary="forum_{board.fid}" id="forum_{board.fid}" cellspacing="0" '
             f'cellpadding="0" class="datatable">\r\n{sticky}{separation}{normal}</table>'
             if listing else '<p>本版块暂不显示主题列表</p>')
    body = (f'<div id="wrap" class="wrap s_clear"><div class="main"><div class="content">\n'
            f'<div id="forumheader" class="s_clear">\n<h1 style="">{_esc(board.name)}</h1>\n'
            f'</div>\n<div class="pages_btns s_clear">{pages}</div>\n'
            f'<div id="threadlist" class="threadlist datalist" style="position: relative;">\n'
            f'<form method="post" name="moderate" id="moderate" action="topicadmin.php?action='
            f'moderate&amp;fid={board.fid}&amp;infloat=yes&amp;nopost=yes">\n<input type="hidden" '
            f'name="formhash" value="{ctx.formhash}" />\n<input type="hidden" name="listextra" '
            f'value="page%3D{page_no}" />\n{table}\n</form>\n</div>\n'
            f'<div class="pages_btns s_clear">{pages}</div>\n</div></div></div>')
    return page(ctx, f"{board.name} - ", body, f"&raquo; {_esc(board.name)}", "forumdisplay",
                board.fid)


# ---- forms --------------------------------------------------------------------------------
def login_page(ctx: Ctx, captcha: bool) -> str:
    questions = "\n".join(f'<option value="{i}">{q}</option>' for i, q in enumerate(QUESTIONS))
    seccode = f'<div id="seccodelayer">{seccheck_html("logging") if captcha else ""}</div>'
    body = f"""<div id="wrap" class="wrap s_clear">
<div class="main"><div class="content nofloat">
<div class="fcontent" id="main_messaqge">
<div id="layer_login">
<h3 class="float_ctrl"><em id="returnmessage">用户登录</em></h3>
<div class="postbox">
<form method="post" name="login" id="loginform" class="s_clear" action="logging.php?action=login&amp;loginsubmit=yes">
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<input type="hidden" name="referer" value="" />
<div class="loginform nolabelform">
<select name="loginfield" id="loginfield"><option value="username">用户名</option><option value="uid">UID</option><option value="email">Email</option></select>
<input type="text" name="username" autocomplete="off" size="36" class="txt" value="" />
<p class="selectinput loginpsw"><label for="password3">密　码　：</label>
<input type="password" id="password3" name="password" size="36" class="txt" /></p>
{seccode}
<select id="questionid" name="questionid">
{questions}
</select>
<p><input type="text" name="answer" id="answer" style="display:none" autocomplete="off" size="36" class="txt" /></p>
</div>
<p class="fsubmit s_clear">
<button class="submit" type="submit" name="loginsubmit" value="true">登录</button>
<input type="checkbox" class="checkbox" name="cookietime" id="cookietime" value="2592000" /> <label for="cookietime">记住我的登录状态</label>
</p>
</form>
</div>
</div>
</div>
<div id="layer_message" class="fcontent alert_win" style="display: none;">
<div class="postbox"><div class="alert_right"><div id="messageleft"></div><p class="alert_btnleft" id="messageright"></p></div></div>
</div>
</div></div>
</div>"""
    return page(ctx, "", body, "", "logging")


def post_form(ctx: Ctx, board: Board, thread: Thread, *, action: str, message: str = "",
              hidden: dict[str, str] | None = None, captcha: bool = False, page_no: int = 1,
              pid: int | None = None,
              limits: tuple[int, int] | None = None) -> str:
    """post.htm (``form#postform``) for ``action=reply`` (with the quote already in the
    textarea when ``repquote``) or ``action=edit``."""
    fields = {"formhash": ctx.formhash, "posttime": str(int(ctx.now.timestamp())),
              "wysiwyg": "0"}
    if action == "reply":
        url = (f"post.php?action=reply&amp;fid={board.fid}&amp;tid={thread.tid}&amp;extra=&amp;"
               "replysubmit=yes")
        submit = ("replysubmit", "参与/回复主题")
        fields.update({"noticeauthor": "", "noticetrimstr": "", "noticeauthormsg": ""})
    else:
        url = "post.php?action=edit&amp;extra=&amp;editsubmit=yes&amp;mod="
        submit = ("editsubmit", "编辑帖子")
        fields.update({"fid": str(board.fid), "tid": str(thread.tid), "pid": str(pid),
                       "page": str(page_no)})
    fields.update(hidden or {})
    inputs = "\n".join(f'<input type="hidden" name="{k}" value="{raw(bb_escape(v))}" />'
                       for k, v in fields.items())
    seccheck = (f'<div class="seccheck">{seccheck_html("post")}</div>\n'
                if captcha and action != "edit" else "")
    # post_editor.htm / post.htm: the editor's length check, as the captures show it
    # (postminchars = the forum's minpostsize, in bytes).
    script = ("<script type=\"text/javascript\">\nvar postminchars = parseInt('%d');\n"
              "var postmaxchars = parseInt('%d');\nvar disablepostctrl = parseInt('0');\n</script>\n"
              % limits) if limits else ""
    body = f"""<div id="wrap" class="wrap s_clear"><div class="main"><div class="content editorcontent">
{script}<form method="post" id="postform" action="{url}">
{inputs}
<div class="s_clear" id="editorbox">
<h3 class="float_ctrl"><em id="returnmessage">{submit[1]}</em></h3>
<div class="postbox" id="postbox">
<span id="subjectbox"><input name="subject" id="subject" class="txt" value="" /></span>
<input type="checkbox" name="checkbox" value="0" checked="checked" />源码
<textarea class="autosave" name="message" id="e_textarea" class="txt" style="height:300px">{raw(bb_escape(message))}</textarea>
{seccheck}<div class="btnbar">
<button type="submit" id="postsubmit" value="true" name="{submit[0]}">{submit[1]}</button>
</div>
</div>
</div>
</form>
</div></div></div>"""
    nav = (f'&raquo; <a href="forumdisplay.php?fid={board.fid}">{_esc(board.name)}</a> &raquo; '
           f'<a href="viewthread.php?tid={thread.tid}">{_esc(thread.subject)}</a> &raquo; {submit[1]}')
    return page(ctx, f"{thread.subject} - {board.name} - ", body, nav, "post", board.fid,
                thread.tid)


def newthread_form(ctx: Ctx, board: Board, *, captcha: bool = False,
                   limits: tuple[int, int] | None = None) -> str:
    """post.htm for ``action=newthread``: ``form#postform`` with the subject, posted to
    ``post.php?action=newthread&fid=F&extra=&topicsubmit=yes``."""
    fields = {"formhash": ctx.formhash, "posttime": str(int(ctx.now.timestamp())),
              "wysiwyg": "0", "iconid": "", "special": ""}
    inputs = "\n".join(f'<input type="hidden" name="{k}" value="{raw(bb_escape(v))}" />'
                       for k, v in fields.items())
    seccheck = f'<div class="seccheck">{seccheck_html("post")}</div>\n' if captcha else ""
    script = ("<script type=\"text/javascript\">\nvar postminchars = parseInt('%d');\n"
              "var postmaxchars = parseInt('%d');\nvar disablepostctrl = parseInt('0');\n</script>\n"
              % limits) if limits else ""
    body = f"""<div id="wrap" class="wrap s_clear"><div class="main"><div class="content editorcontent">
{script}<form method="post" id="postform" action="post.php?action=newthread&amp;fid={board.fid}&amp;extra=&amp;topicsubmit=yes">
{inputs}
<div class="s_clear" id="editorbox">
<h3 class="float_ctrl"><em id="returnmessage">发新话题</em></h3>
<div class="postbox" id="postbox">
<span id="subjectbox"><input name="subject" id="subject" class="txt" value="" tabindex="1" /></span>
<input type="checkbox" name="checkbox" value="0" checked="checked" />源码
<textarea class="autosave" name="message" id="e_textarea" class="txt" style="height:300px"></textarea>
{seccheck}<div class="btnbar">
<button type="submit" id="postsubmit" value="true" name="topicsubmit">发新话题</button>
</div>
</div>
</div>
</form>
</div></div></div>"""
    nav = f'&raquo; <a href="forumdisplay.php?fid={board.fid}">{_esc(board.name)}</a> &raquo; 发新话题'
    return page(ctx, f"{board.name} - ", body, nav, "post", board.fid)


def moderate_form(ctx: Ctx, board: Board, thread: Thread, operation: str) -> str:
    """topicadmin.htm for ``optgroup=4`` (not in a float: the full page): the
    打开主题/关闭主题 radios ``operations[]``, the thread's state checked."""
    opened, closed = ("", ' checked="checked"') if thread.closed else (' checked="checked"', "")
    body = f"""<div id="wrap" class="wrap s_clear"><div class="main"><div class="content">
<form id="moderateform" method="post" action="topicadmin.php?action=moderate&amp;optgroup=4&amp;modsubmit=yes&amp;infloat=yes">
<input type="hidden" name="frommodcp" value="" />
<input type="hidden" name="formhash" value="{ctx.formhash}" />
<input type="hidden" name="fid" value="{board.fid}" />
<input type="hidden" name="listextra" value="" />
<input type="hidden" name="moderate[]" value="{thread.tid}" />
<ul class="inlinelist">
<li><label for="expirationclose">有效期:</label>
<input type="text" autocomplete="off" id="expirationclose" name="expirationclose" class="txt" value="" tabindex="1" /></li>
<li class="wide"><label><input class="radio" type="radio" name="operations[]" value="open"{opened} />打开主题</label></li>
<li class="wide"><label><input class="radio" type="radio" name="operations[]" value="close"{closed} />关闭主题</label></li>
</ul>
<p>操作原因:</p><textarea id="reason" name="reason" class="txtarea"></textarea>
<p class="btns"><input name="modsubmit" type="submit" value="确定" /></p>
</form>
</div></div></div>"""
    nav = (f'&raquo; <a href="forumdisplay.php?fid={board.fid}">{_esc(board.name)}</a> &raquo; '
           f'<a href="viewthread.php?tid={thread.tid}">{_esc(thread.subject)}</a>')
    return page(ctx, f"{thread.subject} - {board.name} - ", body, nav, "topicadmin", board.fid,
                thread.tid)
