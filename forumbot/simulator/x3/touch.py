"""X3.5's touch template (``template/default/touch/forum/viewthread.htm``), for phones.

What a phone's User-Agent (or ``mobile=2``) gets from ``forum.php?mod=viewthread`` when
the site's mobile setting is on (X3.5's installer: ``allowmobile`` and ``mobileforward``
both 1). Shaped like the captured ``viewthread-tid2-page*-touch-mobile2.html``: posts are
``div.plc#pidPID`` with ``ul.authi`` (floor label, author link) and ``div.message``; the
time is relative text only (``IN_MOBILE`` drops the ``span@title``), there is no
``post_PID``, ``postnumPID`` or ``authorpostonPID``. Links carry ``&mobile=2``.
"""

from __future__ import annotations

from html import escape as _esc

from forumbot.simulator.bbcode import render as render_bbcode
from forumbot.simulator.dates import absolute_seconds, relative_text
from forumbot.simulator.model import Board, Thread
from forumbot.simulator.x3.render import FLOOR_NAMES, Ctx, ShownPost, crlf


def _time(ctx: Ctx, shown: ShownPost) -> str:
    when = shown.post.dateline.astimezone(ctx.now.tzinfo)
    return relative_text(when, ctx.now) or absolute_seconds(when)


def _label(number: int) -> str:
    return FLOOR_NAMES.get(number, f"{number}<sup>#</sup>")


def _post(ctx: Ctx, shown: ShownPost, views: int, replies: int) -> str:
    p = shown.post
    if shown.author_banned:
        body = "提示: <em>作者被禁止或删除 内容自动屏蔽</em>"
    elif p.blocked:
        body = "提示: <em>该帖被管理员或版主屏蔽</em>"
    else:
        body = render_bbcode(p.message, ctx.site_url, "touch")
    counts = ""
    if p.first:
        counts = (f'<span class="y"><i class="dm-eye"></i><em>{views}</em>'
                  f'<i class="dm-chat-s"></i><em>{replies}</em></span>')
    return f"""<div class="plc cl" id="pid{p.pid}">
<div class="avatar"><img src="{ctx.site_url}uc_server/avatar.php?uid={p.authorid}&size=small" /></div>
<div class="display pi{' pione' if p.first else ''}">
<ul class="authi">
<li class="mtit">
<span class="y">
{_label(shown.number)}</span>
<span class="z">
<a href="home.php?mod=space&amp;uid={p.authorid}&amp;mobile=2">{_esc(p.author)}</a>
</span>
</li>
<li class="mtime">
{counts}{_time(ctx, shown)}</li>
</ul>
<div class="message">
{body}</div>
<div id="comment_{p.pid}">
</div>
</div>
</div>
"""


def _pager(thread: Thread, page_no: int, total: int) -> str:
    if total <= 1:
        return ""
    base = f"forum.php?mod=viewthread&tid={thread.tid}&amp;extra=&amp;page="
    parts = []
    if page_no > 1:
        parts.append(f'<a href="{base}{page_no - 1}&amp;mobile=2" class="prev">上一页</a>')
    for n in range(1, total + 1):
        parts.append(f"<strong>{n}</strong>" if n == page_no
                     else f'<a href="{base}{n}&amp;mobile=2">{n}</a>')
    parts.append(f'<label><span title="共 {total} 页"> / {total} 页</span></label>')
    if page_no < total:
        parts.append(f'<a href="{base}{page_no + 1}&amp;mobile=2" class="nxt">下一页</a>')
    return '<div class="pg">' + "".join(parts) + "</div>"


def viewthread_page(ctx: Ctx, board: Board, thread: Thread, shown: list[ShownPost],
                    page_no: int, total: int, ordertype: int, replies: int) -> str:
    order = ("forum.php?mod=viewthread&amp;tid={tid}&amp;extra=&amp;ordertype={o}&amp;mobile=2"
             .format(tid=thread.tid, o=2 if ordertype == 1 else 1))
    posts = "".join(_post(ctx, s, thread.views, replies) for s in shown)
    js = (f"var STYLEID = '1', STATICURL = 'static/', IMGDIR = 'static/image/common', "
          f"charset = '{ctx.charset}', discuz_uid = '{ctx.uid}', cookiepre = '{ctx.cookiepre}', "
          f"cookiedomain = '', cookiepath = '/', SITEURL = '{ctx.site_url}';")
    return crlf(f"""<!DOCTYPE html>
<html>
<head>
<meta charset="{ctx.charset}">
<meta name="viewport" content="width=device-width, initial-scale=1.0, user-scalable=no, minimum-scale=1.0, maximum-scale=1.0">
<title>{_esc(thread.subject)} - {_esc(board.name)} -  {_esc(ctx.bbname)} -  手机版 - Powered by Discuz!</title>
<base href="{ctx.site_url}" />
<script type="text/javascript">{js}</script>
</head>
<body id="forum" class="pg_viewthread">
<div class="header cl">
<h2><a href="forum.php?mod=forumdisplay&fid={board.fid}&amp;mobile=2">{_esc(board.name)}</a></h2>
</div>
<div class="viewthread">
<div class="view_tit">
{_esc(thread.subject)}</div>{posts}<div class="txtlist cl">
<div class="mtit cl">
<a href="{order}" class="ytxt">{'正序浏览' if ordertype == 1 else '倒序浏览'}</a>
全部回复<em>{replies}</em></div>
</div>
</div>
{_pager(thread, page_no, total)}
<input type="hidden" name="formhash" value="{ctx.formhash}" />
</body>
</html>
""")
