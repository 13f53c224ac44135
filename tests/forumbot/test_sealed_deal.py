"""The sealed deal over real HTTP on the simulator (SPEC §10.1, §10.5), X3.5 UTF-8 and 7.2
GBK: the commitment drafted for the progress thread at the start, the end post — winner,
rule, the reveal text verbatim and its commitment — once a faction has won; each drafted
once, manual, published once through the outbox (also across a restart); then the game is
over and nothing asks for a night. A player who saves the reveal from the page and hashes
it gets the commitment posted at the start."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from engine.night import Identity
from forumbot.cli import main
from forumbot.agent.loop import Agent
from forumbot.game import director, ending, gamelog, sealing
from forumbot.game.runtime import make_client, open_runtime
from forumbot.game.state import current_state
from forumbot.notify import Notifier
from forumbot.simulator import SimClock, Simulator
from forumbot.store.marker import strip_marker
from forumbot.store.outbox import DraftKind, DraftState
from tests.engine.night_builders import SIMPLE, SIMPLE_TABLE, WOLVES14
from tests.forumbot.identity_support import toml_name, write_sheet

TZ = datetime(2026, 12, 1, tzinfo=__import__("zoneinfo").ZoneInfo("Asia/Shanghai")).tzinfo
PASSWORD = "pw"
BOT, DIRECTOR = "计票机器人", "导演"


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 12, day, hh, mm, tzinfo=TZ)


class Table:
    """A 14人简易 game on the simulator: a progress thread and two days' threads, the
    sheet in a 0600 file dealt with a salt."""

    def __init__(self, tmp: Path, discuz: str, charset: str, extra: str = "") -> None:
        self.tmp = tmp
        self.charset = charset
        self.clock = SimClock(start=at(1, 8, 0))
        self.sim = Simulator(clock=self.clock, discuz=discuz, charset=charset)
        for name in (DIRECTOR, BOT, *SIMPLE):
            self.sim.add_user(name, PASSWORD)
        fid = self.sim.add_forum("版杀区")
        self.progress = self.sim.add_thread(fid, "【饺子村】进程帖", DIRECTOR, "进程帖", at=at(1, 7, 0))
        self.votes = [self.sim.add_thread(fid, f"【饺子村】第{n}日 投票帖", DIRECTOR, "投票对象：玩家名",
                                          at=at(2 * n - 1, 7, 30)) for n in (1, 2)]
        base = self.sim.start()
        write_sheet(tmp / "身份.toml", SIMPLE_TABLE, salt="0f" * 16)
        days = "".join(f"""
[[days]]
number = {n}
vote_thread = {tid}
progress_thread = {self.progress}
start = "{at(2 * n - 1, 9, 30).isoformat()}"
deadline = "{at(2 * n, 21, 30).isoformat()}"
""" for n, tid in zip((1, 2), self.votes))
        self.config = tmp / "game.toml"
        self.config.write_text(f"""[forum]
base_url = "{base}"
timezone = "Asia/Shanghai"

[game]
ruleset = "simple14"
director = "{DIRECTOR}"
bot = "{BOT}"
players = [{", ".join(toml_name(p) for p in SIMPLE)}]

[identities]
file = "身份.toml"
{days}
[bot]
username = "{BOT}"

[agent]
database = "{tmp / 'game.sqlite'}"
poll_interval_seconds = 600
min_request_interval_seconds = 0

[notify]
enabled = false
{extra}""", encoding="utf-8")
        self.open()

    def open(self) -> None:
        self.rt = open_runtime(self.config, clock=self.clock)
        self.agent = Agent(self.rt, make_client(self.rt), notifier=Notifier.for_agent)
        self.agent.start()

    def restart(self) -> None:
        self.rt.close()
        self.open()

    def tick(self, approve: bool = True) -> None:
        report = self.agent.tick()
        assert report.errors == [], report.errors
        if approve:
            for draft in director.waiting(self.rt):
                if draft.kind in (DraftKind.SEALED_DEAL, DraftKind.GAME_END):
                    director.approve(self.rt, draft.id, self.clock.now())
            self.agent.tick()

    def bot_posts(self) -> list[str]:
        return [strip_marker(p.message) for p in self.sim.posts(self.progress) if p.author == BOT]

    def close(self) -> None:
        self.rt.close()
        self.sim.stop()


@pytest.fixture(params=[("x3", "utf-8"), ("7.2", "gbk")], ids=["x3-utf8", "d72-gbk"])
def table(request, tmp_path, monkeypatch):
    monkeypatch.setenv("FORUMBOT_PASSWORD", PASSWORD)
    game = Table(tmp_path, *request.param)
    yield game
    game.close()


def reveal_from(post: str) -> str:
    """The end post's code box as written (BBCode), each line ending in a newline."""
    box = re.search(r"\[code\](.*?)\[/code\]", post, re.S)
    assert box, post
    return "".join(line + "\n" for line in box.group(1).split("\n"))


def reveal_on_the_page(table: Table) -> str:
    """What a player copies from the thread page (「复制代码」: the box's lines) and saves
    as a text file: each line ending in a newline."""
    from bs4 import BeautifulSoup

    path = (f"viewthread.php?tid={table.progress}" if table.sim.discuz == "7.2"
            else f"forum.php?mod=viewthread&tid={table.progress}")
    page = httpx.get(table.rt.config.forum.base_url + path).content.decode(table.charset)
    boxes = BeautifulSoup(page, "html.parser").select("div.blockcode ol")
    assert len(boxes) == 2, page  # the seal's commitment, the end's reveal
    lines = [li.get_text() for li in boxes[1].find_all("li")]
    # <li>a<li>b: each li's text holds the ones nested after it; the line is its own part.
    own = [full[: len(full) - len(lines[k + 1])] if k + 1 < len(lines) else full for k, full in enumerate(lines)]
    return "".join(line + "\n" for line in own)


def test_sealed_deal__commitment_at_the_start_reveal_at_the_end(table):
    # The seal: drafted for the progress thread, manual, waiting for the director.
    table.tick(approve=False)
    (draft,) = [d for d in director.waiting(table.rt) if d.kind is DraftKind.SEALED_DEAL]
    assert draft.tid == table.progress and table.bot_posts() == []
    table.tick()
    (start,) = table.bot_posts()
    commitment = re.search(r"\[code\]([0-9a-f]{64})\[/code\]", start).group(1)
    assert "【身份封存】" in start
    for word in ("狼人", "预言家", "女巫", "长老", "村民", "0f0f0f"):  # neither an identity nor the salt
        assert word not in start
    assert sealing.stored_seal(table.rt).commitment == commitment
    status = CliRunner().invoke(main, ["status", "--config", str(table.config), "--json"]).output
    seal = json.loads(status)["sealed_deal"]
    assert seal["commitment"] == commitment and seal["state"] == "published" and "0f0f" not in status

    # Nothing more while the game goes on, however often the agent looks, and after a restart.
    table.clock.advance(hours=30)
    table.tick()
    table.restart()
    table.tick()
    assert len(table.bot_posts()) == 1 and ending.game_over(table.rt, current_state(table.rt.config,
                                                                                   table.rt.store)) is None

    # Every wolf out (night 1 and day 2's vote): 村民阵营 wins; the end post is drafted.
    now = table.clock.now()
    gamelog.enter(table.rt, gamelog.EventSpec("night", day=2, players=WOLVES14[:3]), now)
    gamelog.enter(table.rt, gamelog.EventSpec("out", player=WOLVES14[3], why="vote", day=2), now)
    table.tick(approve=False)
    (end_draft,) = [d for d in director.waiting(table.rt) if d.kind is DraftKind.GAME_END]
    assert end_draft.tid == table.progress
    table.tick()
    posts = table.bot_posts()
    assert len(posts) == 2
    end = posts[1]
    assert "【游戏结束】村民阵营获胜" in end and "判定：" in end and commitment in end
    revealed = reveal_from(end)
    assert hashlib.sha256(revealed.encode("utf-8")).hexdigest() == commitment
    assert reveal_on_the_page(table) == revealed
    assert revealed.startswith("1 饺子：狼人\n") and "7 馄饨：长老\n" in revealed
    assert revealed.endswith("盐：" + "0f" * 16 + "\n")

    # Once: more passes and a restart post nothing again; the game is over, no night is asked for.
    table.clock.advance(hours=2)
    table.tick()
    table.restart()
    table.tick()
    assert len(table.bot_posts()) == 2
    state = current_state(table.rt.config, table.rt.store)
    over = ending.game_over(table.rt, state)
    assert over is not None and over.how == "win" and "村民阵营获胜" in over.text
    status = director.status(table.rt, table.clock.now())
    assert not any("前夜" in line for line in status.waiting_for)
    drafts = [d for d in table.rt.outbox.drafts() if d.kind in (DraftKind.SEALED_DEAL, DraftKind.GAME_END)]
    assert sorted(d.kind.value for d in drafts) == ["game_end", "sealed_deal"]
    assert all(d.state is DraftState.PUBLISHED and d.attempts == 1 for d in drafts)


def test_sealed_deal__sheet_changed_after_the_seal_is_refused(table):
    table.tick()
    assert len(table.bot_posts()) == 1
    # The director swaps two identities in the file after the seal.
    swapped = {**SIMPLE_TABLE, "饺子": "村民", "元宵": "狼人"}
    write_sheet(table.tmp / "身份.toml", swapped, salt="0f" * 16)
    table.restart()
    table.clock.advance(hours=30)
    now = table.clock.now()
    gamelog.enter(table.rt, gamelog.EventSpec("night", day=2, players=("元宵", "包子", "汤圆")), now)
    gamelog.enter(table.rt, gamelog.EventSpec("out", player="月饼", why="vote", day=2), now)
    table.tick()
    assert len(table.bot_posts()) == 1, "no end post for a sheet that is not the sealed one"
    alarms = [a for a in table.rt.store.alarms() if a.key == sealing.CHANGED_ALARM]
    assert alarms and "SHA-256" in alarms[0].text
    assert not any(w in alarms[0].text for w in ("狼人", "村民", "饺子", "元宵"))


def test_sealed_deal__director_ends_the_game(table):
    table.tick()
    ending.declare(table.rt, "wolf", "村民投降", table.clock.now())
    # Over, but the end post is still to come: the service keeps giving the game passes.
    assert sealing.end_post_pending(table.rt)
    table.tick(approve=False)
    assert sealing.end_post_pending(table.rt)  # drafted, waiting for the director
    table.tick()
    assert not sealing.end_post_pending(table.rt)
    posts = table.bot_posts()
    assert len(posts) == 2 and "【游戏结束】导演宣布" in posts[1] and "村民投降" in posts[1]
    commitment = re.search(r"\[code\]([0-9a-f]{64})\[/code\]", posts[0]).group(1)
    assert hashlib.sha256(reveal_from(posts[1]).encode("utf-8")).hexdigest() == commitment


def test_find_reveal__dual_order_changed_by_the_players():
    from engine.night import mode_for
    from forumbot.game.dealing import sealed
    from tests.engine.night_builders import DUAL, DUAL_TABLE

    mode = mode_for("dual")
    dealt = mode.read_sheet(DUAL_TABLE, DUAL)
    record = sealing.Seal(sealed(mode, dealt, "ab" * 16).commitment, "ab" * 16, at(1, 8))
    ordered = dealt.ordered("戊", Identity.HUNTER).ordered("乙", Identity.WOLF)
    found = sealing.find_reveal(mode, ordered, record)
    assert found is not None and found.reveal == sealed(mode, dealt, "ab" * 16).reveal
    other = mode.read_sheet({**DUAL_TABLE, "己": ["村民", "守卫"], "丁": ["村民", "村民"]}, DUAL)
    assert sealing.find_reveal(mode, other, record) is None
