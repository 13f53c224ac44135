"""Thread-page parsing speed: forumbot's full parse vs a bare lxml parse of the same bytes.

Input: the 201 captured pages of the 2,001-post thread (``discuz-x3-large``), i.e. about
2,000 posts, plus its 21 mobile-API pages. Both sides run in the same process, alternating,
and each keeps its best of ``ROUNDS`` timings (the least disturbed by other processes on
a shared machine). Goal from issue 2: full parse ≤ 1.7× the bare ``lxml.html.fromstring``
time (throughput ratio ≥ 0.6).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import lxml.html

from bench import fixture_dir, skipped
from parsers.pages import read_page

ROUNDS = 7
GOAL = "full parse ≤ 1.7× bare lxml (throughput ratio ≥ 0.6)"


def _best(fn: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _load(directory: Path, pattern: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted(directory.glob(pattern))]


def measure(pages: list[bytes], rounds: int = ROUNDS) -> tuple[int, float, float]:
    """``(posts, forumbot seconds, lxml seconds)`` over ``pages``, best of ``rounds``."""
    posts = sum(len(read_page(page).posts) for page in pages)  # also warms caches

    def forumbot() -> None:
        for page in pages:
            read_page(page)

    def bare() -> None:
        for page in pages:
            lxml.html.fromstring(page)

    ours = theirs = float("inf")
    for _ in range(rounds):  # alternate so both see the same machine load
        theirs = min(theirs, _best(bare, 1))
        ours = min(ours, _best(forumbot, 1))
    return posts, ours, theirs


def run() -> list[dict[str, object]]:
    large = fixture_dir("discuz-x3-large")
    if large is None:
        return [skipped("parse", "../shared/fixtures/discuz-x3-large not found", GOAL)]
    html_pages = _load(large, "viewthread-page*.html")
    posts, ours, theirs = measure(html_pages)
    rows: list[dict[str, object]] = [
        {
            "benchmark": "parse",
            "figure": f"HTML thread pages: {len(html_pages)} pages, {posts} posts",
            "value": posts / ours,
            "unit": "posts/s",
            "reference": f"bare lxml.html.fromstring: {posts / theirs:,.0f} posts/s",
            "ratio": theirs / ours,
            "goal": "throughput ratio ≥ 0.6",
        },
        {
            "benchmark": "parse",
            "figure": "full parse time / bare lxml parse time",
            "value": ours / theirs,
            "unit": "×",
            "reference": "lxml.html.fromstring of the same bytes, same run",
            "ratio": ours / theirs,
            "goal": "≤ 1.7×",
        },
    ]
    api_pages = _load(large, "mobileapi-page*.json")
    if api_pages:
        api_posts = sum(len(read_page(p).posts) for p in api_pages)
        api_time = _best(lambda: [read_page(p) for p in api_pages], ROUNDS)
        json_time = _best(lambda: [json.loads(p) for p in api_pages], ROUNDS)
        rows.append({
            "benchmark": "parse",
            "figure": f"mobile-API pages: {len(api_pages)} pages, {api_posts} posts",
            "value": api_posts / api_time,
            "unit": "posts/s",
            "reference": f"bare json.loads: {api_posts / json_time:,.0f} posts/s",
            "ratio": json_time / api_time,
            "goal": "(no goal; messages are parsed as HTML fragments)",
        })
    return rows
