"""The game's days in the store and the director's changes to them (SPEC §11): seeded
from a config without [[days]], a deadline moved / a day extended / closed now with a
preview (the change freeze moves with it, the next days follow), by the library, by
``forumbot deadline`` and by PM (延长 … then 确认)."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.game import director
from forumbot.game.gamelog import DirectorError
from forumbot.game.runtime import CLOCK_ENV, open_runtime
from forumbot.notify.codes import Codes
from forumbot.notify.handle import Handler
from forumbot.simulator import BEIJING, SimClock
from parsers.commands import parse

CONFIG = """\
[forum]
base_url = "http://127.0.0.1:9/"
fid = 2

[game]
ruleset = "simple14"
director = "导演"
bot = "计票机器人"
players = ["饺子", "包子", "汤圆", "月饼"]

[calendar]
start = 2026-12-01
days = 3

[agent]
database = "{db}"

[bot]
username = "计票机器人"
"""


def t(day: int, hhmm: str) -> datetime:
    h, m = (int(x) for x in hhmm.split(":"))
    return datetime(2026, 12, day, h, m, tzinfo=BEIJING)


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "game.toml"
    path.write_text(CONFIG.format(db=tmp_path / "game.sqlite"), encoding="utf-8")
    clock = SimClock(start=t(1, "10:00"))
    rt = open_runtime(path, clock=clock)
    yield rt, clock, path
    rt.close()


def test_days__seeded_from_a_config_without_days(game):
    rt, _, _ = game
    kept = rt.store.stored_days()
    assert [d.number for d in kept] == [1, 2, 3]
    assert kept[0].deadline == t(2, "21:30") and kept[0].freeze == t(2, "20:30")
    assert all(d.vote_thread is None for d in kept)
    assert [d.deadline for d in rt.config.days] == [d.deadline for d in kept]


def test_days__extend_moves_the_freeze_and_the_days_after(game):
    rt, clock, _ = game
    request = director.DeadlineRequest(day=1, extend=director.parse_span("1天"))
    shown = director.preview_deadline(rt, request, clock.now())
    lines = "\n".join(shown.lines_zh())
    assert "第1日改票截止" in lines and "第1日截止" in lines and "第2日开始" in lines
    assert rt.store.day_changes() == ()  # a preview records nothing
    director.change_deadline(rt, request, clock.now())
    assert rt.config.day(1).deadline == t(3, "21:30")
    kept = rt.store.stored_day(1)
    assert kept.deadline == t(3, "21:30") and kept.freeze == t(3, "20:30")
    assert rt.config.day(2).start == t(4, "09:00")
    assert [c.kind for c in rt.store.day_changes()] == ["extend"]
    # the same game opened again (another process) reads the same days
    again = open_runtime(rt.config.path, clock=clock)
    try:
        assert again.config.day(1).deadline == t(3, "21:30")
    finally:
        again.close()


def test_days__a_closed_day_cannot_move_and_reopen_needs_a_locked_thread(game):
    rt, clock, _ = game
    clock.set(t(2, "22:00"))
    with pytest.raises(DirectorError, match="已于"):
        director.change_deadline(rt, director.DeadlineRequest(day=1, at=t(3, "21:30")), clock.now())
    with pytest.raises(DirectorError, match="还没有投票帖|没有被机器人关闭"):
        director.ask_reopen(rt, 1, clock.now())


def test_days__close_now(game):
    rt, clock, _ = game
    clock.set(t(2, "15:00"))
    director.change_deadline(rt, director.DeadlineRequest(day=1, close_now=True), clock.now())
    assert rt.config.day(1).deadline == t(2, "15:00")
    assert rt.config.day(2).start == t(3, "09:00")


def _cli(path, *args: str, at: datetime):
    env = {CLOCK_ENV: f"accelerated;origin={at.isoformat()};factor=1;wall={time.time()}"}
    return CliRunner().invoke(main, [*args, "--config", str(path)], env=env)


def test_cmd_deadline__preview_then_yes_and_schedule_shows_it(game):
    rt, clock, path = game
    rt.close()
    result = _cli(path, "deadline", "--day", "1", "--at", "12-03 21:30", "--json", at=t(1, "12:00"))
    assert result.exit_code == 0, result.output
    assert {s["what"] for s in json.loads(result.output)["shifts"]} == {"freeze", "deadline", "start"}
    result = _cli(path, "deadline", "--day", "1", "--at", "12-03 21:30", "--yes", at=t(1, "12:00"))
    assert result.exit_code == 0, result.output
    assert "已记下" in result.output and "第1日截止" in result.output
    shown = json.loads(_cli(path, "schedule", "--json", at=t(1, "12:00")).output)["days"]
    assert shown[0]["deadline"].startswith("2026-12-03T21:30") and shown[0]["deadline_by"] == "moved"
    result = _cli(path, "deadline", "--day", "1", "--extend", "很久", at=t(1, "12:00"))
    assert result.exit_code != 0 and "看不懂延长多久" in result.output and "Traceback" not in result.output


def test_pm__extend_previewed_then_confirmed(game):
    rt, clock, _ = game
    codes = Codes(rt.store)
    handler = Handler(rt, codes, clock.now(), pmid=1)
    with rt.store.write():
        handler.run(parse("延长 第1日 2小时"))
    answer = handler.answers[0]
    assert "第1日截止" in answer and "确认" in answer, answer
    assert rt.store.day_changes() == ()
    code = answer.split("「确认 ")[1][:4]
    confirm = Handler(rt, codes, clock.now(), pmid=2)
    with rt.store.write():
        confirm.run(parse(f"确认 {code}"))
    assert "已记下" in confirm.answers[0], confirm.answers
    assert rt.config.day(1).deadline == t(2, "21:30") + timedelta(hours=2)
    again = Handler(rt, codes, clock.now(), pmid=3)
    with rt.store.write():
        again.run(parse(f"确认 {code}"))
    assert "确认过了" in again.answers[0]
    assert len(rt.store.day_changes()) == 1


def test_pm__deadline_at_a_time_and_a_bad_time(game):
    rt, clock, _ = game
    codes = Codes(rt.store)
    handler = Handler(rt, codes, clock.now(), pmid=1)
    with rt.store.write():
        handler.run(parse("截止 第1日 12-02 23:00\n截止 第1日 明天吧"))
    assert "第1日截止" in handler.answers[0]
    assert "没有执行" in handler.answers[1] and "看不懂这个时间" in handler.answers[1]


def test_desk__the_schedule_form_previews_then_applies(game, monkeypatch):
    import re

    from forumbot.desk.app import create_app

    rt, clock, path = game
    rt.close()
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    app = create_app(path, clock=clock, secret_key=b"k" * 32)
    app.testing = True
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert "日程" in page and "到时由机器人开帖" in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    form = {"csrf_token": token, "how": "extend", "day": "1", "extend": "1天", "at": "", "why": "周末"}
    shown = client.post("/schedule/deadline", data=form).get_data(as_text=True)
    assert "第1日改票截止" in shown and "确认修改" in shown
    key = re.search(r'name="key" value="([^"]+)"', shown).group(1)
    again = open_runtime(path, clock=clock)
    try:
        assert again.store.day_changes() == ()  # the preview changed nothing
    finally:
        again.close()
    done = client.post("/schedule/deadline/apply", data={**form, "key": key}, follow_redirects=True)
    assert "已记下" in done.get_data(as_text=True)
    again = open_runtime(path, clock=clock)
    try:
        assert again.config.day(1).deadline == t(3, "21:30")
    finally:
        again.close()
    bad = client.post("/schedule/deadline", data={**form, "extend": "很久"}, follow_redirects=True)
    assert "看不懂延长多久" in bad.get_data(as_text=True)
