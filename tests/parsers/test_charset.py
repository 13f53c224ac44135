"""Charset detection: HTTP header → meta tag → XML prolog; GBK read with gb18030."""

from __future__ import annotations

import json

import pytest

from parsers.charset import codec_for, decode, detect_charset

GBK_META = '<html><head><meta charset="gbk" /></head><body>饺子</body></html>'.encode("gbk")


@pytest.mark.parametrize(
    ("data", "content_type", "expected"),
    [
        pytest.param(b"<html></html>", "text/html; charset=utf-8", "utf-8", id="header-utf8"),
        pytest.param(GBK_META, "text/html; charset=gbk", "gbk", id="header-gbk"),
        pytest.param(GBK_META, "text/html; charset=UTF-8", "utf-8", id="header-beats-meta"),
        pytest.param(GBK_META, "text/html", "gbk", id="meta-when-header-has-none"),
        pytest.param(GBK_META, None, "gbk", id="meta-without-header"),
        pytest.param(
            b'<meta http-equiv="Content-Type" content="text/html; charset=gb2312">', None, "gbk",
            id="http-equiv-gb2312-is-gbk",
        ),
        pytest.param(b'<?xml version="1.0" encoding="gbk"?><root></root>', None, "gbk",
                     id="xml-prolog"),
        pytest.param(b'<?xml version="1.0" encoding="gbk"?><root/>', "text/xml; charset=utf-8",
                     "utf-8", id="header-beats-xml-prolog"),
        pytest.param(b"<html><body>x</body></html>", None, "utf-8", id="nothing-declared"),
        pytest.param(b"<meta charset=\"no-such-codec\">", None, "utf-8", id="unknown-name-ignored"),
        pytest.param(b"\xef\xbb\xbf<meta charset=\"gbk\">", None, "utf-8", id="utf8-bom-wins"),
        pytest.param(b"<html></html>", "text/html; charset=\"Big5\"", "big5", id="quoted-big5"),
    ],
)
def test_detect_charset__evidence_order(data: bytes, content_type: str | None, expected: str) -> None:
    assert detect_charset(data, content_type) == expected


def test_codec_for__gbk_reads_with_gb18030() -> None:
    assert codec_for("gbk") == "gb18030"
    assert codec_for("utf-8") == "utf-8"


def test_decode__gb18030_only_character_survives() -> None:
    # 𠮷 (U+20BB7) exists only in GB18030's four-byte range; a GBK codec would fail.
    data = '<meta charset="gbk"><p>𠮷饺子</p>'.encode("gb18030")
    text, charset = decode(data, None)
    assert charset == "gbk"
    assert "𠮷饺子" in text


def test_decode__bad_bytes_never_raise() -> None:
    text, charset = decode(b"<p>\xff\xfe\xfa ok</p>", "text/html; charset=utf-8")
    assert charset == "utf-8"
    assert text.endswith("ok</p>") and "\ufffd" in text


def test_decode__real_gbk_page(gbk_dir) -> None:
    exchanges = json.loads((gbk_dir / "exchanges.json").read_text(encoding="utf-8"))
    by_file = {e["response_body_file"]: e for e in exchanges if e["response_body_file"]}
    for name in ("viewthread-tid1-page1.html", "login-post-wrong-password-inajax.xml"):
        data = (gbk_dir / name).read_bytes()
        for content_type in (by_file[name]["response_content_type"], None):
            text, charset = decode(data, content_type)
            assert charset == "gbk", (name, content_type)
            assert "\ufffd" not in text, name
    text, _ = decode((gbk_dir / "viewthread-tid1-page1.html").read_bytes(), None)
    assert "【饺子村GBK】第一日 投票帖" in text
