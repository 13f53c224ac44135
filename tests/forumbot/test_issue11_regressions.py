"""Issue 11's "Why" list, tried as a director would, through the calls that existed before
events had game times (``director.record_night``/``reveal_idiot``/``set_sheriff``/
``give_card``, the agent's ``draft_final_count``/``apply_result``, ``count_day``): each
test here failed on that code and passes now. ``test_game_over_time`` covers the same
ground through the new game log.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from engine.acceleration import is_request
from engine.activity import ProposalKind, propose_cards
from forumbot.game import director
from forumbot.agent.loop import Agent, TickReport, final_draft
from forumbot.notify import Notifier
from forumbot.game.state import ballots_for, count_day, current_state
from tests.forumbot.game_support import at, store_game, talk_tid, vote_tid


def close_day(g, day: int, approve_at: datetime) -> None:
    """The agent drafts the day's final count after the deadline; the director approves
    it at ``approve_at``; the agent's next pass makes its result game state."""
    agent = Agent(g.rt, None, notifier=Notifier.for_agent)  # no forum needed for these steps
    when = at(day, "21:40")
    g.at(when)
    counted = count_day(g.rt.config, g.rt.store, day)
    window = counted.state.day(day)
    agent.draft_final_count(counted.state, window, counted.data, when, TickReport(at=when))
    draft = final_draft(g.rt.outbox, day)
    g.at(approve_at)
    director.approve(g.rt, draft.id, approve_at)
    agent.apply_result(window, count_day(g.rt.config, g.rt.store, day).data, approve_at)


def ruling(tally: dict, pid: int) -> dict:
    (vote,) = [v for v in tally["votes"] if v["pid"] == pid]
    return vote


@pytest.fixture
def game(tmp_path, request):
    ruleset, sheriff = request.param
    g = store_game(tmp_path, ruleset, sheriff=sheriff)
    yield g
    g.close()


@pytest.mark.parametrize("game", [("dual", None)], indirect=True)
def test_why__dual_first_identity_is_not_out(game):
    """双身份 is not playable: losing the first identity was recorded as being out. The seed:
    仅失去一层身份的角色还能继续参与讨论、投票."""
    for i, who in enumerate(("饺子", "汤圆", "月饼")):
        game.vote(2, f"1{i}:00", who, "包子")
    close_day(game, 2, at(2, "21:45"))
    mine = game.vote(3, "10:00", "包子", "月饼")
    theirs = game.vote(3, "10:05", "月饼", "包子")
    game.talk(3, "10:10", "包子", "我还在")
    tally = count_day(game.rt.config, game.rt.store, 3).data
    assert ruling(tally, mine)["reason"] is None and ruling(tally, theirs)["reason"] is None
    assert not [f for f in tally["flags"] if f["kind"] == "zombie"]


@pytest.mark.parametrize("game", [("s10", "饺子")], indirect=True)
def test_why__s10_idiot_stays_in(game):
    """``forumbot idiot 烧卖`` then approving the count that voted him out left him out. The
    seed: 白痴可发动技能免于投票出局."""
    for i, who in enumerate(("饺子", "汤圆", "月饼")):
        game.vote(2, f"1{i}:00", who, "烧卖")
    director.reveal_idiot(game.rt, "烧卖", game.at(at(2, "21:35")))
    close_day(game, 2, at(2, "21:50"))
    mine = game.vote(3, "10:00", "烧卖", "月饼")
    theirs = game.vote(3, "10:05", "包子", "烧卖")
    tally = count_day(game.rt.config, game.rt.store, 3).data
    assert (ruling(tally, mine)["reason"], ruling(tally, mine)["weight"]) == (None, 0)
    assert ruling(tally, theirs)["reason"] is None


@pytest.mark.parametrize("game", [("simple14", "饺子")], indirect=True)
def test_why__vote_out_approved_late_still_takes_effect_at_the_deadline(game):
    """A player voted out on day 2 whose final count is approved at noon on day 3 voted
    validly at 10:00 on day 3."""
    for i, who in enumerate(("包子", "汤圆", "小笼包")):
        game.vote(2, f"1{i}:00", who, "月饼")
    early = game.vote(3, "10:00", "月饼", "包子")
    close_day(game, 2, at(3, "12:00"))
    tally = count_day(game.rt.config, game.rt.store, 3).data
    assert ruling(tally, early)["reason"] == "voter_out"


@pytest.mark.parametrize("game", [("simple14", "饺子")], indirect=True)
def test_why__night_victim_entered_at_noon_is_out_from_the_morning(game):
    """A night victim entered at 12:00 voted validly at 10:00, and two votes for them
    turned the day into a false 2–2 tie."""
    game.vote(3, "09:30", "包子", "月饼")
    game.vote(3, "09:40", "小笼包", "月饼")
    game.vote(3, "09:50", "月饼", "汤圆")
    game.vote(3, "09:55", "烧卖", "汤圆")
    theirs = game.vote(3, "10:00", "汤圆", "包子")
    director.record_night(game.rt, 3, ["汤圆"], game.at(at(3, "12:00")))
    tally = count_day(game.rt.config, game.rt.store, 3).data
    assert ruling(tally, theirs)["reason"] == "voter_out"
    assert (tally["result"]["out"], tally["result"]["tie"]) == ("月饼", [])


@pytest.mark.parametrize("game", [("simple14", "饺子")], indirect=True)
def test_why__red_card_before_the_deadline_comes_before_the_vote(game):
    """白天红牌罚下在被投票出局之前 was ignored: a player red-carded at 20:00 with the most
    votes was still "voted out" and their own vote still counted."""
    for i, who in enumerate(("包子", "汤圆", "小笼包")):
        game.vote(2, f"1{i}:00", who, "月饼")
    game.vote(2, "13:00", "烧卖", "包子")
    own = game.vote(2, "14:00", "月饼", "包子")
    director.give_card(game.rt, "月饼", "red", "恶意刷屏", game.at(at(2, "20:00")))
    tally = count_day(game.rt.config, game.rt.store, 2).data
    assert tally["result"]["out"] == "包子"
    assert tally["counts"] == {"包子": 1}
    assert ruling(tally, own)["counted"] is False
    assert not {"包子", "汤圆", "小笼包"} & set(tally["non_voters"])


@pytest.mark.parametrize("game", [("simple14", "饺子")], indirect=True)
def test_why__a_dead_sheriff_is_no_sheriff(game):
    """The announcement said 现任警长：饺子 for a player killed in the night, running counts
    weighed him ×2 (here: his vote before the night was entered), and ``forumbot sheriff``
    accepted an out player as successor."""
    director.record_night(game.rt, 2, ["饺子"], game.at(at(2, "08:00")))
    draft = director.announcement_draft(game.rt, 2, at(2, "08:00"))
    assert "现任警长：饺子" not in draft.body and "警长：空缺" in draft.body
    game.vote(2, "10:00", "包子", "月饼")
    tally = count_day(game.rt.config, game.rt.store, 2).data
    assert [v["weight"] for v in tally["votes"]] == [1] and tally["sheriff_going_in"] is None
    with pytest.raises(director.DirectorError):
        director.set_sheriff(game.rt, "饺子", game.at(at(2, "10:30")))


@pytest.mark.parametrize("game", [("s10", "饺子")], indirect=True)
def test_why__a_revealed_idiot_is_no_successor(game):
    """S10: 已发动【若愚】的白痴除外 — ``forumbot sheriff`` accepted a revealed idiot."""
    for i, who in enumerate(("饺子", "汤圆", "月饼")):
        game.vote(2, f"1{i}:00", who, "烧卖")
    director.reveal_idiot(game.rt, "烧卖", game.at(at(2, "21:35")))
    close_day(game, 2, at(2, "21:50"))
    director.record_night(game.rt, 3, ["饺子"], game.at(at(2, "23:00")))
    with pytest.raises(director.DirectorError):
        director.set_sheriff(game.rt, "烧卖", game.at(at(2, "23:10")))


@pytest.mark.parametrize("game", [("simple14", "饺子")], indirect=True)
def test_why__announcements_list_daytime_outs(game):
    """Announcements omitted daytime outs that were not the vote (a lover following, a
    hunter's shot)."""
    director.put_out(game.rt, "汤圆", "other", game.at(at(2, "15:00")))
    director.record_night(game.rt, 3, ["小笼包"], game.at(at(2, "23:00")))
    draft = director.announcement_draft(game.rt, 3, at(2, "23:00"))
    assert "汤圆" in draft.body.split("现任警长")[0] and "小笼包" in draft.body


@pytest.mark.parametrize("game", [("dual", None)], indirect=True)
def test_why__dual_announcement_says_identity_death(game):
    """双身份's 身份死亡 vs 出局 could not be said."""
    director.record_night(game.rt, 2, ["包子"], game.at(at(2, "08:00")))
    draft = director.announcement_draft(game.rt, 2, at(2, "08:00"))
    assert "身份死亡" in draft.body and not current_state(game.rt.config, game.rt.store).is_out("包子")


@pytest.mark.parametrize("text", ["我不想加速", "没必要加速", "不用加速", "谁申请加速了？"])
def test_why__negations_and_questions_are_not_requests(text):
    """「我不想加速」「没必要加速」「不用加速」「谁申请加速了？」 were all counted as requests."""
    assert not is_request(text)


@pytest.mark.parametrize("game", [("simple14", "饺子")], indirect=True)
def test_why__a_day_without_a_discussion_thread_proposes_no_lurking(tmp_path, game):
    """A day configured without a discussion thread proposed a lurking card for every
    living player ("0 discussion posts")."""
    from dataclasses import replace

    state = current_state(game.rt.config, game.rt.store)
    state = replace(state, days=tuple(replace(d, discussion_thread=None) for d in state.days))
    game.vote(2, "10:00", "包子", "月饼")
    ballots = ballots_for(game.rt.store, [(vote_tid(2), "vote"), (talk_tid(2), "discussion")])
    kinds = {p.kind for p in propose_cards(ballots, state, 2, game.rt.config.rules)}
    assert ProposalKind.LURKING_DAY not in kinds and ProposalKind.LURKING_SPAN not in kinds
