"""Discuz! X2.5–X3.5: everything routes through ``forum.php?mod=…`` / ``member.php?mod=…``.

* Login: the ajax form ``member.php?mod=logging&action=login&loginsubmit=yes&loginhash=…
  &inajax=1`` answers ``succeedhandle_login(…, {'uid': …})`` (DISCUZ.md §4).
* Reading: ``forum.php?mod=viewthread&tid=T&page=N``, or the mobile API
  ``api/mobile/index.php?version=4&module=viewthread`` when the plugin is on.
* Reply: the thread page's fast-reply form, posted as ajax
  (``…&handlekey=fastpost&inajax=1``); the formhash comes from the thread page, the quote
  block is built here (§1.3: author line first, then the excerpt).
* Edit: the edit form's fields, posted to ``…&action=edit&editsubmit=yes&inajax=1``.
* New thread (``source/include/post/post_newthread.php``): the form
  ``forum.php?mod=post&action=newthread&fid=F`` is read (formhash, posttime; a captcha or a
  refusal such as the newbie period shows there) and its ``form#postform`` posted as ajax
  (``…&topicsubmit=yes&handlekey=fastnewpost&inajax=1``, the board's fast new-thread form):
  the answer's values name ``tid`` and ``pid`` — a held thread's too
  (``post_newthread_mod_succeed``), which the non-ajax 301 to the thread would not.
* Thread moderation (``forum_topicadmin.php``, ``topicadmin_moderate.php``): always ajax
  (it sets ``inajax``); ``…&action=moderate&fid=F&moderate[]=T&optgroup=4`` serves
  ``form#moderateform`` with the 打开/关闭 radios ``operations[]`` = open/close, posted to
  ``…&action=moderate&optgroup=4&modsubmit=yes&infloat=yes`` → 管理操作成功. A member who
  does not moderate the board gets admin_nopermission before anything else.
"""

from __future__ import annotations

import re
from datetime import tzinfo

from forumbot.discuz.detect import Generation
from forumbot.discuz.dialect import Context, Credentials, Dialect, Submit
from forumbot.discuz.forms import FormPage
from forumbot.discuz.pm_x3 import X3Pm
from forumbot.discuz.errors import CaptchaRequired, UnexpectedPage
from parsers.models import Post

__all__ = ["X3Dialect", "build_quote"]

_CAPTCHA = re.compile(r"updateseccode\(|updatesecqaa\(")
_LOGINHASH = re.compile(r"loginhash=(\w+)")
_FORMHASH = re.compile(r"name=\"formhash\"[^>]*value=\"([0-9a-f]{8})\"|formhash=([0-9a-f]{8})")
# The edit form's fields the submit needs (post_editpost.php reads these).
_EDIT_FIELDS = ("formhash", "posttime", "delattachop", "fid", "tid", "pid", "page", "subject",
                "usesig", "delete", "save", "wysiwyg")


class X3Dialect(Dialect):
    generation = Generation.X3
    has_mobile_api = True
    after_login_path = "forum.php"
    pm = X3Pm

    def login_form_path(self) -> str:
        return "member.php?mod=logging&action=login"

    def has_captcha(self, text: str) -> bool:
        return _CAPTCHA.search(text) is not None

    def login_submit(self, form: FormPage, who: Credentials) -> Submit:
        loginhash = form.first_text(_LOGINHASH) or "L" + "0" * 4
        m = _FORMHASH.search(form.text)
        questionid, answer = who.question or (0, "")
        return Submit(
            f"member.php?mod=logging&action=login&loginsubmit=yes&loginhash={loginhash}&inajax=1",
            {
                "formhash": (m.group(1) or m.group(2)) if m else "",
                "referer": form.url.split("member.php", 1)[0] + "forum.php",
                "loginfield": "username",
                "username": who.username,
                "password": who.password,
                "questionid": str(questionid),
                "answer": answer,
                "cookietime": "2592000",
                "loginsubmit": "true",
            },
            referer=form.url,
        )

    def thread_path(self, tid: int, page: int, *, api: bool = False) -> str:
        if api:
            return f"api/mobile/index.php?version=4&module=viewthread&tid={tid}&page={page}"
        return f"forum.php?mod=viewthread&tid={tid}&extra=&page={page}"

    def findpost_path(self, tid: int, pid: int) -> str:
        return f"forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}"

    def board_path(self, fid: int, page: int, *, api: bool = False) -> str:
        # orderby=lastpost: a board's own default order may be by post time
        # (defaultorderfield); the listing is read for what moved, so last post first.
        if api:
            return (f"api/mobile/index.php?version=4&module=forumdisplay&fid={fid}"
                    f"&orderby=lastpost&page={page}")
        return f"forum.php?mod=forumdisplay&fid={fid}&orderby=lastpost&page={page}"

    def reply_form_path(self, tid: int, fid: int | None) -> str:
        fid_part = f"&fid={fid}" if fid else ""
        return f"forum.php?mod=post&action=reply{fid_part}&tid={tid}"

    def prepare_reply(
        self, ctx: Context, tid: int, fid: int | None, message: str, quote_pid: int | None
    ) -> Submit:
        if quote_pid is not None:
            message = self.quote_for(ctx, tid, quote_pid) + "\n\n" + message
        formhash = ctx.formhash_for(tid)  # reads the thread page if needed: its fid too
        fid = fid or ctx.fid_for(tid)
        fid_part = f"&fid={fid}" if fid else ""
        return Submit(
            f"forum.php?mod=post&action=reply{fid_part}&tid={tid}&extra=&replysubmit=yes"
            "&infloat=yes&handlekey=fastpost&inajax=1",
            {"formhash": formhash, "message": message, "usesig": "1", "subject": "  "},
            referer=ctx.base_url + f"forum.php?mod=viewthread&tid={tid}",
        )

    def prepare_edit(self, ctx: Context, tid: int, pid: int, fid: int | None, message: str) -> Submit:
        fid = fid or ctx.fid_for(tid)
        fid_part = f"&fid={fid}" if fid else ""
        form = ctx.form(f"forum.php?mod=post&action=edit{fid_part}&tid={tid}&pid={pid}&page=1")
        fields = {k: v for k, v in _edit_form_fields(form).items()}
        if "formhash" not in fields:
            raise UnexpectedPage(f"pid {pid} 的编辑表单里没有 formhash")
        fields.update({"message": message, "wysiwyg": "0", "tid": str(tid), "pid": str(pid),
                       "editsubmit": "true"})
        return Submit("forum.php?mod=post&action=edit&extra=&editsubmit=yes&inajax=1", fields,
                      referer=form.url)

    def prepare_new_thread(self, ctx: Context, fid: int, subject: str, message: str) -> Submit:
        form = ctx.form(f"forum.php?mod=post&action=newthread&fid={fid}")
        if self.has_captcha(form.text):
            raise CaptchaRequired(
                f"版块 {fid} 的发帖表单要求验证码；机器人不能填写验证码（论坛管理员可以让机器人所在的"
                "用户组免验证码）", key="captcha_required")
        fields = form.fields("postform")
        if "formhash" not in fields:
            raise UnexpectedPage(f"版块 {fid} 的发帖页面里没有带 formhash 的 form#postform")
        fields.update({"subject": subject, "message": message, "wysiwyg": "0", "usesig": "1",
                       "allownoticeauthor": "1"})
        return Submit(f"forum.php?mod=post&action=newthread&fid={fid}&extra=&topicsubmit=yes"
                      "&infloat=yes&handlekey=fastnewpost&inajax=1", fields, referer=form.url)

    def moderation_probe_path(self, fid: int) -> str:
        return (f"forum.php?mod=topicadmin&action=moderate&fid={fid}&optgroup=4&infloat=yes"
                "&handlekey=mods&inajax=1")

    def prepare_close(self, ctx: Context, fid: int, tid: int, close: bool) -> Submit:
        form = ctx.form(f"forum.php?mod=topicadmin&action=moderate&fid={fid}&moderate[]={tid}"
                        "&handlekey=mods&infloat=yes&nopost=yes&optgroup=4&inajax=1")
        fields = form.fields("moderateform")
        if "formhash" not in fields:
            raise UnexpectedPage(f"帖子 {tid} 的管理表单里没有带 formhash 的 form#moderateform")
        fields.update({"moderate[]": str(tid), "operations[]": "close" if close else "open",
                       "expirationclose": "", "reason": "", "handlekey": "mods"})
        action = form.action("moderateform") or (
            "forum.php?mod=topicadmin&action=moderate&optgroup=4&modsubmit=yes&infloat=yes")
        return Submit(action + "&inajax=1", fields, referer=ctx.base_url + f"forum.php?mod=viewthread&tid={tid}")

    def quote_for(self, ctx: Context, tid: int, quote_pid: int) -> str:
        return self.build_quote(ctx.find_post(tid, quote_pid), base_url=ctx.base_url, tz=ctx.tz)

    def build_quote(self, post: Post, *, base_url: str, tz: tzinfo) -> str:
        return build_quote(post, tz=tz)


def build_quote(post: Post, *, tz: tzinfo) -> str:
    """The BBCode the X3 reply form makes for quoting ``post`` (DISCUZ.md §1.3)."""
    lines = [line for line in post.text.splitlines() if line.strip()][:3]
    excerpt = "\n".join(lines)
    if len(excerpt) > 100:
        excerpt = excerpt[:100] + " ..."
    when = post.posted_at.astimezone(tz).strftime("%Y-%m-%d %H:%M")
    author = post.author or "匿名"
    return (
        f"[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid={post.pid}&ptid={post.tid}]"
        f"[color=#999999]{author} 发表于 {when}[/color][/url][/size]\n{excerpt}[/quote]"
    )


def _edit_form_fields(form: FormPage) -> dict[str, str]:
    scope = form.form("postform") or form.soup
    fields: dict[str, str] = {}
    for tag in scope.find_all("input"):
        name = tag.get("name")
        kind = (tag.get("type") or "text").lower()
        if not name or kind in ("file", "button", "submit", "image"):
            continue
        if kind == "checkbox" and not tag.has_attr("checked"):
            continue
        if name in _EDIT_FIELDS:
            fields[name] = tag.get("value", "")
    return fields
