"""``python -m forumbot.demo`` plays the project's config.toml — a [calendar] and no
[[days]] (SPEC §11): the bot opens each day's threads (the demo director only approves),
reminds, closes and locks them, and the game comes out as scripted. X3.5 and 7.2 GBK."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

from forumbot.demo.play import EXAMPLE_CONFIG, Game, bot_posts, play, setup_game
from forumbot.demo.scenario import BOT, GAME_START, PASSWORD
from forumbot.simulator import SimClock, Simulator
from forumbot.store.marker import find_marker_in_text
from forumbot.store.outbox import DraftKind, DraftState


@pytest.fixture(scope="module", params=[("x3", "utf-8"), ("7.2", "gbk")], ids=lambda f: "-".join(f))
def game(request, tmp_path_factory) -> Game:
    discuz, charset = request.param
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = SimClock(start=GAME_START - timedelta(minutes=20))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    g = setup_game(tmp_path_factory.mktemp(f"demo-cal-{discuz}"), clock=clock, sim=sim, config_source=EXAMPLE_CONFIG,
                   poll_interval_seconds=600, poll_jitter_seconds=60)
    try:
        assert g.rt.config.calendar is not None and all(d.vote_thread is None for d in g.rt.base_config.days)
        play(g)
        yield g
    finally:
        g.close()
        g.sim.stop()


def test_demo_calendar__the_bot_opened_every_days_threads_once(game):
    assert game.errors == []
    opened = [t for t in game.sim.data.threads.values() if t.author == BOT]
    assert len(opened) == 6 and not [t for t in game.sim.data.threads.values() if t.author != BOT]
    days = {d.number: d for d in game.rt.store.stored_days()}
    assert sorted(days) == [1, 2, 3]
    assert {t.tid for t in opened} == {tid for d in days.values() for tid in (d.vote_thread, d.discussion_thread)}
    posts = bot_posts(game)
    markers = [find_marker_in_text(m) for _, _, m in posts]
    assert None not in markers and len(markers) == len(set(markers)), "a post was published twice"


def test_demo_calendar__reminded_closed_and_locked(game):
    for n, day in {d.number: d for d in game.rt.store.stored_days()}.items():
        mine = [p.message for p in game.sim.posts(day.vote_thread) if p.author == BOT]
        assert sum("【提醒】" in m for m in mine) == 2, n
        assert sum("【截止】" in m for m in mine) == 1, n
        assert sum("【最终计票】" in m for m in mine) == 1, n
        assert game.sim.data.thread(day.vote_thread).closed and day.locked_at is not None


def test_demo_calendar__the_scripted_results(game):
    finals = {d.day: d.body for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.FINAL_COUNT}
    assert "结果：饺子 当选警长" in finals[1]
    assert "结果：包子 出局" in finals[2] and "小笼包：投票截止后发帖" in finals[2]
    assert "结果：月饼 出局" in finals[3]
