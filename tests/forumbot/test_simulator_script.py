"""Scripts, the demo game and the ``forumbot simulate`` command."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.simulator import BEIJING, SimClock, Simulator
from forumbot.simulator.script import ScriptError, apply_script, demo_script, parse_when
from forumbot.simulator.serve import prepare_forum

BASE = datetime(2026, 11, 30, 9, 0, tzinfo=BEIJING)

SCRIPT = """
[site]
start = "2026-11-30T09:00:00+08:00"
posts_per_page = 5
[site.settings]
floodctrl = 30

[[users]]
name = "导演"
password = "pw"
[[users]]
name = "饺子"
password = "pw"
[[users]]
name = "路人甲"
password = "pw"
banned = true

[[forums]]
name = "版杀区"

[[threads]]
key = "vote"
forum = "版杀区"
subject = "投票帖"
author = "导演"
message = "规则"
at = "-1h"

[[posts]]
key = "v1"
thread = "vote"
author = "饺子"
message = "投票对象：包子"
at = "-30m"

[[posts]]
thread = "vote"
author = "饺子"
message = "改票对象：导演"
at = "-10m"
quote = "v1"

[[posts]]
thread = "vote"
author = "路人甲"
message = "投票: 饺子"
at = "2026-11-30T08:55:00+08:00"

[[edits]]
post = "v1"
message = "投票对象：汤圆"
at = "-20m"
"""


@pytest.mark.parametrize(("value", "expected"), [
    pytest.param("+90s", BASE + timedelta(seconds=90), id="seconds"),
    pytest.param("-1h30m", BASE - timedelta(hours=1, minutes=30), id="combined"),
    pytest.param("+1d", BASE + timedelta(days=1), id="day"),
    pytest.param("2026-11-29T23:00:00+08:00", datetime(2026, 11, 29, 23, tzinfo=BEIJING), id="iso"),
    pytest.param("2026-11-29T23:00:00", datetime(2026, 11, 29, 23, tzinfo=BEIJING), id="naive-iso"),
    pytest.param(None, BASE, id="absent"),
])
def test_parse_when__offsets_and_iso(value: object, expected: datetime) -> None:
    assert parse_when(value, BASE, "x") == expected


def test_parse_when__bad_value_names_the_entry() -> None:
    with pytest.raises(ScriptError, match=r"posts\[3\]：无效的时间 'yesterday'"):
        parse_when("yesterday", BASE, "posts[3]")


def test_apply_script__toml(tmp_path: Path) -> None:
    path = tmp_path / "game.toml"
    path.write_text(SCRIPT, encoding="utf-8")
    forum = prepare_forum(port=0, script=path, clock=SimClock(BASE))
    sim = forum.sim
    assert sim.posts_per_page == 5 and sim.settings.floodctrl == 30
    posts = sim.posts(1)
    assert [p.author for p in posts] == ["导演", "饺子", "饺子", "路人甲"]
    assert posts[1].message.startswith("[i=s] 本帖最后由 饺子 于 2026-11-30 08:40 编辑 [/i]")
    assert posts[2].message.startswith("[quote][size=2][url=forum.php?mod=redirect&goto=findpost"
                                       f"&pid={posts[1].pid}&ptid=1]")
    assert posts[3].dateline == datetime(2026, 11, 30, 8, 55, tzinfo=BEIJING)
    assert sim.data.user("路人甲").banned
    assert forum.accounts[0] == ("导演", "pw")


@pytest.mark.parametrize(("patch", "message"), [
    pytest.param({"posts": [{"thread": "nope", "author": "饺子", "message": "x"}]},
                 r"posts\[0\]：未知的帖子 'nope'", id="unknown-thread"),
    pytest.param({"posts": [{"thread": "vote", "author": "无名", "message": "x"}]},
                 r"posts\[0\]：没有名为 '无名' 的用户", id="unknown-author"),
    pytest.param({"posts": [{"thread": "vote", "author": "饺子"}]},
                 r"posts\[0\]：缺少 'message'", id="missing-field"),
    pytest.param({"site": {"settings": {"floodctl": 3}}}, r"未知的设置 'floodctl'",
                 id="unknown-setting"),
])
def test_apply_script__errors_name_the_entry(patch: dict, message: str) -> None:
    script = {"users": [{"name": "饺子", "password": "pw"}], "forums": [{"name": "版杀区"}],
              "threads": [{"key": "vote", "subject": "s", "author": "饺子", "message": "m"}],
              **patch}
    with pytest.raises(ScriptError, match=message):
        apply_script(Simulator(clock=SimClock(BASE)), script)


def test_load_script__json_and_bad_file(tmp_path: Path) -> None:
    good = tmp_path / "game.json"
    good.write_text(json.dumps({"users": [{"name": "a", "password": "b"}]}), encoding="utf-8")
    assert prepare_forum(port=0, script=good, clock=SimClock(BASE)).accounts == [("a", "b")]
    bad = tmp_path / "bad.toml"
    bad.write_text("[[users]\n", encoding="utf-8")
    with pytest.raises(ScriptError, match="不是有效的"):
        prepare_forum(port=0, script=bad)


def test_demo_script__seeds_a_playable_game() -> None:
    forum = prepare_forum(port=0, clock=SimClock(BASE))
    names = [name for name, _ in forum.accounts]
    assert names[:2] == ["导演", "计票机器人"] and len(names) == 10
    assert {password for _, password in forum.accounts} == {"demo-password"}
    vote = forum.sim.posts(2)
    assert sum("投票对象" in p.message for p in vote) >= 5
    assert any(p.message.startswith("[quote]") for p in vote)
    assert any(p.message.startswith("[i=s] 本帖最后由") for p in vote)
    assert demo_script()["forums"] == [{"name": "版杀区"}]


def test_cli__help_has_an_example() -> None:
    result = CliRunner().invoke(main, ["simulate", "--help"])
    assert result.exit_code == 0 and "forumbot simulate --port 8080" in result.output


def test_cli__bad_script_is_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    result = CliRunner().invoke(main, ["simulate", "--port", "0", "--script", str(bad)])
    assert result.exit_code == 1 and result.output.startswith("错误：脚本")


def test_simulator__refuses_non_loopback_hosts() -> None:
    with pytest.raises(ValueError, match="回环地址"):
        Simulator(host="0.0.0.0")


def test_cli__help_documents_the_script_format() -> None:
    out = CliRunner().invoke(main, ["simulate", "--help"]).output
    for table in ("[site]", "[site.settings]", "[[users]]", "[[forums]]", "[[threads]]",
                  "[[posts]]", "[[edits]]", "--discuz", "7.2"):
        assert table in out, table


def test_cli__a_game_config_is_not_a_script(monkeypatch: pytest.MonkeyPatch) -> None:
    import forumbot.commands.simulate as command

    class NoWait:  # were the config accepted, serve nothing and return, never hang
        def wait(self) -> None:
            return None

    monkeypatch.setattr(command.threading, "Event", NoWait)
    config = Path(__file__).resolve().parents[2] / "config.toml"  # the example game config
    result = CliRunner().invoke(main, ["simulate", "--port", "0", "--script", str(config)])
    assert result.exit_code == 1
    assert "是游戏配置（里面有 [game]），不是模拟论坛的脚本" in result.output


@pytest.mark.parametrize(("script", "message"), [
    ({"game": {"players": ["饺子"]}}, r"是游戏配置（里面有 \[game\]）"),
    ({"bot": {"username": "计票机器人"}}, r"未知的表 'bot'（看起来像游戏配置）"),
    ({"user": [{"name": "a", "password": "b"}]}, r"未知的表 'user'"),
])
def test_apply_script__refuses_what_is_not_a_script(script: dict, message: str) -> None:
    with pytest.raises(ScriptError, match=message):
        apply_script(Simulator(clock=SimClock(BASE)), script)


def test_prepare_forum__discuz_from_the_flag_or_the_script(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[site]\ndiscuz = "7.2"\n[[users]]\nname = "a"\npassword = "b"\n', encoding="utf-8")
    assert prepare_forum(port=0, script=path, clock=SimClock(BASE)).sim.discuz == "7.2"
    assert prepare_forum(port=0, script=path, clock=SimClock(BASE), discuz="x3").sim.discuz == "x3"
    bad = tmp_path / "bad.toml"
    bad.write_text('[site]\ndiscuz = "6"\n', encoding="utf-8")
    with pytest.raises(ScriptError, match="discuz 必须是"):
        prepare_forum(port=0, script=bad, clock=SimClock(BASE))
