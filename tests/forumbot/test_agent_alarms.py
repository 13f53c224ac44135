"""Issue 10's refusals the bot cannot fix itself, over real HTTP against the simulator:
each becomes an alarm that stays on ``forumbot status``, ``forumbot drafts`` and the
desk's front page, in Chinese, saying who must do what, until it clears.

* #2 captcha (posting and login);
* #4 a wrong password: one login attempt per start, an alarm, and ``forumbot login``
  fixes a running agent without a restart;
* #5 the forum down for longer than ``outage_alarm_minutes``, and its recovery;
* the forum closed, a thread closed, the newbie period, a ban, spider pages.
"""

from __future__ import annotations

import os
from datetime import datetime

import pytest

from forumbot.game.attention import AttentionKind, attention
from forumbot.desk import create_app
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import BOT, PASSWORD, at
from forumbot.simulator import Fault
from tests.forumbot.alarm_support import bot_messages, cli, game_on, kinds, login_posts
from forumbot.demo.play import play


@pytest.fixture(autouse=True)
def _password():
    yield
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD


def desk_front_page(game) -> str:
    app = create_app(game.rt.config.path, clock=game.clock, secret_key=b"k" * 32)
    app.testing = True
    return app.test_client().get("/").get_data(as_text=True)


# ---------------------------------------------------------------- #2 captcha


@pytest.mark.parametrize("discuz", ["x3", "7.2"])
def test_agent_alarms__captcha_on_posting_is_an_alarm_everywhere_until_a_post_goes_through(tmp_path, discuz):
    game = game_on(tmp_path, discuz, running_count_interval_minutes=10)
    try:
        game.sim.settings.captcha_post = True
        play(game, until=at(1, "10:05"))  # 饺子 voted at 10:00: a running count, refused
        [alarm] = game.rt.store.alarms()
        assert alarm.kind == "captcha_post"
        assert alarm.text.startswith("论坛要求验证码") and "forumbot retry" in alarm.text
        assert ("安全 → 验证设置 → 验证码设置" in alarm.text) is (discuz == "x3")
        assert ("全局 → 安全验证 → 验证码设置" in alarm.text) is (discuz == "7.2")
        [failed] = game.rt.outbox.drafts(DraftState.FAILED)
        assert failed.kind is DraftKind.RUNNING_COUNT and f"#{failed.id}" in alarm.text

        status = cli(game, "status")
        assert status.exit_code == 0, status.output
        lines = status.output.splitlines()
        first_alarm = next(i for i, line in enumerate(lines) if "警报" in line and "论坛要求验证码" in line)
        assert first_alarm < next(i for i, line in enumerate(lines) if line.startswith("第1日"))
        assert f"forumbot retry {failed.id}" in status.output and "CaptchaRequired" not in status.output
        drafts = cli(game, "drafts")
        assert "⚠ 警报：论坛要求验证码" in drafts.output and "发送失败" in drafts.output
        assert "CaptchaRequired" not in drafts.output
        front = desk_front_page(game)
        assert "论坛要求验证码" in front and f"<code>forumbot retry {failed.id}</code>" in front
        items = attention(game.rt, game.clock.now())
        assert items[0].kind is AttentionKind.ALARM and items[0].key == f"alarm:{alarm.id}"
        assert any(i.kind is AttentionKind.FAILED and i.ref == failed.id for i in items)

        play(game, until=at(1, "10:25"))  # 包子 at 10:20: the next count supersedes, still refused
        assert game.rt.outbox.get(failed.id).state is DraftState.SUPERSEDED
        [still] = game.rt.store.alarms()
        assert still.id == alarm.id  # the same alarm: not said twice, not lost with the draft

        game.sim.settings.captcha_post = False  # the admin exempts the bot's group
        play(game, until=at(1, "11:05"))  # 汤圆 at 11:00: a count goes out
        assert game.rt.store.alarms() == []
        assert bot_messages(game, "vote1")
        assert "警报" not in cli(game, "status").output
        assert "论坛要求验证码" not in desk_front_page(game)
    finally:
        game.close()
        game.sim.stop()


def test_agent_alarms__captcha_on_login_is_an_alarm_and_no_login_is_attempted(tmp_path):
    game = game_on(tmp_path, bot={"cookie_file": str(tmp_path / "cookies.json")})
    try:
        game.sim.settings.captcha_login = True
        play(game, until=at(1, "10:05"))
        assert login_posts(game) == 0
        [alarm] = game.rt.store.alarms()
        assert (alarm.kind, alarm.key) == ("captcha_login", "login")
        assert "论坛登录要求验证码" in alarm.text and "forumbot login --config" in alarm.text
        assert game.world.bot_posts() == []
        game.sim.settings.captcha_login = False
        result = cli(game, "login")
        assert result.exit_code == 0, result.output
        assert "已登录" in result.output and game.rt.store.alarms() == []
        play(game, until=at(1, "10:25"))  # the running agent takes the session: it posts
        assert bot_messages(game, "vote1") and login_posts(game) == 1
    finally:
        game.close()
        game.sim.stop()


# ---------------------------------------------------------------- #4 a wrong password


@pytest.mark.parametrize("discuz", ["x3", "7.2"])
def test_agent_alarms__wrong_password_one_attempt_an_alarm_and_forumbot_login_fixes_the_running_agent(
        tmp_path, discuz):
    game = game_on(tmp_path, discuz, bot={"cookie_file": str(tmp_path / "cookies.json")})
    try:
        os.environ["FORUMBOT_PASSWORD"] = "not-the-password"
        play(game, until=at(1, "16:05"))  # many counts approved, many publish attempts
        assert login_posts(game) == 1  # one of Discuz's five tries, not one per publish
        [alarm] = game.rt.store.alarms()
        assert alarm.kind == "login_failed" and "登录失败" in alarm.text and BOT in alarm.text
        assert "forumbot login --config" in alarm.text
        waiting = [d.id for d in game.rt.outbox.drafts(DraftState.APPROVED)]
        assert waiting and game.world.bot_posts() == []

        refused = cli(game, "login", password="still-wrong")  # the operator mistypes
        assert refused.exit_code == 1 and "登录失败" in refused.output
        assert login_posts(game) == 2 and kinds(game) == ["login_failed"]

        fixed = cli(game, "login", password=PASSWORD)
        assert fixed.exit_code == 0, fixed.output
        assert "已登录" in fixed.output and "不用重启" in fixed.output
        assert login_posts(game) == 3 and game.rt.store.alarms() == []
        # The running agent still holds the wrong password in its environment: it takes
        # the saved session instead of logging in (no fourth try, never the fifth).
        play(game, until=at(1, "16:25"))
        assert login_posts(game) == 3
        assert game.world.bot_posts() and game.rt.outbox.drafts(DraftState.APPROVED) == []
        audit = [e.action for e in game.rt.store.audit_log() if e.action.startswith(("login", "alarm"))]
        assert audit == ["alarm.raised", "login.failed", "alarm.cleared", "login"]
    finally:
        game.close()
        game.sim.stop()


# ---------------------------------------------------------------- #5 outage and recovery


def go_down(sim) -> None:
    """The forum's server stops: new connections are refused, and the one the client
    keeps alive is dropped (the simulator's handler threads outlive its listener)."""
    sim.stop()
    sim.faults.add(Fault.DROP_BEFORE_STORE, times=10**6)


def come_back(sim) -> None:
    sim.faults.clear()
    sim.start()  # on the same address


def test_agent_alarms__forum_down_longer_than_the_setting_is_an_alarm_and_the_recovery_is_shown(tmp_path):
    game = game_on(tmp_path, outage_alarm_minutes=30)
    try:
        play(game, until=at(1, "10:05"))
        go_down(game.sim)
        play(game, until=at(1, "10:25"))  # two failed passes: 20 minutes, no alarm yet
        assert game.rt.store.alarms() == []
        play(game, until=at(1, "10:55"))
        [alarm] = game.rt.store.alarms()
        assert alarm.kind == "forum_down" and alarm.text.startswith("论坛无法访问（自 12-01 10:1")
        assert "连接" in alarm.text  # 连接不上 (refused) or 连接中断
        status = cli(game, "status")
        assert "警报" in status.output and "论坛无法访问" in status.output
        assert "论坛无法访问" in desk_front_page(game)

        come_back(game.sim)
        play(game, until=at(1, "11:05"))
        assert game.rt.store.alarms() == []
        [back] = game.rt.store.alarms(active=False)
        when = datetime.fromisoformat(back.detail["back_at"])
        assert back.id == alarm.id and at(1, "10:50") < when < at(1, "11:15")
        status = cli(game, "status")
        assert f"恢复于 {when:%m-%d %H:%M}" in status.output and "论坛曾无法访问" in status.output
        assert "恢复于" in desk_front_page(game)
        assert '"recovered"' in cli(game, "status", "--json").output
        assert bot_messages(game, "vote1")  # and it carried on counting
    finally:
        game.close()
        game.sim.stop()


def test_agent_alarms__a_short_blip_raises_nothing(tmp_path):
    game = game_on(tmp_path, outage_alarm_minutes=30)
    try:
        play(game, until=at(1, "10:05"))
        go_down(game.sim)
        play(game, until=at(1, "10:15"))  # two failed passes, about 15 minutes
        come_back(game.sim)
        play(game, until=at(1, "10:25"))
        assert game.rt.store.alarms(active=None) == []
    finally:
        game.close()
        game.sim.stop()


# ---------------------------------------------------------------- the other refusals


def _newbie(game):
    from datetime import timedelta

    game.sim.settings.newbiespan = 60 if game.sim.discuz == "x3" else 24  # minutes / hours
    game.sim.data.user(BOT).registered_at = game.clock.now() - timedelta(minutes=1)


def _not_newbie(game):
    game.sim.data.user(BOT).registered_at = None


SWITCHES = {
    "site_closed": (lambda g: setattr(g.sim.settings, "site_closed", "论坛维护中，请稍后再来"),
                    lambda g: setattr(g.sim.settings, "site_closed", None), "论坛已关闭（论坛说：论坛维护中"),
    "thread_closed": (lambda g: g.sim.close_thread(g.world.tids["vote1"]),
                      lambda g: g.sim.close_thread(g.world.tids["vote1"], closed=False), "已被关闭"),
    "newbie": (_newbie, _not_newbie, "新手见习期"),
    "banned": (lambda g: g.sim.ban_user(BOT), lambda g: g.sim.ban_user(BOT, banned=False), "禁止发言"),
}


@pytest.mark.parametrize("discuz", ["x3", "7.2"])
@pytest.mark.parametrize("kind", list(SWITCHES))
def test_agent_alarms__each_refusal_is_an_alarm_until_fixed(tmp_path, discuz, kind):
    on, off, words = SWITCHES[kind]
    game = game_on(tmp_path, discuz)
    try:
        play(game, until=at(1, "09:05"))  # logged in, threads read
        on(game)
        play(game, until=at(1, "10:05"))
        alarms = game.rt.store.alarms()
        if (kind, discuz) == ("banned", "7.2"):
            # 7.2 shows a banned member the same no-permission page as anyone without the
            # right: the alarm says to look at both.
            kind, words = "no_permission", "是否被禁言"
        assert [a.kind for a in alarms] == [kind], [a.text for a in alarms]
        assert words in alarms[0].text
        assert words in cli(game, "status").output
        off(game)
        for draft in game.rt.outbox.drafts(DraftState.FAILED):
            assert cli(game, "retry", str(draft.id)).exit_code == 0
        play(game, until=at(1, "10:25"))
        assert game.rt.store.alarms() == [], [a.text for a in game.rt.store.alarms()]
        assert bot_messages(game, "vote1")
    finally:
        game.close()
        game.sim.stop()


def test_agent_alarms__spider_pages_are_an_alarm(tmp_path):
    game = game_on(tmp_path)
    try:
        game.agent.client.transport.user_agent = "Mozilla/5.0 (compatible; forumbot/0.1)"  # a robot word
        play(game, until=at(1, "09:25"))
        [alarm] = game.rt.store.alarms()
        assert alarm.kind == "robot_page" and "[bot].user_agent" in alarm.text
        assert "[bot].user_agent" in cli(game, "status").output  # shown as written, not as markup
    finally:
        game.close()
        game.sim.stop()
