"""The director by forum PM over real HTTP on the simulator, Discuz! X3.5 and 7.2 (7.2 GBK
for one flow): told once, approving by reply, refusals, the desk first, batching without a
flood refusal, a long draft in parts, a command read twice, the current second, a send
whose answer was lost, quiet hours, the outage and its recovery, the defaults."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

from forumbot.game import director
from forumbot.config.gamefile import parse_config
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import BOT, DIRECTOR, at
from forumbot.config.settings import load_settings
from forumbot.simulator import Fault
from tests.forumbot.game_support import config_text
from tests.forumbot.notify_support import NotifyGame, body, head, notify_game

GENERATIONS = [("x3", "utf-8"), ("7.2", "utf-8")]


@pytest.fixture(params=GENERATIONS, ids=lambda g: "-".join(g))
def ng(request, tmp_path):
    g = notify_game(tmp_path, *request.param)
    yield g
    g.close()


def final_waiting(ng: NotifyGame):
    ng.until(at(1, "21:45"))  # the deadline 21:30, the final count drafted after 5 minutes
    return ng.draft(DraftKind.FINAL_COUNT, 1)


# ---------------------------------------------------------------- told once


def test_notify__a_waiting_draft_is_told_once(ng):
    draft = final_waiting(ng)
    assert draft.state is DraftState.DRAFT
    ng.until(at(1, "23:00"))  # eight more passes while it waits
    about = [m for m in ng.bot_pms() if f"最终计票 #{draft.id} 待审批" in m.text]
    assert len(about) == 1, [m.text for m in ng.bot_pms()]
    text = about[0].text
    code = ng.code_of(draft)
    assert f"「批准 {code}」发出" in text and f"「查看 {code}」" in text
    assert text.endswith("）") and "（防重发标记 pm-" in text.splitlines()[-1]  # says what it is, in Chinese
    assert head(text) == ng.name  # every PM names its game
    assert ng.rt.outbox.get(draft.id).state is DraftState.DRAFT  # telling approves nothing


# ---------------------------------------------------------------- approving by reply


def test_notify__approve_by_pm_publishes_once(ng):
    draft = final_waiting(ng)
    code = ng.code_of(draft)
    ng.says(f"批准 {code}")
    ng.tick()
    done = ng.rt.outbox.get(draft.id)
    assert done.state is DraftState.PUBLISHED and done.approved_by == "director(pm)"
    ng.says(f"批准 {code}")  # the same again, and more passes
    ng.until(at(1, "23:00"))
    posts = [p for p in ng.sim.posts(ng.game.world.tids["vote1"]) if done.marker in p.message]
    assert len(posts) == 1 and posts[0].pid == done.pid
    texts = [m.text for m in ng.bot_pms()]
    (answer,) = [t for t in texts if body(t).startswith(f"已批准 #{draft.id} 第1日最终计票")]
    # written before the post went out, sent after: it says how that went, with the pid
    assert f"现在：#{draft.id} 第1日最终计票 已" in answer and f"已发布（pid {done.pid}）" in answer
    assert any(f"编号 {code} 已经用过" in t and "通过站内信批准，已发布" in t for t in texts)
    actors = {(e.actor, e.action) for e in ng.rt.store.audit_log()}
    assert ("director(pm)", "outbox.approved") in actors and ("director(pm)", "notify.command") in actors


def test_notify__approve_by_pm_on_a_gbk_72_forum(tmp_path):
    ng = notify_game(tmp_path, "7.2", "gbk")
    try:
        draft = final_waiting(ng)
        code = ng.code_of(draft)
        ng.says(f"好的，批准　{code.lower()}。谢谢！")  # full-width space, lower case, words around
        ng.tick()
        assert ng.rt.outbox.get(draft.id).state is DraftState.PUBLISHED
        assert any(body(m.text).startswith(f"已批准 #{draft.id}") for m in ng.bot_pms())
        assert "警长" in ng.sim.post(ng.rt.outbox.get(draft.id).pid).message
    finally:
        ng.close()


def test_notify__reject_view_and_several_commands_in_one_message(ng):
    draft = final_waiting(ng)
    code = ng.code_of(draft)
    ng.says(f"查看{code}\n驳回 {code} 理由：饺子的票要再核对")
    ng.tick()
    rejected = ng.rt.outbox.get(draft.id)
    assert rejected.state is DraftState.REJECTED
    assert ng.rt.outbox.history(draft.id)[-1].detail["why"] == "饺子的票要再核对"
    [answer] = [m.text for m in ng.bot_pms() if body(m.text).startswith("【全文】")]
    assert draft.body.strip() in answer and f"已驳回 #{draft.id} 第1日最终计票，不会发出（理由：饺子的票要再核对）" in answer


# ---------------------------------------------------------------- refusals


def test_notify__another_user_a_reused_code_and_an_unknown_code_are_refused_with_a_pm(ng):
    draft = final_waiting(ng)
    code = ng.code_of(draft)
    ng.says(f"批准 {code}", who="饺子")  # a player who saw the code over the director's shoulder
    ng.says("批准 K3M4")  # a code the bot never gave
    ng.tick()
    assert ng.rt.outbox.get(draft.id).state is DraftState.DRAFT  # not carried out
    [refusal] = ng.bot_pms("饺子")
    assert "你不是本局的导演" in refusal.text
    foreign = [e for e in ng.rt.store.audit_log(action_prefix="notify.foreign")]
    assert len(foreign) == 1 and foreign[0].actor == "forum_user" and foreign[0].detail["name"] == "饺子"
    assert any("没有编号为 K3M4 的草稿" in m.text for m in ng.bot_pms())
    ng.says(f"批准 {code}")
    ng.tick()
    ng.says(f"驳回 {code} 理由：改主意了")  # the code was used: stale
    ng.tick()
    assert ng.rt.outbox.get(draft.id).state is DraftState.PUBLISHED
    assert any(f"编号 {code} 已经用过" in m.text for m in ng.bot_pms())
    ng.says(f"批准 {code}", who="饺子")  # a second try within the hour is not answered again
    ng.until(at(1, "23:00"))
    assert len(ng.bot_pms("饺子")) == 1
    assert len(ng.rt.store.audit_log(action_prefix="notify.foreign")) == 2


def test_notify__desk_first_then_pm_the_director_is_told(ng):
    draft = final_waiting(ng)
    code = ng.code_of(draft)
    director.approve(ng.rt, draft.id, ng.clock.now(), actor=director.DIRECTOR_DESK)  # on the desk
    ng.says(f"批准 {code}")
    ng.tick()
    ng.tick()
    stale = [m.text for m in ng.bot_pms() if f"{code} 已失效" in m.text]
    assert len(stale) == 1 and "在导演台批准" in stale[0] and "已发布" in stale[0]
    assert "这次批准晚了一步" in stale[0]  # told it came second, and by whom the first
    commands = ng.rt.store.audit_log(action_prefix="notify.command")
    assert commands[-1].detail["result"] == "refused" and commands[-1].detail["each"][0]["why"] == "stale"


@pytest.mark.parametrize("first, second, said", [
    (director.DIRECTOR_DESK, director.DIRECTOR_CLI, "在导演台批准，正在发出：这次批准（在命令行）晚了一步"),
    (director.DIRECTOR_CLI, director.DIRECTOR_DESK, "在命令行批准，正在发出：这次批准（在导演台）晚了一步"),
    (director.DIRECTOR_DESK, director.DIRECTOR_DESK, "在导演台批准，正在发出：这次批准（在导演台）晚了一步"),
])
def test_notify__a_second_approval_is_told_it_came_second_and_by_whom(tmp_path, first, second, said):
    ng = notify_game(tmp_path, "x3", start=at(1, "12:00"))
    try:
        draft = ng.rt.outbox.create_draft(DraftKind.CARD_NOTICE, ng.game.world.tids["progress"], "判罚通知",
                                          now=ng.clock.now())
        director.approve(ng.rt, draft.id, ng.clock.now(), actor=first)
        with pytest.raises(director.DirectorError, match=said):
            director.approve(ng.rt, draft.id, ng.clock.now(), actor=second)
        assert ng.rt.outbox.get(draft.id).approved_by == first  # the first approval stands
        # the audit log tells the routes apart
        [approved] = ng.rt.store.audit_log(action_prefix="outbox.approved")
        assert approved.actor == first
    finally:
        ng.close()


def test_notify__pm_first_then_the_desk_is_told(ng):
    draft = final_waiting(ng)
    ng.says(f"批准 {ng.code_of(draft)}")
    ng.tick()
    with pytest.raises(director.DirectorError, match="通过站内信批准"):
        director.approve(ng.rt, draft.id, ng.clock.now())
    with pytest.raises(director.DirectorError, match="通过站内信批准"):
        director.reject(ng.rt, draft.id, "晚了", ng.clock.now())


# ---------------------------------------------------------------- batching and flood control


def test_notify__twenty_events_in_a_minute_are_batched_without_a_flood_refusal(tmp_path):
    ng = notify_game(tmp_path, "x3", start=at(1, "12:00"), min_request_interval_seconds=0.5)
    try:
        ng.tick()  # the first pass reads the threads
        tid = ng.game.world.tids["progress"]
        drafts = []
        for i in range(20):  # 20 drafts waiting, one every 3 s, a pass after each
            drafts.append(ng.rt.outbox.create_draft(DraftKind.CARD_NOTICE, tid, f"通知 {i}", now=ng.clock.now()))
            ng.tick(timedelta(seconds=3))
        ng.until(ng.clock.now() + timedelta(minutes=5), timedelta(seconds=30))
        pms = ng.bot_pms()
        told = "".join(m.text for m in pms)
        assert all(f"判罚通知 #{d.id} 待审批" in told for d in drafts)
        assert len(pms) <= 3, [m.text[:40] for m in pms]
        assert len(pms) == ng.send_posts()  # every send stored: the forum refused none
    finally:
        ng.close()


# ---------------------------------------------------------------- a long text


def test_notify__view_a_draft_longer_than_the_forum_keeps_in_several_pms(tmp_path):
    ng = notify_game(tmp_path, "x3", start=at(1, "12:00"))
    try:
        ng.tick()
        text = "\n".join(f"第{i}行：" + "饺子包子汤圆月饼" * 40 for i in range(260))  # ≈ 250 KB in UTF-8
        draft = ng.rt.outbox.create_draft(DraftKind.CARD_NOTICE, ng.game.world.tids["progress"], text,
                                          now=ng.clock.now())
        ng.tick()
        code = ng.code_of(draft)
        ng.says(f"查看 {code}")
        ng.tick()
        parts = [m.text for m in ng.bot_pms() if "【全文】" in m.text or body(m.text).startswith("（第")]
        assert len(parts) >= 4
        assert all(len(t.encode("utf-8")) <= 65535 for t in parts)
        joined = "\n".join(t.split("\n", 1)[1].rsplit("\n（防重发标记 ", 1)[0] for t in parts)
        assert text in joined
    finally:
        ng.close()


# ---------------------------------------------------------------- exactly once, reading


def test_notify__a_command_read_twice_is_applied_once(ng):
    draft = final_waiting(ng)
    code = ng.code_of(draft)
    ng.says(f"批准 {code}")
    ng.tick()
    uid = ng.uid(DIRECTOR)
    ng.tick()
    sent = len(ng.bot_pms())
    ng.rt.store.set_meta(f"notify:floor:{uid}", "0")  # as if the read had to start over
    ng.tick()
    ng.tick()
    assert len(ng.bot_pms()) == sent  # nothing carried out again, nothing answered again
    approvals = [e for e in ng.rt.store.audit_log(action_prefix="outbox.approved") if e.detail["draft"] == draft.id]
    assert len(approvals) == 1
    assert sum(1 for m in ng.bot_pms() if body(m.text).startswith(f"已批准 #{draft.id}")) == 1


def test_notify__a_message_of_the_current_second_is_read_next_pass(tmp_path):
    ng = notify_game(tmp_path, "x3", start=at(1, "21:00"), min_request_interval_seconds=0)
    try:
        draft = final_waiting(ng)
        code = ng.code_of(draft)
        ng.says(f"批准 {code}")  # this very second: the bot's read cannot list it yet
        ng.game.driver.apply_due(ng.clock.now())
        ng.game.agent.tick()
        assert ng.rt.outbox.get(draft.id).state is DraftState.DRAFT  # not seen, not lost
        ng.clock.advance(seconds=60)
        ng.tick()
        assert ng.rt.outbox.get(draft.id).state is DraftState.PUBLISHED
    finally:
        ng.close()


# ---------------------------------------------------------------- exactly once, sending


def test_notify__a_pm_whose_answer_was_lost_is_found_not_sent_again(ng):
    ng.until(at(1, "21:35"))
    before = len(ng.bot_pms())
    ng.sim.faults.add(Fault.DROP_AFTER_STORE, match="send")  # stored, the answer lost
    ng.game.driver.apply_due(ng.clock.now())
    report = ng.game.agent.tick()
    assert any("导演的站内信" in e for e in report.errors)
    [row] = ng.game.agent.notifier.pmbox.rows("sending")
    ng.clock.advance(minutes=10)
    ng.tick()
    assert ng.game.agent.notifier.pmbox.get(row.id).state == "sent"
    pms = [m for m in ng.bot_pms() if row.marker in m.text]
    assert len(pms) == 1 and len(ng.bot_pms()) == before + 1
    assert any(e.detail.get("found_by_marker") for e in ng.rt.store.audit_log(action_prefix="notify.sent"))


# ---------------------------------------------------------------- when


def test_notify__quiet_hours_hold_notices_but_not_answers(tmp_path):
    ng = notify_game(tmp_path, "x3", notify={"quiet_hours": "21:40-23:00"})
    try:
        draft = final_waiting(ng)
        assert ng.bot_pms() == [] or all(f"#{draft.id}" not in m.text for m in ng.bot_pms())
        ng.says("状态")
        ng.tick()
        [answer] = [m.text for m in ng.bot_pms() if "【状态】" in m.text]
        assert "【待你处理】" in answer and f"最终计票 #{draft.id} 待审批" in answer  # rides along
    finally:
        ng.close()


def test_notify__outage_then_recovery_is_told_when_the_forum_is_back(tmp_path):
    from tests.forumbot.test_agent_alarms import come_back, go_down

    ng = notify_game(tmp_path, "x3", start=at(1, "10:00"), outage_alarm_minutes=20)
    try:
        ng.tick()
        go_down(ng.sim)
        for _ in range(4):
            ng.game.driver.apply_due(ng.clock.now())
            ng.game.agent.tick()
            ng.clock.advance(minutes=10)
        assert [a.kind for a in ng.rt.store.alarms()] == ["forum_down"]
        come_back(ng.sim)
        ng.tick()
        ng.tick()
        told = [m.text for m in ng.bot_pms() if "论坛曾无法访问" in m.text]
        assert len(told) == 1 and "恢复于" in told[0]
    finally:
        ng.close()


# ---------------------------------------------------------------- settings


def test_notify__on_by_default_in_a_real_config_off_in_the_demo_config(tmp_path):
    settings = load_settings(parse_config(config_text("simple14")))
    assert settings.notify.enabled and settings.notify.director == "导演" and "approval" in settings.notify.kinds
    g = notify_game(tmp_path, "x3", notify={"enabled": False})
    try:
        g.until(at(1, "22:00"))
        assert g.bot_pms() == [] and g.send_posts() == 0
        assert not any(r.path.endswith("home.php") and r.query.get("do") == "pm" for r in g.sim.requests)
    finally:
        g.close()


@pytest.mark.parametrize("table, message", [
    ("kinds = [\"approvals\"]", "[notify].kinds: 未知的类型 'approvals'"),
    ("director_uid = 0", "[notify].director_uid"),
    ("quiet_hours = \"25:00-08:00\"", "[notify].quiet_hours"),
    ("email = \"x\"", "[notify].email: 未知的键"),
    ("short_name = \"状态局\"", "[notify].short_name: 简称“状态局”不能以指令词开头"),
    ("short_name = 2", "[notify].short_name: 应为游戏的简称"),
])
def test_notify__bad_settings_name_the_key(table, message):
    from forumbot.config.gamefile import ConfigError

    with pytest.raises(ConfigError) as info:
        load_settings(parse_config(config_text("simple14") + f"\n[notify]\n{table}\n"))
    assert message in str(info.value)


def test_notify__the_director_uid_from_the_config_wins(tmp_path):
    g = notify_game(tmp_path, "x3", notify={"director_uid": 999})  # nobody: the forum refuses
    try:
        g.until(at(1, "21:45"))
        [alarm] = [a for a in g.rt.store.alarms() if a.key == "notify"]
        assert "机器人无法给导演发站内信" in alarm.text and "uid" in alarm.text
        assert json.loads(json.dumps(alarm.detail))["error"].startswith(("UnknownRecipient", "PmNotAccepted"))
    finally:
        g.close()


# ---------------------------------------------------------------- the desk


def test_notify__the_desk_shows_what_the_director_did_by_pm_and_refuses_a_second_approval(tmp_path, monkeypatch):
    import re

    from forumbot.desk import create_app

    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    ng = notify_game(tmp_path, "x3")
    try:
        draft = final_waiting(ng)
        ng.says(f"批准 {ng.code_of(draft)}")
        ng.tick()
        app = create_app(ng.rt.config.path, clock=ng.clock, secret_key=b"k" * 32)
        app.testing = True
        client = app.test_client()
        drafts = client.get("/drafts").get_data(as_text=True)
        assert re.search(rf'data-draft="{draft.id}"[^\n]*站内信批准', drafts)
        log = client.get("/log").get_data(as_text=True)
        assert "导演（站内信）" in log and f"站内信指令「批准 {ng.code_of(draft)}」：已执行" in log
        actions = client.get("/actions").get_data(as_text=True)
        token = re.search(r'name="csrf_token" value="([^"]+)"', actions).group(1)
        answer = client.post(f"/drafts/{draft.id}/approve", data={"csrf_token": token}, follow_redirects=True)
        assert "已于" in answer.get_data(as_text=True) and "通过站内信批准" in answer.get_data(as_text=True)
    finally:
        ng.close()


# ---------------------------------------------------------------- forumbot notify


def test_notify__the_command_says_where_it_stands_and_sends_a_test_pm(tmp_path):
    from tests.forumbot.alarm_support import cli

    ng = notify_game(tmp_path, "7.2")
    try:
        draft = final_waiting(ng)
        status = cli(ng.game, "notify")
        assert status.exit_code == 0, status.output
        assert "站内信通知：开启" in status.output and f"导演：导演，uid {ng.uid(DIRECTOR)}" in status.output
        assert "上一条站内信" in status.output
        sent = cli(ng.game, "notify", "--test")
        assert sent.exit_code == 0, sent.output
        [test] = [m for m in ng.bot_pms() if body(m.text).startswith("【测试】")]
        assert f"pmid {test.pmid}" in sent.output
        assert any(f"#{draft.id}" in m.text for m in ng.bot_pms())
    finally:
        ng.close()


# ---------------------------------------------------------------- a post that failed


def test_notify__a_failed_post_is_told_with_its_alarm_and_resent_by_pm(ng):
    draft = final_waiting(ng)
    ng.sim.close_thread(ng.game.world.tids["vote1"])
    ng.says(f"批准 {ng.code_of(draft)}")
    ng.tick()
    assert ng.rt.outbox.get(draft.id).state is DraftState.FAILED
    (answer,) = [m.text for m in ng.bot_pms() if body(m.text).startswith(f"已批准 #{draft.id}")]
    assert f"现在：#{draft.id}" in answer and "发送失败" in answer and "帖子已关闭" in answer
    ng.tick(timedelta(minutes=3))  # min_interval 120 s: the alarm raised after it goes in the next notice
    told = "\n".join(m.text for m in ng.bot_pms())
    assert f"#{draft.id}（主题 {draft.tid}）发送失败" in told and "论坛拒绝了它：帖子已关闭" in told
    assert f"主题 {draft.tid} 已被关闭" in told  # the alarm: who must do what
    assert "mobile:" not in told
    code = ng.code_of(draft)
    ng.sim.close_thread(ng.game.world.tids["vote1"], closed=False)  # a moderator reopens it
    ng.says(f"重发 {code}")
    ng.tick()
    done = ng.rt.outbox.get(draft.id)
    assert done.state is DraftState.PUBLISHED
    assert len([p for p in ng.sim.posts(draft.tid) if done.marker in p.message]) == 1
    assert any(body(m.text).startswith(f"将重新发送 #{draft.id}") for m in ng.bot_pms())


def test_notify__the_example_config_has_it_on_and_the_demos_copy_off(tmp_path):
    from forumbot.config.gamefile import load_config
    from forumbot.demo.play import EXAMPLE_CONFIG
    from forumbot.demo.scenario import config_from

    assert load_settings(load_config(EXAMPLE_CONFIG)).notify.enabled
    copy = config_from(EXAMPLE_CONFIG, tmp_path / "g.toml", "http://127.0.0.1:9/", tmp_path / "g.sqlite")
    assert not load_settings(load_config(copy)).notify.enabled
    on = config_from(EXAMPLE_CONFIG, tmp_path / "h.toml", "http://127.0.0.1:9/", tmp_path / "h.sqlite",
                     notify={"enabled": True})
    assert load_settings(load_config(on)).notify.enabled


def test_notify__a_pm_stored_after_the_write_clock_wait_is_found_not_sent_again(tmp_path):
    """The claim is taken before the client waits for the account's flood clock (16 s on
    X3.5 after a post): the forum stamps the PM when its POST is handled, long after the
    claim. A lookup right after the lost answer — in the PM's own second, which no
    conversation view lists yet — must not count as "not stored" because the claim is
    old: it waits out the second the answer was lost in."""
    ng = notify_game(tmp_path, "x3", start=at(1, "12:00"), min_request_interval_seconds=0)
    try:
        ng.tick()
        notifier = ng.game.agent.notifier
        ng.rt.outbox.create_draft(DraftKind.CARD_NOTICE, ng.game.world.tids["progress"], "判罚通知：烧卖 蓝牌",
                                  now=ng.clock.now())
        ng.game.agent.client._last_write_at = ng.clock.now().timestamp()  # as if it had just posted
        ng.sim.faults.add(Fault.DROP_AFTER_STORE, match="op=send")  # stored, the answer lost
        ng.game.agent.tick()
        [row] = notifier.pmbox.rows("sending")
        assert row.attempts == 1
        notifier.send_pending(ng.clock.now())  # at once: the same second as the store
        ng.tick()
        assert notifier.pmbox.get(row.id).state == "sent" and notifier.pmbox.get(row.id).attempts == 1
        assert len([m for m in ng.bot_pms() if row.marker in m.text]) == 1
    finally:
        ng.close()


# ---------------------------------------------------------------- a post held for moderation


@pytest.mark.parametrize("discuz", ["x3", "7.2"])
def test_notify__a_post_held_for_moderation_is_told_with_a_code_not_a_command(tmp_path, discuz):
    """A director on a phone has no terminal: the moderation alarm's PM gives a 驳回 code
    (stop waiting for it) instead of `forumbot reject …`, and 驳回 by PM works."""
    ng = notify_game(tmp_path, discuz, start=at(1, "12:00"))
    try:
        ng.tick()
        ng.sim.settings.moderate_replies = True
        draft = ng.rt.outbox.create_draft(DraftKind.CARD_NOTICE, ng.game.world.tids["progress"], "判罚通知：烧卖 蓝牌",
                                          now=ng.clock.now())
        director.approve(ng.rt, draft.id, ng.clock.now(), actor=director.DIRECTOR_DESK)
        ng.tick(timedelta(minutes=3))
        assert ng.rt.outbox.get(draft.id).state is DraftState.PENDING_MODERATION
        ng.tick(timedelta(minutes=3))
        [told] = [m.text for m in ng.bot_pms() if "等待论坛审核" in m.text or "等待审核" in m.text]
        assert "forumbot" not in told.replace("（防重发标记", "") and "`" not in told
        code = re.search(r"「驳回 ([A-Z0-9]{4}) 理由：……」", told).group(1)
        ng.says(f"驳回 {code} 理由：不等了")
        ng.tick()
        assert ng.rt.outbox.get(draft.id).state is DraftState.REJECTED
        [answer] = [body(m.text) for m in ng.bot_pms() if body(m.text).startswith(f"已驳回 #{draft.id}")]
        assert "不再等它通过审核" in answer and "请版主删除它" in answer
    finally:
        ng.close()


def test_serve_log__a_released_post_says_so_not_none(tmp_path, caplog):
    """「稍后再发：None」 after a moderator's release: the log line says it was released."""
    import logging
    from types import SimpleNamespace

    from forumbot.agent.loop import TickReport
    from forumbot.store.outbox import PublishHow, PublishOutcome
    from forumbot.service.runner import log_events

    ng = notify_game(tmp_path, "x3", start=at(1, "12:00"))
    try:
        draft = ng.rt.outbox.create_draft(DraftKind.CARD_NOTICE, ng.game.world.tids["progress"], "判罚通知",
                                          now=ng.clock.now(), day=1)
        report = TickReport(at=ng.clock.now(), published=[
            PublishOutcome(draft.id, PublishHow.RELEASED, DraftState.PUBLISHED, pid=77),
            PublishOutcome(draft.id, PublishHow.WAITING, DraftState.APPROVED)])
        with caplog.at_level(logging.INFO, logger="forumbot.service"):
            log_events(SimpleNamespace(rt=ng.rt), report)
        lines = [r.getMessage() for r in caplog.records]
        assert f"第1日判罚通知 #{draft.id} 已通过论坛审核，已发布 (pid 77)" in lines
        assert f"第1日判罚通知 #{draft.id} 稍后再发" in lines and not any("None" in line for line in lines)
    finally:
        ng.close()


def test_notify__a_pm_sent_with_the_old_marker_line_is_still_found(tmp_path):
    """Earlier versions ended a PM with 「（forumbot:pm-…）」: a running game upgraded with
    such a PM left ``sending`` finds it by that marker, and sends nothing again."""
    from forumbot.store.codec import iso

    ng = notify_game(tmp_path, "x3", start=at(1, "12:00"))
    try:
        ng.tick()
        box = ng.game.agent.notifier.pmbox
        uid = ng.uid(DIRECTOR)
        with ng.rt.store.write() as conn:
            [row] = box.queue(uid, "【待你处理】旧版本发出的站内信", purpose="notice", now=ng.clock.now())
            conn.execute("UPDATE notify_pms SET state = 'sending', attempts = 1, attempted_at = ? WHERE id = ?",
                         (iso(ng.clock.now()), row.id))
        old = f"【待你处理】旧版本发出的站内信\n（forumbot:{row.marker}）"
        pmid = ng.sim.send_pm(BOT, DIRECTOR, old)
        ng.clock.advance(seconds=60)
        before = len(ng.bot_pms())
        ng.game.agent.notifier.send_pending(ng.clock.now())
        assert box.get(row.id).state == "sent" and box.get(row.id).pmid == pmid
        assert len(ng.bot_pms()) == before
        # and the director's reply quoting it is not read as commands from the old line
        from parsers.commands import parse

        assert parse(f"> x\n{old}\n状态") and all(c.text == "状态" for c in parse(f"{old}\n状态"))
    finally:
        ng.close()
