"""The director's night commands on a game with identities (no forum): ``forumbot action``
(ruled like a PM), ``forumbot status`` (where each night stands; the proposal only with
``--secrets``), ``forumbot night --confirm N`` (the proposal into the next morning's entry)."""

from __future__ import annotations

import json
import time

from click.testing import CliRunner

from forumbot.cli import main
from forumbot.game.runtime import open_runtime
from forumbot.store.records import EventKind
from tests.engine.night_builders import SEER14, SIMPLE, WITCH14, WOLVES14, at
from tests.forumbot.identity_support import simple_game

IDENTITY_WORDS = ("狼人", "预言家", "女巫", "长老", "村民")


def at_clock(monkeypatch, now) -> None:
    """The commands' clock stands (almost) still at ``now``."""
    monkeypatch.setenv("FORUMBOT_CLOCK", f"accelerated;origin={now.isoformat()};factor=0.000001;wall={time.time()}")


def game(tmp_path, monkeypatch, now):
    config = simple_game(tmp_path, extra=f'[agent]\ndatabase = "{tmp_path / "g.sqlite"}"\n')
    at_clock(monkeypatch, now)
    rt = open_runtime(config)
    rt.store.append_event(1, EventKind.SHERIFF, {"source": "result", "why": "vote", "player": SIMPLE[8]},
                          actor="bot", at=at(2, 21, 31), game_at=at(2, 21, 30))
    rt.close()
    return config


def run(config, *args):
    result = CliRunner().invoke(main, [*args, "--config", str(config)], catch_exceptions=False)
    return result


def test_cmd_nights__actions_status_and_confirm(tmp_path, monkeypatch):
    config = game(tmp_path, monkeypatch, at(2, 22, 0))
    r = run(config, "action", WOLVES14[0], "杀人", "春卷", "--at", "12-02 21:40")
    assert r.exit_code == 0 and "已收到：杀人 春卷" in r.output and "第1晚" in r.output
    r = run(config, "action", SIMPLE[9], "杀人", "春卷")
    assert "未计入" in r.output and "没有这个技能" in r.output
    for who, skill in ((SEER14, "放弃"), (WITCH14, "放弃")):
        assert run(config, "action", who, skill).exit_code == 0
    r = run(config, "status")
    assert "第1晚：收集行动中（等待行动（12-02 23:00 截止））" in r.output
    assert not [w for w in IDENTITY_WORDS if w in r.output.split("第1晚", 1)[1]]
    at_clock(monkeypatch, at(2, 23, 5))
    r = run(config, "status")
    assert "第1晚：结算建议待确认（第1版）" in r.output and "--secrets" in r.output
    assert "春卷" not in r.output.split("第1晚", 1)[1]
    r = run(config, "status", "--secrets")
    assert "春卷（村民）出局，原因：杀人" in r.output
    data = json.loads(run(config, "status", "--json").output)
    assert data["nights"] == [{"night": 1, "state": "ready", "version": None, "pending": []}]
    r = run(config, "night", "--confirm", "1", "--yes")
    assert r.exit_code == 0 and "已确认第1晚（第1版）：春卷" in r.output
    r = run(config, "status")
    assert "第1晚：已确认（第1版" in r.output
    r = run(config, "night", "--confirm", "1", "--yes")
    assert r.exit_code != 0 and "已经确认" in r.output


def test_cmd_nights__a_game_without_identities_refuses_the_night_commands(tmp_path, monkeypatch):
    from tests.forumbot.identity_support import game_toml

    config = tmp_path / "game.toml"
    config.write_text(game_toml(extra=f'[agent]\ndatabase = "{tmp_path / "g.sqlite"}"\n'), encoding="utf-8")
    at_clock(monkeypatch, at(2, 22, 0))
    open_runtime(config).close()  # the game's state exists (forumbot init)
    r = run(config, "action", "饺子", "杀人", "包子")
    assert r.exit_code != 0 and "没有身份表" in r.output
    r = run(config, "night")
    assert r.exit_code != 0 and "--day" in r.output
