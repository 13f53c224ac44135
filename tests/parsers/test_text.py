"""Text helpers: name normalisation (SPEC §3.2) and reducing a post to its own words."""

from __future__ import annotations

import pytest

from parsers.text import (
    normalise_name,
    own_text,
    strip_bbcode,
    strip_edit_stamps,
    strip_html,
    strip_quotes,
    strip_surrounding_punctuation,
    strip_zero_width,
)


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        pytest.param("饺子", "饺子", id="plain"),
        pytest.param("阿Ｂ", "阿b", id="full-width-letter"),
        pytest.param("阿B", "阿b", id="half-width-letter"),
        pytest.param("老７", "老7", id="full-width-digit"),
        pytest.param("Alice", "alice", id="case-fold"),
        pytest.param("ＡＬＩＣＥ", "alice", id="full-width-case-fold"),
        pytest.param("Straße", "strasse", id="case-fold-not-lower"),
        pytest.param("饺\u200b子", "饺子", id="zwsp"),
        pytest.param("\ufeff饺子\u2060", "饺子", id="bom-word-joiner"),
        pytest.param("饺\u00ad子\u180e", "饺子", id="soft-hyphen-mongolian-separator"),
        pytest.param("饺子\ufe0f", "饺子", id="variation-selector"),
        pytest.param("\u200e饺子\u200f", "饺子", id="direction-marks"),
        pytest.param("  饺子。 ", "饺子", id="spaces-and-full-stop"),
        pytest.param("\u3000饺子！！", "饺子", id="ideographic-space-exclamations"),
        pytest.param("【饺子】", "饺子", id="lenticular-brackets"),
        pytest.param("“饺子”", "饺子", id="curly-quotes"),
        pytest.param("饺子(3号)", "饺子(3号)", id="inner-brackets-kept"),
        pytest.param("Mr.K", "mr.k", id="inner-dot-kept"),
        pytest.param("bob_2", "bob_2", id="inner-underscore-kept"),
        pytest.param("ｂｏｂ＿２", "bob_2", id="full-width-underscore"),
        pytest.param("小 笼包", "小 笼包", id="inner-space-kept"),
        pytest.param("。！？", "", id="only-punctuation"),
        pytest.param("", "", id="empty"),
    ],
)
def test_text__normalise_name(written: str, expected: str) -> None:
    assert normalise_name(written) == expected


def test_text__normalise_name_matches_both_ways() -> None:
    # the engine normalises the player's name and the target the same way
    assert normalise_name("阿Ｂ") == normalise_name("阿B")
    assert normalise_name("老７") == normalise_name("老7")
    assert normalise_name("饺子") != normalise_name("包子")


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        pytest.param("(饺子)", "饺子", id="enclosing-pair"),
        pytest.param("饺子)", "饺子", id="lone-closer"),
        pytest.param("(饺子", "饺子", id="lone-opener"),
        pytest.param("饺子(3号)。", "饺子(3号)", id="pair-inside-kept"),
        pytest.param("((饺子)", "饺子", id="unbalanced-brackets-all-go"),
        pytest.param("~饺子~", "饺子", id="symbols"),
        pytest.param("饺子", "饺子", id="nothing-to-do"),
    ],
)
def test_text__strip_surrounding_punctuation(s: str, expected: str) -> None:
    assert strip_surrounding_punctuation(s) == expected


def test_text__strip_zero_width_keeps_visible_text() -> None:
    assert strip_zero_width("投\u200b票\u200c对\u200d象\u2063：饺\U000e0020子") == "投票对象：饺子"
    assert strip_zero_width("饺子 包子") == "饺子 包子"


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        pytest.param("[b]饺子[/b]", "饺子", id="bold"),
        pytest.param("[color=Red][size=6]月饼[/size][/color]", "月饼", id="colour-size"),
        pytest.param("[COLOR=#ff0000]x[/COLOR]", "x", id="upper-case-tags"),
        pytest.param("[font=微软雅黑]x[/font][u]y[/u][s]z[/s]", "xyz", id="font-u-s"),
        pytest.param("[align=center]x[/align]", "x", id="align"),
        pytest.param("[url=forum.php?tid=1]讨论帖[/url]", "讨论帖", id="url-keeps-text"),
        pytest.param("a[img]http://x/y.png[/img]b", "ab", id="image-dropped"),
        pytest.param("a[img=100,50]http://x/y.png[/img]b", "ab", id="sized-image-dropped"),
        pytest.param("a[attach]12[/attach]b", "ab", id="attachment-dropped"),
        pytest.param("饺子{:4_110:}", "饺子", id="smiley-code"),
        pytest.param("[饺子]", "[饺子]", id="not-a-tag"),
        pytest.param("[i=s] 本帖 [/i]", " 本帖 ", id="stamp-wrapper"),
    ],
)
def test_text__strip_bbcode(s: str, expected: str) -> None:
    assert strip_bbcode(s) == expected


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        pytest.param('<font color="Red">月饼</font>', "月饼", id="font"),
        pytest.param("a<br />b<br>c", "a\nb\nc", id="breaks"),
        pytest.param("<strong>x</strong>&nbsp;&amp;", "x\xa0&", id="entities"),
        pytest.param("投票对象：<饺子>", "投票对象：<饺子>", id="cjk-in-angle-brackets-is-text"),
        pytest.param("a<!-- hidden -->b", "ab", id="comment"),
    ],
)
def test_text__strip_html(s: str, expected: str) -> None:
    assert strip_html(s) == expected


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        pytest.param("[quote]投票对象：饺子[/quote]我的", "\n我的", id="bbcode"),
        pytest.param("[quote]a[quote]b[/quote]c[/quote]d", "\nd", id="nested"),
        pytest.param("[quote]a[quote]b[/quote]c", "[quote]a\nc", id="unclosed-outer-literal"),
        pytest.param("a[/quote]b", "a[/quote]b", id="stray-closer-literal"),
        pytest.param("[quote=饺子]x[/quote]y", "\ny", id="named-quote"),
        pytest.param('<div class="quote"><blockquote>x<div>y</div></blockquote></div>z', "\nz",
                     id="html-quote-div"),
        pytest.param('<div class="reply_wrap">x</div><br />z', "\n<br />z", id="api-reply-wrap"),
        pytest.param("<blockquote>x</blockquote>z", "\nz", id="blockquote"),
        pytest.param('<div class="quote">x', "\n", id="unclosed-html-quote-to-end"),
        pytest.param("<div>a</div>", "<div>a</div>", id="ordinary-div-kept"),
    ],
)
def test_text__strip_quotes(s: str, expected: str) -> None:
    assert strip_quotes(s) == expected


@pytest.mark.parametrize(
    "s",
    [
        pytest.param("[i=s] 本帖最后由 月饼 于 2026-11-30 00:26 编辑 [/i]\n\n", id="bbcode"),
        pytest.param('<i class="pstatus"> 本帖最后由 月饼 于 2026-11-30 00:26 编辑 </i><br />', id="html"),
        pytest.param("本帖最后由 老７ 于 2026-11-30 01:00 编辑\n", id="api-plain"),
        pytest.param("本帖最後由 月饼 於 2026-11-30 00:26 編輯", id="traditional"),
    ],
)
def test_text__edit_stamps_removed(s: str) -> None:
    assert "本帖" not in own_text(s + "投票对象：饺子")
    assert own_text(s + "投票对象：饺子").strip() == "投票对象：饺子"


def test_text__edit_stamp_lookalike_in_chat_kept() -> None:
    s = "本帖最后由我来总结一下编辑的问题"
    assert strip_edit_stamps(s) == s


def test_text__own_text_of_a_real_change_cell() -> None:
    # postmessage_11 of viewthread-tid2-page1.html, CRLF as served
    html = (
        '<div class="quote"><blockquote><font size="2"><a href="http://127.0.0.1:8080/forum.php'
        '?mod=redirect&amp;goto=findpost&amp;pid=5&amp;ptid=2" target="_blank"><font color="#999999">'
        "汤圆 发表于 2026-11-30 00:24</font></a></font><br />\r\n投票对象：弃权<br />\r\n"
        "投票理由：搞不清楚</blockquote></div><br />\r\n改票对象：包子<br />\r\n改票理由：包子也好吃"
    )
    lines = [line for line in own_text(html).split("\n") if line.strip()]
    assert lines == ["改票对象：包子", "改票理由：包子也好吃"]
