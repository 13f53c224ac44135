"""A small calendar game on the simulator over real HTTP (SPEC §11): a ``[calendar]``
config, the bot's account, four players, the agent on a clock the test moves.

``calendar_game(tmp_path, discuz=…, charset=…, named=True)``: with ``named`` the director
created day 1's voting thread and names it in a ``[[days]]`` block; without, the config has
no ``[[days]]`` at all and the bot opens the days' threads itself.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterator

from forumbot.agent.loop import Agent, TickReport
from forumbot.game.runtime import Runtime, make_client, open_runtime
from forumbot.simulator import BEIJING, SimClock, Simulator

DIRECTOR, BOT, PASSWORD = "导演", "计票机器人", "pw-calendar"
PLAYERS = ("饺子", "包子", "汤圆", "月饼")
# Day 1 opens Tuesday 2026-12-01 09:00 and closes 2026-12-02 21:30 (14人简易: A+1).
DAY1 = datetime(2026, 12, 1, 9, 0, tzinfo=BEIJING)


def at(day: int, hhmm: str) -> datetime:
    hour, minute = (int(x) for x in hhmm.split(":"))
    return datetime(2026, 12, day, hour, minute, tzinfo=BEIJING)


@dataclass
class CalendarGame:
    sim: Simulator
    clock: SimClock
    rt: Runtime
    agent: Agent
    fid: int
    vote_tid: int | None
    reports: list[TickReport] = field(default_factory=list)

    def tick(self, when: datetime) -> TickReport:
        self.clock.set(when)
        report = self.agent.tick()
        self.reports.append(report)
        return report

    def errors(self) -> list[str]:
        return [e for r in self.reports for e in r.errors]

    def bot_posts(self, tid: int) -> list[str]:
        return [p.message for p in self.sim.posts(tid) if p.author == BOT]

    def vote(self, tid: int, who: str, target: str, when: datetime | None = None) -> int:
        return self.sim.add_post(tid, who, f"投票对象：{target}\n投票理由：理由", at=when or self.clock.now())

    def approve_all(self) -> list[int]:
        from forumbot.game import director

        return [director.approve(self.rt, d.id, self.clock.now()).id for d in director.waiting(self.rt)]


def config_text(base_url: str, fid: int, database: Path, *, discuz: str, vote_tid: int | None,
                days: int = 2, extra_calendar: str = "", discussion: bool = False,
                director_uid: int | None = None) -> str:
    lines = [
        "[forum]", f'base_url = "{base_url}"', 'timezone = "Asia/Shanghai"', f'discuz = "{discuz}"', f"fid = {fid}", "",
        "[game]", 'ruleset = "simple14"', f'director = "{DIRECTOR}"', f'bot = "{BOT}"',
        "players = [" + ", ".join(f'"{p}"' for p in PLAYERS) + "]", "",
        "[calendar]", "start = 2026-12-01", f"days = {days}", f"discussion_threads = {'true' if discussion else 'false'}", extra_calendar, "",
    ]
    if vote_tid is not None:
        lines += ["[[days]]", "number = 1", f"vote_thread = {vote_tid}", ""]
    lines += ["[agent]", f'database = "{database}"', "poll_interval_seconds = 60", "poll_jitter_seconds = 0",
              "min_request_interval_seconds = 0", "running_count_interval_minutes = 600", "",
              "[bot]", f'username = "{BOT}"', "", "[notify]"]
    lines += [f"director_uid = {director_uid}", "min_interval_seconds = 0"] if director_uid else ["enabled = false"]
    lines.append("")
    return "\n".join(lines)


@contextmanager
def calendar_game(tmp_path: Path, *, discuz: str = "x3", charset: str = "utf-8", named: bool = True,
                  days: int = 2, extra_calendar: str = "", moderator: bool = False,
                  discussion: bool = False, notify: bool = False) -> Iterator[CalendarGame]:
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = SimClock(start=DAY1 - timedelta(hours=1))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    director_uid = sim.add_user(DIRECTOR, password="pw")
    sim.add_user(BOT, password=PASSWORD)
    for name in PLAYERS:
        sim.add_user(name, password="pw")
    fid = sim.add_forum("版杀区")
    if moderator:
        sim.set_moderator(fid, BOT)
    vote_tid = sim.add_thread(fid, "【测试村】第一日 投票帖", author=DIRECTOR, message="投票格式：投票对象：玩家名",
                              at=DAY1 - timedelta(minutes=30)) if named else None
    base = sim.start()
    try:
        path = tmp_path / "测试村.toml"
        path.write_text(config_text(base, fid, tmp_path / "game.sqlite", discuz="7.2" if discuz == "7.2" else "x3",
                                    vote_tid=vote_tid, days=days, extra_calendar=extra_calendar,
                                    discussion=discussion, director_uid=director_uid if notify else None), encoding="utf-8")
        rt = open_runtime(path, clock=clock)
        from forumbot.notify import Notifier

        agent = Agent(rt, make_client(rt), notifier=Notifier.for_agent if notify else None)
        agent.start()
        try:
            yield CalendarGame(sim, clock, rt, agent, fid, vote_tid)
        finally:
            rt.close()
    finally:
        sim.stop()
