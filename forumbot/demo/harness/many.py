"""Many games on one simulated forum, for ``forumbot serve``'s tests and benchmark.

Every game has its own threads (进程帖, and per day a 讨论帖 and a 投票帖) in the same
版杀区, its own director and 12–20 players drawn from one pool of forum members (the
same people play several games at once, as on a real forum), and one bot account for
all of them. ``write_games`` writes each game's config into a folder as ``NAME.toml``
with its database beside it, the way an operator lays out ``forumbot serve``'s folder.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from forumbot.demo.scenario import BOT, CHAT, PASSWORD, RULES_TEXT, DayPlan, GamePlan, World, long_players, write_config
from forumbot.simulator import Simulator

FORUM = "版杀区"


@dataclass
class ManyGame:
    name: str
    plan: GamePlan
    world: World
    director: str
    config: Path | None = None
    database: Path | None = None

    @property
    def tids(self) -> dict[str, int]:
        return self.world.tids

    def vote(self, who: str, target: str, *, day: int = 1, at: datetime | None = None) -> int:
        return self.world.sim.add_post(self.tids[f"vote{day}"], who, f"投票对象：{target}\n投票理由：测试",
                                       at=at)

    def bot_posts(self) -> list:
        return [p for tid in self.tids.values() for p in self.world.sim.posts(tid) if p.author == BOT]


@dataclass
class ManyGames:
    sim: Simulator
    games: list[ManyGame] = field(default_factory=list)
    users: set[str] = field(default_factory=set)

    def add_user(self, name: str) -> None:
        if name not in self.users:
            self.sim.add_user(name, PASSWORD)
            self.users.add(name)

    def login_posts(self) -> int:
        """Login form submissions the forum received (any account)."""
        return sum(1 for r in self.sim.requests if r.method == "POST" and (
            r.query.get("action") == "login" or r.path.endswith("logging.php")))

    def bot_posts(self) -> list:
        return sorted((p for g in self.games for p in g.bot_posts()), key=lambda p: p.pid)


def name_of(index: int) -> str:
    return f"第{index + 1}局"


def build_games(sim: Simulator, count: int, *, start: datetime, deadline: datetime, days: int = 1,
                players: tuple[int, int] = (12, 20), posts: int = 0, seed: int = 0,
                names: list[str] | None = None, director: str | None = None,
                rosters: list[tuple[str, ...]] | None = None) -> ManyGames:
    """``count`` games on ``sim``, all playing day 1 from ``start`` to ``deadline`` (later
    days follow a day apart). With ``posts`` each game's day 1 holds that many player
    posts: every player's vote (a fifth of them changed, with the quote), the rest
    discussion, a minute apart from five minutes after ``start`` (the clock should be past
    them when the games are read). ``director``: one director for every game (default: a
    director of its own each). ``rosters``: each game's players (default: drawn from the pool)."""
    rnd = random.Random(seed)
    many = ManyGames(sim)
    many.add_user(BOT)
    fid = sim.add_forum(FORUM)
    pool = long_players(players[1] * 3)
    for index in range(count):
        name = names[index] if names else name_of(index)
        size = rnd.randint(*players)
        first = rnd.randrange(0, len(pool) - size + 1)
        people = rosters[index] if rosters else tuple(pool[first:first + size])
        boss = director or f"导演{index + 1}"
        for user in (boss, *people):
            many.add_user(user)
        day_plans = tuple(DayPlan(n, start + timedelta(days=n - 1), deadline + timedelta(days=n - 1))
                          for n in range(1, days + 1))
        threads = {"progress": f"【{name}】进程帖"}
        for n in range(1, days + 1):
            threads[f"talk{n}"] = f"【{name}】第{n}日 讨论帖"
            threads[f"vote{n}"] = f"【{name}】第{n}日 投票帖"
        tids: dict[str, int] = {}
        for key, subject in threads.items():
            when = start - timedelta(hours=12) if key == "progress" else start - timedelta(minutes=30)
            tids[key] = sim.add_thread(fid, subject, boss,
                                       RULES_TEXT if key.startswith("vote") else f"{subject}\n请大家在这里发言。",
                                       at=when)
        plan = GamePlan(people, day_plans, threads, [], day_plans[-1].deadline + timedelta(hours=1),
                        game={"director": boss})
        game = ManyGame(name, plan, World(sim, tids), boss)
        many.games.append(game)
        if posts:
            _fill_day(game, posts, start, rnd)
    return many


def _fill_day(game: ManyGame, posts: int, start: datetime, rnd: random.Random) -> None:
    """``posts`` player posts on day 1 from ``start`` + 5 minutes, a minute apart."""
    sim, tids, people = game.world.sim, game.tids, game.plan.players
    when = start + timedelta(minutes=5)
    made = 0
    votes: dict[str, int] = {}
    for who in people:
        target = rnd.choice(people)
        votes[who] = sim.add_post(tids["vote1"], who, f"投票对象：{target}\n投票理由：第1日的判断", at=when)
        when += timedelta(minutes=1)
        made += 1
    for who in people[: len(people) // 5]:
        sim.add_post(tids["vote1"], who, f"改票对象：{rnd.choice(people)}\n改票理由：改主意了", at=when,
                     quote_pid=votes[who])
        when += timedelta(minutes=1)
        made += 1
    while made < posts:
        who = rnd.choice(people)
        sim.add_post(tids["talk1"], who, CHAT[rnd.randrange(len(CHAT))].format(x=rnd.choice(people)), at=when)
        when += timedelta(seconds=60)
        made += 1


def write_games(many: ManyGames, folder: Path, base_url: str, *, state: Path | None = None,
                bot: dict[str, object] | None = None, notify: dict[str, object] | None = None,
                **agent: object) -> None:
    """Each game's config as ``folder/NAME.toml``, its database ``state/NAME.sqlite``
    (``state`` defaults to ``folder``); ``notify``: the ``[notify]`` keys (off unless given)."""
    folder.mkdir(parents=True, exist_ok=True)
    state = state or folder
    for game in many.games:
        game.config = folder / f"{game.name}.toml"
        game.database = state / f"{game.name}.sqlite"
        # Each game's secret sheet beside its config, named so that the scan takes it for no game.
        write_config(game.config, game.world, base_url, game.database, plan=game.plan, bot=bot, notify=notify,
                     sheet_name=f"_{game.name}.身份.toml", **agent)


__all__ = ["FORUM", "ManyGame", "ManyGames", "build_games", "name_of", "write_games"]
