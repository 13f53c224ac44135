"""The agent down all night: the director enters the night while no agent runs, and the
agent comes back only after the previous day has left its active window. The morning's
announcement must still be drafted (it was drafted only while the day before was
active, so an agent down longer than the grace after that day's deadline — or one slow
enough on a loaded machine in the crash test — never drafted it)."""

from __future__ import annotations

from forumbot.demo.harness import play_in_process, published_kinds
from forumbot.demo.scenario import PASSWORD, at, demo_plan
from forumbot.store.outbox import DraftKind


def test_agent_down_across_the_night__the_morning_announcement_is_still_drafted(tmp_path, monkeypatch):
    monkeypatch.setenv("FORUMBOT_PASSWORD", PASSWORD)
    # Day 2's final count is out by 22:00; the night is entered at 23:00; the agent is back
    # at 04:00, after day 2's deadline + 6 h, when only day 3 is ahead.
    down = (at(2, "22:20"), at(3, "04:00"))
    played = play_in_process(demo_plan(), tmp_path, agent_down=lambda now: down[0] <= now < down[1])
    try:
        kinds = published_kinds(played.rt.outbox)
        assert kinds[(DraftKind.FINAL_COUNT.value, 2)] == 1, kinds
        assert kinds[(DraftKind.ANNOUNCEMENT.value, 3)] == 1, kinds
        assert played.errors == []
    finally:
        played.close()
