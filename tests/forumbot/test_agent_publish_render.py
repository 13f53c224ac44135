"""A count says what is true when it is posted: running counts and 计票 answers are
rendered when published, not when drafted (the tally and the time left then), keep their
draft-time marker, and a body the director edited by hand goes out as edited. Over real
HTTP against the simulator, the agent ticking in this process on the game clock."""

from __future__ import annotations

from datetime import datetime
from typing import Callable

import pytest

from forumbot.game import director
from forumbot.demo.play import Game, setup_game
from forumbot.game.drafting import count_body, counts_only
from forumbot.game.state import state_for_day
from forumbot.store.marker import find_marker_in_text, strip_marker
from forumbot.store.outbox import Draft, DraftKind, DraftState
from forumbot.demo.scenario import BOT, PASSWORD, at
from forumbot.game.views import format_left


@pytest.fixture(autouse=True)
def _password(monkeypatch):
    monkeypatch.setenv("FORUMBOT_PASSWORD", PASSWORD)


def advance(game: Game, until: datetime, *, hold: Callable[[Draft], bool] = lambda d: False) -> None:
    """The demo's loop: players post what is due, the agent ticks, the director approves
    what waits except what ``hold`` keeps back; ten game minutes a pass, then one more
    pass at ``until`` (nothing new posted)."""
    game.agent.start()
    while game.clock.now() < until:
        game.driver.apply_due(game.clock.now())
        game.errors += game.agent.tick().errors
        for draft in director.waiting(game.rt):
            if not hold(draft):
                director.approve(game.rt, draft.id, game.clock.now())
        game.clock.advance(minutes=10)
    game.errors += game.agent.tick().errors


def bot_posts(game: Game, thread: str, marker: str | None = None) -> list:
    posts = [p for p in game.sim.posts(game.world.tids[thread]) if p.author == BOT]
    return [p for p in posts if marker is None or find_marker_in_text(p.message) == marker]


def rendered_at(game: Game, day: int, now: datetime, *, request_by: str | None = None) -> str:
    """The count as the agent renders it from the day's saved tally at ``now``."""
    rt = game.rt
    return count_body(rt.env, rt.store.tally(day).data, state=state_for_day(rt.config, rt.store, day),
                      rules=rt.config.rules, now=now, final=False,
                      hide_voters=counts_only(rt.config.rules, rt.settings.agent.counts_only),
                      request_by=request_by).strip()


def held(kind: DraftKind) -> Callable[[Draft], bool]:
    return lambda d: d.kind is kind


@pytest.fixture
def late_game(tmp_path):
    """Running counts wait for the director (manual) and come at most every ten hours,
    so the 10:00 draft is the only one for a long while."""
    game = setup_game(tmp_path, policies={"running_count": "manual"}, running_count_interval_minutes=600)
    yield game
    game.close()
    game.sim.stop()


def test_running_count__approved_late_shows_the_tally_and_time_left_of_its_publishing(late_game):
    game = late_game
    advance(game, at(1, "10:10"), hold=held(DraftKind.RUNNING_COUNT))
    (draft,) = director.waiting(game.rt)
    # (the client's spacing of requests moves the game clock by seconds: times are checked
    # to the minute the agent rendered them at)
    assert "[tr][td]包子[/td][td]1[/td]" in draft.body and "剩余 11小时" in draft.body
    advance(game, at(1, "12:20"), hold=held(DraftKind.RUNNING_COUNT))  # three more votes come in
    assert [d.id for d in director.waiting(game.rt)] == [draft.id], "no newer draft replaced it"

    director.approve(game.rt, draft.id, game.clock.now())
    game.agent.tick()

    (post,) = bot_posts(game, "vote1")
    assert find_marker_in_text(post.message) == draft.marker, "the draft-time marker stays"
    text = strip_marker(post.message).strip()
    published = game.rt.outbox.get(draft.id)
    assert published.state is DraftState.PUBLISHED and published.body.strip() == text, \
        "the record holds what was sent"
    sent_at = published.published_at
    assert at(1, "12:20") <= sent_at < at(1, "12:30")
    assert "[tr][td]饺子[/td][td]3[/td]" in text and "[tr][td]包子[/td][td]1[/td]" in text
    assert f"截至 {sent_at:%Y-%m-%d %H:%M}" in text
    assert f"剩余 {format_left(at(1, '21:30') - sent_at)}" in text and "剩余 9小时" in text
    assert "剩余 11小时" not in text
    assert text == rendered_at(game, 1, sent_at)
    assert any(h.detail.get("rendered_at_publish") for h in game.rt.outbox.history(draft.id))
    assert game.errors == []


def test_running_count__edited_by_hand_is_published_as_edited(late_game):
    game = late_game
    advance(game, at(1, "10:10"), hold=held(DraftKind.RUNNING_COUNT))
    (draft,) = director.waiting(game.rt)
    mine = draft.body.replace("【计票】", "【导演手动计票】")
    advance(game, at(1, "12:20"), hold=held(DraftKind.RUNNING_COUNT))
    director.approve(game.rt, draft.id, game.clock.now(), body=mine)
    game.agent.tick()
    (post,) = bot_posts(game, "vote1")
    assert strip_marker(post.message).strip() == mine.strip(), "the director's words, stale numbers and all"
    assert find_marker_in_text(post.message) == draft.marker


def test_running_count__not_sent_once_the_deadline_has_passed(late_game):
    """A running count still unsent at the deadline would publish the day's result
    before the director approved the final count: it is superseded instead."""
    game = late_game
    advance(game, at(1, "21:20"), hold=lambda d: True)
    waiting = [d for d in director.waiting(game.rt) if d.kind is DraftKind.RUNNING_COUNT]
    assert waiting
    game.clock.advance(minutes=10)  # the deadline; the final count is not drafted yet
    for d in waiting:
        director.approve(game.rt, d.id, game.clock.now())
    game.agent.tick()
    assert bot_posts(game, "vote1") == []
    for d in waiting:
        assert game.rt.outbox.get(d.id).state is DraftState.SUPERSEDED


def test_count_reply__answered_late_shows_the_tally_of_its_publishing(tmp_path):
    """Alice asks for a count at 14:00 on day 2; the answer, held until 16:10, shows the
    15:00 and 16:00 changes and still quotes and names her."""
    game = setup_game(tmp_path, policies={"count_reply": "manual"})
    try:
        advance(game, at(2, "14:10"), hold=held(DraftKind.COUNT_REPLY))
        (draft,) = [d for d in director.waiting(game.rt) if d.kind is DraftKind.COUNT_REPLY]
        advance(game, at(2, "16:10"), hold=held(DraftKind.COUNT_REPLY))
        director.approve(game.rt, draft.id, game.clock.now())
        game.agent.tick()
        (post,) = bot_posts(game, "vote2", draft.marker)
        sent_at = game.rt.outbox.get(draft.id).published_at
        want = rendered_at(game, 2, sent_at, request_by="Alice")
        assert post.message.startswith("[quote]"), "it still quotes her request"
        assert strip_marker(post.message).strip().endswith(want)
        assert want != draft.body.strip(), "the tally changed between 14:00 and 16:10"
        assert "@Alice" in want and f"截至 {sent_at:%Y-%m-%d %H:%M}" in want and "剩余 5小时" in want
    finally:
        game.close()
        game.sim.stop()


def test_running_count__the_next_one_is_due_when_the_tally_differs_from_the_published_one(late_game):
    """Rendering at publish time posts the newest tally; the agent must not then draft
    another count for the same tally just because the drafted one was older."""
    game = late_game
    advance(game, at(1, "10:10"), hold=held(DraftKind.RUNNING_COUNT))
    (draft,) = director.waiting(game.rt)
    advance(game, at(1, "12:20"), hold=held(DraftKind.RUNNING_COUNT))
    director.approve(game.rt, draft.id, game.clock.now())
    game.agent.tick()
    game.clock.advance(hours=7, minutes=50)  # 20:10: past the ten-hour interval, no new vote
    report = game.agent.tick()
    assert [d for d in report.drafts if d.kind is DraftKind.RUNNING_COUNT] == []
