"""Issue 18 #5: only ``run``/``serve`` and ``init`` create a game's state. ``status`` and
every other command on a missing database say so in Chinese, exit non-zero and create
nothing; ``check`` and ``login`` (before a game's first run) keep nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from tests.forumbot.alarm_support import cli, game_on
from tests.forumbot.game_support import config_text


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "game.toml"
    path.write_text(config_text("simple14", database=str(tmp_path / "state" / "game.sqlite")), encoding="utf-8")
    (tmp_path / "state").mkdir()
    return path


def database(config: Path) -> Path:
    return config.parent / "state" / "game.sqlite"


@pytest.mark.parametrize("args", [
    ["status"], ["status", "--json"], ["drafts"], ["show", "1"], ["approve", "1"], ["events"], ["retally", "--day", "1"],
    ["night", "--day", "2", "--out", "饺子", "--yes"], ["adopt"], ["mark-copy"], ["retry", "1"], ["evidence", "--day", "1", "--out", "{tmp}/day1.json"],
])
def test_cmd_state__a_missing_database_is_said_and_not_created(config: Path, args: list[str]) -> None:
    args = [a.replace("{tmp}", str(config.parent)) for a in args]  # nothing written in the working folder
    result = CliRunner().invoke(main, [*args, "--config", str(config)])
    assert result.exit_code != 0, result.output
    assert "状态数据库不存在" in result.output and "Traceback" not in result.output
    assert str(database(config)) in result.output
    assert not database(config).exists()
    assert list(database(config).parent.iterdir()) == []


def test_cmd_state__init_creates_it_once(config: Path) -> None:
    made = CliRunner().invoke(main, ["init", "--config", str(config)])
    assert made.exit_code == 0, made.output
    assert "已新建状态数据库" in made.output and database(config).exists()
    again = CliRunner().invoke(main, ["init", "--config", str(config)])
    assert again.exit_code == 0 and "已经存在" in again.output
    status = CliRunner().invoke(main, ["status", "--config", str(config)])
    assert "状态数据库不存在" not in status.output


def test_cmd_state__adopt_and_mark_copy_with_nothing_to_decide_refuse_in_chinese(config: Path) -> None:
    CliRunner().invoke(main, ["init", "--config", str(config)])
    for command, said in (("adopt", "没有需要接管的帖子"), ("mark-copy", "论坛上没有本局另一份状态的帖子")):
        result = CliRunner().invoke(main, [command, "--config", str(config)])
        assert result.exit_code == 1 and f"错误：{said}" in result.output, result.output


def test_cmd_state__check_before_the_first_run_keeps_nothing(tmp_path: Path) -> None:
    game = game_on(tmp_path)
    try:
        db = Path(game.rt.settings.agent.database)
        game.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        result = cli(game, "check")
        assert "状态数据库不存在" not in result.output and "登录" in result.output, result.output
        assert not db.exists()
    finally:
        game.sim.stop()


def test_cmd_state__status_all_names_a_game_without_its_database_and_creates_none(config: Path) -> None:
    result = CliRunner().invoke(main, ["status", "--all", "--games", str(config.parent)])
    assert "状态数据库不存在" in result.output, result.output
    assert not database(config).exists()
