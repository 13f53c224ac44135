"""End-to-end fuzzing of reading: posts the way players write them go onto the simulated
forum, come back as page bytes (HTML or mobile-API JSON) and are read by ``read_page``
and ``parse_vote``. Every post must come back — same pid, same author — with the
declaration its author meant, or a named problem; mangled copies of those pages give
posts or a ``PageParseError`` naming the page. Nothing may raise.

Strategies: ``tests/fuzzing.py``. Budget: ``FORUMBOT_FUZZ_EXAMPLES`` (``make fuzz``).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parsers.errors import PageParseError
from parsers.models import ABSTAIN, DeclarationProblem, ThreadPage, VoteKind
from parsers.pages import INTERNAL_ERROR, read_page
from parsers.text import normalise_name
from tests.fuzzing import (
    ROSTER,
    Written,
    ballots_from,
    fake_header,
    full_width,
    fuzz_settings,
    post_on_forum,
    read_all,
    tally,
    threads,
    vote_post,
)
from tests.parsers.test_votes_fuzz import _check_invariants


def _check_meaning(w: Written, declaration) -> None:
    """The declaration read back is the one the author meant."""
    if w.intent in ("vote", "change"):
        assert declaration is not None, w.message
        assert declaration.problem is None, (w.message, declaration)
        assert declaration.kind is (VoteKind.CHANGE if w.intent == "change" else VoteKind.VOTE)
        if w.target == ABSTAIN:
            assert declaration.target == ABSTAIN, (w.message, declaration)
        else:
            assert normalise_name(declaration.target) == normalise_name(w.target), (w.message, declaration)
    elif w.intent == "quoted_only":
        assert declaration is None, (w.message, declaration)
    elif w.intent == "two_targets":
        assert declaration is not None and declaration.problem is DeclarationProblem.TWO_TARGETS, (
            w.message, declaration)
    elif w.intent == "no_target":
        assert declaration is not None and declaration.problem is DeclarationProblem.NO_TARGET, (
            w.message, declaration)
    else:
        _check_invariants(declaration)


@fuzz_settings("posts")
@given(threads(), st.booleans())
def test_fuzz_posts__every_post_reads_back_as_meant(written: list[Written], api: bool) -> None:
    served = post_on_forum(written, api=api)
    pages = read_all(served)
    ballots = {b.pid: b for b in ballots_from(pages)}
    assert all(pid in ballots for pid in served.pids), "a post went missing between forum and parser"
    for w, pid in zip(written, served.pids):
        ballot = ballots[pid]
        assert ballot.post.author == w.author  # a fake quote header never changes who posted
        _check_meaning(w, ballot.declaration)
    tally(list(ballots.values()))  # and the engine takes whatever was read


# ------------------------------------------------------------------ mangled pages

_TAG = re.compile(rb"<[^>]{1,200}>")
JUNK = [b"<", b"</div>", b'<div id="post_99">', b"<em>", b"\xff\xfe", b"&nbsp;", b"]]>", b'{"',
        b'<span title="2026-99-99 99:99:99">', '发表于 昨天 21:30'.encode(), b'<em id="authorposton3">',
        b'<td id="postmessage_3">', b'"message":', b'"dbdateline":"x"', b"null", b"[quote]"]


def _mangle(data: st.DataObject, page: bytes) -> bytes:
    how = data.draw(st.sampled_from(["truncate", "drop_tags", "splice"]))
    if how == "truncate":
        return page[: data.draw(st.integers(0, len(page)))]
    if how == "drop_tags":
        tags = [m.span() for m in _TAG.finditer(page)]
        doomed = data.draw(st.sets(st.integers(0, max(len(tags) - 1, 0)), max_size=30)) if tags else set()
        out, last = [], 0
        for i, (start, end) in enumerate(tags):
            if i in doomed:
                out.append(page[last:start])
                last = end
        return b"".join(out) + page[last:]
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(page)))
        drop = data.draw(st.integers(0, 300))
        junk = data.draw(st.one_of(st.sampled_from(JUNK), st.binary(max_size=40)))
        page = page[:at] + junk + page[at + drop:]
    return page


@fuzz_settings("mangled")
@given(threads(max_posts=12), st.booleans(), st.data())
def test_fuzz_posts__mangled_pages_give_posts_or_a_named_error(written: list[Written], api: bool,
                                                              data: st.DataObject) -> None:
    served = post_on_forum(written, api=api)
    read: list[ThreadPage] = []
    for i, body in enumerate(served.pages):
        source = f"mangled-{i + 1}"
        try:
            page = read_page(_mangle(data, body), content_type=served.content_type, source=source)
        except PageParseError as exc:
            assert exc.source == source and source in str(exc)
            assert INTERNAL_ERROR not in str(exc), str(exc)
            continue
        assert isinstance(page, ThreadPage)
        read.append(page)
    ballots = ballots_from(read)
    for ballot in ballots:
        assert ballot.post.posted_at.utcoffset() is not None
        _check_invariants(ballot.declaration)
    result = tally(ballots)
    assert {r.pid for r in result.rulings} <= {b.pid for b in ballots}


# ------------------------------------------------------------------ named cases

def _one(message: str, author: str = "饺子", api: bool = False):
    served = post_on_forum([Written(author, message, "chatter")], api=api)
    (ballot,) = [b for b in ballots_from(read_all(served)) if b.pid == served.pids[0]]
    return ballot


@pytest.mark.parametrize("api", [False, True], ids=["html", "api"])
@pytest.mark.parametrize(
    ("message", "target", "problem"),
    [
        ("投票对象：Ａｌｉｃｅ\n投票理由：全角", "Alice", None),
        ("投票對象：老７\n投票理由：繁体键", "老7", None),
        ("投票对象：饺\u200b子\n投票理由：零宽", "饺子", None),
        ("投票对象：[b][color=Red][size=6]包子[/size][/color][/b]\n投票理由：嵌套", "包子", None),
        ("Alice 发表于 2026-12-01 10:24\n投票对象：月饼\n投票理由：伪造的引用头", "月饼", None),
        ("[quote][quote]投票对象：包子[/quote]投票对象：Alice[/quote]\n投票对象：烧卖\n投票理由：套娃",
         "烧卖", None),
        ("投票对象：包子\n投票对象：月饼\n投票理由：两个", None, DeclarationProblem.TWO_TARGETS),
        ("投票对象：[b][/b]\n投票理由：空", None, DeclarationProblem.NO_TARGET),
    ],
    ids=["full-width", "traditional-key", "zero-width", "bbcode-nesting", "fake-header",
         "quotes-in-quotes", "two-targets", "empty-target"],
)
def test_fuzz_posts__named_cases_through_the_forum(message, target, problem, api) -> None:
    d = _one(message, api=api).declaration
    assert d is not None
    assert d.problem is problem
    assert d.target == target


@pytest.mark.parametrize("api", [False, True], ids=["html", "api"])
def test_fuzz_posts__align_puts_the_target_on_its_own_line(api: bool) -> None:
    """``[align]`` is a block on the page (``<div align>``; the API drops the tag): on the
    page the target line is empty — a named problem, never a silent drop or a guess."""
    d = _one("投票对象：[align=center]饺子[/align]\n投票理由：居中", api=api).declaration
    assert d is not None
    if api:
        assert (d.target, d.problem) == ("饺子", None)
    else:
        assert (d.target, d.problem) == (None, DeclarationProblem.NO_TARGET)


def test_fuzz_posts__quote_only_declares_nothing() -> None:
    ballot = _one("[quote]月饼 发表于 2026-12-01 10:24\n投票对象：包子\n投票理由：x[/quote]\n同意")
    assert ballot.declaration is None


@pytest.mark.parametrize("name", ROSTER)
def test_fuzz_posts__full_width_roster_names_fold_back(name: str) -> None:
    assert normalise_name(full_width(name)) == normalise_name(name)


@fuzz_settings("headers")
@given(st.sampled_from(ROSTER), st.data())
def test_fuzz_posts__fake_headers_are_the_posters_own_words(author: str, data: st.DataObject) -> None:
    w = data.draw(vote_post(author, 0))
    forged = Written(author, data.draw(fake_header(author)) + "\n" + w.message, w.intent, w.target)
    ballot = _one(forged.message, author=author)
    assert ballot.post.author == author
    _check_meaning(forged, ballot.declaration)
