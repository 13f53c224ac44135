"""Drift guard: the real captured pages and the simulator's pages read the same way.

The same parser (``parsers.pages.read_page``) reads the real X3.5 captures of the voting
thread (tid 2: guest pages 1–3, logged-in pages, the closed page, dateconvert off, the
mobile API, the GBK site) and the simulator's pages for a thread built like it (quotes,
edits, fonts, a link and an image, a banned author, a blocked post, a deleted floor). Every
``ThreadPage`` and ``Post`` field must come out with the same types and shapes: if the
simulator drifts from the real forum, or the parser only understands one of them, this fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from forumbot.simulator import BEIJING, SimClock, Simulator
from parsers.models import Post, ThreadPage
from parsers.pages import read_page
from tests.forumbot.simulator_support import login

NOW = datetime(2026, 11, 30, 0, 27, 0, tzinfo=BEIJING)
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")
USERS = ["导演", "计票机器人", "饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖", "路人甲"]


def build_vote_thread(sim: Simulator) -> int:
    """A thread shaped like the captured tid 2 (28 visible posts, 3 pages)."""
    for name in USERS:
        sim.add_user(name, "pw")
    fid = sim.add_forum("版杀区")
    t0 = NOW - timedelta(minutes=3)
    tid = sim.add_thread(fid, "【饺子村】第一日 投票帖", "导演",
                         "投票格式：\n投票对象：玩家名\n投票理由：理由\n如需改票，请[b]引用[/b]自己原来的投票帖", t0)
    at = iter(t0 + timedelta(seconds=5 * i) for i in range(1, 40))
    add = lambda who, text, quote=None: sim.add_post(tid, who, text, next(at), quote)  # noqa: E731
    jiaozi = add("饺子", "投票对象：包子\r\n投票理由：包子昨晚发言很可疑")
    add("包子", "投票对象：饺子\r\n投票理由：饺子先踩我")
    tangyuan = add("汤圆", "投票对象：弃权\r\n投票理由：搞不清楚")
    alice = add("Alice", "投票对象:饺子\r\n投票理由:跟票")
    add("bob_2", "大家好，我先观望一下")
    yuebing = add("月饼", "投票对象：小龙包\r\n投票理由：小笼包一整天都不说话")
    add("小笼包", "[color=Red][size=6]投票对象：月饼[/size][/color]\r\n投票理由：月饼踩我，我反踩！")
    shaomai = add("烧卖", "见讨论帖：[url=forum.php?mod=viewthread&tid=1]讨论帖[/url]\r\n"
                         "[img]static/image/common/logo.png[/img]\r\n还没想好投谁")
    add("汤圆", "改票对象：包子\r\n改票理由：包子也好吃", tangyuan)
    add("计票机器人", "[b]【计票机器人】当前票型[/b]\r\n包子：2 票")
    add("路人甲", "投票: 饺子 我觉得饺子是狼")
    bob = add("bob_2", "投票对象：饺子\r\n投票理由：跟风")
    add("饺子", "改票对象：汤圆\r\n改票理由：汤圆在划水", jiaozi)
    add("烧卖", "投票对象：小笼包\r\n投票理由：直觉")
    blocked = add("包子", "骂人的话骂人的话骂人的话")
    deleted = add("月饼", "同意楼上，先出饺子，大家跟我投。")
    add("Alice", "改票对象：月饼\r\n改票理由：想了想", alice)
    for who in ["导演", "小笼包", "汤圆", "计票机器人"]:
        add(who, "提醒：投票截止前请确认格式正确。")
    add("月饼", "改票对象：饺子\r\n改票理由：他一直在带节奏", yuebing)
    add("bob_2", "改票对象:Alice\r\n改票理由:换个目标", bob)
    for who in ["饺子", "导演", "烧卖", "计票机器人"]:
        add(who, "[color=Red]投票已截止，之后的投票无效。[/color]")
    add("导演", "第一日结果：饺子出局。")
    sim.edit_post(yuebing, "投票对象：小笼包\r\n投票理由：小笼包一整天都不说话\r\n（更正：打错字了）",
                  NOW - timedelta(minutes=1))
    sim.edit_post(shaomai, sim.post(shaomai).message + "（补充：链接已更新）",
                  NOW - timedelta(minutes=1))
    sim.delete_post(deleted)
    sim.block_post(blocked)
    sim.ban_user("路人甲")
    return tid


@dataclass
class SimPages:
    pages: dict[str, tuple[bytes, str]]  # name -> (body, content type)
    now: datetime


def fetch(client: httpx.Client, url: str) -> tuple[bytes, str]:
    r = client.get(url)
    assert r.status_code == 200, url
    return r.content, r.headers["content-type"]


@pytest.fixture(scope="module")
def sim_pages() -> Iterator[SimPages]:
    clock = SimClock(start=NOW)
    sim = Simulator(clock=clock)
    tid = build_vote_thread(sim)
    gbk = Simulator(clock=clock, charset="gbk")
    gbk_tid = build_vote_thread(gbk)
    pages: dict[str, tuple[bytes, str]] = {}
    with sim.running() as base, gbk.running() as gbk_base:
        view = f"forum.php?mod=viewthread&tid={tid}&extra=&page="
        with httpx.Client(base_url=base) as guest:
            for n in (1, 2, 3):
                pages[f"guest-{n}"] = fetch(guest, view + str(n))
            pages["api-1"] = fetch(guest, f"api/mobile/index.php?version=4&module=viewthread"
                                          f"&tid={tid}&page=1")
        with httpx.Client(base_url=base, headers={"User-Agent": IPHONE}) as phone:
            pages["touch-1"] = fetch(phone, f"forum.php?mod=viewthread&tid={tid}&page=1&mobile=2")
        with httpx.Client(base_url=base) as bot:
            login(bot, "计票机器人")
            for n in (1, 2, 3):
                pages[f"loggedin-{n}"] = fetch(bot, view + str(n))
        sim.settings.dateconvert = False
        with httpx.Client(base_url=base) as guest:
            pages["dateconvert-off-1"] = fetch(guest, view + "1")
        sim.settings.dateconvert = True
        sim.close_thread(tid)
        with httpx.Client(base_url=base) as tangyuan:
            login(tangyuan, "汤圆")
            pages["closed-loggedin-3"] = fetch(tangyuan, view + "3")
        with httpx.Client(base_url=gbk_base) as guest:
            pages["gbk-1"] = fetch(guest, f"forum.php?mod=viewthread&tid={gbk_tid}&page=1")
    yield SimPages(pages, NOW)


REAL_NOW = datetime(2026, 11, 30, 0, 27, 0, tzinfo=BEIJING)
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")

PAIRS = [  # (real fixture dir, file, simulator page)
    ("discuz-x3", "viewthread-tid2-page1.html", "guest-1"),
    ("discuz-x3", "viewthread-tid2-page2.html", "guest-2"),
    ("discuz-x3", "viewthread-tid2-page3.html", "guest-3"),
    ("discuz-x3", "viewthread-tid2-page1-loggedin.html", "loggedin-1"),
    ("discuz-x3", "viewthread-tid2-page2-loggedin.html", "loggedin-2"),
    ("discuz-x3", "viewthread-tid2-page3-loggedin.html", "loggedin-3"),
    ("discuz-x3", "viewthread-tid2-page3-closed-loggedin.html", "closed-loggedin-3"),
    ("discuz-x3", "viewthread-tid2-page1-dateconvert-off.html", "dateconvert-off-1"),
    ("discuz-x3", "mobileapi-viewthread-tid2-page1.json", "api-1"),
    ("discuz-x3-gbk", "viewthread-tid1-page1.html", "gbk-1"),
]


def real_page(fixture_set: str, name: str) -> ThreadPage:
    from tests.support import fixture_file

    path: Path = fixture_file(fixture_set, name)
    if name.endswith(".json"):
        ctype = "application/json"
    else:
        ctype = "text/html; charset=" + ("gbk" if "gbk" in fixture_set else "utf-8")
    return read_page(path.read_bytes(), content_type=ctype, source=name, now=REAL_NOW)


def sim_page(pages: SimPages, key: str) -> ThreadPage:
    body, ctype = pages.pages[key]
    return read_page(body, content_type=ctype, source=f"simulator {key}", now=pages.now)


def shape(value: object) -> str:
    """A value's shape: its type, plus the pattern of strings that have one."""
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, datetime):
        return "datetime+tz" if value.tzinfo else "datetime-naive"
    if isinstance(value, tuple):
        return "tuple" if value else "empty-tuple"
    return type(value).__name__


PAGE_FIELDS = [f.name for f in fields(ThreadPage) if f.name not in ("posts", "extras")]


@pytest.mark.parametrize(("fixture_set", "name", "key"), PAIRS, ids=[p[2] for p in PAIRS])
def test_drift__page_fields_have_the_same_shapes(sim_pages: SimPages, fixture_set: str,
                                                 name: str, key: str) -> None:
    real, sim = real_page(fixture_set, name), sim_page(sim_pages, key)
    assert {f: shape(getattr(sim, f)) for f in PAGE_FIELDS} == {
        f: shape(getattr(real, f)) for f in PAGE_FIELDS}
    for page in (real, sim):
        assert re.fullmatch(r"[0-9a-f]{8}", page.formhash or "")
        assert re.fullmatch(r"[A-Za-z0-9]{4}_2132_", page.cookiepre or "")
    same = ("page", "total_pages", "closed", "charset", "source", "posts_per_page", "subject")
    if fixture_set == "discuz-x3":
        assert {f: getattr(sim, f) for f in same} == {f: getattr(real, f) for f in same}
    assert (sim.viewer_uid > 0) == (real.viewer_uid > 0)
    assert len(sim.posts) == len(real.posts) or fixture_set != "discuz-x3"
    assert set(sim.extras) == set(real.extras)


@pytest.mark.parametrize(("fixture_set", "name", "key"), PAIRS, ids=[p[2] for p in PAIRS])
def test_drift__floors_run_on_across_pages(sim_pages: SimPages, fixture_set: str, name: str,
                                           key: str) -> None:
    for page in (real_page(fixture_set, name), sim_page(sim_pages, key)):
        start = (page.page - 1) * 10 + 1
        assert [p.floor for p in page.posts] == list(range(start, start + len(page.posts)))


def post_signature(pages: list[ThreadPage]) -> dict[str, set[str]]:
    """For every Post field, the set of shapes seen across the pages' posts."""
    seen: dict[str, set[str]] = {f.name: set() for f in fields(Post)}
    for page in pages:
        for post in page.posts:
            for f in fields(Post):
                seen[f.name].add(shape(getattr(post, f.name)))
    return seen


def element_signature(pages: list[ThreadPage]) -> dict[str, set[str]]:
    """Shapes inside the tuples: quotes (pid, tid, author, time), fonts, notices, precision."""
    seen: dict[str, set[str]] = {"quote": set(), "font": set(), "notice": set(),
                                 "precision": set(), "edited_at": set()}
    for page in pages:
        for post in page.posts:
            for q in post.quotes:
                seen["quote"].add(f"{shape(q.pid)}/{shape(q.tid)}/{shape(q.author)}/"
                                  f"{shape(q.quoted_at)}/{bool(q.text)}")
                assert q.tid == page.tid and q.pid is not None and q.pid < post.pid
            for font in post.fonts:
                seen["font"].add(f"{shape(font.color)}/{shape(font.size)}")
            seen["notice"].add(str(post.notice))
            seen["precision"].add(str(post.time_precision))
            if post.edited_at is not None:
                seen["edited_at"].add(f"minute={post.edited_at.second == 0}")
    return seen


@pytest.mark.parametrize("who", ["guest", "loggedin"])
def test_drift__posts_are_populated_alike(sim_pages: SimPages, who: str) -> None:
    suffix = "" if who == "guest" else "-loggedin"
    real = [real_page("discuz-x3", f"viewthread-tid2-page{n}{suffix}.html") for n in (1, 2, 3)]
    sim = [sim_page(sim_pages, f"{who}-{n}") for n in (1, 2, 3)]
    assert post_signature(sim) == post_signature(real)
    assert element_signature(sim) == element_signature(real)
    for pages in (real, sim):
        posts = [p for page in pages for p in page.posts]
        assert len({p.pid for p in posts}) == len(posts) == 28
        assert [p.floor for p in posts] == list(range(1, 29))
        assert all(p.author and p.author_uid for p in posts)


def test_drift__api_posts_are_populated_alike(sim_pages: SimPages) -> None:
    real = real_page("discuz-x3", "mobileapi-viewthread-tid2-page1.json")
    sim = sim_page(sim_pages, "api-1")
    assert post_signature([sim]) == post_signature([real])
    assert element_signature([sim]) == element_signature([real])
    assert sim.extras["positions"] and all(isinstance(v, int)
                                           for v in sim.extras["positions"].values())


def test_drift__dateconvert_off_is_minute_precision(sim_pages: SimPages) -> None:
    real = real_page("discuz-x3", "viewthread-tid2-page1-dateconvert-off.html")
    sim = sim_page(sim_pages, "dateconvert-off-1")
    assert {str(p.time_precision) for p in real.posts} == {str(p.time_precision)
                                                           for p in sim.posts} == {"minute"}


def test_drift__gbk_pages_decode_alike(sim_pages: SimPages) -> None:
    real = real_page("discuz-x3-gbk", "viewthread-tid1-page1.html")
    sim = sim_page(sim_pages, "gbk-1")
    assert real.charset == sim.charset == "gbk"
    assert all("\ufffd" not in p.text for p in sim.posts)
    assert any(p.quotes for p in real.posts) and any(p.quotes for p in sim.posts)


def test_drift__touch_pages_are_refused_alike(sim_pages: SimPages) -> None:
    """A phone's touch page (captured with an iPhone agent) has no post ids: the parser
    refuses the real one and the simulator's with the same touch-template error."""
    from parsers.errors import PageParseError

    for read in (lambda: real_page("discuz-x3", "viewthread-tid2-page1-touch-mobile2.html"),
                 lambda: sim_page(sim_pages, "touch-1")):
        with pytest.raises(PageParseError, match="触屏版页面"):
            read()
