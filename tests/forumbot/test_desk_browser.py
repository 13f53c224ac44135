"""End to end in headless Chromium: the agent plays day 1 on the simulator, the director
opens the desk, reads the tally, approves the final count in the browser, and the post
appears on the simulated forum exactly once. Screenshots go to ``test-artifacts/``.

Needs Debian's ``chromium`` (``apt-get install -y chromium``) and Playwright's Python
client; never ``playwright install``. A missing browser FAILS this test (it must run in CI).
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import pytest

from forumbot.game import director
from forumbot.demo.play import Game, play, setup_game
from forumbot.desk import start_desk
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import BOT, PASSWORD, at

CHROMIUM = Path(os.environ.get("FORUMBOT_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
INSTALL = "apt-get update && apt-get install -y chromium fonts-wqy-zenhei; pip install playwright (never run playwright install)"


def _need_browser():
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: install it with `{INSTALL}`", pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(f"Playwright's Python client is missing: `{INSTALL}`", pytrace=False)
    return sync_playwright


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Game:
    _need_browser()
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    g = setup_game(tmp_path_factory.mktemp("desk-game"))
    try:
        # Day 1 to its end: the final count (a manual draft) waits for the director.
        play(g, until=at(1, "22:00"), step=timedelta(minutes=30), approve=False)
        yield g
    finally:
        g.close()
        g.sim.stop()


@pytest.fixture(scope="module")
def desk(game):
    server = start_desk(game.rt.config.path, port=0, clock=game.clock, poll_seconds=1)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    sync_playwright = _need_browser()
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM), headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 390, "height": 844}, locale="zh-CN")
        context.set_default_timeout(15_000)
        try:
            yield context.new_page()
        finally:
            context.close()


def _finals_on_forum(game: Game) -> list[int]:
    tid = game.world.tids["vote1"]
    return [p.pid for p in game.sim.posts(tid) if p.author == BOT and "【最终计票】" in p.message]


def test_desk_browser__director_sees_the_tally_and_approves_the_final_count(game, desk, page):
    (waiting,) = [d for d in director.waiting(game.rt) if d.kind is DraftKind.FINAL_COUNT]
    assert _finals_on_forum(game) == []

    # The tally: the sheriff election with every vote linked to its floor on the forum.
    page.goto(desk.url + "tally?day=1")
    counts = page.locator("#counts")
    assert re.search(r"饺子\s*4", counts.inner_text())
    vote_tid = game.world.tids["vote1"]
    links = page.locator(f'#votes a[href*="goto=findpost&ptid={vote_tid}&pid="]')
    assert links.count() == 8
    assert "饺子 当选警长" in page.locator(".result").inner_text()
    page.screenshot(path=str(ARTIFACTS / "desk-tally.png"), full_page=True)

    # The draft waiting, previewed as the forum will show it; approve it.
    page.goto(desk.url + "drafts")
    article = page.locator(f"#draft-{waiting.id}")
    assert "【最终计票】第1日" in article.locator(".preview strong").first.inner_text()
    page.screenshot(path=str(ARTIFACTS / "desk-drafts.png"), full_page=True)
    article.locator(f'button[data-approve="{waiting.id}"]').click()
    page.wait_for_selector(".flash.ok")
    assert f"已批准 #{waiting.id}" in page.locator(".flash.ok").inner_text()
    assert page.locator("#none-waiting").is_visible()
    assert game.rt.outbox.get(waiting.id).state is DraftState.APPROVED

    # The agent publishes it; the open page notices by itself.
    game.agent.tick()
    page.wait_for_selector(f'#recent li[data-draft="{waiting.id}"][data-state="published"]')
    page.screenshot(path=str(ARTIFACTS / "desk-published.png"), full_page=True)

    published = game.rt.outbox.get(waiting.id)
    assert published.state is DraftState.PUBLISHED
    assert _finals_on_forum(game) == [published.pid]
    game.agent.tick()  # another pass must not send it again
    assert _finals_on_forum(game) == [published.pid]


def test_desk_browser__night_results_to_a_published_announcement(game, desk, page):
    """The night before day 2, entered in the browser; its announcement approved there."""
    page.goto(desk.url + "actions")
    form = page.locator("#form-night")
    form.locator('select[name="day"]').select_option("2")
    form.locator('select[name="players"]').first.select_option("汤圆")
    form.locator("button").click()
    # The confirm page names the effect before anything is recorded.
    assert "第2日前夜（" in page.locator("#confirm").inner_text()
    assert game.rt.store.night_result(2) is None
    page.locator("#confirm-button").click()
    flash = page.locator(".flash.ok").inner_text()
    assert "第2日前夜：汤圆" in flash
    draft_id = int(re.search(r"公示草稿 #(\d+)", flash).group(1))
    assert game.rt.store.night_result(2).out == ("汤圆",)

    page.goto(desk.url + "drafts")
    preview = page.locator(f"#draft-{draft_id} .preview").inner_text()
    assert "【公示】第2日" in preview and "汤圆" in preview
    page.locator(f'button[data-approve="{draft_id}"]').click()
    page.wait_for_selector(".flash.ok")
    page.screenshot(path=str(ARTIFACTS / "desk-announcement.png"), full_page=True)

    game.agent.tick()
    progress = game.world.tids["progress"]
    posted = [p for p in game.sim.posts(progress) if p.author == BOT and "【公示】第2日" in p.message]
    assert [p.pid for p in posted] == [game.rt.outbox.get(draft_id).pid]
    audit = [e for e in game.rt.store.audit_log() if e.actor in ("director", "director(desk)")]
    assert [(e.actor, e.action) for e in audit][-2:] == [("director", "event.night"),
                                                          ("director(desk)", "outbox.approved")]


def test_desk_browser__game_page_counts_down(game, desk, page):
    page.goto(desk.url)
    assert "第1日" in page.locator("h1").first.inner_text()
    assert "饺子" in page.locator("main").inner_text()  # the sheriff elected (on the tally)
    page.wait_for_function("document.querySelector('.countdown').textContent === '已截止'")
    page.screenshot(path=str(ARTIFACTS / "desk-now.png"), full_page=True)
    for name, heading in (("cards", "判罚提议"), ("activity", "每日发帖数"), ("actions", "夜晚结果"), ("log", "审计日志")):
        page.goto(desk.url + name)
        assert heading in page.locator("main").inner_text()
        page.screenshot(path=str(ARTIFACTS / f"desk-{name}.png"), full_page=True)
