"""The director's commands, run through click against a real store of a played game day.

The game is played in-process up to a chosen moment on the simulator (real HTTP), then
each command is invoked as the director would, and its effect checked in the store and
in the audit log.
"""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from forumbot.game import director
from forumbot.cli import main
from forumbot.demo.play import play, setup_game
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.game.clock import AcceleratedClock
from forumbot.game.runtime import CLOCK_ENV, clock_to_env, open_runtime
from forumbot.demo.scenario import PASSWORD, at


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The scripted game up to 21:50 on day 2, the director approving everything until
    21:00: day 2's final count is waiting for approval."""
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    game = setup_game(tmp_path_factory.mktemp("director"))
    play(game, until=at(2, "21:00"))
    play(game, until=at(2, "21:50"), approve=False)
    config = game.rt.config.path
    game.close()
    # The commands run "now" in game time: a real-speed clock starting where the game is.
    os.environ[CLOCK_ENV] = clock_to_env(AcceleratedClock(origin=game.clock.now(), factor=1.0))
    yield game, config
    os.environ.pop(CLOCK_ENV, None)
    game.sim.stop()


def invoke(config, *args, input=None):
    result = CliRunner().invoke(main, [*args[:1], "--config", str(config), *args[1:]], input=input,
                                catch_exceptions=False)
    return result


def audit_actions(config):
    rt = open_runtime(config)
    try:
        return [(e.actor, e.action) for e in rt.store.audit_log()]
    finally:
        rt.close()


def test_cmd_status__shows_day_tally_and_waiting_drafts(played):
    _, config = played
    result = invoke(config, "status", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["day"] == 2
    assert data["tally"]["counts"] == {"包子": 3, "月饼": 3}
    assert data["drafts_waiting"], "day 2's final count waits for the director"
    assert data["sheriff"] == "饺子"


def test_cmd_drafts_show_approve__final_count(played):
    _, config = played
    listing = invoke(config, "drafts")
    assert "最终计票" in listing.output
    draft_id = int(listing.output.split("#", 1)[1].split()[0])
    shown = invoke(config, "show", str(draft_id))
    assert shown.exit_code == 0 and "【最终计票】" in shown.output
    approved = invoke(config, "approve", str(draft_id))
    assert approved.exit_code == 0 and "已批准" in approved.output
    assert ("director(cli)", "outbox.approved") in audit_actions(config)


def test_cmd_reject__needs_a_reason_and_is_audited(played):
    _, config = played
    rt = open_runtime(config)
    draft = rt.outbox.create_draft(DraftKind.CARD_NOTICE, 1, "测试草稿内容", now=rt.clock.now())
    rt.close()
    assert invoke(config, "reject", str(draft.id)).exit_code != 0  # --why is required
    result = invoke(config, "reject", str(draft.id), "--why", "重复")
    assert result.exit_code == 0
    rt = open_runtime(config)
    assert rt.outbox.get(draft.id).state is DraftState.REJECTED
    rt.close()


def test_cmd_out_and_sheriff__change_state_and_name_bad_players(played):
    _, config = played
    bad = invoke(config, "out", "路人甲", "--why", "other", "--yes")
    assert bad.exit_code != 0 and "不是玩家" in bad.output and "Traceback" not in bad.output
    assert invoke(config, "sheriff", "bob_2", "--yes").exit_code == 0
    status = json.loads(invoke(config, "status", "--json").output)
    assert status["sheriff"] == "bob_2"
    assert invoke(config, "sheriff", "饺子", "--yes").exit_code == 0


def test_cmd_alias_and_retally(played):
    _, config = played
    assert invoke(config, "alias", "小笼包", "小笼", "--yes").exit_code == 0
    result = invoke(config, "retally", "--day", "2", "--json")
    assert result.exit_code == 0
    assert json.loads(result.output)["counts"] == {"包子": 3, "月饼": 3}


def test_cmd_card__ladder_and_notice_draft(played):
    _, config = played
    result = invoke(config, "card", "月饼", "blue", "--why", "消极发言")
    assert result.exit_code == 0 and "判罚通知草稿" in result.output
    rt = open_runtime(config)
    notices = [d for d in rt.outbox.drafts() if d.kind is DraftKind.CARD_NOTICE and "月饼" in d.body]
    assert notices and "蓝牌" in notices[-1].body
    assert any(e.actor == "director" for e in rt.store.audit_log())
    rt.close()


def test_cmd_card_undo__takes_a_card_back_with_a_notice(played):
    _, config = played
    assert invoke(config, "card", "Alice", "blue", "--why", "记错了").exit_code == 0
    listed = invoke(config, "status").output
    entry = int(listed.split("已给判罚 #")[-1].split("：")[0])
    assert "Alice 蓝牌" in listed.split("已给判罚 #")[-1]
    refused = invoke(config, "card-undo", str(entry), "--why", "给错了人", input="n\n")
    assert refused.exit_code != 0 and "未执行" in refused.output and "Alice" in refused.output
    done = invoke(config, "card-undo", str(entry), "--why", "给错了人", "--yes")
    assert done.exit_code == 0 and "撤销通知草稿" in done.output, done.output
    assert f"已给判罚 #{entry}" not in invoke(config, "status").output
    assert ("director", "card.retracted") in audit_actions(config)


def test_cmd_night__drafts_the_morning_announcement(played):
    _, config = played
    result = invoke(config, "night", "--day", "3", "--out", "Alice", "--yes")
    assert result.exit_code == 0 and "第3日公示草稿" in result.output
    rt = open_runtime(config)
    (draft,) = [d for d in rt.outbox.drafts() if d.kind is DraftKind.ANNOUNCEMENT and d.day == 3]
    assert "Alice：出局（夜晚）" in draft.body
    rt.close()


def test_cmd_accelerate_substitute_count_now(played):
    _, config = played
    assert invoke(config, "substitute", "烧卖", "替补甲", "--yes").exit_code == 0
    late = invoke(config, "count-now")  # 21:50: day 2's voting is over
    assert late.exit_code != 0 and "投票已截止" in late.output
    assert late.output.startswith("错误：") and "Error" not in late.output  # the director reads Chinese
    assert invoke(config, "count-now", "--day", "3").exit_code != 0  # not started yet
    assert invoke(config, "accelerate", "--day", "9", "--yes").exit_code != 0  # no such day: one line
    assert invoke(config, "accelerate", "--day", "3", "--yes").exit_code == 0


def test_cmd_errors__bad_config_names_the_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[game]\nruleset = "s11"\nplayers = ["a"]\n', encoding="utf-8")
    result = invoke(bad, "status")
    assert result.exit_code != 0
    assert "[game].ruleset" in result.output and "Traceback" not in result.output


def test_cmd_help__every_command_documents_itself_with_an_example():
    runner = CliRunner()
    for name, command in main.commands.items():
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, name
        assert "例：" in result.output, f"{name} --help has no example"


def test_cmd_status__counts_acceleration_requests(played):
    game, config = played
    from datetime import timedelta

    from parsers.models import Post, TimePrecision

    rt = open_runtime(config)
    progress = game.world.tids["progress"]
    when = at(2, "20:00")
    posts = [Post(tid=progress, pid=9000 + i, floor=10 + i, author=name, author_uid=None,
                  posted_at=when + timedelta(minutes=i), time_precision=TimePrecision.SECOND,
                  html="申请加速", text="申请加速")
             for i, name in enumerate(["饺子", "包子", "bob_2"])]
    rt.store.record_posts(posts, when)
    # before the deadline: the requests and the 14人简易 quorum (more than half of the living)
    status = director.status(rt, at(2, "20:30"))
    rt.close()
    data = status.acceleration
    assert [r[0] for r in data.requests] == ["饺子", "包子", "bob_2"]
    assert (data.needed, data.enough) == (4, False)  # 7 living: more than half is 4
    assert "加速申请 3/7 人（需要 4 人，超过存活玩家的一半），未达到" in data.describe()
    # after the deadline the day cannot be accelerated any more: status does not offer it
    assert json.loads(invoke(config, "status", "--json").output)["acceleration"] is None


def test_cmd_card__accepting_a_proposal_with_another_card(played):
    """The director may give another card than the one proposed: the proposal is settled
    (dismissed, saying so) and the ledger holds the card actually given."""
    _, config = played
    rt = open_runtime(config)
    (lurk,) = [p for p in rt.store.proposals() if p.player == "烧卖" and p.reason_code == "lurking_day" and p.day == 1]
    rt.close()
    assert lurk.color.value == "blue"
    result = invoke(config, "card", "烧卖", "yellow", "--why", "第1日潜水", "--proposal", str(lurk.id))
    assert result.exit_code == 0, result.output
    rt = open_runtime(config)
    try:
        assert rt.store.proposal(lurk.id).state.value == "dismissed"
        assert [(c.player, c.color.value) for c in rt.store.cards(player="烧卖")] == [("烧卖", "yellow")]
    finally:
        rt.close()


def test_cmd_idiot__recorded_for_the_following_votes(played):
    _, config = played
    assert invoke(config, "idiot", "路人甲", "--yes").exit_code != 0
    result = invoke(config, "idiot", "小笼包", "--yes")
    assert result.exit_code == 0 and "小笼包 发动【若愚】" in result.output
    rt = open_runtime(config)
    try:
        from forumbot.game.state import current_state

        assert "小笼包" in current_state(rt.config, rt.store).idiots_revealed
        assert any(e.actor == "director" and e.action == "event.idiot" for e in rt.store.audit_log())
    finally:
        rt.close()


def test_cmd_void__the_directors_ruling_on_one_post(played):
    """Day 2: 烧卖's vote for 包子 (the first-seen text) is ruled void by the director:
    包子 drops to 2 and the ruling carries the director's reason."""
    game, config = played
    rt = open_runtime(config)
    (pid,) = [p.pid for p in rt.store.posts_in_thread(game.world.tids["vote2"])
              if p.author == "烧卖" and "投票对象" in p.text]
    rt.close()
    assert invoke(config, "void", "999999", "--why", "x", "--yes").exit_code != 0  # never seen: one line
    assert invoke(config, "void", str(pid), "--yes").exit_code != 0  # --why is required
    asked = invoke(config, "void", str(pid), "--why", "串号嫌疑", input="n\n")  # shown, not done
    assert asked.exit_code != 0 and "4楼 烧卖：有效，计入 → 废票：导演判定无效" in asked.output
    assert "未执行" in asked.output
    unsure = invoke(config, "void", str(pid), "--why", "串号嫌疑", input="嗯\n")  # asked again, then no input
    assert unsure.exit_code != 0 and "请回答 y（是）或 n（否）" in unsure.output and "已取消" in unsure.output
    assert "Error" not in unsure.output and "invalid input" not in unsure.output
    result = invoke(config, "void", str(pid), "--why", "串号嫌疑", input="是\n")  # the director answers in Chinese
    assert result.exit_code == 0, result.output
    assert "已记录事件" in result.output
    data = json.loads(invoke(config, "retally", "--day", "2", "--json").output)
    assert data["counts"]["包子"] == 2
    (ruling,) = [v for v in data["votes"] if v["pid"] == pid]
    assert (ruling["valid"], ruling["reason"], ruling["detail"]) == (False, "director_void", "串号嫌疑")


def test_final_count__rejected_then_redrafted_only_after_a_correction(tmp_path):
    """The director rejects day 2's final count, adds what was missing (here: voids a post)
    and gets a new final count with the corrected tally; a rejection alone redrafts nothing."""
    game = setup_game(tmp_path)
    try:
        play(game, until=at(2, "21:00"))
        play(game, until=at(2, "21:50"), approve=False)
        rt = game.rt
        (final,) = [d for d in director.waiting(rt) if d.kind is DraftKind.FINAL_COUNT]
        director.reject(rt, final.id, "烧卖的票有争议", game.clock.now())
        play(game, until=at(2, "22:10"), approve=False)
        assert not [d for d in director.waiting(rt) if d.kind is DraftKind.FINAL_COUNT]
        (pid,) = [p.pid for p in rt.store.posts_in_thread(game.world.tids["vote2"])
                  if p.author == "烧卖" and "投票对象" in p.text]
        director.void_post(rt, pid, "串号嫌疑", game.clock.now())
        play(game, until=at(2, "22:30"), approve=False)
        (again,) = [d for d in director.waiting(rt) if d.kind is DraftKind.FINAL_COUNT]
        assert "[b]结果：月饼 出局[/b]" in again.body and "烧卖：导演判定无效" in again.body
    finally:
        game.close()
        game.sim.stop()


def test_cmd_approve__a_new_thread_with_the_directors_subject(played):
    _, config = played
    rt = open_runtime(config)
    draft = rt.outbox.create_new_thread(3, "【饺子村】第三日 投票帖", "第三日白天开始，请在本帖投票。", now=rt.clock.now(), day=3)
    other = rt.outbox.create_draft(DraftKind.CARD_NOTICE, 1, "另一篇测试草稿", now=rt.clock.now())
    rt.close()
    listing = invoke(config, "drafts")
    assert "版块 3 的新帖「【饺子村】第三日 投票帖」" in listing.output and "帖子 0" not in listing.output
    refused = invoke(config, "approve", str(other.id), "--subject", "公示不是新帖")
    assert refused.exit_code != 0 and "不是新帖" in refused.output
    approved = invoke(config, "approve", str(draft.id), "--subject", "【饺子村】D3 投票帖")
    assert approved.exit_code == 0 and "D3 投票帖" in approved.output, approved.output
    rt = open_runtime(config)
    try:
        done = rt.outbox.get(draft.id)
        assert (done.state, done.subject) == (DraftState.APPROVED, "【饺子村】D3 投票帖")
        rt.outbox.reject(draft.id, "director", "测试完毕", now=rt.clock.now())  # leave the game as it was
        rt.outbox.reject(other.id, "director", "测试完毕", now=rt.clock.now())
    finally:
        rt.close()
