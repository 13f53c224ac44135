"""No English sentence a director reads (issue 18 item 11, "done when"): a crawl of every
command's errors and refusals, of the log of a game played on the simulator (``forumbot
run``'s agent and ``forumbot serve``'s service), and of the offline commands' page errors.
The desk is crawled by ``test_desk_chinese.py`` (its raw data too).

A sentence is three or more English words in a row outside names, keys, paths, options
and codes (``tests/forumbot/chinese_support.py``). Every registered command must have
its rows in ``CASES``: a command added later without them fails here.
"""

from __future__ import annotations

import logging
import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.game.clock import AcceleratedClock
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from forumbot.demo.scenario import PASSWORD, PLAYERS, at
from engine.reasons import Reason
from forumbot.store.outbox import DraftState
from tests.forumbot.chinese_support import english_sentences


def _walk(group: click.Group, path: tuple[str, ...] = ()):
    ctx = click.Context(group, info_name="forumbot")
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _walk(command, (*path, name))
        else:
            yield (*path, name), command


COMMANDS = dict(_walk(main))
COMMAND_NAMES = {name for path in COMMANDS for name in path}
CHOICES = {str(c) for command in COMMANDS.values() for p in command.params
           if isinstance(p.type, click.Choice) for c in p.type.choices}
NAMES = (*PLAYERS, "路人", "新号", "导演", "计票机器人")


# Stored codes that must never reach a screen bare: a draft's state, a vote's reason, None.
_CODE_WORDS = {s.value for s in DraftState} | {r.value for r in Reason if r is not Reason.VALID} | {
    "None", "True", "False"}
_BARE_CODE = re.compile(r"(?<![\w\"'=./-])(%s)(?![\w\"'=./-])" % "|".join(sorted(map(re.escape, _CODE_WORDS), key=len,
                                                                         reverse=True)))


def bare_codes(text: str) -> list[str]:
    """Codes shown as words (「（draft）」, 「废票 late」, 「(None)」) outside JSON output."""
    if text.lstrip().startswith(("{", "[")):
        return []  # --json: the codes are the data
    return _BARE_CODE.findall(re.sub(r"\bforumbot [a-z-]+", " ", text))


def sentences(text: str) -> list[str]:
    """English sentences in what a command printed, once the command lines it names
    (``forumbot show 7``) and the words typed as choices are taken out."""
    text = re.sub(r"\bforumbot(?: (?:%s))*" % "|".join(map(re.escape, sorted(COMMAND_NAMES, key=len, reverse=True))),
                  " ", text)
    found = english_sentences(text, NAMES)
    return [s for s in found if not set(s.split()) <= CHOICES | COMMAND_NAMES]


# ---------------------------------------------------------------- the game

@dataclass
class Played:
    config: Path
    tmp: Path
    log: list[str] = field(default_factory=list)  # every log line of the agent's passes
    published: int | None = None  # a published draft's id
    waiting: int | None = None  # a draft waiting for approval
    busy_port: int = 0  # a port on 127.0.0.1 something listens on (the desk cannot have it)


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _faults(sim):
    """(game time, what to do) — the forum's trouble a director meets in a journal: server
    errors (retries), a reply whose answer is lost (found by its marker), flood control,
    an expired session, the site closed for maintenance, a truncated answer."""
    from forumbot.simulator import Fault

    def setting(name, value):
        return lambda: setattr(sim.settings, name, value)

    return [
        (at(1, "09:55"), lambda: sim.faults.add(Fault.SERVER_ERROR, status=502, times=3)),
        (at(1, "10:05"), lambda: sim.faults.add(Fault.SERVER_ERROR, match="action=reply", status=503)),
        (at(1, "12:05"), lambda: sim.faults.add(Fault.DROP_AFTER_STORE, match="action=reply")),
        (at(1, "13:00"), setting("floodctrl", 3600)),
        (at(1, "14:00"), setting("floodctrl", 15)),
        (at(1, "22:50"), setting("site_closed", "论坛维护中，预计 3 小时后恢复。")),
        (at(2, "01:50"), setting("site_closed", None)),
        (at(2, "09:35"), lambda: sim.faults.add(Fault.SESSION_EXPIRE, match="viewthread")),
        (at(2, "13:55"), lambda: sim.faults.add(Fault.TRUNCATE, match="action=reply")),
    ]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The demo's game on the simulator (real HTTP) up to day 2 at 21:50, the forum in
    trouble now and then, the director told by PM, with every log line of the agent
    captured: day 2's final count waits for the director."""
    from forumbot.demo.play import play, setup_game

    tmp = tmp_path_factory.mktemp("crawl")
    saved = {k: os.environ.get(k) for k in ("FORUMBOT_PASSWORD", CLOCK_ENV, "FORUMBOT_SERVICE", "FORUMBOT_GAMES",
                                            "FORUMBOT_CONFIG", "FORUMBOT_GAME")}
    for key in saved:
        os.environ.pop(key, None)
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    capture = Capture()
    root = logging.getLogger()
    level = root.level
    root.addHandler(capture)
    root.setLevel(logging.INFO)
    quiet = logging.getLogger("httpx")
    httpx_level = quiet.level
    quiet.setLevel(logging.WARNING)  # as forumbot run and serve set it (setup_logging)
    try:
        (tmp / "game").mkdir()
        game = setup_game(tmp / "game", notify={"enabled": True, "min_interval_seconds": 0})
        pending = _faults(game.sim)

        def trouble(report) -> None:
            while pending and pending[0][0] <= game.clock.now():
                pending.pop(0)[1]()

        play(game, until=at(2, "21:00"), on_tick=trouble)
        play(game, until=at(2, "21:50"), approve=False)
        assert not pending
    finally:
        root.removeHandler(capture)
        root.setLevel(level)
        quiet.setLevel(httpx_level)
    from forumbot.store.outbox import DraftState

    published = game.rt.outbox.drafts(DraftState.PUBLISHED)
    waiting = game.rt.outbox.drafts(DraftState.DRAFT)
    result = Played(game.rt.config.path, tmp, capture.lines, published[0].id if published else None,
                    waiting[0].id if waiting else None)
    game.close()
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    result.busy_port = busy.getsockname()[1]
    os.environ[CLOCK_ENV] = clock_to_env(AcceleratedClock(origin=game.clock.now(), factor=1.0))
    yield result
    busy.close()
    game.sim.stop()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def test_crawl__the_game_had_something_to_say(played):
    assert played.published and played.waiting and len(played.log) > 50
    said = "\n".join(played.log)
    for trouble in ("重试", "灌水", "已在论坛上找到", "论坛拒绝", "站内信"):
        assert trouble in said, trouble


# ---------------------------------------------------------------- the log

def test_crawl__the_agent_log_is_chinese(played):
    if dump := os.environ.get("FORUMBOT_CRAWL_DUMP"):
        with open(dump, "a", encoding="utf-8") as fh:
            fh.write("\n".join(played.log) + "\n")
    bad = {line: found for line in played.log if (found := sentences(line))}
    assert not bad, "\n".join(f"{line}\n    → {found}" for line, found in bad.items())


# ---------------------------------------------------------------- the commands

@dataclass(frozen=True)
class Case:
    command: str
    args: tuple[str, ...] = ()
    config: bool = True  # give --config (the played game's)


def _cases(played: Played) -> list[Case]:
    pub, wait = str(played.published), str(played.waiting)
    out = str(played.tmp / "day.json")
    games = played.tmp / "games"  # a service's folder: one game that cannot start
    games.mkdir(exist_ok=True)
    (games / "第九局.toml").write_text('[game]\nruleset = "s11"\n', encoding="utf-8")
    service = played.tmp / "service.toml"
    service.write_text(f'[service]\ngames = "{games}"\ndesk_prot = 1\n', encoding="utf-8")
    day2 = str(played.tmp / "day2.json")
    return [
        Case("accelerate", ("--day", "9", "-y")), Case("accelerate", ("--day", "1", "-y")),
        Case("adopt", ()),
        Case("alias", ("路人", "路", "-y")), Case("alias", ("饺子", "包子", "-y")),
        Case("approve", ("99",)), Case("approve", (pub,)),
        Case("card", ("路人", "yellow", "--why", "x")), Case("card", ("月饼", "yellow", "--why", "x", "--points", "3")),
        Case("card", ("月饼", "blue", "--why", "x", "--proposal", "99")),
        Case("card-undo", ("99", "--why", "x", "-y")),
        Case("action", ("饺子", "杀人", "包子")), Case("action", ("路人", "杀人", "包子")),
        Case("night", ("--confirm", "1", "-y")), Case("night", ()),
        Case("check", ()),
        Case("correct", ("99", "--because", "x", "-y")), Case("correct", ("1", "--because", "x", "--day", "9", "-y")),
        Case("count-now", ("--day", "9")), Case("count-now", ("--day", "1")),
        Case("deal", ()), Case("deal", ("--check",)), Case("deal", ("--show",)),
        Case("desk", ("--port", str(played.busy_port))),
        Case("dismiss", ("99",)),
        Case("drafts", ()), Case("drafts", ("--all",)),
        Case("draw-sheriff", ("-y",)),
        Case("edit", ("99",)),
        Case("deadline", ("--day", "9", "--extend", "1天")), Case("deadline", ("--day", "1", "--extend", "很久")),
        Case("deadline", ("--day", "1", "--at", "12-01 21:30", "--json")),
        Case("reopen", ("--day", "2",)), Case("reopen", ()),
        Case("events", ()), Case("events", ("--json",)),
        Case("evidence", ("--day", "9", "--out", out)), Case("evidence", ("--day", "2", "--out", str(played.tmp))),
        Case("evidence", ("--day", "2", "--out", day2)),
        Case("identity-lost", ("月饼", "--why", "night", "-y")),
        Case("idiot", ("月饼", "-y")),
        Case("inbox", ("--pages", str(played.config)), config=False),
        Case("init", ()),
        Case("login", ()),
        Case("mark-copy", ()),
        Case("night", ("--day", "9", "-y")), Case("night", ("--day", "3", "--out", "路人", "-y")),
        Case("night", ("--day", "3", "--out", "月饼"), ),
        Case("notify", ("--test",)),
        Case("out", ("路人", "--why", "vote", "-y")), Case("out", ("汤圆", "--why", "vote", "-y")),
        Case("posts", ("--pages", str(played.config)), config=False),
        Case("redraft", ("--day", "9")), Case("redraft", ("--day", "1")),
        Case("reject", ("99", "--why", "x")), Case("reject", (pub, "--why", "x")),
        Case("resolve", ("--night", "1")), Case("resolve", ("--night", "9", "--json")),
        Case("retally", ("--day", "9")), Case("retally", ("--day", "2")),
        Case("retry", ("99",)), Case("retry", (pub,)),
        Case("run", ("--once", "--config", str(played.tmp / "nope.toml")), config=False),
        Case("scapegoat", ("烧卖", "-y")),
        Case("schedule", ()), Case("schedule", ("--json",)), Case("schedule", ("--days", "0")),
        Case("serve", ("--games", str(played.tmp / "nope")), config=False),
        Case("serve", ("--service", str(service)), config=False),
        Case("status", ("--all", "--games", str(games)), config=False),
        Case("status", ("--game", "第五局"), config=False),
        Case("sheriff", ("路人", "-y")), Case("sheriff", ("汤圆", "-y")),
        Case("show", ("99",)), Case("show", (wait,)),
        Case("simulate", ("--script", str(played.config)), config=False),
        Case("status", ()), Case("status", ("--json",)), Case("status", ("--all",)),
        Case("substitute", ("路人", "新号", "-y")),
        Case("tally", ("--day", "9")), Case("tally", ("--day", "2", "--pages", str(played.config))),
        Case("tally", ("--evidence", day2), config=False), Case("tally", ("--evidence", str(played.config)), config=False),
        Case("undo", ("99", "--why", "x", "-y")),
        Case("void", ("99999", "--why", "x", "-y")),
        Case("voters", ("--day", "2", "饺子", "-y")),
        # last: changes that go through (the game after them is not the one above)
        Case("night", ("--day", "3", "--out", "月饼", "-y")), Case("drafts", ("--all",)), Case("status", ()),
    ]


def _invoke(*args: str, input: str | None = None):
    """A command as the director types it, from an empty folder (no config.toml there)."""
    import tempfile

    with tempfile.TemporaryDirectory() as empty:
        here = os.getcwd()
        os.chdir(empty)
        try:
            return CliRunner().invoke(main, list(args), prog_name="forumbot", input=input)
        finally:
            os.chdir(here)


def test_crawl__every_command_has_its_cases(played):
    covered = {c.command for c in _cases(played)}
    missing = {" ".join(path) for path in COMMANDS} - covered
    assert not missing, f"commands without crawl cases: {sorted(missing)}"


def _run(played: Played, case: Case) -> str:
    args = [case.command, *(("--config", str(played.config)) if case.config else ()), *case.args]
    result = _invoke(*args, input="n\n")
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), \
        (args, result.exception)
    return result.output


def test_crawl__every_command_speaks_chinese(played):
    bad = {}
    dump = os.environ.get("FORUMBOT_CRAWL_DUMP")  # a file to write every output to, for reading
    for case in _cases(played):
        output = _run(played, case)
        if dump:
            with open(dump, "a", encoding="utf-8") as fh:
                fh.write(f"$ forumbot {case.command} {' '.join(case.args)}\n{output}\n")
        if found := sentences(output) + bare_codes(output):
            bad[" ".join(case.args) and f"{case.command} {' '.join(case.args)}" or case.command] = (found, output)
    assert not bad, "\n".join(f"forumbot {k}:\n{out}    → {found}" for k, (found, out) in bad.items())


_GAME = '[game]\nruleset = "s10"\nbot = "计票机器人"\nplayers = ["饺子", "包子"]\n'
_DAY = '[[days]]\nnumber = 1\nvote_thread = 3\nstart = "2026-12-01T09:00:00+08:00"\n'
_A_DAY = _DAY + 'deadline = "2026-12-02T21:30:00+08:00"\n'  # so the refusal is about the key itself
BROKEN = {
    "missing": None,
    "unknown key": _GAME + 'sherif = "饺子"\n',
    "not TOML": "[game\n",
    "bad number": _GAME + _A_DAY + "[agent]\npoll_interval_seconds = 0\n",
    "bad rule": _GAME + "[game.rules]\nsheriff_weight = -1\n",
    "bad day": _GAME + _DAY + 'deadline = "2026-11-30T21:30:00+08:00"\n',
    "bad notify": _GAME + _A_DAY + '[notify]\nquiet_hours = "25:00-08:00"\n',
    "password": _GAME + _A_DAY + '[bot]\npassword = "x"\n',
    "bad base_url": '[forum]\nbase_url = "bbs.example.com/forum.php"\n' + _GAME,
}
# What each refusal must name, exactly as the TOML has it (once).
NAMED = {"missing": "无法读取", "unknown key": "[game].sherif: 未知的键", "not TOML": "不是有效的 TOML（第1行",
         "bad number": "[agent].poll_interval_seconds: 应为 ≥ 1 的数", "bad rule": "[game.rules].sheriff_weight: 应为",
         "bad day": "[[days]] #1（第1日）.deadline: 必须晚于 start", "bad notify": "[notify].quiet_hours: 不是一天里",
         "password": "[bot].password: 密码不能写在配置里", "bad base_url": "[forum].base_url: 必须以 http://"}


@pytest.mark.parametrize("kind", BROKEN)
def test_crawl__every_command_with_a_broken_config(played, kind):
    """Each command given a config that is missing or wrong says what is wrong in Chinese
    (naming the file and the key) — never 「Error: … unknown key」."""
    path = played.tmp / f"broken-{abs(hash(kind))}.toml"
    if BROKEN[kind] is not None:
        path.write_text(BROKEN[kind], encoding="utf-8")
    bad = {}
    for name, command in COMMANDS.items():
        if not any(getattr(p, "name", "") == "config_path" for p in command.params):
            continue
        result = _invoke(*name, "--config", str(path), *_required(command), *_EXTRA.get(name, ()), input="n\n")
        if found := sentences(result.output):
            bad[" ".join(name)] = (found, result.output)
        assert "Traceback" not in result.output
        if name in (("tally",), ("schedule",), ("deal",), ("resolve",)) and kind in ("bad number", "bad notify",
                                                                                      "password"):
            continue  # the offline commands and the schedule read the game tables only, not the agent's
        assert f"错误：{path}: " in result.output and NAMED[kind] in result.output, (name, result.output)
    assert not bad, "\n".join(f"forumbot {k}:\n{out}    → {found}" for k, (found, out) in bad.items())


# What a command checks before it reads the config (a name or --none), given so it reaches it.
_EXTRA = {("scapegoat",): ("饺子",), ("sheriff",): ("饺子",), ("voters",): ("饺子",),
          ("tally",): ("--day", "1", "--pages", __file__)}


def _required(command: click.Command) -> list[str]:
    """Values for a command's required arguments and options, so it reaches its config."""
    args: list[str] = []
    for p in command.params:
        if not p.required:
            continue
        if isinstance(p.type, click.Choice):
            value = str(p.type.choices[0])
        elif isinstance(p.type, click.types.IntParamType):
            value = "2"
        else:
            value = "饺子" if isinstance(p, click.Argument) else "x"
        if isinstance(p, click.Argument):
            args.append(value)
        else:
            args[:0] = [p.opts[0], value]
    return args


def test_crawl__the_detectors_can_fail():
    assert sentences("错误：no draft #99 in the outbox") == ["no draft in the outbox"]
    assert sentences("第2日 tally {'包子': 3}, abstain 1, non-voters 1") == ["tally abstain non-voters"]
    assert sentences("错误：config.toml: [game].sherif: 未知的键（可用的键：aliases、bot）") == []
    assert sentences("待审批：#14 最终计票 —— forumbot show 14；FORUMBOT_PASSWORD=… forumbot run --config game.toml") == []
    assert bare_codes("第3日公示草稿 #18（draft）") == ["draft"]
    assert bare_codes("废票 late：投票截止后发帖") == ["late"]
    assert bare_codes("对象 (None)") == ["None"]
    assert bare_codes('{"reason": "late", "state": "draft"}') == []


def test_crawl__a_vote_without_a_target_shows_what_was_written_never_none():
    from forumbot.commands.tally import _target

    assert _target({"target": None, "written": None}) == "（没有写投票对象）"
    assert _target({"target": None, "written": "谁都不是"}) == "（写的是「谁都不是」）"
    assert _target({"target": "饺子", "written": "饺"}) == "饺子"


@pytest.mark.parametrize("command", ["login", "check"])
def test_crawl__a_failed_login_leaks_no_log_record_onto_the_terminal(tmp_path, command):
    """issue 18: `forumbot login` / `check` with a wrong password printed the client's log
    record (a WARNING) before the command's own 错误：… — a second, stray line. A one-shot
    command says what happened itself; the log is for run and serve. A real process, so
    that logging's last-resort handler is the one a terminal would see (pytest's own
    capture would hide it)."""
    import subprocess
    import sys

    from forumbot.demo.play import setup_game

    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    game = setup_game(tmp_path)
    try:
        config = game.rt.config.path
        game.close()
        env = {k: v for k, v in os.environ.items() if not k.startswith("FORUMBOT_") and k != CLOCK_ENV}
        env["FORUMBOT_PASSWORD"] = "not-the-password"
        done = subprocess.run([sys.executable, "-m", "forumbot", command, "--config", str(config)], env=env,
                              capture_output=True, text=True, timeout=600, cwd=tmp_path, stdin=subprocess.DEVNULL)
        assert done.returncode == 1, done.stdout + done.stderr
        err = [line for line in done.stderr.splitlines() if line.strip()]
        if command == "login":
            assert len(err) == 1 and err[0].startswith("错误：登录失败"), done.stderr
        else:
            assert err == [], done.stderr  # check lists the failed login among its results
            assert "机器人登录" in done.stdout
        assert not sentences(done.stdout + done.stderr)
    finally:
        game.sim.stop()


# ---------------------------------------------------------------- forumbot serve's log

def test_crawl__the_service_log_is_chinese_and_names_the_game(tmp_path):
    """``forumbot serve``'s journal, as the service writes it (its format and the filter
    that puts ``[局名] `` before a game's lines): two games counting, one with a broken
    config, one whose discussion thread is gone, a config changed while it runs."""
    from forumbot.service.logs import FORMAT, GameName
    from tests.forumbot.service_support import served, wait_for

    s = served(tmp_path, 3, names=["甲局", "乙局", "丙局"])
    (s.folder / "乙局.toml").write_text('[game]\nruleset = "s11"\n', encoding="utf-8")
    gone = s.game("丙局").tids["talk1"]
    with s.sim.data.lock:
        del s.sim.data.threads[gone]
    lines: list[str] = []

    class Lines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    handler = Lines(logging.INFO)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(GameName())
    root = logging.getLogger()
    level, quiet = root.level, logging.getLogger("httpx").level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    s.start(desk=False)
    try:
        wait_for(lambda: s.game("甲局").bot_posts() and s.game("丙局").bot_posts(), timeout=90)
        wait_for(lambda: (g := s.summary("丙局")) is not None and g.problems, timeout=60)
        config = s.game("甲局").config
        config.write_text(config.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # a change: reload
        wait_for(lambda: any("重新载入" in line for line in lines), timeout=30)
    finally:
        s.stop()
        root.removeHandler(handler)
        root.setLevel(level)
        logging.getLogger("httpx").setLevel(quiet)
    assert s.errors == []
    messages = [line.split(" ", 4)[-1] for line in lines]  # after date, time, logger, level
    bad = {line: found for line, message in zip(lines, messages) if (found := sentences(message))}
    assert not bad, "\n".join(f"{line}\n    → {found}" for line, found in bad.items())
    for name in ("甲局", "乙局", "丙局"):
        assert any(f"[{name}] " in line for line in lines), (name, lines)
    assert any("[乙局] " in line and "[game].ruleset" in line for line in lines), lines
    assert any("[丙局] " in line and f"读帖子 {gone}：论坛拒绝" in line for line in lines), lines


# Commands that, given nothing, do their work (serve a forum until Ctrl-C): not run bare.
_RUNS_BARE = {("simulate",)}


def test_crawl__every_command_given_nothing(played):
    """Each command with no arguments at all, from a folder with no config.toml: a usage
    error or a refusal, in Chinese, never a traceback."""
    bad = {}
    for name in COMMANDS:
        if name in _RUNS_BARE:
            continue
        result = _invoke(*name, input="n\n")
        assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), \
            (name, result.exception)
        assert result.exit_code != 0 and "错误：" in result.output, (name, result.output)
        if found := sentences(result.output) + bare_codes(result.output):
            bad[" ".join(name)] = (found, result.output)
    assert not bad, "\n".join(f"forumbot {k}:\n{out}    → {found}" for k, (found, out) in bad.items())
