"""``forumbot schedule`` (SPEC §11): the days as JSON and as a Chinese table; a
calendar-only config is one the other commands load too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from tests.support import REPO

GAME = """
[forum]
base_url = "http://127.0.0.1:9/"
timezone = "Asia/Shanghai"

[game]
ruleset = "{ruleset}"
director = "导演"
bot = "计票机器人"
players = ["饺子", "包子", "汤圆", "月饼"]

[calendar]
start = 2026-12-04

[agent]
database = "game.sqlite"
"""


def write(tmp_path: Path, ruleset: str = "simple14", extra: str = "") -> Path:
    path = tmp_path / "game.toml"
    path.write_text(GAME.format(ruleset=ruleset) + extra, encoding="utf-8")
    return path


def run(*args: str):
    return CliRunner().invoke(main, list(args), prog_name="forumbot")


def test_schedule__json_as_spec_section_11(tmp_path: Path):
    result = run("schedule", "--config", str(write(tmp_path)), "--days", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert list(data) == ["days"]
    assert [{k: d[k] for k in ("number", "start", "deadline")} for d in data["days"]] == [
        {"number": 1, "start": "2026-12-04T09:00:00+08:00", "deadline": "2026-12-05T21:30:00+08:00"},
        {"number": 2, "start": "2026-12-06T09:00:00+08:00", "deadline": "2026-12-08T21:30:00+08:00"},
        {"number": 3, "start": "2026-12-09T09:00:00+08:00", "deadline": "2026-12-10T21:30:00+08:00"},
    ]
    day2 = data["days"][1]
    assert (day2["freeze"], day2["deadline_by"], day2["rest_day"]) == ("2026-12-08T20:30:00+08:00", "weekend",
                                                                        "2026-12-06")
    assert day2["reminders"] == [
        {"kind": "freeze", "minutes_before": 60, "at": "2026-12-08T19:30:00+08:00"},
        {"kind": "deadline", "minutes_before": 60, "at": "2026-12-08T20:30:00+08:00"},
    ]


@pytest.mark.parametrize(("ruleset", "day2"), [("dual", "2026-12-06T09:30:00+08:00"),
                                               ("s10", "2026-12-06T09:30:00+08:00"),
                                               ("s09", "2026-12-06T09:30:00+08:00")])
def test_schedule__the_other_rule_sets(tmp_path: Path, ruleset, day2):
    data = json.loads(run("schedule", "--config", str(write(tmp_path, ruleset)), "--days", "2", "--json").output)
    assert [d["start"] for d in data["days"]] == ["2026-12-04T09:30:00+08:00", day2]
    assert data["days"][0]["deadline"] == "2026-12-05T21:30:00+08:00"


def test_schedule__without_days_the_configured_days(tmp_path: Path):
    data = json.loads(run("schedule", "--config", str(write(tmp_path)), "--json").output)
    assert [d["number"] for d in data["days"]] == [1, 2, 3, 4]


def test_schedule__a_chinese_table(tmp_path: Path):
    path = write(tmp_path, extra="\n[[days]]\nnumber = 2\nvote_thread = 12\n")
    result = run("schedule", "--config", str(path), "--days", "4")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "日程：14人简易规则，时区 Asia/Shanghai（按 [calendar] 和规则集）"
    assert lines[1].split() == ["日", "开始", "改票截止", "截止", "提醒", "投票帖", "说明"]
    assert lines[2].split() == ["第1日", "2026-12-04", "周五", "09:00", "2026-12-05", "周六", "20:30", "2026-12-05",
                                "周六", "21:30", "19:30、20:30", "—", "第1日不因周末延长"]
    assert lines[3].split()[-3:] == ["12", "逢周末延长一天（2026-12-06", "周日）"]
    assert len(lines) == 6


def _days_only(tmp_path: Path) -> Path:
    """A config of [[days]] only (no [calendar]): the demo game written out by day."""
    from forumbot.demo.scenario import build_world, write_config
    from forumbot.simulator import Simulator

    return write_config(tmp_path / "days.toml", build_world(Simulator()), "http://127.0.0.1:9/", tmp_path / "db")


def test_schedule__a_config_without_calendar_lists_its_days(tmp_path: Path):
    config = _days_only(tmp_path)
    result = run("schedule", "--config", str(config), "--days", "5")
    assert result.exit_code == 0, result.output
    assert "配置里没有 [calendar]：按 [[days]]" in result.output
    assert result.output.splitlines()[-1] == "第4日起没有配置（加上 [calendar] 可以按规则集排出之后的日子）。"
    data = json.loads(run("schedule", "--config", str(config), "--json").output)
    assert [d["number"] for d in data["days"]] == [1, 2, 3]
    assert data["days"][0]["start"] == "2026-12-01T09:00:00+08:00"


def test_schedule__a_config_mistake_is_one_chinese_line(tmp_path: Path):
    path = write(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("start = 2026-12-04", 'start = "下周五"'), encoding="utf-8")
    result = run("schedule", "--config", str(path))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip() == f"错误：{path}: [calendar].start: 不是日期或日期时间：'下周五'（例：2026-12-04 或 " \
                                    "2026-12-04T09:00:00+08:00）"


def test_schedule__days_out_of_range_is_a_chinese_usage_error(tmp_path: Path):
    result = run("schedule", "--config", str(write(tmp_path)), "--days", "0")
    assert result.exit_code == 2 and "错误：选项 --days 的值无效：0 超出范围（1 到 366）" in result.output


@pytest.mark.parametrize("command", [("init",), ("status",), ("events",), ("drafts",), ("notify",), ("schedule",)],
                         ids=lambda c: " ".join(c))
def test_calendar_only_config__the_other_commands_load_it(tmp_path: Path, command):
    # No [[days]], no tids: the days exist with their times and no threads (the bot's, later).
    path = write(tmp_path)
    assert run("init", "--config", str(path)).exit_code == 0
    result = run(*command, "--config", str(path))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
