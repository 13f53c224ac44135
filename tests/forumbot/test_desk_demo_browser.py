"""The whole demo game run from the browser alone (issue 7, "done when").

``python -m forumbot.demo --desk`` in-process: the scripted players post on the simulator,
the agent counts on the game's clock, and the game clock stands still while a manual
draft waits or a scripted night has not been entered. The director is headless Chromium
at phone width: it watches the drafts page (which refreshes itself), previews and
approves each waiting final count and announcement, and enters the nights' results in
the desk's night form when the game says it waits for them. At the end every post is
checked on the simulator's side and every approval and night in the audit log.

Needs Debian's ``chromium`` and Playwright's Python client (never ``playwright
install``); a missing browser FAILS this test, as in ``test_desk_browser``.
"""

from __future__ import annotations

import os
import re
import threading
import time
import traceback
from dataclasses import dataclass, field

import pytest

from forumbot.demo.play import EXAMPLE_CONFIG, Game, desk_waits, play, setup_game, start_browser_director
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import classic_config, demo_plan, BOT, PASSWORD, at
from tests.forumbot.test_desk_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _need_browser

PHONE = {"width": 390, "height": 844}
POLL_SECONDS = 0.5  # how often the desk's pages refresh themselves
NIGHTS = {2: "汤圆", 3: "Alice"}  # the scripted nights: day → who died the night before
# What each day's final count decides (SPEC: day 1 elects the sheriff; day 2 is a tie the
# sheriff's vote settles), as the forum post and the desk's preview both say it.
RESULTS = {1: "饺子 当选警长", 2: "包子 出局（平票：包子、月饼；警长投票对象出局）", 3: "月饼 出局"}
WALL_BUDGET_S = 600.0  # a hang guard for the whole game (it takes ~60 s; a loaded machine is slower)


class Said:
    """The demo's messages to its director (a file for ``print``), readable from another thread."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            self._parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def text(self) -> str:
        with self._lock:
            return "".join(self._parts)


class Abandoned(Exception):
    """The browser director gave up (the test failed): the game thread stops."""


@dataclass
class Approval:
    draft_id: int
    kind: str  # as the desk shows it: 最终计票, 公示
    day: int
    preview: str


@dataclass
class Run:
    game: Game
    approvals: list[Approval] = field(default_factory=list)
    nights: list[tuple[int, str, int]] = field(default_factory=list)  # (day, out, announcement draft)
    widths: dict[str, tuple[int, int]] = field(default_factory=dict)  # page → (scrollWidth, innerWidth)
    footers: dict[str, str] = field(default_factory=dict)  # page → its "game time · refresh" line
    agent: str = ""  # what the desk's first page says about the agent
    said: str = ""


def _start_game(game: Game, said: Said, stop: threading.Event) -> tuple[threading.Thread, list[str]]:
    """``play`` as ``main(["--desk"])`` runs it, in a thread (the browser is the director)."""
    waiting = desk_waits(game, said)
    failures: list[str] = []

    def wait_for_director() -> bool:
        if stop.is_set():
            raise Abandoned
        return waiting()

    def run() -> None:
        try:
            play(game, approve=False, wait_for_director=wait_for_director)
        except Abandoned:
            pass
        except BaseException:  # reported by the test, not lost in a thread
            failures.append(traceback.format_exc())

    thread = threading.Thread(target=run, name="demo-game", daemon=True)
    thread.start()
    return thread, failures


def _measure(page, name: str, run: Run) -> None:
    """A phone-width screenshot, and whether the page is wider than the screen."""
    page.screenshot(path=str(ARTIFACTS / f"desk-demo-{name}.png"), full_page=True)
    run.widths[name] = tuple(page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]"))
    run.footers[name] = page.locator("#live > p.small").inner_text()


def _enter_night(page, desk_url: str, day: int, run: Run) -> None:
    page.goto(desk_url + "actions")
    form = page.locator("#form-night")
    form.locator('select[name="day"]').select_option(str(day))
    form.locator('select[name="players"]').first.select_option(NIGHTS[day])
    form.locator("button").click()
    assert f"第{day}日前夜" in page.locator("#confirm").inner_text()
    page.locator("#confirm-button").click()
    flash = page.locator(".flash.ok").inner_text()
    assert f"第{day}日前夜：{NIGHTS[day]}" in flash, flash
    draft_id = int(re.search(r"公示草稿 #(\d+)", flash).group(1))
    run.nights.append((day, NIGHTS[day], draft_id))


def _approve(page, desk_url: str, draft_id: int, run: Run) -> None:
    article = page.locator(f"#draft-{draft_id}")
    heading = re.match(r"#(\d+) (\S+) · 第(\d+)日", article.locator("h2").inner_text())
    assert heading, article.locator("h2").inner_text()
    kind, day = heading.group(2), int(heading.group(3))
    preview = article.locator(".preview")
    text = preview.inner_text()
    if kind == "最终计票":
        assert f"【最终计票】第{day}日" in text and RESULTS[day] in text, text
        # the count table is rendered, not shown as BBCode
        table = preview.locator("table.bb-table")
        assert table.count() >= 1 and "[tr]" not in text
        assert table.first.locator("tr").count() >= 2
        if day == 2:  # the tie: the director looks at the tally before approving
            page.goto(desk_url + "tally?day=2")
            assert re.search(r"包子\s*3", page.locator("#counts").inner_text())
            _measure(page, "tally", run)
            page.goto(desk_url + "drafts")
            _measure(page, "drafts", run)
            article = page.locator(f"#draft-{draft_id}")
    elif kind == "公示":
        assert f"【公示】第{day}日" in text and NIGHTS[day] in text, text
    elif kind == "新帖":  # the demo is a [calendar] game: the bot opens each day's threads
        assert f"第{day}日" in text and ("投票格式" in text or "讨论" in text), text
    else:
        pytest.fail(f"draft #{draft_id} ({kind}, day {day}) should not wait for the director: {text}")
    article.locator(f'button[data-approve="{draft_id}"]').click()
    page.wait_for_selector(".flash.ok")
    assert f"已批准 #{draft_id}" in page.locator(".flash.ok").inner_text()
    run.approvals.append(Approval(draft_id, kind, day, text))


def _direct(page, desk_url: str, run: Run, said: Said, thread: threading.Thread) -> None:
    """Act as the director until the game is over: enter the nights the game waits for,
    approve what appears on the (self-refreshing) drafts page."""
    started = time.monotonic()
    page.goto(desk_url)
    run.agent = page.locator("#agent").inner_text()
    page.goto(desk_url + "drafts")
    while thread.is_alive():
        assert time.monotonic() - started < WALL_BUDGET_S, (
            f"the game did not finish in {WALL_BUDGET_S:.0f} s; game time {run.game.clock.now()}; "
            f"the demo said:\n{said.text()}")
        entered = {day for day, _, _ in run.nights}
        due = [int(d) for d in re.findall(r"第(\d+)日前的夜晚等待你录入", said.text())
               if int(d) not in entered]
        if due:
            _enter_night(page, desk_url, due[0], run)
            page.goto(desk_url + "drafts")
            continue
        button = page.locator("#live button[data-approve]").first
        if button.count():
            _approve(page, desk_url, int(button.get_attribute("data-approve")), run)
            continue
        page.wait_for_timeout(100)  # the page refreshes itself; look again shortly


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Run:
    sync_playwright = _need_browser()
    ARTIFACTS.mkdir(exist_ok=True)
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    folder = tmp_path_factory.mktemp("desk-demo")
    # The eight-player script whose nights the director enters on the desk, on config.toml's calendar
    game = setup_game(folder, config_source=classic_config(EXAMPLE_CONFIG, folder / "classic.toml"), plan=demo_plan(),
                      poll_interval_seconds=600, poll_jitter_seconds=60)
    said = Said()
    stop = threading.Event()
    desk = start_browser_director(game, said, port=0, poll_seconds=POLL_SECONDS)
    thread, failures = _start_game(game, said, stop)
    result = Run(game)
    try:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM), headless=True,
                args=CHROMIUM_ARGS, viewport=PHONE, locale="zh-CN")
            context.set_default_timeout(15_000)
            try:
                _direct(context.new_page(), desk.url, result, said, thread)
            finally:
                context.close()
        thread.join(timeout=30)
        assert not failures, failures[0]
        result.said = said.text()
        yield result
    finally:
        stop.set()
        thread.join(timeout=30)
        desk.stop()
        game.close()
        game.sim.stop()


def _bot_posts(game: Game, thread: str, marker: str) -> list:
    return [p for p in game.sim.posts(game.world.tids[thread]) if p.author == BOT and marker in p.message]


def test_desk_demo_browser__director_approved_every_wait_in_the_browser(run):
    assert [(a.kind, a.day) for a in run.approvals if a.kind != "新帖"] == [
        ("最终计票", 1), ("公示", 2), ("最终计票", 2), ("公示", 3), ("最终计票", 3)]
    # config.toml is a [calendar] game: each day's voting and discussion threads, opened
    # by the bot once the director approved them on the desk
    assert sorted(a.day for a in run.approvals if a.kind == "新帖") == [1, 1, 2, 2, 3, 3]
    assert [(day, out) for day, out, _ in run.nights] == list(NIGHTS.items())
    # the announcement each night drafted is the one approved next
    assert [d for _, _, d in run.nights] == [a.draft_id for a in run.approvals if a.kind == "公示"]
    assert "第2日前的夜晚等待你录入" in run.said and "第3日前的夜晚等待你录入" in run.said
    assert run.game.rt.outbox.awaiting_approval() == []
    assert run.game.errors == []


@pytest.mark.parametrize("day", [1, 2, 3], ids=["day1-sheriff", "day2-tie", "day3"])
def test_desk_demo_browser__final_count_once_in_its_vote_thread(run, day):
    game = run.game
    (final,) = _bot_posts(game, f"vote{day}", "【最终计票】")
    assert f"结果：{RESULTS[day]}" in final.message
    (approved,) = [a for a in run.approvals if a.kind == "最终计票" and a.day == day]
    draft = game.rt.outbox.get(approved.draft_id)
    assert draft.state is DraftState.PUBLISHED and draft.pid == final.pid
    others = [t for t in game.world.tids if t != f"vote{day}"]
    assert not [p for t in others for p in _bot_posts(game, t, f"【最终计票】第{day}日")]


def test_desk_demo_browser__final_counts_carry_the_tally(run):
    game = run.game
    (day1,) = _bot_posts(game, "vote1", "【最终计票】")
    assert "[tr][td]饺子[/td][td]4[/td]" in day1.message
    (day2,) = _bot_posts(game, "vote2", "【最终计票】")
    assert "[tr][td]包子[/td][td]3[/td]" in day2.message and "[tr][td]月饼[/td][td]3[/td]" in day2.message


def test_desk_demo_browser__announcements_once_in_their_thread(run):
    """A [calendar] game has no progress thread: each morning's announcement goes to the
    thread its draft names (the day before's discussion thread), once, and nowhere else."""
    game = run.game
    published = sorted((d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.ANNOUNCEMENT),
                       key=lambda d: d.day)
    announcements = [game.sim.post(d.pid).message for d in published]
    assert len(announcements) == 2
    day2, day3 = announcements
    assert "【公示】第2日" in day2 and "1. 汤圆：出局（夜晚）" in day2 and "饺子 当选警长" in day2
    assert "【公示】第3日" in day3 and "1. 包子：出局（投票）\n2. Alice：出局（夜晚）" in day3
    assert sorted(d.id for d in published) == [d for _, _, d in run.nights]
    everywhere = [p for t in {t.tid for t in game.sim.data.threads.values()} for p in game.sim.posts(t)
                  if p.author == BOT and "【公示】" in p.message]
    assert sorted(p.pid for p in everywhere) == sorted(d.pid for d in published)


def test_desk_demo_browser__audit_shows_the_director_for_every_approval_and_night(run):
    log = run.game.rt.store.audit_log()
    manual = {a.draft_id for a in run.approvals}
    # an approval moves a draft out of 'draft'; a flood-control wait puts a publishing draft
    # back to 'approved' (the bot's entry, from 'publishing'): not an approval
    approvals = [e for e in log if e.action == "outbox.approved" and e.detail.get("from") == "draft"
                 and e.detail.get("draft") in manual]
    assert sorted(e.detail["draft"] for e in approvals) == sorted(manual)  # each approved once
    assert {e.actor for e in approvals} == {"director(desk)"}  # approved on the desk, and the audit says so
    nights = [e for e in log if e.action == "event.night"]
    assert [(e.actor, e.detail["day"]) for e in nights] == [("director", 2), ("director", 3)]
    # nobody but the director approved a draft that waited for approval
    waited = {d.id for d in run.game.rt.outbox.drafts(DraftState.PUBLISHED)
              if d.kind in (DraftKind.FINAL_COUNT, DraftKind.ANNOUNCEMENT, DraftKind.NEW_THREAD)}
    assert waited == manual


@pytest.mark.parametrize("name", ["tally", "drafts"])
def test_desk_demo_browser__phone_width_has_no_horizontal_overflow(run, name):
    scroll_width, inner_width = run.widths[name]
    assert inner_width == PHONE["width"]
    assert scroll_width <= inner_width, f"{name}: {scroll_width}px wide on a {inner_width}px screen"
    assert (ARTIFACTS / f"desk-demo-{name}.png").stat().st_size > 0


def test_desk_demo_browser__game_clock_stands_still_while_the_final_count_waits(run):
    """Both pages were seen while day 2's final count waited: the same game minute,
    after day 2's deadline, and they say how often they refresh."""
    times = {name: re.search(r"游戏时间 (\S+ \S+)", footer).group(1) for name, footer in run.footers.items()}
    assert set(times) == {"tally", "drafts"}
    assert times["tally"] == times["drafts"]
    assert times["tally"].startswith(at(2, "21:00").strftime("%Y-%m-%d %H:")), times
    for footer in run.footers.values():
        assert f"每 {POLL_SECONDS:g} 秒自动刷新" in footer


def test_desk_demo_browser__the_desk_shows_the_demo_agent_running(run):
    assert "代理程序运行中" in run.agent and "从未" not in run.agent
    assert "代理程序的导演台：http://127.0.0.1:" in run.agent
