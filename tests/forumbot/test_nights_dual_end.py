"""A 双身份 game by PM over real HTTP on the simulator (Discuz! X3.5) played until a faction
wins (issue 20 item 4, SPEC §10.4–10.5): night 1 by the wolves' PMs, confirmed by the
director; on day 2 the village votes out its only 长老 identity (村民阵营的先知、女巫、守卫、
长老身份死亡 — the wolves' 先知, 女巫 and 守卫 are theirs, not the village's): the wolves win.
The win stops the game: the end post (winner, rule, reveal text, commitment) goes out
once, night 2 is never proposed and no one is asked for it any more; an order sent in it
is answered 游戏已经结束."""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import pytest

from forumbot.demo.scenario import BOT, DIRECTOR, PASSWORD, DayPlan, GamePlan, _day_threads, at, night_pm, vote
from forumbot.store.outbox import DraftKind, DraftState
from tests.forumbot.nights_support import bot_said, played_by_pm, MARKER, body

PLAYERS = ("饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包")
# The village faction holds one of the four great identities: the 长老 (汤圆's first).
SHEET = {"饺子": ["狼人", "先知"], "包子": ["狼人", "女巫"], "月饼": ["狼人", "守卫"], "汤圆": ["长老", "村民"],
         "Alice": ["猎人", "村民"], "bob_2": ["替罪羊", "村民"], "小笼包": ["村民", "村民"]}
WOLVES = ("饺子", "包子", "月饼")


def end_plan() -> GamePlan:
    a = [vote(1, f"1{k}:00", who, "Alice" if who != "Alice" else "饺子", "选警长") for k, who in enumerate(PLAYERS)]
    a += [night_pm(1, "21:40", "饺子", "杀人 小笼包"), night_pm(1, "21:41", "包子", "杀人 小笼包"),
          night_pm(1, "21:42", "月饼", "杀人 小笼包")]
    a += [vote(2, f"1{k}:00", who, "汤圆" if who != "汤圆" else "饺子", "投他") for k, who in enumerate(PLAYERS)]
    a += [night_pm(2, "21:45", "饺子", "杀人 Alice")]  # the game is over: not counted
    days = tuple(DayPlan(n, at(n, "09:00"), at(n, "21:30")) for n in (1, 2, 3))
    return GamePlan(PLAYERS, days, _day_threads(3), sorted(a, key=lambda x: x.when), at(3, "22:30"),
                    ruleset="dual", identities=SHEET, tell_by_pm=True)


@pytest.fixture(scope="module")
def ng():
    yield from played_by_pm(end_plan(), "x3", "utf-8", "forumbot-dual-end-")


def said(game, who: str) -> list[str]:
    return bot_said(game, who)


def test_dual_end__night_one_by_pm_and_the_vote_that_ends_it(ng):
    assert ng.errors == []
    (first,) = [p for p in ng.rt.store.night_proposals() if p.night == 1]
    assert first.state == "confirmed" and first.data["out"] == ["小笼包"] and first.data["win"] is None
    from forumbot.game.sealing import end_of_game

    end = end_of_game(ng.rt)
    assert end is not None and end.winner.startswith("狼人")
    assert end.rule == "村民阵营的先知、女巫、守卫、长老身份死亡"


def test_dual_end__the_end_post_goes_out_once_with_the_reveal(ng):
    ends = [d for d in ng.rt.outbox.drafts() if d.kind is DraftKind.GAME_END]
    assert len(ends) == 1 and ends[0].state is DraftState.PUBLISHED
    posts = [p for p in ng.world.bot_posts() if "获胜" in p[2]]
    assert len(posts) == 1
    text = ends[0].body
    assert "村民阵营的先知、女巫、守卫、长老身份死亡" in text
    reveal = re.search(r"\[code\](.*?)\[/code\]", text, re.S).group(1)
    commitment = re.search(r"[0-9a-f]{64}", text).group(0)
    lines = "".join(line + "\n" for line in reveal.split("\n"))  # each line ends in a newline
    assert hashlib.sha256(lines.encode("utf-8")).hexdigest() == commitment
    for who, hand in SHEET.items():
        assert who in reveal


def test_dual_end__the_game_stops_asking_for_nights(ng):
    assert [p.night for p in ng.rt.store.night_proposals()] == [1]
    texts = said(ng, DIRECTOR)
    assert len([t for t in texts if "结算建议" in t]) == 1
    assert "未计入：杀人 Alice（游戏已经结束）" in said(ng, "饺子")
    # no feedback, no announcement for a night after the end
    assert not [t for p in PLAYERS for t in said(ng, p) if t.startswith("第2晚")]
    days = {d.day for d in ng.rt.outbox.drafts() if d.kind is DraftKind.ANNOUNCEMENT}
    assert 3 not in days
    # the director's to-do list asks for no night after the end
    from forumbot.game.attention import attention

    assert not [a for a in attention(ng.rt, ng.clock.now()) if a.key.startswith("night:")]


def test_dual_end__every_bot_pm_once_and_no_identity_before_the_end(ng):
    bot = ng.sim.data.user(BOT).uid
    markers = Counter(m for pm in ng.sim.data.pms.messages.values() if pm.fromuid == bot
                      for m in MARKER.findall(pm.text))
    assert markers and max(markers.values()) == 1
    end_pid = next(d.pid for d in ng.rt.outbox.drafts() if d.kind is DraftKind.GAME_END)
    for _, pid, message in ng.world.bot_posts():
        if pid != end_pid:
            assert not [w for w in ("狼人", "先知", "女巫", "守卫", "长老", "猎人", "替罪羊") if w in message], message
