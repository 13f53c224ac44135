"""The evidence file: readable UTF-8 JSON, one object, with a checksum at the end.

JSON rather than an HTML or Markdown page with the data embedded: what a person reads is
exactly what the recount reads — there is no second, prettier copy that could say
something else — and any editor, browser or script opens it. Chinese stays Chinese
(``ensure_ascii=False``); short lists and records stay on one line, longer ones are
indented, so a post reads as a block.

The checksum (sha256 of the canonical JSON of everything but itself) tells a file
changed after export — by hand or by damage — from the one forumbot wrote. It is not a
signature: whoever edits the file can recompute it. The store keeps the checksum of
every export in its audit log (``evidence.exported``) for that.

``parse`` checks every field the recount reads and names the one that is wrong
(``posts[3].seen[0].text``): a damaged file is an error, never a different count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.events import EventKind as GameKind
from engine.events import GameEvent, OutWhy
from engine.rules import RuleSet, RuleSetError
from engine.state import DayWindow, GameState
from forumbot.config.gamefile import ForumSettings, GameConfig
from forumbot.store.codec import canonical_json, post_from_dict, sha256_hex
from forumbot.store.records import Event, EventKind
from forumbot.wording import os_error_zh
from parsers.models import Post

FORMAT = "forumbot-evidence"
FORMAT_VERSION = 1
WIDTH = 100  # a record that fits on one line of this width is written on one line
# Keys of a post version left out when empty, and what their absence means.
OPTIONAL: dict[str, Any] = {"edited_by": None, "edited_at": None, "quotes": [], "fonts": [], "links": [],
                            "images": [], "attachments": [], "notice": None}


class EvidenceError(ValueError):
    """The evidence file cannot be read or recounted; the message names the file and
    the field (Chinese: a director reads it)."""


@dataclass(frozen=True)
class EvidencePost:
    """One post of the day's threads: the version the bot first saw and its latest
    record, with the thread's role that day (what ``forumbot.game.state`` makes a Ballot of)."""

    pid: int
    role: str
    first: Post
    latest: Post
    versions: int  # distinct versions seen


@dataclass(frozen=True)
class Evidence:
    data: dict[str, Any]  # the whole file, as read
    path: Path | None
    day: int
    config: GameConfig  # the rule set and the game's starting state, as the live run had them
    events: tuple[Event, ...]  # the store's events, retracted and retractions included
    posts: tuple[EvidencePost, ...]
    live: dict[str, Any] | None  # the tally the live run stored (None: it never counted the day)
    live_version: int | None
    live_saved_at: str | None
    checksum_ok: bool | None  # None: the file has no checksum


# ---------------------------------------------------------------------------- writing


def checksum(data: dict[str, Any]) -> str:
    body = {k: v for k, v in data.items() if k != "checksum"}
    return "sha256:" + sha256_hex(canonical_json(body))


def dumps(data: dict[str, Any]) -> str:
    """``data`` as readable JSON (with its checksum set)."""
    data = {**{k: v for k, v in data.items() if k != "checksum"}, "checksum": checksum(data)}
    return _render(data, 0) + "\n"


def write(data: dict[str, Any], path: str | Path) -> str:
    """Write the file (UTF-8); returns its checksum."""
    text = dumps(data)
    Path(path).write_text(text, encoding="utf-8")
    return json.loads(text)["checksum"]


def _render(value: Any, indent: int) -> str:
    one = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value or len(one) + indent <= WIDTH:
        return one
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_render(v, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{pad}{_render(v, indent + 2)}" for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


# ---------------------------------------------------------------------------- reading


def load(path: str | Path) -> Evidence:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise EvidenceError(f"{path}：这是一个文件夹，不是证据文件") from None
    except OSError as exc:
        raise EvidenceError(f"{path}：无法读取（{os_error_zh(exc)}）") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EvidenceError(f"{path}：不是 UTF-8 文本（第 {exc.start} 字节起），文件可能已损坏") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EvidenceError(f"{path}：不是完整的 JSON（第 {exc.lineno} 行第 {exc.colno} 列：{exc.msg}），"
                            "文件可能被截断或改坏了") from None
    return parse(data, path)


def parse(data: Any, path: str | Path | None = None) -> Evidence:
    """Check and decode an evidence object (as read from a file)."""
    return _Reader(Path(path) if path is not None else None).evidence(data)


class _Reader:
    def __init__(self, path: Path | None) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> EvidenceError:
        name = f"{self.path}：" if self.path is not None else ""
        return EvidenceError(f"证据文件 {name}{where}：{problem}")

    # -- values ---------------------------------------------------------------------------

    def get(self, table: dict[str, Any], key: str, where: str, kinds: type | tuple[type, ...], *,
            null: bool = False) -> Any:
        if key not in table:
            raise self.fail(f"{where}.{key}" if where else key, "缺少这一项")
        value = table[key]
        if value is None and null:
            return None
        wanted = kinds if isinstance(kinds, tuple) else (kinds,)
        if isinstance(value, bool) and bool not in wanted:
            raise self.fail(f"{where}.{key}" if where else key, f"应为{_kind_zh(wanted)}，实为 {value!r}")
        if not isinstance(value, wanted):
            raise self.fail(f"{where}.{key}" if where else key, f"应为{_kind_zh(wanted)}，实为 {_short(value)}")
        return value

    def time(self, table: dict[str, Any], key: str, where: str, *, null: bool = False) -> datetime | None:
        value = self.get(table, key, where, str, null=null)
        if value is None:
            return None
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise self.fail(f"{where}.{key}", f"不是时间：{value!r}") from None
        if parsed.tzinfo is None:
            raise self.fail(f"{where}.{key}", f"时间缺少时区：{value!r}")
        return parsed

    def names(self, table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = self.get(table, key, where, list)
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise self.fail(f"{where}.{key}[{index}]", f"应为文本，实为 {_short(item)}")
        return tuple(value)

    def pairs(self, table: dict[str, Any], key: str, where: str, first: type) -> tuple[tuple[Any, str], ...]:
        value = self.get(table, key, where, list)
        out = []
        for index, item in enumerate(value):
            if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], first)
                    or isinstance(item[0], bool) or not isinstance(item[1], str)):
                raise self.fail(f"{where}.{key}[{index}]", f"应为两项的列表，实为 {_short(item)}")
            out.append((item[0], item[1]))
        return tuple(out)

    # -- the file -------------------------------------------------------------------------

    def evidence(self, data: Any) -> Evidence:
        if not isinstance(data, dict):
            raise self.fail("整个文件", "应为一个 JSON 对象")
        if data.get("format") != FORMAT:
            raise self.fail("format", f"不是 forumbot 的证据文件（应为 {FORMAT!r}）")
        version = self.get(data, "format_version", "", int)
        if version > FORMAT_VERSION:
            raise self.fail("format_version", f"版本 {version} 比本程序认识的（{FORMAT_VERSION}）新，请升级 forumbot")
        stored = data.get("checksum")
        checksum_ok = None if stored is None else stored == checksum(data)
        day_table = self.get(data, "day", "", dict)
        day = self.get(day_table, "number", "day", int)
        config = self.config(data, day)
        events = tuple(self.event(e, f"events[{i}]") for i, e in enumerate(self.get(data, "events", "", list)))
        ids = [e.id for e in events]
        if len(ids) != len(set(ids)):
            raise self.fail("events", "事件编号重复")
        roles = {tid: role for tid, role in config.state.day(day).threads().items()}
        posts = tuple(self.post(p, f"posts[{i}]", roles) for i, p in enumerate(self.get(data, "posts", "", list)))
        pids = [p.pid for p in posts]
        if len(pids) != len(set(pids)):
            raise self.fail("posts", "同一个 pid 出现了两次")
        live_table = self.get(data, "live_tally", "", dict, null=True)
        live = version_no = saved_at = None
        if live_table is not None:
            live = self.get(live_table, "tally", "live_tally", dict)
            version_no = self.get(live_table, "version", "live_tally", int)
            saved_at = self.get(live_table, "saved_at", "live_tally", str)
        return Evidence(data, self.path, day, config, events, posts, live, version_no, saved_at, checksum_ok)

    def config(self, data: dict[str, Any], day: int) -> GameConfig:
        game = self.get(data, "game", "", dict)
        zone = self.get(game, "timezone", "game", str)
        try:
            tz = ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise self.fail("game.timezone", f"未知时区 {zone!r}") from None
        rules = self.rules(self.get(data, "rules", "", dict))
        setup = self.get(data, "setup", "", dict)
        days = tuple(self.window(d, f"setup.days[{i}]") for i, d in enumerate(self.get(setup, "days", "setup", list)))
        state = GameState(
            players=self.names(setup, "players", "setup"),
            director=self.get(setup, "director", "setup", str, null=True),
            bot=self.get(setup, "bot", "setup", str, null=True),
            identities=self.get(setup, "identities", "setup", int),
            substitutes=self.pairs(setup, "substitutes", "setup", str),
            aliases=self.pairs(setup, "aliases", "setup", str),
            voided=self.pairs(setup, "voided", "setup", int),
            days=days,
            events=tuple(self.game_event(e, f"setup.events[{i}]")
                         for i, e in enumerate(self.get(setup, "events", "setup", list))),
        )
        if day not in {d.number for d in days}:
            raise self.fail("day.number", f"第{day}日不在 setup.days 里")
        origin = Path(str(game.get("config_file") or self.path or "evidence"))
        return GameConfig(origin, ForumSettings(None, zone, tz), rules, state, raw={})

    def rules(self, table: dict[str, Any]) -> RuleSet:
        fields = dict(self.get(table, "fields", "rules", dict))
        name = self.get(fields, "name", "rules.fields", str)
        title = self.get(fields, "title", "rules.fields", str)
        rest = {k: v for k, v in fields.items() if k not in ("name", "title")}
        try:
            return RuleSet(name=name, title=title).with_overrides(**rest)
        except RuleSetError as exc:
            raise self.fail("rules.fields", str(exc)) from None

    def window(self, table: Any, where: str) -> DayWindow:
        if not isinstance(table, dict):
            raise self.fail(where, "应为一个对象")
        start = self.time(table, "start", where)
        deadline = self.time(table, "deadline", where)
        assert start is not None and deadline is not None
        return DayWindow(
            number=self.get(table, "number", where, int),
            start=start,
            deadline=deadline,
            vote_thread=self.get(table, "vote_thread", where, int, null=True),
            discussion_thread=self.get(table, "discussion_thread", where, int, null=True),
            progress_thread=self.get(table, "progress_thread", where, int, null=True),
            accelerated=self.get(table, "accelerated", where, bool),
            deadline_pid=self.get(table, "deadline_pid", where, int, null=True),
        )

    def game_event(self, table: Any, where: str) -> GameEvent:
        if not isinstance(table, dict):
            raise self.fail(where, "应为一个对象")
        kind = self.get(table, "kind", where, str)
        why = self.get(table, "why", where, str, null=True)
        try:
            engine_kind = GameKind(kind)
            reason = OutWhy(why) if why is not None else None
        except ValueError as exc:
            raise self.fail(where, f"无法识别：{exc}") from None
        seq = self.get(table, "seq", where, list)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in seq):
            raise self.fail(f"{where}.seq", "应为整数列表")
        return GameEvent(
            kind=engine_kind,
            at=self.time(table, "at", where, null=True),
            player=self.get(table, "player", where, str, null=True),
            why=reason,
            day=self.get(table, "day", where, int, null=True),
            players=self.names(table, "players", where),
            note=self.get(table, "note", where, str),
            ref=self.get(table, "ref", where, int, null=True),
            seq=tuple(seq),
        )

    def event(self, table: Any, where: str) -> Event:
        if not isinstance(table, dict):
            raise self.fail(where, "应为一个对象")
        kind = self.get(table, "kind", where, str)
        try:
            stored_kind = EventKind(kind)
        except ValueError:
            raise self.fail(f"{where}.kind", f"未知的事件类型 {kind!r}") from None
        entered = self.time(table, "entered_at", where)
        assert entered is not None
        event = Event(
            id=self.get(table, "id", where, int),
            day=self.get(table, "day", where, int),
            kind=stored_kind,
            payload=dict(self.get(table, "payload", where, dict)),
            actor=self.get(table, "actor", where, str),
            at=entered,
            game_at=self.time(table, "game_at", where, null=True),
        )
        if not _names_its_target(event):
            raise self.fail(f"{where}.payload", "撤销或更正的事件编号无法读取")
        return event

    def post(self, table: Any, where: str, roles: dict[int, str]) -> EvidencePost:
        if not isinstance(table, dict):
            raise self.fail(where, "应为一个对象")
        pid = self.get(table, "pid", where, int)
        tid = self.get(table, "tid", where, int)
        role = self.get(table, "thread", where, str)
        if roles.get(tid) != role:
            raise self.fail(f"{where}.thread", f"帖子 {tid} 在这一天不是 {role!r}（应为 {roles.get(tid)!r}）")
        seen = self.get(table, "seen", where, list)
        if not seen:
            raise self.fail(f"{where}.seen", "至少要有首次所见的版本")
        versions = [self.version(v, f"{where}.seen[{i}]", pid) for i, v in enumerate(seen)]
        latest_table = self.get(table, "latest", where, dict, null=True)
        latest = versions[-1] if latest_table is None else self.version(latest_table, f"{where}.latest", pid,
                                                                         seen_at=False)
        if latest.tid != tid:
            raise self.fail(f"{where}.tid", f"与最新版本的帖子 {latest.tid} 不符")
        return EvidencePost(pid, role, versions[0], latest, len(versions))

    def version(self, table: Any, where: str, pid: int, *, seen_at: bool = True) -> Post:
        if not isinstance(table, dict):
            raise self.fail(where, "应为一个对象")
        table = {**OPTIONAL, **table}
        if seen_at:
            self.time(table, "seen_at", where)
        for key, kinds in (("pid", int), ("tid", int), ("floor", int), ("author", str), ("author_uid", int),
                           ("text", str), ("html", str), ("edited_by", str), ("quotes", list), ("fonts", list),
                           ("links", list), ("images", list), ("attachments", list), ("notice", str)):
            self.get(table, key, where, kinds, null=key in ("floor", "author", "author_uid", "edited_by", "notice"))
        self.time(table, "posted_at", where)
        self.time(table, "edited_at", where, null=True)
        if table["pid"] != pid:
            raise self.fail(f"{where}.pid", f"与帖子的 pid {pid} 不符")
        try:
            return post_from_dict({k: v for k, v in table.items() if k != "seen_at"})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise self.fail(where, f"帖子内容无法读取（{type(exc).__name__}: {exc}）") from None


def _names_its_target(event: Event) -> bool:
    """A retraction or a correction names the event it takes back (the replay reads it)."""
    try:
        taken = event.retracts if event.kind is EventKind.RETRACT else event.corrects
    except (KeyError, TypeError, ValueError):
        return False
    return taken is not None or event.kind is not EventKind.RETRACT


def _kind_zh(kinds: tuple[type, ...]) -> str:
    names = {int: "整数", str: "文本", list: "列表", dict: "对象", bool: "true/false"}
    return "或".join(names.get(k, k.__name__) for k in kinds)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "…"
