"""Games with identities for the night's tests: a 14人简易 table, a 双身份 table, days at the
seeds' hours (白天 09:30 ~ 次日21:30, 夜晚 21:30 ~ 次日09:30), actions by minutes after a
night's deadline."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from engine.events import EventKind, GameEvent, OutWhy
from engine.night import Action, Chronicle, NightSettings, mode_for
from engine.state import DayWindow, GameState

TZ = timezone(timedelta(hours=8))

# 14人简易: 4 wolves (饺子 包子 汤圆 月饼), 预言家 小笼包, 女巫 烧卖, 长老 馄饨, 7 村民.
SIMPLE = ("饺子", "包子", "汤圆", "月饼", "小笼包", "烧卖", "馄饨", "粽子", "春卷", "油条", "豆浆", "麻花", "年糕", "元宵")
SIMPLE_TABLE: dict[str, object] = {
    "饺子": "狼人", "包子": "狼人", "汤圆": "狼人", "月饼": "狼人",
    "小笼包": "预言家", "烧卖": "女巫", "馄饨": "长老",
    **{p: "村民" for p in SIMPLE[7:]},
}
WOLVES14 = ("饺子", "包子", "汤圆", "月饼")
SEER14, WITCH14, ELDER14 = "小笼包", "烧卖", "馄饨"
VILLAGERS14 = SIMPLE[7:]

# 双身份: 7 players, first identity first. Wolf faction: 甲 乙 庚 (乙 a seer first, a wolf
# second); village: 丙 女巫, 丁 守卫, 戊 长老 (猎人 second), 己 村民 ×2.
DUAL = ("甲", "乙", "丙", "丁", "戊", "己", "庚")
DUAL_TABLE: dict[str, object] = {
    "甲": ["狼人", "村民"],
    "乙": ["先知", "狼人"],
    "丙": ["女巫", "村民"],
    "丁": ["守卫", "村民"],
    "戊": ["长老", "猎人"],
    "己": ["村民", "村民"],
    "庚": ["狼人", "替罪羊"],
}
# The same identities with the hunter first (戊: 猎人 / 长老).
DUAL_HUNTER = {**DUAL_TABLE, "戊": ["猎人", "长老"]}


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 12, day, hh, mm, tzinfo=TZ)


def days(count: int = 4) -> tuple[DayWindow, ...]:
    """Day k: 12-(2k-1) 09:30 → 12-(2k) 21:30."""
    return tuple(DayWindow(k, at(2 * k - 1, 9, 30), at(2 * k, 21, 30)) for k in range(1, count + 1))


def deadline(day: int) -> datetime:
    return at(2 * day, 21, 30)


def day_start(day: int) -> datetime:
    return at(2 * day - 1, 9, 30)


def m(night: int, minutes: float) -> datetime:
    """``minutes`` after night ``night`` began (day ``night``'s deadline)."""
    return deadline(night) + timedelta(minutes=minutes)


def act(night: int, actor: str, skill: str, target=None, minutes: float = 1, seq: int = 0) -> Action:
    return Action.of(night, actor, skill, target, m(night, minutes), seq=seq)


def sheet(ruleset: str, table: dict | None = None, players: tuple[str, ...] | None = None):
    mode = mode_for(ruleset)
    if ruleset == "simple14":
        return mode, mode.read_sheet(table or SIMPLE_TABLE, players or SIMPLE)
    return mode, mode.read_sheet(table or DUAL_TABLE, players or DUAL)


def out(player: str, when: datetime, why: OutWhy = OutWhy.NIGHT, cause: str = "", lost: bool = False) -> GameEvent:
    kind = EventKind.IDENTITY_LOST if lost else EventKind.OUT
    return GameEvent(kind, when, player, why, cause=cause)


def chronicle(ruleset: str, actions=(), events=(), table: dict | None = None, count: int = 4,
              settings: NightSettings = NightSettings()) -> Chronicle:
    mode, sh = sheet(ruleset, table)
    state = GameState(players=sh.players, identities=mode.layers, days=days(count), events=tuple(events))
    return Chronicle(mode, sh, state, actions, settings)


def resolve_night(ruleset: str, actions=(), events=(), night: int | None = None, table: dict | None = None,
                  now: datetime | None = None, settings: NightSettings = NightSettings()):
    """Night ``night`` (default: the last night any action is for) from a fresh chronicle."""
    actions = list(actions)
    number = night or max((a.night for a in actions), default=1)
    return chronicle(ruleset, actions, events, table, settings=settings).resolve(number, now)


def summary(result) -> dict:
    """What a table row compares: the proposal in plain values."""
    return {
        "deaths": [(d.player, d.effect, result.mode.name(d.identity), d.cause) for d in result.deaths],
        "marks": list(result.marks),
        "skills_lost": [(s.player, result.mode.name(s.identity)) for s in result.skills_lost],
        "announcements": list(result.announcements),
        "win": (result.win.faction.value, result.win.rule) if result.win else None,
        "reasons": [(r.action.actor, result.mode.skill_name(r.action.skill), r.reason.value if r.reason else "counted")
                    for r in result.rulings],
        "feedback": [(f.to, result.mode.skill_name(f.skill), f.about, f.result) for f in result.feedback],
        "final": result.final,
    }


# --- S10 -----------------------------------------------------------------------------------
# 20 players, version A6D (20	3	8	01	001	000	1	✓	✓	0	✓	✓	A6D): every identity of the
# table. Wolves 饺子 包子 汤圆; 白狼 月饼; 吹笛 粽子; 先知 小笼包 (预言01); 女巫 烧卖 (通灵0 解药0
# 毒药1); 守卫 春卷 (守护00 隔音0); 长老 馄饨 (道骨1); 猎人 油条; 白痴 豆浆; 爱神 麻花 (金箭0);
# 村民 年糕 元宵 锅贴 煎饼 麻团 凉皮 米线 豆花.
S10_PLAYERS = ("饺子", "包子", "汤圆", "月饼", "粽子", "小笼包", "烧卖", "春卷", "馄饨", "油条", "豆浆", "麻花",
               "年糕", "元宵", "锅贴", "煎饼", "麻团", "凉皮", "米线", "豆花")
S10_TABLE: dict[str, object] = {
    "饺子": "狼人", "包子": "狼人", "汤圆": "狼人", "月饼": "白狼", "粽子": "吹笛", "小笼包": "先知",
    "烧卖": "女巫", "春卷": "守卫", "馄饨": "长老", "油条": "猎人", "豆浆": "白痴", "麻花": "爱神",
    **{p: "村民" for p in S10_PLAYERS[12:]},
}
S10_VILLAGERS = S10_PLAYERS[12:]


def night0(minutes: float) -> datetime:
    """``minutes`` after 21:30 the evening before day 1 (第零晚: the deal to day 1's start)."""
    return at(1, 9, 30) - timedelta(hours=12) + timedelta(minutes=minutes)


def act0(actor: str, skill: str, target=None, minutes: float = 1, seq: int = 0) -> Action:
    return Action.of(0, actor, skill, target, night0(minutes), seq=seq)


def s10_sheet(version: str = "A6D", table: dict | None = None, players: tuple[str, ...] | None = None,
              options: dict[str, str] | None = None):
    """The mode of ``version`` and its sheet; ``options`` replaces some digits (a director's
    variant: 守护01, 通灵1, 金箭1 are in the seed's skills but in none of its rows)."""
    from dataclasses import replace as _replace

    mode = mode_for("s10", version)
    sh = mode.read_sheet(table or S10_TABLE, players or S10_PLAYERS)
    if options:
        sh = _replace(sh, options=tuple((k, options.get(k, v)) for k, v in sh.options))
    return mode, sh


def s10_chronicle(actions=(), events=(), version: str = "A6D", table: dict | None = None,
                  players: tuple[str, ...] | None = None, options: dict[str, str] | None = None,
                  count: int = 4, settings: NightSettings = NightSettings()) -> Chronicle:
    mode, sh = s10_sheet(version, table, players, options)
    state = GameState(players=sh.players, identities=1, days=days(count), events=tuple(events))
    return Chronicle(mode, sh, state, actions, settings)


def s10_night(actions=(), events=(), night: int | None = None, now: datetime | None = None, **kw):
    actions = list(actions)
    number = night if night is not None else max((a.night for a in actions), default=1)
    return s10_chronicle(actions, events, **kw).resolve(number, now)


# --- S09 -----------------------------------------------------------------------------------
# 21 players: wolves 饺子 包子 汤圆; 先知 小笼包; 女巫 烧卖; 猎人 油条; 爱神 麻花; 小女孩 粽子;
# 盗贼 春卷 (底牌 狼人、村民); 村民 ×12.
S09_PLAYERS = ("饺子", "包子", "汤圆", "小笼包", "烧卖", "油条", "麻花", "粽子", "春卷", "馄饨", "豆浆", "年糕",
               "元宵", "锅贴", "煎饼", "麻团", "凉皮", "米线", "豆花", "春饼", "肉夹馍")
S09_TABLE: dict[str, object] = {
    "饺子": "狼人", "包子": "狼人", "汤圆": "狼人", "小笼包": "先知", "烧卖": "女巫", "油条": "猎人",
    "麻花": "爱神", "粽子": "小女孩", "春卷": "盗贼", **{p: "村民" for p in S09_PLAYERS[9:]},
    "盗贼底牌": ["狼人", "村民"],
}


def s09_chronicle(actions=(), events=(), table: dict | None = None, count: int = 4) -> Chronicle:
    mode = mode_for("s09")
    sh = mode.read_sheet(table or S09_TABLE, S09_PLAYERS)
    state = GameState(players=sh.players, identities=1, days=days(count), events=tuple(events))
    return Chronicle(mode, sh, state, actions)


def s09_night(actions=(), events=(), night: int | None = None, now: datetime | None = None, **kw):
    actions = list(actions)
    number = night if night is not None else max((a.night for a in actions), default=1)
    return s09_chronicle(actions, events, **kw).resolve(number, now)
