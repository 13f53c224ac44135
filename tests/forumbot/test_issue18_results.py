"""Issue 18, "wrong results", over real HTTP on the simulator with the agent running.

* The last day's vote-out is game state even when the director approves that day's
  final count by PM the next morning: the pass that reads the PM publishes the count and
  ends the game, and no later pass looks at that day again (``Agent.active_days`` drops a
  day whose final count is out more than six hours after its deadline; ``serve`` stops
  passing a game once it is over). The result used to be recorded only while the agent
  still processed the day, so ``events`` and ``status`` missed it.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from click.testing import CliRunner

from forumbot.game import director
from forumbot.cli import main as cli
from forumbot.game.clock import AcceleratedClock
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from forumbot.demo.scenario import at
from tests.forumbot.notify_support import notify_game


@pytest.fixture
def last_day_waiting(tmp_path):
    """The demo game (14人简易, three days) played to the morning after day 3, every post
    approved on the desk as it comes except day 3's final count, which waits for the
    director's PM."""
    ng = notify_game(tmp_path, "x3", start=at(1, "08:40"))
    try:
        while ng.clock.now() < at(4, "08:00"):  # ten and a half hours after day 3's deadline
            ng.tick(timedelta(minutes=30))
            for draft in director.waiting(ng.rt):
                if not (draft.kind is DraftKind.FINAL_COUNT and draft.day == 3):
                    director.approve(ng.rt, draft.id, ng.clock.now())
        yield ng
    finally:
        ng.close()


def test_last_day__vote_out_approved_by_pm_the_next_morning_is_recorded(last_day_waiting, monkeypatch):
    ng = last_day_waiting
    final = ng.draft(DraftKind.FINAL_COUNT, 3)
    assert final.state is DraftState.DRAFT
    assert "[b]结果：月饼 出局[/b]" in final.body  # 饺子 (sheriff, ×2), bob_2, 小笼包: 4 against 2
    ng.says(f"批准 {ng.code_of(final)}")
    ng.tick()  # reads the PM, approves, publishes: the last day's count is out, the game is over
    assert ng.rt.outbox.get(final.id).state is DraftState.PUBLISHED
    ng.tick()
    events = [e for e in ng.rt.store.events() if e.day == 3 and e.payload.get("source") == "result"]
    assert [(e.kind.value, e.payload["player"], e.game_at) for e in events] == [("out", "月饼", at(3, "21:30"))]

    config = str(ng.rt.config.path)
    monkeypatch.setenv(CLOCK_ENV, clock_to_env(AcceleratedClock(origin=ng.clock.now(), factor=1.0)))
    shown = CliRunner().invoke(cli, ["status", "--config", config], catch_exceptions=False)
    assert "月饼（投票出局）" in shown.output, shown.output
    listed = CliRunner().invoke(cli, ["events", "--config", config], catch_exceptions=False)
    assert "月饼" in listed.output and "投票" in listed.output, listed.output
