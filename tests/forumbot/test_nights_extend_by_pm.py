"""The director lengthens a night's phase by PM (``延长 夜1 女巫 30分钟``), over HTTP on the
simulator: the bot answers with what moves and a code, ``确认 CODE`` keeps it (once), a
phase that is no phase is refused in Chinese — as the day's 延长 is."""

from __future__ import annotations

import os
import re
from datetime import timedelta

import pytest

from forumbot.demo.nights import nights_plan
from forumbot.demo.play import setup_game
from forumbot.demo.scenario import PASSWORD
from forumbot.simulator import SimClock, Simulator
from tests.forumbot.notify_support import NotifyGame, body


@pytest.fixture
def ng(tmp_path):
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    plan = nights_plan()
    clock = SimClock(start=plan.days[0].start + timedelta(hours=1))
    sim = Simulator(clock=clock)
    game = setup_game(tmp_path, clock=clock, sim=sim, plan=plan, notify={"enabled": True})
    game.agent.start()
    made = NotifyGame(game)
    yield made
    made.close()


def answer_to(ng: NotifyGame, words: str) -> str:
    """The bot's answer that quotes ``words`` (waits pass by pass, never on the clock)."""
    for _ in range(6):
        ng.tick(timedelta(minutes=1))
        for m in reversed(ng.bot_pms()):
            if words in m.text:
                return body(m.text)
    raise AssertionError(f"no answer with {words!r} in {[m.text for m in ng.bot_pms()]}")


def test_pm__night_phase_extended_previewed_then_confirmed_once(ng):
    ng.tick()
    ng.says("延长 夜1 女巫 30分钟")
    preview = answer_to(ng, "第1晚的女巫阶段延长 30 分钟")
    assert "女巫：12-01 21:30–12-02 08:00 → 12-01 21:30–12-02 08:30" in preview, preview
    assert ng.rt.store.night_extensions() == ()
    code = re.search(r"「确认 ([A-Z0-9]{4})」", preview).group(1)
    ng.says(f"确认 {code}")
    done = answer_to(ng, "已记下：第1晚的女巫阶段延长 30 分钟")
    assert "机器人下一轮按新的时间裁定行动和结算" in done
    assert [(e.night, e.phase, e.minutes) for e in ng.rt.store.night_extensions()] == [(1, "witch", 30)]
    assert ng.rt.config.night_settings.extensions[-1] == (1, "witch", 30)
    ng.says(f"确认 {code}")
    assert "确认过了" in answer_to(ng, f"编号 {code} 已经")
    assert len(ng.rt.store.night_extensions()) == 1


def test_pm__a_phase_that_is_not_one_is_refused_in_chinese(ng):
    ng.tick()
    ng.says("延长 夜1 吹笛 10分钟\n延长 夜1")
    said = answer_to(ng, "吹笛")
    assert "没有执行：没有“吹笛”这个夜晚阶段（阶段：狼人、预言家、女巫）" in said, said
    assert "“延长 夜N”后面要写阶段和延长多久" in said
    assert ng.rt.store.night_extensions() == ()
