"""Hypothesis: nothing but a ThreadPage or a PageParseError naming the page comes out of
``read_page``, whatever the bytes: arbitrary text, truncated/mangled real pages, garbage.

``read_page`` has a safety net that turns an unexpected exception into a PageParseError
marked INTERNAL_ERROR; these tests fail if the net ever fires, so it cannot hide a bug.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers.errors import PageParseError
from parsers.models import ThreadPage
from parsers.pages import INTERNAL_ERROR, read_page
from tests.support import fixture_file

SOURCE = "fuzzed-page.html"
SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
_TAG = re.compile(rb"<[^>]{1,200}>")
REAL = [("discuz-x3", "viewthread-tid2-page2.html"), ("discuz-x3", "viewthread-tid1-page1.html"),
        ("discuz-x3-gbk", "viewthread-tid1-page1.html"),
        ("discuz-x3", "mobileapi-viewthread-tid2-page2.json")]


@cache
def _real(index: int) -> bytes:
    return Path(fixture_file(*REAL[index])).read_bytes()


def _check(data: bytes, content_type: str | None = None) -> None:
    try:
        page = read_page(data, content_type=content_type, source=SOURCE)
    except PageParseError as exc:
        assert exc.source == SOURCE
        assert SOURCE in str(exc)
        assert INTERNAL_ERROR not in str(exc), str(exc)
    else:
        assert isinstance(page, ThreadPage)
        for post in page.posts:
            assert post.posted_at.utcoffset() is not None
            assert "\r" not in post.text


@SETTINGS
@given(st.text(max_size=2000))
def test_read_page__arbitrary_text(text: str) -> None:
    _check(text.encode("utf-8"))


@SETTINGS
@given(st.binary(max_size=2000), st.sampled_from([None, "text/html; charset=gbk",
                                                   "application/json", "text/xml"]))
def test_read_page__arbitrary_bytes(data: bytes, content_type: str | None) -> None:
    _check(data, content_type)


@SETTINGS
@given(index=st.integers(0, len(REAL) - 1), cut=st.floats(0, 1))
def test_read_page__truncated_real_page(index: int, cut: float) -> None:
    data = _real(index)
    _check(data[: int(len(data) * cut)])


@SETTINGS
@given(index=st.integers(0, len(REAL) - 1), data=st.data())
def test_read_page__tags_deleted_from_real_page(index: int, data: st.DataObject) -> None:
    page = _real(index)
    tags = [m.span() for m in _TAG.finditer(page)]
    if not tags:
        _check(page)
        return
    doomed = data.draw(st.sets(st.integers(0, len(tags) - 1), max_size=40))
    out, last = [], 0
    for i, (start, end) in enumerate(tags):
        if i in doomed:
            out.append(page[last:start])
            last = end
    out.append(page[last:])
    _check(b"".join(out))


@SETTINGS
@given(index=st.integers(0, len(REAL) - 1), data=st.data())
def test_read_page__garbage_spliced_into_real_page(index: int, data: st.DataObject) -> None:
    page = _real(index)
    splices = data.draw(st.lists(
        st.tuples(st.integers(0, len(page)), st.integers(0, 200),
                  st.binary(max_size=60) | st.sampled_from([
                      b"<", b"</div>", b"<div id=\"post_99\">", b"<em>", b"\xff\xfe",
                      b"<span title=\"2026-99-99 99:99:99\">", b"&nbsp;", b"]]>", b"{\"",
                      "发表于 昨天 21:30".encode(), b"<em id=\"authorposton14\">",
                      b"<table id=\"pid14\">", b"<td id=\"postmessage_14\">"])),
        max_size=6))
    for at, drop, junk in splices:
        page = page[:at] + junk + page[at + drop:]
    _check(page)


@pytest.mark.parametrize("data", [b"", b"   ", b"\x00", b"<", b"<?xml?>", b"<![CDATA[",
                                  b"<html></html>", b"{}", b"[]", b"\xef\xbb\xbf"])
def test_read_page__tiny_inputs(data: bytes) -> None:
    _check(data)
