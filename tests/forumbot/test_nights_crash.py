"""The 14人简易 game whose nights are played by PM, with the agent in a subprocess SIGKILLed
about every three game hours (nights included: between a player's PM and the bot's answer,
between the pack's order and the witch's 通灵, between the proposal and its confirmation)
and restarted each time: every player message answered exactly once, every bot PM sent
once, each identity told once, the feedback once, and the same nights as an uninterrupted
run (tests/forumbot/test_nights_by_pm.py)."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from forumbot.demo.harness import KillOptions, run_with_kills
from forumbot.demo.nights import ELDER, PLAYERS14, SEER, WITCH, nights_plan
from forumbot.demo.scenario import BOT
from forumbot.game.runtime import open_runtime
from tests.forumbot.nights_support import MARKER, answers_to, body

AGENT = {"min_request_interval_seconds": 1, "poll_jitter_seconds": 30}


@functools.cache
def crash_run():
    tmp = Path(tempfile.mkdtemp(prefix="forumbot-nights-crash-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    run = run_with_kills(nights_plan(), tmp, KillOptions(factor=3000.0, kill_every=timedelta(hours=3), window_kills=3,
                                                         seed=11, wall_limit=420, agent=dict(AGENT)))
    run.game.sim.stop()
    return run


@pytest.fixture(scope="module")
def run():
    return crash_run()


@pytest.fixture(scope="module")
def rt(run):
    r = open_runtime(run.game.config)
    yield r
    r.close()


def _pms(run, a: str, b: str, *, sent_by: str):
    sim = run.game.sim
    uid = sim.data.user(sent_by).uid
    return [m for m in sim.pms_between(a, b) if m.fromuid == uid]


def test_nights_crash__the_game_finished_with_kills_in_the_nights(run):
    assert run.finished and not run.unexpected_exits and not run.thread_errors, (run.unexpected_exits,
                                                                                  run.thread_errors)
    plan = nights_plan()
    nights = [(d.deadline, plan.days[k + 1].start) for k, d in enumerate(plan.days[:-1])]
    during = [k for k in run.kills if any(a <= k.at <= b for a, b in nights)]
    assert len(during) >= 4, run.kills


def test_nights_crash__the_nights_are_the_uninterrupted_runs(rt):
    proposals = {p.night: (p.state, p.data["out"], p.data["marks"]) for p in rt.store.night_proposals()}
    assert proposals == {1: ("confirmed", ["汤圆"], []), 2: ("confirmed", ["春卷"], [ELDER])}
    assert rt.store.night_result(2).out == ("汤圆",) and rt.store.night_result(3).out == ("春卷",)


def test_nights_crash__every_player_message_is_answered_exactly_once(run):
    for who in PLAYERS14:
        sent, answered = answers_to(run.game.sim, who)
        assert len(answered) == len(sent), (who, sent, answered)
        told = [m for m in _pms(run, BOT, who, sent_by=BOT) if "你的身份" in m.text]
        assert len(told) == 1, who


def test_nights_crash__feedback_once_and_no_pm_twice(run):
    seer = [body(m.text) for m in _pms(run, BOT, SEER, sent_by=BOT) if "预言：" in m.text]
    assert seer == ["第1晚 预言：包子 —— 非村民阵营", "第2晚 预言：月饼 —— 非村民阵营"]
    witch = [body(m.text) for m in _pms(run, BOT, WITCH, sent_by=BOT) if "通灵" in m.text]
    assert witch == ["第1晚 通灵：今晚被指杀的角色：汤圆", "第2晚 通灵：今晚被指杀的角色：馄饨"]
    sim = run.game.sim
    bot = sim.data.user(BOT).uid
    markers = Counter(mk for m in sim.data.pms.messages.values() if m.fromuid == bot for mk in MARKER.findall(m.text))
    assert markers and max(markers.values()) == 1


def test_nights_crash__no_post_twice(run):
    texts = Counter(text for _, _, text in run.game.world.bot_posts())
    assert texts and max(texts.values()) == 1
