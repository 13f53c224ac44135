"""Shared setup for the simulator tests: a seeded forum and an httpx client per test.

``forum`` is an X3.5 UTF-8 forum; ``make_forum(discuz="7.2", charset="gbk")`` builds the
same seeded forum in any generation and charset (``forum72`` and ``forum72_gbk`` are the
7.2 fixtures). ``login``/``reply_url``/``formhash_of`` speak the forum's own URLs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

import httpx
import pytest

from forumbot.simulator import BEIJING, SimClock, Simulator

START = datetime(2026, 11, 30, 9, 0, tzinfo=BEIJING)
PLAYERS = ["导演", "计票机器人", "饺子", "包子", "汤圆", "路人甲"]


@dataclass
class Forum:
    sim: Simulator
    clock: SimClock
    fid: int
    tid: int
    base: str

    @property
    def discuz(self) -> str:
        return self.sim.discuz


def seed(sim: Simulator, replies: int = 4) -> tuple[int, int]:
    for name in PLAYERS:
        sim.add_user(name, password="pw")
    fid = sim.add_forum("版杀区")
    tid = sim.add_thread(fid, "【饺子村】第一日 投票帖", author="导演",
                         message="投票格式：\n投票对象：玩家名", at=START)
    names = ["饺子", "包子", "汤圆"]
    for i in range(replies):
        sim.add_post(tid, names[i % 3], f"投票对象：包子\n投票理由：第 {i} 条", at=START)
    return fid, tid


@contextmanager
def make_forum(discuz: str = "x3", charset: str = "utf-8", replies: int = 4) -> Iterator[Forum]:
    """The seeded forum, running, in the given generation and charset."""
    clock = SimClock(start=START)
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    fid, tid = seed(sim, replies)
    clock.advance(minutes=10)
    with sim.running() as base:
        yield Forum(sim, clock, fid, tid, base)


@pytest.fixture
def forum() -> Iterator[Forum]:
    with make_forum() as f:
        yield f


@pytest.fixture
def forum72() -> Iterator[Forum]:
    with make_forum("7.2") as f:
        yield f


@pytest.fixture
def forum72_gbk() -> Iterator[Forum]:
    with make_forum("7.2", "gbk") as f:
        yield f


@pytest.fixture(params=["x3", "7.2"])
def any_forum(request: pytest.FixtureRequest) -> Iterator[Forum]:
    """The seeded forum in each generation, for what every Discuz does."""
    with make_forum(request.param) as f:
        yield f


@pytest.fixture
def client(forum: Forum) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=forum.base, follow_redirects=False, timeout=5) as c:
        yield c


def login(client: httpx.Client, name: str, password: str = "pw", discuz: str = "x3",
          ajax: bool = True, charset: str = "utf-8", **extra: str) -> httpx.Response:
    """Log in through the forum's login form (fields in the forum's ``charset``)."""
    data = {"username": name, "password": password, "questionid": "0", "answer": "",
            "cookietime": "2592000", "loginfield": "username", **extra}
    if discuz == "7.2":
        url = "logging.php?action=login&loginsubmit=yes" + ("&inajax=1" if ajax else "")
    else:
        url = "member.php?mod=logging&action=login&loginsubmit=yes" + ("&inajax=1" if ajax else "")
    return client.post(url, content=urlencode(data, encoding=charset),
                       headers={"Content-Type": "application/x-www-form-urlencoded"})


def thread_url(forum: Forum, page: int = 1) -> str:
    if forum.discuz == "7.2":
        return f"viewthread.php?tid={forum.tid}&page={page}"
    return f"forum.php?mod=viewthread&tid={forum.tid}&page={page}"


def formhash_of(client: httpx.Client, tid: int, discuz: str = "x3") -> str:
    url = f"viewthread.php?tid={tid}" if discuz == "7.2" else f"forum.php?mod=viewthread&tid={tid}"
    page = client.get(url).text
    match = re.search(r'name="formhash" value="([0-9a-f]{8})"', page)
    assert match, "no formhash on the thread page"
    return match.group(1)


def reply_url(forum: Forum, ajax: bool = True, fastpost: bool = True) -> str:
    script = "post.php?" if forum.discuz == "7.2" else "forum.php?mod=post&"
    url = f"{script}action=reply&fid={forum.fid}&tid={forum.tid}&extra=&replysubmit=yes"
    if fastpost:
        url += "&infloat=yes&handlekey=fastpost"
    return url + ("&inajax=1" if ajax else "")


def post_reply(forum: Forum, client: httpx.Client, message: str, ajax: bool = True,
               fastpost: bool = True) -> httpx.Response:
    """A reply through the forum's own form, in the forum's charset."""
    data = {"message": message, "formhash": formhash_of(client, forum.tid, forum.discuz),
            "subject": "" if forum.discuz == "7.2" else "  ", "usesig": "0"}
    return client.post(reply_url(forum, ajax, fastpost), content=urlencode(data, encoding=forum.sim.charset),
                       headers={"Content-Type": "application/x-www-form-urlencoded"})


def cdata(text: str) -> str:
    match = re.search(r"<!\[CDATA\[(.*)\]\]></root>", text, re.S)
    assert match, f"not an ajax envelope: {text[:200]!r}"
    return match.group(1)
