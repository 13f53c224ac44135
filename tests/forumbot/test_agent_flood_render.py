"""Issue 18 #8a: after a flood-control wait the bot posted the text it had rendered before
the wait — a count missing the vote that came in meanwhile. The wait now comes before the
rendering: the forum refuses, nothing is stored, the agent waits the interval the forum
names, reads the threads again and publishes the count rendered then — once.

Over real HTTP against the simulator of each generation, the agent ticking in this
process on the game clock; the forum's flood control is its own (the bot posted a moment
before), and the vote "during the wait" is posted when the agent's clock sleeps it."""

from __future__ import annotations

from datetime import datetime

import pytest

from forumbot.game import director
from forumbot.demo.play import Game, setup_game
from forumbot.store.marker import find_marker_in_text, strip_marker
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import BOT, GAME_START, PASSWORD, at
from forumbot.simulator import SimClock, Simulator

FLOOD_WAIT = 10.0  # a sleep this long is the flood wait (the throttle's are ~2 s)


@pytest.fixture(autouse=True)
def _password(monkeypatch):
    monkeypatch.setenv("FORUMBOT_PASSWORD", PASSWORD)


class VoteDuringWait(SimClock):
    """The game clock; while the agent sleeps out flood control, a player votes."""

    def __init__(self, start: datetime) -> None:
        super().__init__(start)
        self.during_wait: list[callable] = []
        self.waits: list[float] = []

    def sleep(self, seconds: float) -> None:
        if seconds >= FLOOD_WAIT:
            self.waits.append(seconds)
            self.advance(seconds=seconds / 2)
            while self.during_wait:
                self.during_wait.pop(0)()
            self.advance(seconds=seconds / 2)
            return
        super().sleep(seconds)


@pytest.fixture(params=["x3", "7.2"])
def game(request, tmp_path):
    from datetime import timedelta

    clock = VoteDuringWait(GAME_START - timedelta(minutes=20))
    sim = Simulator(clock=clock, discuz=request.param)
    g = setup_game(tmp_path, clock=clock, sim=sim, policies={"running_count": "manual"},
                   running_count_interval_minutes=600)
    yield g
    g.close()
    g.sim.stop()


def advance(game: Game, until: datetime) -> None:
    """Players post what is due and the agent ticks, ten game minutes a pass; running
    counts wait for the director."""
    game.agent.start()
    while game.clock.now() < until:
        game.driver.apply_due(game.clock.now())
        game.errors += game.agent.tick().errors
        game.clock.advance(minutes=10)


def test_flood_wait__the_count_that_goes_out_has_the_vote_that_came_during_the_wait(game):
    vote = game.world.tids["vote1"]
    advance(game, at(1, "10:10"))  # 饺子 voted 包子 at 10:00: a running count waits
    [draft] = [d for d in director.waiting(game.rt) if d.kind is DraftKind.RUNNING_COUNT]
    assert "[tr][td]包子[/td][td]1[/td]" in draft.body and "饺子[/td]" not in draft.body
    director.approve(game.rt, draft.id, game.clock.now())

    # The bot's account posted a moment ago (the director, say, by hand): its next post
    # within 15 s is refused by the forum. While the agent waits, 包子 votes.
    game.agent.client.reply(vote, "机器人账号刚发的一帖，与计票无关。")
    game.clock.during_wait.append(lambda: game.sim.add_post(
        vote, "包子", "投票对象：饺子\n投票理由：饺子发言很稳", at=game.clock.now()))
    refused_before = game.sim.data.flood_refusals
    report = game.agent.tick()

    assert game.sim.data.flood_refusals == refused_before + 1, "the forum refused once"
    assert len(game.clock.waits) == 1 and game.clock.waits[0] >= 15
    counts = [p for p in game.sim.posts(vote) if p.author == BOT and find_marker_in_text(p.message)]
    [post] = counts  # one count on the forum: never posted twice
    assert find_marker_in_text(post.message) == draft.marker
    text = strip_marker(post.message).strip()
    assert "[tr][td]饺子[/td][td]1[/td]" in text, "the vote of the wait is in the count"
    assert "[tr][td]包子[/td][td]1[/td]" in text
    sent = game.rt.outbox.get(draft.id)
    assert sent.state is DraftState.PUBLISHED and sent.pid == post.pid
    assert sent.body.strip() == text, "the record holds what was sent"
    assert sent.attempts == 2
    history = game.rt.outbox.history(draft.id)
    assert any("FloodControl" in str(h.detail.get("error", "")) for h in history)
    assert history[-2].detail.get("rendered_at_publish"), "rendered again after the wait"
    assert report.errors == [] and game.errors == []
