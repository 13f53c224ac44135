"""What the desk's pages show, read through the same library calls as the CLI.

Nothing here writes: a page view never changes the game (``director.retally`` saves and
audits, so the tally page recomputes the way ``director.status`` does instead).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from engine.activity import post_counts
from engine.calendar import when_zh
from engine.cards import Standing
from engine.reasons import describe_zh
from engine.state import GameState, StateError
from forumbot.game import director
from forumbot.game import gamelog
from forumbot import wording as texts
from forumbot.desk.bbcode import bbcode_to_html
from forumbot.game.ending import GameOver, game_over
from forumbot.wording import FLAG_ZH, Said, actor_zh, clean, forum_error, hm, kind_zh, state_zh
from forumbot.game.state import ballots_for, count_day, current_state, thread_roles
from forumbot.agent.instance import Holder, lock_path, probe
from forumbot.store.outbox import Draft, DraftState
from forumbot.game.render import post_links, post_path, thread_path
from forumbot.game.runtime import Runtime
from forumbot.store.records import CardProposal, ProposalState
from forumbot.game.views import decided_text, format_left, format_time

# Kinds whose body the bot renders again when it publishes (the tally then, the time left
# then) unless the director edited the words.
RENDERED_AT_PUBLISH = ("running_count", "count_reply")


def forum_root(rt: Runtime) -> str:
    base = rt.config.forum.base_url or ""
    return base if not base or base.endswith("/") else base + "/"


def floor_link(rt: Runtime, tid: int | None, pid: int | None) -> str | None:
    """The forum's own link to a post (``findpost`` follows the pid to its floor), in the
    scheme of the forum's generation (7.2 has no forum.php)."""
    if not tid or not pid or not forum_root(rt):
        return None
    return forum_root(rt) + post_path(post_links(rt.env).generation, tid, pid)


def thread_link(rt: Runtime, tid: int | None) -> str | None:
    if not tid or not forum_root(rt):
        return None
    return forum_root(rt) + thread_path(post_links(rt.env).generation, tid)


# ---------------------------------------------------------------- the agent's health


@dataclass(frozen=True)
class AgentHealth:
    """What ``forumbot.agent.instance`` says about the agent of this game, for the director."""

    running: bool
    headline: str  # one line
    problems: tuple[str, ...]  # 状态无法保存…, the agent's desk not served…
    last_pass: str | None
    stale: bool  # running, but its last pass is long ago
    desk: str | None  # the agent's own desk: its address, or why it is not served
    config_path: str

    @property
    def alarm(self) -> bool:
        return not self.running or self.stale or bool(self.problems)


def _parse(iso: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(iso) if iso else None
    except ValueError:
        return None


def agent_health(rt: Runtime, now: datetime) -> AgentHealth:
    holder: Holder | None = probe(lock_path(rt.settings.agent.database))
    config = str(rt.config.path)
    if holder is None:
        return AgentHealth(False, "代理程序从未在这局游戏上运行过：没有人读帖、计票或发帖", (), None, False, None, config)
    beat = _parse(holder.beat)
    last = hm(beat) if beat else None
    if not holder.running:
        since = f"（上一轮在 {last}）" if last else ""
        return AgentHealth(False, f"代理程序没有在运行{since}：现在没有人读帖、计票或发帖", (), last, False,
                           None, config)
    problems = tuple(clean(p.get("message", "")) + (f"（自 {hm(_parse(p.get('since')))} 起）" if p.get("since") else "")
                     for p in holder.problems.values() if p.get("message"))
    desk = holder.desk or {}
    desk_text = None
    if desk.get("error"):
        problems += (f"代理程序自己的导演台未开启：{clean(desk['error'])}",)
    elif desk.get("url"):
        desk_text = str(desk["url"])
    interval = timedelta(seconds=max(rt.settings.agent.poll_interval_seconds * 3, 300))
    stale = beat is not None and now - beat > interval
    who = f"pid {holder.pid}" + (f"，主机 {holder.host}" if holder.host else "")
    since = f"，自 {hm(_parse(holder.since))} 起" if holder.since else ""
    pass_text = f"，最后一轮 {last}" if last else "，正在进行第一轮"
    headline = f"代理程序运行中（{who}{since}{pass_text}）"
    if stale:
        headline += f"：但最后一轮已是 {int((now - beat).total_seconds() // 60)} 分钟前"  # type: ignore[operator]
    return AgentHealth(True, headline, problems, last, stale, desk_text, config)


# ---------------------------------------------------------------- waiting for the director


@dataclass(frozen=True)
class WaitItem:
    text: str
    href: str
    css: str = ""  # "" | "error" | "info"


@dataclass(frozen=True)
class StalePost:
    draft: Draft
    text: str
    final: bool  # a final count: the desk drafts its correction (redraft_final)


@dataclass(frozen=True)
class Banner:
    over: GameOver | None
    health: AgentHealth
    waiting: tuple[WaitItem, ...]
    stale: tuple[StalePost, ...]


def stale_published(rt: Runtime) -> list[StalePost]:
    """Published posts a later change made wrong (never edited: the director decides)."""
    posts = []
    for d in rt.outbox.drafts(DraftState.PUBLISHED):
        if not rt.store.get_meta(f"stale_published:{d.id}"):
            continue
        what = kind_zh(d.kind) + (f"（第{d.day}日）" if d.day else "")
        where = f"pid {d.pid}" if d.pid else "论坛审核中"
        final = d.kind.value == "final_count"
        fix = "可以起草一篇更正的最终计票" if final else "请决定是否另发更正"
        posts.append(StalePost(d, f"已发布的{what} #{d.id}（{where}）已不正确：机器人不会改动它，{fix}", final))
    return posts


def _link_for(line: str, urls: dict[str, str]) -> str:
    if "前夜" in line:
        return urls["night"]
    if "警长" in line or "警徽" in line:
        return urls["sheriff"]
    return urls["drafts"]


def banner(rt: Runtime, status: director.Status, state: GameState, now: datetime, urls: dict[str, str]) -> Banner:
    """The "waiting for the director" banner every page shows, the game's end, the agent."""
    over = game_over(rt, state)
    items: list[WaitItem] = []
    for line in status.waiting_for:
        if over is not None and ("前夜" in line or "警长" in line):
            continue  # no next day to wait for
        items.append(WaitItem(clean(line), _link_for(line, urls)))
    waiting = [d for d in status.drafts_waiting if not any(f"#{d.id} " in i.text for i in items)]
    if waiting:
        items.append(WaitItem(f"{len(status.drafts_waiting)} 篇帖子待审批", urls["drafts"]))
    if status.failed:
        items.append(WaitItem(f"{len(status.failed)} 篇帖子发送失败", urls["drafts"], "error"))
    if status.proposals:
        items.append(WaitItem(f"{len(status.proposals)} 条判罚提议", urls["cards"]))
    if status.acceleration is not None and status.acceleration.enough and not _accelerated(state, status):
        items.append(WaitItem(f"第{status.acceleration.day}日的加速申请已达到人数：请决定是否确认加速", urls["accelerate"]))
    stale = stale_published(rt)
    for post in stale:
        items.append(WaitItem(post.text, urls["stale"], "error"))
    for line in status.ignored:
        items.append(WaitItem(f"未生效的事件：{clean(line)}", urls["events"], "info"))
    moderated = [d for d in rt.outbox.drafts() if _moderated(d)]
    if moderated:
        items.append(WaitItem(f"{len(moderated)} 篇帖子在论坛审核中（版主通过后才可见）", urls["drafts"], "info"))
    return Banner(over, agent_health(rt, now), tuple(items), tuple(stale))


def _accelerated(state: GameState, status: director.Status) -> bool:
    """Whether today is accelerated: ``state.day`` knows the acceleration events, the
    windows in ``state.days`` (and so ``status.day``) do not."""
    return status.day is not None and state.day(status.day.number).accelerated


def _moderated(d: Draft) -> bool:
    # Published without a pid: a held post recorded before the pending_moderation state.
    return d.state is DraftState.PENDING_MODERATION or (d.state is DraftState.PUBLISHED and d.pid is None)


# ---------------------------------------------------------------- the game now


@dataclass(frozen=True)
class GameNow:
    status: director.Status
    state: GameState
    living: tuple[str, ...]
    last_poll: datetime | None
    badge_text: str = ""
    accelerated: bool = False
    acceleration_text: str | None = None
    lives: tuple[str, ...] = ()  # 双身份: who has one identity left

    @property
    def day_number(self) -> int | None:
        return self.status.day.number if self.status.day else None


def game_now(rt: Runtime, now: datetime, status: director.Status | None = None,
             state: GameState | None = None) -> GameNow:
    status = status or director.status(rt, now)
    state = state or current_state(rt.config, rt.store)
    polls = [c.updated_at for tid in thread_roles(state) if (c := rt.store.cursor(tid)) is not None]
    badge = clean(status.badge.describe(now)) if status.badge else f"警长：{status.sheriff or '无'}"
    accelerated = _accelerated(state, status)
    acceleration = clean(status.acceleration.describe()) if status.acceleration and status.acceleration.requests \
        and not accelerated else None
    return GameNow(status=status, state=state, living=state.living(now), last_poll=max(polls, default=None),
                   badge_text=badge, accelerated=accelerated, acceleration_text=acceleration,
                   lives=tuple(p for p, _ in status.lives))


# ---------------------------------------------------------------- tally


def day_numbers(rt: Runtime) -> list[int]:
    return sorted(d.number for d in current_state(rt.config, rt.store).days)


def day_tally(rt: Runtime, number: int) -> dict[str, Any]:
    """The SPEC §7 tally of one day, recomputed from the stored posts (not saved)."""
    try:
        data = count_day(rt.config, rt.store, number).data
    except StateError as exc:
        raise LookupError(str(exc)) from None
    tid = data.get("vote_thread")
    window = rt.config.rules.change_window_minutes
    for vote in data["votes"]:
        vote["link"] = floor_link(rt, tid, vote.get("pid"))
        vote["reason_zh"] = None if vote["valid"] else describe_zh(vote["reason"], change_window_minutes=window)
        vote["ruling_zh"] = director.describe_vote(vote, window)
    for event in data["timeline"]:
        event["link"] = floor_link(rt, tid, event.get("pid"))
    for flag in data["flags"]:
        flag["link"] = floor_link(rt, flag.get("tid") or tid, flag.get("pid"))
        flag["kind_zh"] = FLAG_ZH.get(flag["kind"], "提醒")
    # Posts by the director, the bot or other non-players (the rules post quotes the
    # format) are not votes: left out of the table, as the CLI does.
    data["shown_votes"] = [v for v in data["votes"] if v.get("reason") != "voter_not_player"]
    data["dropped"] = [v for v in data["votes"] if v.get("final") and v.get("valid") and v.get("counted") is False]
    data["thread_link"] = thread_link(rt, tid)
    data["rule_zh"] = clean(decided_text(data.get("result")))
    # 「最先达到」: the timeline row where each candidate's last stretch at its final count began.
    reaches: dict[int, list[str]] = {}
    for player, index in (data.get("reached") or {}).items():
        reaches.setdefault(int(index), []).append(player)
    for event in data["timeline"]:
        event["reaches"] = [(p, data["counts"].get(p, 0)) for p in reaches.get(int(event["index"]), [])]
    return data


# ---------------------------------------------------------------- activity


def activity(rt: Runtime) -> dict[int, dict[str, dict[str, int]]]:
    """Day → player → thread role → posts that day (``engine.activity.post_counts``)."""
    state = current_state(rt.config, rt.store)
    ballots = ballots_for(rt.store, thread_roles(state).items())
    return post_counts(ballots, state).by_day


# ---------------------------------------------------------------- cards


@dataclass(frozen=True)
class CardsView:
    proposals: list[CardProposal]
    decided: list[CardProposal]
    ledger: list[Any]
    standings: dict[str, Standing]
    players: tuple[str, ...]


def cards(rt: Runtime) -> CardsView:
    state = current_state(rt.config, rt.store)
    entries = rt.store.cards(include_retracted=True)  # taken back: shown struck through, with why
    ledger, _ = director.ledger(rt, state)
    standings = {p: ledger.standing(p) for p in dict.fromkeys(e.player for e in entries if e.standing)}
    every = rt.store.proposals()
    return CardsView(
        proposals=[p for p in every if p.state is ProposalState.PROPOSED],
        decided=[p for p in every if p.state is not ProposalState.PROPOSED][-20:],
        ledger=entries,
        standings=standings,
        players=tuple(p for p in state.players if not ledger.standing(p).sent_off),
    )


# ---------------------------------------------------------------- drafts


@dataclass(frozen=True)
class DraftView:
    draft: Draft
    preview: Any  # Markup
    diff: list[tuple[str, str]]  # (css class, line)
    link: str | None
    error: Said = Said("")

    @property
    def kind_zh(self) -> str:
        return kind_zh(self.draft.kind)

    @property
    def place(self) -> str:
        """Where it posts: 「帖子 T」, or a new thread's board and subject."""
        from forumbot.wording import draft_place_zh

        return draft_place_zh(self.draft) if self.draft.is_new_thread else f"帖子 {self.draft.tid}"

    @property
    def state_zh(self) -> str:
        if _moderated(self.draft):
            return "已提交，论坛审核中"
        return state_zh(self.draft.state)

    @property
    def rendered_at_publish(self) -> bool:
        """A count the bot renders again when it sends it — unless the words were edited."""
        return self.draft.kind.value in RENDERED_AT_PUBLISH

    @property
    def hand_edited(self) -> bool:
        from forumbot.store.outbox import hand_edited

        return hand_edited(self.draft)


def _diff(rt: Runtime, draft: Draft) -> list[tuple[str, str]]:
    """The draft against the last published post of its kind in its thread, with the
    labels in Chinese (the outbox's own diff labels itself in English)."""
    last = rt.outbox.last_published(draft.kind, draft.tid, excluding=draft.id)
    before = last.body if last else ""
    label = f"已发布 #{last.id}（pid {last.pid}）" if last else "（还没有发布过同类帖子）"
    lines = []
    for line in difflib.unified_diff(before.splitlines(), draft.body.splitlines(), fromfile=label,
                                     tofile=f"草稿 #{draft.id}", lineterm=""):
        css = "meta" if line.startswith(("---", "+++", "@@")) else {"+": "add", "-": "del"}.get(line[:1], "")
        lines.append((css, line))
    return lines


def draft_view(rt: Runtime, draft: Draft, *, with_diff: bool = True) -> DraftView:
    diff = _diff(rt, draft) if with_diff else []
    if draft.is_new_thread and draft.tid <= 0:
        link = None  # the thread is not on the forum yet
    else:
        link = floor_link(rt, draft.tid, draft.pid) if draft.pid else thread_link(rt, draft.tid)
    return DraftView(draft, bbcode_to_html(draft.body, base_url=forum_root(rt) or None), diff, link,
                     forum_error(draft.last_error))


@dataclass(frozen=True)
class DraftsView:
    waiting: list[DraftView]
    in_flight: list[DraftView]  # approved, publishing, failed, held for moderation
    recent: list[DraftView]  # the last published / rejected / superseded
    stale: list[StalePost] = field(default_factory=list)


def drafts(rt: Runtime) -> DraftsView:
    every = rt.outbox.drafts()
    waiting = [draft_view(rt, d) for d in every if d.state is DraftState.DRAFT]
    flight = [draft_view(rt, d, with_diff=False) for d in every
              if d.state.value in ("approved", "publishing", "failed", "pending_moderation")]
    done = [d for d in every if d.state.value in ("published", "rejected", "superseded")]
    recent = [draft_view(rt, d, with_diff=False) for d in sorted(done, key=lambda d: d.id)[-10:][::-1]]
    return DraftsView(waiting, flight, recent, stale_published(rt))


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class EventRow:
    view: gamelog.EventView
    kind_zh: str
    game_at: str
    entered: str
    who: str
    summary: str
    state: str
    retract_of: int | None  # a retraction: the event it takes back
    correctable: bool


CORRECTABLE = ("out", "identity_lost", "idiot", "sheriff", "scapegoat", "night", "voters", "accelerate")


def events(rt: Runtime) -> list[EventRow]:
    rows = []
    for v in reversed(director.list_events(rt)):
        retract_of = v.payload.get("event") if v.kind == "retract" else None
        if v.kind == "retract":
            state = f"生效：撤销了 #{retract_of}" if v.live else f"已取消（#{retract_of} 已恢复）"
        elif v.live:
            state = "生效"
        else:
            state = "已撤销" + (f"（见 #{v.taken_by}）" if v.taken_by else "")
        if v.corrects and v.kind != "night":
            state += f"；更正了 #{v.corrects}"
        rows.append(EventRow(
            view=v, kind_zh=texts.EVENT_KIND_ZH.get(v.kind, "事件"),
            game_at=hm(v.game_at) if v.game_at else "全局", entered=hm(v.entered_at), who=actor_zh(v.actor),
            summary=clean(v.summary), state=state, retract_of=retract_of,
            correctable=v.live and v.kind in CORRECTABLE,
        ))
    return rows


# ---------------------------------------------------------------- the audit log


@dataclass(frozen=True)
class LogRow:
    id: int
    at: str
    who: str
    sentence: str
    raw: str


def audit_tail(rt: Runtime, limit: int = 100) -> list[LogRow]:
    entries = rt.store.audit_log()[-limit:][::-1]
    ctx = texts.LogContext(events={v.id: v.summary for v in director.list_events(rt)},
                           drafts={d.id: d for d in rt.outbox.drafts()})
    return [LogRow(e.id, when(e.at), actor_zh(e.actor), texts.audit_sentence(e.action, e.detail, ctx),
                   texts.raw_detail(e.action, e.detail)) for e in entries]


def when(at: datetime | None) -> str:
    return format_time(at) if at else "—"


def left(deadline: datetime, now: datetime) -> str:
    return format_left(deadline - now)


def schedule_rows(rt: Runtime) -> list[dict[str, object]]:
    """The days as the desk lists them: times, threads, the closing post, the lock."""
    kept = {d.number: d for d in rt.store.stored_days()}
    rows = []
    for day in rt.config.days:
        record = kept.get(day.number)
        rows.append({"number": day.number, "start": when_zh(day.start), "deadline": when_zh(day.deadline),
                     "vote": day.vote_thread, "discussion": day.discussion_thread,
                     "locked": bool(record and record.locked_at), "closing": record.closing_pid if record else None})
    return rows
