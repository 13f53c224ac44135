"""``forumbot tally --json`` gains ``win`` (SPEC §10.6: the win check after that day's
result) when the game has identities, over the real captured voting thread (discuz-x3
tid 2); identities and night actions appear only with ``--secrets``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from forumbot.cli import main

PLAYERS = ["饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖", "年糕", "元宵"]
# S10 04C (10 players: 狼人×3, 村民×4, 先知, 女巫, 爱神). 包子 and 汤圆 were out before day 2;
# the captured thread votes 饺子 out (the sheriff 月饼's target breaks the tie): the last wolf.
SHEET = {"饺子": "狼人", "包子": "狼人", "汤圆": "狼人", "Alice": "先知", "bob_2": "女巫", "月饼": "爱神",
         "小笼包": "村民", "烧卖": "村民", "年糕": "村民", "元宵": "村民"}
CONFIG = """[forum]
base_url = "http://127.0.0.1:8080/"
timezone = "Asia/Shanghai"

[game]
ruleset = "s10"
version = "04C"
players = [{players}]
change_window_minutes = 0
sheriff = "月饼"
out = [{out}]

[[days]]
number = 2
vote_thread = 2
discussion_thread = 1
start = "2026-11-30T00:00:00+08:00"
deadline = "2026-11-30T00:25:54+08:00"
deadline_pid = 27
"""
WORDS = ("狼人", "先知", "女巫", "爱神", "村民")


def run(tmp_path: Path, x3_dir: Path, *extra: str, out=("包子", "汤圆"), identities: bool = True):
    text = CONFIG.format(players=", ".join(f'"{p}"' for p in PLAYERS), out=", ".join(f'"{p}"' for p in out))
    if identities:
        text += "\n[identities.table]\n" + "".join(f'"{p}" = "{i}"\n' for p, i in SHEET.items())
    config = tmp_path / "game.toml"
    config.write_text(text, encoding="utf-8")
    pages = [str(x3_dir / f"viewthread-tid2-page{n}.html") for n in (1, 2, 3)]
    result = CliRunner().invoke(main, ["tally", "--config", str(config), "--day", "2", "--pages", *pages, *extra])
    assert result.exit_code == 0, result.output
    return result.output


def test_tally_json__win_after_the_days_result(tmp_path, x3_dir):
    report = json.loads(run(tmp_path, x3_dir, "--json"))
    assert report["result"]["out"] == "饺子"
    assert report["win"]["faction"] == "村民阵营" and report["win"]["rule"]
    assert "secrets" not in report
    rest = dict(report, win=None)  # the win says 村民阵营 and its rule; nothing else names an identity
    assert not any(word in json.dumps(rest, ensure_ascii=False) for word in WORDS)


def test_tally_json__no_win_yet(tmp_path, x3_dir):
    report = json.loads(run(tmp_path, x3_dir, "--json", out=("包子",)))
    assert report["result"]["out"] == "饺子" and report["win"] is None


def test_tally_json__no_identities_no_win_key(tmp_path, x3_dir):
    report = json.loads(run(tmp_path, x3_dir, "--json", identities=False))
    assert "win" not in report and "secrets" not in report


def test_tally__identities_only_with_secrets(tmp_path, x3_dir):
    plain = run(tmp_path, x3_dir)
    assert "胜负" in plain and "村民阵营获胜" in plain
    assert "身份（保密）" not in plain and "爱神" not in plain and "先知" not in plain
    shown = run(tmp_path, x3_dir, "--secrets")
    assert "身份（保密）" in shown and "月饼：爱神" in shown and "Alice：先知" in shown
    report = json.loads(run(tmp_path, x3_dir, "--json", "--secrets"))
    by_player = {p["player"]: p for p in report["secrets"]["identities"]}
    assert by_player["饺子"]["identities"] == ["狼人"] and not by_player["饺子"]["in_game"]
