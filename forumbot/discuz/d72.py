"""Discuz! 7.2: one script per page (``viewthread.php``, ``post.php``, ``logging.php``…).

Everything here is as the real captures show it (../shared/fixtures/discuz-7.2 and
discuz-7.2-gbk, ``exchanges.json``):

* Login: ``logging.php?action=login`` serves ``form#loginform`` (formhash, referer,
  loginfield, username, password, questionid, answer, cookietime), posted to
  ``logging.php?action=login&loginsubmit=yes``. Success is a **200** page saying
  欢迎您回来 plus the ``<prefix>auth`` cookie (no redirect); a wrong password says
  登录失败，您还可以尝试 N 次. The plain (non-ajax) post is used: its answer is the
  showmessage page every other 7.2 refusal uses too.
* Reading: ``viewthread.php?tid=T&page=N``. No mobile API.
* Reply: the reply form ``post.php?action=reply&fid=F&tid=T`` (``&repquote=P`` to quote)
  is read first, as a browser does, and its ``form#postform`` posted back with the
  message appended to the editor's text: the form carries ``formhash`` and ``posttime``,
  and for a quote the quote block and the notice fields that tell the quoted player.
  Success is a **302** to ``viewthread.php?tid=T&pid=PID&page=N&extra=#pidPID``; flood
  control says 对不起，您两次发表间隔少于 15 秒，请不要灌水！.
* Quote (``include/newreply.inc.php``): the author line comes **after** the excerpt:
  ``[quote]excerpt\\n[size=2][color=#999999]AUTHOR 发表于 TIME[/color] [url=BOARD/redirect.php?
  goto=findpost&pid=P&ptid=T][img]BOARD/images/common/back.gif[/img][/url][/size][/quote]``.
* Edit: ``post.php?action=edit&fid=F&tid=T&pid=P&page=1``'s ``form#postform`` posted to
  ``post.php?action=edit&extra=&editsubmit=yes&mod=`` → 302 to the thread.
* Findpost: ``redirect.php?goto=findpost&pid=P&ptid=T`` → 302 to the page.
* New thread (``include/newthread.inc.php``): ``post.php?action=newthread&fid=F``'s
  ``form#postform`` posted to its action (``…&extra=&topicsubmit=yes``) → 302 to
  ``viewthread.php?tid=T&extra=…`` (post_newthread_succeed is a quick forward); a board
  that moderates new threads answers 管理员设置了对新主题进行审核 and names no tid.
* Thread moderation (``topicadmin.php``, ``include/moderation.inc.php``):
  ``topicadmin.php?action=moderate&fid=F&moderate[]=T&operation=close&optgroup=4`` serves
  ``form#moderateform`` (the 打开主题/关闭主题 radios ``operations[]``), posted to
  ``topicadmin.php?action=moderate&optgroup=4&modsubmit=yes…`` → 302 (admin_succeed is a
  quick forward). A non-moderator gets 您没有权限使用管理功能 first.
* Forms are posted in the page's charset (GBK bytes on a GBK forum), by the transport.
"""

from __future__ import annotations

import re
from datetime import tzinfo

from forumbot.discuz.detect import Generation
from forumbot.discuz.dialect import Context, Credentials, Dialect, Submit
from forumbot.discuz.forms import FormPage
from forumbot.discuz.pm_d72 import D72Pm
from forumbot.discuz.errors import CaptchaRequired, UnexpectedPage
from parsers.models import Post
from parsers.text import strip_bbcode

__all__ = ["D72Dialect", "build_quote"]

# seccheck.htm: the captcha and Q&A inputs, and the script that refreshes the image.
_CAPTCHA = re.compile(r"name=\"seccodeverify\"|name=\"secanswer\"|updateseccode\(|updatesecqaa\(")
_QUOTE_BLOCK = re.compile(r"\[quote\].*\[/quote\]", re.S)
_EXCERPT_CHARS = 100  # messagecutstr($message, 100)


class D72Dialect(Dialect):
    generation = Generation.D72
    has_mobile_api = False
    after_login_path = None  # 欢迎您回来 page: discuz_uid = N
    pm = D72Pm

    def login_form_path(self) -> str:
        return "logging.php?action=login"

    def has_captcha(self, text: str) -> bool:
        return _CAPTCHA.search(text) is not None

    def login_submit(self, form: FormPage, who: Credentials) -> Submit:
        fields = form.fields("loginform")
        if "formhash" not in fields:
            raise UnexpectedPage("7.2 的登录页面里没有带 formhash 的 form#loginform")
        questionid, answer = who.question or (0, "")
        fields.update({
            "referer": "index.php",
            "loginfield": "username",
            "username": who.username,
            "password": who.password,
            "questionid": str(questionid),
            "answer": answer,
            "cookietime": "2592000",  # "remember me": without it the auth cookie dies with the session
        })
        return Submit(form.action("loginform") or "logging.php?action=login&loginsubmit=yes", fields,
                      referer=form.url)

    def thread_path(self, tid: int, page: int, *, api: bool = False) -> str:
        return f"viewthread.php?tid={tid}&page={page}"

    def findpost_path(self, tid: int, pid: int) -> str:
        return f"redirect.php?goto=findpost&pid={pid}&ptid={tid}"

    def board_path(self, fid: int, page: int, *, api: bool = False) -> str:
        # The listing's own column link: forumdisplay.php?fid=F&filter=&orderby=lastpost.
        return f"forumdisplay.php?fid={fid}&orderby=lastpost&page={page}"

    def reply_form_path(self, tid: int, fid: int | None) -> str:
        return f"post.php?action=reply{_fid(fid)}&tid={tid}"

    def prepare_reply(
        self, ctx: Context, tid: int, fid: int | None, message: str, quote_pid: int | None
    ) -> Submit:
        fid = fid or ctx.fid_for(tid)
        path = f"post.php?action=reply{_fid(fid)}&tid={tid}"
        if quote_pid is not None:
            path += f"&repquote={quote_pid}"
        form = self._post_form(ctx, path, f"帖子 {tid} 的回复表单")
        fields = form.fields("postform")
        prefill = fields.get("message", "")
        if quote_pid is not None and "[quote]" not in prefill:
            # The form quoted nothing (a theme, a hidden post): quote as 7.2 would.
            prefill = self.quote_for_post(ctx, tid, quote_pid) + "\n\n\n    "
        fields["message"] = prefill + message
        return Submit(form.action("postform") or f"post.php?action=reply{_fid(fid)}&tid={tid}"
                      "&extra=&replysubmit=yes", fields, referer=form.url)

    def prepare_edit(self, ctx: Context, tid: int, pid: int, fid: int | None, message: str) -> Submit:
        fid = fid or ctx.fid_for(tid)
        form = self._post_form(ctx, f"post.php?action=edit{_fid(fid)}&tid={tid}&pid={pid}&page=1",
                               f"pid {pid} 的编辑表单")
        fields = form.fields("postform")
        fields["message"] = message
        return Submit(form.action("postform") or "post.php?action=edit&extra=&editsubmit=yes&mod=",
                      fields, referer=form.url)

    def prepare_new_thread(self, ctx: Context, fid: int, subject: str, message: str) -> Submit:
        form = self._post_form(ctx, f"post.php?action=newthread&fid={fid}", f"版块 {fid} 的发帖表单")
        fields = form.fields("postform")
        fields.update({"subject": subject, "message": message})
        return Submit(form.action("postform") or f"post.php?action=newthread&fid={fid}&extra=&topicsubmit=yes",
                      fields, referer=form.url)

    def moderation_probe_path(self, fid: int) -> str:
        return f"topicadmin.php?action=moderate&fid={fid}&optgroup=4"

    def prepare_close(self, ctx: Context, fid: int, tid: int, close: bool) -> Submit:
        operation = "close" if close else "open"
        form = ctx.form(f"topicadmin.php?action=moderate&fid={fid}&moderate[]={tid}"
                        f"&operation={operation}&optgroup=4")
        fields = form.fields("moderateform")
        if "formhash" not in fields:
            raise UnexpectedPage(f"帖子 {tid} 的管理表单里没有带 formhash 的 form#moderateform")
        fields.update({"moderate[]": str(tid), "operations[]": operation, "expirationclose": "",
                       "reason": ""})
        return Submit(form.action("moderateform") or "topicadmin.php?action=moderate&optgroup=4&modsubmit=yes",
                      fields, referer=form.url)

    def quote_for(self, ctx: Context, tid: int, quote_pid: int) -> str:
        path = f"post.php?action=reply{_fid(ctx.fid_for(tid))}&tid={tid}&repquote={quote_pid}"
        form = self._post_form(ctx, path,
                               f"引用 pid {quote_pid} 的表单")
        if (m := _QUOTE_BLOCK.search(form.fields("postform").get("message", ""))) is not None:
            return m.group(0)
        return self.quote_for_post(ctx, tid, quote_pid)

    def quote_for_post(self, ctx: Context, tid: int, quote_pid: int) -> str:
        return self.build_quote(ctx.find_post(tid, quote_pid), base_url=ctx.base_url, tz=ctx.tz)

    def build_quote(self, post: Post, *, base_url: str, tz: tzinfo) -> str:
        return build_quote(post, base_url=base_url, tz=tz)

    def _post_form(self, ctx: Context, path: str, what: str) -> FormPage:
        form = ctx.form(path)
        if self.has_captcha(form.text):
            raise CaptchaRequired(
                f"{what}要求验证码；机器人不能填写验证码（论坛管理员可以让机器人所在的用户组"
                "免验证码）", key="captcha_required")
        if form.form("postform") is None:
            raise UnexpectedPage(f"{what}里没有 form#postform")
        return form


def build_quote(post: Post, *, base_url: str, tz: tzinfo) -> str:
    """The quote block 7.2's reply form makes for ``post`` (newreply.inc.php), as it
    appears in the editor: excerpt first (BBCode stripped, cut to 100 characters), then
    the grey author line with a findpost link and the back.gif arrow."""
    board = base_url.rstrip("/") + "/"
    excerpt = strip_bbcode(post.text).strip()
    if len(excerpt) > _EXCERPT_CHARS:
        excerpt = excerpt[:_EXCERPT_CHARS] + " ..."
    at = post.posted_at.astimezone(tz)
    when = f"{at.year}-{at.month}-{at.day} {at:%H:%M}"  # dateformat Y-n-j, timeformat H:i
    author = post.author or "匿名"
    return (
        f"[quote]{excerpt}\n[size=2][color=#999999]{author} 发表于 {when}[/color] "
        f"[url={board}redirect.php?goto=findpost&pid={post.pid}&ptid={post.tid}]"
        f"[img]{board}images/common/back.gif[/img][/url][/size][/quote]"
    )


def _fid(fid: int | None) -> str:
    return f"&fid={fid}" if fid else ""
