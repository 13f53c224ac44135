"""A game in a store, without a forum: the config on disk, posts recorded as the agent
would record them, a clock the test moves, and the agent's end-of-day steps (final count,
the director's approval, the result at the deadline) as library calls.

For the director's library (``forumbot.game.gamelog``) and the agent's state over several
days; the end-to-end games over HTTP are in ``test_agent_games_over_time.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from forumbot.game.state import count_day, current_state
from forumbot.game.runtime import Runtime, open_runtime
from forumbot.simulator import SimClock
from parsers.models import Post, Quote, TimePrecision

TZ = ZoneInfo("Asia/Shanghai")
PLAYERS = ("饺子", "包子", "汤圆", "月饼", "小笼包", "烧卖")
PROGRESS = 1


def at(day: int, hhmm: str) -> datetime:
    hour, minute = (int(x) for x in hhmm.split(":"))
    return datetime(2026, 12, day, hour, minute, tzinfo=TZ)


def vote_tid(day: int) -> int:
    return 10 + 2 * day


def talk_tid(day: int) -> int:
    return 11 + 2 * day


def config_text(ruleset: str, players: tuple[str, ...] = PLAYERS, days: int = 3, *, sheriff: str | None = None,
                scapegoat: str | None = None, extra_game: str = "", extra: str = "", database: str = "game.sqlite",
                discussion: bool = True) -> str:
    lines = [
        '[forum]', 'base_url = "http://127.0.0.1:9/"', 'timezone = "Asia/Shanghai"', '',
        '[game]', f'ruleset = "{ruleset}"', 'director = "导演"', 'bot = "计票机器人"',
        "players = [" + ", ".join(json.dumps(p, ensure_ascii=False) for p in players) + "]",
    ]
    if sheriff:
        lines.append(f'sheriff = "{sheriff}"')
    if scapegoat:
        lines.append(f'scapegoat = "{scapegoat}"')
    lines.append(extra_game)
    for n in range(1, days + 1):
        lines += ["", "[[days]]", f"number = {n}", f"vote_thread = {vote_tid(n)}",
                  f"progress_thread = {PROGRESS}",
                  f'start = "{at(n, "09:00").isoformat()}"', f'deadline = "{at(n, "21:30").isoformat()}"']
        if discussion:
            lines.append(f"discussion_thread = {talk_tid(n)}")
    lines += ["", "[agent]", f'database = "{database}"', "", "[bot]", 'username = "计票机器人"', "", extra]
    return "\n".join(lines) + "\n"


@dataclass
class StoreGame:
    rt: Runtime
    clock: SimClock
    pids: dict[str, int] = field(default_factory=dict)
    next_pid: int = 1000
    floors: dict[int, int] = field(default_factory=dict)

    def close(self) -> None:
        self.rt.close()

    # -- players ----------------------------------------------------------------------

    def post(self, tid: int, author: str, text: str, when: datetime, *, key: str | None = None,
             quote: str | None = None) -> int:
        pid = self.next_pid
        self.next_pid += 1
        floor = self.floors.get(tid, 1) + 1
        self.floors[tid] = floor
        quotes = (Quote(pid=self.pids[quote], tid=tid, author=None, quoted_at=None, text=""),) if quote else ()
        post = Post(tid=tid, pid=pid, floor=floor, author=author, author_uid=None, posted_at=when,
                    time_precision=TimePrecision.SECOND, html=text, text=text, quotes=quotes)
        self.rt.store.record_posts([post], when)
        if key:
            self.pids[key] = pid
        return pid

    def vote(self, day: int, hhmm: str, who: str, target: str, *, key: str | None = None) -> int:
        return self.post(vote_tid(day), who, f"投票对象：{target}\n投票理由：理由见讨论帖", at(day, hhmm), key=key)

    def change(self, day: int, hhmm: str, who: str, target: str, quote: str) -> int:
        return self.post(vote_tid(day), who, f"改票对象：{target}\n改票理由：改主意了", at(day, hhmm), quote=quote)

    def talk(self, day: int, hhmm: str, who: str, text: str = "我觉得有狼") -> int:
        return self.post(talk_tid(day), who, text, at(day, hhmm))

    def progress(self, day: int, hhmm: str, who: str, text: str) -> int:
        return self.post(PROGRESS, who, text, at(day, hhmm))

    # -- the director and the agent ------------------------------------------------------

    def at(self, when: datetime) -> datetime:
        self.clock.set(when)
        return when

    def enter(self, spec, when: datetime):
        from forumbot.game import gamelog

        return gamelog.enter(self.rt, spec, self.at(when))

    def tally(self, day: int) -> dict:
        return count_day(self.rt.config, self.rt.store, day).data

    def state(self):
        return current_state(self.rt.config, self.rt.store)

    def final(self, day: int, when: datetime):
        """The agent's final count at ``when`` (after the deadline), as it drafts it."""
        from forumbot.game import announce
        from forumbot.agent.loop import final_draft

        self.at(when)
        existing = final_draft(self.rt.outbox, day)
        if existing is not None:
            return existing
        state = self.state()
        tally = count_day(self.rt.config, self.rt.store, day).data
        self.rt.store.save_tally(day, tally, at=when)
        return announce.draft_final(self.rt, state, state.day(day), tally, when)

    def approve_final(self, day: int, when: datetime) -> list[str]:
        """The director approves the day's final count at ``when``; the agent's next pass
        records its result (at the deadline, whatever ``when`` is)."""
        from forumbot.game import gamelog

        draft = self.final(day, when)
        self.rt.outbox.approve(draft.id, "director", now=self.at(when))
        return gamelog.settle_result(self.rt, day, when)


def store_game(tmp_path: Path, ruleset: str, *, start: datetime | None = None, **config) -> StoreGame:
    path = tmp_path / "game.toml"
    path.write_text(config_text(ruleset, **config), encoding="utf-8")
    clock = SimClock(start=start or at(1, "08:00"))
    rt = open_runtime(path, clock=clock)
    return StoreGame(rt, clock)


def later(when: datetime, minutes: int) -> datetime:
    return when + timedelta(minutes=minutes)
