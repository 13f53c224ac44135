"""Player-written text reaches the terminal as text (issue 18, finding 9).

Players choose their forum names and write their posts; the director's terminal shows
both everywhere — ``status``, ``drafts``, ``show``, ``events``, ``retally``, ``card``,
``tally`` (from pages and from an evidence file), ``posts``, ``inbox``. A post
``投票对象：小红[/]`` once ended ``forumbot status`` in a ``rich.errors.MarkupError``, and a
player named ``[b]x[/b]`` showed in bold. Each command here is fed such names, targets
and reasons and must print them exactly as written, with no traceback.

The game is a store game (posts recorded as the agent records them); the saved pages
for ``tally``/``posts``/``inbox`` are served by the simulator over real HTTP.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.game.clock import AcceleratedClock
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from forumbot.simulator import SimClock, Simulator
from tests.forumbot.game_support import at, config_text, store_game, vote_tid
from tests.forumbot.simulator_support import login

# Names a Discuz account may really have (brackets and colons are allowed in user names):
# rich markup, a closing tag with nothing to close, an emoji code, an escaped bracket.
BOLD, EMOJI, OPEN, BACKSLASH = "[b]x[/b]", ":fire:", "[red]y", "\\[z]"
PLAYERS = ("饺子", BOLD, EMOJI, OPEN, BACKSLASH, "汤圆")
# What players write in their posts: a stray closing tag, markup, an emoji code.
TARGET = "小红[/]"
REASON = "[/][bold red]狼[/] :skull:"
CARD_WHY = "[/]刷屏 [blink]x[/blink]"


def cli(*args: str, env: dict[str, str] | None = None):
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": "400", **(env or {})})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output and "MarkupError" not in result.output, result.output
    return result


def shows(output: str, *texts: str) -> None:
    """Each text appears exactly as written (not read as markup, not turned into an emoji)."""
    for text in texts:
        assert text in output, f"{text!r} not shown as written:\n{output}"


@pytest.fixture
def game(tmp_path_factory):
    """Day 1 of a 14人简易 game whose players have hostile names, with hostile posts."""
    tmp = tmp_path_factory.mktemp("hostile")
    g = store_game(tmp, "simple14", players=PLAYERS)
    tid = vote_tid(1)
    g.post(tid, "饺子", f"投票对象：{TARGET}\n投票理由：{REASON}", at(1, "10:00"))  # void: no such player
    g.post(tid, "汤圆", f"投票对象：{EMOJI}\n投票理由：{REASON}", at(1, "10:01"))
    g.post(tid, EMOJI, f"投票对象：{BACKSLASH}\n投票理由：{REASON}", at(1, "10:02"))
    g.post(tid, OPEN, "投票对象：汤圆", at(1, "10:03"))  # void: no reason
    # BOLD and BACKSLASH do not vote: non-voters.
    g.close()
    # The commands run "now" in game time: a real-speed clock from noon of day 1.
    env = {CLOCK_ENV: clock_to_env(AcceleratedClock(origin=at(1, "12:00"), factor=1.0))}
    return tmp / "game.toml", env


def test_hostile_text__status_shows_names_targets_and_reasons_as_written(game):
    config, env = game
    result = cli("status", "--config", str(config), env=env)
    assert result.exit_code == 0, result.output
    shows(result.output, f"“{TARGET}”不是玩家", f"废票 5楼 {OPEN}：")
    table = result.output.split("计票", 1)[1]
    for name in (EMOJI, BACKSLASH):  # a count for the name itself
        assert re.search(r"│ " + re.escape(name) + r"\s*│\s*1 │", table), table
    non_voters = re.search(r"未投票：(.*)", result.output).group(1).split("、")
    assert set(non_voters) == {"饺子", BOLD, OPEN, BACKSLASH}, non_voters  # void votes included


def test_hostile_text__status_lists_a_card_with_a_hostile_reason(game):
    config, env = game
    given = cli("card", "--config", str(config), BOLD, "blue", "--why", CARD_WHY, env=env)
    assert given.exit_code == 0, given.output
    shows(given.output, BOLD)
    result = cli("status", "--config", str(config), env=env)
    assert result.exit_code == 0, result.output
    shows(result.output, f"已给判罚 #", CARD_WHY, BOLD)
    drafts = cli("drafts", "--config", str(config), "--all", env=env)
    number = re.search(r"#(\d+) 判罚通知", drafts.output)
    assert number, drafts.output
    shown = cli("show", "--config", str(config), number.group(1), env=env)
    assert shown.exit_code == 0, shown.output


def test_hostile_text__retally_count_now_out_and_events(game):
    config, env = game
    again = cli("retally", "--config", str(config), "--day", "1", env=env)
    assert again.exit_code == 0, again.output
    shows(again.output, f"{EMOJI} 1票", f"{BACKSLASH} 1票")
    now = cli("count-now", "--config", str(config), "--day", "1", env=env)
    assert now.exit_code == 0, now.output
    out = cli("out", "--config", str(config), EMOJI, "--why", "other", "--yes", env=env)
    assert out.exit_code == 0, out.output
    shows(out.output, EMOJI)
    listed = cli("events", "--config", str(config), env=env)
    assert listed.exit_code == 0, listed.output
    shows(listed.output, EMOJI)
    status = cli("status", "--config", str(config), env=env)
    shows(status.output, f"出局：{EMOJI}（")


def test_hostile_text__evidence_recount_table(game, tmp_path):
    config, env = game
    exported = tmp_path / "day1.json"
    made = cli("evidence", "--config", str(config), "--day", "1", "--out", str(exported), env=env)
    assert made.exit_code == 0, made.output
    result = cli("tally", "--evidence", str(exported), env=env)
    assert result.exit_code == 0, result.output
    shows(result.output, BOLD, EMOJI, OPEN, BACKSLASH, TARGET)


# -- saved pages, as the forum serves them -------------------------------------------------


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """A voting thread and a PM conversation saved from the simulator (X3.5 over HTTP)."""
    tmp = tmp_path_factory.mktemp("hostile-pages")
    clock = SimClock(start=at(1, "09:00"))
    sim = Simulator(clock=clock)
    uids = {name: sim.add_user(name, password="pw") for name in ("导演", "计票机器人", *PLAYERS)}
    fid = sim.add_forum("版杀区")
    tid = sim.add_thread(fid, "第一日 投票帖", author="导演", message="投票格式：\n投票对象：玩家名", at=at(1, "09:00"))
    sim.add_post(tid, BOLD, f"投票对象：{EMOJI}\n投票理由：{REASON}", at=at(1, "10:00"))
    sim.add_post(tid, EMOJI, f"投票对象：{TARGET}\n投票理由：{REASON}", at=at(1, "10:01"))
    sim.add_post(tid, OPEN, f"投票对象：{BOLD}\n投票理由：{REASON}", at=at(1, "10:02"))
    sim.send_pm(BOLD, "计票机器人", f"杀人 {TARGET} {REASON}", at=at(1, "10:05"))
    clock.advance(hours=2)  # every post and PM above is in the past
    with sim.running() as base, httpx.Client(base_url=base, follow_redirects=True) as http:
        thread = tmp / "thread.html"
        thread.write_bytes(http.get(f"forum.php?mod=viewthread&tid={tid}").content)
        login(http, "计票机器人")
        conversation = tmp / "pm.html"
        conversation.write_bytes(http.get(f"home.php?mod=space&do=pm&subop=view&touid={uids[BOLD]}").content)
    config = tmp / "game.toml"
    config.write_text(config_text("simple14", players=PLAYERS, days=1).replace(
        f"vote_thread = {vote_tid(1)}", f"vote_thread = {tid}"), encoding="utf-8")
    return thread, conversation, config


def test_hostile_text__posts_table(pages):
    thread, _, _ = pages
    result = cli("posts", "--pages", str(thread))
    assert result.exit_code == 0, result.output
    shows(result.output, BOLD, EMOJI, OPEN, f"投票 → {TARGET}")


def test_hostile_text__tally_table_from_pages(pages):
    thread, _, config = pages
    result = cli("tally", "--config", str(config), "--day", "1", "--pages", str(thread))
    assert result.exit_code == 0, result.output
    shows(result.output, BOLD, EMOJI, OPEN, TARGET)


def test_hostile_text__inbox_table(pages):
    _, conversation, _ = pages
    result = cli("inbox", "--pages", str(conversation))
    assert result.exit_code == 0, result.output
    shows(result.output, BOLD, REASON, TARGET)


def test_hostile_text__every_terminal_console_prints_text_not_markup():
    """Every command module prints through ``commands._console`` (markup and emoji codes
    off): a ``Console()`` made anywhere else would read player text as markup again."""
    root = Path(__file__).resolve().parents[2] / "forumbot"
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p.name != "_console.py" and re.search(r"\bConsole\(", p.read_text(encoding="utf-8"))]
    assert offenders == []
