"""Scripts that fill a simulator: users, boards, threads, posts at chosen times, quotes, edits.

A script is TOML (``.toml``) or JSON (anything else) with these tables, all optional (any
other top-level table is an error; a game config — it has ``[game]`` — is refused by
name, since it describes a game, not a forum)::

    [site]
    start = "2026-11-30T09:00:00+08:00"  # the base for offsets (default: the clock's now)
    discuz = "x3"                        # or "7.2" (the CLI's --discuz wins)
    charset = "utf-8"                    # or "gbk" (the CLI's --gbk wins)
    posts_per_page = 10                  # the CLI's --ppp wins
    [site.settings]                      # any field of Settings, e.g.
    floodctrl = 15
    moderate_replies = false

    [[users]]
    name = "导演"
    password = "demo-password"
    # uid = 2, question = [1, "答案"], activated = true, banned = false,
    # registered = "-1m"                  # when (default: long ago; see newbiespan)

    [[forums]]
    name = "版杀区"

    [[threads]]
    key = "vote"                          # how posts refer to this thread
    forum = "版杀区"
    subject = "【饺子村】第一日 投票帖"
    author = "导演"
    message = "投票格式：投票对象：玩家名"
    at = "-2h"                            # ISO time, or an offset from start: "+90s",
    closed = false                        # "-5m", "+1h30m", "+1d"

    [[posts]]
    key = "jiaozi-vote"                   # optional; lets later posts quote it
    thread = "vote"
    author = "饺子"
    message = "投票对象：包子\n投票理由：……"
    at = "-1h"
    quote = "vote"                        # a post key, or a thread key (its first post)
    # blocked = true                      # 屏蔽 by a moderator

    [[edits]]
    post = "jiaozi-vote"
    message = "投票对象：汤圆\n投票理由：改主意了"
    at = "-50m"

    [[pms]]                               # a private message, e.g. a player's night action
    from = "饺子"                          # to the bot (SPEC §10.2: 杀人 包子, 预言 汤圆, 放弃)
    to = "计票机器人"
    message = "杀人 包子"
    at = "+13h"

Posts are stored in file order (pids follow it); ``at`` sets each post's time. PMs are
stored as the generation's UCenter stores them (both generations, in the site charset),
with their ``at`` — a PM dated in the future is listed once the forum clock passes it. Users named
as ``banned`` are banned after all posts are stored, so their posts show the 作者被禁止
notice like the captured forum's 路人甲.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import fields
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from forumbot.wording import os_error_zh
from forumbot.simulator.core import Simulator
from forumbot.simulator.model import Settings

_OFFSET = re.compile(r"^([+-])((?:\d+(?:\.\d+)?[dhms])+)$")
_PART = re.compile(r"(\d+(?:\.\d+)?)([dhms])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes", "s": "seconds"}


class ScriptError(ValueError):
    """The script is malformed; the message names the entry and the field."""


SCRIPT_TABLES = ("site", "users", "forums", "threads", "posts", "edits", "pms")
GAME_TABLES = ("game", "forum", "bot", "agent", "days", "policies")


def check_tables(data: dict[str, Any], source: str) -> None:
    """A script has only the script tables; a game config passed by mistake says so."""
    if "game" in data:
        raise ScriptError(
            f"{source} 是游戏配置（里面有 [game]），不是模拟论坛的脚本：--script 只接受 "
            "[site]、[[users]]、[[forums]]、[[threads]]、[[posts]]、[[edits]] 和 [[pms]]"
            "（见 forumbot simulate --help）；游戏配置要交给 forumbot run --config")
    unknown = [key for key in data if key not in SCRIPT_TABLES]
    if unknown:
        hint = "（看起来像游戏配置）" if set(unknown) & set(GAME_TABLES) else ""
        raise ScriptError(f"{source}：未知的表 {'、'.join(map(repr, unknown))}{hint}；"
                          f"脚本只有这些表：{'、'.join(SCRIPT_TABLES)}")


def load_script(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ScriptError(f"无法读取脚本 {path}：{os_error_zh(exc)}") from exc
    try:
        if path.suffix.lower() == ".toml":
            return tomllib.loads(raw.decode("utf-8"))
        data = json.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ScriptError(f"脚本 {path} 不是有效的 {(path.suffix or '.json')[1:].upper()}：{exc}") from exc
    if not isinstance(data, dict):
        raise ScriptError(f"脚本 {path} 的最外层必须是表（对象）")
    check_tables(data, f"脚本 {path}")
    return data


def parse_when(value: object, base: datetime, where: str) -> datetime:
    if value is None or value == "":
        return base
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=base.tzinfo)
    text = str(value).strip()
    match = _OFFSET.match(text)
    if match:
        step = timedelta(**{_UNITS[u]: float(n) for n, u in _PART.findall(match.group(2))})
        return base + step if match.group(1) == "+" else base - step
    try:
        when = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ScriptError(f"{where}：无效的时间 {text!r}（ISO 时间，或 '+5m' 这样的偏移）") from exc
    return when if when.tzinfo else when.replace(tzinfo=base.tzinfo)


def _need(entry: dict[str, Any], name: str, where: str) -> Any:
    if name not in entry or entry[name] in (None, ""):
        raise ScriptError(f"{where}：缺少 '{name}'")
    return entry[name]


def apply_settings(sim: Simulator, values: dict[str, Any]) -> None:
    known = {f.name for f in fields(Settings)}
    for name, value in values.items():
        if name not in known:
            raise ScriptError(f"site.settings：未知的设置 {name!r}")
        setattr(sim.settings, name, value)


def apply_script(sim: Simulator, script: dict[str, Any]) -> dict[str, int]:
    """Fill ``sim`` from ``script``; returns the pid of every keyed post (and thread)."""
    check_tables(script, "脚本")
    site = script.get("site", {})
    base = parse_when(site.get("start"), sim.now(), "site.start")
    apply_settings(sim, site.get("settings", {}))
    banned: list[str] = []
    for i, entry in enumerate(script.get("users", [])):
        where = f"users[{i}]"
        question = entry.get("question")
        registered = entry.get("registered")
        sim.add_user(_need(entry, "name", where), str(_need(entry, "password", where)),
                     uid=entry.get("uid"),
                     question=(int(question[0]), str(question[1])) if question else None,
                     activated=bool(entry.get("activated", True)),
                     registered_at=None if registered is None else parse_when(registered, base, where))
        if entry.get("banned"):
            banned.append(entry["name"])
    forums: dict[str, int] = {}
    for i, entry in enumerate(script.get("forums", [])):
        name = _need(entry, "name", f"forums[{i}]")
        forums[name] = forums[entry.get("key", name)] = sim.add_forum(name)
    threads: dict[str, int] = {}
    keys: dict[str, int] = {}
    for i, entry in enumerate(script.get("threads", [])):
        where = f"threads[{i}]"
        forum = entry.get("forum") or (next(iter(forums)) if forums else None)
        if forum not in forums:
            raise ScriptError(f"{where}：未知的版块 {forum!r}")
        tid = _run(where, lambda: sim.add_thread(
            forums[forum], _need(entry, "subject", where), _need(entry, "author", where),
            _need(entry, "message", where), parse_when(entry.get("at"), base, where)))
        key = entry.get("key", entry["subject"])
        threads[key] = tid
        keys[key] = sim.first_pid(tid)
        if entry.get("closed"):
            sim.close_thread(tid)
    for i, entry in enumerate(script.get("posts", [])):
        where = f"posts[{i}]"
        thread = _need(entry, "thread", where)
        if thread not in threads:
            raise ScriptError(f"{where}：未知的帖子 {thread!r}")
        quote = entry.get("quote")
        if quote is not None and quote not in keys:
            raise ScriptError(f"{where}：quote 引用了未知的帖子 {quote!r}")
        pid = _run(where, lambda: sim.add_post(
            threads[thread], _need(entry, "author", where), _need(entry, "message", where),
            parse_when(entry.get("at"), base, where),
            quote_pid=keys[quote] if quote is not None else None))
        if entry.get("key"):
            keys[entry["key"]] = pid
        if entry.get("blocked"):
            sim.block_post(pid)
    for i, entry in enumerate(script.get("edits", [])):
        where = f"edits[{i}]"
        post = _need(entry, "post", where)
        if post not in keys:
            raise ScriptError(f"{where}：未知的帖子 {post!r}")
        sim.edit_post(keys[post], _need(entry, "message", where),
                      parse_when(entry.get("at"), base, where), entry.get("editor"))
    for i, entry in enumerate(script.get("pms", [])):
        where = f"pms[{i}]"
        sender, to = _need(entry, "from", where), _need(entry, "to", where)
        _run(where, lambda: sim.send_pm(sender, to, str(_need(entry, "message", where)),
                                        parse_when(entry.get("at"), base, where)))
    for name in banned:
        sim.ban_user(name)
    return keys


def _run(where: str, action: Any) -> int:
    try:
        return int(action())
    except LookupError as exc:
        raise ScriptError(f"{where}：{exc}") from exc


DEMO_PASSWORD = "demo-password"
DEMO_PLAYERS = ["饺子", "包子", "汤圆", "Alice", "bob_2", "月饼", "小笼包", "烧卖"]


def demo_script() -> dict[str, Any]:
    """A small game: a board, a discussion thread and a voting thread with a few votes."""
    users = [{"name": n, "password": DEMO_PASSWORD} for n in ["导演", "计票机器人", *DEMO_PLAYERS]]
    rules = ("【饺子村】第一日 投票帖\n\n投票格式（请严格遵守，使用全角冒号）：\n投票对象：玩家名\n"
             "投票理由：理由\n\n如需改票，请[b]引用[/b]自己原来的投票帖，并写：\n改票对象：玩家名\n"
             "改票理由：理由\n\n弃权请写“投票对象：弃权”。投票截止后的投票无效。")
    return {
        "users": users,
        "forums": [{"name": "版杀区"}],
        "threads": [
            {"key": "talk", "forum": "版杀区", "subject": "【饺子村】第一日 讨论帖", "author": "导演",
             "message": "[b]第一日白天[/b]\n请大家在这里自由发言。", "at": "-3h"},
            {"key": "vote", "forum": "版杀区", "subject": "【饺子村】第一日 投票帖", "author": "导演",
             "message": rules, "at": "-2h"},
        ],
        "posts": [
            {"thread": "talk", "author": "饺子", "message": "我觉得包子昨晚发言很可疑。", "at": "-170m"},
            {"thread": "talk", "author": "包子", "message": "我是好人，别乱踩我。", "at": "-160m"},
            {"key": "v-jiaozi", "thread": "vote", "author": "饺子",
             "message": "投票对象：包子\n投票理由：包子昨晚发言很可疑", "at": "-100m"},
            {"key": "v-baozi", "thread": "vote", "author": "包子",
             "message": "投票对象：饺子\n投票理由：饺子先踩我", "at": "-95m"},
            {"key": "v-tangyuan", "thread": "vote", "author": "汤圆",
             "message": "投票对象：弃权\n投票理由：搞不清楚", "at": "-90m"},
            {"key": "v-alice", "thread": "vote", "author": "Alice",
             "message": "投票对象:饺子\n投票理由:跟票", "at": "-80m"},
            {"key": "v-yuebing", "thread": "vote", "author": "月饼",
             "message": "投票对象：小龙包\n投票理由：小笼包一整天都不说话", "at": "-70m"},
            {"thread": "vote", "author": "小笼包",
             "message": "[color=Red][size=6]投票对象：月饼[/size][/color]\n投票理由：月饼踩我", "at": "-60m"},
            {"thread": "vote", "author": "汤圆", "quote": "v-tangyuan",
             "message": "改票对象：包子\n改票理由：包子也好吃", "at": "-40m"},
        ],
        "edits": [
            {"post": "v-yuebing", "at": "-65m",
             "message": "投票对象：小笼包\n投票理由：小笼包一整天都不说话\n（更正：上面打错字了，是小笼包）"},
        ],
    }
