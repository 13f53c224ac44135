"""遗言 by PM (SPEC §10.5, issue 20 item 4) in the 14人简易 game of forumbot.demo.nights over
real HTTP on the simulator (Discuz! X3.5 UTF-8 and 7.2 GBK, whose PM view shows the words
rendered, not as typed): the first four out (as many as the wolves) are
asked once, when their out is recorded; the words go into the next morning announcement
as plain text (Discuz codes removed: 遗言中禁止使用Discuz!代码), kept once and never
changed; the announcement waits for them; a declined 遗言 shows nothing; the words are
secret until the announcement that carries them goes out."""

from __future__ import annotations

import os
import tempfile
from html import unescape
from datetime import timedelta
from pathlib import Path

import pytest

from forumbot.demo.play import pm_director, play_by_pm, setup_game
from forumbot.demo.scenario import PASSWORD
from forumbot.simulator import SimClock, Simulator
from forumbot.store.outbox import DraftKind, DraftState
from tests.forumbot.nights_support import DIRECTOR, MARKER, NightsGame, body, words_plan


@pytest.fixture(scope="module", params=[("x3", "utf-8"), ("7.2", "gbk")], ids=["x3", "d72-gbk"])
def ng(request):
    discuz, charset = request.param
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    plan = words_plan()
    clock = SimClock(start=plan.days[0].start - timedelta(minutes=20))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    game = setup_game(Path(tempfile.mkdtemp(prefix="forumbot-words-")), clock=clock, sim=sim, plan=plan,
                      notify={"enabled": True})
    director = pm_director(game)
    play_by_pm(game, director)
    found = NightsGame(game, director)
    yield found
    found.close()


def said(ng: NightsGame, who: str) -> list[str]:
    return [body(m.text) for m in ng.bot_pms(who)]


def announcements(ng: NightsGame) -> dict[int, str]:
    return {d.day: d.body for d in ng.game.rt.outbox.drafts(DraftState.PUBLISHED) if d.kind is DraftKind.ANNOUNCEMENT}


def test_last_words__the_holders_are_asked_once(ng):
    assert ng.game.errors == []
    for who in ("汤圆", "包子", "春卷"):
        asked = [t for t in said(ng, who) if "可以留下遗言" in t]
        assert len(asked) == 1, (who, said(ng, who))
    # 月饼 is out on the last day (no morning after it); the living are never asked
    for who in ("月饼", "麻花", "饺子"):
        assert not [t for t in said(ng, who) if "可以留下遗言" in t], who
    assert {(w.night, w.player) for w in ng.game.rt.store.last_words()} == {(1, "汤圆"), (2, "包子"), (2, "春卷")}


def test_last_words__each_message_is_answered_and_the_words_never_change(ng):
    assert "已收到：遗言，将在第2日公示中公布（不能修改）" in said(ng, "汤圆")
    assert "未计入：遗言（遗言已经收到，不能修改）" in said(ng, "汤圆")
    assert "已收到：放弃遗言" in said(ng, "包子")
    assert "未公布：遗言（第3日公示已经发出，遗言没能公布，已告知导演）" in said(ng, "春卷")
    assert "未计入：遗言（你现在没有可以留的遗言）" in said(ng, "麻花")
    kept = {w.player: (w.text, w.late) for w in ng.game.rt.store.last_words()}
    assert kept == {"汤圆": ("我是好人，大家看月饼\n再见😀", False), "包子": ("", False), "春卷": ("太晚了", True)}


def test_last_words__in_the_next_morning_announcement_as_plain_text(ng):
    published = announcements(ng)
    assert "遗言：\n汤圆：\n我是好人，大家看月饼\n再见😀" in published[2]
    assert "我改主意了" not in published[2]
    # a declined 遗言 shows nothing; words after the announcement went out are never posted
    assert "遗言" not in published[3] and "太晚了" not in published[3]
    assert not [p for p in ng.game.world.bot_posts() if "太晚了" in p[2]]
    # plain text: none of the words' codes reached the forum
    for post in ng.game.world.bot_posts():
        if "我是好人" in post[2]:
            assert "[color=red]" not in post[2] and "[url" not in post[2] and "http://127.0.0.1/x" not in post[2]
            assert "a.png" not in post[2] and "[size=5]" not in post[2]
            assert "再见😀" in unescape(post[2])  # 7.2 GBK: 😀 goes as &#128512;, which Discuz shows as 😀


def test_last_words__the_announcement_waited_for_them_and_went_out_once(ng):
    drafts = [d for d in ng.game.rt.outbox.drafts() if d.kind is DraftKind.ANNOUNCEMENT]
    # the words came while nothing was drafted yet: no draft had to be superseded for them
    for day in (2, 3):
        sent = [d for d in drafts if d.day == day and d.state is DraftState.PUBLISHED]
        assert len(sent) == 1, day
    posts = [p for p in ng.game.world.bot_posts() if "我是好人" in p[2]]
    assert len(posts) == 1
    # the director's confirmation of night 1 said why no announcement was drafted yet
    (confirmed,) = [t for t in said(ng, DIRECTOR) if t.startswith("已确认第1晚")]
    assert "第2日公示在等出局玩家的遗言（站内信），最晚等到 12-02 09:00，之后起草" in confirmed


def test_last_words__late_words_go_to_the_director_once(ng):
    told = [t for t in said(ng, DIRECTOR) if "公示发出后才到" in t]
    assert len(told) == 1 and told[0].startswith("春卷 的遗言在第3日公示发出后才到") and "太晚了" in told[0]


def test_last_words__secret_until_posted(ng):
    """Before the announcement goes out, the words are in no public post; the store's
    audit says that they came, never what they say."""
    rt = ng.game.rt
    for row in rt.store.db.query("SELECT * FROM audit"):
        assert "我是好人" not in str(dict(row)) and "太晚了" not in str(dict(row))
    # every bot PM exactly once
    markers = [m for pm in ng.all_bot_pms() for m in MARKER.findall(pm.text)]
    assert len(markers) == len(set(markers))


def test_last_words__kept_once_per_night_and_player_across_a_restart(tmp_path):
    """Asked once, the words kept once (遗言不修改), and what was kept is there after the
    store is opened again."""
    from datetime import datetime, timezone

    from forumbot.store import Store

    now = datetime(2026, 12, 2, 6, 0, tzinfo=timezone.utc)
    with Store(tmp_path / "g.db") as s:
        assert s.keep_last_words(1, "汤圆", "没问过", pmid=1, now=now) is False  # never asked: nothing kept
        assert s.ask_last_words(1, "汤圆", now=now, pm_id=7) is True
        assert s.ask_last_words(1, "汤圆", now=now, pm_id=8) is False
        assert s.keep_last_words(1, "汤圆", "我是好人", pmid=11, now=now) is True
        assert s.keep_last_words(1, "汤圆", "改了", pmid=12, now=now) is False
    with Store(tmp_path / "g.db") as s:
        (kept,) = s.last_words()
        assert (kept.night, kept.player, kept.text, kept.pmid, kept.late) == (1, "汤圆", "我是好人", 11, False)
