"""A thread page as Discuz serves it to search robots — the posts without their floor link
``a#postnumPID`` (``!IS_ROBOT`` in viewthread_node.htm) — is a clear error everywhere:
the parser (RobotPageError), the client (RobotPage, naming the User-Agent), and the
offline commands (``forumbot posts`` / ``tally`` exit non-zero). Never a post with floor
None. The pages are the real captures with the floor links cut out."""

from __future__ import annotations

import re

import httpx
import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.discuz import DiscuzClient
from forumbot.discuz.errors import RobotPage, UnexpectedPage
from parsers.errors import PageParseError, RobotPageError
from parsers.pages import read_page
from tests.forumbot.test_cmd_tally import CONFIG
from tests.support import fixture_file

pytestmark = pytest.mark.fixtures

# X3.5 leaves out <strong><a id="postnumPID">…</a></strong> (and the 电梯直达 box) for robots.
_FLOOR_LINK = re.compile(rb'<a [^>]*id="postnum(\d+)"[^>]*>.*?</a>', re.S)

PAGES = [("discuz-x3", "viewthread-tid2-page1.html"), ("discuz-x3", "viewthread-tid2-page3-loggedin.html"),
         ("discuz-x3-gbk", "viewthread-tid1-page1.html"), ("discuz-x3-large", "viewthread-page1.html"),
         ("discuz-7.2", "toupiaoji_viewthread_p2.html"), ("discuz-7.2-gbk", "guest_viewthread_p1.html")]


def spider_page(fixture: str, name: str, *, only: int | None = None) -> bytes:
    """The real page with its floor links cut out (all, or only pid ``only``'s)."""
    data = fixture_file(fixture, name).read_bytes()
    if only is None:
        stripped, count = _FLOOR_LINK.subn(b"", data)
    else:
        stripped, count = re.subn(rb'<a [^>]*id="postnum%d"[^>]*>.*?</a>' % only, b"", data, flags=re.S)
    assert count >= 1
    return stripped


@pytest.mark.parametrize(("fixture", "name"), PAGES)
def test_robot_page__parser_refuses_a_page_without_floor_links(fixture, name):
    read_page(fixture_file(fixture, name).read_bytes(), source=name)  # the real page reads
    with pytest.raises(RobotPageError) as info:
        read_page(spider_page(fixture, name), source=name)
    assert "给搜索引擎看的页面" in str(info.value) and name in str(info.value)


def test_robot_page__one_missing_floor_link_is_an_error_naming_the_post():
    data = spider_page("discuz-x3", "viewthread-tid2-page1.html", only=5)
    with pytest.raises(PageParseError) as info:
        read_page(data, source="p1.html")
    assert not isinstance(info.value, RobotPageError)
    assert "pid 5 的帖子没有楼层链接" in str(info.value)


def test_robot_page__client_says_the_forum_took_it_for_a_robot():
    data = spider_page("discuz-x3", "viewthread-tid2-page1.html")

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/html; charset=utf-8"}, content=data,
                              request=request)

    agent = "Mozilla/5.0 (compatible; SomeFetcher/1.0)"
    client = DiscuzClient(httpx.Client(transport=httpx.MockTransport(serve)), "http://127.0.0.1:8080/",
                          generation="x3", min_interval=0, user_agent=agent)
    with pytest.raises(RobotPage) as info:
        client.fetch_page(2)
    assert isinstance(info.value, UnexpectedPage)
    assert "给搜索引擎看的页面" in info.value.message and agent in info.value.message
    assert "[bot].user_agent" in info.value.message


def test_robot_page__forumbot_posts_exits_nonzero(tmp_path):
    page = tmp_path / "spider.html"
    page.write_bytes(spider_page("discuz-x3", "viewthread-tid2-page1.html"))
    result = CliRunner().invoke(main, ["posts", "--pages", str(page)])
    assert result.exit_code != 0 and "给搜索引擎看的页面" in result.output and "spider.html" in result.output


def test_robot_page__forumbot_tally_exits_nonzero(tmp_path):
    config = tmp_path / "game.toml"
    config.write_text(CONFIG.format(ruleset="s10", day=2), encoding="utf-8")
    pages = []
    for k in (1, 2, 3):
        page = tmp_path / f"p{k}.html"
        page.write_bytes(spider_page("discuz-x3", f"viewthread-tid2-page{k}.html"))
        pages.append(str(page))
    result = CliRunner().invoke(main, ["tally", "--config", str(config), "--day", "2", "--pages", *pages])
    assert result.exit_code != 0 and "给搜索引擎看的页面" in result.output


# ---------------------------------------------------------------- posts without author


def anonymous_author(fixture: str, name: str, pid: int) -> bytes:
    """The real page with pid's profile links (the author's name, the avatar) unlinked
    from the profile: how an anonymous post shows, or a page that did not read right."""
    data = fixture_file(fixture, name).read_bytes()
    start = data.index(b'id="post_%d"' % pid)
    end = data.find(b'id="post_', start + 10)
    segment = re.sub(rb"mod=space&(amp;)?uid=", rb"mod=follow&\1x=", data[start:end])
    assert segment != data[start:end]
    return data[:start] + segment + data[end:]


def test_robot_page__a_post_without_author_stops_the_tally(tmp_path):
    config = tmp_path / "game.toml"
    config.write_text(CONFIG.format(ruleset="s10", day=2), encoding="utf-8")
    pages = [str(fixture_file("discuz-x3", f"viewthread-tid2-page{k}.html")) for k in (2, 3)]
    first = tmp_path / "p1.html"
    first.write_bytes(anonymous_author("discuz-x3", "viewthread-tid2-page1.html", 4))
    ok = CliRunner().invoke(main, ["tally", "--config", str(config), "--day", "2", "--pages",
                                   str(fixture_file("discuz-x3", "viewthread-tid2-page1.html")), *pages])
    assert ok.exit_code == 0, ok.output
    result = CliRunner().invoke(main, ["tally", "--config", str(config), "--day", "2", "--pages",
                                       str(first), *pages])
    assert result.exit_code != 0
    assert "p1.html" in result.output and "pid 4 的帖子没有作者" in result.output


def test_robot_page__forumbot_posts_shows_but_exits_nonzero_on_a_post_without_author(tmp_path):
    first = tmp_path / "p1.html"
    first.write_bytes(anonymous_author("discuz-x3", "viewthread-tid2-page1.html", 4))
    result = CliRunner().invoke(main, ["posts", "--json", "--pages", str(first)])
    assert result.exit_code != 0
    assert '"pid": 4' in result.output and "pid 4（没有作者）" in result.output and "没有读全" in result.output
