"""BBCode the simulator renders like Discuz's discuzcode(): tables (issue 12 item 10: the
demo forum showed every count as raw [table][tr][td]), spaces, line breaks, per generation."""

from __future__ import annotations

import httpx
import pytest
from lxml import html as lxml_html

from forumbot.simulator.bbcode import render
from tests.forumbot.simulator_support import Forum, any_forum, thread_url  # noqa: F401

COUNT = ("[b]【计票机器人】当前票型[/b]\n[table=98%]\n"
         "[tr][td][b]对象[/b][/td][td][b]票数[/b][/td][td][b]投票人[/b][/td][/tr]\n"
         "[tr][td]包子[/td][td]3[/td][td][url=forum.php?mod=redirect&goto=findpost&ptid=1&pid=5]"
         "饺子[/url](2楼)[/td][/tr]\n[/table]\n截止时间：2026-12-02 21:30")


@pytest.mark.parametrize("mode", ["x3", "d72", "touch"])
def test_bbcode__table_rows_and_cells(mode: str) -> None:
    out = render(COUNT, "http://127.0.0.1:1/", mode)  # type: ignore[arg-type]
    assert "[table" not in out and "[tr]" not in out and "[td]" not in out
    table = lxml_html.fromstring(f"<div>{out}</div>").find(".//table")
    cells = [[td.text_content() for td in tr.findall("td")] for tr in table.findall("tr")]
    assert cells[0] == ["对象", "票数", "投票人"] and cells[1][:2] == ["包子", "3"]
    if mode != "touch":
        assert table.get("class") == "t_table" and table.get("style") == "width:98%"
    assert out.endswith("</table><br />\r\n截止时间：2026-12-02 21:30") or mode == "d72"


@pytest.mark.parametrize(("source", "x3", "d72"), [
    ("[table=600][tr][td]a[/td][/tr][/table]",
     '<table cellspacing="0" class="t_table" style="width:98%"><tr><td>a</td></tr></table>',
     '<table cellspacing="0" class="t_table" style="width:98%"><tr><td>a</td></tr></table>'),
    ("[table=50%,#eee][tr=#fff][td=2,1,30%]a[/td][/tr][/table]",
     '<table cellspacing="0" class="t_table" style="width:50%" bgcolor="#eee"><tr style="background-color:#fff">'
     '<td colspan="2" width="30%">a</td></tr></table>',
     '<table cellspacing="0" class="t_table" style="width:50%" bgcolor="#eee"><tr bgcolor="#fff">'
     '<td colspan="2" width="30%">a</td></tr></table>'),
    # [td=W] is X3's; 7.2 only knows [td=COLSPAN,ROWSPAN,W] and drops a table it cannot read
    ("[table][tr][td=120]a[/td][td]b[/td][/tr][/table]",
     '<table cellspacing="0" class="t_table" ><tr><td width="120">a</td><td>b</td></tr></table>', "ab"),
    # X3 reads a table without [/tr]/[/td] as lines of |-separated cells
    ("[table]\na|b\nc|d\n[/table]",
     '<table cellspacing="0" class="t_table" ><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>',
     "a|b<br />\nc|d"),
    ("[table]text [td]only[/td][/table]", "text only", "text only"),
])
def test_bbcode__table_forms(source: str, x3: str, d72: str) -> None:
    assert render(source, "http://x/", "x3") == x3
    assert render(source, "http://x/", "d72") == d72


def test_bbcode__mobile_api_tables_are_dzcode_tables() -> None:
    out = render("[table][tr][td]a[/td][td]b[/td][/tr][/table]", "http://x/", "api")
    assert out == ('<table class="dzcode_table" cellspacing="0" ><tr><td class="dzcode_td">a</td></tr>'
                   '<td class="dzcode_td">b</td></tr></table>')


def test_bbcode__spaces_and_line_breaks_like_discuzcode() -> None:
    assert render("a\tb   c  d", "http://x/", "x3") == "a&nbsp; &nbsp; &nbsp; &nbsp; b&nbsp; &nbsp;c&nbsp;&nbsp;d"
    assert render("一\r\n二\n三", "http://x/", "d72") == "一<br />\r\n二<br />\n三"  # nl2br keeps them
    assert render("一\r\n二\n三", "http://x/", "x3") == "一<br />\r\n二<br />\r\n三"


LONG = "http://a.test/" + "p" * 60


def _a(href: str, text: str) -> str:
    return f'<a href="{href}" target="_blank">{text}</a>'


# parseurl() of each generation (7.2 include/discuzcode.func.php, X3.5
# source/function/function_discuzcode.php), site address http://b/.
@pytest.mark.parametrize(("source", "d72", "x3"), [
    # an absolute address: a link on both, its & escaped
    ("[url=http://a.test/x?a=1&b=2]x[/url]", _a("http://a.test/x?a=1&amp;b=2", "x"),
     _a("http://a.test/x?a=1&amp;b=2", "x")),
    ("[url=HTTPS://a.test/]x[/url]", _a("HTTPS://a.test/", "x"), _a("HTTPS://a.test/", "x")),
    # a relative one: 7.2 leaves the tag on the page as typed; X3 puts the site before it
    ("[url=redirect.php?goto=findpost&pid=2&ptid=1]饺子[/url]",
     "[url=redirect.php?goto=findpost&amp;pid=2&amp;ptid=1]饺子[/url]",
     _a("http://b/redirect.php?goto=findpost&amp;pid=2&amp;ptid=1", "饺子")),
    ("[url=/x]a[/url]", "[url=/x]a[/url]", _a("http://b//x", "a")),
    # www. gains http://; mailto: is a scheme to both, tel: only to X3
    ("[url=www.a.test/p]a[/url]", _a("http://www.a.test/p", "a"), _a("http://www.a.test/p", "a")),
    ("[url=mailto:x@a.test]m[/url]", _a("mailto:x@a.test", "m"), _a("mailto:x@a.test", "m")),
    ("[url=tel:123]t[/url]", "[url=tel:123]t[/url]", _a("tel:123", "t")),
    # a blank in the address: 7.2 takes no such address, X3 does
    ("[url=http://a.test/ x]x[/url]", "[url=http://a.test/ x]x[/url]", _a("http://a.test/ x", "x")),
    # [url]TEXT[/url]: the first absolute address in the text, shortened past 65 characters
    ("[url]http://a.test/x[/url]", _a("http://a.test/x", "http://a.test/x"), _a("http://a.test/x", "http://a.test/x")),
    ("[url]see www.a.test[/url]", _a("http://www.a.test", "see www.a.test"), _a("http://www.a.test", "see www.a.test")),
    (f"[url]{LONG}[/url]", _a(LONG, LONG[:32] + " ... " + LONG[-19:]), _a(LONG, LONG[:32] + " ... " + LONG[-19:])),
    # ...and without one: a link to nowhere on 7.2, to the front page on X3
    ("[url]redirect.php?x=1[/url]", _a("", "redirect.php?x=1"), _a("http://b/", "redirect.php?x=1")),
    ("[url][/url]", "[url][/url]", "[url][/url]"),
])
def test_bbcode__links_like_each_generations_parseurl(source: str, d72: str, x3: str) -> None:
    assert render(source, "http://b/", "d72") == d72
    assert render(source, "http://b/", "x3") == x3
    assert render(source, "http://b/", "touch") == x3


def test_bbcode__mobile_api_links_carry_no_target_and_escape_twice() -> None:
    assert render("[url=forum.php?a=1&b=2]x[/url]", "http://b/", "api") == \
        '<a href="http://b/forum.php?a=1&amp;amp;b=2">x</a>'


def test_bbcode__a_count_post_shows_a_table_on_the_forum(any_forum: Forum) -> None:
    any_forum.sim.add_post(any_forum.tid, "计票机器人", COUNT)
    with httpx.Client(base_url=any_forum.base) as client:
        page = client.get(thread_url(any_forum)).text
    assert "[table" not in page and "[tr]" not in page
    assert '<table cellspacing="0" class="t_table" style="width:98%"><tr><td><strong>对象</strong>' in page
