"""Secret means secret (SPEC §10.1): a scripted 14人简易 game with identities and night
actions runs over HTTP on the simulator — the seal, two days of votes, a night entered,
counts and the morning announcement published — and then every output a player, a log
reader or an outsider could see is crawled for every identity word of the sheet, the
skills of its actions and the salt: the bot's posts, the agent's log, the alarms, the
CLI's outputs without --secrets, the evidence export, and the desk's pages (loopback and,
behind a login, without it). Only --secrets, resolve and deal --show say them."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from engine.night import mode_for
from forumbot.cli import main
from forumbot.desk import create_app
from forumbot.game import director, gamelog
from tests.engine.night_builders import SIMPLE_TABLE
from tests.forumbot.test_sealed_deal import BOT, PASSWORD, Table, at

SALT = "0f" * 16
ACTIONS = f"""
[[actions]]
night = 1
actor = "饺子"
skill = "杀人"
target = "粽子"
at = "{at(2, 21, 50).isoformat()}"

[[actions]]
night = 1
actor = "小笼包"
skill = "预言"
target = "包子"
at = "{at(2, 21, 55).isoformat()}"

[[actions]]
night = 1
actor = "烧卖"
skill = "毒药"
target = "春卷"
at = "{at(2, 23, 0).isoformat()}"
"""


def secret_words() -> set[str]:
    """Every identity of the sheet by each of its names (two characters or more: 狼 alone is
    in 狼人杀), the skills its actions use, and the salt."""
    mode = mode_for("simple14")
    from engine.night.identities import IDENTITY_WORDS

    held = {mode.identity(v) for v in SIMPLE_TABLE.values()}  # type: ignore[arg-type]
    words = {w for w, i in IDENTITY_WORDS.items() if i in held and len(w) >= 2 and not w.isascii()}
    return words | {"杀人", "预言", "毒药", SALT}


class Log(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage() + (f"\n{record.exc_text}" if record.exc_text else ""))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("FORUMBOT_PASSWORD", PASSWORD)
    tmp = tmp_path_factory.mktemp("secret")
    capture = Log()
    root = logging.getLogger()
    level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    game = Table(tmp, "x3", "utf-8", extra=ACTIONS)
    try:
        sim, clock = game.sim, game.clock
        game.tick()  # the seal
        votes = [("饺子", "包子"), ("包子", "饺子"), ("汤圆", "饺子"), ("小笼包", "饺子"), ("烧卖", "包子")]
        clock.advance(hours=3)
        for who, whom in votes:
            sim.add_post(game.votes[0], who, f"投票对象：{whom}\n投票理由：试试", at=clock.now())
        game.tick()
        clock.advance(hours=36)  # past day 1's deadline and the settle delay
        game.tick()
        gamelog.enter(game.rt, gamelog.EventSpec("night", day=2, players=("粽子", "春卷")), clock.now())
        game.tick()
        clock.advance(hours=3)
        sim.add_post(game.votes[1], "包子", "投票对象：汤圆\n投票理由：第二天", at=clock.now())
        game.tick()
        # The morning announcement waits for the night's last words (遗言) until the morning
        # and 30 minutes after the outs were recorded (docs/decisions.md): past both.
        clock.advance(hours=8)
        game.tick()
        for draft in director.waiting(game.rt):
            director.approve(game.rt, draft.id, clock.now())
        game.tick()
        page = httpx.get(f"{game.rt.config.forum.base_url}forum.php?mod=viewthread&tid={game.votes[0]}").text
        (tmp / "vote1.html").write_text(page, encoding="utf-8")
        game.rt.close()
        yield game, capture.lines
    finally:
        root.removeHandler(capture)
        root.setLevel(level)
        game.sim.stop()
        mp.undo()


def leaks(text: str) -> list[str]:
    # The sides' names (the desk's end-of-game choices: 狼人阵营胜利) are not identities.
    text = text.replace("狼人阵营", "").replace("村民阵营", "")
    return sorted(w for w in secret_words() if w in text)


def test_crawl__the_game_happened(played):
    game, _ = played
    posts = [p.message for tid in (game.progress, *game.votes) for p in game.sim.posts(tid) if p.author == BOT]
    said = "\n".join(posts)
    assert "【身份封存】" in said and "最终计票" in said and "【公示】" in said


def test_crawl__bot_posts(played):
    game, _ = played
    for tid in (game.progress, *game.votes):
        for post in game.sim.posts(tid):
            if post.author == BOT:
                assert not leaks(post.message), post.message


def test_crawl__the_log(played):
    _, lines = played
    assert len(lines) > 20
    bad = {line: leaks(line) for line in lines if leaks(line)}
    assert not bad, bad


def _cli(game, *args: str) -> str:
    result = CliRunner().invoke(main, [args[0], "--config", str(game.config), *args[1:]])
    assert "Traceback" not in result.output
    return result.output


def test_crawl__cli_without_secrets(played, tmp_path):
    game, _ = played
    from forumbot.game.runtime import open_runtime

    rt = open_runtime(game.config, clock=game.clock)
    ids = [str(d.id) for d in rt.outbox.drafts()]
    alarms = [a.text for a in rt.store.alarms(active=None)]
    audit = json.dumps([a.__dict__ if hasattr(a, "__dict__") else str(a) for a in rt.store.audit_log()],
                       ensure_ascii=False, default=str)
    rt.close()
    outputs = {
        "status": _cli(game, "status"), "status --json": _cli(game, "status", "--json"),
        "events": _cli(game, "events"), "events --json": _cli(game, "events", "--json"),
        "drafts": _cli(game, "drafts", "--all"), "schedule": _cli(game, "schedule"),
        "deal --check": _cli(game, "deal", "--check"),
        "tally": _cli(game, "tally", "--day", "1", "--pages", str(game.tmp / "vote1.html")),
        "tally --json": _cli(game, "tally", "--day", "1", "--pages", str(game.tmp / "vote1.html"), "--json"),
        "alarms": "\n".join(alarms), "audit": audit,
        **{f"show {i}": _cli(game, "show", i) for i in ids},
    }
    for day in (1, 2):
        out = tmp_path / f"day{day}.json"
        _cli(game, "evidence", "--day", str(day), "--out", str(out))
        outputs[f"evidence {day}"] = out.read_text(encoding="utf-8")
    assert "无误" in outputs["deal --check"] and '"counts"' in outputs["tally --json"]
    bad = {name: leaks(text) for name, text in outputs.items() if leaks(text)}
    assert not bad, bad
    # The director's own screen says them when asked.
    assert leaks(_cli(game, "status", "--secrets")) and leaks(_cli(game, "resolve", "--night", "1"))


def test_crawl__desk_pages(played):
    game, _ = played
    for host, token in (("127.0.0.1", None), ("0.0.0.0", "correct-horse-battery")):
        app = create_app(game.config, clock=game.clock, host=host, token=token, secret_key=b"k" * 32)
        app.testing = True
        client = app.test_client()
        pages = [r.rule for r in app.url_map.iter_rules() if "GET" in (r.methods or ()) and not r.arguments]
        assert len(pages) > 5
        for page in pages:
            text = client.get(page).get_data(as_text=True)
            assert not leaks(text), (host, page, leaks(text))


def test_crawl__evidence_drops_a_deaths_cause(played, tmp_path):
    """A night death stored with its cause (毒药, 最后一枪 would say who holds what) is
    exported without it; the recount does not need it."""
    game, _ = played
    from forumbot.game.runtime import open_runtime

    rt = open_runtime(game.config, clock=game.clock)
    try:
        rt.store.append_event(2, "out", {"player": "豆浆", "why": "night", "cause": "毒药", "identity": "村民"},
                              actor="导演", at=game.clock.now(), game_at=at(3, 9, 30))
    finally:
        rt.close()
    out = tmp_path / "day2.json"
    _cli(game, "evidence", "--day", "2", "--out", str(out))
    text = out.read_text(encoding="utf-8")
    assert "豆浆" in text and not leaks(text), leaks(text)


def test_crawl__the_detector_finds_a_leak():
    assert leaks("1 饺子：狼人") == ["狼人"] and leaks("盐：" + SALT) == [SALT] and not leaks("狼人阵营胜利")
