"""Discuz! 7.2's ``showmessage`` keys and texts (``templates/default/messages.lang.php``).

Texts keep the language file's spacing (``login_invalid`` ends in two spaces: the empty
``$seccodescript`` between them) and its HTML.
"""

from __future__ import annotations

from forumbot.simulator.messages import Messages

_FORUM_LIST = '<br /><a href="forumdisplay.php?fid={fid}">[ 需要转入主题列表请点击这里 ]</a>'

TEXTS: dict[str, str] = {
    "undefined_action": "未定义操作，请返回。",
    "group_nopermission": "您所在的用户组({grouptitle})无法进行此操作。",
    "replyperm_login_nopermission": "对不起，您还未登录，无权在该版块回帖。",
    "replyperm_none_nopermission": (
        '对不起，您无权在该版块回帖，详细请见<a href="faq.php?action=credits&fid={fid}" '
        'target="_blank">点击这里查看</a></p></div><div><p><b>有权回帖的用户组为:</b><br />'
        "&nbsp;&nbsp;&nbsp;{permgroups}"),
    "submit_seccode_invalid": "您输入的验证码不正确，无法提交，请返回修改。",
    "submit_invalid": "您的请求来路不正确，无法提交。",
    "login_invalid": "登录失败，您还可以尝试 {loginperm} 次  ",
    "login_question_empty": "请填写安全提问以及正确的答案",
    "login_question_invalid": "安全提问选择错误，请重新填写",
    "login_strike": "密码错误次数过多，请 15 分钟后重新登录",
    "login_succeed": "欢迎您回来，{username}。现在将转入登录前页面。  ",
    "login_succeed_inactive_member": "欢迎您回来，{username}。您的帐号处于非激活状态，现在将转入控制面板。  ",
    "logout_succeed": ('您已退出论坛，现在将以游客身份转入退出前页面。 <br /><a href="member.php?'
                       'action=clearcookies&formhash={formhash}">[ 清除痕迹 ]</a>  '),
    "board_closed": '对不起，本论坛暂时关闭，详情请<a href="mailto:{adminemail}">联系管理员</a>。',
    "forum_nonexistence": "指定的版块不存在，请返回。",
    "viewperm_login_nopermission": "对不起，您还未登录，无权访问该版块。",
    "thread_nonexistence": "指定的主题不存在或已被删除或正在被审核，请返回。",
    "post_check": ('指定的帖子不存在或已被删除或正在被审核。<br /><a href="viewthread.php?tid={ptid}">'
                   "[ 尝试转入主题请点击这里 ]</a>"),
    "post_newbie_span": "对不起，您只在注册时间起 {newbiespan} 小时后才有发帖权限，请返回。",
    "post_thread_closed": "对不起，本主题已关闭，不再接受新回复，请返回。",
    "post_message_tooshort": "对不起，您的帖子小于 {minpostsize} 个字符的限制，请返回修改。",
    "post_message_toolong": "对不起，您的帖子超过 {maxpostsize} 个字符的限制，请返回修改。",
    "post_sm_isnull": "您没有输入标题或内容，请返回填写。",
    "post_flood_ctrl": "对不起，您两次发表间隔少于 {floodctrl} 秒，请不要灌水！",
    "post_edit_nopermission": "对不起，您无权编辑他人发表的帖子，请返回。",
    "post_edit_succeed": "您的帖子编辑成功，现在将转入主题页。" + _FORUM_LIST,
    "post_reply_succeed": "非常感谢，您的回复已经发布，现在将转入主题页。" + _FORUM_LIST,
    "edit_reply_mod_succeed": ("非常感谢，管理员设置了需要对编辑后的回复进行审核，您的帖子通过审核后将被显示出来，"
                               "现在将转入主题列表。"),
    "post_reply_mod_succeed": ("非常感谢，管理员设置了需要对新回复进行审核，您的帖子通过审核后将被显示出来，"
                               "现在将转入主题列表。"),
    # New threads (include/newthread.inc.php).
    "postperm_login_nopermission": "对不起，您还未登录，无权在该版块发帖。",
    "post_subject_toolong": "对不起，您的标题超过 80 个字符，请返回修改标题长度。",
    "post_newthread_succeed": "非常感谢，您的主题已经发布，现在将转入主题页。" + _FORUM_LIST,
    "post_newthread_mod_succeed": "管理员设置了对新主题进行审核，您的帖子通过审核后才会显示。",
    # Thread moderation (topicadmin.php, include/moderation.inc.php).
    "admin_nopermission": "您没有权限使用管理功能。",
    "admin_moderate_invalid": "您没有选择主题。",
    "admin_nonexistence": "您没有选择操作项目。",
    "admin_succeed": "管理操作成功，现在将返回论坛。",
}

# Private messages (pm.php).
TEXTS.update({
    "not_loggedin": "对不起，您还未登录，无法进行此操作。",
    "pm_newbie_span": "对不起，您只在注册时间起 {newbiespan} 小时后才有发短消息权限，请返回。",
    "pm_send_nonexistence": "收件人不存在或存在重复，请返回修改。",
    "pm_send_self_ignore": "您不能给自己发消息，请返回修改。",
    "pm_send_invalid": "短消息发送失败，收件人拒收您发的消息，请返回。",
    "pm_send_limit1day_error": "对不起，超出了您24小时最大发送短消息数，请返回。",
    "pm_send_floodctrl_error": "对不起，您两次发送短消息间隔太短，请返回。",
    "pm_send_succeed": "短消息发送成功。",
    "pm_send_empty": "您没有填写短消息内容，请返回。",
})

D72_MESSAGES = Messages(TEXTS)
message = D72_MESSAGES.message
