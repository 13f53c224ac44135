"""The desk in headless Chromium on a game kept in a store (no forum needed): entering an
out shows its effect before anything is recorded, the confirmation applies it, the
events page undoes it and the tally is back; no list preselects a player; the game
time fills in as SPEC §9 says; the page refreshes itself except while a form is being
edited; the banners; nothing wider than a phone.

Needs Debian's ``chromium`` and Playwright's Python client, as ``test_desk_browser``.
"""

from __future__ import annotations

import re
import time

import pytest

from forumbot.desk import start_desk
from forumbot.store.outbox import DraftKind
from tests.forumbot.game_support import at, store_game
from tests.forumbot.test_desk_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _need_browser
from tests.forumbot.test_desk_chinese import PLAYERS

PHONE = {"width": 390, "height": 844}
POLL = 0.4  # seconds between the desk's own refreshes


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
def game(tmp_path, monkeypatch):
    """Day 1 at noon: three votes for 汤圆, one for 包子; the desk served on it."""
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    g = store_game(tmp_path, "simple14", players=PLAYERS)
    g.vote(1, "10:00", "包子", "汤圆")
    g.vote(1, "10:10", "月饼", "汤圆")
    g.vote(1, "10:15", "Alice", "汤圆")
    g.vote(1, "10:20", "汤圆", "包子")
    g.at(at(1, "12:00"))
    desk = start_desk(g.rt.config.path, port=0, clock=g.clock, poll_seconds=POLL)
    g.desk = desk
    try:
        yield g
    finally:
        desk.stop()
        g.close()


@pytest.fixture
def page(browser):
    p = browser.new_page()
    try:
        yield p
    finally:
        p.close()


def _counts(page, url: str) -> str:
    page.goto(url + "tally?day=1")
    return page.locator("#counts").inner_text()


def _width(page) -> tuple[int, int]:
    return tuple(page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]"))


def test_desk_confirm_browser__out_confirmed_then_undone_and_the_tally_is_back(game, page):
    url = game.desk.url
    before = _counts(page, url)
    assert re.search(r"汤圆\s*3", before)

    page.goto(url + "actions")
    form = page.locator("#form-out")
    assert form.locator('select[name="player"]').input_value() == ""  # nobody preselected
    form.locator('select[name="player"]').select_option("汤圆")
    form.locator('select[name="why"]').select_option("hunter")
    assert form.locator('input[name="at"]').input_value()[:16] == "2026-12-01T12:00"  # a daytime out: now
    form.locator('input[name="at"]').fill("2026-12-01T11:00")
    form.locator("button").click()

    confirm = page.locator("#confirm")
    text = confirm.inner_text()
    assert "将记录：" in text and "汤圆 被猎人带走" in text
    assert "结果改变：" in text and "汤圆 当选警长" in text  # the election's result changes
    assert "有效，不计入（投票对象截止前已出局）" in text
    page.screenshot(path=str(ARTIFACTS / "desk-confirm-out.png"), full_page=True)
    assert _width(page)[0] <= PHONE["width"]
    assert _counts(page.context.new_page(), url) == before  # nothing recorded yet (seen from another tab)
    page.locator("#confirm-button").click()
    assert "已记录事件 #" in page.locator(".flash.ok").inner_text()
    after = _counts(page, url)
    assert after != before and not re.search(r"汤圆\s*3", after)

    page.goto(url + "events")
    row = page.locator("#events tr[data-live='1']").first
    assert "汤圆 被猎人带走" in row.inner_text() and "12-01 11:00" in row.inner_text() and "导演" in row.inner_text()
    row.locator("details.undo summary").click()
    row.locator('input[name="why"]').fill("手误，不是汤圆")
    row.locator("button").click()
    assert "确认：撤销事件" in page.locator("#confirm h1").inner_text()
    assert "汤圆 当选警长" in page.locator("#confirm").inner_text()
    page.screenshot(path=str(ARTIFACTS / "desk-confirm-undo.png"), full_page=True)
    page.locator("#confirm-button").click()
    assert "已撤销事件 #" in page.locator(".flash.ok").inner_text()
    assert _counts(page, url) == before


def test_desk_confirm_browser__no_list_preselects_a_player(game, page):
    for path in ("actions", "cards"):
        page.goto(game.desk.url + path)
        values = page.evaluate("""Array.from(document.querySelectorAll(
            'select[name=player], select[name=players]')).map(s => s.value)""")
        assert values and set(values) == {""}, (path, values)


def test_desk_confirm_browser__game_time_follows_the_cause(game, page):
    game.at(at(1, "22:00"))  # day 1's vote is over
    page.goto(game.desk.url + "actions")
    form = page.locator("#form-out")
    why, day, when = form.locator('select[name="why"]'), form.locator('select[name="day"]'), form.locator('input[name="at"]')
    why.select_option("vote")
    # (Chromium shows a time with :00 seconds without them)
    assert (day.input_value(), when.input_value()[:16]) == ("1", "2026-12-01T21:30")  # its deadline
    why.select_option("night")
    assert (day.input_value(), when.input_value()[:16]) == ("2", "2026-12-02T09:00")  # the next morning
    why.select_option("lover")
    assert when.input_value()[:16] == "2026-12-01T22:00"  # now
    when.fill("2026-12-01T20:05")
    why.select_option("hunter")
    assert when.input_value()[:16] == "2026-12-01T20:05"  # typed by the director: kept


def _refreshes(page) -> int:
    return int(page.evaluate("Number(document.body.dataset.refreshed || 0)"))


def _new_draft(game, n: int) -> None:
    game.rt.outbox.create_draft(DraftKind.ANNOUNCEMENT, 1, f"公示 {n}", now=game.clock.now(), day=1)


def _wait_for_refresh(page, since: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _refreshes(page) > since:
            return True
        page.wait_for_timeout(100)
    return False


def test_desk_confirm_browser__refresh_pauses_only_while_a_form_is_edited(game, page):
    page.goto(game.desk.url + "actions")
    assert page.evaluate("document.body.dataset.refresh") == "live"
    _new_draft(game, 1)
    assert _wait_for_refresh(page, 0), "the page refreshes itself"
    assert "1 篇帖子待审批" in page.locator("#waiting").inner_text()

    # Typing: paused, whatever changes on the server.
    note = page.locator("#form-void input[name='note']")
    note.click()
    note.type("串号")
    assert page.evaluate("document.body.dataset.refresh") == "paused"
    seen = _refreshes(page)
    _new_draft(game, 2)
    assert not _wait_for_refresh(page, seen, seconds=POLL * 5)
    assert note.input_value() == "串号"  # what the director typed is still there

    # Left the field with the text still in it: still paused (it would be lost).
    page.locator("h1").first.click()
    assert page.evaluate("document.body.dataset.pausedBy") == "dirty"
    assert not _wait_for_refresh(page, seen, seconds=POLL * 4)

    # Cleared (back to how it was served) and left: refreshing resumes by itself.
    note.fill("")
    page.locator("h1").first.click()
    assert _wait_for_refresh(page, seen), "refreshing resumes once the form is left unchanged"
    assert "2 篇帖子待审批" in page.locator("#waiting").inner_text()

    # A choice in a list counts as editing too; choosing the empty entry again resumes it.
    # (The old desk stopped refreshing for good once anything had been typed.)
    seen = _refreshes(page)
    player = page.locator("#form-out select[name='player']")
    player.select_option("包子")
    page.locator("h1").first.click()
    _new_draft(game, 3)
    assert not _wait_for_refresh(page, seen, seconds=POLL * 4)
    player.select_option("")
    page.locator("h1").first.click()
    assert _wait_for_refresh(page, seen)
    assert "3 篇帖子待审批" in page.locator("#waiting").inner_text()


def test_desk_confirm_browser__banners_and_phone_width(game, page):
    game.approve_final(1, at(1, "21:40"))  # 汤圆 elected; the night before day 2 not entered
    game.at(at(1, "23:00"))
    url = game.desk.url
    page.goto(url)
    waiting = page.locator("#waiting").inner_text()
    assert "第2日前夜的结果尚未录入" in waiting and "forumbot" not in waiting
    assert "代理程序从未在这局游戏上运行过" in page.locator("#agent-alarm").inner_text()
    page.locator("#waiting a", has_text="第2日前夜").click()
    assert page.url.endswith("/actions#night")
    widths = {}
    for path in ("", "actions", "events", "log", "drafts", "cards", "tally?day=1"):
        page.goto(url + path)
        widths[path or "now"] = _width(page)
        page.screenshot(path=str(ARTIFACTS / f"desk-phone-{(path or 'now').split('?')[0]}.png"), full_page=True)
    # the confirm page and an event row with its undo form open
    page.goto(url + "actions")
    form = page.locator("#form-night")
    form.locator('select[name="players"]').first.select_option("包子")
    form.locator("button").click()
    widths["confirm"] = _width(page)
    page.locator("#confirm-button").click()
    page.goto(url + "events")
    page.locator("#events details.undo summary").first.click()
    widths["events-undo"] = _width(page)
    page.screenshot(path=str(ARTIFACTS / "desk-phone-events-undo.png"), full_page=True)
    wide = {name: w for name, w in widths.items() if w[0] > w[1]}
    assert wide == {}, wide
