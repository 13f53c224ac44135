"""``forumbot serve`` reading what changed from the boards' listings, over real HTTP on the
simulator: an idle poll costs one listing request per board for every game on the
account and no thread read; a new vote is read right after the listing shows it; an
edit on an earlier page (which moves nothing in the listing) is in the next edit sweep's
count, and always in the final count; a board the bot may not list falls back to
per-thread polling, said once."""

from __future__ import annotations

import logging
from datetime import timedelta

from forumbot.demo.scenario import BOT, GAME_START
from forumbot.game.runtime import open_runtime
from tests.forumbot.service_support import served, wait_for


def _reads(sim, since: int) -> tuple[list, list]:
    """The bot's listing and thread-page requests since request number ``since``."""
    mine = [r for r in sim.requests[since:] if r.method == "GET" and r.user == BOT]
    listings = [r for r in mine if r.query.get("mod") == "forumdisplay"]
    threads = [r for r in mine if r.query.get("mod") == "viewthread"]
    return listings, threads


def _tally(s, name: str, day: int = 1) -> dict:
    rt = open_runtime(s.game(name).config, clock=s.clock)
    try:
        snap = rt.store.tally(day)
        return snap.data if snap is not None else {}
    finally:
        rt.close()


def _target_of(s, name: str, pid: int) -> str | None:
    for vote in _tally(s, name).get("votes", []):
        if vote["pid"] == pid:
            return vote["target"]
    return None


def _edit_flagged(s, name: str, pid: int) -> bool:
    """The day's count says the vote of ``pid`` was edited to another target (the first-seen
    text stands: counting does not change, the director is told)."""
    return any(f["pid"] == pid and f["kind"] == "edit" for f in _tally(s, name).get("flags", []))


def _settled(s) -> None:
    """Every game read, counted and its running count out; then the listings' turn."""
    wait_for(lambda: len(s.many.bot_posts()) == len(s.many.games), timeout=120)
    listings = s.service.listings
    wait_for(lambda: s.service.listings > listings + 3, timeout=60)


def test_service_boards__an_idle_poll_costs_one_listing_per_board(tmp_path):
    s = served(tmp_path, 3, names=["一", "二", "三"], edit_sweep_minutes=600).start(desk=False)
    try:
        _settled(s)
        before, listings = len(s.sim.requests), s.service.listings
        wait_for(lambda: s.service.listings >= listings + 5, timeout=60)
        got, threads = _reads(s.sim, before)
        assert len(got) >= 4  # one board: one listing request per poll
        assert threads == []  # nothing moved: no thread was read
        # A new vote in game 二: its voting thread is read after the listing shows it,
        # and only it; the tally takes the vote.
        game = s.game("二")
        voter, target = game.plan.players[6], game.plan.players[0]
        before = len(s.sim.requests)
        pid = game.vote(voter, target)
        wait_for(lambda: _target_of(s, "二", pid) == target, timeout=60)
        _, threads = _reads(s.sim, before)
        assert {int(r.query["tid"]) for r in threads} == {game.tids["vote1"]}
        assert s.errors == []
    finally:
        s.stop()


def test_service_boards__an_edit_on_an_earlier_page_is_in_the_next_sweep(tmp_path):
    s = served(tmp_path, 2, names=["甲", "乙"], posts=40, edit_sweep_minutes=10).start(desk=False)
    try:
        _settled(s)
        game = s.game("甲")
        sim = s.sim
        vote_tid = game.tids["vote1"]
        first = next(p for p in sim.posts(vote_tid) if not p.first and "投票对象" in p.message)
        assert (len(sim.posts(vote_tid)) + 9) // 10 >= 2  # the vote thread has more than one page
        old = _target_of(s, "甲", first.pid)
        new = next(p for p in game.plan.players if p not in (old, first.author))
        assert not _edit_flagged(s, "甲", first.pid)
        edited_at = s.clock.now()
        sim.edit_post(first.pid, f"投票对象：{new}\n投票理由：改一下目标")
        wait_for(lambda: _edit_flagged(s, "甲", first.pid), timeout=60)
        # Within one sweep of the edit (the listing did not move: only the sweep reads it),
        # with a loaded machine's margin; the first-seen target still counts.
        assert s.clock.now() - edited_at <= timedelta(minutes=15)
        assert _target_of(s, "甲", first.pid) == old
        assert s.errors == []
    finally:
        s.stop()


def test_service_boards__an_edit_after_the_last_sweep_is_in_the_final_count(tmp_path):
    # The deadline 20 game minutes away, sweeps far apart: the edit is caught by the
    # deadline's re-read of the whole day, which comes before every final count.
    s = served(tmp_path, 1, names=["丙"], posts=40, deadline=timedelta(hours=2, minutes=20),
               edit_sweep_minutes=600).start(desk=False)
    try:
        _settled(s)
        game = s.game("丙")
        sim = s.sim
        first = next(p for p in sim.posts(game.tids["vote1"]) if not p.first and "投票对象" in p.message)
        old = _target_of(s, "丙", first.pid)
        new = next(p for p in game.plan.players if p not in (old, first.author))
        sim.edit_post(first.pid, f"投票对象：{new}\n投票理由：截止前改")
        deadline = GAME_START + timedelta(hours=2, minutes=20)
        assert s.clock.now() < deadline
        assert not _edit_flagged(s, "丙", first.pid)  # nothing read it yet

        def final_count() -> str | None:
            rt = open_runtime(game.config, clock=s.clock)
            try:
                from forumbot.store.outbox import DraftKind

                found = [d for d in rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT]
                return found[-1].body if found else None
            finally:
                rt.close()

        wait_for(final_count, timeout=120)
        assert _edit_flagged(s, "丙", first.pid)
        assert _target_of(s, "丙", first.pid) == old
        assert s.errors == []
    finally:
        s.stop()


def test_service_boards__a_board_hidden_from_the_bot_is_polled_thread_by_thread(tmp_path, caplog):
    s = served(tmp_path, 2, names=["丁", "戊"], edit_sweep_minutes=600)
    fid = next(iter(s.sim.data.boards))
    s.sim.bar_guests(fid)
    s.sim.settings.forumdisplay_off = True  # a theme without the thread list
    caplog.set_level(logging.INFO, logger="forumbot.service")
    s.start(desk=False)
    try:
        wait_for(lambda: len(s.many.bot_posts()) == 2, timeout=120)
        before = len(s.sim.requests)
        passes = s.service.passes
        wait_for(lambda: s.service.passes > passes + 10, timeout=60)
        _, threads = _reads(s.sim, before)
        assert threads  # per-thread polling goes on
        said = [r for r in caplog.records if "主题列表读不到" in r.getMessage()]
        assert len(said) == 1  # said once, not every pass
        game = s.game("戊")
        pid = game.vote(game.plan.players[7], game.plan.players[1])
        wait_for(lambda: _target_of(s, "戊", pid) == game.plan.players[1], timeout=60)
        assert s.errors == []
    finally:
        s.stop()
