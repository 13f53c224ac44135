"""Which game and which state the bot's posts on the forum belong to, and what the bot does
when they are not this state's.

Every post the bot sends carries a marker naming the game (the hash of ``game_key``: the
threads of the game's first day, so a new database or a copied config for the same game
has the same), the state (the store's random ``state_id``), the draft, and the post's
kind and day (``forumbot.store.marker``). Each pass, after reading, the agent surveys the bot
account's own marked posts in the game's threads (``survey``) and sorts each:

=============  ==========================================================================
origin         what it is
=============  ==========================================================================
own            this state sent it (its outbox has the marker, for that post)
adopted        another state's, that the director took over (``adopt``)
other_state    this game's, from another state the director has not decided on: the
               database was lost (or restored from an older copy) and this one replaced
               it, or this config is a copy of one another agent runs
copy           another state's that the director called a live copy's (``mark_copy``)
other_game     another game's (another game hash): the config points at its thread
=============  ==========================================================================

Only the bot account's posts count: anyone can type a marker, and a player must not be
able to stop the bot (or make it skip a final count) by pasting one.

``other_state`` or ``copy`` posts stop the whole game posting — and drafting: the state
does not know what the other has posted — with the alarm ``state_conflict``, until they
are adopted (or the config no longer points at them). ``other_game`` posts stop posting in
that thread (``foreign_game:<tid>``). The outbox refuses to send meanwhile
(``Store.posting_block``). The texts say what happened and which command settles it.

A final count, an announcement or a 计票 answer already on the forum is never drafted
again: adopting records the other state's posts as published drafts of this state, and
before drafting a final count or an announcement the agent looks whether one of this game
is on the forum already — what the director decides and what it writes is
``forumbot.game.takeover`` (``adopt``, ``mark_copy``, ``take_over``, ``posted_elsewhere``).
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from forumbot.config.gamefile import game_key
from forumbot.store.marker import Marker, game_hash, read_marker
from forumbot.store.identity import FOREIGN_GAME, STATE_CONFLICT

if TYPE_CHECKING:  # pragma: no cover
    from forumbot.config.gamefile import GameConfig
    from forumbot.game.runtime import Runtime
    from forumbot.store import Store

log = logging.getLogger("forumbot.identity")

__all__ = [
    "Found", "Origin", "Survey", "UNDECIDED", "basis", "game_hash_for", "game_threads", "settle_alarms", "survey",
]

# What a legacy marker's post is, read from its title (it names no kind or day).
_LEGACY_TITLES = (
    (re.compile(r"【(?:更正·)?最终计票】\s*第(\d+)日"), "final_count"),
    (re.compile(r"【公示】\s*第(\d+)日"), "announcement"),
)
ROLE_ZH = {"vote": "投票帖", "discussion": "讨论帖", "progress": "进程帖"}
KIND_SHORT = {"final_count": "最终计票", "announcement": "公示", "running_count": "计票",
              "count_reply": "计票回复", "card_notice": "判罚通知", "acceleration_notice": "加速通知",
              "badge_notice": "警徽通知", "reminder": "截止提醒", "closing": "截止帖"}


def game_hash_for(config: GameConfig, store: Store) -> str:
    """The game's hash the markers carry (the store's own key when the config names no
    thread: such a game posts nothing)."""
    return game_hash(game_key(config) or store.game_key)


class Origin(StrEnum):
    OWN = "own"
    ADOPTED = "adopted"
    OTHER_STATE = "other_state"
    COPY = "copy"
    OTHER_GAME = "other_game"


UNDECIDED = (Origin.OTHER_STATE, Origin.COPY)


@dataclass(frozen=True)
class Found:
    """One marked post of the bot account in the game's threads."""

    pid: int
    tid: int
    marker: Marker
    origin: Origin
    kind: str | None  # a DraftKind value (None: a legacy post whose title names none)
    day: int | None
    posted_at: datetime
    text: str
    quoted: int | None = None  # the pid it quotes (a 计票 answer quotes the request)

    @property
    def what(self) -> str:
        kind = KIND_SHORT.get(self.kind or "", "帖子")
        return f"第{self.day}日{kind}" if self.day is not None else kind


@dataclass
class Survey:
    game: str  # this game's hash
    state: str  # this state's id
    found: list[Found] = field(default_factory=list)

    def of(self, *origins: Origin) -> list[Found]:
        return [f for f in self.found if f.origin in origins]

    @property
    def undecided(self) -> list[Found]:
        return self.of(*UNDECIDED)

    def writers(self, *origins: Origin) -> list[str]:
        return sorted({f.marker.writer for f in self.of(*origins)})

    def foreign_tids(self) -> dict[int, list[Found]]:
        by_tid: dict[int, list[Found]] = {}
        for f in self.of(Origin.OTHER_GAME):
            by_tid.setdefault(f.tid, []).append(f)
        return by_tid


def _is_bot(author: str | None, username: str) -> bool:
    return author is not None and unicodedata.normalize("NFKC", author) == unicodedata.normalize("NFKC", username)


def game_threads(config: GameConfig) -> dict[int, tuple[int, str]]:
    """tid → (the first day it belongs to, its role there)."""
    out: dict[int, tuple[int, str]] = {}
    for day in sorted(config.days, key=lambda d: d.number):
        for tid, role in day.threads().items():
            out.setdefault(tid, (day.number, role))
    return out


def basis(store: Store) -> tuple:
    """What a survey depends on, cheaply (a few indexed lookups): the posts seen and their
    versions, the outbox's changes, the state's id and the director's decisions, the
    identity alarms. Equal bases: the survey and its alarms would come out the same."""
    return tuple(store.db.execute(
        "SELECT (SELECT COUNT(*) || ':' || IFNULL(MAX(pid), 0) FROM posts), (SELECT MAX(id) FROM post_versions),"
        " (SELECT MAX(id) FROM outbox_history),"
        " (SELECT group_concat(key || '=' || value, ';') FROM meta WHERE key IN ('state_id', 'identity:adopted',"
        "   'identity:copy')),"
        " (SELECT COUNT(*) || ':' || IFNULL(MAX(id), 0) FROM alarms WHERE cleared_at IS NULL AND kind IN (?, ?))",
        (STATE_CONFLICT, FOREIGN_GAME)).fetchone())


def survey(rt: Runtime) -> Survey:
    """Every marked post of the bot account in the game's threads, as the store holds them
    (latest version), sorted by origin (the module's table)."""
    store = rt.store
    result = Survey(rt.outbox.game, store.state_id)
    tids = sorted(game_threads(rt.config))
    if not tids:
        return result
    username = rt.settings.bot.username
    rows = list(store.db.query(
        f"SELECT pid, tid, author, latest_json FROM posts WHERE tid IN ({', '.join('?' * len(tids))})"
        " AND (latest_json LIKE '%机器人标记%' OR latest_json LIKE '%forumbot:fb-%') ORDER BY pid", tids))
    if not rows:
        return result
    drafts = {r["marker"]: r for r in store.db.query(
        "SELECT id, marker, pid, attempts, state, kind, day FROM outbox")}
    adopted, copies = store.adopted_states(), store.copy_states()
    for row in rows:
        if not _is_bot(row["author"], username):
            continue
        data = json.loads(row["latest_json"])
        text = data.get("text") or ""
        marker = read_marker(text)
        if marker is None:
            continue
        draft = drafts.get(marker.text)
        kind, day = marker.kind, marker.day
        if draft is not None:
            kind, day = draft["kind"], draft["day"]
        elif marker.legacy:
            kind, day = _legacy_kind(text)
        quotes = data.get("quotes") or []
        quoted = next((q.get("pid") for q in quotes if isinstance(q, dict) and q.get("pid")), None)
        origin = _origin(marker, draft, row["pid"], result.game, adopted, copies)
        result.found.append(Found(row["pid"], row["tid"], marker, origin, kind, day,
                                  datetime.fromisoformat(data["posted_at"]), text, quoted))
    return result


def _origin(marker: Marker, draft: dict[str, Any] | None, pid: int, game: str, adopted: dict,
            copies: dict) -> Origin:
    if draft is not None:
        # This state's marker. It is this state's post if it is the post the draft went
        # out as, or the draft was sent and the forum did not name a pid (an interrupted
        # send, a post held without one). A marker of a draft never sent, or on another
        # post than the draft's, was written by an older copy of this very state (the file
        # was restored from a backup): not this state's record.
        if draft["pid"] == pid or (draft["pid"] is None and (draft["attempts"] or 0) > 0):
            return Origin.OWN
    elif not marker.legacy and marker.game != game:
        return Origin.OTHER_GAME
    # A legacy marker's hash names the state that wrote it, not a game (the two were one
    # before schema 9): one this state has no row for is another state's, of this game or
    # not — the director, who knows, decides.
    writer = marker.writer
    if writer in adopted:
        return Origin.ADOPTED
    if writer in copies:
        return Origin.COPY
    return Origin.OTHER_STATE


def _legacy_kind(text: str) -> tuple[str | None, int | None]:
    for pattern, kind in _LEGACY_TITLES:
        m = pattern.search(text)
        if m is not None:
            return kind, int(m.group(1))
    return None, None


# ---------------------------------------------------------------- the alarms


def _short(at: datetime) -> str:
    return at.strftime("%m-%d %H:%M")


def _summary(found: list[Found], config: GameConfig) -> str:
    threads = game_threads(config)
    by_tid = Counter(f.tid for f in found)
    where = "、".join(
        f"主题 {tid}（第{threads[tid][0]}日{ROLE_ZH.get(threads[tid][1], '帖子')}）{n} 帖" if tid in threads
        else f"主题 {tid} {n} 帖" for tid, n in sorted(by_tid.items()))
    notable = [f.what for f in found if f.kind in ("final_count", "announcement")]
    states = sorted({f.marker.writer for f in found})
    named = "、".join(s.removeprefix("old:") + ("（旧版）" if s.startswith("old:") else "") for s in states)
    last = max(found, key=lambda f: f.pid)
    tail = f"，其中有{'、'.join(dict.fromkeys(notable))}" if notable else ""
    return f"状态 {named} 在{where}{tail}；最近一帖 {_short(last.posted_at)}（pid {last.pid}）"


def conflict_text(rt: Runtime, found: list[Found]) -> str:
    cfg = rt.config.path
    db = rt.settings.agent.database
    copies = rt.store.copy_states()
    writers = {f.marker.writer for f in found}
    if writers and writers <= set(copies):
        since = min(copies[w]["at"] for w in writers)
        return (f"导演已确认这份配置是副本（{since[:16].replace('T', ' ')}）：论坛上本局的帖子是另一个状态发的"
                f"（{_summary(found, rt.config)}）。本局在改正配置之前不发帖（照常读帖、计票）：请把 "
                f"`[agent].database` 改回原来的数据库，或把各日的帖子号改成这局自己的，然后重启机器人。"
                f"若其实原来的数据库已经丢失、要由这份接着主持：`forumbot adopt --config {cfg}`")
    return (f"论坛上有本局另一份状态发的帖子，这份状态（{rt.store.state_id}，数据库 {db}）没有它们的记录："
            f"{_summary(found, rt.config)}。可能是原来的数据库丢失、被删或换成了旧备份，这份是后来的；"
            "也可能这份配置是另一个正在运行的机器人的配置副本（只改了 `[agent].database`）。为免同一篇帖子发两次，"
            "本局暂停发帖、不再起草（照常读帖、计票）。若原来的数据库确已丢失、由这份接着主持："
            f"`forumbot adopt --config {cfg}`（论坛上已有的最终计票、公示和计票回复不会再发；导演录入过的事件——"
            "夜晚结果、判废、别名、判罚等——在旧数据库里，请重新录入）。若这是副本："
            f"`forumbot mark-copy --config {cfg}`，然后改正它的 `[agent].database` 或各日的帖子号")


def foreign_text(rt: Runtime, tid: int, found: list[Found], ours: str) -> str:
    threads = game_threads(rt.config)
    day, role = threads.get(tid, (None, None))
    as_what = f"第{day}日的{ROLE_ZH.get(role or '', '帖子')}" if day is not None else "本局的帖子"
    games = "、".join(sorted({f.marker.game for f in found}))
    return (f"主题 {tid} 里有另一局的机器人帖子（那一局的标识 {games}，本局是 {ours}；共 {len(found)} 帖，"
            f"最近一帖 {_short(max(found, key=lambda f: f.pid).posted_at)}）：这份配置把它当作{as_what}。"
            f"多半是从别的局复制配置时没有改这个帖子号。为免发进别人的帖子，机器人不在主题 {tid} 发帖。"
            f"请改正配置 {rt.config.path} 里的帖子号后重启机器人；两局不能共用一个帖子")


def settle_alarms(rt: Runtime, now: datetime) -> Survey:
    """Raise or clear the alarms for what the game's threads hold (after each read), in
    one transaction: a director's ``adopt`` lands wholly before or wholly after it."""
    store = rt.store
    with store.write():
        found = survey(rt)
        undecided = found.undecided
        if undecided:
            store.raise_alarm(STATE_CONFLICT, STATE_CONFLICT, conflict_text(rt, undecided), at=now, detail={
                "states": found.writers(*UNDECIDED), "tids": sorted({f.tid for f in undecided}),
                "posts": len(undecided), "state": found.state,
                "copy": all(f.origin is Origin.COPY for f in undecided)})
        else:
            store.clear_alarm(STATE_CONFLICT, at=now, detail={"settled": "no_undecided_posts"})
        foreign = found.foreign_tids()
        for tid, posts in foreign.items():
            store.raise_alarm(FOREIGN_GAME, f"{FOREIGN_GAME}:{tid}", foreign_text(rt, tid, posts, found.game),
                              at=now, detail={"tid": tid, "games": sorted({f.marker.game for f in posts}),
                                              "posts": len(posts)})
        for alarm in store.alarms(kind=FOREIGN_GAME):
            if alarm.detail.get("tid") not in foreign:
                store.clear_alarm(alarm.key, at=now, detail={"settled": "no_foreign_posts"})
    return found


# ---------------------------------------------------------------- taking over
