"""Property tests for parse_vote: vote posts written the way players write them.

Well-formed votes, however decorated (full-width forms, zero-width characters, BBCode
nesting, quotes of other votes, CRLF or HTML line breaks), must round-trip to the right
target; anything at all must give a declaration or None, never an exception.
"""

from __future__ import annotations

import unicodedata

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers.models import ABSTAIN, DeclarationProblem, VoteDeclaration, VoteKind
from parsers.text import normalise_name, strip_surrounding_punctuation
from parsers.votes import parse_vote

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

REAL_NAMES = [
    "饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖", "Mr.K", "阿Ｂ", "老７",
    "狼王不吃素", "糖醋排骨", "kiki", "Zed_99", "西瓜太郎", "晴天娃娃", "Lucy",
]  # fmt: skip
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\ufe0f"]
ABSTAIN_FORMS = {"弃权", "棄權", "弃權", "棄权"}

# Name characters: CJK, ASCII and full-width letters and digits (NFKC gives plain ASCII).
_NAME_EDGE = st.one_of(
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5),
    st.characters(min_codepoint=ord("0"), max_codepoint=ord("9")),
    st.characters(min_codepoint=ord("A"), max_codepoint=ord("Z")),
    st.characters(min_codepoint=ord("a"), max_codepoint=ord("z")),
    st.characters(min_codepoint=0xFF10, max_codepoint=0xFF19),
    st.characters(min_codepoint=0xFF21, max_codepoint=0xFF3A),
    st.characters(min_codepoint=0xFF41, max_codepoint=0xFF5A),
)
_NAME_INNER = st.one_of(_NAME_EDGE, st.sampled_from(["_", ".", "-", "＿"]))


@st.composite
def names(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return draw(st.sampled_from(REAL_NAMES))
    first = draw(_NAME_EDGE)
    middle = "".join(draw(st.lists(_NAME_INNER, max_size=6)))
    last = draw(_NAME_EDGE) if middle else ""
    name = first + middle + last
    if unicodedata.normalize("NFKC", name) in ABSTAIN_FORMS:
        return "饺子"
    return name


REASONS = [
    "饺子好吃", "包子昨晚发言很可疑", "随大流", "月饼踩我，我反踩！", "搞不清楚", "发言前后矛盾",
    "票型太可疑了", "Alice 一直在换票，不像好人", "大字报太吓人了", "（真的）想拿个身份信息",
]  # fmt: skip
CHAT = [
    "大家别急着投票啊，先去讨论帖看看昨晚的发言再决定吧。", "我投饺子一票吧", "大家投票要认真",
    "+1 相信小笼包", "投票给饺子", "今天的投票理由都很水", "【投票截止】还有一小时", "",
    "包子：2 票（饺子、汤圆）", "饺子 发表于 2026-11-30 00:24", "我是好人！！",
]  # fmt: skip
STRAY_QUOTE = "[quote]"  # typed without a closing tag: Discuz shows it as literal text
COLONS = ["：", ":", "﹕", "︰"]
SPACES = ["", " ", "  ", "\u3000"]
TRAILING = ["", "。", "!", "！", "！！", "~", "～", "…", "，", " "]
OPEN_TAGS = [
    ("[b]", "[/b]"), ("[color=Red]", "[/color]"), ("[color=#ff0000]", "[/color]"),
    ("[size=6]", "[/size]"), ("[font=微软雅黑]", "[/font]"), ("[u]", "[/u]"), ("[i]", "[/i]"),
    ("[url=home.php?mod=space&uid=4]", "[/url]"), ("[B]", "[/B]"), ("[align=center]", "[/align]"),
]  # fmt: skip


@st.composite
def sprinkle_zero_width(draw: st.DrawFn, s: str) -> str:
    out = []
    for ch in s:
        out.append(ch)
        if draw(st.integers(0, 5)) == 0:
            out.append(draw(st.sampled_from(ZERO_WIDTH)))
    return "".join(out)


@st.composite
def wrap_bbcode(draw: st.DrawFn, s: str) -> str:
    for open_tag, close_tag in draw(st.lists(st.sampled_from(OPEN_TAGS), max_size=3)):
        s = open_tag + s + close_tag
    return s


@st.composite
def key(draw: st.DrawFn, action: str, field: str) -> str:
    obj = draw(st.sampled_from(["对象", "對象", "对像"])) if field == "target" else "理由"
    k = action + obj
    if draw(st.booleans()):
        k = draw(sprinkle_zero_width(k))
    if draw(st.integers(0, 4)) == 0:
        k = "【" + k + "】"
    return k


@st.composite
def key_line(draw: st.DrawFn, action: str, field: str, value: str) -> str:
    colon = draw(st.sampled_from(SPACES)) + draw(st.sampled_from(COLONS)) + draw(st.sampled_from(SPACES))
    line = draw(key(action, field)) + colon + value
    return draw(wrap_bbcode(line))


@st.composite
def quote_block(draw: st.DrawFn, depth: int = 0) -> str:
    """A Discuz quote of somebody's vote, sometimes with a quote nested inside it."""
    inner = ""
    if depth < 2 and draw(st.booleans()):
        inner = draw(quote_block(depth + 1))
    old = draw(names())
    return (
        "[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid=5&ptid=2]"
        "[color=#999999]饺子 发表于 2026-11-30 00:24[/color][/url][/size]\n"
        + inner
        + f"投票对象：{old}\n改票对象：{draw(names())}\n投票理由：{draw(st.sampled_from(REASONS))}"
        + "[/quote]"
    )


@st.composite
def vote_posts(draw: st.DrawFn, stray_quotes: bool = True) -> tuple[str, VoteKind, str, str]:
    """(post text, kind, written target, reason) for a well-formed vote or change."""
    chat = st.sampled_from(CHAT + [STRAY_QUOTE] if stray_quotes else CHAT)
    kind = draw(st.sampled_from([VoteKind.VOTE, VoteKind.CHANGE]))
    action = "投票" if kind is VoteKind.VOTE else "改票"
    abstain = draw(st.integers(0, 9)) == 0
    name = draw(st.sampled_from(sorted(ABSTAIN_FORMS))) if abstain else draw(names())
    written = draw(sprinkle_zero_width(name))
    written = draw(wrap_bbcode(written)) + draw(st.sampled_from(TRAILING))
    reason = draw(st.sampled_from(REASONS))
    lines = [
        *draw(st.lists(chat, max_size=2)),
        draw(key_line(action, "target", written)),
        draw(key_line(action, "reason", reason)),
        *draw(st.lists(chat, max_size=2)),
    ]
    if kind is VoteKind.CHANGE or draw(st.booleans()):
        lines.insert(0, draw(quote_block()))
    newline = draw(st.sampled_from(["\n", "\r\n", "<br />\r\n"]))
    return newline.join(lines), kind, name, reason


def _expected_target(name: str) -> str:
    return ABSTAIN if name in ABSTAIN_FORMS else unicodedata.normalize("NFKC", name)


@FUZZ
@given(vote_posts())
def test_votes_fuzz__well_formed_votes_round_trip(post: tuple[str, VoteKind, str, str]) -> None:
    text, kind, name, reason = post
    d = parse_vote(text)
    assert d is not None, text
    assert d.problem is None, (text, d)
    assert d.kind is kind
    assert d.target == _expected_target(name)
    assert d.reason == reason
    assert normalise_name(d.target) == normalise_name(name) or d.target == ABSTAIN


@FUZZ
@given(vote_posts(stray_quotes=False), st.integers(1, 3))
def test_votes_fuzz__quoted_votes_are_never_own(post: tuple[str, VoteKind, str, str], depth: int) -> None:
    text = post[0].replace("<br />\r\n", "\n")
    for _ in range(depth):
        text = "[quote]" + text + "[/quote]"
    assert parse_vote(text + "\n同意楼上，先出饺子。") is None


def _check_invariants(d: VoteDeclaration | None) -> None:
    if d is None:
        return
    assert isinstance(d.kind, VoteKind)
    if d.problem in (None, DeclarationProblem.NO_REASON):
        assert d.target, d
        assert d.target == strip_surrounding_punctuation(d.target) or d.target == ABSTAIN
        assert d.targets_seen == (d.target,)
    else:
        assert d.target is None
    if d.problem in (DeclarationProblem.TWO_TARGETS, DeclarationProblem.MIXED_KINDS):
        assert len({normalise_name(t) for t in d.targets_seen}) >= 2
    if d.problem is DeclarationProblem.NO_REASON:
        assert d.reason is None
    if d.reason is not None:
        assert d.reason == d.reason.strip() and d.reason


@FUZZ
@given(st.text())
def test_votes_fuzz__arbitrary_text_never_raises(text: str) -> None:
    _check_invariants(parse_vote(text))


FRAGMENTS = [
    "投票", "改票", "对象", "對象", "理由", "：", ":", "﹕", "︰", " ", "\u3000", "\n", "\r\n",
    "<br />", "[quote]", "[/quote]", "[b]", "[/b]", "[color=Red]", "[/color]", "[size=6",
    "]", "[", "<div class=\"quote\">", "</div>", "<blockquote>", "</blockquote>",
    '<i class="pstatus">', "</i>", "本帖最后由 月饼 于 2026-11-30 00:26 编辑", "[i=s]", "[/i]",
    "弃权", "棄權", "饺子", "阿Ｂ", "【", "】", "(", ")", "。", "！", "&nbsp;", "&", "<", ">",
    "[img]", "[/img]", "{:4_110:}", "饺子 发表于 2026-11-30 00:24", *ZERO_WIDTH,
]  # fmt: skip


@FUZZ
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=40))
def test_votes_fuzz__mangled_vote_soup_never_raises(parts: list[str]) -> None:
    _check_invariants(parse_vote("".join(parts)))


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_votes_fuzz__normalise_name_is_idempotent(s: str) -> None:
    once = normalise_name(s)
    assert normalise_name(once) == once
