"""The demo game end to end on every forum the simulator serves — Discuz! X3.5, and the
seeds' own Discuz! 7.2 in UTF-8 and in GBK — over real HTTP: the same results, each bot
post on the forum once, links and quotes in the generation's own scheme, no alarm."""

from __future__ import annotations

import io
import os
import re
from contextlib import redirect_stdout
from datetime import timedelta

import pytest

from forumbot import demo
from forumbot.demo import Game, bot_posts, play, setup_game
from forumbot.marker import find_marker_in_text
from forumbot.outbox import DraftKind, DraftState
from forumbot.scenario import BOT, GAME_START, PASSWORD
from forumbot.simulator import SimClock, Simulator

FORUMS = [("x3", "utf-8"), ("7.2", "utf-8"), ("7.2", "gbk")]


@pytest.fixture(scope="module", params=FORUMS, ids=lambda f: "-".join(f))
def game(request, tmp_path_factory) -> Game:
    discuz, charset = request.param
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = SimClock(start=GAME_START - timedelta(minutes=20))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    g = setup_game(tmp_path_factory.mktemp(f"demo-{discuz}-{charset}"), clock=clock, sim=sim)
    try:
        play(g)
        yield g
    finally:
        g.close()
        g.sim.stop()


def finals(game: Game) -> dict[int, str]:
    return {d.day: game.sim.post(d.pid).message for d in game.rt.outbox.drafts(DraftState.PUBLISHED)
            if d.kind is DraftKind.FINAL_COUNT}


def test_demo_generations__no_error_no_alarm_every_post_once(game):
    assert game.errors == []
    assert game.rt.store.alarms(active=None) == []
    posts = bot_posts(game)
    markers = [find_marker_in_text(m) for _, _, m in posts]
    assert None not in markers and len(markers) == len(set(markers))
    assert {d.pid for d in game.rt.outbox.drafts(DraftState.PUBLISHED)} == {pid for _, pid, _ in posts}
    assert game.rt.outbox.pending() == []


def test_demo_generations__the_same_results(game):
    counts = finals(game)
    assert sorted(counts) == [1, 2, 3]
    assert "[b]结果：饺子 当选警长[/b]" in counts[1]
    assert "结果：包子 出局（平票：包子、月饼；警长投票对象出局）" in counts[2]
    assert "月饼：改票未引用原投票帖" in counts[2] and "小笼包：投票截止后发帖" in counts[2]
    assert "]bob_2[/url](11楼·改)" in counts[2]  # the change quoting his vote counts
    assert "[b]结果：月饼 出局[/b]" in counts[3]


def test_demo_generations__links_and_quotes_in_the_generations_scheme(game):
    text = "".join(m for _, _, m in bot_posts(game))
    if game.sim.discuz == "7.2":
        assert "redirect.php?goto=findpost&pid=" in text and "forum.php" not in text
    else:
        assert "forum.php?mod=redirect&goto=findpost" in text and "redirect.php?goto" not in text
    [reply] = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.COUNT_REPLY]
    message = game.sim.post(reply.pid).message
    quote = re.search(r"\[quote\](.*?)\[/quote\]", message, re.S).group(1)
    author_line = quote.index("Alice 发表于")
    excerpt = quote.index("计票，谢谢机器人")
    # 7.2 puts the author line after the excerpt; X3 before it.
    assert (excerpt < author_line) is (game.sim.discuz == "7.2")


def test_demo_generations__the_text_arrives_intact_in_the_forums_charset(game):
    announcement = next(d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.ANNOUNCEMENT)
    stored = game.sim.post(announcement.pid).message.replace("\r\n", "\n")
    assert announcement.body.strip() in stored
    assert all(p.author == BOT for p in [game.sim.post(d.pid) for d in game.rt.outbox.drafts(DraftState.PUBLISHED)])


def test_demo_generations__python_m_forumbot_demo_discuz_72_gbk():
    out = io.StringIO()
    with redirect_stdout(out):
        assert demo.main(["--discuz", "7.2", "--gbk", "--quiet", "--keep-serving", "0"]) == 0
    text = out.getvalue()
    assert "模拟的 Discuz! 7.2 论坛（GBK）" in text and "viewthread.php?tid=" in text
    assert "机器人发帖 9 篇" in text
