"""Players sending PMs to the bot (issue 20: the nights' actions arrive by PM from the role
accounts), over real HTTP on the simulator — X3.5 UTF-8 and 7.2 GBK: a player's own client
sending through the forum's form, a script's ``[[pms]]``, and the demo driver's ``pm``
action stamped with its scripted time; the bot reads each once, in the site charset."""

from __future__ import annotations

from datetime import datetime, timedelta

import httpx
import pytest

from forumbot.demo.scenario import Action, Driver, World
from forumbot.discuz import DiscuzClient
from forumbot.discuz.retry import RetryPolicy
from forumbot.simulator import BEIJING, SimClock, Simulator
from forumbot.simulator.script import ScriptError, apply_script

BOT, PLAYERS = "计票机器人", ("饺子", "包子", "汤圆")
START = datetime(2026, 12, 1, 21, 30, tzinfo=BEIJING)


def _client(sim: Simulator, base: str, name: str, https: list) -> DiscuzClient:
    http = httpx.Client(timeout=10)
    https.append(http)
    return DiscuzClient(http, base, username=name, password_source=lambda: "pw",
                        clock=lambda: sim.clock.now().timestamp(), sleep=sim.clock.sleep,
                        retry_policy=RetryPolicy(max_attempts=2, base_wait=1.0, jitter=0.0))


@pytest.fixture(params=[("x3", "utf-8"), ("7.2", "gbk")], ids=lambda g: "-".join(g))
def forum(request):
    discuz, charset = request.param
    sim = Simulator(clock=SimClock(start=START), discuz=discuz, charset=charset)
    for name in (BOT, *PLAYERS):
        sim.add_user(name, "pw")
    https: list[httpx.Client] = []
    with sim.running() as base:
        yield sim, base, https
        for http in https:
            http.close()


def test_player_pm__a_player_sends_a_night_action_through_the_forum_form(forum):
    sim, base, https = forum
    bot, wolf = _client(sim, base, BOT, https), _client(sim, base, "饺子", https)
    bot.login()
    wolf.login()
    sent = wolf.send_pm(BOT, "杀人 包子")  # by name, as a player types it in the form
    sim.clock.advance(2)
    (got,) = bot.read_conversation(wolf.uid)
    assert (got.author, got.text, got.own) == ("饺子", "杀人 包子", False)
    assert sent.pmid in (None, got.id)
    # Stored in the site charset as typed: the GBK forum keeps the Chinese as Chinese
    (stored,) = sim.pms_between("饺子", BOT)
    assert stored.text == "杀人 包子"


def test_player_pm__a_script_sends_pms_at_their_times(forum):
    sim, base, https = forum
    apply_script(sim, {"pms": [
        {"from": "汤圆", "to": BOT, "message": "预言 饺子", "at": "+10m"},
        {"from": "包子", "to": BOT, "message": "放弃", "at": "+1m"},
    ]})
    bot = _client(sim, base, BOT, https)
    bot.login()
    uid = sim.data.user("汤圆").uid
    assert bot.read_conversation(uid) == []  # dated ten minutes ahead: not listed yet
    sim.clock.advance(11 * 60)
    assert [m.text for m in bot.read_conversation(uid)] == ["预言 饺子"]
    assert [m.text for m in bot.read_conversation(sim.data.user("包子").uid)] == ["放弃"]


def test_player_pm__a_script_naming_no_such_user_says_which_entry():
    sim = Simulator(clock=SimClock(start=START))
    sim.add_user(BOT, "pw")
    with pytest.raises(ScriptError, match=r"pms\[0\]"):
        apply_script(sim, {"pms": [{"from": "无名氏", "to": BOT, "message": "杀人 包子"}]})
    with pytest.raises(ScriptError, match="缺少 'message'"):
        apply_script(sim, {"pms": [{"from": BOT, "to": BOT}]})


def test_player_pm__the_driver_sends_each_scripted_pm_once_with_its_time(forum):
    sim, base, https = forum
    when = START + timedelta(minutes=20)
    driver = Driver(World(sim, {}), actions=[Action(when, "pm", author="饺子", message="杀人 汤圆")])
    driver.apply_due(START)
    assert sim.pms_between("饺子", BOT) == []
    driver.apply_due(when + timedelta(minutes=40))  # applied late: still stamped 21:50
    driver.apply_due(when + timedelta(minutes=50))
    (pm,) = sim.pms_between("饺子", BOT)
    assert (pm.text, pm.at) == ("杀人 汤圆", when)
