"""The demo game with PMs to the director on, on a simulator of either generation, driven
pass by pass; the director (and anyone else) is a forum user who sends PMs.

``NotifyGame.tick()`` is one agent pass after the scripted players' due posts; the clock
then moves ``step`` on (the client's waits — throttle, flood clock — move it too)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from forumbot.agent.loop import TickReport
from forumbot.demo.play import Game, setup_game
from forumbot.store.outbox import Draft, DraftKind
from forumbot.demo.scenario import BOT, DIRECTOR, PASSWORD, at
from forumbot.simulator import SimClock, Simulator
from forumbot.simulator.pm import PmMessage

SEND_PATHS = ("op=send", "module=sendpm", "action=send")
_HEAD = re.compile(r"^［[^］]*］")


def body(text: str) -> str:
    """A PM's text without the game it names at its head (``［第二局］``)."""
    return _HEAD.sub("", text, count=1)


def head(text: str) -> str | None:
    """The game(s) a PM names at its head."""
    m = _HEAD.match(text)
    return m.group(0)[1:-1] if m else None


@dataclass
class NotifyGame:
    game: Game

    @property
    def sim(self) -> Simulator:
        return self.game.sim

    @property
    def clock(self) -> SimClock:
        return self.game.clock

    @property
    def rt(self):
        return self.game.rt

    def tick(self, step: timedelta = timedelta(minutes=10)) -> TickReport:
        self.game.driver.apply_due(self.clock.now())
        report = self.game.agent.tick()
        assert report.errors == [], report.errors
        self.clock.advance(seconds=step.total_seconds())
        return report

    def until(self, when: datetime, step: timedelta = timedelta(minutes=10)) -> None:
        while self.clock.now() < when:
            self.tick(step)

    @property
    def name(self) -> str:
        """The game's name, as its PMs give it."""
        return self.game.agent.notifier.name

    def uid(self, name: str) -> int:
        return self.sim.data.user(name).uid

    def bot_pms(self, to: str = DIRECTOR) -> list[PmMessage]:
        bot = self.uid(BOT)
        return [m for m in self.sim.pms_between(BOT, to) if m.fromuid == bot]

    def says(self, text: str, who: str = DIRECTOR) -> int:
        return self.sim.send_pm(who, BOT, text)

    def code_of(self, draft: Draft) -> str:
        """The code the bot gave for ``draft`` in its PMs to the director."""
        for m in reversed(self.bot_pms()):
            for line in m.text.split("\n"):
                if re.search(rf"#{draft.id}(?!\d)", line):
                    found = re.search(r"「(?:批准|重发) ([A-Z0-9]{4})」", m.text[m.text.index(line):])
                    if found:
                        return found.group(1)
        raise AssertionError(f"no code for #{draft.id} in {[m.text for m in self.bot_pms()]}")

    def draft(self, kind: DraftKind, day: int) -> Draft:
        return next(d for d in self.rt.outbox.drafts() if d.kind is kind and d.day == day)

    def send_posts(self) -> int:
        """The PM sends the bot made (refused ones included)."""
        return sum(1 for r in self.sim.requests if r.method == "POST" and r.user == BOT
                   and any(p in "&".join(f"{k}={v}" for k, v in r.query.items()) for p in SEND_PATHS))

    def close(self) -> None:
        self.game.close()
        self.sim.stop()


def notify_game(tmp_path: Path, discuz: str = "x3", charset: str = "utf-8", *, start: datetime | None = None,
                notify: dict[str, object] | None = None, **agent: object) -> NotifyGame:
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = SimClock(start=start or at(1, "21:00"))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    game = setup_game(tmp_path, clock=clock, sim=sim, notify={"enabled": True, **(notify or {})}, **agent)
    game.agent.start()
    return NotifyGame(game)
