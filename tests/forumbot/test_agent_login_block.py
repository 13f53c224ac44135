"""A wrong password costs one of Discuz's five login tries per start, not one per publish
attempt (five failures lock every account behind the IP out for 15 minutes, players
included). Over real HTTP against the simulator: the agent keeps reading as a guest,
approved posts wait (not failed, not sent), and the refusal stays visible on the client
for the alarms to show."""

from __future__ import annotations

import os

import pytest

from forumbot.agent.loop import Agent

from forumbot.notify import Notifier
from forumbot.demo.play import play, setup_game
from forumbot.discuz.errors import LoginFailed
from forumbot.store.outbox import DraftState
from forumbot.game.runtime import make_client
from forumbot.demo.scenario import PASSWORD, at


@pytest.fixture
def wrong_password():
    saved = os.environ.get("FORUMBOT_PASSWORD")
    os.environ["FORUMBOT_PASSWORD"] = "not-the-password"
    yield
    os.environ["FORUMBOT_PASSWORD"] = saved if saved is not None else PASSWORD


def login_posts(game) -> int:
    return sum(1 for r in game.sim.requests if r.method == "POST" and r.query.get("action") == "login")


def test_agent_login_block__one_failed_login_per_start(tmp_path, wrong_password):
    game = setup_game(tmp_path)
    try:
        play(game, until=at(1, "23:30"))  # a whole day: counts drafted, approved, due to publish
        assert login_posts(game) == 1
        blocked = game.agent.client.login_blocked
        assert isinstance(blocked, LoginFailed) and "登录失败" in blocked.message
        drafts = game.rt.outbox.drafts()
        assert drafts and all(d.state is not DraftState.PUBLISHED for d in drafts)
        assert not any(d.state is DraftState.FAILED for d in drafts)  # waiting for the login
        assert game.rt.store.cursor(game.world.tids["vote1"]) is not None  # read as a guest
        assert game.world.bot_posts() == []
    finally:
        game.close()
        game.sim.stop()


def test_agent_login_block__a_fixed_password_and_a_restart_publish_what_waited(tmp_path, wrong_password):
    game = setup_game(tmp_path)
    try:
        play(game, until=at(1, "23:30"))
        waiting = [d.id for d in game.rt.outbox.drafts() if d.state in (DraftState.APPROVED, DraftState.PUBLISHING)]
        assert waiting
        os.environ["FORUMBOT_PASSWORD"] = PASSWORD
        game.agent = Agent(game.rt, make_client(game.rt), notifier=Notifier.for_agent)  # the operator restarts the agent
        game.agent.start()
        game.agent.tick()
        assert login_posts(game) == 2
        published = {d.id for d in game.rt.outbox.drafts() if d.state is DraftState.PUBLISHED}
        assert set(waiting) <= published
    finally:
        game.close()
        game.sim.stop()
