"""Once the game has ended (SPEC §10.4–10.5: 宣布阵营获得胜利会立即终止一切结算) the agent
plays no more of it: the day in which it ended drafts no count from that moment, a later
day is not read, counted or posted in — over real HTTP on the simulator, the demo's
eight-player game whose director ends it on day 2 (a surrender, say) — and a game the
director resumes is counted again. (A win in a night, with identities: test_demo_calendar.)"""

from __future__ import annotations

import os

import pytest

from forumbot.demo.play import Game, play, setup_game
from forumbot.demo.scenario import BOT, END, PASSWORD, at
from forumbot.game import ending
from forumbot.store.outbox import DraftKind, DraftState

ENDED = at(2, "14:00")


def _bot_posts(game: Game, key: str) -> list[str]:
    return [p.message for p in game.sim.posts(game.world.tids[key]) if p.author == BOT]


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    g = setup_game(tmp_path_factory.mktemp("after-end"))
    try:
        play(g, until=ENDED)
        ending.declare(g.rt, "good", "狼人投降", g.clock.now())
        before = {d.id for d in g.rt.outbox.drafts(*DraftState)}
        play(g, until=END)
        g.drafted_after = [d for d in g.rt.outbox.drafts(*DraftState) if d.id not in before]  # type: ignore[attr-defined]
        yield g
    finally:
        g.close()
        g.sim.stop()


def test_after_end__the_day_it_ended_in_drafts_no_count_from_then(game):
    assert game.errors == []
    assert [(d.kind, d.day) for d in game.drafted_after] == []
    finals = [d for d in game.rt.outbox.drafts(*DraftState) if d.kind is DraftKind.FINAL_COUNT]
    assert sorted(d.day for d in finals) == [1]
    assert not [m for m in _bot_posts(game, "vote2") if "【最终计票】" in m]


def test_after_end__a_later_day_is_not_read_counted_or_posted_in(game):
    assert game.rt.store.tally(3) is None
    assert game.rt.store.cursor(game.world.tids["vote3"]) is None  # never read
    assert _bot_posts(game, "vote3") == [] and _bot_posts(game, "talk3") == []


def test_after_end__resumed_the_game_is_counted_again(game):
    ending.resume(game.rt, "导演误操作，游戏继续", game.clock.now())
    game.clock.advance(minutes=10)
    game.agent.tick()
    assert game.rt.store.tally(3) is not None
    assert game.rt.store.cursor(game.world.tids["vote3"]) is not None
