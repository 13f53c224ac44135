"""Issue 18, finding 12 — the smaller things seen in a whole game, each as a director or
player met it (the phone-width game list and the desk's countdown in a browser:
``test_desk_service_browser.py``)."""

from __future__ import annotations

import json
import logging
import os
import re
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.game.clock import AcceleratedClock
from forumbot.desk import create_app
from forumbot.game.runtime import CLOCK_ENV, clock_to_env, open_runtime
from forumbot.simulator import SimClock, Simulator
from tests.forumbot.game_support import PLAYERS, at, config_text, store_game, vote_tid
from tests.support import REPO

DUAL_PLAYERS = ("饺子", "包子", "汤圆", "月饼", "小笼包", "烧卖", "馄饨")


def _cli(config: Path, *args: str, now, input: str | None = None):
    env = {CLOCK_ENV: clock_to_env(AcceleratedClock(origin=now, factor=1.0)), "COLUMNS": "200"}
    result = CliRunner().invoke(main, [args[0], "--config", str(config), *args[1:]], input=input, env=env)
    assert "Traceback" not in result.output, result.output
    return result


def _desk_page(config: Path, clock, path: str) -> str:
    app = create_app(config, clock=clock, secret_key=b"k" * 32)
    app.testing = True
    response = app.test_client().get(path)
    assert response.status_code == 200, path
    return response.get_data(as_text=True)


def _text(page: str) -> str:
    import html

    return re.sub(r"\s+", " ", html.unescape(re.sub(r"\s*<[^>]+>\s*", "", page)))


# ---------------------------------------------------------------- 「警长：警长：月饼」


def test_preview__names_the_new_sheriff_once(tmp_path):
    g = store_game(tmp_path, "simple14")
    g.close()
    shown = _cli(tmp_path / "game.toml", "sheriff", "月饼", now=at(1, "12:00"), input="n\n")
    assert "警长：月饼" in shown.output, shown.output
    assert "警长：警长：" not in shown.output


# ---------------------------------------------------------------- 「剩余 已截止」


def test_running_count__after_the_deadline_says_closed_not_time_left(tmp_path):
    from forumbot.game.drafting import count_body
    from forumbot.game.state import count_day

    g = store_game(tmp_path, "simple14")
    try:
        g.vote(1, "10:00", "饺子", "包子")
        counted = count_day(g.rt.config, g.rt.store, 1)

        def body(now):
            return count_body(g.rt.env, counted.data, state=counted.state, rules=g.rt.config.rules, now=now,
                              final=False, hide_voters=False)

        assert "（剩余 11小时30分）" in body(at(1, "10:00"))
        late = body(at(1, "21:45"))  # a count the director asks for after the deadline
        assert "（投票已截止）" in late and "剩余" not in late
    finally:
        g.close()


def test_desk_now__after_the_deadline_says_closed_not_time_left(tmp_path, monkeypatch):
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    g = store_game(tmp_path, "simple14")
    g.close()
    before = _text(_desk_page(tmp_path / "game.toml", SimClock(start=at(1, "19:00")), "/"))
    assert "（剩余 2小时30分）" in before
    after = _text(_desk_page(tmp_path / "game.toml", SimClock(start=at(1, "22:00")), "/"))
    assert "（已截止）" in after and "剩余" not in after


# ---------------------------------------------------------------- 「总票重」


def test_desk_tally__total_is_labelled_total_votes(tmp_path, monkeypatch):
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    g = store_game(tmp_path, "simple14", sheriff="饺子")
    g.vote(2, "10:00", "饺子", "包子")  # the sheriff: 2
    g.vote(2, "10:05", "汤圆", "包子")
    g.close()
    text = _text(_desk_page(tmp_path / "game.toml", SimClock(start=at(2, "12:00")), "/tally?day=2"))
    assert "票重" not in text
    assert "总票数 3（含弃权）" in text, text  # the sheriff's vote counts 2


# ---------------------------------------------------------------- the 双身份 night prompt


def test_dual_night_prompt__asks_for_identity_deaths_not_outs(tmp_path, monkeypatch):
    from parsers.commands import parse
    from forumbot.notify.tell import current_matters, hints

    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    g = store_game(tmp_path, "dual", players=DUAL_PLAYERS)
    try:
        for i, who in enumerate(("饺子", "汤圆", "月饼")):
            g.vote(1, f"1{i}:00", who, "包子")
        g.approve_final(1, at(1, "21:40"))
        now = g.at(at(1, "23:00"))
        (night,) = [m for m in current_matters(g.rt, now) if m.kind == "night_result"]
        (prompt,) = hints(night, None)
        assert "「夜晚 第2日 身份死亡：名字、名字」" in prompt and "出局：" not in prompt, prompt
        assert "已失去过一层身份的即出局" in prompt
        # the prompt, answered as it asks, is understood
        (command,) = parse("夜晚 第2日 身份死亡：汤圆、月饼")
        assert (command.day, command.players, command.problem) == (2, ("汤圆", "月饼"), None)
    finally:
        g.close()
    page = _desk_page(tmp_path / "game.toml", SimClock(start=at(1, "23:00")), "/actions")
    assert "夜晚身份死亡的第1位" in page and "夜晚出局的第1位" not in page
    night_help = CliRunner().invoke(main, ["night", "--help"]).output
    assert "身份死亡" in night_help


def test_night_prompt__other_rule_sets_still_ask_for_outs(tmp_path):
    from forumbot.notify.tell import current_matters, hints

    g = store_game(tmp_path, "simple14")
    try:
        g.vote(1, "10:00", "饺子", "包子")
        g.approve_final(1, at(1, "21:40"))
        (night,) = [m for m in current_matters(g.rt, g.at(at(1, "23:00"))) if m.kind == "night_result"]
        assert hints(night, None) == ["回复「夜晚 第2日 出局：名字、名字」录入（没有人出局回复「平安夜 第2日」）"]
    finally:
        g.close()


# ---------------------------------------------------------------- quiet_hours: off by default


def test_quiet_hours__off_unless_set_and_the_readme_says_so(tmp_path):
    from forumbot.config.settings import load_settings

    g = store_game(tmp_path, "simple14", extra='[notify]\nenabled = true\ndirector_uid = 1\n')
    try:
        assert load_settings(g.rt.config).notify.quiet_hours is None
    finally:
        g.close()
    readme = re.sub(r"\s+", " ", (REPO / "README.md").read_text(encoding="utf-8"))
    assert "`quiet_hours` (off unless set" in readme
    assert '`quiet_hours = "01:00-08:00"` (no notices' not in readme  # read as the default


# ---------------------------------------------------------------- [agent].log_file under serve


def test_serve__a_games_log_file_gets_its_own_lines(tmp_path, caplog):
    from tests.forumbot.service_support import served, wait_for

    caplog.set_level(logging.INFO)  # as forumbot serve sets it up (service.logs.setup)
    caplog.set_level(logging.WARNING, logger="httpx")

    s = served(tmp_path, 2, names=["甲局", "乙局"])
    mine = tmp_path / "甲局.log"
    config = s.game("甲局").config
    text = config.read_text(encoding="utf-8")
    assert '["agent"]\n' in text
    config.write_text(text.replace('["agent"]\n', f'["agent"]\n"log_file" = "{mine}"\n', 1), encoding="utf-8")
    s.start(desk=False)
    try:
        wait_for(lambda: mine.exists() and "帖子 " in mine.read_text(encoding="utf-8"), timeout=60)
        wait_for(lambda: (g := s.summary("乙局")) is not None and g.last_pass is not None, timeout=60)
    finally:
        s.stop()
    lines = mine.read_text(encoding="utf-8").splitlines()
    assert lines and all(re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+08:00 forumbot", line) for line in lines), lines[:3]
    assert any(f"开始运行 {config}" in line for line in lines)
    other = str(s.game("乙局").config)
    assert not any(other in line or "[乙局]" in line for line in lines)


# ---------------------------------------------------------------- 「cookie_file differ」


def test_session__two_paths_to_one_cookie_file_are_one_setting(tmp_path, caplog, monkeypatch):
    import threading

    from forumbot.service.pool import SessionPool

    monkeypatch.setenv("FORUMBOT_PASSWORD", "x")
    shared = tmp_path / "cookies.json"
    shared.write_text("{}", encoding="utf-8")
    (tmp_path / "link.json").symlink_to(shared)
    names = {"甲": "../cookies.json", "乙": str(shared), "丙": "../link.json", "丁": "cookies.json"}
    runtimes = {}
    for name, cookie in names.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "game.toml").write_text(config_text("simple14", database=str(folder / "game.sqlite"))
                                          .replace('username = "计票机器人"', f'username = "计票机器人"\ncookie_file = "{cookie}"'),
                                          encoding="utf-8")
        runtimes[name] = open_runtime(folder / "game.toml")
    pool = SessionPool(stop=threading.Event(), flood_seconds=15)
    try:
        with caplog.at_level(logging.WARNING, logger="forumbot.service"):
            for name in ("甲", "乙", "丙"):
                pool.client_for(runtimes[name], name)
        assert not [r for r in caplog.records if "cookie_file 与" in r.getMessage()]
        with caplog.at_level(logging.WARNING, logger="forumbot.service"):
            pool.client_for(runtimes["丁"], "丁")  # 丁/cookies.json: another file
        assert [r for r in caplog.records if "cookie_file 与" in r.getMessage()]
    finally:
        pool.close()
        for rt in runtimes.values():
            rt.close()


# ---------------------------------------------------------------- a finished game is not trouble


def test_status_all__a_finished_game_is_not_a_game_to_see_to(tmp_path, monkeypatch):
    from forumbot.game import ending
    from forumbot.agent.instance import InstanceLock, lock_path

    folder = tmp_path / "games"
    folder.mkdir()
    path = folder / "第一局.toml"
    path.write_text(config_text("simple14", database=str(folder / "第一局.sqlite")), encoding="utf-8")
    rt = open_runtime(path, clock=SimClock(start=at(3, "22:00")))
    ending.declare(rt, "good", "", at(3, "22:00"))
    rt.close()
    # The service still holds the game (it stays listed), its last pass long ago: the game ended.
    lock = InstanceLock.acquire(lock_path(folder / "第一局.sqlite"), role="service", since=at(3, "21:00"))
    lock.update(beat=at(3, "22:00").isoformat(timespec="seconds"))
    try:
        monkeypatch.setenv(CLOCK_ENV, clock_to_env(AcceleratedClock(origin=at(5, "12:00"), factor=1.0)))
        result = CliRunner().invoke(main, ["status", "--all", "--games", str(folder)])
        assert result.exit_code == 0, result.output
        assert "已结束" in result.output and "需要处理" not in result.output and "分钟前" not in result.output
        data = json.loads(CliRunner().invoke(main, ["status", "--all", "--games", str(folder), "--json"]).output)
        assert data["trouble"] == [] and data["games"][0]["state"] == "finished"
    finally:
        lock.release()


def test_summary__a_finished_game_with_a_failed_post_is_still_trouble():
    from forumbot.service.summary import GameSummary

    done = GameSummary("甲", "甲.toml", "finished", alarms=("论坛无法访问",), problems=("上一轮：读帖：论坛无法访问",))
    assert not done.trouble
    assert GameSummary("甲", "甲.toml", "finished", failed=1).trouble
    assert GameSummary("甲", "甲.toml", "running", alarms=("论坛无法访问",)).trouble


# ---------------------------------------------------------------- 投票理由：<script>…


def test_vote_reason__angle_brackets_are_the_players_text(tmp_path):
    """Over HTTP: the simulator renders the post as Discuz does (the brackets escaped in
    the page), the parser reads them back as text, the vote is valid with its reason."""
    clock = SimClock(start=at(1, "09:00"))
    sim = Simulator(clock=clock)
    for name in ("导演", "计票机器人", *PLAYERS):
        sim.add_user(name, password="pw")
    fid = sim.add_forum("版杀区")
    tid = sim.add_thread(fid, "第一日 投票帖", author="导演", message="投票格式", at=at(1, "09:00"))
    sim.add_post(tid, "饺子", "投票对象：包子\n投票理由：<script>alert(1)</script>", at=at(1, "10:00"))
    sim.add_post(tid, "汤圆", "投票对象：包子\n投票理由：a<b && c &lt;d&gt;", at=at(1, "10:01"))
    clock.advance(hours=1)
    with sim.running() as base, httpx.Client(base_url=base) as http:
        served = http.get(f"forum.php?mod=viewthread&tid={tid}").content
    assert b"<script>alert(1)</script>" not in served  # escaped in the page, as Discuz does
    page = tmp_path / "thread.html"
    page.write_bytes(served)
    posts = json.loads(CliRunner().invoke(main, ["posts", "--json", "--pages", str(page)]).output)
    reasons = [p["vote"]["reason"] for p in posts if p["vote"]]
    assert reasons == ["<script>alert(1)</script>", "a<b && c &lt;d&gt;"]
    config = tmp_path / "game.toml"
    config.write_text(config_text("simple14", days=1).replace(f"vote_thread = {vote_tid(1)}", f"vote_thread = {tid}"),
                      encoding="utf-8")
    tally = json.loads(CliRunner().invoke(main, ["tally", "--config", str(config), "--day", "1", "--pages",
                                                 str(page), "--json"]).output)
    assert [(v["voter"], v["valid"], v["reason"]) for v in tally["votes"]] == [("饺子", True, None), ("汤圆", True, None)]
    assert tally["counts"] == {"包子": 2}
