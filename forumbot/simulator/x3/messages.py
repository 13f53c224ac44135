"""X3.5's ``showmessage`` keys and texts (``source/language/lang_message.php``)."""

from __future__ import annotations

from forumbot.simulator.messages import Messages

TEXTS: dict[str, str] = {
    "login_succeed": "欢迎您回来，{usergroup} {username}，现在将转入登录前页面",
    "login_succeed_inactive_member": "欢迎您回来，{usergroup} {username}。您的帐号处于非激活状态，现在将转入控制面板",
    "login_invalid": "登录失败，您还可以尝试 {loginperm} 次",
    "login_strike": "密码错误次数过多，请 15 分钟后重新登录",
    "login_question_empty": "请选择安全提问以及填写正确的答案",
    "login_question_invalid": "抱歉，安全提问答案填写错误",
    "login_seccheck2": "请输入验证码后继续登录",
    "submit_seccode_invalid": "抱歉，验证码填写错误",
    "logout_succeed": "您已退出站点，现在将以游客身份转入退出前页面，请稍候……",
    "post_reply_succeed": "非常感谢，回复发布成功，现在将转入主题页，请稍候……[ 点击这里转入主题列表 ]",
    "post_reply_mod_succeed": "回复需要审核，请等待通过",
    "edit_reply_mod_succeed": "编辑后的回复需要审核，请等待审核通过",
    "post_edit_succeed": "帖子编辑成功，现在将转入主题页，请稍候……[ 点击这里转入主题列表 ]",
    "post_flood_ctrl": "抱歉，您两次发表间隔少于 {floodctrl} 秒，请稍候再发表",
    "post_sm_isnull": "抱歉，您尚未输入标题或内容",
    "post_message_tooshort": "抱歉，您的帖子小于 {minpostsize} 个字符的限制",
    "post_message_toolong": "抱歉，您的帖子超过 {maxpostsize} 个字符的限制",
    "post_thread_closed": "抱歉，本主题已关闭，不再接受新内容",
    "replyperm_login_nopermission": "抱歉，您尚未登录，没有权限在该版块回帖",
    "group_nopermission": "抱歉，您所在的用户组({grouptitle})无法进行此操作",
    "post_edit_nopermission": "抱歉，您没有权限编辑此帖",
    "thread_nonexistence": "抱歉，指定的主题不存在或已被删除或正在被审核",
    "forum_nonexistence": "抱歉，指定的版块不存在",
    "viewperm_login_nopermission": "抱歉，您尚未登录，没有权限访问该版块",
    "post_nonexistence": "抱歉，指定的帖子不存在或已被删除或正在被审核",
    "submit_invalid": "抱歉，您的请求来路不正确或表单验证串不符，无法提交",
    "undefined_action": "未定义操作",
    # New threads (source/include/post/post_newthread.php, class/model/model_forum_thread.php).
    "post_newthread_succeed": "非常感谢，您的主题已发布，现在将转入主题页，请稍候……[ 点击这里转入主题列表 ]",
    "post_newthread_mod_succeed": "新主题需要审核，您的帖子通过审核后才能显示",
    "post_subject_toolong": "抱歉，您的标题超过最大字符限制，请缩短标题后再试",
    "postperm_login_nopermission": "抱歉，您尚未登录，没有权限在该版块发帖",
    # Thread moderation (forum_topicadmin.php, topicadmin_moderate.php).
    "admin_nopermission": "抱歉，您没有权限使用管理功能",
    "admin_moderate_invalid": "抱歉，您尚未选择主题或主题不可执行此类管理",
    "admin_nonexistence": "抱歉，您尚未选择操作项目",
    "admin_succeed": "管理操作成功 ",
    # cknewuser() (function_core.php) runs first in forum_post.php and answers this one;
    # post_newbie_span is only reached by groups cknewuser() lets through.
    "no_privilege_newbiespan": "抱歉，您目前处于见习期间，需要等待 {newbiespan} 分钟后才能进行本操作",
    "post_newbie_span": "抱歉，您在注册时间起 {newbiespan} 分钟后才能拥有发帖权限",
    # Private messages (source/include/spacecp/spacecp_pm.php, space_pm.php).
    "do_success": "操作成功 ",
    "to_login": "您需要先登录才能继续本操作",
    "message_can_not_send_2": "两次发送短消息太快，请稍候再发送",
    "message_bad_touser": "抱歉，用户不存在或被冻结，请检查用户名是否正确",
    "message_bad_touid": "抱歉，用户不存在或被冻结，请检查用户uid是否正确",
    "message_can_not_send_to_self": "不能给自己发送短消息",
    "message_can_not_send_8": "抱歉，您不能给自己发短消息",
    "message_can_not_send_9": "收件人为空或对方屏蔽了您的短消息",
    "message_can_not_send_11": "该会话不存在",
    "message_can_not_send_12": "抱歉，您没有权限操作",
    "message_can_not_send": "抱歉，发送短消息失败",
    "unable_to_send_air_news": "抱歉，不能发送空消息",
    "parameters_error": "参数错误",
}

X3_MESSAGES = Messages(TEXTS)
message = X3_MESSAGES.message
