"""The real 2,001-post thread (discuz-x3-large): every row of truth.csv, HTML and API."""

from __future__ import annotations

import csv
from datetime import datetime
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo


from parsers.models import Post, TimePrecision
from parsers.pages import read_page

SH = ZoneInfo("Asia/Shanghai")
FLOOR_NAMES = {"楼主": 1, "沙发": 2, "板凳": 3, "地板": 4}


@cache
def _truth(large_dir: Path) -> list[dict[str, str]]:
    with (large_dir / "truth.csv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@cache
def _pages(large_dir: Path, pattern: str, count: int) -> dict[int, list[tuple[int, Post]]]:
    """pid → [(page number, post)] over the ``count`` captured pages."""
    found: dict[int, list[tuple[int, Post]]] = {}
    for k in range(1, count + 1):
        path = large_dir / pattern.format(k)
        page = read_page(path.read_bytes(), source=path.name)
        assert page.page == k and page.tid == 13, path.name
        for post in page.posts:
            found.setdefault(post.pid, []).append((k, post))
    return found


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line]


def _floor(shown: str) -> int:
    return FLOOR_NAMES.get(shown) or int(shown.rstrip("#"))


def test_large_thread__every_truth_row_in_html(large_dir) -> None:
    truth = _truth(large_dir)
    assert len(truth) == 2001
    found = _pages(large_dir, "viewthread-page{}.html", 201)
    assert sorted(found) == sorted(int(r["pid"]) for r in truth)
    for row in truth:
        pid = int(row["pid"])
        ((page, post),) = found[pid]  # each post on exactly one page
        assert page == int(row["page"]), pid
        assert post.floor == _floor(row["floor_shown"]), pid
        assert (post.author, post.author_uid) == (row["author"], int(row["authorid"])), pid
        assert post.posted_at == datetime.fromtimestamp(int(row["dateline"]), SH), pid
        assert post.time_precision is TimePrecision.SECOND, pid
        if row["time_title"]:
            assert post.posted_at.strftime("%Y-%m-%d %H:%M:%S") == row["time_title"], pid
        expected_quotes = (int(row["has_quote_pid"]),) if row["has_quote_pid"] else ()
        assert post.quoted_pids == expected_quotes, pid
        assert (post.edited_by is not None) == (row["edit_stamp"] == "1"), pid
        if post.edited_by is not None:
            assert post.edited_by == row["author"] and post.edited_at is not None, pid
            assert "本帖最后由" not in post.text, pid
        assert post.notice is None, pid


def test_large_thread__vote_lines_survive_in_own_text(large_dir) -> None:
    found = _pages(large_dir, "viewthread-page{}.html", 201)
    for row in _truth(large_dir):
        ((_, post),) = found[int(row["pid"])]
        lines = post.text.split("\n")
        kind = row["is_vote_or_change"]
        if kind == "vote":
            assert any(line.startswith("投票对象：") for line in lines), row["pid"]
        if kind == "change":
            # Every change quotes the voter's earlier vote or change: the quoted 投票对象/
            # 改票对象 line lives in the quote, and only the new 改票对象 line is own text.
            assert sum(line.startswith("改票对象：") for line in lines) == 1, row["pid"]
            assert not any(line.startswith("投票对象：") for line in lines), row["pid"]
            assert any("对象：" in q.text for q in post.quotes), row["pid"]


def test_large_thread__every_truth_row_in_api(large_dir) -> None:
    truth = _truth(large_dir)
    found = _pages(large_dir, "mobileapi-page{}.json", 21)
    assert sorted(found) == sorted(int(r["pid"]) for r in truth)
    html = _pages(large_dir, "viewthread-page{}.html", 201)
    for row in truth:
        pid = int(row["pid"])
        ((page, post),) = found[pid]
        assert page == (int(row["position"]) - 1) // 100 + 1, pid
        assert int(post.posted_at.timestamp()) == int(row["dateline"]), pid  # dbdateline
        assert post.floor == int(row["position"]), pid  # no deletions in tid 13
        assert (post.author, post.author_uid) == (row["author"], int(row["authorid"])), pid
        expected_quotes = (int(row["has_quote_pid"]),) if row["has_quote_pid"] else ()
        assert post.quoted_pids == expected_quotes, pid
        ((_, html_post),) = html[pid]
        # Same own text, up to blank lines (the API keeps an extra <br /> per paragraph).
        assert _lines(post.text) == _lines(html_post.text), pid
