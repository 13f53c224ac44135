"""``forumbot evidence`` and ``forumbot tally --evidence`` at the command line: a damaged
or hand-edited evidence file is a clear error or a reported difference (exit 1 or 3),
never a silent different count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.evidence import checksum
from tests.forumbot.game_support import at
from tests.forumbot.test_evidence import night_late_and_a_retraction


@pytest.fixture
def exported(tmp_path):
    """A day with events and edits, counted live, exported through the CLI."""
    g, day, _ = night_late_and_a_retraction(tmp_path)
    try:
        g.rt.store.save_tally(day, g.tally(day), at=at(day, "21:45"))
        live = g.rt.store.tally(day).data
    finally:
        g.close()
    out = tmp_path / "day2.json"
    result = CliRunner().invoke(main, ["evidence", "--config", str(tmp_path / "game.toml"), "--day", "2",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, live


def run(*args: str):
    return CliRunner().invoke(main, ["tally", *args], env={"COLUMNS": "200"})


def rewrite(path: Path, change, *, fix_checksum: bool = False) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    if fix_checksum:
        data["checksum"] = checksum(data)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def _post(data: dict, author: str) -> dict:
    (post,) = [p for p in data["posts"] if p["author"] == author and p["thread"] == "vote"]
    return post


def first_text(author: str, text: str):
    def change(data: dict) -> None:
        _post(data, author)["seen"][0]["text"] = text
    return change


def test_cmd_evidence__untouched_file_recounts_to_the_live_tally(exported):
    out, live = exported
    result = run("--evidence", str(out), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == live
    table = run("--evidence", str(out))
    assert table.exit_code == 0 and "完全一致" in table.output and "Traceback" not in table.output


def test_cmd_evidence__reformatted_file_is_the_same_evidence(exported):
    out, live = exported
    data = json.loads(out.read_text(encoding="utf-8"))
    out.write_text(json.dumps(data, ensure_ascii=True, indent=4, sort_keys=True), encoding="utf-8")
    result = run("--evidence", str(out), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == live


def test_cmd_evidence__an_edited_vote_is_reported_with_the_difference(exported):
    out, live = exported
    rewrite(out, first_text("烧卖", "投票对象：汤圆\n投票理由：改了"))
    result = run("--evidence", str(out), "--json")
    assert result.exit_code == 3
    assert "校验和不符" in result.stderr and "不一致" in result.stderr
    pid = next(v["pid"] for v in live["votes"] if v["voter"] == "烧卖")
    assert f"votes[pid {pid}].target：实时计票 \"包子\"，复核 \"汤圆\"" in result.stderr
    assert json.loads(result.stdout)["counts"] != live["counts"]  # the recount of what the file says


def test_cmd_evidence__an_edit_with_a_recomputed_checksum_still_differs(exported):
    out, live = exported
    rewrite(out, first_text("烧卖", "投票对象：汤圆\n投票理由：改了"), fix_checksum=True)
    result = run("--evidence", str(out))
    assert result.exit_code == 3
    assert "校验和不符" not in result.output and "不一致" in result.output and "counts." in result.output


def test_cmd_evidence__a_removed_event_is_a_difference(exported):
    out, _ = exported

    def drop_night(data: dict) -> None:
        data["events"] = [e for e in data["events"] if e["kind"] != "night"]
    rewrite(out, drop_night, fix_checksum=True)
    result = run("--evidence", str(out), "--json")
    assert result.exit_code == 3 and "voter_out" in result.stderr


def test_cmd_evidence__an_edited_live_tally_is_a_difference(exported):
    out, _ = exported

    def change(data: dict) -> None:
        data["live_tally"]["tally"]["counts"]["包子"] += 1
    rewrite(out, change, fix_checksum=True)
    result = run("--evidence", str(out))
    assert result.exit_code == 3 and "counts.包子" in result.output


def test_cmd_evidence__an_edited_comment_only_is_still_reported(exported):
    out, _ = exported

    def change(data: dict) -> None:
        data["说明"][0] = "随便写点什么"
    rewrite(out, change)
    result = run("--evidence", str(out))
    assert result.exit_code == 3
    assert "导出后被改动过" in result.output and "完全一致" in result.output


@pytest.mark.parametrize("damage, message", [
    (lambda text: text[: len(text) // 2], "不是完整的 JSON"),
    (lambda text: "", "不是完整的 JSON"),
    (lambda text: text.replace('"format": "forumbot-evidence"', '"format": "something"'), "不是 forumbot 的证据文件"),
    (lambda text: text.replace('"format_version": 1', '"format_version": 99'), "请升级 forumbot"),
    (lambda text: text.replace('"events": [', '"events_gone": [', 1), "events：缺少这一项"),
])
def test_cmd_evidence__damaged_file_is_one_clear_error(exported, damage, message):
    out, _ = exported
    out.write_text(damage(out.read_text(encoding="utf-8")), encoding="utf-8")
    result = run("--evidence", str(out), "--json")
    assert result.exit_code == 1, result.output
    assert message in result.output and "Traceback" not in result.output
    assert result.stdout == "" or not result.stdout.lstrip().startswith("{")


@pytest.mark.parametrize("change, where", [
    (lambda d: _post(d, "烧卖").__setitem__("pid", "abc"), ".pid：应为整数"),
    (lambda d: _post(d, "烧卖")["seen"][0].pop("text"), ".text：缺少这一项"),
    (lambda d: _post(d, "烧卖")["seen"][0].__setitem__("posted_at", "昨天"), ".posted_at：不是时间"),
    (lambda d: _post(d, "烧卖")["seen"][0].__setitem__("quotes", [{"pid": 1}]), "帖子内容无法读取"),
    (lambda d: _post(d, "烧卖").__setitem__("thread", "discussion"), ".thread：帖子"),
    (lambda d: _post(d, "烧卖").__setitem__("seen", []), ".seen：至少要有首次所见的版本"),
    (lambda d: d["rules"]["fields"].__setitem__("sheriff_weight", "two"), "rules.fields"),
    (lambda d: d["events"][-1]["payload"].pop("event"), "撤销或更正的事件编号无法读取"),
    (lambda d: d["setup"]["days"][1].__setitem__("deadline", None), "setup.days[1].deadline"),
    (lambda d: d["posts"].append(dict(d["posts"][0])), "同一个 pid 出现了两次"),
])
def test_cmd_evidence__a_wrong_field_is_named(exported, change, where):
    out, _ = exported
    rewrite(out, change, fix_checksum=True)
    result = run("--evidence", str(out), "--json")
    assert result.exit_code == 1, result.output
    assert where in result.output and "Traceback" not in result.output


def test_cmd_evidence__not_utf8_is_an_error(exported):
    out, _ = exported
    out.write_bytes(out.read_text(encoding="utf-8").encode("gb18030"))
    result = run("--evidence", str(out))
    assert result.exit_code == 1 and "不是 UTF-8" in result.output


def test_cmd_evidence__options(exported, tmp_path):
    out, _ = exported
    assert run("--evidence", str(out), "--day", "2", "--json").exit_code == 0
    wrong_day = run("--evidence", str(out), "--day", "3")
    assert wrong_day.exit_code == 1 and "是第2日的" in wrong_day.output
    both = run("--evidence", str(out), "--pages", str(out))
    assert both.exit_code == 2 and "--evidence 和 --pages 不能同时使用" in both.output
    missing = run("--evidence", str(tmp_path / "nope.json"))
    assert missing.exit_code == 1 and "无法读取" in missing.output
    # without --evidence, the pages recount needs what it always needed
    no_pages = run("--config", str(tmp_path / "game.toml"), "--day", "2")
    assert no_pages.exit_code == 2 and "错误：缺少选项：--pages" in no_pages.output
    no_config = run("--day", "2", "--pages", str(out))
    assert no_config.exit_code == 2 and "错误：缺少选项：--config" in no_config.output


def test_cmd_evidence__a_config_beside_the_file_is_compared_not_used(exported, tmp_path):
    out, live = exported
    config = tmp_path / "game.toml"
    same = run("--evidence", str(out), "--config", str(config), "--json")
    assert same.exit_code == 0 and "注意" not in same.stderr
    other = tmp_path / "other.toml"
    other.write_text(config.read_text(encoding="utf-8").replace('ruleset = "simple14"', 'ruleset = "s10"'),
                     encoding="utf-8")
    result = run("--evidence", str(out), "--config", str(other), "--json")
    assert result.exit_code == 0
    assert "规则集不同" in result.stderr and json.loads(result.stdout) == live


def test_cmd_evidence__export_errors_are_one_line(tmp_path, exported):
    config = tmp_path / "game.toml"
    unknown = CliRunner().invoke(main, ["evidence", "--config", str(config), "--day", "9", "--out",
                                        str(tmp_path / "x.json")])
    assert unknown.exit_code == 1 and "没有第9日" in unknown.output and "Traceback" not in unknown.output
    nowhere = CliRunner().invoke(main, ["evidence", "--config", str(config), "--day", "2", "--out",
                                        str(tmp_path / "missing" / "x.json")])
    assert nowhere.exit_code == 1 and "无法写入证据文件" in nowhere.output
    assert not list((tmp_path).glob(".x.json.*.tmp"))


def test_cmd_evidence__export_says_when_the_live_tally_is_behind(tmp_path):
    """A post stored after the last tally was saved: the export says the file's recount
    and the stored tally differ (and how), instead of passing silently."""
    g, day, _ = night_late_and_a_retraction(tmp_path)
    try:
        g.rt.store.save_tally(day, g.tally(day), at=at(day, "21:00"))
        g.vote(day, "21:10", "包子", "月饼")
    finally:
        g.close()
    out = tmp_path / "day2.json"
    result = CliRunner().invoke(main, ["evidence", "--config", str(tmp_path / "game.toml"), "--day", "2",
                                       "--out", str(out)])
    assert result.exit_code == 0
    assert "不一致" in result.output and "retally" in result.output
    assert run("--evidence", str(out), "--json").exit_code == 3


def test_cmd_evidence__export_names_what_players_may_not_know_yet(tmp_path):
    """The file carries the whole event log (the recount needs it): the export lists the
    events after the day's deadline and the scapegoat before the file is handed out."""
    from forumbot.game.gamelog import EventSpec
    from tests.forumbot.test_evidence import dual_scapegoat_and_voters

    g, day, _ = dual_scapegoat_and_voters(tmp_path)
    try:
        g.rt.store.save_tally(day, g.tally(day), at=at(day, "21:45"))
        g.enter(EventSpec("night", day=3, players=("月饼",)), at(2, "23:00"))
    finally:
        g.close()
    out = tmp_path / "day2.json"
    result = CliRunner().invoke(main, ["evidence", "--config", str(tmp_path / "game.toml"), "--day", "2",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "交给玩家之前请确认" in result.stderr
    assert "第3日前夜：月饼" in result.stderr and "替罪羊：烧卖" in result.stderr
    assert "第2日前夜" not in result.stderr  # in effect during the day: nothing to hide
    assert run("--evidence", str(out), "--json").exit_code == 0  # the later night changes nothing of day 2
