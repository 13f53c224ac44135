"""A scripted three-day game on the simulator: the demo's game and the end-to-end tests'.

Players post at fixed game times (the ``Script``); a ``Driver`` puts each post on the
simulated forum when the forum clock reaches it, stamped with its scripted time, so the
forum's content depends only on the script — however fast or slow the agent polls, and
whether or not it is killed and restarted along the way.

What happens (rule set 14人简易, sheriff's vote ×2, ties go to the sheriff's target):

* Day 1 elects the sheriff: 饺子, with the most votes. 烧卖 lurks (one post).
* Night 1: 汤圆 is killed.
* Day 2: 饺子 ×2 and 烧卖 vote 包子; 包子, Alice and bob_2 (a change that quotes his
  vote) vote 月饼 — a 3–3 tie the sheriff's target settles: 包子 is out. Along the way:
  烧卖 edits his vote to another target (the first-seen text stands, flagged), 月饼
  abstains and then changes without quoting (void), 小笼包 votes after the deadline (void),
  Alice asks for a count (计票) and gets one.
* Night 2: Alice is killed.
* Day 3: 月饼 is voted out; dead 汤圆 posts in the discussion thread (诈尸).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Callable
from zoneinfo import ZoneInfo

from forumbot.simulator import Simulator

TZ = ZoneInfo("Asia/Shanghai")
PLAYERS = ("饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖")
DIRECTOR = "导演"
BOT = "计票机器人"
PASSWORD = "demo-password"
GAME_START = datetime(2026, 12, 1, 9, 0, tzinfo=TZ)


def at(day: int, hhmm: str) -> datetime:
    hour, minute = (int(x) for x in hhmm.split(":"))
    return GAME_START.replace(hour=hour, minute=minute) + timedelta(days=day - 1)


@dataclass(frozen=True)
class Action:
    when: datetime
    # "post" | "edit" | "night" | "event" (the director enters one) | "card" | "pm" (``author``
    # sends ``message`` to the bot by forum PM: a player's night action, 双身份's order)
    kind: str
    thread: str = ""  # thread key ("vote1", "talk2", "progress")
    author: str = ""
    message: str = ""
    key: str | None = None  # lets a later post quote (or edit) this one
    quote: str | None = None
    day: int = 0
    out: tuple[str, ...] = ()
    spec: Any = None  # "event": a ``forumbot.game.gamelog.EventSpec``; "card": (player, colour, why[, points])


@dataclass(frozen=True)
class DayPlan:
    number: int
    start: datetime
    deadline: datetime


DAYS = (
    DayPlan(1, at(1, "09:00"), at(1, "21:30")),
    DayPlan(2, at(2, "09:00"), at(2, "21:30")),
    DayPlan(3, at(3, "09:00"), at(3, "21:30")),
)


def vote(day: int, hhmm: str, who: str, target: str, reason: str, key: str | None = None) -> Action:
    return Action(at(day, hhmm), "post", f"vote{day}", who, f"投票对象：{target}\n投票理由：{reason}", key=key)


def night_pm(day: int, hhmm: str, who: str, text: str, *, next_day: bool = False) -> Action:
    """A player's PM to the bot at ``hhmm`` of day ``day`` (``next_day``: the morning after)."""
    when = at(day + 1 if next_day else day, hhmm)
    return Action(when, "pm", author=who, message=text)


def change(day: int, hhmm: str, who: str, target: str, reason: str, quote: str | None) -> Action:
    return Action(at(day, hhmm), "post", f"vote{day}", who, f"改票对象：{target}\n改票理由：{reason}",
                  quote=quote)


CHAT = (
    "我昨晚想了很久，还是觉得{x}的发言有问题。",
    "先听听大家怎么说，我暂时没有明确的怀疑对象。",
    "{x}昨天的投票理由站不住脚，解释一下？",
    "我是好人，大家可以重点关注一下{x}。",
    "今天的节奏有点乱，建议先理一理昨天的票型。",
    "同意楼上，{x}的逻辑前后矛盾。",
)


def chatter(day: int, living: tuple[str, ...], quiet: tuple[str, ...] = (), posts: int = 5) -> list[Action]:
    """``posts`` discussion posts per talkative player between 09:30 and 19:30; one each
    for the quiet ones (so they show up as lurkers)."""
    actions: list[Action] = []
    for i, who in enumerate(living):
        count = 1 if who in quiet else posts
        for n in range(count):
            minute = 30 + (i * 7 + n * 131) % 600
            when = at(day, "09:00") + timedelta(minutes=minute)
            other = living[(i + n + 1) % len(living)]
            text = CHAT[(i + n) % len(CHAT)].format(x=other)
            actions.append(Action(when, "post", f"talk{day}", who, text))
    return actions


def script() -> list[Action]:
    a: list[Action] = []
    everyone = PLAYERS
    # ---- day 1: sheriff election
    a += chatter(1, everyone, quiet=("烧卖",))
    a += [
        vote(1, "10:00", "饺子", "包子", "先投一个试试"),
        vote(1, "10:20", "包子", "饺子", "饺子发言很稳，适合当警长"),
        vote(1, "11:00", "汤圆", "饺子", "同上"),
        vote(1, "12:10", "Alice", "饺子", "逻辑清楚"),
        vote(1, "13:30", "bob_2", "包子", "包子也不错"),
        vote(1, "14:00", "月饼", "饺子", "跟票"),
        vote(1, "15:45", "小笼包", "弃权", "还看不清"),
        vote(1, "16:30", "烧卖", "包子", "随便投"),
    ]
    a.append(Action(at(1, "23:00"), "night", day=2, out=("汤圆",)))
    # ---- day 2: the tie the sheriff settles
    living2 = tuple(p for p in everyone if p != "汤圆")
    # ten posts each on day 2: the talkative players are not 连续三个讨论日均不足十帖
    a += chatter(2, living2, quiet=("烧卖",), posts=10)
    a += [
        vote(2, "09:40", "饺子", "包子", "包子昨晚的发言很可疑"),
        vote(2, "10:00", "烧卖", "包子", "跟警长", key="shaomai-vote"),
        Action(at(2, "10:30"), "edit", author="烧卖", key="shaomai-vote",
               message="投票对象：月饼\n投票理由：想了想还是月饼"),
        vote(2, "11:00", "包子", "月饼", "月饼一直在划水"),
        vote(2, "11:30", "Alice", "月饼", "同意包子"),
        vote(2, "12:00", "bob_2", "包子", "先投包子", key="bob-vote"),
        vote(2, "13:00", "月饼", "弃权", "我是好人，弃权"),
        Action(at(2, "14:00"), "post", "vote2", "Alice", "计票，谢谢机器人"),
        change(2, "15:00", "bob_2", "月饼", "被Alice说服了", quote="bob-vote"),
        change(2, "16:00", "月饼", "包子", "还是投包子吧", quote=None),
        vote(2, "21:32", "小笼包", "月饼", "来晚了"),
    ]
    a.append(Action(at(2, "23:00"), "night", day=3, out=("Alice",)))
    # ---- day 3
    living3 = ("饺子", "bob_2", "月饼", "小笼包", "烧卖")
    a += chatter(3, living3)
    a += [
        Action(at(3, "10:05"), "post", "talk3", "汤圆", "我虽然出局了，但是我想说月饼是狼！"),
        vote(3, "10:00", "饺子", "月饼", "昨天的弃权很可疑"),
        vote(3, "11:00", "bob_2", "月饼", "跟警长"),
        vote(3, "12:00", "月饼", "饺子", "警长带错了"),
        vote(3, "13:00", "小笼包", "月饼", "同意"),
        vote(3, "14:00", "烧卖", "饺子", "唱反调"),
    ]
    return sorted(a, key=lambda x: x.when)


THREADS = {
    "progress": "【饺子村】进程帖",
    "talk1": "【饺子村】第一日 讨论帖", "vote1": "【饺子村】第一日 投票帖",
    "talk2": "【饺子村】第二日 讨论帖", "vote2": "【饺子村】第二日 投票帖",
    "talk3": "【饺子村】第三日 讨论帖", "vote3": "【饺子村】第三日 投票帖",
}
RULES_TEXT = (
    "投票格式（每项单独一行）：\n投票对象：玩家名\n投票理由：……\n"
    "改票须引用原投票帖：\n改票对象：玩家名\n改票理由：……\n截止前一小时不得改票。\n"
    "想看当前票数：回复一帖含「计票」二字的帖子，例如「计票一下，谢谢」，机器人会引用你的帖子报票"
    "（论坛不收太短的帖子：只写“计票”两个字会被拒绝）。"
)


@dataclass
class World:
    """The simulated forum with the game's accounts and threads. ``resolve`` names the
    threads the bot opens itself (a game from ``[calendar]`` without ``[[days]]``): a
    thread key ("vote2") → its tid once the bot opened it (None before)."""

    sim: Simulator
    tids: dict[str, int]
    fid: int = 0
    resolve: Callable[[str], int | None] | None = None
    keys: tuple[str, ...] = ()  # every thread key of the plan

    def tid(self, key: str) -> int | None:
        if key not in self.tids and self.resolve is not None:
            found = self.resolve(key)
            if found is not None:
                self.tids[key] = found
        return self.tids.get(key)

    def bot_posts(self, bot: str = BOT) -> list[tuple[str, int, str]]:
        """(thread key, pid, message) of every post ``bot`` made, by pid."""
        for key in self.keys:
            self.tid(key)
        out = [(key, p.pid, p.message) for key, tid in self.tids.items()
               for p in self.sim.posts(tid) if p.author == bot]
        return sorted(out, key=lambda x: x[1])


def build_world(sim: Simulator, plan: GamePlan | None = None, *, bot_opens: bool = False) -> World:
    """The game's accounts and threads on ``sim`` (the demo game unless ``plan`` is given).
    Threads are created in the plan's order, so their tids are known in advance. With
    ``bot_opens`` the director creates none: the bot opens each day's threads (SPEC §11),
    as the board's moderator (it locks them at the deadline)."""
    plan = plan or demo_plan()
    for name in (DIRECTOR, BOT, *plan.players):
        sim.add_user(name, PASSWORD)
    fid = sim.add_forum("版杀区")
    tids: dict[str, int] = {}
    first = plan.days[0].start
    if bot_opens:
        sim.set_moderator(fid, BOT)
        return World(sim, tids, fid, keys=tuple(k for k in plan.threads if k != "progress"))
    for key, subject in plan.threads.items():
        day = int(key[4:]) if key[4:].isdigit() else 1
        start = plan.days[day - 1].start if day <= len(plan.days) else first
        when = first - timedelta(hours=12) if key == "progress" else start - timedelta(minutes=30)
        tids[key] = sim.add_thread(fid, subject, DIRECTOR, RULES_TEXT if key.startswith("vote") else
                                   f"{subject}\n请大家在这里发言。", at=when)
    return World(sim, tids, fid, keys=tuple(plan.threads))


@dataclass
class Driver:
    """Puts each scripted action on the forum when its time has come (idempotent: an
    action is applied once, however often ``apply_due`` is called)."""

    world: World
    actions: list[Action] = field(default_factory=script)
    on_night: Callable[[Action], None] | None = None
    on_director: Callable[[Action], None] | None = None  # "event" and "card" actions
    done: int = 0
    pids: dict[str, int] = field(default_factory=dict)
    # May the due action go on the forum yet? (False holds it and every later one back; it
    # still carries its scripted time — but a PM held back is stamped when it goes, as the
    # forum stamps a PM on arrival.) For tests that need the bot to have seen a post before
    # it is edited, or to have asked a player before they answer, whatever the machine's load.
    gate: Callable[[Action], bool] | None = None
    _held: int = -1  # the action the gate held back last

    def apply_due(self, now: datetime) -> list[Action]:
        applied = []
        while self.done < len(self.actions) and self.actions[self.done].when <= now:
            action = self.actions[self.done]
            if self.gate is not None and not self.gate(action):
                self._held = self.done
                break
            if action.kind == "pm" and self._held == self.done:
                action = replace(action, when=now)
            if action.thread and self.world.tid(action.thread) is None:
                break  # the bot has not opened that thread yet: the players wait for it
            if action.kind == "post" and action.when < self._opened_at(action.thread):
                action = replace(action, when=now)  # held for the thread: posted now
            self._apply(action)
            applied.append(action)
            self.done += 1
        return applied

    @property
    def finished(self) -> bool:
        return self.done >= len(self.actions)

    def _opened_at(self, key: str) -> datetime:
        tid = self.world.tid(key)
        posts = self.world.sim.posts(tid) if tid is not None else []
        return posts[0].dateline if posts else datetime.min.replace(tzinfo=TZ)

    def _apply(self, action: Action) -> None:
        sim = self.world.sim
        if action.kind == "post":
            quote = self.pids[action.quote] if action.quote else None
            pid = sim.add_post(self.world.tids[action.thread], action.author, action.message,
                               at=action.when, quote_pid=quote)
            if action.key:
                self.pids[action.key] = pid
        elif action.kind == "edit":
            sim.edit_post(self.pids[action.key or ""], action.message, at=action.when)
        elif action.kind == "pm":
            # Stamped with its scripted time, like a post: what the bot reads of it does
            # not depend on when the driver got to it.
            sim.send_pm(action.author, action.thread or BOT, action.message, at=action.when)
        elif action.kind == "night" and self.on_night is not None:
            self.on_night(action)
        elif action.kind in ("event", "card") and self.on_director is not None:
            self.on_director(action)


def write_config(path: Path, world: World, base_url: str, database: Path, *, plan: GamePlan | None = None,
                 bot: dict[str, object] | None = None, policies: dict[str, str] | None = None,
                 notify: dict[str, object] | None = None, sheet_name: str = "身份.toml", **agent: object) -> Path:
    """A game config for a scripted game (the same keys a director writes); ``bot`` adds
    ``[bot]`` keys (e.g. cookie_file), ``policies`` sets ``[policies]``, ``notify`` the
    ``[notify]`` keys (off unless given: the scripted director does not read PMs), the
    rest ``[agent]``."""
    plan = plan or demo_plan()
    doc: dict = {
        "forum": {"base_url": base_url, "timezone": "Asia/Shanghai"},
        "game": {"ruleset": plan.ruleset, "director": DIRECTOR, "bot": BOT, "players": list(plan.players),
                 **plan.game},
        "days": [
            {"number": d.number, "vote_thread": world.tids[f"vote{d.number}"],
             "discussion_thread": world.tids[f"talk{d.number}"], "progress_thread": world.tids["progress"],
             "start": d.start.isoformat(), "deadline": d.deadline.isoformat()}
            for d in plan.days
        ],
        "bot": {"username": BOT, **(bot or {})},
        "agent": {"database": str(database), "poll_interval_seconds": 600, "poll_jitter_seconds": 60,
                  "min_request_interval_seconds": 2, "running_count_interval_minutes": 120, **agent},
    }
    if policies:
        doc["policies"] = dict(policies)
    doc["notify"] = {"enabled": False, **(notify or {})}
    if plan.identities:
        doc["identities"] = write_sheet(path.parent, plan, sheet_name)
    path.write_text(dump_toml(doc), encoding="utf-8")
    return path


def write_sheet(folder: Path, plan: GamePlan, name: str = "身份.toml") -> dict[str, object]:
    """The plan's identities as the secret sheet beside the config, private to the user
    (SPEC §10.1) — what ``forumbot deal`` would write, dealt as the script needs — and the
    ``[identities]`` table that names it."""
    sheet = folder / name
    sheet.write_text("\n".join(f"{_toml(p)} = {_toml(v)}" for p, v in plan.identities.items()) + "\n",
                     encoding="utf-8")
    sheet.chmod(0o600)
    return {"file": sheet.name, "tell_by_pm": plan.tell_by_pm}


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml(str(k))} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()  # TOML's own dates and times ([calendar].start = 2026-12-01)
    return json.dumps(str(value), ensure_ascii=False)


def dump_toml(doc: dict) -> str:
    """Enough TOML for a game config: tables, sub-tables and arrays of tables."""
    lines: list[str] = []

    def table(name: str, values: dict) -> None:
        scalars = {k: v for k, v in values.items() if not isinstance(v, dict) and not _is_tables(v)}
        lines.append(f"[{name}]")
        lines.extend(f"{_toml(str(k))} = {_toml(v)}" for k, v in scalars.items())
        lines.append("")
        for key, value in values.items():
            if isinstance(value, dict):
                table(f"{name}.{_toml(str(key))}", value)

    for key, value in doc.items():
        if isinstance(value, dict):
            table(_toml(str(key)), value)
        elif _is_tables(value):
            for item in value:
                lines.append(f"[[{key}]]")
                lines.extend(f"{_toml(str(k))} = {_toml(v)}" for k, v in item.items())
                lines.append("")
    return "\n".join(lines)


def _is_tables(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def bot_opens_threads(source: Path) -> bool:
    """The config has a [calendar] and names no day's voting thread: the bot opens them."""
    doc = tomllib.loads(source.read_text(encoding="utf-8"))
    return "calendar" in doc and not any("vote_thread" in d for d in doc.get("days", []))


def config_from(source: Path, path: Path, base_url: str, database: Path, *,
                notify: dict[str, object] | None = None, fid: int | None = None, plan: GamePlan | None = None,
                **agent: object) -> Path:
    """A copy of the config ``source`` (e.g. the project's config.toml, which describes this
    very game) pointed at ``base_url`` with its database at ``database``; PMs to the
    director off unless ``notify`` says otherwise (the demo has its own PM mode). A
    ``plan`` with identities deals them: its sheet beside the copy, named by ``[identities]``."""
    doc = tomllib.loads(source.read_text(encoding="utf-8"))
    if plan is not None and plan.identities:
        doc["identities"] = write_sheet(path.parent, plan)
    doc.setdefault("forum", {})["base_url"] = base_url
    if fid is not None:
        doc["forum"]["fid"] = fid  # the simulated board the bot opens the days' threads in
    doc.setdefault("agent", {}).update({"database": str(database), **agent})
    doc["notify"] = {**doc.get("notify", {}), "enabled": False, **(notify or {})}
    doc.setdefault("bot", {}).pop("cookie_file", None)
    path.write_text(dump_toml(doc), encoding="utf-8")
    return path


END = at(3, "22:30")


def classic_config(source: Path, path: Path) -> Path:
    """The config ``source`` (the project's config.toml) for the eight players of ``script``
    and no identities — the demo game before it grew to 14人简易's composition, its nights
    entered by the director — for the tests that play that script on a [calendar]."""
    doc = tomllib.loads(source.read_text(encoding="utf-8"))
    doc["game"]["players"] = list(PLAYERS)
    doc.setdefault("calendar", {})["days"] = len(DAYS)
    doc.pop("identities", None)
    path.write_text(dump_toml(doc), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------
# A load game (benchmarks): many players, many days, many posts.


def long_players(count: int) -> tuple[str, ...]:
    """``count`` distinct player names the way forums have them: CJK, ASCII, mixed."""
    stems = ("饺子", "包子", "汤圆", "Alice", "bob", "月饼", "小笼包", "烧卖", "馄饨", "Kiki",
             "春卷", "麻团", "Zed", "油条", "粽子", "Lucy")
    return tuple(f"{stems[i % len(stems)]}_{i // len(stems) + 1}" for i in range(count))


def load_plan(days: int = 7, players: int = 20, posts: int = 5000, seed: int = 1) -> GamePlan:
    """``posts`` player posts over ``days`` days: each living player votes once a day in
    the vote thread (some abstain, some change with a quote), the rest is discussion
    spread over the day. No one is put out, so the game's state stays simple; the load is
    what matters. Deterministic for a seed."""
    import random

    rnd = random.Random(seed)
    names = long_players(players)
    plans = tuple(DayPlan(n, at(n, "09:00"), at(n, "21:30")) for n in range(1, days + 1))
    actions: list[Action] = []
    per_day = [posts // days + (1 if n < posts % days else 0) for n in range(days)]
    span = int((plans[0].deadline - plans[0].start).total_seconds()) - 600
    for plan, budget in zip(plans, per_day):
        n = plan.number
        day_actions: list[Action] = []
        for who in names:
            if len(day_actions) >= budget:
                break
            when = plan.start + timedelta(seconds=300 + rnd.randrange(span // 2))
            target = "弃权" if rnd.random() < 0.05 else rnd.choice(names)
            key = f"long-v{n}-{who}"
            day_actions.append(Action(when, "post", f"vote{n}", who,
                                      f"投票对象：{target}\n投票理由：第{n}日的判断", key=key))
            if rnd.random() < 0.2 and len(day_actions) < budget:
                later = when + timedelta(seconds=60 + rnd.randrange(span // 3))
                day_actions.append(Action(later, "post", f"vote{n}", who,
                                          f"改票对象：{rnd.choice(names)}\n改票理由：改主意了", quote=key))
        while len(day_actions) < budget:
            who = rnd.choice(names)
            when = plan.start + timedelta(seconds=60 + rnd.randrange(span))
            text = CHAT[rnd.randrange(len(CHAT))].format(x=rnd.choice(names))
            day_actions.append(Action(when, "post", f"talk{n}", who, text))
        actions += day_actions
    return GamePlan(names, plans, _day_threads(days, "【长局】"), sorted(actions, key=lambda a: a.when),
                    at(days, "22:30"))


# ====================================================================== longer games
# A ``GamePlan`` is any scripted game: the players, the days, the threads and the timed
# actions. ``demo_plan()`` is the three-day game above; ``long_plan()`` generates a seeded
# game of any length (the soak run's seven days). The harness (``forumbot.demo.harness``) runs
# either against an agent in a subprocess.

NAME_POOL = ("饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖",
             "春卷", "Carol", "油条", "麻花")


@dataclass(frozen=True)
class GamePlan:
    players: tuple[str, ...]
    days: tuple[DayPlan, ...]
    threads: dict[str, str]  # key ("vote3") → subject
    actions: list[Action]
    end: datetime  # when the game is over (last final count drafted and settled)
    # Windows in which the agent must be reading (an edit that changes a target is only
    # ruled "first seen stands" when the agent saw the post before the edit).
    watched: tuple[tuple[datetime, datetime], ...] = ()
    expected_out: dict[int, str] = field(default_factory=dict)  # day → voted out (or sheriff on day 1)
    ruleset: str = "simple14"
    game: dict[str, Any] = field(default_factory=dict)  # more [game] keys (sheriff, scapegoat…)
    # The identities (SPEC §10.1: player → identity, 双身份 a list), written to a 0600 file
    # beside the config; empty: a game without identities (the director enters the nights).
    identities: dict[str, Any] = field(default_factory=dict)
    tell_by_pm: bool = False  # [identities].tell_by_pm


def demo_plan() -> GamePlan:
    """The three-day demo game as a ``GamePlan`` (same script, threads and days)."""
    return GamePlan(PLAYERS, DAYS, dict(THREADS), script(), END,
                    watched=((at(2, "10:00"), at(2, "10:30")),),
                    expected_out={1: "饺子", 2: "包子", 3: "月饼"})


def _day_threads(days: int, village: str = "【饺子村】") -> dict[str, str]:
    threads = {"progress": f"{village}进程帖"}
    for n in range(1, days + 1):
        threads[f"talk{n}"] = f"{village}第{n}日 讨论帖"
        threads[f"vote{n}"] = f"{village}第{n}日 投票帖"
    return threads


def long_plan(days: int = 7, players: int = 12, seed: int = 0) -> GamePlan:
    """A seeded ``days``-day game for ``players`` (8–12) players: a clear target each day
    (so who goes out is known in advance: the day-1 sheriff, then the player voted out),
    changes that quote their vote, a change without a quote (void), an abstention, a
    player who never votes, a lurker, a late vote, an edit that changes a target three
    hours after the vote, a 计票 request, and a night kill whenever enough players are
    left for the remaining days."""
    import random

    if not 8 <= players <= len(NAME_POOL):
        raise ValueError(f"players must be 8–{len(NAME_POOL)}, not {players}")
    rng = random.Random(seed)
    names = NAME_POOL[:players]
    plans = tuple(DayPlan(n, at(n, "09:00"), at(n, "21:30")) for n in range(1, days + 1))
    living = list(names)
    sheriff: str | None = None
    actions: list[Action] = []
    watched: list[tuple[datetime, datetime]] = []
    expected: dict[int, str] = {}
    played = 0
    for n in range(1, days + 1):
        if len(living) < 5:
            break
        played = n
        order = [p for p in living if p != sheriff]
        rng.shuffle(order)
        target = order[0]  # the day's clear choice (sheriff on day 1, out afterwards)
        order = order + ([sheriff] if sheriff else [])
        lurker, abstainer = order[1], order[2]
        silent = order[3] if len(living) >= 7 else None
        actions += chatter(n, tuple(living), quiet=(lurker,))
        voters = [p for p in order if p not in (abstainer, silent)]
        backers = [p for p in voters if p != target][: len(voters) // 2]  # vote the target
        if sheriff in voters and sheriff not in backers:
            backers[-1] = sheriff  # the sheriff's double vote must not make a tie
        others = [p for p in living if p != target]
        rng.shuffle(others)
        spread = iter(others * 2)  # the rest vote distinct players: at most 1 vote each
        minutes = sorted(rng.sample(range(30, 600, 5), len(voters)))
        edited = False
        for who, minute in zip(voters, minutes):
            when = at(n, "09:00") + timedelta(minutes=minute)
            key = f"d{n}-{who}"
            if who in backers and not edited and minute <= 420:
                # an edit that changes the target three hours later: the first-seen vote
                # stands (flagged); the agent must have seen the post before the edit
                edited = True
                actions.append(vote(n, _hhmm(when), who, target, "跟票", key=key))
                edit_at = when + timedelta(hours=3)
                actions.append(Action(edit_at, "edit", author=who, key=key,
                                      message=f"投票对象：{_other(who, target, others)}\n投票理由：改主意了"))
                watched.append((when, edit_at))
            elif who in backers and len(watched) and minute % 2 == 1:
                # first another player, then a change that quotes the vote
                actions.append(vote(n, _hhmm(when), who, _other(who, target, others), "先投一票", key=key))
                later = min(when + timedelta(minutes=90), at(n, "20:00"))
                actions.append(change(n, _hhmm(later), who, target, "改票", quote=key))
            elif who in backers:
                actions.append(vote(n, _hhmm(when), who, target, "跟票", key=key))
            else:
                pick = next(spread)
                while pick == who:
                    pick = next(spread)
                actions.append(vote(n, _hhmm(when), who, pick, "理由见讨论帖", key=key))
        actions.append(vote(n, "12:30", abstainer, "弃权", "还看不清"))
        if n % 2 == 0:
            actions.append(change(n, "19:45", abstainer, target, "不引用原帖改票", quote=None))  # void
        asker = voters[-1]
        actions.append(Action(at(n, "15:00"), "post", f"vote{n}", asker, "计票，谢谢"))
        if silent is not None and n % 3 == 0:
            actions.append(vote(n, "21:40", silent, target, "来晚了"))  # after the deadline: void
        expected[n] = target
        if n == 1:
            sheriff = target
        else:
            living.remove(target)
        if n < days and len(living) - 1 - (days - n - 1) >= 5:
            victim = rng.choice([p for p in living if p != sheriff])
            living.remove(victim)
            actions.append(Action(at(n, "23:00"), "night", day=n + 1, out=(victim,)))
        elif n < days:
            actions.append(Action(at(n, "23:00"), "night", day=n + 1, out=()))  # a quiet night
    if not played:
        raise ValueError("not enough players for a single day")
    return GamePlan(names, plans[:played], _day_threads(played),
                    sorted(actions, key=lambda x: x.when), at(played, "22:30"),
                    watched=tuple(watched), expected_out=expected)


def _other(who: str, target: str, others: list[str]) -> str:
    return next(p for p in others if p not in (who, target))


def _hhmm(when: datetime) -> str:
    return f"{when:%H:%M}"


# ====================================================================== games over time
# Two three-day games whose days are tallied against the game as it stood at each moment
# (SPEC §9): events the director enters — some late — with their game times. The
# end-to-end tests (tests/forumbot/test_agent_games_over_time.py) check every bot post.


def director_event(when: datetime, spec: Any) -> Action:
    return Action(when, "event", spec=spec)


def director_card(when: datetime, player: str, colour: str, why: str, points: int | None = None) -> Action:
    """A card the director gives (``colour`` "points" and ``points``: a 双身份 deduction)."""
    return Action(when, "card", spec=(player, colour, why) if points is None else (player, colour, why, points))


def s10_plan() -> GamePlan:
    """官方规则S10 over three days, with 若愚, a red card before the deadline, a night death
    entered late and a badge succession.

    * Day 1 elects 饺子 sheriff.
    * Night 1: 汤圆 is killed (entered on time).
    * Day 2: 月饼 has the most votes (4) but is red-carded at 20:00 — before the vote-out:
      the votes on 月饼 and 月饼's own vote count for no one. 烧卖 (3, the sheriff's ×2
      included) is voted out, reveals as the idiot (【若愚】) and stays in.
    * Night 2: 饺子, the sheriff, is killed — the director enters it only at 12:00 on day 3,
      with the successor 包子 (【殉职】). 饺子's 10:00 vote is 诈尸 all the same, and 包子's
      vote weighs ×2 from the badge's passing; 烧卖's weighs 0.
    * Day 3: bob_2 is voted out.
    """
    from forumbot.game.gamelog import EventSpec

    a: list[Action] = []
    a += chatter(1, PLAYERS, quiet=("烧卖",))
    a += [
        vote(1, "10:00", "饺子", "包子", "先投一个"),
        vote(1, "10:20", "包子", "饺子", "饺子适合当警长"),
        vote(1, "11:00", "汤圆", "饺子", "同上"),
        vote(1, "12:10", "Alice", "饺子", "逻辑清楚"),
        vote(1, "13:30", "bob_2", "包子", "包子也不错"),
        vote(1, "14:00", "月饼", "饺子", "跟票"),
        vote(1, "15:45", "小笼包", "弃权", "还看不清"),
        vote(1, "16:30", "烧卖", "包子", "随便投"),
        director_event(at(1, "23:00"), EventSpec("night", day=2, players=("汤圆",))),
    ]
    living2 = tuple(p for p in PLAYERS if p != "汤圆")
    a += chatter(2, living2, posts=10)
    a += [
        vote(2, "09:40", "饺子", "烧卖", "烧卖昨天乱投"),
        vote(2, "10:00", "包子", "烧卖", "跟警长"),
        vote(2, "10:30", "Alice", "月饼", "月饼太可疑"),
        vote(2, "11:00", "bob_2", "月饼", "同意Alice"),
        vote(2, "11:30", "月饼", "包子", "包子带节奏"),
        vote(2, "12:00", "小笼包", "月饼", "跟票"),
        vote(2, "12:30", "烧卖", "月饼", "我是好人"),
        Action(at(2, "19:00"), "post", "talk2", "月饼", "[size=7][color=red]你们都是狼！！！[/color][/size]"),
        director_card(at(2, "20:00"), "月饼", "red", "恶意刷屏，屡教不改"),
        # 烧卖 is voted out at 21:30 and reveals: 【若愚】 at the deadline
        director_event(at(2, "21:35"), EventSpec("idiot", player="烧卖")),
    ]
    living3 = ("包子", "Alice", "bob_2", "小笼包", "烧卖")
    a += chatter(3, living3, posts=10)
    a += [
        vote(3, "09:30", "包子", "bob_2", "bob_2昨天跟票"),
        vote(3, "10:00", "饺子", "Alice", "我还没看到公示"),  # killed in the night: entered at 12:00
        vote(3, "10:30", "烧卖", "Alice", "Alice可疑"),
        vote(3, "11:00", "Alice", "bob_2", "同意包子"),
        vote(3, "11:30", "bob_2", "Alice", "反踩"),
        vote(3, "13:00", "小笼包", "Alice", "跟烧卖"),
        director_event(at(3, "12:00"), EventSpec("night", day=3, players=("饺子",))),
        director_event(at(3, "12:00"), EventSpec("sheriff", player="包子")),
    ]
    return GamePlan(PLAYERS, DAYS, dict(THREADS), sorted(a, key=lambda x: x.when), END,
                    expected_out={1: "饺子", 2: "烧卖", 3: "bob_2"}, ruleset="s10")


def dual_plan() -> GamePlan:
    """双身份 over three days: lost identities, the scapegoat, 冤死 and the badge.

    * Day 1 elects 饺子 sheriff; 烧卖's first identity is 替罪羊.
    * Night 1: 汤圆 loses an identity (身份死亡) and plays on.
    * Day 2: 包子 and 月饼 tie; the scapegoat 烧卖 dies instead (身份死亡) and names who may
      vote on day 3 (【冤死】): 饺子, 包子, 汤圆, Alice, 月饼.
    * Night 2: 汤圆 loses the second identity (出局); 饺子, the sheriff, loses his first —
      【殉职】: Alice takes the badge (not 饺子's own second identity).
    * Day 3: every living player asks to accelerate (所有角色均同意); the director confirms.
      Only the named vote: bob_2's vote is void. 月饼 loses an identity.
    * Cards follow the points rules (累计扣满12分者将予以罚下, no colours, no lurking rule):
      烧卖 posts once on day 1 and three players do not vote — nothing is proposed for
      either; the director deducts 3 points from 小笼包 on day 2; 汤圆, out, posts on day 3
      (诈尸, the one thing proposed, as a deduction).
    """
    from forumbot.game.gamelog import EventSpec

    a: list[Action] = []
    a += chatter(1, PLAYERS, quiet=("烧卖",))
    a += [
        vote(1, "10:00", "饺子", "包子", "先投一个"),
        vote(1, "10:20", "包子", "饺子", "饺子适合当警长"),
        vote(1, "11:00", "汤圆", "饺子", "同上"),
        vote(1, "12:10", "Alice", "饺子", "逻辑清楚"),
        vote(1, "13:30", "bob_2", "月饼", "月饼也不错"),
        director_event(at(1, "23:00"), EventSpec("night", day=2, players=("汤圆",))),
    ]
    a += chatter(2, PLAYERS, posts=10)
    a += [
        vote(2, "09:40", "汤圆", "包子", "我只丢了一层身份"),
        vote(2, "10:00", "包子", "汤圆", "汤圆还在，投他"),
        vote(2, "10:30", "Alice", "月饼", "月饼可疑"),
        vote(2, "11:00", "bob_2", "包子", "跟汤圆"),
        vote(2, "11:30", "月饼", "汤圆", "跟包子"),  # 汤圆 2
        vote(2, "12:00", "饺子", "月饼", "警长带队"),  # ×2
        change(2, "14:00", "Alice", "包子", "改投包子", quote=None),  # void: no quote
        vote(2, "15:00", "小笼包", "弃权", "看不清"),
        vote(2, "15:30", "烧卖", "包子", "跟票"),  # 包子 3 (汤圆, bob_2, 烧卖), 月饼 3 (Alice, 饺子 ×2)
        director_card(at(2, "16:00"), "小笼包", "points", "在讨论帖贴出私聊截图", points=3),
        director_event(at(2, "22:00"), EventSpec("voters", day=3,
                                                 players=("饺子", "包子", "汤圆", "Alice", "月饼"))),
        director_event(at(2, "23:00"), EventSpec("night", day=3, players=("汤圆", "饺子"))),
        director_event(at(2, "23:05"), EventSpec("sheriff", player="Alice")),
    ]
    living3 = ("饺子", "包子", "Alice", "bob_2", "月饼", "小笼包", "烧卖")
    a += chatter(3, living3, posts=10)
    a.append(Action(at(3, "10:05"), "post", "talk3", "汤圆", "我虽然出局了，还是想说一句：月饼是狼"))
    a += [Action(at(3, f"1{i}:0{i}"), "post", "progress", who, "申请加速，今天大家都投完了")
          for i, who in enumerate(living3)]
    a += [
        vote(3, "09:30", "包子", "月饼", "月饼昨天乱投"),
        vote(3, "10:00", "Alice", "月饼", "警长带队"),
        vote(3, "10:30", "bob_2", "包子", "我也想投"),  # not named by the scapegoat: void
        vote(3, "11:00", "饺子", "bob_2", "bob_2划水"),
        vote(3, "11:30", "月饼", "饺子", "反踩"),
        director_event(at(3, "18:00"), EventSpec("accelerated", day=3)),
    ]
    return GamePlan(PLAYERS, DAYS, dict(THREADS), sorted(a, key=lambda x: x.when), END,
                    expected_out={1: "饺子", 2: "烧卖", 3: "月饼"}, ruleset="dual", game={"scapegoat": "烧卖"})
