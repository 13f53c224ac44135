"""Which game and which state the bot's posts on the forum belong to, and what the bot does
when they are not this state's.

Every post the bot sends carries a marker naming the game (the hash of ``game_key``: the
threads of the game's first day, so a new database or a copied config for the same game
has the same), the state (the store's random ``state_id``), the draft, and the post's
kind and day (``forumbot.marker``). Each pass, after reading, the agent surveys the bot
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
again: adopting records the other state's posts as published drafts of this state
(``take_over``), and before drafting a final count or an announcement the agent looks
whether one of this game is on the forum already (``posted_elsewhere``).
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

from forumbot.marker import Marker, game_hash, read_marker
from forumbot.store.identity import FOREIGN_GAME, STATE_CONFLICT

if TYPE_CHECKING:  # pragma: no cover
    from forumbot.config import GameConfig
    from forumbot.runtime import Runtime
    from forumbot.store import Store

log = logging.getLogger("forumbot.identity")

__all__ = [
    "Found", "Origin", "Survey", "absorb", "adopt", "game_hash_for", "game_key", "mark_copy", "posted_elsewhere",
    "settle_alarms", "survey", "take_over",
]

# What a legacy marker's post is, read from its title (it names no kind or day).
_LEGACY_TITLES = (
    (re.compile(r"【(?:更正·)?最终计票】\s*第(\d+)日"), "final_count"),
    (re.compile(r"【公示】\s*第(\d+)日"), "announcement"),
)
ROLE_ZH = {"vote": "投票帖", "discussion": "讨论帖", "progress": "进程帖"}
KIND_SHORT = {"final_count": "最终计票", "announcement": "公示", "running_count": "计票",
              "count_reply": "计票回复", "card_notice": "判罚通知", "acceleration_notice": "加速通知",
              "badge_notice": "警徽通知"}


def game_key(config: GameConfig) -> str | None:
    """What names a game on its forum: the threads of its first day (the day with the
    lowest number), sorted. None for a config with no threads. Later days may be added to
    a running game without changing it; changing the first day's threads makes it another
    game (its earlier posts are then another game's)."""
    days = sorted(config.days, key=lambda d: d.number)
    for day in days:
        tids = sorted(day.threads())
        if tids:
            return "threads:" + ",".join(str(t) for t in tids)
    return None


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


def take_over(rt: Runtime, found: list[Found], now: datetime, *, actor: str,
              warnings: list[str] | None = None) -> list[int]:
    """Record adopted posts as published drafts of this state, oldest first: a final
    count or announcement under its day's next numbered key, a 计票 answer under the key
    of the request it quotes, the rest without a key. Posts whose kind is unknown (a
    legacy post with no title the bot knows) are left as they are. Returns the new draft
    ids."""
    from forumbot.announce import numbered_drafts, numbered_key

    outbox = rt.outbox
    made: list[int] = []
    warnings = warnings if warnings is not None else []
    known = {r["marker"] for r in rt.store.db.query("SELECT marker FROM outbox")}
    for f in sorted(found, key=lambda f: f.pid):
        if f.kind is None or f.marker.text in known:
            continue
        key = None
        if f.kind in ("final_count", "announcement") and f.day is not None:
            key = numbered_key(f.kind, f.day, len(numbered_drafts(outbox, f.kind, f.day)) + 1)
        elif f.kind == "count_reply" and f.quoted is not None:
            key = f"count_reply:{f.quoted}"
            if outbox.by_dedupe_key(key) is not None:
                key = None  # answered here too: kept, without the key
        draft = outbox.record_found(f.kind, f.tid, f.pid, marker=f.marker.text, body=f.text, day=f.day,
                                    dedupe_key=key, posted_at=f.posted_at, now=now, actor=actor)
        known.add(f.marker.text)
        made.append(draft.id)
        if f.kind == "final_count" and f.day is not None:
            warning = _final_taken_over(rt, draft.id, f, now)
            if warning is not None:
                warnings.append(warning)
    return made


def _final_taken_over(rt: Runtime, draft_id: int, found: Found, now: datetime) -> str | None:
    """What a final count taken over decides: the day's result as this state tallies it
    (its posts read again), which becomes game state like any approved count's. The
    forum's post says its own result (「结果：…」); when it says another — the lost
    database held events this one lacks (a void, an alias) — a warning for the director
    (returned, and audited)."""
    from forumbot.views import tally_digest  # what a count shows, hashed
    from forumbot.views import result_line

    day = found.day
    assert day is not None
    snap = rt.store.tally(day)
    if snap is None:
        return None  # not tallied here yet: the day's last tally is taken when it is (announce.final_result)
    result = snap.data.get("result") or {}
    ours = result_line(result, day)
    shown = re.search(r"结果：\s*(.+)", found.text)
    theirs = shown.group(1).strip() if shown else None
    rt.store.set_meta(f"final_result:{draft_id}", json.dumps(result, ensure_ascii=False))
    if ours is not None and theirs == ours:
        rt.store.set_meta(f"final_count_tally:day{day}", tally_digest(snap.data))
        return None
    warning = (f"接管的第{day}日最终计票（pid {found.pid}）写的结果是「{theirs or '（没有结果行）'}」，这份状态重新计票得出"
               f"「{ours or '无结果'}」（记为当日结果）：旧数据库里录入的事件（判废、别名、替补、加速等）可能还没重新录入。"
               f"请补录后用 `forumbot tally --day {day}` 核对；若论坛上那篇本来就错了，用 `forumbot redraft --day {day}` 发更正")
    rt.store.audit("bot", "identity.final_differs", {"draft": draft_id, "day": day, "forum": theirs, "tally": ours},
                   at=now)
    return warning


def absorb(rt: Runtime, found: Survey, now: datetime) -> list[int]:
    """Each pass, after the alarms: posts of adopted states that appeared since (a post a
    moderator released late, a thread read later) are taken over too, and a final count
    or announcement of this state still waiting for the same day is rejected — the
    forum has that day's already. Returns the drafts rejected."""
    from forumbot.announce import WAITING, numbered_drafts

    fresh = [f for f in found.of(Origin.ADOPTED)]
    if not fresh:
        return []
    warnings: list[str] = []
    rejected: list[int] = []
    with rt.store.write():
        take_over(rt, fresh, now, actor="bot", warnings=warnings)
        for kind, day in sorted({(f.kind, f.day) for f in fresh
                                 if f.kind in ("final_count", "announcement") and f.day is not None}):
            for draft in numbered_drafts(rt.outbox, kind, day):
                if draft.state in WAITING:
                    rt.outbox.reject(draft.id, "bot", f"论坛上已有第{day}日的{KIND_SHORT[kind]}"
                                     "（已接管的另一份状态发的），这篇不再发出", now=now)
                    rejected.append(draft.id)
        if any(f.kind == "final_count" for f in fresh):
            from forumbot.gamelog import settle_result

            for day in sorted({f.day for f in fresh if f.kind == "final_count" and f.day is not None}):
                settle_result(rt, day, now)
    for warning in warnings:
        log.warning("%s", warning)
    for draft_id in rejected:
        log.warning("草稿 #%d 不再发出：论坛上已有同一日的同一篇（已接管的另一份状态发的）", draft_id)
    return rejected


def posted_elsewhere(rt: Runtime, kind: str, day: int, now: datetime) -> bool:
    """Is a ``kind`` for ``day`` of this game on the forum that this state did not send?
    Adopted ones are recorded as this state's (``take_over``) and then stand like its
    own; undecided ones stop the drafting too (the alarm is up). Another game's do not
    count."""
    found = [f for f in survey(rt).found if f.kind == kind and f.day == day
             and f.origin in (Origin.ADOPTED, *UNDECIDED)]
    if not found:
        return False
    warnings: list[str] = []
    take_over(rt, [f for f in found if f.origin is Origin.ADOPTED], now, actor="bot", warnings=warnings)
    for warning in warnings:
        log.warning("%s", warning)
    return True


@dataclass(frozen=True)
class Adopted:
    states: tuple[str, ...]
    posts: int
    drafts: tuple[int, ...]  # the published drafts recorded for them
    renewed: str | None  # this state's new id, when its old one was among them
    notable: tuple[str, ...]  # 第1日最终计票…
    warnings: tuple[str, ...] = ()  # a final count taken over that says another result


def adopt(rt: Runtime, now: datetime, *, actor: str) -> Adopted:
    """The director: the other states' posts in this game's threads are this game's
    history (the database they came from is lost). Recorded, the alarm cleared; the
    agent's next pass goes on from there."""
    from forumbot.director import DirectorError

    store = rt.store
    with store.write():
        before = survey(rt)
        undecided = before.undecided
        if not undecided:
            raise DirectorError("没有需要接管的帖子：论坛上本局的帖子都是这份状态自己发的（或已经接管过）")
        old_state = store.state_id
        states = before.writers(*UNDECIDED)
        store.adopt_states(states, actor=actor, at=now)
        after = survey(rt)
        taken = [f for f in after.of(Origin.ADOPTED) if f.pid in {u.pid for u in undecided}]
        warnings: list[str] = []
        drafts = take_over(rt, taken, now, actor=actor, warnings=warnings)
        store.clear_alarm(STATE_CONFLICT, at=now, actor=actor, detail={"adopted": states})
        # A day whose final count is taken over is over here too: its result becomes game
        # state now (the agent no longer decides a day whose final count is published).
        from forumbot.gamelog import settle_result

        for day in sorted({f.day for f in taken if f.kind == "final_count" and f.day is not None}):
            settle_result(rt, day, now)
    renewed = store.state_id if store.state_id != old_state else None
    notable = tuple(dict.fromkeys(f.what for f in taken if f.kind in ("final_count", "announcement")))
    return Adopted(tuple(states), len(undecided), tuple(drafts), renewed, notable, tuple(warnings))


def mark_copy(rt: Runtime, now: datetime, *, actor: str) -> tuple[str, ...]:
    """The director: this config is a copy; the other states' posts are another live
    agent's. Nothing is taken over; the alarm stays (saying so) until the config is fixed."""
    from forumbot.director import DirectorError

    store = rt.store
    with store.write():
        found = survey(rt)
        states = found.writers(Origin.OTHER_STATE)
        if not states:
            if found.of(Origin.COPY):
                raise DirectorError("已经确认过这份配置是副本：请改正它的 [agent].database 或各日的帖子号后重启机器人")
            raise DirectorError("论坛上没有本局另一份状态的帖子：没有什么需要确认")
        store.mark_copy(states, actor=actor, at=now)
    settle_alarms(rt, now)  # the alarm's text now says it is a copy
    return tuple(states)
