"""The demo game end to end on every forum the simulator serves — Discuz! X3.5, and the
seeds' own Discuz! 7.2 in UTF-8 and in GBK — over real HTTP: the same results, each bot
post on the forum once, links and quotes in the generation's own scheme, no alarm."""

from __future__ import annotations

import io
import os
import re
from contextlib import redirect_stdout
from datetime import timedelta

import httpx
import pytest
from lxml import html as lxml_html

from forumbot.demo import play as demo
from forumbot.demo.play import Game, bot_posts, play, setup_game
from forumbot.store.marker import find_marker_in_text
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import BOT, GAME_START, PASSWORD
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
    base = game.sim.base_url
    if game.sim.discuz == "7.2":
        assert f"[url={base}redirect.php?goto=findpost&pid=" in text and "forum.php" not in text
    else:
        assert f"[url={base}forum.php?mod=redirect&goto=findpost" in text and "redirect.php?goto" not in text
    # Never relative (7.2 shows such a tag as raw text) — but for X3's quote block, which
    # is the one X3's own reply form writes (relative: X3 puts its address before it).
    ours = re.sub(r"\[quote\].*?\[/quote\]", "", text, flags=re.S) if game.sim.discuz == "x3" else text
    assert "[url=forum.php" not in ours and "[url=redirect.php" not in ours
    [reply] = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.COUNT_REPLY]
    message = game.sim.post(reply.pid).message
    quote = re.search(r"\[quote\](.*?)\[/quote\]", message, re.S).group(1)
    author_line = quote.index("Alice 发表于")
    excerpt = quote.index("计票，谢谢机器人")
    # 7.2 puts the author line after the excerpt; X3 before it.
    assert (excerpt < author_line) is (game.sim.discuz == "7.2")


def _findpost(game: Game, tid: int, pid: int) -> str:
    if game.sim.discuz == "7.2":
        return f"redirect.php?goto=findpost&pid={pid}&ptid={tid}"
    return f"forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}"


def test_demo_generations__every_link_in_a_count_is_a_link_on_the_page_to_its_post(game):
    """Issue 18 #7: on a real 7.2 every voter link of a count stayed raw text. Each count
    the bot posted, read back from the forum's own thread page: every link is an
    ``<a href>``, and following it lands on the post it names (its author or its floor)."""
    counts = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED)
              if d.kind in (DraftKind.RUNNING_COUNT, DraftKind.FINAL_COUNT, DraftKind.COUNT_REPLY)]
    assert len(counts) >= 6
    checked = 0
    with httpx.Client(base_url=game.sim.base_url, timeout=10) as web:
        for draft in counts:
            page = web.get(_findpost(game, draft.tid, draft.pid), follow_redirects=True)
            tree = lxml_html.fromstring(page.content)
            [body] = tree.xpath(f'//td[@id="postmessage_{draft.pid}"]')
            assert "[url" not in body.text_content() and "[/url]" not in body.text_content()
            message = game.sim.post(draft.pid).message
            links = body.xpath(".//a")
            assert len(links) == message.count("[url=") > 0
            for a in links:
                href = a.get("href")
                assert href.startswith(game.sim.base_url), href
                landing = web.get(href)
                assert landing.status_code in (301, 302)  # X3 answers 301, 7.2 302
                pid = int(landing.headers["location"].rsplit("#pid", 1)[1])
                target = game.sim.post(pid)
                label = a.text_content()
                if a.xpath("ancestor::blockquote"):  # the quote of a 计票 request
                    assert pid == draft.quote_pid
                elif label.endswith("楼"):  # a void vote, or a card's floor
                    assert f"{target.position}楼" == label
                else:  # a voter: the link is his post, its floor after it
                    assert target.author == label
                    assert (a.tail or "").startswith(f"({target.position}楼")
                checked += 1
    assert checked > 20


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
    # config.toml's 14-player game to the wolves' win: 3 final counts, 3 announcements, a
    # running count a day edited in place, a 计票 answer, the seal and the end post + the
    # calendar's (SPEC §11): 6 threads opened, 6 reminders, 3 closing posts
    assert "机器人发帖 27 篇" in text and "【游戏结束】狼人阵营获胜" in text
