"""What the desk's pages show, read through the same library calls as the CLI.

Nothing here writes: a page view never changes the game (``director.retally`` saves and
audits, so the tally page recomputes the way ``director.status`` does instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.activity import post_counts
from engine.cards import Standing
from engine.reasons import describe_zh
from engine.state import GameState, StateError
from forumbot import director
from forumbot.desk.bbcode import bbcode_to_html
from forumbot.game import ballots_for, count_day, current_state, thread_roles
from forumbot.outbox import Draft, DraftKind, DraftState
from forumbot.runtime import Runtime
from forumbot.store.records import CardProposal, ProposalState
from forumbot.views import format_left, format_time, rule_text

KIND_ZH = {
    DraftKind.RUNNING_COUNT: "计票",
    DraftKind.FINAL_COUNT: "最终计票",
    DraftKind.ANNOUNCEMENT: "公示",
    DraftKind.CARD_NOTICE: "判罚通知",
    DraftKind.COUNT_REPLY: "计票回复",
    DraftKind.ACCELERATION_NOTICE: "加速通知",
    DraftKind.BADGE_NOTICE: "警长通知",
}
STATE_ZH = {
    DraftState.DRAFT: "待审批",
    DraftState.APPROVED: "已批准，等待发出",
    DraftState.PUBLISHING: "发送中",
    DraftState.PUBLISHED: "已发布",
    DraftState.PENDING_MODERATION: "等待论坛审核",
    DraftState.FAILED: "发送失败",
    DraftState.REJECTED: "已驳回",
    DraftState.SUPERSEDED: "已被新计票取代",
}
CARD_ZH = {"blue": "蓝牌", "yellow": "黄牌", "red": "红牌", "points": "扣分"}
FLAG_ZH = {"edit": "编辑", "zombie": "诈尸", "font": "字体", "evidence": "贴证", "unknown_target": "对象不明"}
PROPOSAL_ZH = {"lurking_day": "潜水（单日）", "lurking_span": "潜水（连续三日）", "no_vote": "未投票",
               "zombie": "诈尸", "font": "字体", "evidence": "贴证"}


def forum_root(rt: Runtime) -> str:
    base = rt.config.forum.base_url or ""
    return base if not base or base.endswith("/") else base + "/"


def floor_link(rt: Runtime, tid: int | None, pid: int | None) -> str | None:
    """The forum's own link to a post (``findpost`` follows the pid to its floor)."""
    if not tid or not pid or not forum_root(rt):
        return None
    return f"{forum_root(rt)}forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}"


def thread_link(rt: Runtime, tid: int | None) -> str | None:
    if not tid or not forum_root(rt):
        return None
    return f"{forum_root(rt)}forum.php?mod=viewthread&tid={tid}"


# ---------------------------------------------------------------- the game now


@dataclass(frozen=True)
class GameNow:
    status: director.Status
    state: GameState
    living: tuple[str, ...]
    last_poll: datetime | None

    @property
    def day_number(self) -> int | None:
        return self.status.day.number if self.status.day else None


def game_now(rt: Runtime, now: datetime) -> GameNow:
    status = director.status(rt, now)
    state = current_state(rt.config, rt.store)
    polls = [c.updated_at for tid in thread_roles(state) if (c := rt.store.cursor(tid)) is not None]
    return GameNow(status=status, state=state, living=state.living(now), last_poll=max(polls, default=None))


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
    for vote in data["votes"]:
        vote["link"] = floor_link(rt, tid, vote.get("pid"))
        vote["reason_zh"] = None if vote["valid"] else describe_zh(
            vote["reason"], change_window_minutes=rt.config.rules.change_window_minutes)
    for event in data["timeline"]:
        event["link"] = floor_link(rt, tid, event.get("pid"))
    for flag in data["flags"]:
        flag["link"] = floor_link(rt, flag.get("tid") or tid, flag.get("pid"))
        flag["kind_zh"] = FLAG_ZH.get(flag["kind"], flag["kind"])
    # Posts by the director, the bot or other non-players (the rules post quotes the
    # format) are not votes: left out of the table, as the CLI does.
    data["shown_votes"] = [v for v in data["votes"] if v.get("reason") != "voter_not_player"]
    data["thread_link"] = thread_link(rt, tid)
    data["rule_zh"] = rule_text((data.get("result") or {}).get("rule"))
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
    entries = rt.store.cards()
    ledger, _ = director.ledger(rt, state)
    standings = {p: ledger.standing(p) for p in dict.fromkeys(e.player for e in entries)}
    every = rt.store.proposals()
    return CardsView(
        proposals=[p for p in every if p.state is ProposalState.PROPOSED],
        decided=[p for p in every if p.state is not ProposalState.PROPOSED][-20:],
        ledger=entries,
        standings=standings,
        players=state.players,
    )


# ---------------------------------------------------------------- drafts


@dataclass(frozen=True)
class DraftView:
    draft: Draft
    preview: Any  # Markup
    diff: list[tuple[str, str]]  # (css class, line)
    link: str | None

    @property
    def kind_zh(self) -> str:
        return KIND_ZH.get(self.draft.kind, self.draft.kind.value)

    @property
    def state_zh(self) -> str:
        return STATE_ZH.get(self.draft.state, self.draft.state.value)


def _diff_lines(text: str) -> list[tuple[str, str]]:
    lines = []
    for line in text.splitlines():
        css = "meta" if line.startswith(("---", "+++", "@@")) else {"+": "add", "-": "del"}.get(line[:1], "")
        lines.append((css, line))
    return lines


def draft_view(rt: Runtime, draft: Draft, *, with_diff: bool = True) -> DraftView:
    diff = _diff_lines(rt.outbox.diff_against_last_published(draft.id)) if with_diff else []
    link = floor_link(rt, draft.tid, draft.pid) if draft.pid else thread_link(rt, draft.tid)
    return DraftView(draft, bbcode_to_html(draft.body, base_url=forum_root(rt) or None), diff, link)


@dataclass(frozen=True)
class DraftsView:
    waiting: list[DraftView]
    in_flight: list[DraftView]  # approved, publishing, failed
    recent: list[DraftView]  # the last published / rejected / superseded


def drafts(rt: Runtime) -> DraftsView:
    waiting = [draft_view(rt, d) for d in rt.outbox.awaiting_approval()]
    flight = [draft_view(rt, d, with_diff=False)
              for d in rt.outbox.drafts(DraftState.APPROVED, DraftState.PUBLISHING, DraftState.FAILED,
                                        DraftState.PENDING_MODERATION)]
    done = rt.outbox.drafts(DraftState.PUBLISHED, DraftState.REJECTED, DraftState.SUPERSEDED)
    recent = [draft_view(rt, d, with_diff=False) for d in sorted(done, key=lambda d: d.id)[-10:][::-1]]
    return DraftsView(waiting, flight, recent)


def audit_tail(rt: Runtime, limit: int = 100) -> list[Any]:
    return rt.store.audit_log()[-limit:][::-1]


def when(at: datetime | None) -> str:
    return format_time(at) if at else "—"


def left(deadline: datetime, now: datetime) -> str:
    return format_left(deadline - now)
