"""Who is asking, by User-Agent: Discuz's robot and phone checks, per generation.

Both generations call these on every request, whatever the site settings say:

* **X3.5** ``checkrobot()`` (``source/function/function_core.php``): the agent is a robot as
  soon as it contains ``bot``, ``crawl``, ``spider``, ``slurp``, ``sohu-search``, ``lycos`` or
  ``robozilla`` (lower-cased substring), even when it also names a browser — so
  ``Mozilla/5.0 … forumbot/0.1`` is a robot.
* **7.2** ``getrobot()`` (``include/global.func.php``): an agent without ``http://`` that
  matches ``MSIE|Netscape|Opera|Konqueror|Mozilla`` is a browser first; otherwise it is a
  robot when it matches ``Bot|Crawl|Spider|slurp|sohu-search|lycos|robozilla``
  (case-insensitive). So ``Mozilla/5.0 … forumbot/0.1`` is *not* a robot on 7.2, while a
  bare ``forumbot/0.1`` is (captured: ``pm.php`` answers it 403 with an empty body).
* **X3.5** ``checkmobile()``: ``ipad`` is never mobile; then the touch list (``iphone``,
  ``android``, ``phone``, ``mobile``, ``wap``, …) gives the touch template (``2``), the
  WML list gives ``3``; an agent naming a browser is a desktop; anything else is a
  desktop unless ``mobile=`` asks for a template. 7.2 has no such check (its ``wap/``
  pages are only reached by their own URL).
"""

from __future__ import annotations

import re

SPIDER_WORDS = ("bot", "crawl", "spider", "slurp", "sohu-search", "lycos", "robozilla")
BROWSER_WORDS = ("msie", "netscape", "opera", "konqueror", "mozilla")

_D72_BROWSERS = re.compile(r"(MSIE|Netscape|Opera|Konqueror|Mozilla)", re.I)
_D72_SPIDERS = re.compile(r"(Bot|Crawl|Spider|slurp|sohu-search|lycos|robozilla)", re.I)

# checkmobile()'s lists, in the source's order (dstrpos returns the first hit).
TOUCH_WORDS = (
    "iphone", "android", "phone", "mobile", "wap", "netfront", "java", "opera mobi", "opera mini",
    "ucweb", "windows ce", "symbian", "series", "webos", "sony", "blackberry", "dopod", "nokia",
    "samsung", "palmsource", "xda", "pieplus", "meizu", "midp", "cldc", "motorola", "foma",
    "docomo", "up.browser", "up.link", "blazer", "helio", "hosin", "huawei", "novarra", "coolpad",
    "webos", "techfaith", "palmsource", "alcatel", "amoi", "ktouch", "nexian", "ericsson",
    "philips", "sagem", "wellcom", "bunjalloo", "maui", "smartphone", "iemobile", "spice", "bird",
    "zte-", "longcos", "pantech", "gionee", "portalmmm", "jig browser", "hiptop", "benq", "haier",
    "^lct", "320x320", "240x320", "176x220", "windows phone")
WML_WORDS = (
    "cect", "compal", "ctl", "lg", "nec", "tcl", "alcatel", "ericsson", "bird", "daxian", "dbtel",
    "eastcom", "pantech", "dopod", "philips", "haier", "konka", "kejian", "lenovo", "benq", "mot",
    "soutec", "nokia", "sagem", "sgh", "sed", "capitel", "panasonic", "sonyericsson", "sharp",
    "amoi", "panda", "zte")
PAD_WORDS = ("ipad",)
DESKTOP_WORDS = ("mozilla", "chrome", "safari", "opera", "m3gate", "winwap", "openwave")
MOBILE_TEMPLATES = ("1", "2", "3", "yes")  # $_G['mobiletpl'] keys an URL may ask for


def _first(text: str, words: tuple[str, ...]) -> str | None:
    return next((w for w in words if w in text), None)


def is_robot_x3(user_agent: str) -> bool:
    return _first(user_agent.lower(), SPIDER_WORDS) is not None


def is_robot_d72(user_agent: str) -> bool:
    if "http://" not in user_agent and _D72_BROWSERS.search(user_agent):
        return False
    return _D72_SPIDERS.search(user_agent) is not None


def checkmobile(user_agent: str, mobile_param: str = "") -> tuple[bool, str]:
    """X3.5 ``checkmobile()``: (is it a phone, ``$_G['mobile']``: the word that matched,
    ``"unknown"`` for an agent naming no browser, empty for a desktop browser)."""
    ua = user_agent.lower()
    if _first(ua, PAD_WORDS):
        return False, ""
    if word := _first(ua, TOUCH_WORDS):
        return True, word
    if word := _first(ua, WML_WORDS):
        return True, word
    if _first(ua, DESKTOP_WORDS):
        return False, ""
    return mobile_param in MOBILE_TEMPLATES, "unknown"


def touch_decision(user_agent: str, mobile_param: str, mobile_cookie: str,
                   allowmobile: bool, mobileforward: bool) -> str:
    """``discuz_application::_init_mobile``: ``"touch"``, ``"desktop"`` or ``"no-redirect"``
    (a desktop browser asking ``mobile=2`` is sent to the same URL with ``mobile=no``)."""
    nomobile = not allowmobile
    flag = mobile_param in MOBILE_TEMPLATES
    detected = ""
    if mobile_param == "no":
        nomobile = True
    elif mobile_cookie == "no" and flag:
        _, detected = checkmobile(user_agent, mobile_param)
    elif mobile_cookie == "no":
        nomobile = True
    else:
        is_mobile, detected = checkmobile(user_agent, mobile_param)
        if not is_mobile:
            nomobile = True
    if not detected and allowmobile and flag:
        return "no-redirect"
    if nomobile or (not mobileforward and not flag):
        return "desktop"
    return "touch"
