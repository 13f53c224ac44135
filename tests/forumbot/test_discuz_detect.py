"""Which Discuz generation a forum runs, told from the real pages of each (UTF-8 and GBK),
with and without the version marks themes like to remove; and the client choosing its
dialect from the forum's front page, or from [forum].discuz."""

from __future__ import annotations

import re

import httpx
import pytest

from forumbot.discuz import DiscuzClient, Generation, detect_generation
from forumbot.discuz.errors import UnexpectedPage
from parsers.charset import decode
from tests.forumbot.captured import Router
from tests.forumbot.captured72 import D72, D72_GBK, Router72
from tests.support import fixture_dir

pytestmark = pytest.mark.fixtures

_VERSION_MARKS = re.compile(
    r'<meta name="generator"[^>]*>|Powered by (<strong>.*?</strong>(\s*<em>[^<]*</em>|[^<]*)|Discuz! [X0-9.]+)',
    re.S)


def _pages(*fixtures: str):
    for name in fixtures:
        for path in sorted(fixture_dir(name).rglob("*.htm*")):
            if path.suffix in (".html", ".htm"):
                yield pytest.param(path, id=f"{name}/{path.name}")


def _expect(path, *, marks: bool = True) -> Generation | None:
    """Empty 302 bodies and X3's bare "System Error" page carry no generation; 7.2's
    printable view has only its "Powered by" line and no links to tell by."""
    data = path.read_bytes()
    if not data or b"System Error" in data[:400] or ("printable" in path.name and "7.2" in path.parent.name
                                                     and not marks):
        return None
    return Generation.D72 if "7.2" in path.parent.name else Generation.X3


@pytest.mark.parametrize("path", list(_pages("discuz-x3", "discuz-x3-gbk", "discuz-x3-large",
                                              "discuz-7.2", "discuz-7.2-gbk")))
def test_discuz_detect__every_real_page_tells_its_generation(path):
    text, _ = decode(path.read_bytes(), None)
    assert detect_generation(text) == _expect(path)


@pytest.mark.parametrize("path", list(_pages("discuz-x3", "discuz-x3-gbk", "discuz-7.2", "discuz-7.2-gbk")))
def test_discuz_detect__links_alone_tell_when_a_theme_hides_the_version(path):
    text, _ = decode(path.read_bytes(), None)
    stripped = _VERSION_MARKS.sub("", text)
    assert not re.search(r'generator" content="Discuz|Powered by (<strong>|Discuz! [X0-9])', stripped)
    assert detect_generation(stripped) == _expect(path, marks=False)


def test_discuz_detect__a_page_of_neither_is_none():
    assert detect_generation("<html><body><h1>404 Not Found</h1>nginx</body></html>") is None
    assert detect_generation('<meta name="generator" content="WordPress 6.5" />') is None


@pytest.mark.parametrize(
    ("router", "expected", "first_login_get"),
    [
        (Router("discuz-x3").on("GET", "8080/", "home_guest"), Generation.X3,
         "member.php?mod=logging&action=login"),
        (Router72(D72).on("GET", "8072/", 110), Generation.D72, "logging.php?action=login"),
        (Router72(D72_GBK).on("GET", "8073/", 86), Generation.D72, "logging.php?action=login"),
    ],
    ids=["x3", "7.2", "7.2-gbk"],
)
def test_discuz_detect__client_reads_the_front_page_once_then_uses_that_dialect(router, expected,
                                                                               first_login_get):
    base = getattr(router, "base", "http://127.0.0.1:8080/")
    router.on("GET", first_login_get, lambda request: httpx.Response(503, request=request))
    client = DiscuzClient(httpx.Client(transport=httpx.MockTransport(router)), base, username="投票机",
                          password_source=lambda: "pw", min_interval=0, sleep=lambda s: None)
    assert client.generation is None
    assert client.dialect().generation is expected and client.generation is expected
    assert [str(r.url) for r in router.sent] == [base]
    client.dialect()
    assert len(router.sent) == 1  # detected once
    with pytest.raises(Exception):
        client.login()
    assert first_login_get in str(router.sent[1].url)


def test_discuz_detect__configured_generation_skips_the_probe():
    router = Router72(D72).on("GET", "logging.php?action=login", 87).on("POST", "loginsubmit=yes", 93)
    client = DiscuzClient(httpx.Client(transport=httpx.MockTransport(router)), router.base,
                          username="投票机", password_source=lambda: "pw", min_interval=0,
                          generation="7.2")
    assert client.generation is Generation.D72
    client.login()
    assert [r.url.path for r in router.sent] == ["/logging.php", "/logging.php"]


def test_discuz_detect__an_unknown_front_page_names_the_setting():
    def nginx(request):
        return httpx.Response(200, headers={"content-type": "text/html"},
                              content=b"<html><body>Welcome to nginx!</body></html>", request=request)

    router = Router72(D72).on("GET", "8072/", nginx)
    client = DiscuzClient(httpx.Client(transport=httpx.MockTransport(router)), router.base,
                          min_interval=0)
    with pytest.raises(UnexpectedPage) as info:
        client.fetch_page(1)
    assert "[forum].discuz" in str(info.value) and "[forum].base_url" in str(info.value)
