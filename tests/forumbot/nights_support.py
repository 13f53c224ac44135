"""The 14人简易 game whose nights are played by the players' PMs (forumbot.demo.nights), on
a simulator of either generation, with the director acting by PM only (approving drafts,
confirming the bot's resolution of each night); and what the tests read back."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from forumbot.demo.nights import PLAYERS14, SHEET14, nights_plan
from forumbot.demo.play import Game, PmDirector, pm_director, play_by_pm, setup_game
from forumbot.demo.scenario import BOT, DIRECTOR, GAME_START, PASSWORD
from forumbot.simulator import SimClock, Simulator
from forumbot.simulator.pm import PmMessage

MARKER = re.compile(r"防重发标记 (pm-[0-9a-f]{6}-[0-9]+-[0-9a-f]{6})")
HEAD = re.compile(r"^［[^］]*］")
IDENTITY_WORDS = ("狼人", "预言家", "女巫", "长老", "村民", "先知", "守卫", "猎人", "替罪羊")


def body(text: str) -> str:
    """A bot PM without the game's name at its head and the marker line."""
    return HEAD.sub("", "\n".join(line for line in text.split("\n") if not MARKER.search(line)), count=1)


@dataclass
class NightsGame:
    game: Game
    director: PmDirector

    @property
    def sim(self) -> Simulator:
        return self.game.sim

    def bot_pms(self, to: str) -> list[PmMessage]:
        bot = self.sim.data.user(BOT).uid
        return [m for m in self.sim.pms_between(BOT, to) if m.fromuid == bot]

    def player_pms(self, who: str) -> list[PmMessage]:
        uid = self.sim.data.user(who).uid
        return [m for m in self.sim.pms_between(BOT, who) if m.fromuid == uid]

    def all_bot_pms(self) -> list[PmMessage]:
        bot = self.sim.data.user(BOT).uid
        return sorted((m for m in self.sim.data.pms.messages.values() if m.fromuid == bot), key=lambda m: m.pmid)

    def close(self) -> None:
        self.game.close()
        self.sim.stop()


def play_nights(tmp: Path, discuz: str = "x3", charset: str = "utf-8") -> NightsGame:
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = SimClock(start=GAME_START - timedelta(minutes=20))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    game = setup_game(tmp, clock=clock, sim=sim, plan=nights_plan(), notify={"enabled": True})
    director = pm_director(game)
    play_by_pm(game, director)
    return NightsGame(game, director)


__all__ = ["DIRECTOR", "IDENTITY_WORDS", "MARKER", "NightsGame", "PLAYERS14", "SHEET14", "body", "play_nights"]


def played_by_pm(plan, discuz: str, charset: str, prefix: str, on_tick=None):
    """A scripted plan played to its end on a fresh simulator, the director answering
    only by PM (views and rejections already done): yields the game, then closes it. For a
    module fixture: ``yield from played_by_pm(...)``. ``on_tick(game, director, report)`` runs
    after each pass (a test restarts the agent there)."""
    import tempfile

    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = SimClock(start=plan.days[0].start - timedelta(minutes=20))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    game = setup_game(Path(tempfile.mkdtemp(prefix=prefix)), clock=clock, sim=sim, plan=plan,
                      notify={"enabled": True})
    director = pm_director(game)
    director.viewed = director.rejected = True
    play_by_pm(game, director, on_tick=(lambda report: on_tick(game, director, report)) if on_tick else None)
    yield game
    game.close()
    sim.stop()


def bot_said(game, who: str) -> list[str]:
    """The bodies of the bot's PMs to ``who``, oldest first."""
    bot = game.sim.data.user(BOT).uid
    return [body(m.text) for m in game.sim.pms_between(BOT, who) if m.fromuid == bot]
