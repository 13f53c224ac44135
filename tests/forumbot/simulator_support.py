"""Shared setup for the simulator tests: a seeded forum and an httpx client per test."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

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


@pytest.fixture
def forum() -> Iterator[Forum]:
    clock = SimClock(start=START)
    sim = Simulator(clock=clock)
    fid, tid = seed(sim)
    clock.advance(minutes=10)
    with sim.running() as base:
        yield Forum(sim, clock, fid, tid, base)


@pytest.fixture
def client(forum: Forum) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=forum.base, follow_redirects=False, timeout=5) as c:
        yield c


def login(client: httpx.Client, name: str, password: str = "pw", **extra: str) -> httpx.Response:
    data = {"username": name, "password": password, "questionid": "0", "answer": "",
            "cookietime": "2592000", "loginfield": "username", **extra}
    return client.post("member.php?mod=logging&action=login&loginsubmit=yes&inajax=1", data=data)


def formhash_of(client: httpx.Client, tid: int) -> str:
    page = client.get(f"forum.php?mod=viewthread&tid={tid}").text
    match = re.search(r'name="formhash" value="([0-9a-f]{8})"', page)
    assert match, "no formhash on the thread page"
    return match.group(1)


def reply_url(forum: Forum, ajax: bool = True, fastpost: bool = True) -> str:
    url = f"forum.php?mod=post&action=reply&fid={forum.fid}&tid={forum.tid}&extra=&replysubmit=yes"
    if fastpost:
        url += "&infloat=yes&handlekey=fastpost"
    return url + ("&inajax=1" if ajax else "")


def cdata(text: str) -> str:
    match = re.search(r"<!\[CDATA\[(.*)\]\]></root>", text, re.S)
    assert match, f"not an ajax envelope: {text[:200]!r}"
    return match.group(1)
