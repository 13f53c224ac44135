"""The page's encoding is decided from the bytes as well as the declaration: the real GBK
pages re-served with no charset, or a wrong one, read exactly as when declared right;
bytes clean in no candidate charset are an error naming the page, never a silent
recount. (The variants are built here from the fixture bytes; no copies are saved.)"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from parsers.charset import decode, sniff_charset
from parsers.errors import PageParseError
from parsers.pages import read_page
from tests.support import fixture_file

pytestmark = pytest.mark.fixtures

GBK_PAGES = [("discuz-x3-gbk", "viewthread-tid1-page1.html"), ("discuz-x3-gbk", "viewthread-tid1-page1-loggedin.html"),
             ("discuz-7.2-gbk", "guest_viewthread_p1.html"), ("discuz-7.2-gbk", "toupiaoji_viewthread_p1.html")]
_META = re.compile(rb"<meta[^>]*charset=[^>]*>", re.I)
_JS_CHARSET = re.compile(rb"charset = '[^']*'")


def without_charset(data: bytes) -> bytes:
    return _JS_CHARSET.sub(b"", _META.sub(b"", data))


def with_meta(data: bytes, charset: bytes) -> bytes:
    return _META.sub(b'<meta http-equiv="Content-Type" content="text/html; charset=' + charset + b'" />', data)


def facts(page) -> list[tuple]:
    return [(p.pid, p.floor, p.author, p.author_uid, p.text) for p in page.posts]


@pytest.mark.parametrize(("fixture", "name"), GBK_PAGES)
@pytest.mark.parametrize(
    ("variant", "content_type"),
    [
        pytest.param(without_charset, None, id="no-charset-anywhere"),
        pytest.param(without_charset, "text/html", id="header-without-charset"),
        pytest.param(lambda d: d, "text/html; charset=utf-8", id="header-says-utf8"),
        pytest.param(lambda d: with_meta(d, b"utf-8"), None, id="meta-says-utf8"),
        pytest.param(lambda d: with_meta(d, b"big5"), None, id="meta-says-big5"),
    ],
)
def test_charset_sniff__gbk_page_with_missing_or_wrong_charset_reads_right(fixture, name, variant, content_type):
    data = fixture_file(fixture, name).read_bytes()
    right = read_page(data, content_type="text/html; charset=gbk", source=name)
    assert right.posts and all(p.author and p.floor for p in right.posts)
    served = variant(data)
    assert sniff_charset(served, content_type).charset == "gbk"
    page = read_page(served, content_type=content_type, source=name)
    assert facts(page) == facts(right)
    text, charset = decode(served, content_type)
    assert charset == "gbk" and "\ufffd" not in text


def test_charset_sniff__utf8_page_declared_gbk_reads_as_utf8():
    data = fixture_file("discuz-7.2", "toupiaoji_viewthread_p1.html").read_bytes()
    right = read_page(data, content_type="text/html; charset=UTF-8")
    wrong = read_page(with_meta(data, b"gbk"), content_type="text/html; charset=gbk")
    assert facts(wrong) == facts(right)


def test_charset_sniff__declared_and_clean_is_kept():
    sniffed = sniff_charset(fixture_file("discuz-7.2-gbk", "guest_viewthread_p1.html").read_bytes(), "text/html")
    assert (sniffed.charset, sniffed.declared, sniffed.clean, sniffed.corrected) == ("gbk", "gbk", True, False)


def garbled(data: bytes) -> bytes:
    """Bytes no charset reads cleanly: 0xFF is neither UTF-8 nor GBK/GB18030."""
    at = data.index("导演".encode("gbk"))
    return data[:at] + b"\xff\xfe\xff" + data[at:]


def test_charset_sniff__clean_in_no_charset_is_an_error_naming_the_page():
    data = without_charset(fixture_file("discuz-7.2-gbk", "guest_viewthread_p1.html").read_bytes())
    sniffed = sniff_charset(garbled(data), None)
    assert not sniffed.clean and sniffed.bad_offset is not None
    with pytest.raises(PageParseError) as info:
        read_page(garbled(data), source="saved/p1.html")
    assert "saved/p1.html" in str(info.value) and "编码" in str(info.value)


def test_charset_sniff__decode_never_raises_on_such_bytes():
    text, charset = decode(b"<p>\xff\xfe ok</p>", None)
    assert charset == "utf-8" and "\ufffd" in text


TALLY_CONFIG = """
[forum]
timezone = "Asia/Shanghai"

[game]
ruleset = "simple14"
director = "导演"
players = ["饺子", "包子", "汤圆", "Alice", "bob_2"]

[[days]]
number = 3
vote_thread = 1
start = "2026-12-01T09:00:00+08:00"
deadline = "2026-12-01T22:00:00+08:00"
"""


def test_charset_sniff__tally_of_an_undeclared_gbk_page_counts_the_votes(tmp_path):
    config = tmp_path / "game.toml"
    config.write_text(TALLY_CONFIG, encoding="utf-8")
    data = fixture_file("discuz-7.2-gbk", "guest_viewthread_p1.html").read_bytes()
    declared, undeclared = tmp_path / "declared.html", tmp_path / "undeclared.html"
    declared.write_bytes(data)
    undeclared.write_bytes(without_charset(data))
    runs = [CliRunner().invoke(main, ["tally", "--config", str(config), "--day", "3", "--json", "--pages", str(p)])
            for p in (declared, undeclared)]
    assert [r.exit_code for r in runs] == [0, 0], runs[1].output
    assert runs[0].output == runs[1].output
    assert '"饺子"' in runs[1].output and "\ufffd" not in runs[1].output


def test_charset_sniff__tally_of_a_garbled_page_exits_nonzero_naming_it(tmp_path):
    config = tmp_path / "game.toml"
    config.write_text(TALLY_CONFIG, encoding="utf-8")
    page = tmp_path / "garbled.html"
    page.write_bytes(garbled(without_charset(fixture_file("discuz-7.2-gbk", "guest_viewthread_p1.html").read_bytes())))
    result = CliRunner().invoke(main, ["tally", "--config", str(config), "--day", "3", "--pages", str(page)])
    assert result.exit_code != 0 and "garbled.html" in result.output and "编码" in result.output
