"""The User-Agent the client sends, and the words Discuz reacts to in it.

Discuz decides per request, from the User-Agent alone, whether a search robot or a phone
is asking (``source/function/function_core.php``; 7.2: ``include/global.func.php``):

* ``checkrobot()``: an agent containing ``bot``, ``crawl``, ``spider``, ``slurp``,
  ``sohu-search``, ``lycos`` or ``robozilla`` (case-insensitive) is a robot. Robots get
  thread pages without the floor links ``a#postnumPID`` (``!IS_ROBOT`` in
  viewthread_node.htm), are refused the login script (``NOROBOT``), and have no session.
* ``checkmobile()``: an agent containing a word of its touch list (``iphone``,
  ``android``, ``phone``, ``mobile``, ``wap`` …) or of its WML list (``lg``, ``nokia`` …)
  is a phone and is sent to the touch pages, which have no pids and no absolute times.

So the default is an ordinary desktop browser's agent, and a configured one
(``[bot].user_agent``) containing any of those words is refused at load time.
"""

from __future__ import annotations

__all__ = ["DEFAULT_USER_AGENT", "MOBILE_WORDS", "ROBOT_WORDS", "user_agent_problem"]

# A desktop Chrome on Linux: none of the words below (checked by a test).
DEFAULT_USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Safari/537.36"
)

# checkrobot() $kw_spiders (X3.5; 7.2 has the same words).
ROBOT_WORDS: tuple[str, ...] = ("bot", "crawl", "spider", "slurp", "sohu-search", "lycos", "robozilla")

# checkmobile() $touchbrowser_list + $wmlbrowser_list (X3.5), matched as substrings of the
# lower-cased agent exactly as dstrpos() does ('^lct' is a literal there too).
MOBILE_WORDS: tuple[str, ...] = (
    # touch pages (mobile=2)
    "iphone", "android", "phone", "mobile", "wap", "netfront", "java", "opera mobi", "opera mini",
    "ucweb", "windows ce", "symbian", "series", "webos", "sony", "blackberry", "dopod", "nokia",
    "samsung", "palmsource", "xda", "pieplus", "meizu", "midp", "cldc", "motorola", "foma",
    "docomo", "up.browser", "up.link", "blazer", "helio", "hosin", "huawei", "novarra", "coolpad",
    "techfaith", "alcatel", "amoi", "ktouch", "nexian", "ericsson", "philips", "sagem", "wellcom",
    "bunjalloo", "maui", "smartphone", "iemobile", "spice", "bird", "zte-", "longcos", "pantech",
    "gionee", "portalmmm", "jig browser", "hiptop", "benq", "haier", "^lct", "320x320", "240x320",
    "176x220", "windows phone",
    # WML pages (mobile=3)
    "cect", "compal", "ctl", "lg", "nec", "tcl", "daxian", "dbtel", "eastcom", "konka", "kejian",
    "lenovo", "mot", "soutec", "sgh", "sed", "capitel", "panasonic", "sonyericsson", "sharp",
    "panda", "zte",
)


def user_agent_problem(agent: str) -> str | None:
    """Why Discuz would not treat ``agent`` as a desktop browser, or None if it would."""
    lowered = agent.lower()
    if not lowered.strip():
        return "它是空的"
    for word in ROBOT_WORDS:
        if word in lowered:
            return (f"它含有 {word!r}，Discuz 会把它当作搜索引擎"
                    "（给出没有楼层号的帖子页面，并拒绝登录）")
    for word in MOBILE_WORDS:
        if word in lowered:
            return (f"它含有 {word!r}，Discuz 会把它当作手机"
                    "（给出触屏版页面，没有帖子编号和准确时间）")
    return None
