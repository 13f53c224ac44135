"""The director's event commands through click (issue 11, issue 12 items 5, 9, 11): each
shows what it will change and asks (``--yes`` skips), each can be undone, and what they
print is Chinese."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.game.runtime import CLOCK_ENV, clock_to_env, open_runtime
from forumbot.game.clock import AcceleratedClock
from tests.forumbot.game_support import at, config_text


@pytest.fixture
def game(tmp_path):
    """A simple14 game in a store: day 2 under way (20:00), four votes in."""
    config = tmp_path / "game.toml"
    config.write_text(config_text("simple14", sheriff="饺子", database=str(tmp_path / "g.sqlite")), encoding="utf-8")
    from tests.forumbot.game_support import StoreGame
    from forumbot.simulator import SimClock

    clock = SimClock(start=at(2, "20:00"))
    g = StoreGame(open_runtime(config, clock=clock), clock)
    g.vote(2, "10:00", "包子", "月饼")
    g.vote(2, "10:10", "汤圆", "月饼")
    g.vote(2, "10:20", "月饼", "包子")
    g.vote(2, "10:30", "小笼包", "包子")
    g.close()
    set_now(at(2, "20:00"))
    yield config
    os.environ.pop(CLOCK_ENV, None)


def set_now(when):
    os.environ[CLOCK_ENV] = clock_to_env(AcceleratedClock(origin=when, factor=1.0))


def invoke(config, *args, input=None):
    return CliRunner().invoke(main, [args[0], "--config", str(config), *args[1:]], input=input,
                              catch_exceptions=False)


def state(config):
    from forumbot.game.state import current_state

    rt = open_runtime(config)
    try:
        return current_state(rt.config, rt.store)
    finally:
        rt.close()


def test_out__shows_the_change_asks_and_does_nothing_on_no(game):
    shown = invoke(game, "out", "月饼", "--why", "hunter", "--at", "12-02 19:00", input="n\n")
    assert shown.exit_code == 1 and "未执行" in shown.output
    assert "将记录：12-02 19:00 月饼 被猎人带走" in shown.output
    assert "结果：平票：包子、月饼；无人出局 → 包子 出局" in shown.output
    assert "票数：包子 2，月饼 2 → 包子 1" in shown.output
    assert "4楼 月饼：有效，计入 → 有效，不计入（投票人截止前已出局）" in shown.output
    assert not state(game).is_out("月饼")
    done = invoke(game, "out", "月饼", "--why", "hunter", "--at", "12-02 19:00", input="y\n")
    assert done.exit_code == 0 and "已记录事件 #1" in done.output
    assert state(game).is_out("月饼", at(2, "19:00")) and not state(game).is_out("月饼", at(2, "18:59"))


def test_undo__takes_an_event_back_and_undo_of_the_undo_brings_it_back(game):
    assert invoke(game, "out", "月饼", "--why", "card", "--yes").exit_code == 0
    assert invoke(game, "undo", "1", "--yes").exit_code != 0  # --why is required
    undone = invoke(game, "undo", "1", "--why", "手误", "--yes")
    assert undone.exit_code == 0 and "撤销事件 #1" in undone.output
    assert not state(game).is_out("月饼")
    assert invoke(game, "undo", "2", "--why", "撤销错了", "--yes").exit_code == 0
    assert state(game).is_out("月饼")
    listing = invoke(game, "events").output
    assert "#1" in listing and "#2" in listing and "[已撤销，见 #3]" in listing.splitlines()[1]
    data = json.loads(invoke(game, "events", "--json").output)
    assert [(e["id"], e["kind"], e["live"]) for e in data] == [(1, "out", True), (2, "retract", False),
                                                               (3, "retract", True)]
    assert data[0]["game_at"].startswith("2026-12-02T20:00:0") and data[0]["actor"] == "director"


def test_correct__wrong_player(game):
    invoke(game, "night", "--day", "2", "--out", "汤圆", "--yes")
    result = invoke(game, "correct", "1", "--player", "包子", "--because", "录错了人", "--yes")
    assert result.exit_code == 0, result.output
    assert "更正事件 #1" in result.output and "包子" in result.output
    s = state(game)
    assert s.is_out("包子", at(2, "09:00")) and not s.is_out("汤圆")


def test_night__late_entry_takes_effect_at_the_days_start(game):
    result = invoke(game, "night", "--day", "2", "--out", "月饼", "--yes")
    assert result.exit_code == 0
    assert "（12-02 09:00 生效）" in result.output and "10:20" not in result.output
    assert "包子 2，月饼 2 → 包子 1" in result.output  # 月饼's 10:20 vote no longer counts, nor the votes on him
    assert "4楼 月饼：有效，计入 → 废票：已出局角色投票（诈尸）" in result.output


def test_sheriff_and_draw__the_badge(game):
    invoke(game, "out", "饺子", "--why", "card", "--yes")
    bad = invoke(game, "sheriff", "饺子", "--yes")
    assert bad.exit_code != 0 and "已出局" in bad.output and "Traceback" not in bad.output
    drawn = invoke(game, "draw-sheriff", "--seed", "5", "--yes")
    assert drawn.exit_code == 0, drawn.output
    assert "候选：包子、汤圆、月饼、小笼包、烧卖" in drawn.output
    assert state(game).sheriff in ("包子", "汤圆", "月饼", "小笼包", "烧卖")


def test_status__after_the_deadline_says_so_in_chinese(game):
    set_now(at(2, "22:00"))
    text = invoke(game, "status").output
    assert "(已截止 left)" not in text and "（投票已截止）" in text
    assert not any(word in text for word in ("left", "sheriff", "tally", "non-voters", "waiting"))
    data = json.loads(invoke(game, "status", "--json").output)
    assert data["voting_over"] is True and data["time_left"] is None


def test_status__waits_for_the_night_and_the_successor(game):
    invoke(game, "out", "饺子", "--why", "hunter", "--yes")
    set_now(at(2, "22:00"))
    text = invoke(game, "status").output
    assert "等待导演" in text and "第3日前夜的结果尚未录入" in text and "等待 饺子（出局）指定继任者" in text


def test_alias_and_substitute__nonsense_is_refused(game):
    """Issue 12 item 9: alias 饺子 包子 and substitute 饺子 饺子 say why they are refused."""
    alias = invoke(game, "alias", "饺子", "包子", "--yes")
    assert alias.exit_code != 0 and "“包子”就是玩家 包子 的名字" in alias.output
    sub = invoke(game, "substitute", "饺子", "饺子", "--yes")
    assert sub.exit_code != 0 and "“饺子”就是玩家 饺子" in sub.output


def test_count_now__day_option(game):
    assert invoke(game, "count-now", "--day", "2").exit_code == 0
    assert "没有第9日" in invoke(game, "count-now", "--day", "9").output


def test_every_event_command_documents_itself():
    for name in ("out", "identity-lost", "night", "sheriff", "draw-sheriff", "scapegoat", "voters", "idiot",
                 "accelerate", "substitute", "alias", "void", "undo", "correct", "events", "redraft"):
        result = CliRunner().invoke(main, [name, "--help"])
        assert result.exit_code == 0 and "例：" in result.output, name
