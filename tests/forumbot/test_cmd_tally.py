"""``forumbot tally`` over the real captured voting thread (discuz-x3 tid 2, MANIFEST.md).

The director closed voting with pid 27 at 2026-11-30 00:25:54; pids 24–28 all carry that
same second. The config names the closing post (``deadline_pid = 27``): posts in the
deadline's second count only if they come before it, so 月饼's and bob_2's changes (pids
24, 25) stand and 烧卖's vote (pid 28) is late. The captured game ran in minutes, so the
change window is 0 here (a 60-minute window would void every change in it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main

CONFIG = """
[forum]
base_url = "http://127.0.0.1:8080/"
timezone = "Asia/Shanghai"

[game]
ruleset = "{ruleset}"
director = "导演"
bot = "计票机器人"
players = ["饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖"]
change_window_minutes = 0

[[days]]
number = {day}
vote_thread = 2
discussion_thread = 1
start = "2026-11-30T00:00:00+08:00"
deadline = "2026-11-30T00:25:54+08:00"
deadline_pid = 27
"""

# MANIFEST ground truth: every vote/change in tid 2 → (voter, kind, target, valid, reason)
EXPECTED_VOTES = {
    2: ("导演", "change", None, False, "voter_not_player"),  # the rules post's format template
    3: ("饺子", "vote", "包子", True, None),
    4: ("包子", "vote", "饺子", True, None),
    5: ("汤圆", "vote", "弃权", True, None),
    6: ("Alice", "vote", "饺子", True, None),
    8: ("月饼", "vote", "小笼包", True, None),
    9: ("小笼包", "vote", "月饼", True, None),
    11: ("汤圆", "change", "包子", True, None),
    14: ("bob_2", "vote", "饺子", True, None),
    15: ("饺子", "change", "汤圆", True, None),
    16: ("烧卖", "vote", "小笼包", True, None),
    19: ("Alice", "change", "月饼", True, None),
    24: ("月饼", "change", "饺子", True, None),
    25: ("bob_2", "change", "Alice", True, None),
    28: ("烧卖", "vote", "包子", False, "late"),
}
EXPECTED_COUNTS = {"饺子": 2, "月饼": 2, "包子": 1, "汤圆": 1, "Alice": 1, "小笼包": 1}


def run_tally(tmp_path: Path, x3_dir: Path, *extra: str, ruleset: str = "simple14", day: int = 1,
              pages: tuple[str, ...] = ("viewthread-tid2-page1.html", "viewthread-tid2-page2.html",
                                        "viewthread-tid2-page3.html")):
    config = tmp_path / "game.toml"
    config.write_text(CONFIG.format(ruleset=ruleset, day=day), encoding="utf-8")
    files = [str(x3_dir / name) for name in pages]
    return CliRunner().invoke(main, ["tally", "--config", str(config), "--day", str(day), "--pages", *files, *extra])


def test_cmd_tally__real_thread_reproduces_the_manifest(tmp_path, x3_dir):
    result = run_tally(tmp_path, x3_dir, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    got = {v["pid"]: (v["voter"], v["kind"], v["target"], v["valid"], v["reason"]) for v in report["votes"]}
    assert got == EXPECTED_VOTES
    assert report["counts"] == EXPECTED_COUNTS
    voters = {v["voter"] for v in report["votes"] if v["final"]}
    assert voters == {"饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖"}
    assert report["non_voters"] == [] and report["abstain"] == 0


def test_cmd_tally__real_thread_day1_sheriff_by_first_reached(tmp_path, x3_dir):
    """饺子 and 月饼 tie at 2. 饺子 reached 2 with Alice's vote (pid 6) and never went below
    (3 at pid 14, 2 at Alice's change, 3 at pid 24, 2 when bob_2 changed away at pid 25:
    dropping down to 2 is not reaching it, SPEC §3.7); 月饼 reached 2 only with Alice's
    change (pid 19). 饺子 reached the final count first."""
    report = json.loads(run_tally(tmp_path, x3_dir, "--json").output)
    assert report["result"]["sheriff"] == "饺子"
    assert report["result"]["tie"] == ["饺子", "月饼"] and report["result"]["rule"] == "tie_first_reached"
    timeline = report["timeline"]
    assert timeline[report["reached"]["饺子"]]["pid"] == 6
    assert timeline[report["reached"]["月饼"]]["pid"] == 19
    assert report["result"]["detail"] == "饺子 最先达到2票（5楼 Alice 投票起一直保持）；月饼 于17楼 Alice 改票时才达到"


def test_cmd_tally__real_thread_flags(tmp_path, x3_dir):
    report = json.loads(run_tally(tmp_path, x3_dir, "--json").output)
    flags = {(f["floor"], f["player"], f["kind"]) for f in report["flags"]}
    assert {(7, "月饼", "edit"), (8, "小笼包", "font"), (9, "烧卖", "evidence")} <= flags


@pytest.mark.parametrize("ruleset", ["s09", "s10", "simple14", "dual"])
def test_cmd_tally__json_answers_spec_7_for_every_rule_set(tmp_path, x3_dir, ruleset):
    result = run_tally(tmp_path, x3_dir, "--json", ruleset=ruleset, day=2)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert {"day", "ruleset", "deadline", "votes", "counts", "abstain", "non_voters", "result", "flags"} <= set(report)
    assert (report["day"], report["ruleset"], report["deadline"]) == (2, ruleset, "2026-11-30T00:25:54+08:00")
    assert report["counts"] == EXPECTED_COUNTS
    expected_out = "饺子" if ruleset == "dual" else None  # dual: first to reach; others: no sheriff → no one
    assert report["result"]["out"] == expected_out
    assert all(v["reason"] and v["floor"] for v in report["votes"] if not v["valid"])


def test_cmd_tally__minute_precise_page_gives_the_same_counts(tmp_path, x3_dir):
    pages = ("viewthread-tid2-page1-dateconvert-off.html", "viewthread-tid2-page2.html", "viewthread-tid2-page3.html")
    report = json.loads(run_tally(tmp_path, x3_dir, "--json", pages=pages).output)
    assert report["counts"] == EXPECTED_COUNTS
    assert {v["time_precision"] for v in report["votes"] if v["pid"] < 10} == {"minute"}


def test_cmd_tally__table_by_default(tmp_path, x3_dir):
    result = run_tally(tmp_path, x3_dir)
    assert result.exit_code == 0, result.output
    # issue 18: the reason in words (its code, late, only in --json)
    assert "饺子 2，月饼 2" in result.output and "废票：投" in result.output and "late" not in result.output


def test_cmd_tally__errors_are_one_line(tmp_path, x3_dir):
    result = run_tally(tmp_path, x3_dir, day=1, pages=("login-page.html",))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.startswith("错误：") and "login-page.html" in result.output
    bad = tmp_path / "bad.toml"
    bad.write_text('[game]\nruleset = "s11"\nplayers = ["a"]\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["tally", "--config", str(bad), "--day", "1", "--pages", "x.html"])
    assert result.exit_code == 1
    assert result.output.strip() == f"错误：{bad}: [game].ruleset: 未知的规则集 's11'（可选：s09、s10、simple14、dual）"


def test_cmd_tally__help_has_an_example():
    result = CliRunner().invoke(main, ["tally", "--help"])
    assert result.exit_code == 0 and "例：" in result.output and "--json" in result.output


EVENTS = """
[[events]]
kind = "out"
player = "烧卖"
why = "night"
day = 2

[[events]]
kind = "out"
player = "汤圆"
why = "card"
at = "2026-11-30T00:25:30+08:00"
"""


def test_cmd_tally__honours_events_exactly_as_the_agent_does(tmp_path, x3_dir):
    """SPEC §8/§9: [[events]] in the config. 烧卖 died in the night (out from the day's
    start: his vote is voter_out); 汤圆 was sent off at 00:25:30, before the deadline: his
    standing change is dropped and 饺子's change to him (00:25:21) counts for no one — valid,
    not counted. The agent, given the same events through the director's library, agrees."""
    from forumbot.game import gamelog
    from forumbot.game.state import count_day
    from forumbot.agent.offline import read_posts
    from forumbot.game.runtime import open_runtime
    from forumbot.simulator import SimClock

    config = tmp_path / "game.toml"
    base = CONFIG.format(ruleset="s10", day=2).replace("change_window_minutes = 0\n",
                                                       'change_window_minutes = 0\nsheriff = "月饼"\n')
    config.write_text(base + EVENTS, encoding="utf-8")
    files = [str(x3_dir / f"viewthread-tid2-page{n}.html") for n in (1, 2, 3)]
    result = CliRunner().invoke(main, ["tally", "--config", str(config), "--day", "2", "--pages", *files, "--json"])
    assert result.exit_code == 0, result.output
    offline = json.loads(result.output)
    by_pid = {v["pid"]: v for v in offline["votes"]}
    assert (by_pid[16]["reason"], by_pid[16]["counted"]) == ("voter_out", False)
    assert (by_pid[11]["valid"], by_pid[11]["counted"], by_pid[11]["dropped"]) == (True, False, "voter_out")
    assert (by_pid[15]["valid"], by_pid[15]["counted"], by_pid[15]["dropped"]) == (True, False, "target_out")
    assert all("counted" in v for v in offline["votes"])
    assert "饺子" not in offline["non_voters"] and offline["sheriff_at_deadline"] == "月饼"

    agent_config = tmp_path / "agent.toml"
    agent_config.write_text(base + f'\n[agent]\ndatabase = "{tmp_path / "agent.sqlite"}"\n', encoding="utf-8")
    clock = SimClock(start=offline_time("2026-11-30T00:30:00+08:00"))
    rt = open_runtime(agent_config, clock=clock)
    try:
        rt.store.record_posts(read_posts(files, rt.config), clock.now())
        # entered late, in another order, through the director's library
        gamelog.enter(rt, gamelog.EventSpec("out", player="汤圆", why="card",
                                            at=offline_time("2026-11-30T00:25:30+08:00")), clock.now())
        gamelog.enter(rt, gamelog.EventSpec("night", day=2, players=("烧卖",)), clock.now())
        live = count_day(rt.config, rt.store, 2).data
    finally:
        rt.close()
    keys = ("pid", "valid", "reason", "counted", "dropped", "weight", "target", "final")
    assert [tuple(v[k] for k in keys) for v in live["votes"]] == [tuple(v[k] for k in keys) for v in offline["votes"]]
    for key in ("counts", "abstain", "non_voters", "result", "sheriff_at_deadline"):
        assert live[key] == offline[key], key


def offline_time(text: str):
    from datetime import datetime

    return datetime.fromisoformat(text)
