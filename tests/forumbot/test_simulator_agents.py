"""What every Discuz does to robots and phones, in both of the simulator's generations.

X3.5 checkrobot(): any agent containing bot/crawl/spider/slurp/sohu-search/lycos/robozilla
gets pages without the floor link a#postnumPID (and 显示全部楼层 for 只看该作者). 7.2
getrobot(): an agent naming a browser is a browser; others with a spider word are robots,
and 7.2's NOROBOT scripts (logging.php, post.php, pm.php, …) answer them 403 with an empty
body. X3.5 checkmobile(): phones get the touch template (the site's mobile setting is on by
default); 7.2 has no such thing.
"""

from __future__ import annotations

import httpx
import pytest

from forumbot.simulator.agents import checkmobile, is_robot_d72, is_robot_x3, touch_decision
from parsers.errors import PageParseError, RobotPageError
from parsers.pages import read_page
from tests.forumbot.simulator_support import (  # noqa: F401 (fixtures)
    Forum,
    forum,
    forum72,
    login,
    make_forum,
    thread_url,
)

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
BROWSER_BOT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) forumbot/0.2"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
BARE_BOT = "forumbot/0.1"
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36"
IPAD = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"


@pytest.mark.parametrize(("agent", "x3", "d72"), [
    (BROWSER, False, False),
    (BROWSER_BOT, True, False),   # X3 checks spider words first; 7.2 browser words first
    (GOOGLEBOT, True, True),      # "http://" in it: 7.2 no longer trusts "Mozilla"
    (BARE_BOT, True, True),
    ("Baiduspider", True, True),
    ("Sogou web spider/4.0", True, True),
    ("Yahoo! Slurp", True, True),
    ("msnbot-CRAWLER", True, True),
    ("python-httpx/0.28", False, False),
])
def test_agents__robot_words(agent: str, x3: bool, d72: bool) -> None:
    assert (is_robot_x3(agent), is_robot_d72(agent)) == (x3, d72)


@pytest.mark.parametrize(("agent", "mobile"), [
    (IPHONE, True), (ANDROID, True), (IPAD, False), (BROWSER, False),
    ("Opera/9.80 (J2ME/MIDP; Opera Mini/9.80)", True), ("NokiaN95/1.0", True),
    ("python-httpx/0.28", False),
])
def test_agents__checkmobile(agent: str, mobile: bool) -> None:
    assert checkmobile(agent)[0] is mobile


def test_agents__touch_decision_follows_init_mobile() -> None:
    assert touch_decision(IPHONE, "", "", True, True) == "touch"
    assert touch_decision(IPHONE, "", "", False, False) == "desktop"  # mobile setting off
    assert touch_decision(IPHONE, "no", "", True, True) == "desktop"
    assert touch_decision(IPHONE, "", "no", True, True) == "desktop"  # cookie mobile=no
    assert touch_decision(BROWSER, "2", "", True, True) == "no-redirect"
    assert touch_decision("python-httpx/0.28", "2", "", True, True) == "touch"
    assert touch_decision(BROWSER, "", "", True, True) == "desktop"


def _page(forum: Forum, agent: str, url: str | None = None):
    with httpx.Client(base_url=forum.base, headers={"User-Agent": agent}) as client:
        r = client.get(url or thread_url(forum))
        return r, read_page(r.content, content_type=r.headers["content-type"], now=forum.clock.now())


# ---- X3 ------------------------------------------------------------------------------------
@pytest.mark.parametrize("agent", [BROWSER_BOT, GOOGLEBOT, BARE_BOT])
def test_x3_robot__pages_have_no_floor_links(forum: Forum, agent: str) -> None:
    with httpx.Client(base_url=forum.base, headers={"User-Agent": agent}) as client:
        r = client.get(thread_url(forum))
    assert "postnum" not in r.text and "显示全部楼层" in r.text and "倒序浏览" not in r.text
    assert r.text.count('id="authorposton') == 5  # the posts are there, without floors
    with pytest.raises(RobotPageError):  # and the parser refuses to count from them
        read_page(r.content, content_type=r.headers["content-type"], now=forum.clock.now())
    _, browser = _page(forum, BROWSER)
    assert [p.floor for p in browser.posts] == [1, 2, 3, 4, 5]


def test_x3_robot__may_still_log_in_and_post(forum: Forum) -> None:
    # X3.5 defines NOROBOT in forum_post.php and member_logging.php but never calls
    # reject_robot(): a robot logs in and posts like anyone.
    with httpx.Client(base_url=forum.base, headers={"User-Agent": BARE_BOT}) as client:
        assert "succeedhandle_" in login(client, "饺子").text


@pytest.mark.parametrize("agent", [IPHONE, ANDROID])
def test_x3_phone__gets_the_touch_page(forum: Forum, agent: str) -> None:
    with httpx.Client(base_url=forum.base, headers={"User-Agent": agent}) as client:
        r = client.get(thread_url(forum))
    assert 'class="plc cl" id="pid' in r.text and 'id="post_' not in r.text
    with pytest.raises(PageParseError, match="触屏版页面"):
        read_page(r.content, content_type=r.headers["content-type"])


def test_x3_phone__desktop_when_the_mobile_setting_is_off_or_asked(forum: Forum) -> None:
    forum.sim.settings.mobile = False
    _, page = _page(forum, IPHONE)
    assert [p.floor for p in page.posts] == [1, 2, 3, 4, 5]
    forum.sim.settings.mobile = True
    _, page = _page(forum, IPHONE, thread_url(forum) + "&mobile=no")
    assert len(page.posts) == 5


def test_x3_phone__a_desktop_asking_mobile_2_is_sent_back(forum: Forum) -> None:
    with httpx.Client(base_url=forum.base, headers={"User-Agent": BROWSER}) as client:
        r = client.get(f"forum.php?mod=viewthread&tid={forum.tid}&page=1&mobile=2")
    assert r.status_code == 302
    assert r.headers["location"] == (f"{forum.base}forum.php?mod=viewthread&tid={forum.tid}"
                                     "&page=1&mobile=no")


def test_x3_phone__gbk_forms_from_a_phone_are_read_as_utf8() -> None:
    # _init_mobile converts a phone's POSTed fields from UTF-8 to the site's charset.
    with make_forum("x3", "gbk") as forum:
        with httpx.Client(base_url=forum.base, headers={"User-Agent": IPHONE}) as client:
            assert "succeedhandle_" in login(client, "饺子", charset="utf-8").text
        with httpx.Client(base_url=forum.base, headers={"User-Agent": BROWSER}) as client:
            assert "succeedhandle_" in login(client, "饺子", charset="gbk").text


# ---- 7.2 -----------------------------------------------------------------------------------
def test_d72_robot__norobot_scripts_answer_403_with_an_empty_body(forum72: Forum) -> None:
    with httpx.Client(base_url=forum72.base, headers={"User-Agent": BARE_BOT}) as client:
        for url in ("pm.php", "logging.php?action=login",
                    f"post.php?action=reply&fid={forum72.fid}&tid={forum72.tid}"):
            r = client.get(url)
            assert (r.status_code, r.content) == (403, b""), url
        assert client.get(thread_url(forum72)).status_code == 200


def test_d72_robot__thread_pages_are_unchanged(forum72: Forum) -> None:
    # 7.2's viewthread templates do not look at IS_ROBOT (only attachments do).
    robot, page = _page(forum72, GOOGLEBOT)
    browser, _ = _page(forum72, BROWSER)
    assert [p.floor for p in page.posts] == [1, 2, 3, 4, 5]
    assert robot.text.count('id="postnum') == browser.text.count('id="postnum') == 5


def test_d72_robot__a_browser_agent_with_bot_in_it_is_a_browser(forum72: Forum) -> None:
    with httpx.Client(base_url=forum72.base, headers={"User-Agent": BROWSER_BOT}) as client:
        assert "欢迎您回来" in login(client, "饺子", discuz="7.2").text


def test_d72_phone__gets_the_desktop_pages(forum72: Forum) -> None:
    _, page = _page(forum72, IPHONE)
    assert [p.floor for p in page.posts] == [1, 2, 3, 4, 5]
