"""The game config (TOML) → engine objects. File reading lives here, not in ``engine``.

Every problem becomes a ``ConfigError`` whose message names the file and the key (as
written in the TOML) and says in Chinese what is wrong, e.g.
``config.toml: [game].ruleset: 未知的规则集 's11'（可选：s09、s10、simple14、dual）``.
Unknown keys inside ``[forum]``, ``[game]``, ``[[days]]`` and ``[[events]]`` are errors
(a typo must not pass silently), and so is an unknown top-level table: the tables other
parts of forumbot read (``[bot]``, ``[agent]``, ``[policies]``…) are registered in
``TOP_LEVEL_TABLES`` (``register_table``) and left to them in ``raw``.

``[[events]]`` (SPEC §8/§9) are what happened, in game time: the offline tally honours
them exactly as the agent honours the events in its store.

``[identities]`` and ``[[actions]]`` (SPEC §10) are game secrets: the sheet comes from a
file private to the user (0600) or, for tests, an inline ``[identities.table]``;
``[[actions]]`` are night actions the director entered for the offline resolve. They are
on ``GameConfig`` as typed values (``identities``, ``actions``, ``night_mode``) kept out of
its repr and out of ``raw``, so nothing that prints a config prints them. A problem in the
sheet is a ``SecretConfigError``: its message names the key and how many problems there are,
never an identity (a config error may be logged); ``detail`` has the full list for the
director's own screen.

``[calendar]`` (SPEC §11) gives every day's start and deadline by the rule set
(``engine.calendar``); a ``[[days]]`` block then overrides one day and carries only
``number`` and what it sets (threads, times). The config's days are the calendar's days
1 … ``[calendar].days``; a day whose threads the bot will create has no tids (``None``).
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.calendar import (
    Calendar, CalendarError, Change, DayTimes, Lengthen, Schedule, calendar_for, day_rule, fixed_schedule,
)
from engine.calendar import schedule as lay_out
from engine.events import EventKind, GameEvent, OutWhy
from engine.names import Match, NameTable
from engine.night import (
    Action, ActionError, Mode, ModeError, NightSettings, PlanError, Sheet, SheetError, mode_for,
)
from engine.night.phases import phase_key
from engine.night.actions import CARD_TARGET, targets_wanted
from engine.night.sheet import SALT_DIGITS
from engine.rules import RuleSet, RuleSetError, preset
from engine.state import DayWindow, GameState, StateError
from forumbot.wording import os_error_zh
from parsers.text import normalise_name

DEFAULT_TIMEZONE = "Asia/Shanghai"

# Known keys per table. Other parts of forumbot that add keys to these tables extend the
# sets here, so the typo check keeps working.
FORUM_KEYS = {"base_url", "timezone", "discuz", "fid"}
DISCUZ_GENERATIONS = ("auto", "x3", "7.2")  # forumbot.discuz.Generation, or detect
GAME_KEYS = {
    "ruleset", "director", "bot", "players", "sheriff", "out", "idiot_revealed",
    "change_window_minutes", "aliases", "substitutes", "scapegoat", "rules", "version",
}
DAY_KEYS = {
    "number", "vote_thread", "discussion_thread", "progress_thread", "start", "deadline",
    "accelerated", "deadline_pid",
}
EVENT_KEYS = {"kind", "at", "player", "why", "day", "players", "note", "cause"}
IDENTITY_KEYS = {"file", "table", "tell_by_pm"}
ACTION_KEYS = {"night", "actor", "skill", "target", "at"}
NIGHT_KEYS = {"lengths", "extensions"}
EXTENSION_KEYS = {"night", "phase", "minutes"}
# The key of an identity file that holds the sealed deal's salt (``forumbot deal`` writes
# it; a file written by hand may leave it out and the bot picks one when it seals).
SALT_KEY = "盐"
IDENTITY_FILE_MODE = 0o600
CALENDAR_KEYS = {
    "start", "open_time", "close_time", "close_after_days", "extend_on", "extend_first_day", "holidays",
    "workdays", "days", "remind_before_freeze", "remind_before_deadline", "remind_by_pm", "discussion_threads",
    "lock_threads",
}

# Top-level tables a config may have; anything else is a typo and an error naming it.
# Parts of forumbot that read a table of their own register it here (``register_table``).
# [notify] is read by config.settings, but a config with it must load the same whether or
# not that module was imported first (an offline tally imports only this one).
TOP_LEVEL_TABLES: set[str] = {"forum", "game", "days", "events", "calendar", "bot", "agent", "policies", "notify",
                              "identities", "actions", "night"}



GAME_FILE = "game.toml"  # the config inside a game's own folder (``forumbot serve``)


def name_for(config: Path) -> str:
    """A game config's name as the service's scan gives it: its folder's for ``game.toml``,
    else the file's stem (NFC). ``forumbot run`` names its game the same way (its PMs say
    it), so the same game has the same name under both."""
    name = config.parent.name if config.name == GAME_FILE and config.parent.name else config.stem
    return unicodedata.normalize("NFC", name)



def game_key(config: GameConfig) -> str | None:
    """What names a game on its forum: the threads of its first day (the day with the
    lowest number), sorted. None for a config with no threads. Later days may be added to
    a running game without changing it; changing the first day's threads makes it another
    game (its earlier posts are then another game's)."""
    # The config's own threads: the ones the bot opened later do not rename the game.
    days = sorted((config.origin or config).days, key=lambda d: d.number)
    for day in days:
        tids = sorted(day.threads())
        if tids:
            return "threads:" + ",".join(str(t) for t in tids)
    return None

def register_table(name: str) -> None:
    """Let a config have a top-level ``[name]`` table (read by another part of forumbot)."""
    TOP_LEVEL_TABLES.add(name)


class ConfigError(ValueError):
    """A config problem, naming the file and the key."""


class SecretConfigError(ConfigError):
    """A problem in the identities (or the night actions): the message names the key and
    what kind of problem, never who holds what — config errors reach logs and alarms.
    ``detail`` lists every problem in full, for the director's own screen only
    (``forumbot deal``, ``forumbot resolve``)."""

    def __init__(self, message: str, detail: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.detail = detail


@dataclass(frozen=True)
class ForumSettings:
    base_url: str | None
    timezone: str
    tz: tzinfo
    discuz: str = "auto"  # which Discuz generation: "auto" (detected), "x3" or "7.2"
    fid: int | None = None  # the game's board: where the bot opens each day's threads (SPEC §11)


@dataclass(frozen=True)
class DayDuties:
    """What the bot does on the calendar's moments (``[calendar]``; SPEC §11)."""

    discussion_threads: bool = True  # open a discussion thread per day beside the voting thread
    remind_by_pm: bool = False  # the reminders also PM each living player without a valid vote
    lock_threads: bool = True  # close the voting thread at the deadline where the account may


@dataclass(frozen=True)
class GameConfig:
    path: Path
    forum: ForumSettings
    rules: RuleSet
    state: GameState  # the initial state, days included
    raw: dict[str, Any] = field(default_factory=dict, compare=False)  # the whole TOML document
    calendar: Calendar | None = None  # [calendar] with the [[days]] blocks' own times
    duties: DayDuties = DayDuties()
    # The game as it stands (``forumbot.game.days.with_store_days``): the config as read
    # (its own days and threads), and the director's changes to the schedule.
    origin: GameConfig | None = field(default=None, compare=False, repr=False)
    changes: tuple[Change, ...] = ()
    # SPEC §10 — secret: never in a repr, a log line or a public page.
    identities: Sheet | None = field(default=None, repr=False, compare=False)  # None: no identities
    salt: str | None = field(default=None, repr=False, compare=False)  # the identity file's 盐, if any
    identities_file: Path | None = None  # [identities].file, resolved against the config's folder
    tell_by_pm: bool = False  # [identities].tell_by_pm: each player gets a PM with their identity
    version: str | None = None  # [game].version (S10's table row, e.g. 46D)
    actions: tuple[Action, ...] = field(default=(), repr=False, compare=False)  # [[actions]], game order
    night_mode: Mode | None = field(default=None, repr=False, compare=False)  # the rule set's nights
    night_settings: NightSettings = NightSettings()  # [night].lengths: each phase's length

    @property
    def has_identities(self) -> bool:
        """The game has a sheet: nights are resolved from it. Without one the game is
        counted exactly as before (the director enters the nights' outs)."""
        return self.identities is not None

    @property
    def has_secrets(self) -> bool:
        """The config names identities (a file, dealt or not, or a table) or night actions."""
        return self.identities is not None or self.identities_file is not None or bool(self.actions)

    @property
    def days(self) -> tuple[DayWindow, ...]:
        return self.state.days

    def schedule(self, days: int | None = None) -> Schedule:
        """Days 1 … ``days`` (default: the configured days) with their change freezes and
        reminders: by the calendar where there is one (beyond the configured days too),
        else the ``[[days]]`` as written."""
        if self.calendar is not None:
            return lay_out(self.calendar, days or len(self.days), self.changes)
        window = timedelta(minutes=self.rules.change_window_minutes)
        return fixed_schedule(((d.number, d.start, d.deadline) for d in self.days if days is None or d.number <= days),
                              change_window=window)

    def day(self, number: int) -> DayWindow:
        try:
            return self.state.day(number)
        except StateError as exc:
            raise ConfigError(f"{self.path}: [[days]]: {exc}") from None


def load_config(path: str | Path, *, undealt: bool = False) -> GameConfig:
    """``undealt``: an ``[identities].file`` that does not exist yet is not an error
    (``forumbot deal`` is about to write it); the config then has no identities."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: 无法读取：{os_error_zh(exc)}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: 不是 UTF-8 编码的文本（请用 UTF-8 保存）") from None
    return parse_config(text, path, undealt=undealt)


def parse_config(text: str, path: str | Path = "config.toml", *, undealt: bool = False) -> GameConfig:
    path = Path(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {toml_error_zh(exc)}") from None
    return _Reader(path, undealt=undealt).read(doc)


class _Reader:
    def __init__(self, path: Path, *, undealt: bool = False) -> None:
        self.path = path
        self.undealt = undealt

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {message}")

    # --- tables ------------------------------------------------------------------------

    def read(self, doc: dict[str, Any]) -> GameConfig:
        unknown = sorted(set(doc) - TOP_LEVEL_TABLES)
        if unknown:
            raise self.fail(f"[{unknown[0]}]", f"未知的表（可用的表：{'、'.join(sorted(TOP_LEVEL_TABLES))}）")
        forum = self.forum(self.table(doc, "forum", required=False))
        game = self.table(doc, "game", required=True)
        self.known(game, GAME_KEYS, "[game]")
        rules = self.rules(game)
        players = self.players(game)
        state = GameState(
            players=players,
            director=self.text(game, "director", "[game].director", required=False),
            bot=self.text(game, "bot", "[game].bot", required=False),
            identities=rules.identities,
        )
        state = self.people(game, state, forum.tz)
        if "calendar" in doc:  # the days follow from it; [[days]] are optional (SPEC §11)
            calendar, state = self.calendar(doc, rules, state, forum.tz)
            state = self.events(doc, state, forum.tz)
            return self.secrets(doc, game, GameConfig(self.path, forum, rules, state, raw=public_raw(doc),
                                                      calendar=calendar, duties=self.duties(doc["calendar"])))
        days_raw = doc.get("days", [])
        if not isinstance(days_raw, list) or not all(isinstance(d, dict) for d in days_raw):
            raise self.fail("[[days]]", "应为表数组（每一日一个 [[days]]）")
        if not days_raw:
            raise self.fail("[[days]]", "没有配置任何一日：每一日写一个 [[days]]（number、vote_thread、start、"
                                        "deadline），例子见项目的 config.toml")
        numbers: set[int] = set()
        where: dict[int, str] = {}
        for index, raw in enumerate(days_raw, start=1):
            window = self.day(raw, index, forum.tz)
            if window.number in numbers:
                raise self.fail(f"[[days]] #{index}.number", f"第{window.number}日配置了两次")
            numbers.add(window.number)
            where[window.number] = f"[[days]] #{index} (day {window.number})"
            state = state.add_day(window)
        self.no_overlap(state.days, where)
        state = self.events(doc, state, forum.tz)
        return self.secrets(doc, game, GameConfig(self.path, forum, rules, state, raw=public_raw(doc)))

    def table(self, doc: dict[str, Any], name: str, *, required: bool) -> dict[str, Any]:
        value = doc.get(name)
        if value is None:
            if required:
                raise self.fail(f"[{name}]", "缺少这个表")
            return {}
        if not isinstance(value, dict):
            raise self.fail(f"[{name}]", "应为一个表（[表名] 下面写键）")
        return value

    def known(self, table: dict[str, Any], keys: set[str], where: str) -> None:
        unknown = sorted(set(table) - keys)
        if unknown:
            raise self.fail(
                f"{where}.{unknown[0]}",
                f"未知的键（可用的键：{'、'.join(sorted(keys))}）",
            )

    def forum(self, table: dict[str, Any]) -> ForumSettings:
        self.known(table, FORUM_KEYS, "[forum]")
        base_url = self.text(table, "base_url", "[forum].base_url", required=False)
        if base_url is not None and (problem := base_url_problem(base_url)) is not None:
            shown = repr(base_url) if "@" not in base_url else "（不显示：其中含有密码）"
            raise self.fail("[forum].base_url", f"{problem}：{shown}（例：http://bbs.example.com/ "
                                                "或 http://example.com/bbs/）")
        name = self.text(table, "timezone", "[forum].timezone", required=False) or DEFAULT_TIMEZONE
        try:
            tz = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise self.fail("[forum].timezone", f"未知的时区 {name!r}（例：Asia/Shanghai）") from None
        discuz = table.get("discuz", "auto")
        if discuz == 7.2:  # written unquoted: TOML reads a number
            discuz = "7.2"
        if not isinstance(discuz, str) or discuz.strip().lower() not in DISCUZ_GENERATIONS:
            raise self.fail("[forum].discuz", f'应为 "auto"、"x3" 或 "7.2"，实际是 {discuz!r}')
        fid = self.integer(table, "fid", "[forum].fid", required=False, minimum=1)
        return ForumSettings(base_url, name, tz, discuz.strip().lower(), fid)

    def rules(self, game: dict[str, Any]) -> RuleSet:
        name = self.text(game, "ruleset", "[game].ruleset", required=True)
        try:
            rules = preset(name)
        except RuleSetError as exc:
            raise self.fail("[game].ruleset", str(exc)) from None
        overrides = self.table(game, "rules", required=False)
        if "change_window_minutes" in game:
            if "change_window_minutes" in overrides:
                raise self.fail("[game].change_window_minutes", "[game.rules] 里也设置了它：只能设置一处")
            overrides = {**overrides, "change_window_minutes": game["change_window_minutes"]}
        for key, value in overrides.items():
            where = "[game].change_window_minutes" if key == "change_window_minutes" and key in game else f"[game.rules].{key}"
            try:
                rules = rules.with_overrides(**{key: value})
            except RuleSetError as exc:
                # The rule set names the field; the key is named once, as written.
                raise self.fail(where, str(exc).removeprefix(f"{key}: ")) from None
        return rules

    def players(self, game: dict[str, Any]) -> tuple[str, ...]:
        players = self.names(game, "players", "[game].players", required=True)
        if not players:
            raise self.fail("[game].players", "没有列出任何玩家")
        seen: dict[str, str] = {}
        for name in players:
            key = normalise_name(name)
            if name in seen.values():
                raise self.fail("[game].players", f"{name!r} 列出了两次")
            if key in seen:
                # Votes match names after NFKC and case folding: Alice, ALICE and Ａｌｉｃｅ
                # would be one name to the tally and two players to the game.
                raise self.fail("[game].players", f"{seen[key]!r} 和 {name!r} 不分大小写、全角半角后是同一个"
                                                  "名字（请改掉其中一个）")
            if not key:
                raise self.fail("[game].players", f"{name!r} 去掉空格和符号后没有剩下任何文字")
            seen[key] = name
        return tuple(players)

    def people(self, game: dict[str, Any], state: GameState, tz: tzinfo) -> GameState:
        players = state.players

        def need(name: str, key: str) -> str:
            if name not in players:
                raise self.fail(key, f"{name!r} 不在 [game].players 里")
            return name

        sheriff = self.text(game, "sheriff", "[game].sheriff", required=False)
        if sheriff:
            state = state.set_sheriff(need(sheriff, "[game].sheriff"))
        goat = self.text(game, "scapegoat", "[game].scapegoat", required=False)
        if goat:
            state = state.set_scapegoat(need(goat, "[game].scapegoat"))
        outs: set[str] = set()
        for index, entry in enumerate(self.list(game, "out", "[game].out")):
            key = f"[game].out[{index}]"
            if isinstance(entry, str):
                player, at, why = need(entry, key), None, "开局前已出局"
            elif isinstance(entry, dict):
                self.known(entry, {"player", "at", "why"}, key)
                player = need(self.text(entry, "player", f"{key}.player", required=True), f"{key}.player")
                at = self.when(entry, "at", f"{key}.at", tz, required=False)
                why = self.text(entry, "why", f"{key}.why", required=False) or ""
            else:
                raise self.fail(key, "应为玩家名，或 {player = …, at = …, why = …}")
            if player in outs:
                raise self.fail("[game].out", "有玩家列出了两次")
            outs.add(player)
            try:
                state = state.put_out(player, at, why)
            except StateError as exc:
                raise self.fail(key, str(exc)) from None
        for name in self.names(game, "idiot_revealed", "[game].idiot_revealed", required=False):
            state = state.reveal_idiot(need(name, "[game].idiot_revealed"))
        for alias, player in self.table(game, "aliases", required=False).items():
            if not isinstance(player, str):
                raise self.fail(f"[game.aliases].{alias}", "应为玩家名")
            try:
                state = state.alias(alias, need(player, f"[game.aliases].{alias}"))
            except StateError as exc:
                raise self.fail(f"[game.aliases].{alias}", str(exc)) from None
        for account, seat in self.table(game, "substitutes", required=False).items():
            key = f"[game.substitutes].{account}"
            if not isinstance(seat, str):
                raise self.fail(key, "应为这个账号接替的座位（玩家名）")
            try:
                state = state.substitute(need(seat, key), account)
            except StateError as exc:
                raise self.fail(key, str(exc)) from None
        return state

    def events(self, doc: dict[str, Any], state: GameState, tz: tzinfo) -> GameState:
        """``[[events]]``: what happened, in game time (SPEC §9). Each must have an effect
        at its moment (a second out for one player is an error naming the entry)."""
        raw = doc.get("events", [])
        if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
            raise self.fail("[[events]]", "应为表数组（每个事件一个 [[events]]）")
        kinds = "、".join(k.value for k in EventKind)
        for index, entry in enumerate(raw, start=1):
            where = f"[[events]] #{index}"
            self.known(entry, EVENT_KEYS, where)
            name = self.text(entry, "kind", f"{where}.kind", required=True)
            try:
                kind = EventKind(name)
            except ValueError:
                raise self.fail(f"{where}.kind", f"未知的事件类型 {name!r}（可用：{kinds}）") from None
            why = None
            if kind in (EventKind.OUT, EventKind.IDENTITY_LOST):
                text = self.text(entry, "why", f"{where}.why", required=False) or "other"
                try:
                    why = OutWhy(text)
                except ValueError:
                    raise self.fail(f"{where}.why", f"{text!r} 不是可用的值（可用："
                                                     f"{'、'.join(w.value for w in OutWhy)}）") from None
            elif "why" in entry:
                raise self.fail(f"{where}.why", "只有 out 和 identity_lost 事件有 why")
            day = self.integer(entry, "day", f"{where}.day", required=False, minimum=1)
            if day is not None:
                try:
                    state.day(day)
                except StateError:
                    raise self.fail(f"{where}.day", f"[[days]] 里没有配置第{day}日") from None
            needs_player = kind not in (EventKind.ACCELERATED, EventKind.VOTERS, EventKind.SHERIFF,
                                        EventKind.SCAPEGOAT)
            player = self.text(entry, "player", f"{where}.player", required=needs_player)
            if player is not None and player not in state.players:
                raise self.fail(f"{where}.player", f"{player!r} 不在 [game].players 里")
            players = tuple(self.names(entry, "players", f"{where}.players", required=kind is EventKind.VOTERS))
            for name in players:
                if name not in state.players:
                    raise self.fail(f"{where}.players", f"{name!r} 不在 [game].players 里")
            if kind in (EventKind.ACCELERATED, EventKind.VOTERS) and day is None:
                raise self.fail(f"{where}.day", f"缺少：{kind.value} 事件是关于第几日的")
            at = self.when(entry, "at", f"{where}.at", tz, required=False)
            if at is None:
                at = default_event_time(state, kind, why, day)
                if at is None:
                    raise self.fail(f"{where}.at", "缺少：何时生效（夜晚出局、投票出局、若愚和某日结束时"
                                                   "选出的警长也可以只给 day）")
            note = self.text(entry, "note", f"{where}.note", required=False) or ""
            cause = self.text(entry, "cause", f"{where}.cause", required=False) or ""
            if cause and kind not in (EventKind.OUT, EventKind.IDENTITY_LOST):
                raise self.fail(f"{where}.cause", "只有 out 和 identity_lost 事件有 cause（杀人、毒药、最后一枪……）")
            event = GameEvent(kind, at, player, why, day, players, note, seq=(0, index), cause=cause.strip())
            try:
                state = state.add(event)
            except StateError as exc:
                raise self.fail(where, str(exc)) from None
        return state

    # --- [identities], [game].version, [[actions]] (SPEC §10) -----------------------------

    def secrets(self, doc: dict[str, Any], game: dict[str, Any], config: GameConfig) -> GameConfig:
        version = self.text(game, "version", "[game].version", required=False)
        version = version.strip() if version else None
        try:
            mode = mode_for(config.rules.name, version)
        except ModeError as exc:
            raise self.fail("[game].version", str(exc)) from None
        if version:
            wanted, have = mode.players_for(), len(config.state.players)
            if wanted != have:
                raise self.fail("[game].version", f"版本 {version} 是{wanted}人的配置，[game].players 有 {have} 名玩家")
        table = self.table(doc, "identities", required=False)
        self.known(table, IDENTITY_KEYS, "[identities]")
        tell = table.get("tell_by_pm", False)
        if not isinstance(tell, bool):
            raise self.fail("[identities].tell_by_pm", f"应为 true 或 false，实际是 {tell!r}")
        sheet, salt, file = self.sheet(table, mode, config.state)
        if tell and sheet is None and file is None:
            raise self.fail("[identities].tell_by_pm", "没有身份可告知：先写 [identities].file（或 [identities.table]）")
        actions = self.actions(doc, config.state, mode)
        if actions and sheet is None and not (file is not None and self.undealt):
            raise self.fail("[[actions]]", "没有身份表，夜晚行动无法结算：先写 [identities].file（或 [identities.table]）")
        return replace(config, identities=sheet, salt=salt, identities_file=file, tell_by_pm=tell, version=version,
                       actions=actions, night_mode=mode, night_settings=self.night(doc, mode))

    def night(self, doc: dict[str, Any], mode: Mode) -> NightSettings:
        """``[night]``: ``lengths`` (phase → minutes, or "08:00" for a phase that ends at a
        clock time the next morning). The hunter's 15 minutes are the seeds' and not a
        setting (the engine's modes hold them)."""
        table = self.table(doc, "night", required=False)
        self.known(table, NIGHT_KEYS, "[night]")
        lengths = table.get("lengths", {})
        if not isinstance(lengths, dict):
            raise self.fail("[night].lengths", "应为一个表（阶段 = 分钟数，例：女巫 = 30）")
        read: list[tuple[str, int | time]] = []
        phases = "、".join(s.name for s in mode.phase_specs)
        for name, value in lengths.items():
            key = f"[night.lengths].{name}"
            try:
                phase_key(name, mode.phase_specs)
            except PlanError:
                raise self.fail(key, f"{mode.title}没有这个夜晚阶段（阶段：{phases}）") from None
            if isinstance(value, str) and (m := _CLOCK.fullmatch(value.strip())) and int(m["h"]) < 24 and int(m["m"]) < 60:
                read.append((name, time(int(m["h"]), int(m["m"]))))
            elif isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 24 * 60:
                read.append((name, value))
            else:
                raise self.fail(key, f"应为 1 到 1440 的分钟数，或次日的时刻如 \"08:00\"，实际是 {value!r}")
        return NightSettings(lengths=tuple(read), extensions=self.extensions(table, mode))

    def extensions(self, table: dict[str, Any], mode: Mode) -> tuple[tuple[int, str, int], ...]:
        """``[[night.extensions]]``: the director's extension of one phase of one night (the
        offline resolve's copy of what ``forumbot night --extend`` keeps in the store)."""
        raw = table.get("extensions", [])
        if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
            raise self.fail("[[night.extensions]]", "应为表数组（每次延长一个 [[night.extensions]]）")
        phases = "、".join(s.name for s in mode.phase_specs)
        made: list[tuple[int, str, int]] = []
        for index, entry in enumerate(raw, start=1):
            where = f"[[night.extensions]] #{index}"
            self.known(entry, EXTENSION_KEYS, where)
            night = self.integer(entry, "night", f"{where}.night", required=True, minimum=1)
            phase = self.text(entry, "phase", f"{where}.phase", required=True)
            minutes = self.integer(entry, "minutes", f"{where}.minutes", required=True, minimum=1)
            assert night is not None and phase is not None and minutes is not None
            try:
                phase_key(phase, mode.phase_specs)
            except PlanError:
                raise self.fail(f"{where}.phase", f"{mode.title}没有这个夜晚阶段（阶段：{phases}）") from None
            made.append((night, phase, minutes))
        return tuple(made)

    def sheet(self, table: dict[str, Any], mode: Mode, state: GameState) -> tuple[Sheet | None, str | None, Path | None]:
        if not table:
            return None, None, None
        has_file, has_table = "file" in table, "table" in table
        if has_file and has_table:
            raise self.fail("[identities]", "file 和 [identities.table] 只能写一个（身份表要么在单独的文件里，要么写在这里）")
        if not has_file and not has_table:
            raise self.fail("[identities]", "缺少 file（身份文件的路径；forumbot deal 可以生成它）")
        if has_table:
            key = "[identities.table]"
            entries = table["table"]
            if not isinstance(entries, dict):
                raise self.fail(key, "应为一个表（\"玩家\" = \"身份\"）")
            where = key
        else:
            key = "[identities].file"
            name = self.text(table, "file", key, required=True)
            assert name is not None
            file = Path(name).expanduser()
            if not file.is_absolute():
                file = self.path.parent / file
            entries = self.identity_file(file, key)
            if entries is None:
                return None, None, file
            where = f"{key}（{file}）"
        entries = dict(entries)
        salt = entries.pop(SALT_KEY, None)
        if salt is not None and (not isinstance(salt, str) or not re.fullmatch(f"[0-9a-f]{{{SALT_DIGITS}}}", salt)):
            raise SecretConfigError(f"{self.path}: {where}: {SALT_KEY} 应为 {SALT_DIGITS} 位十六进制数字（0-9a-f）")
        try:
            sheet = mode.read_sheet(entries, state.players)
        except SheetError as exc:
            raise SecretConfigError(
                f"{self.path}: {where}: 身份表有 {len(exc.problems)} 处问题（详情含身份，只在导演自己的屏幕上显示："
                f"运行 forumbot deal --config {self.path} --check 查看）", exc.problems) from None
        return sheet, salt, None if has_table else file

    def identity_file(self, file: Path, key: str) -> dict[str, Any] | None:
        """The identity file's table; None when it does not exist yet and that is allowed."""
        try:
            info = file.stat()
        except FileNotFoundError:
            if self.undealt:
                return None
            raise self.fail(key, f"身份文件 {file} 不存在（用 forumbot deal --config {self.path} 发牌生成它，"
                                 "或自己写好并 chmod 600）") from None
        except OSError as exc:
            raise self.fail(key, f"无法读取身份文件 {file}：{os_error_zh(exc)}") from None
        if not stat.S_ISREG(info.st_mode):
            raise self.fail(key, f"{file} 不是普通文件")
        if info.st_mode & 0o077:
            # The identities are the game's secret: a file others can read is refused,
            # not read (SPEC §10.1).
            raise self.fail(key, f"身份文件 {file} 的权限是 {stat.S_IMODE(info.st_mode):04o}，其他用户也能读写：身份是"
                                 f"保密的，请运行 chmod 600 {file}")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise self.fail(key, f"身份文件 {file} 不属于运行 forumbot 的用户")
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise self.fail(key, f"无法读取身份文件 {file}：{os_error_zh(exc)}") from None
        except UnicodeDecodeError:
            raise self.fail(key, f"身份文件 {file} 不是 UTF-8 编码的文本") from None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            # tomllib's message says where, never what was written there.
            raise SecretConfigError(f"{self.path}: {key}（{file}）: {toml_error_zh(exc)}") from None

    def actions(self, doc: dict[str, Any], state: GameState, mode: Mode) -> tuple[Action, ...]:
        """``[[actions]]``: night actions the director entered (SPEC §10.6). Names are
        matched as votes are (NFKC, accounts, aliases); a name that matches no one is an
        error naming the entry (a typo in the director's own entry, not a player's void)."""
        raw = doc.get("actions", [])
        if not isinstance(raw, list) or not all(isinstance(a, dict) for a in raw):
            raise self.fail("[[actions]]", "应为表数组（每个行动一个 [[actions]]）")
        names = NameTable(state)
        tz = self.tz_of(doc)
        made: list[Action] = []
        for index, entry in enumerate(raw, start=1):
            where = f"[[actions]] #{index}"
            self.known(entry, ACTION_KEYS, where)
            night = self.integer(entry, "night", f"{where}.night", required=True, minimum=0)
            assert night is not None
            if night < mode.first_night:
                raise self.fail(f"{where}.night", f"{mode.title}从第{mode.first_night}晚开始（没有第{night}晚）")
            configured = {d.number for d in state.days}
            if night > 0 and night not in configured:
                # Night N follows day N's deadline: without day N there is no night N.
                known = "、".join(str(n) for n in sorted(configured)) or "无"
                raise self.fail(f"{where}.night", f"第{night}晚在第{night}日截止之后，但没有配置第{night}日"
                                                  f"（已配置：{known}）")
            actor = self.player(names, self.text(entry, "actor", f"{where}.actor", required=True), f"{where}.actor")
            word = self.text(entry, "skill", f"{where}.skill", required=True)
            assert word is not None
            skill = mode.skill(word.strip())
            if skill is None:
                known = "、".join(dict.fromkeys(mode.skill_name(s) for s in mode.skill_names))
                raise self.fail(f"{where}.skill", f"{mode.title}没有技能 {word!r}（可用：{known}）")
            value = entry.get("target")
            written = [value] if isinstance(value, str) else value if isinstance(value, list) else None
            if value is None:
                written = []
            if written is None or not all(isinstance(t, str) and t.strip() for t in written):
                raise self.fail(f"{where}.target", "应为玩家名，或两个玩家名的列表（金箭）")
            wanted = targets_wanted(skill)
            if len(written) != wanted:
                said = "不带目标" if wanted == 0 else f"要 {wanted} 个目标"
                raise self.fail(f"{where}.target", f"{mode.skill_name(skill)}{said}，这里写了 {len(written)} 个")
            if skill in CARD_TARGET:
                targets = tuple(t.strip() for t in written)
            else:
                targets = tuple(self.player(names, t, f"{where}.target") for t in written)
            at = self.when(entry, "at", f"{where}.at", tz, required=True)
            try:
                made.append(Action.of(night, actor, skill, list(targets), at, seq=index, by_director=True))
            except ActionError as exc:
                raise self.fail(where, str(exc)) from None
        return tuple(sorted(made, key=Action.sort_key))

    def tz_of(self, doc: dict[str, Any]) -> tzinfo:
        forum = doc.get("forum") if isinstance(doc.get("forum"), dict) else {}
        return ZoneInfo(forum.get("timezone") or DEFAULT_TIMEZONE)  # checked by forum() already

    def player(self, names: NameTable, written: str | None, key: str) -> str:
        assert written is not None
        found = names.match(written)
        if found.outcome is Match.PLAYER and found.player is not None:
            return found.player
        if found.outcome is Match.AMBIGUOUS:
            raise self.fail(key, f"{written!r} 可能是 {'、'.join(found.candidates)}（请写全名或加别名）")
        raise self.fail(key, f"{written!r} 不是玩家")

    def no_overlap(self, days: tuple[DayWindow, ...], where: dict[int, str]) -> None:
        """Each day opens at or after the deadline of the day before it (by number): a post
        must belong to one day only, and a later day's window before an earlier one's is a
        mistyped date."""
        for before, after in zip(days, days[1:]):
            if after.start < before.deadline:
                raise self.fail(
                    f"{where[after.number]}.start",
                    f"第{after.number}日的开始 {after.start:%Y-%m-%d %H:%M} 早于第{before.number}日的截止 "
                    f"{before.deadline:%Y-%m-%d %H:%M}：两日的时间重叠（或日期写错了）。每一日都要在前一日截止之后开始")

    def day(self, raw: dict[str, Any], index: int, tz: tzinfo) -> DayWindow:
        where = f"[[days]] #{index}"
        self.known(raw, DAY_KEYS, where)
        number = self.integer(raw, "number", f"{where}.number", required=True, minimum=1)
        where = f"[[days]] #{index}（第{number}日）"
        start = self.when(raw, "start", f"{where}.start", tz, required=True)
        deadline = self.when(raw, "deadline", f"{where}.deadline", tz, required=True)
        assert start is not None and deadline is not None
        if deadline <= start:
            raise self.fail(f"{where}.deadline", "必须晚于 start")
        accelerated = raw.get("accelerated", False)
        if not isinstance(accelerated, bool):
            raise self.fail(f"{where}.accelerated", "应为 true 或 false")
        return DayWindow(
            number=number,
            start=start,
            deadline=deadline,
            vote_thread=self.integer(raw, "vote_thread", f"{where}.vote_thread", required=False, minimum=1),
            discussion_thread=self.integer(raw, "discussion_thread", f"{where}.discussion_thread", required=False, minimum=1),
            progress_thread=self.integer(raw, "progress_thread", f"{where}.progress_thread", required=False, minimum=1),
            accelerated=accelerated,
            deadline_pid=self.integer(raw, "deadline_pid", f"{where}.deadline_pid", required=False, minimum=1),
        )

    # --- [calendar] (SPEC §11) ------------------------------------------------------------

    def calendar(self, doc: dict[str, Any], rules: RuleSet, state: GameState,
                 tz: tzinfo) -> tuple[Calendar, GameState]:
        """The calendar and the days it gives: days 1 … ``[calendar].days`` (default: one per
        player, 双身份 one per identity), each ``[[days]]`` block overriding its day."""
        table = self.table(doc, "calendar", required=False)
        self.known(table, CALENDAR_KEYS, "[calendar]")
        days_raw = doc.get("days", [])
        if not isinstance(days_raw, list) or not all(isinstance(d, dict) for d in days_raw):
            raise self.fail("[[days]]", "应为表数组（每一日一个 [[days]]）")
        if "start" not in table:
            raise self.fail("[calendar].start", "缺少：第1日开始的日期或日期时间（例：2026-12-04 或 "
                                                "2026-12-04T09:00:00+08:00）")
        start = self.calendar_start(table["start"], tz)
        open_time, close_time = self.clock(table, "open_time"), self.clock(table, "close_time")
        close_after = self.calendar_count(table, "close_after_days", minimum=0, maximum=14)
        preset_rule = day_rule(rules.name)
        if close_after == 0 and (close_time or preset_rule.close_time) <= (open_time or preset_rule.open_time):
            raise self.fail("[calendar].close_time", "close_after_days = 0（当天截止）时，close_time 要晚于 open_time")
        extend_on = table.get("extend_on")
        if extend_on is not None and (not isinstance(extend_on, str) or extend_on not in {m.value for m in Lengthen}):
            raise self.fail("[calendar].extend_on", f"应为 \"weekends\"（周末和节假日延长一天）、\"holidays\"（只有节假日）"
                                                    f"或 \"never\"，实际是 {extend_on!r}")
        first = table.get("extend_first_day")
        if first is not None and not isinstance(first, bool):
            raise self.fail("[calendar].extend_first_day", f"应为 true 或 false，实际是 {first!r}")
        holidays, workdays = self.dates(table, "holidays"), self.dates(table, "workdays")
        if both := sorted(holidays & workdays):
            raise self.fail("[calendar].workdays", f"{both[0]:%Y-%m-%d} 也列在 holidays 里：一天不能既放假又上班")
        horizon = self.calendar_count(table, "days", minimum=1, maximum=366) or len(state.players) * rules.identities
        blocks: dict[int, tuple[str, dict[str, Any], datetime | None, datetime | None]] = {}
        for index, raw in enumerate(days_raw, start=1):
            where = f"[[days]] #{index}"
            self.known(raw, DAY_KEYS, where)
            number = self.integer(raw, "number", f"{where}.number", required=True, minimum=1)
            assert number is not None
            if number in blocks:
                raise self.fail(f"{where}.number", f"第{number}日配置了两次")
            where = f"[[days]] #{index} (day {number})"
            own_start = self.when(raw, "start", f"{where}.start", tz, required=False)
            own_deadline = self.when(raw, "deadline", f"{where}.deadline", tz, required=False)
            if own_start is not None and own_deadline is not None and own_deadline <= own_start:
                raise self.fail(f"{where}.deadline", "要晚于 start")
            if not isinstance(raw.get("accelerated", False), bool):
                raise self.fail(f"{where}.accelerated", "应为 true 或 false")
            blocks[number] = (where, raw, own_start, own_deadline)
        try:
            calendar = calendar_for(
                rules.name, start, tz, open_time=open_time, close_time=close_time, close_after_days=close_after,
                extend_on=extend_on, extend_first_day=first, holidays=holidays, workdays=workdays,
                change_window=timedelta(minutes=rules.change_window_minutes),
                remind_before_freeze=self.reminders(table, "remind_before_freeze"),
                remind_before_deadline=self.reminders(table, "remind_before_deadline"),
                overrides=[DayTimes(n, s, d) for n, (_, _, s, d) in sorted(blocks.items()) if s or d],
            )
            laid = lay_out(calendar, max(horizon, *blocks) if blocks else horizon)
        except CalendarError as exc:
            block = blocks.get(exc.day) if exc.day is not None else None
            if block is not None and exc.field:
                key = f"{block[0]}.{exc.field}"
            else:
                key = "[calendar].start" if exc.day == 1 else "[calendar]"  # day 1 is as the start makes it
            raise self.fail(key, str(exc)) from None
        for day in laid.days:
            where, raw, _, _ = blocks.get(day.number, (f"[[days]] (day {day.number})", {}, None, None))
            state = state.add_day(DayWindow(
                number=day.number, start=day.start, deadline=day.deadline,
                vote_thread=self.integer(raw, "vote_thread", f"{where}.vote_thread", required=False, minimum=1),
                discussion_thread=self.integer(raw, "discussion_thread", f"{where}.discussion_thread",
                                               required=False, minimum=1),
                progress_thread=self.integer(raw, "progress_thread", f"{where}.progress_thread", required=False,
                                             minimum=1),
                accelerated=raw.get("accelerated", False),
                deadline_pid=self.integer(raw, "deadline_pid", f"{where}.deadline_pid", required=False, minimum=1),
            ))
        return calendar, state

    def duties(self, table: dict[str, Any]) -> DayDuties:
        values = {}
        for name in ("discussion_threads", "remind_by_pm", "lock_threads"):
            value = table.get(name)
            if value is not None and not isinstance(value, bool):
                raise self.fail(f"[calendar].{name}", f"应为 true 或 false，实际是 {value!r}")
            if value is not None:
                values[name] = value
        return DayDuties(**values)

    def calendar_start(self, value: Any, tz: tzinfo) -> datetime | date:
        key = "[calendar].start"
        if isinstance(value, str):
            text = value.strip()
            try:
                value = date.fromisoformat(text) if _DATE.fullmatch(text) else datetime.fromisoformat(text)
            except ValueError:
                raise self.fail(key, f"不是日期或日期时间：{value!r}（例：2026-12-04 或 2026-12-04T09:00:00+08:00）") from None
        if isinstance(value, datetime):
            return value if value.tzinfo is not None else value.replace(tzinfo=tz)
        if isinstance(value, date):
            return value  # day 1 opens at the opening time
        raise self.fail(key, f"应为日期或日期时间，实际是 {value!r}")

    def clock(self, table: dict[str, Any], name: str) -> time | None:
        value, key = table.get(name), f"[calendar].{name}"
        if value is None:
            return None
        if isinstance(value, str) and (m := _CLOCK.fullmatch(value.strip())):
            hour, minute, second = int(m["h"]), int(m["m"]), int(m["s"] or 0)
            if hour < 24 and minute < 60 and second < 60:
                return time(hour, minute, second)
        elif isinstance(value, time):
            return value.replace(tzinfo=None)
        raise self.fail(key, f"应为一天中的时刻，如 \"09:30\"，实际是 {value!r}")

    def calendar_count(self, table: dict[str, Any], name: str, *, minimum: int, maximum: int) -> int | None:
        value = table.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
            raise self.fail(f"[calendar].{name}", f"应为 {minimum} 到 {maximum} 的整数，实际是 {value!r}")
        return value

    def dates(self, table: dict[str, Any], name: str) -> frozenset[date]:
        """A list of dates: TOML dates, "2026-10-01", or a range "2026-10-01..2026-10-07"."""
        key = f"[calendar].{name}"
        value = table.get(name, [])
        if not isinstance(value, list):
            raise self.fail(key, "应为日期的列表，例：[2026-10-01, \"2026-10-02..2026-10-07\"]")
        out: set[date] = set()
        for item in value:
            if isinstance(item, datetime) or not isinstance(item, (date, str)):
                raise self.fail(key, f"应为日期（不带时间），实际是 {item!r}")
            if isinstance(item, date):
                out.add(item)
                continue
            first, sep, last = item.strip().partition("..")
            try:
                low, high = date.fromisoformat(first.strip()), date.fromisoformat((last if sep else first).strip())
            except ValueError:
                raise self.fail(key, f"不是日期：{item!r}（例：2026-10-01，或一段 2026-10-01..2026-10-07）") from None
            if high < low:
                raise self.fail(key, f"{item!r}：结束的日期早于开始的日期")
            if (high - low).days > 366:
                raise self.fail(key, f"{item!r}：一段超过一年")
            out.update(low + timedelta(days=i) for i in range((high - low).days + 1))
        return frozenset(out)

    def reminders(self, table: dict[str, Any], name: str) -> tuple[timedelta, ...]:
        """Minutes before the freeze or the deadline: a number, a list, or [] for none."""
        key = f"[calendar].{name}"
        value = table.get(name, [60])
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, bool) or not isinstance(item, int) or not 1 <= item <= 7 * 24 * 60:
                raise self.fail(key, f"应为提前的分钟数（1 到 10080 的整数，或它们的列表，[] 表示不提醒），"
                                     f"实际是 {item!r}")
        return tuple(timedelta(minutes=m) for m in items)

    # --- values ------------------------------------------------------------------------

    def text(self, table: dict[str, Any], name: str, key: str, *, required: bool) -> str | None:
        value = table.get(name)
        if value is None:
            if required:
                raise self.fail(key, "缺少")
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"应为非空的文本，实际是 {value!r}")
        return value

    def list(self, table: dict[str, Any], name: str, key: str) -> list[Any]:
        value = table.get(name, [])
        if not isinstance(value, list):
            raise self.fail(key, "应为列表（[…]）")
        return value

    def names(self, table: dict[str, Any], name: str, key: str, *, required: bool) -> list[str]:
        if required and name not in table:
            raise self.fail(key, "缺少")
        value = self.list(table, name, key)
        for item in value:
            if not isinstance(item, str) or not item.strip():
                raise self.fail(key, f"应为名字（文本），实际是 {item!r}")
        return value

    def integer(self, table: dict[str, Any], name: str, key: str, *, required: bool, minimum: int) -> int | None:
        value = table.get(name)
        if value is None:
            if required:
                raise self.fail(key, "缺少")
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(key, f"应为 ≥ {minimum} 的整数，实际是 {value!r}")
        return value

    def when(self, table: dict[str, Any], name: str, key: str, tz: tzinfo, *, required: bool) -> datetime | None:
        value = table.get(name)
        if value is None:
            if required:
                raise self.fail(key, "缺少")
            return None
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.strip())
            except ValueError:
                raise self.fail(key, f"不是日期时间：{value!r}（例：2026-11-30T21:30:00+08:00）") from None
        if isinstance(value, date) and not isinstance(value, datetime):
            raise self.fail(key, "要日期和时间，不能只有日期（例：2026-11-30T21:30:00+08:00）")
        if not isinstance(value, datetime):
            raise self.fail(key, f"应为日期时间，实际是 {value!r}")
        if value.tzinfo is None:
            value = value.replace(tzinfo=tz)  # written in the forum's time zone
        return value


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CLOCK = re.compile(r"(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?")


def public_raw(doc: dict[str, Any]) -> dict[str, Any]:
    """The TOML document without its secrets, for the parts of forumbot that read their own
    tables from ``raw``: no ``[identities.table]``, no ``[[actions]]``."""
    out = {k: v for k, v in doc.items() if k != "actions"}
    if isinstance(out.get("identities"), dict):
        out["identities"] = {k: v for k, v in out["identities"].items() if k != "table"}
    return out


def base_url_problem(url: str) -> str | None:
    """What is wrong with a forum address, or None: http(s), a host, a port in range, no
    query or fragment, and the forum's root folder rather than one of its pages."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        return "端口超出范围（1–65535）" if "range" in str(exc) else "端口不是数字"
    if parts.scheme not in ("http", "https"):
        return "必须以 http:// 或 https:// 开头"
    if not parts.hostname:
        return "没有主机名"
    if port is not None and port == 0:
        return "端口 0 不是可用的端口"
    if parts.username is not None or parts.password is not None:
        return "不能带用户名或密码（机器人自己登录）"
    if parts.query or url.rstrip().endswith("?"):
        return "不能带查询参数（?…）：请给出论坛的根目录"
    if parts.fragment or "#" in url:
        return "不能带 #…"
    last = parts.path.rstrip("/").rsplit("/", 1)[-1]
    if "." in last and last.lower().endswith((".php", ".html", ".htm")):
        return f"指向了一个页面（{last}）：请给出论坛的根目录"
    return None


# tomllib's messages (CPython Lib/tomllib/_parser.py), in Chinese; its place suffix
# "(at line 3, column 6)" / "(at end of document)" becomes 第3行第6列 / 文件末尾.
_TOML_ZH = (
    (r"Invalid statement", "无法识别的一行"),
    (r"Expected newline or end of document after a statement", "一行只能写一项（后面多了东西）"),
    (r"Expected '\]' at the end of a table declaration", "表名后缺少「]」"),
    (r"Expected '\]\]' at the end of an array declaration", "表数组名后缺少「]]」"),
    (r"Expected '=' after a key in a key/value pair", "键后面缺少「=」"),
    (r"Expected '(.*)'", r"这里应为「\1」"),
    (r"Found invalid character (.*)", r"无效的字符 \1"),
    (r"Cannot declare (.*) twice", r"表 \1 声明了两次"),
    (r"Cannot overwrite a value", "同一个键写了两次"),
    (r"Cannot mutate immutable namespace (.*)", r"不能再给 \1 加键"),
    (r"Cannot redefine namespace (.*)", r"不能重新定义 \1"),
    (r"Invalid initial character for a key part", "键的开头有无效的字符（含空格或中文的键要加引号）"),
    (r"Unclosed array", "列表没有用「]」结束"),
    (r"Duplicate inline table key (.*)", r"行内表里的键 \1 写了两次"),
    (r"Unclosed inline table", "行内表没有用「}」结束"),
    (r"Unescaped '\\' in a string", "字符串里的「\\」要写成「\\\\」（或改用单引号）"),
    (r"Invalid hex value", "无效的十六进制值"),
    (r"Escaped character is not a Unicode scalar value", "转义字符不是有效的 Unicode 字符"),
    (r"Unterminated string", "字符串没有结束（缺少引号）"),
    (r"Illegal character (.*)", r"字符串里有不允许的字符 \1"),
    (r"Invalid date or datetime", "无效的日期或时间"),
    (r"Invalid value", "无效的值（文字要加引号）"),
)


def toml_error_zh(exc: Exception) -> str:
    """A TOML syntax error as the director reads it: 不是有效的 TOML（第3行第6列）：表名后缺少「]」."""
    import re

    text = str(exc)
    where = ""
    if m := re.search(r" \(at line (\d+), column (\d+)\)$", text):
        where, text = f"（第{m.group(1)}行第{m.group(2)}列）", text[:m.start()]
    elif text.endswith(" (at end of document)"):
        where, text = "（文件末尾）", text.removesuffix(" (at end of document)")
    for pattern, said in _TOML_ZH:
        if m := re.fullmatch(pattern, text):
            said = m.expand(said) if m.groups() else said
            # tomllib names a table by its key tuple, ('game', 'rules'): say [game.rules]
            said = re.sub(r"\(((?:'[^']*',? ?)+)\)", lambda t: "[" + ".".join(re.findall(r"'([^']*)'", t.group(1))) + "]",
                          said)
            return f"不是有效的 TOML{where}：{said}"
    return f"不是有效的 TOML{where}：{text}"


def default_event_time(state: GameState, kind: EventKind, why: OutWhy | None, day: int | None) -> datetime | None:
    """SPEC §9's defaults, given the day an event is about: a night out takes effect at
    that day's start (the night before its morning); a vote-out, 若愚 and a badge named
    at the vote at that day's deadline; acceleration and 冤死's list hold for the whole
    day. Anything else (a daytime out, the scapegoat) needs its own time (None)."""
    if day is None:
        return None
    window = state.day(day)
    if kind in (EventKind.OUT, EventKind.IDENTITY_LOST):
        if why is OutWhy.NIGHT:
            return window.start
        if why is OutWhy.VOTE:
            return window.deadline
        return None
    if kind in (EventKind.IDIOT, EventKind.SHERIFF):
        return window.deadline
    if kind in (EventKind.ACCELERATED, EventKind.VOTERS):
        return window.start
    return None
