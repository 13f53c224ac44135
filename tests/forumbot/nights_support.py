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


__all__ = ["ANSWERS", "DIRECTOR", "IDENTITY_WORDS", "LAST_WORDS", "MARKER", "NightsGame", "PLAYERS14", "SHEET14",
           "answers_to", "body", "bot_said", "play_nights", "played_by_pm", "words_plan"]

# How the bot's answer to a player's message begins (nightpm: 已收到 / why not).
ANSWERS = ("已收到", "未计入", "未读懂", "未公布")


def answers_to(sim: Simulator, who: str) -> tuple[list[str], list[str]]:
    """(what ``who`` sent the bot, the bot's answers to them): one answer per message."""
    bot, uid = sim.data.user(BOT).uid, sim.data.user(who).uid
    pms = sim.pms_between(BOT, who)
    return ([m.text for m in pms if m.fromuid == uid],
            [body(m.text) for m in pms if m.fromuid == bot and body(m.text).startswith(ANSWERS)])


# 遗言 by PM in the nights game (tests of SPEC §10.5): 汤圆 (out in night 1) leaves words
# with Discuz codes and tries to change them, 麻花 (living) has none to leave, 包子 (voted
# out on day 2) declines, 春卷 (poisoned in night 2) answers after the morning's announcement.
LAST_WORDS = ("遗言 [b]我是好人[/b]，[color=red]大家[/color]看[url=http://127.0.0.1/x]月饼[/url]"
              "[img]http://127.0.0.1/a.png[/img]\n[size=5]再见[/size]😀")


def words_plan():
    from dataclasses import replace

    from forumbot.demo.scenario import night_pm

    plan = nights_plan()
    extra = [
        night_pm(1, "06:30", "汤圆", LAST_WORDS, next_day=True),  # out in night 1 (confirmed), before the morning
        night_pm(1, "06:40", "汤圆", "遗言 我改主意了", next_day=True),  # never changed
        night_pm(1, "06:50", "麻花", "遗言 我还活着"),  # not out: nothing to leave
        night_pm(2, "23:50", "包子", "放弃遗言"),  # voted out on day 2: declines
        night_pm(3, "15:00", "春卷", "遗言 [i]太晚了[/i]"),  # poisoned in night 2: after the morning's announcement
    ]
    return replace(plan, actions=sorted(plan.actions + extra, key=lambda x: x.when))


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
