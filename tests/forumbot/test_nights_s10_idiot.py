"""官方规则S10 with identities over real HTTP on the simulator (Discuz! X3.5): the idiot (白痴)
voted out is asked once by PM whether to use 【若愚】, and the answer by PM is ruled like the
other triggered skills — counted: the bot enters 若愚 (the vote-out is cancelled and the
idiot's votes weigh 0 from then), answered once, exactly once across a restart of the agent
between the ask and the answer; not counted (late, or 若愚 from someone who is not the idiot):
answered with the reason, and the idiot stays out.

Seed: 【若愚】白痴可发动技能免于投票出局，若白痴发动此技能，则此后白痴投票不计入总票数。"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from forumbot.agent.loop import Agent
from forumbot.demo.scenario import BOT, DIRECTOR, DayPlan, GamePlan, _day_threads, at, night_pm, vote
from forumbot.game.runtime import make_client, open_runtime
from forumbot.game.state import current_state
from forumbot.notify import Notifier
from forumbot.store.records import EventKind
from tests.forumbot.nights_support import MARKER, bot_said, played_by_pm

PLAYERS = ("饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖", "春卷", "Carol", "油条", "麻花", "馄饨",
           "粽子", "豆包")
# The seed's row 56D (15 players): 3 狼人, 5 村民, 先知, 女巫, 守卫, 猎人, 白痴, 爱神, 吹笛.
SHEET = {"饺子": "狼人", "包子": "狼人", "汤圆": "狼人", "Alice": "村民", "bob_2": "村民", "月饼": "村民",
         "小笼包": "村民", "春卷": "村民", "烧卖": "白痴", "Carol": "先知", "油条": "女巫", "麻花": "守卫",
         "馄饨": "猎人", "粽子": "爱神", "豆包": "吹笛"}
ASKED = "可以发动【若愚】"


def idiot_plan(answers) -> GamePlan:
    """Day 1 elects Alice; day 2 votes 烧卖 (the idiot) out at 21:30; ``answers`` are the
    PMs after it; day 3 烧卖 votes 饺子, the others split."""
    a = [vote(1, f"{9 + k // 2}:{k % 2 * 3}0", who, "Alice" if who != "Alice" else "饺子", "选警长") for k, who in enumerate(PLAYERS)]
    a += [vote(2, f"{9 + k // 2}:{k % 2 * 3}0", who, "烧卖" if who != "烧卖" else "饺子", "投他") for k, who in enumerate(PLAYERS)]
    a += list(answers)
    a += [vote(3, f"{9 + k // 2}:{k % 2 * 3}0", who, "饺子" if k % 2 else "包子", "投")
          for k, who in enumerate(PLAYERS)]
    days = tuple(DayPlan(n, at(n, "09:00"), at(n, "21:30")) for n in (1, 2, 3))
    return GamePlan(PLAYERS, days, _day_threads(3), sorted(a, key=lambda x: x.when), at(3, "22:30"),
                    ruleset="s10", game={"version": "56D"}, identities=SHEET,
                    tell_by_pm=True)


def promptly(game, director, report) -> None:
    """The scripted director answers within the pass (a person reads the PM in minutes):
    the day's result is recorded inside the 15 minutes the idiot has (the harness's
    passes are 10 game minutes apart)."""
    window = (at(2, "21:30"), at(2, "21:45"))
    director.read()
    while window[0] <= game.clock.now() < window[1] - timedelta(minutes=4):
        game.clock.advance(minutes=1)
        game.driver.apply_due(game.clock.now())
        game.agent.tick()
        director.read()


def restart_after_the_ask(game, director, report) -> None:
    """Once the ask is out, and before the idiot's answer is read: the agent is stopped
    and a new one opened on the same database (close the runtime, open it again)."""
    promptly(game, director, report)
    if getattr(game, "restarted", False) or not any(ASKED in t for t in bot_said(game, "烧卖")):
        return
    assert not game.rt.store.night_messages("烧卖")  # the answer is not read yet
    path = game.rt.config.path
    game.rt.close()
    game.rt = open_runtime(path, clock=game.clock)
    game.agent = Agent(game.rt, make_client(game.rt), notifier=Notifier.for_agent)
    game.agent.start()
    game.restarted = True


@pytest.fixture(scope="module")
def fool():
    yield from played_by_pm(idiot_plan([night_pm(2, "21:43", "烧卖", "若愚")]), "x3", "utf-8",
                            "forumbot-s10-idiot-", on_tick=restart_after_the_ask)


@pytest.fixture(scope="module")
def refused():
    answers = [night_pm(2, "21:36", "月饼", "若愚"), night_pm(2, "21:50", "烧卖", "若愚")]
    yield from played_by_pm(idiot_plan(answers), "x3", "utf-8", "forumbot-s10-idiot-no-", on_tick=promptly)


def test_s10_idiot__asked_once_answered_once_across_a_restart(fool):
    assert fool.errors == [] and getattr(fool, "restarted", False)
    asked = [t for t in bot_said(fool, "烧卖") if ASKED in t]
    assert len(asked) == 1 and "「若愚」" in asked[0] and "「放弃」" in asked[0] and "不计入总票数" in asked[0]
    raw = [m.text for m in fool.sim.pms_between(BOT, "烧卖") if ASKED in m.text]
    assert len(raw) == 1 and MARKER.search(raw[0])  # through the PM outbox, with its marker
    assert [t for t in bot_said(fool, "烧卖") if t.startswith(("已收到", "未计入"))] == ["已收到：若愚"]
    for other in (p for p in PLAYERS if p != "烧卖"):  # the ask goes to the idiot only
        assert not [t for t in bot_said(fool, other) if "若愚" in t], other
    told = [t for t in bot_said(fool, DIRECTOR) if t.startswith("第2日：烧卖") and "发动【若愚】" in t]
    assert len(told) == 1 and "已录入" in told[0]


def test_s10_idiot__counted_the_idiot_stays_in_and_weighs_nothing(fool):
    events = [e for e in fool.rt.store.live_events() if e.kind is EventKind.IDIOT]
    assert len(events) == 1 and events[0].payload["player"] == "烧卖"
    state = current_state(fool.rt.config, fool.rt.store)
    assert not state.is_out("烧卖") and state.idiots_revealed == {"烧卖"}
    posts = [m for _, _, m in fool.world.bot_posts()]
    assert any("烧卖 得票最多，发动【若愚】，免于出局" in m for m in posts)
    assert any(re.search(r"\]烧卖\[/url\]\(\d+楼·×0\)", m) for m in posts)  # day 3: 此后白痴投票不计入总票数


def test_s10_idiot__not_counted_late_or_not_the_idiot(refused):
    assert refused.errors == []
    assert len([t for t in bot_said(refused, "烧卖") if ASKED in t]) == 1
    (late,) = [t for t in bot_said(refused, "烧卖") if t.startswith(("已收到", "未计入"))]
    assert late.startswith("未计入：若愚") and "前发动" in late
    (other,) = [t for t in bot_said(refused, "月饼") if t.startswith(("已收到", "未计入"))]
    assert other.startswith("未计入：若愚"), other
    assert not [e for e in refused.rt.store.live_events() if e.kind is EventKind.IDIOT]
    assert current_state(refused.rt.config, refused.rt.store).is_out("烧卖")
    assert not [t for t in bot_said(refused, DIRECTOR) if t.startswith("第2日：烧卖") and "发动【若愚】" in t]


@pytest.fixture(scope="module")
def declined():
    answers = [night_pm(2, "21:42", "烧卖", "放弃"), night_pm(2, "21:43", "烧卖", "若愚")]
    yield from played_by_pm(idiot_plan(answers), "x3", "utf-8", "forumbot-s10-idiot-pass-", on_tick=promptly)


def test_s10_idiot__declined_the_first_answer_stands(declined):
    answers = [t for t in bot_said(declined, "烧卖") if t.startswith(("已收到", "未计入"))]
    assert answers[0] == "已收到：放弃"
    assert answers[1].startswith("未计入：若愚") and "放弃若愚" in answers[1], answers
    assert not [e for e in declined.rt.store.live_events() if e.kind is EventKind.IDIOT]
    assert current_state(declined.rt.config, declined.rt.store).is_out("烧卖")


def test_s10_idiot__the_night_waits_while_the_idiot_may_answer(refused):
    """No counting answer: night 2 is not proposed before the window's end (S10's own
    phases end later in this game, so the wait is checked where the bot decides it)."""
    from forumbot.game import nightrun

    assert nightrun.day_trigger_open(refused.rt, 2, at(2, "21:44"))
    assert not nightrun.day_trigger_open(refused.rt, 2, at(2, "21:46"))
    assert not nightrun.day_trigger_open(refused.rt, 1, at(2, "21:44"))
