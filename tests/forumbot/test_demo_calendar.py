"""``python -m forumbot.demo`` plays the project's config.toml — fourteen players of
14人简易 with identities, a [calendar] and no [[days]] (SPEC §11) — over real HTTP on
Discuz! X3.5 and 7.2 GBK: the bot opens each day's threads (the demo director only
approves), reminds, closes and locks them; the players play the nights by PM, the bot
resolves each and the director confirms it; the wolves win in the third night and the
game stops there (issue 20's "done when"): no fourth day is opened, read or counted, the
morning announcement of that night says the game is over, then the end post reveals the
sealed deal — each post once."""

from __future__ import annotations

import os
from collections import Counter
from datetime import timedelta

import pytest

from forumbot.demo.nights import SHEET14, VILLAGE_NIGHTS, VILLAGE_WORDS, WOLVES
from forumbot.demo.play import EXAMPLE_CONFIG, Game, bot_posts, main, play, setup_game
from forumbot.demo.scenario import BOT, GAME_START, PASSWORD
from forumbot.simulator import SimClock, Simulator
from forumbot.store.marker import find_marker_in_text
from forumbot.store.outbox import DraftKind, DraftState
from tests.forumbot.nights_support import IDENTITY_WORDS, bot_said


@pytest.fixture(scope="module", params=[("x3", "utf-8"), ("7.2", "gbk")], ids=lambda f: "-".join(f))
def game(request, tmp_path_factory) -> Game:
    discuz, charset = request.param
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = SimClock(start=GAME_START - timedelta(minutes=20))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    g = setup_game(tmp_path_factory.mktemp(f"demo-cal-{discuz}"), clock=clock, sim=sim, config_source=EXAMPLE_CONFIG,
                   poll_interval_seconds=600, poll_jitter_seconds=60)
    try:
        assert g.rt.config.calendar is not None and all(d.vote_thread is None for d in g.rt.base_config.days)
        assert g.rt.config.identities is not None and len(g.rt.config.days) == 14  # one day per player at most
        play(g, confirm_nights=True)
        yield g
    finally:
        g.close()
        g.sim.stop()


def published(game: Game, kind: DraftKind) -> dict[int | None, str]:
    return {d.day: d.body for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is kind}


def test_demo_calendar__the_bot_opened_three_days_threads_once_and_no_fourth(game):
    assert game.errors == []
    assert game.rt.store.alarms(active=None) == []
    opened = [t for t in game.sim.data.threads.values() if t.author == BOT]
    assert len(opened) == 6 and not [t for t in game.sim.data.threads.values() if t.author != BOT]
    days = {d.number: d for d in game.rt.store.stored_days() if d.vote_thread is not None}
    assert sorted(days) == [1, 2, 3]
    assert {t.tid for t in opened} == {tid for d in days.values() for tid in (d.vote_thread, d.discussion_thread)}
    posts = bot_posts(game)
    markers = [find_marker_in_text(m) for _, _, m in posts]
    assert None not in markers and len(markers) == len(set(markers)), "a post was published twice"
    # the game ended in night 3: nothing of day 4 but its morning announcement was drafted
    day4 = [d for d in game.rt.outbox.drafts(*DraftState) if d.day == 4]
    assert [(d.kind, d.state) for d in day4] == [(DraftKind.ANNOUNCEMENT, DraftState.PUBLISHED)]
    assert game.rt.store.tally(4) is None
    assert game.rt.outbox.pending() == [] and not game.rt.store.night_proposal(4)


def test_demo_calendar__reminded_closed_and_locked(game):
    for n, day in {d.number: d for d in game.rt.store.stored_days() if d.vote_thread is not None}.items():
        mine = [p.message for p in game.sim.posts(day.vote_thread) if p.author == BOT]
        assert sum("【提醒】" in m for m in mine) == 2, n
        assert sum("【截止】" in m for m in mine) == 1, n
        assert sum("【最终计票】" in m for m in mine) == 1, n
        assert game.sim.data.thread(day.vote_thread).closed and day.locked_at is not None


def test_demo_calendar__the_scripted_days(game):
    finals = published(game, DraftKind.FINAL_COUNT)
    assert sorted(finals) == [1, 2, 3]
    assert "结果：饺子 当选警长" in finals[1]
    assert "麻花：改票未引用原投票帖" in finals[1] and "汤圆[/url](19楼·改)" in finals[1]
    assert "结果：包子 出局" in finals[2] and "粽子：投票截止后发帖" in finals[2]
    assert "结果：Carol 出局" in finals[3]
    [flag] = [f for f in game.rt.store.tally(2).data["flags"] if f["kind"] == "edit"]
    assert flag["player"] == "烧卖"  # the edit after the bot saw the vote: first seen stands


def test_demo_calendar__the_nights_by_pm_to_the_wolves_win(game):
    proposals = {p.night: p for p in game.rt.store.night_proposals()}
    assert {n: (p.state, tuple(p.data["out"])) for n, p in proposals.items()} == {
        n: ("confirmed", out) for n, out in VILLAGE_NIGHTS.items()}
    assert proposals[1].data["marks"] == ["馄饨"]  # 指杀第一次无效
    assert [p.data["win"] for p in proposals.values()][:2] == [None, None]
    assert proposals[3].data["win"]["faction"] == "狼人阵营"
    assert [t for t in bot_said(game, "小笼包") if "预言：" in t] == [
        "第1晚 预言：包子 —— 非村民阵营", "第2晚 预言：月饼 —— 非村民阵营"]
    assert "未计入：杀人 粽子（行动者已出局：包子 已出局）" in bot_said(game, "包子")
    for who in SHEET14:  # each told their identity once
        assert len([t for t in bot_said(game, who) if "你的身份" in t]) == 1, who


def test_demo_calendar__announcements_carry_the_nights_and_the_last_words(game):
    notes = published(game, DraftKind.ANNOUNCEMENT)
    assert sorted(notes) == [2, 3, 4]
    assert "昨夜平安夜" in notes[2]
    assert "我是好人，你们投错了。" in notes[3] and "女巫毒错人了" in notes[3] and "[b]女巫" not in notes[3]
    assert "我是女巫，第二晚毒的是春卷" in notes[4]
    assert "游戏结束：狼人阵营获胜" in notes[4] and "第4日投票截止" not in notes[4]
    asked = [who for who in SHEET14 if any("可以留下遗言" in t for t in bot_said(game, who))]
    assert sorted(asked) == sorted(["包子", "小笼包", "春卷", "Carol"])  # the first four out: as many as the wolves
    assert set(VILLAGE_WORDS) <= set(asked)


def test_demo_calendar__the_end_post_once_after_the_last_announcement(game):
    posts = game.rt.outbox.drafts(DraftState.PUBLISHED)
    [end] = [d for d in posts if d.kind is DraftKind.GAME_END]
    [last] = [d for d in posts if d.kind is DraftKind.ANNOUNCEMENT and d.day == 4]
    assert last.pid < end.pid
    text = game.sim.post(end.pid).message
    assert "【游戏结束】狼人阵营获胜" in text and all(f"{who}：{SHEET14[who]}" in text for who in WOLVES)
    kinds = Counter(d.kind for d in posts)
    assert kinds[DraftKind.GAME_END] == 1 and kinds[DraftKind.SEALED_DEAL] == 1


def test_demo_calendar__no_identity_in_a_public_post_before_the_end(game):
    end = next(d.pid for d in game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.GAME_END)
    for key, pid, message in bot_posts(game):
        if pid == end:
            continue
        # the last words are the players' own (a witch may say she is one); the rest is the bot's
        own = message.replace("狼人阵营获胜", "")  # the winner (a faction) is no one's identity
        for words in VILLAGE_WORDS.values():
            own = own.replace(words.removeprefix("遗言 ").replace("[b]", "").replace("[/b]", ""), "")
        assert not [w for w in IDENTITY_WORDS if w in own], (key, pid, message)


def test_demo_calendar__python_m_forumbot_demo(capsys):
    assert main(["--quiet", "--keep-serving", "0"]) == 0
    out = capsys.readouterr().out
    assert "14 名玩家" in out and "直到一方获胜" in out
    assert "第3晚（第1版，已确认）：出局 馄饨；狼人阵营获胜" in out
    assert "【游戏结束】狼人阵营获胜" in out
