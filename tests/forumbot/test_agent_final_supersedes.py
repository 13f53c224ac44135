"""Issue 18 #8b: a running count left waiting when the day ended stayed listed after the
final count (drafts, status, desk) — and could still go out after it. Once the day's final
count is drafted, every running count of the day not sent yet is superseded by it, with
the reason in its history and the audit, and is never posted.

Three ways a count is left waiting at the deadline, on each generation, over real HTTP
against the simulator: not approved (the director's policy), refused (a captcha), held
back behind a count post a moderator has not released."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from forumbot.game import director
from forumbot.game.announce import final_draft
from forumbot.demo.play import Game
from forumbot.desk import create_app
from forumbot.store.marker import find_marker_in_text
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import at
from tests.forumbot.alarm_support import cli, game_on

WAYS = {
    # how the count is kept from going out; the settings of that game
    "not_approved": {"policies": {"running_count": "manual"}},
    "refused": {},
    "held_for_moderation": {},
}


def _block(game: Game, way: str) -> None:
    if way == "refused":
        game.sim.settings.captcha_post = True
    elif way == "held_for_moderation":
        game.sim.settings.moderate_replies = True


def _unblock(game: Game, way: str) -> None:
    game.sim.settings.captcha_post = False
    game.sim.settings.moderate_replies = False
    for post in game.sim.held_posts():
        game.sim.release_post(post.pid)  # the moderator releases everything, at last


def advance(game: Game, until: datetime, *, approve: bool) -> None:
    while game.clock.now() < until:
        game.driver.apply_due(game.clock.now())
        game.errors += game.agent.tick().errors
        if approve:
            for draft in director.waiting(game.rt):
                director.approve(game.rt, draft.id, game.clock.now())
        game.clock.advance(minutes=10)
    game.errors += game.agent.tick().errors


def running_counts(game: Game, *states: DraftState) -> list:
    return [d for d in game.rt.outbox.drafts(*states) if d.kind is DraftKind.RUNNING_COUNT and d.day == 1]


@pytest.mark.parametrize("discuz", ["x3", "7.2"])
@pytest.mark.parametrize("way", list(WAYS))
def test_final_count__supersedes_the_running_counts_left_waiting(tmp_path, way, discuz):
    game = game_on(tmp_path, discuz, running_count_interval_minutes=600, **WAYS[way])
    try:
        game.agent.start()
        _block(game, way)
        advance(game, at(1, "21:20"), approve=False)  # just before the deadline
        left = running_counts(game, DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED)
        assert left, "a running count is left waiting at the deadline"
        assert final_draft(game.rt.outbox, 1) is None

        advance(game, at(1, "21:40"), approve=False)  # past the settle delay: the final count
        final = final_draft(game.rt.outbox, 1)
        assert final is not None
        assert running_counts(game, DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED) == []
        for draft in left:
            now = game.rt.outbox.get(draft.id)
            assert now.state is DraftState.SUPERSEDED and now.superseded_by == final.id
            why = game.rt.outbox.history(draft.id)[-1].detail["why"]
            assert f"第1日最终计票（#{final.id}）已代替它" in why
            [audit] = [e for e in game.rt.store.audit_log(action_prefix="outbox.superseded")
                       if e.detail.get("draft") == draft.id]
            assert audit.detail["why"] == why and audit.detail["by"] == final.id

        # Listed nowhere the director looks for work: drafts, status, the desk.
        listed = cli(game, "drafts").output + cli(game, "status").output
        app = create_app(game.rt.config.path, clock=game.clock, secret_key=b"k" * 32)
        app.testing = True
        desk = app.test_client().get("/drafts").get_data(as_text=True)
        work, _, recent = desk.partition("<h2>最近</h2>")  # the desk's history keeps it, marked
        listed += work
        # The captcha's alarm stands (the forum still asks one); it names the draft it met.
        listed = re.sub(r"论坛要求验证码.*?重发它", "", listed, flags=re.S)
        for draft in left:
            assert f'data-draft="{draft.id}" data-state="superseded">#{draft.id} 计票 第1日 · 已被取代' in recent
            assert not re.search(rf"#{draft.id}(?!\d)", listed), (draft.id, listed)
        assert re.search(rf"#{final.id}(?!\d)", listed)

        # The forum lets the bot post again; the director approves what waits: the final
        # count goes out, and none of the day's held-back counts after it.
        _unblock(game, way)
        advance(game, at(1, "22:30"), approve=True)
        assert game.rt.outbox.get(final.id).state is DraftState.PUBLISHED
        markers = {find_marker_in_text(p.message) for p in game.sim.posts(final.tid)}
        markers |= {find_marker_in_text(p.message) for p in game.sim.held_posts(final.tid)}
        for draft in left:
            assert draft.marker not in markers
            assert game.rt.outbox.get(draft.id).state is DraftState.SUPERSEDED
    finally:
        game.close()
        game.sim.stop()
