"""Issue 18 (finding 12) in headless Chromium at a phone's width (390 px): the service's
game list fits — every column of every game readable without scrolling sideways — and a
game's countdown says 「剩余 …」 while time is left and only 「已截止」 after the deadline.

Needs Debian's ``chromium`` and Playwright's Python client, as ``test_desk_browser``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

import pytest

from forumbot.desk import start_desk
from forumbot.desk.service import start_service_desk
from forumbot.service.summary import GameSummary
from forumbot.simulator import SimClock
from tests.forumbot.game_support import at, config_text, store_game
from tests.forumbot.test_desk_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _need_browser
from tests.forumbot.test_service_desk import FakeService

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    sync_playwright = _need_browser()
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM), headless=True,
            args=CHROMIUM_ARGS, viewport=PHONE, locale="zh-CN")
        context.set_default_timeout(15_000)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser):
    p = browser.new_page()
    try:
        yield p
    finally:
        p.close()


def _games(tmp_path) -> list[GameSummary]:
    """A service's list as a real one looks: long names, an alarm, problems, the raw
    detail of a broken config, posts that failed, a finished game."""
    clock_now = at(1, "10:00")
    made = []
    for name in ("第三局·月圆之夜", "乙局"):
        folder = tmp_path / name
        folder.mkdir()
        path = folder / "game.toml"
        path.write_text(config_text("simple14", database=str(folder / "game.sqlite")), encoding="utf-8")
        made.append(GameSummary(name, str(path), "running", ruleset="14人简易规则", day=1, deadline=at(1, "21:30"),
                                time_left="11小时30分", drafts_waiting=2, last_pass=clock_now - timedelta(minutes=1)))
    made[0] = replace(made[0], failed=1, alarms=(
        "论坛要求验证码：机器人不能填写验证码，帖子 #12（计票，主题 3）没有发出。请论坛管理员为机器人账号所在用户组"
        "关闭发帖验证码（全局 → 防灌水设置 → 验证设置 → 发帖）；改好后 `forumbot retry 12` 重发它",))
    made.append(GameSummary("丙局", str(tmp_path / "丙局.toml"), "error", problems=("配置或数据库有误，游戏没有运行",),
                            detail=(f"{tmp_path}/丙局.toml: [[days]] #2 (day 2).start: 第2日的开始 2026-12-02 09:00 "
                                    "早于第1日的截止 2026-12-02 21:30：两日的时间重叠",)))
    made.append(GameSummary("丁局", str(tmp_path / "丁局.toml"), "finished", ruleset="双身份规则", day=3,
                            deadline=at(3, "21:30"), time_left="已截止", over="游戏已结束：好人阵营胜利",
                            last_pass=at(3, "21:40")))
    return made


def _overflow(page) -> list[str]:
    """What reaches past the window's right edge, or scrolls sideways inside its card."""
    return page.evaluate("""() => {
        const width = window.innerWidth, found = [];
        if (document.documentElement.scrollWidth > width) found.push('page ' + document.documentElement.scrollWidth);
        document.querySelectorAll('.card').forEach((c, i) => {
            if (c.scrollWidth > c.clientWidth + 1) found.push('card ' + i + ': ' + c.scrollWidth + ' > ' + c.clientWidth);
        });
        document.querySelectorAll('#games td').forEach(td => {
            const r = td.getBoundingClientRect();
            if (r.right > width + 1) found.push('cell ' + td.innerText.slice(0, 12) + ' ends at ' + Math.round(r.right));
        });
        return found;
    }""")


def test_desk_service_browser__the_game_list_fits_a_phone(tmp_path, page):
    clock = SimClock(start=at(1, "10:00"))
    server = start_service_desk(FakeService(_games(tmp_path), clock), port=0, clock=clock, poll_seconds=0)
    try:
        page.goto(server.url)
        page.screenshot(path=str(ARTIFACTS / "service-phone-games.png"), full_page=True)
        assert _overflow(page) == []
        text = page.locator("#games").inner_text()
        for shown in ("第三局·月圆之夜", "1 篇发送失败", "警报：论坛要求验证码", "游戏已结束", "12-01 09:59"):
            assert shown in text, shown
        # each value still says what it is once the table is a list of blocks
        labels = page.evaluate("""() => [...document.querySelectorAll('#games tr[data-game="乙局"] td')]
            .map(td => getComputedStyle(td, '::before').content)""")
        assert labels[1:] == ['"状态："', '"当前："', '"截止："', '"待审批："', '"警报与问题："', '"最后一轮："'], labels
        # the finished game is not a game to see to
        assert page.locator("#trouble").inner_text() == "需要处理：第三局·月圆之夜、丙局"
    finally:
        server.stop()


def test_desk_service_browser__the_game_list_is_a_table_on_a_laptop(tmp_path, browser):
    clock = SimClock(start=at(1, "10:00"))
    server = start_service_desk(FakeService(_games(tmp_path), clock), port=0, clock=clock, poll_seconds=0)
    wide = browser.new_page()
    wide.set_viewport_size({"width": 1280, "height": 800})
    try:
        wide.goto(server.url)
        assert wide.locator("#games th").first.is_visible()
        assert _overflow(wide) == []
    finally:
        wide.close()
        server.stop()


def test_desk_service_browser__countdown_says_time_left_then_only_closed(tmp_path, page, monkeypatch):
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    g = store_game(tmp_path, "simple14")
    g.at(at(1, "21:20"))  # ten minutes before the deadline
    desk = start_desk(g.rt.config.path, port=0, clock=g.clock, poll_seconds=0)
    try:
        page.clock.install()  # the page's time is the test's: no race with a slow machine
        page.goto(desk.url)
        countdown = page.locator(".countdown")
        assert countdown.inner_text().startswith("剩余 "), countdown.inner_text()
        page.clock.run_for("00:02")  # the countdown ticks: still time left
        assert re.fullmatch(r"剩余 09分5\d秒", countdown.inner_text()), countdown.inner_text()
        page.clock.fast_forward("11:00")  # past the deadline
        page.clock.run_for("00:02")
        assert countdown.inner_text() == "已截止"
        line = page.locator("p.big").inner_text()
        assert "剩余" not in line and line.endswith("（已截止）"), line
    finally:
        desk.stop()
        g.close()
