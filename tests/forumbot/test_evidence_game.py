"""Evidence for a dispute, end to end over real HTTP on the simulator (issue 12, item 12).

The demo game to the end of day 2, with two edits: 烧卖 changes his vote's target half
an hour after the bot read it (the first-seen 包子 stands), and 小笼包 votes and edits
between two passes, so the bot first sees the post already edited. Pages saved from the
forum afterwards hold only the edited texts, so ``forumbot tally --pages`` counts 烧卖
for 月饼 — not what the bot counted. ``forumbot evidence`` then ``forumbot tally
--evidence`` gives the live tally exactly.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.demo.play import play, setup_game
from forumbot.demo.scenario import PASSWORD, Action, at, script, vote
from parsers.pages import read_page

LATE_EDIT = "投票对象：月饼\n投票理由：想了想还是月饼"  # the demo's own edit of 烧卖's vote


@pytest.fixture(scope="module")
def day2(tmp_path_factory):
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    work = tmp_path_factory.mktemp("evidence-game")
    game = setup_game(work)
    # 小笼包 votes at 10:41 and edits at 10:44: both land between the 10:40 and 10:50 passes
    extra = [vote(2, "10:41", "小笼包", "汤圆", "先投一个", key="xlb-vote"),
             Action(at(2, "10:44"), "edit", author="小笼包", key="xlb-vote",
                    message="投票对象：烧卖\n投票理由：想了想还是烧卖")]
    game.driver.actions = sorted(script() + extra, key=lambda a: a.when)
    try:
        play(game, until=at(2, "22:30"))
        yield game, work
    finally:
        game.close()
        game.sim.stop()


def _pid(game, author: str, text: str) -> int:
    tid = game.world.tids["vote2"]
    (post,) = [p for p in game.sim.posts(tid) if p.author == author and text in p.message]
    return post.pid


def _save_pages(game, folder: Path) -> list[str]:
    """The vote thread as a director would save it from the browser, after the day."""
    tid = game.world.tids["vote2"]
    files, page, total = [], 1, 1
    with httpx.Client(base_url=game.sim.base_url, timeout=10) as http:
        while page <= total:
            body = http.get(f"forum.php?mod=viewthread&tid={tid}&page={page}").content
            total = read_page(body, tz=game.rt.config.forum.tz).total_pages
            path = folder / f"tid{tid}-page{page}.html"
            path.write_bytes(body)
            files.append(str(path))
            page += 1
    return files


def _config_with_events(game, folder: Path) -> str:
    """The game's config plus, as [[events]], what the agent's store holds for day 2 (the
    sheriff elected on day 1, the night kill): only the edits can make a difference."""
    text = Path(game.rt.config.path).read_text(encoding="utf-8")
    text += ('\n[[events]]\nkind = "sheriff"\nplayer = "饺子"\nday = 1\n'
             '\n[[events]]\nkind = "out"\nplayer = "汤圆"\nwhy = "night"\nday = 2\n')
    path = folder / "with-events.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _near(read_at: str, seen_at: str) -> bool:
    """A read starts in the pass that stored what it found (the pass's time, then the
    requests before it, spaced on the game clock)."""
    gap = datetime.fromisoformat(read_at) - datetime.fromisoformat(seen_at)
    return timedelta(0) <= gap < timedelta(minutes=2)


def _votes(tally: dict) -> dict[int, dict]:
    return {v["pid"]: v for v in tally["votes"]}


def test_evidence_game__the_live_count_kept_the_first_seen_texts(day2):
    game, _ = day2
    live = game.rt.store.tally(2).data
    shaomai = _pid(game, "烧卖", "月饼")
    xiaolongbao = _pid(game, "小笼包", "烧卖")
    assert _votes(live)[shaomai]["target"] == "包子"  # seen at 10:00, edited at 10:30
    assert _votes(live)[xiaolongbao]["target"] == "烧卖"  # first seen already edited
    assert live["counts"] == {"包子": 3, "月饼": 3, "烧卖": 1}
    kinds = {(f["pid"], f["kind"]) for f in live["flags"]}
    assert {(shaomai, "edit"), (xiaolongbao, "edit")} <= kinds


def test_evidence_game__saved_pages_count_the_edited_text(day2, tmp_path):
    """The problem: a recount from pages saved after the fact differs from the live one."""
    game, _ = day2
    live = game.rt.store.tally(2).data
    pages = _save_pages(game, tmp_path)
    result = CliRunner().invoke(main, ["tally", "--config", _config_with_events(game, tmp_path), "--day", "2",
                                       "--pages", *pages, "--json"])
    assert result.exit_code == 0, result.output
    recount = json.loads(result.output)
    shaomai = _pid(game, "烧卖", "月饼")
    assert _votes(recount)[shaomai]["target"] == "月饼" != _votes(live)[shaomai]["target"]
    assert recount["counts"] != live["counts"]
    # everything else agrees: the edit is the whole difference
    others = {pid: (v["target"], v["valid"], v["reason"]) for pid, v in _votes(recount).items() if pid != shaomai}
    assert others == {pid: (v["target"], v["valid"], v["reason"]) for pid, v in _votes(live).items()
                      if pid != shaomai}


def test_evidence_game__evidence_recounts_to_the_live_tally(day2, tmp_path):
    game, _ = day2
    live = game.rt.store.tally(2)
    out = tmp_path / "day2.json"
    exported = CliRunner().invoke(main, ["evidence", "--config", str(game.rt.config.path), "--day", "2",
                                         "--out", str(out)])
    assert exported.exit_code == 0, exported.output
    assert "按文件复核的结果与实时计票一致" in exported.output
    recount = CliRunner().invoke(main, ["tally", "--evidence", str(out), "--json"])
    assert recount.exit_code == 0, recount.output
    assert json.loads(recount.stdout) == live.data  # counted, flags, timeline and all
    table = CliRunner().invoke(main, ["tally", "--evidence", str(out)], env={"COLUMNS": "240"})
    assert table.exit_code == 0, table.output
    assert "完全一致" in table.output and f"第 {live.version} 版" in table.output
    assert "编辑过的帖子" in table.output and "首次看到时已被编辑" in table.output
    assert "投票对象：包子 / 投票理由：跟警长" in table.output  # 烧卖's first-seen vote, shown as counted


def test_evidence_game__the_file_shows_what_was_seen_when(day2, tmp_path):
    game, _ = day2
    out = tmp_path / "day2.json"
    assert CliRunner().invoke(main, ["evidence", "--config", str(game.rt.config.path), "--day", "2",
                                     "--out", str(out)]).exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert "烧卖" in text and "\\u" not in text  # Chinese kept as Chinese
    data = json.loads(text)
    posts = {p["pid"]: p for p in data["posts"]}
    shaomai = posts[_pid(game, "烧卖", "月饼")]
    assert [v["text"] for v in shaomai["seen"]] == ["投票对象：包子\n投票理由：跟警长", LATE_EDIT]
    first_seen, edit_seen = (datetime.fromisoformat(v["seen_at"]) for v in shaomai["seen"])
    assert first_seen < at(2, "10:30") <= edit_seen  # the vote read before the edit, the edit after
    assert datetime.fromisoformat(shaomai["fetched"]["first"]) >= first_seen and shaomai["fetched"]["times"] > 2
    xiaolongbao = posts[_pid(game, "小笼包", "烧卖")]
    assert xiaolongbao["versions_seen"] == 1 and xiaolongbao["edited_before_first_seen"]
    assert xiaolongbao["seen"][0]["edited_at"][:16] == "2026-12-02T10:44"
    assert datetime.fromisoformat(xiaolongbao["first_seen_at"]) >= at(2, "10:44")
    # the reads of the vote thread, with what each found; idle polls are one row
    (vote,) = [t for t in data["threads"] if t["role"] == "vote"]
    reads = vote["fetches"]
    assert any(r["times"] > 1 for r in reads) and len(reads) < sum(r["times"] for r in reads)
    first_with = next(r for r in reads if xiaolongbao["pid"] in r["pids"])
    assert xiaolongbao["pid"] in first_with["new"]
    assert _near(first_with["started_at"], xiaolongbao["first_seen_at"])
    edit_read = next(r for r in reads if shaomai["pid"] in r["edited"])
    assert _near(edit_read["started_at"], shaomai["seen"][1]["seen_at"])
    assert edit_read["pages"][1] == edit_read["total_pages"]
    # events as they stood, with who entered them and their game time
    kinds = {(e["kind"], e["actor"], e["standing"]) for e in data["events"]}
    assert ("night", "director", True) in kinds and ("sheriff", "bot", True) in kinds
    assert data["live_tally"]["version"] == game.rt.store.tally(2).version
    assert data["rules"]["ruleset"] == "simple14" and data["day"]["number"] == 2
    # the export is in the audit log with its checksum
    (entry,) = [a for a in game.rt.store.audit_log(action_prefix="evidence.exported")
                if a.detail["file"] == str(out.resolve())]
    assert entry.detail["checksum"] == data["checksum"]
