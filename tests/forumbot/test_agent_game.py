"""A whole three-day game, end to end over real HTTP: the scripted players post on the
simulator, the agent reads, rules, tallies and drafts, the director approves, and every
post the bot made is checked on the simulator's side."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from forumbot.game import director
from forumbot.demo.play import Game, bot_posts, play, setup_game
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.store.marker import find_marker_in_text
from forumbot.demo.scenario import BOT, PASSWORD


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Game:
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    g = setup_game(tmp_path_factory.mktemp("game"))
    try:
        play(g)
        yield g
    finally:
        g.close()
        g.sim.stop()


def _bot_messages(game: Game, thread: str) -> list[str]:
    tid = game.world.tids[thread]
    return [p.message for p in game.sim.posts(tid) if p.author == BOT]


def test_agent_game__no_pass_reported_an_error(game):
    assert game.errors == []


def test_agent_game__every_bot_post_is_on_the_forum_once(game):
    posts = bot_posts(game)
    markers = [find_marker_in_text(m) for _, _, m in posts]
    assert None not in markers
    assert len(markers) == len(set(markers)), "a post was published twice"
    published = game.rt.outbox.drafts(DraftState.PUBLISHED)
    assert {d.pid for d in published} == {pid for _, pid, _ in posts}


def test_agent_game__one_final_count_per_day_in_its_vote_thread(game):
    for day in (1, 2, 3):
        finals = [m for m in _bot_messages(game, f"vote{day}") if "【最终计票】" in m]
        assert len(finals) == 1, day


def test_agent_game__day1_elects_the_sheriff(game):
    (final,) = [m for m in _bot_messages(game, "vote1") if "【最终计票】" in m]
    assert "[b]结果：饺子 当选警长[/b]" in final
    assert "[tr][td]饺子[/td][td]4[/td]" in final


def test_agent_game__day2_tie_settled_by_the_sheriff(game):
    (final,) = [m for m in _bot_messages(game, "vote2") if "【最终计票】" in m]
    assert "[tr][td]包子[/td][td]3[/td]" in final and "[tr][td]月饼[/td][td]3[/td]" in final
    assert "结果：包子 出局（平票：包子、月饼；警长投票对象出局）" in final
    # the sheriff's vote is linked to its floor and shows its weight
    assert re.search(r"\[url=" + re.escape(game.sim.base_url)
                     + r"forum\.php\?mod=redirect&goto=findpost&ptid=\d+&pid=\d+\]饺子\[/url\]\(2楼·×2\)", final)
    # the edit that changed 烧卖's target: the first-seen vote (包子) stands
    assert "]烧卖[/url](4楼)" in final.split("[tr][td]月饼")[0]
    assert "月饼：改票未引用原投票帖" in final  # change without a quote is void
    assert "小笼包：投票截止后发帖" in final  # the late vote
    assert "弃权：1" in final
    assert "未投票（1）：小笼包" in final


def test_agent_game__count_request_answered_with_a_quote(game):
    replies = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.COUNT_REPLY]
    assert len(replies) == 1
    message = game.sim.post(replies[0].pid).message
    assert f"pid={replies[0].quote_pid}" in message and "Alice 发表于" in message
    assert "@Alice 计票如下" in message


def test_agent_game__announcements_in_the_progress_thread(game):
    messages = _bot_messages(game, "progress")
    assert len(messages) == 2
    day2, day3 = messages
    assert "【公示】第2日" in day2 and "第1日投票结果：[b]饺子 当选警长[/b]" in day2
    assert "出局（按时间顺序）：\n1. 汤圆：出局（夜晚）\n" in day2
    # every out since the last announcement, in the order it took effect: the vote, then the night
    assert "【公示】第3日" in day3 and "第2日投票结果：[b]包子 出局（平票：包子、月饼；警长投票对象出局）[/b]" in day3
    assert "1. 包子：出局（投票）\n2. Alice：出局（夜晚）" in day3
    assert "现任警长：饺子" in day3


def test_agent_game__state_follows_the_results(game):
    state = director._state(game.rt)
    assert state.sheriff == "饺子"
    assert {p for p, _ in ((r.player, r.why) for r in state.out)} == {"汤圆", "包子", "Alice", "月饼"}


def test_agent_game__card_proposals_for_lurker_no_vote_and_zombie(game):
    proposals = game.rt.store.proposals()
    found = {(p.player, p.reason_code, p.day) for p in proposals}
    assert ("烧卖", "lurking_day", 1) in found
    assert ("小笼包", "no_vote", 2) in found
    assert any(p.player == "汤圆" and p.reason_code == "zombie" for p in proposals)


def test_agent_game__edit_flag_kept_for_the_director(game):
    tally = game.rt.store.tally(2).data
    edits = [f for f in tally["flags"] if f["kind"] == "edit" and f["player"] == "烧卖"]
    assert edits, tally["flags"]


def test_agent_game__no_password_in_database(game, tmp_path):
    raw = Path(game.rt.settings.agent.database).read_bytes()
    assert PASSWORD.encode() not in raw
