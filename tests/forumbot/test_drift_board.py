"""Drift guard for board listings: the real captured forumdisplay pages (X3.5 guest and
logged in, the X3.5 mobile API, 7.2 guest and logged in) and the simulator's, for a board
built like the captured one, read the same way by the same parser — the same fields with
the same shapes, the same precision of the last post time, the same row order rule."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from datetime import datetime, timedelta

import httpx
import pytest

from forumbot.simulator import BEIJING, SimClock, Simulator
from parsers.board import BoardPage, BoardThread, read_board
from parsers.pages import FORUM_TZ
from tests.forumbot.simulator_support import login
from tests.support import fixture_file

NOW = datetime(2026, 11, 30, 0, 27, 20, tzinfo=BEIJING)
USERS = ["导演", "计票机器人", "包子", "汤圆", "投票机"]


@dataclass
class Listing:
    body: bytes
    content_type: str


def _build(sim: Simulator) -> int:
    for name in USERS:
        sim.add_user(name, "pw")
    fid = sim.add_forum("版杀区")
    discussion = sim.add_thread(fid, "【饺子村】第一日 讨论帖", "导演", "各位玩家好，这里是讨论帖。",
                                NOW - timedelta(minutes=3))
    votes = sim.add_thread(fid, "【饺子村】第一日 投票帖", "导演", "投票格式：投票对象：玩家名",
                           NOW - timedelta(minutes=2))
    sim.add_post(votes, "汤圆", "投票对象：包子\r\n投票理由：可疑", NOW - timedelta(seconds=90))
    sim.add_post(votes, "导演", "【第一日结果】明日进入 PK 环节。", NOW - timedelta(seconds=70))
    sim.add_post(discussion, "包子", "我是真预言家！！你们会后悔的", NOW - timedelta(seconds=21))
    return fid


def _fetch(client: httpx.Client, url: str) -> Listing:
    r = client.get(url)
    assert r.status_code == 200, url
    return Listing(r.content, r.headers["content-type"])


@pytest.fixture(scope="module")
def sim_listings() -> Iterator[dict[str, Listing]]:
    clock = SimClock(start=NOW)
    x3, d72 = Simulator(clock=clock), Simulator(clock=clock, discuz="7.2")
    x3_fid, d72_fid = _build(x3), _build(d72)
    found: dict[str, Listing] = {}
    with x3.running() as base, d72.running() as base72:
        with httpx.Client(base_url=base) as guest:
            found["x3-guest"] = _fetch(guest, f"forum.php?mod=forumdisplay&fid={x3_fid}")
            found["x3-api"] = _fetch(guest, "api/mobile/index.php?version=4&module=forumdisplay"
                                            f"&fid={x3_fid}&page=1")
        with httpx.Client(base_url=base) as bot:
            login(bot, "计票机器人")
            found["x3-loggedin"] = _fetch(bot, f"forum.php?mod=forumdisplay&fid={x3_fid}")
        with httpx.Client(base_url=base72) as guest:
            found["d72-guest"] = _fetch(guest, f"forumdisplay.php?fid={d72_fid}")
        with httpx.Client(base_url=base72) as bot:
            login(bot, "投票机", discuz="7.2")
            found["d72-loggedin"] = _fetch(bot, f"forumdisplay.php?fid={d72_fid}")
    yield found


PAIRS = [  # (fixture set, capture, simulator listing)
    ("discuz-x3", "forumdisplay-fid3.html", "x3-guest"),
    ("discuz-x3", "forumdisplay-fid3-loggedin.html", "x3-loggedin"),
    ("discuz-x3", "mobileapi-forumdisplay-fid3.json", "x3-api"),
    ("discuz-7.2", "guest_forumdisplay.html", "d72-guest"),
    ("discuz-7.2", "toupiaoji_forumdisplay.html", "d72-loggedin"),
]


def _real(fixture_set: str, name: str) -> BoardPage:
    path = fixture_file(fixture_set, name)
    ctype = "application/json" if name.endswith(".json") else "text/html; charset=utf-8"
    return read_board(path.read_bytes(), content_type=ctype, source=name, tz=FORUM_TZ,
                      now=NOW)


def _sim(listings: dict[str, Listing], key: str) -> BoardPage:
    listing = listings[key]
    return read_board(listing.body, content_type=listing.content_type, source=f"simulator {key}",
                      tz=FORUM_TZ, now=NOW)


def _shape(value: object) -> str:
    if isinstance(value, datetime):
        return "datetime+tz" if value.tzinfo else "datetime-naive"
    if isinstance(value, str):
        return "str" if value else "empty-str"
    return type(value).__name__


@pytest.mark.parametrize("fixture_set,name,key", PAIRS)
def test_drift_board__page_fields_have_the_same_shapes(
        sim_listings: dict[str, Listing], fixture_set: str, name: str, key: str) -> None:
    real, sim = _real(fixture_set, name), _sim(sim_listings, key)
    for f in fields(BoardPage):
        if f.name == "threads":
            continue
        assert _shape(getattr(sim, f.name)) == _shape(getattr(real, f.name)), f.name
    assert (sim.viewer_uid == 0) == (real.viewer_uid == 0)
    assert sim.source == real.source and sim.charset == real.charset


@pytest.mark.parametrize("fixture_set,name,key", PAIRS)
def test_drift_board__rows_are_populated_alike(
        sim_listings: dict[str, Listing], fixture_set: str, name: str, key: str) -> None:
    real, sim = _real(fixture_set, name), _sim(sim_listings, key)
    assert real.threads and sim.threads
    for row in (*real.threads, *sim.threads):
        assert row.subject and row.author and row.author_uid and row.last_poster, row
        assert row.last_post_at is not None and row.last_post_at.tzinfo is not None, row
    for f in fields(BoardThread):
        shapes_real = {_shape(getattr(r, f.name)) for r in real.threads}
        shapes_sim = {_shape(getattr(r, f.name)) for r in sim.threads}
        assert shapes_sim == shapes_real, f.name
    # Both sort by last post, newest first (the captures: tid 1 above tid 2).
    for page in (real, sim):
        times = [r.last_post_at for r in page.threads if not r.sticky]
        assert times == sorted(times, reverse=True)  # type: ignore[type-var]


def test_drift_board__the_x3_board_reads_like_the_capture(sim_listings: dict[str, Listing]) -> None:
    real = _real("discuz-x3", "forumdisplay-fid3.html")
    sim = _sim(sim_listings, "x3-guest")
    assert [(r.subject, r.last_poster) for r in sim.threads] == [
        (r.subject, r.last_poster) for r in real.threads]
    assert sim.name == real.name == "版杀区"
