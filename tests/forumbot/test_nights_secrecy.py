"""The secrecy crawl (SPEC §10.1) of a game whose nights the bot runs, stopped in the middle
of its first night's business — the proposal waiting for the director: every public post,
every log line, ``forumbot status`` and ``status --json``, the evidence export and every desk
page a loopback desk (no login) serves, searched for every identity word of the sheet; and
the same screens with the secrets asked for (``--secrets``, the desk behind its login) do
show them, so the crawl would see a leak."""

from __future__ import annotations

import logging
import os
import re
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.demo.nights import nights_plan
from forumbot.demo.play import play, setup_game
from forumbot.demo.scenario import PASSWORD, at
from forumbot.desk import create_app
from forumbot.simulator import SimClock, Simulator

IDENTITY_WORDS = ("狼人", "预言家", "女巫", "长老", "村民")
PAGES = ("/", "/tally", "/activity", "/cards", "/drafts", "/actions", "/events", "/log")


@pytest.fixture(scope="module")
def stopped():
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    root = logging.getLogger()
    handler, old = Keep(level=logging.DEBUG), root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    plan = nights_plan()
    clock = SimClock(start=plan.days[0].start - timedelta(minutes=20))
    sim = Simulator(clock=clock)
    workdir = Path(tempfile.mkdtemp(prefix="forumbot-secrecy-"))
    try:
        game = setup_game(workdir, clock=clock, sim=sim, plan=plan)
        play(game, until=at(2, "00:10"))  # the director approves drafts; night 1 waits for confirmation
    finally:
        root.removeHandler(handler)
        root.setLevel(old)
    assert game.rt.store.night_proposal(1).state == "proposed"
    yield game, records, clock
    game.close()
    sim.stop()


def leaks(text: str) -> list[str]:
    """Every identity word anywhere — except a faction's name (狼人阵营胜利 is a choice on the
    game-end form) — and every player named within a few characters of their identity."""
    from forumbot.demo.nights import SHEET14

    plain = text.replace("狼人阵营", "").replace("村民阵营", "")
    found = [w for w in IDENTITY_WORDS if w in plain]
    for player, identity in SHEET14.items():
        for a, b in ((player, identity), (identity, player)):
            if re.search(re.escape(a) + r".{0,8}" + re.escape(b), text, re.S):
                found.append(f"{player}={identity}")
    return found


def _cli(game, *args: str) -> str:
    env = {"FORUMBOT_CLOCK": f"accelerated;origin={at(2, '00:10').isoformat()};factor=0.000001;wall=0"}
    import time

    env["FORUMBOT_CLOCK"] = env["FORUMBOT_CLOCK"].replace("wall=0", f"wall={time.time()}")
    result = CliRunner().invoke(main, [*args, "--config", str(game.rt.config.path)], env=env)
    assert result.exit_code == 0, result.output
    return result.output


def test_secrecy__posts_and_logs(stopped):
    game, records, _ = stopped
    for _, pid, message in game.world.bot_posts():
        assert not leaks(message), (pid, message)
    assert not leaks("\n".join(records))


def test_secrecy__status_without_secrets(stopped):
    game, _, _ = stopped
    text = _cli(game, "status")
    assert "第1晚：结算建议待确认（第1版）" in text
    assert not leaks(text) and "汤圆（" not in text
    assert not leaks(_cli(game, "status", "--json"))
    shown = _cli(game, "status", "--secrets")
    assert "汤圆（村民）出局，原因：杀人" in shown  # asked for: the crawl would see it


def test_secrecy__the_evidence_export(stopped, tmp_path):
    game, _, _ = stopped
    _cli(game, "evidence", "--day", "1", "--out", str(tmp_path / "e"))
    for path in (tmp_path / "e").rglob("*"):
        if path.is_file():
            assert not leaks(path.read_text(encoding="utf-8", errors="replace")), path


def test_secrecy__desk_pages(stopped, monkeypatch):
    game, _, clock = stopped
    app = create_app(game.rt.config.path, clock=clock, secret_key=b"k" * 32)
    client = app.test_client()
    for page in PAGES:
        html = client.get(page).get_data(as_text=True)
        assert not leaks(re.sub(r"<[^>]+>", "", html)), page
    actions = client.get("/actions").get_data(as_text=True)
    assert "机器人结算的夜晚" in actions and "确认第1晚" in actions
    # behind a login the proposal is shown in full
    monkeypatch.setenv("FORUMBOT_DESK_TOKEN", "correct-horse-battery")
    secure = create_app(game.rt.config.path, host="0.0.0.0", clock=clock, secret_key=b"k" * 32).test_client()
    page = secure.get("/login?next=/actions").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    secure.post("/login", data={"csrf_token": token, "token": "correct-horse-battery", "next": "/actions"})
    assert "汤圆（村民）出局" in secure.get("/actions").get_data(as_text=True)
