"""The store and the config → one day's evidence (a dict; ``fileformat.write`` writes it).

What goes in, and why each part:

* every post of the day's vote thread (all of them: the engine decides which belong to
  the day, and a shared thread's other days show as late or early), and the posts of
  its discussion and progress threads inside the day's window (post counts, 诈尸);
  each with every version the bot saw, when it first saw each, and the reads of the
  pages that carried it;
* the rule set (every field, and which differ from the preset), the config's starting
  state (players, aliases, substitutes, every day's window, ``[[events]]``) and the
  store's events — retracted ones and the retractions too, since the replay decides
  what stands —, each with its game time, who entered it and when;
* what that gives, for the reader: the corrections in effect, events without effect,
  the game at the deadline;
* the latest tally the live run stored for the day, with its version and time, and
  whether this file's recount reproduces it (checked at export).
"""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from enum import Enum
from typing import Any

from engine.events import GameEvent
from engine.rules import PRESETS, RuleSet
from engine.state import DayWindow, GameState
from engine.timing import is_before_start, is_late
from engine.ballots import Ballot
from forumbot import __version__
from forumbot.config.gamefile import GameConfig
from forumbot.game.state import build_state
from forumbot.game.gamelog import describe_event
from forumbot.store import Store
from forumbot.store.codec import post_from_dict
from forumbot.store.posts import PageFetch, PostHistory
from forumbot.store.records import Event
from forumbot.store.state import standing_ids
from forumbot.evidence.fileformat import FORMAT, FORMAT_VERSION, OPTIONAL

README = [
    "forumbot 证据文件：机器人为这一天计票时所见的一切，供导演处理争议时出示。",
    "复核：forumbot tally --evidence 本文件 [--json]。只读本文件，不需要论坛、数据库或配置；"
    "复核结果与文件中的实时计票（live_tally）不一致时会列出差异，并以非零状态退出。",
    "posts：当天投票帖的全部帖子，以及讨论帖、进程帖在当天时间窗内的帖子。seen 是机器人看到的每个版本，"
    "第一个是首次所见的版本——计票以它为准（修改错别字不算改票；改了对象的编辑会被标记）；"
    "seen_at 是机器人首次看到该版本的时间；latest 为 null 表示最新记录就是 seen 的最后一个版本。",
    "fetched：载有该帖的帖子页被读取的时间（首次、最后一次、次数）；threads[].fetches 是每次读取的页码、"
    "时间和所载 pid（连续相同的读取合并为一行，times 为次数，repeat_until 为最后一次的时间）。",
    "events：数据库中的全部游戏事件，包括被撤销的和撤销本身；game_at 是生效的游戏时间，"
    "entered_at 和 actor 是何时由谁录入，standing 表示是否有效。setup 是配置文件给出的开局状态、"
    "每一天的时间窗和 [[events]]；rules 是规则集的每一项，overrides 是与预设不同的项。",
    "所有时间都带时区（论坛时间）。checksum 是除自身外全部内容的 sha256：导出后被改动的文件复核时会报告。",
]


def export_day(config: GameConfig, store: Store, day: int, *, now: datetime) -> dict[str, Any]:
    """Day ``day`` as the bot saw it (see the module's docstring)."""
    from forumbot.evidence.fileformat import parse
    from forumbot.evidence.recount import verify

    events = store.events()
    state = build_state(config, events)
    window = state.day(day)
    snapshot = store.tally(day)
    posts, threads = _posts(store, window)
    data: dict[str, Any] = {
        "说明": README,
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "forumbot": __version__,
        "exported_at": now.isoformat(),
        "game": {
            "config_file": config.path.name,  # not the folder: the file may leave this machine
            "game": store.game_key,
            "timezone": config.forum.timezone,
            "read_source": store.get_meta("read_source"),
        },
        "day": _day(window, config.state.day(day)),
        "export_check": None,
        "rules": _rules(config.rules),
        "setup": _setup(config.state),
        "events": _events(events),
        "in_effect": _in_effect(state, window),
        "threads": threads,
        "posts": posts,
        "live_tally": None if snapshot is None else {
            "version": snapshot.version,
            "saved_at": snapshot.at.isoformat(),
            "hash": snapshot.hash,
            "tally": snapshot.data,
        },
    }
    check = verify(parse(data))
    data["export_check"] = {
        "recount_equals_live": check.equal,
        "differences": [d.line() for d in check.differences],
    }
    return data


# ---------------------------------------------------------------------------- the game


def not_yet_public(data: dict[str, Any]) -> list[str]:
    """What in an evidence file a director may not want players to read yet: events that
    took effect after the day's deadline (a night entered before its announcement, later
    days' outs) and the scapegoat's name (双身份: an identity). The file keeps them — the
    live count replayed the whole log, and so must the recount — so the export says so."""
    deadline = datetime.fromisoformat(data["day"]["deadline"])
    lines = []
    for e in data["events"]:
        when = e["game_at"]
        if e["standing"] and e["kind"] != "retract" and when and datetime.fromisoformat(when) > deadline:
            lines.append(f"#{e['id']} {e['说明']}（{when[5:16].replace('T', ' ')} 生效）")
    goats = [e["player"] for e in data["setup"]["events"] if e["kind"] == "scapegoat" and e["player"]]
    goats += [e["payload"].get("player") for e in data["events"] if e["kind"] == "scapegoat"
              and e["payload"].get("player")]
    if goats:
        lines.append(f"替罪羊：{'、'.join(dict.fromkeys(goats))}")
    return lines


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _window(w: DayWindow) -> dict[str, Any]:
    return {f.name: _plain(getattr(w, f.name)) for f in fields(w)}


def _day(window: DayWindow, configured: DayWindow) -> dict[str, Any]:
    return {
        **_window(window),
        "accelerated_in_config": configured.accelerated,  # ``accelerated``: config or an event
        "threads": {str(tid): role for tid, role in window.threads().items()},
    }


def _rules(rules: RuleSet) -> dict[str, Any]:
    values = {k: _plain(v) for k, v in rules.as_dict().items()}
    preset = PRESETS.get(rules.name)
    overrides = {} if preset is None else {
        k: v for k, v in values.items() if k not in ("name", "title") and v != _plain(getattr(preset, k))}
    return {"ruleset": rules.name, "title": rules.title, "overrides": overrides, "fields": values}


def _game_event(e: GameEvent) -> dict[str, Any]:
    return {
        "kind": e.kind.value, "at": _plain(e.at), "player": e.player, "why": _plain(e.why), "day": e.day,
        "players": list(e.players), "note": e.note, "ref": e.ref, "seq": list(e.seq), "说明": e.describe(),
    }


def _setup(state: GameState) -> dict[str, Any]:
    return {
        "players": list(state.players),
        "director": state.director,
        "bot": state.bot,
        "identities": state.identities,
        "aliases": [list(p) for p in state.aliases],
        "substitutes": [list(p) for p in state.substitutes],
        "voided": [list(p) for p in state.voided],
        "days": [_window(d) for d in state.days],
        "events": [_game_event(e) for e in state.events],
    }


def _events(events: list[Event]) -> list[dict[str, Any]]:
    standing = standing_ids(events)
    takers: dict[int, list[int]] = {}
    for e in events:
        for target in (e.retracts, e.corrects):
            if target is not None:
                takers.setdefault(target, []).append(e.id)
    return [
        {
            "id": e.id, "day": e.day, "kind": e.kind.value, "说明": describe_event(e),
            "game_at": _plain(e.game_at), "entered_at": e.at.isoformat(), "actor": e.actor,
            "standing": standing[e.id], "taken_back_by": takers.get(e.id, []), "payload": _public(e.payload),
        }
        for e in events
    ]


# What an event may carry that is the game's secret (SPEC §10.1): the cause of a death
# (毒药, 最后一枪 say who holds what) and anything about identities or night actions. The
# file goes to players; the recount needs none of it.
SECRET_PAYLOAD = frozenset({"cause", "identity", "identities", "skill", "actions"})


def _public(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k not in SECRET_PAYLOAD}


def _in_effect(state: GameState, window: DayWindow) -> dict[str, Any]:
    """What the replay gives (for the reader; the recount derives it again)."""
    moment = state.moment(window.deadline, before=True)
    return {
        "aliases": [list(p) for p in state.aliases],
        "substitutes": [list(p) for p in state.substitutes],
        "voided": [list(p) for p in state.voided],
        "ignored_events": [{"ref": s.event.ref, "说明": s.event.describe(), "why": s.note} for s in state.ignored],
        "at_deadline": {
            "sheriff": moment.sheriff,
            "badge_vacant": moment.vacancy is not None,
            "out": [{"player": r.player, "at": _plain(r.at), "why": r.why} for r in moment.out.values()],
            "idiots": sorted(moment.idiots),
            "allowed_voters": None if window.number not in moment.voters else list(moment.voters[window.number]),
            "accelerated": window.number in moment.accelerated or window.accelerated,
        },
    }


# ---------------------------------------------------------------------------- posts


def _posts(store: Store, window: DayWindow) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    posts: list[dict[str, Any]] = []
    threads: list[dict[str, Any]] = []
    for tid, role in window.threads().items():  # the order the live count reads them in
        kept = [h for h in store.thread_history(tid) if role == "vote" or _in_window(h, window)]
        pids = {h.pid for h in kept}
        reads = [f for f in store.fetches(tid) if pids.intersection(f.pids)]
        threads.append({"tid": tid, "role": role, "posts": len(kept), "fetches": [_fetch(f) for f in reads]})
        posts += [_post(h, role, [f for f in reads if h.pid in f.pids]) for h in kept]
    return posts, threads


def _in_window(history: PostHistory, window: DayWindow) -> bool:
    ballot = Ballot(post=post_from_dict(history.latest), declaration=None)
    return not is_before_start(ballot, window) and not is_late(ballot, window)


# The order a person reads a version in; every stored key is kept.
_VERSION_ORDER = ("seen_at", "floor", "author", "author_uid", "posted_at", "time_precision", "edited_by",
                  "edited_at", "text", "quotes", "fonts", "links", "images", "attachments", "notice", "source",
                  "tid", "pid", "html")


def _version(post: dict[str, Any], seen_at: datetime | None) -> dict[str, Any]:
    """A stored version for reading: the keys in reading order, the empty optional ones
    left out (``fileformat.OPTIONAL`` puts them back)."""
    merged = {"seen_at": seen_at.isoformat() if seen_at else None, **post}
    if seen_at is None:
        merged.pop("seen_at")
    for key, empty in OPTIONAL.items():
        if key in merged and merged[key] == empty:
            del merged[key]
    ordered = {k: merged[k] for k in _VERSION_ORDER if k in merged}
    return {**ordered, **{k: v for k, v in merged.items() if k not in ordered}}


def _post(h: PostHistory, role: str, reads: list[PageFetch]) -> dict[str, Any]:
    seen = [_version(h.first, h.first_seen_at)] + [_version(v, at) for at, v in h.later]
    last = h.later[-1][1] if h.later else h.first
    latest = h.latest
    return {
        "pid": h.pid,
        "tid": h.tid,
        "thread": role,
        "floor": latest.get("floor"),
        "author": latest.get("author"),
        "uid": latest.get("author_uid"),
        "posted_at": latest.get("posted_at"),
        "time_precision": latest.get("time_precision"),
        "versions_seen": len(seen),
        "edited_before_first_seen": h.first.get("edited_at") is not None,
        "first_seen_at": h.first_seen_at.isoformat(),
        "latest_seen_at": h.latest_seen_at.isoformat() if h.latest_seen_at else None,
        "fetched": _fetched(reads),
        "seen": seen,
        "latest": None if latest == last else _version(latest, None),
    }


def _fetched(reads: list[PageFetch]) -> dict[str, Any] | None:
    if not reads:
        return None  # stored before reads were recorded (schema v5)
    first, last = reads[0], reads[-1]
    return {
        "first": first.started_at.isoformat(),
        "last": (last.repeat_until or last.ended_at).isoformat(),
        "times": sum(f.times for f in reads),
        "reads": [f.id for f in reads],
    }


def _fetch(f: PageFetch) -> dict[str, Any]:
    return {
        "id": f.id, "kind": f.kind, "pages": [f.first_page, f.last_page], "total_pages": f.total_pages,
        "started_at": f.started_at.isoformat(), "ended_at": f.ended_at.isoformat(),
        "repeat_until": f.repeat_until.isoformat() if f.repeat_until else None, "times": f.times,
        "new": list(f.new_pids), "edited": list(f.edited_pids), "pids": list(f.pids),
    }
