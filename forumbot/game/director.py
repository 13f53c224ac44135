"""What the director does, as library calls: the CLI and the desk are thin layers over
these. Every call that changes the game is an event in game time through the game log
(``forumbot.game.gamelog``: enter, preview, retract, correct), written to the store's event
log and audit log with the actor named; nothing here talks to the forum.

The desk's calls, in one place:
  enter(rt, EventSpec(...), now) / preview(...)        record what happened / see first what it changes
  retract(rt, event_id, why, now) / preview_retract    undo (undoing an undo brings it back)
  correct(rt, event_id, EventSpec(...), why, now)      wrong player, wrong time
  list_events(rt)                                      the log: game time, who entered it and when
  badge(rt, now), successor_candidates(rt, now)        the badge and who may take it
  draw_sheriff(rt, now)                                the recorded random draw (14人简易)
  redraft_final(rt, day, now)                          a corrected final count after a published one went stale
  status(rt, now)                                      the game now, what it waits for, the alarms
  retry(rt, draft_id, now)                             send a failed draft again (looked up by its marker first)
  preview_deadline / change_deadline(rt, DeadlineRequest(...), now)   move a deadline, extend, close now
  ask_reopen(rt, day, now)                             open a day's locked voting thread again
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.acceleration import AccelerationStatus, acceleration_requests
from engine.badge import BadgeStatus, Succession, successor_candidates as _candidates
from engine.cards import Card, CardLedger, Decision
from engine.events import OutWhy
from engine.rules import CardPolicy
from engine.state import DayWindow, GameState, StateError
from forumbot.game import announce
from forumbot.game.alarms import recoveries, recovery_text
from forumbot.game.drafting import card_notice_body, count_body, counts_only
from forumbot.game.state import count_day, current_state, day_at, state_for_day
from forumbot.game.gamelog import (  # the game log's calls are the director's too
    DIRECTOR,
    Applied,
    DirectorError,
    EventSpec,
    EventView,
    Impact,
    badge,
    correct,
    draw_sheriff,
    enter,
    list_events,
    preview,
    preview_correct,
    preview_retract,
    redraft_final,
    retract,
    settle_result,
)
from forumbot.game.daychanges import (  # the schedule's changes (SPEC §11) are the director's too
    DeadlineRequest,
    ask_reopen,
    change_deadline,
    parse_span,
    parse_when,
    preview_deadline,
)
from forumbot.store.outbox import Draft, DraftKind, DraftState
from forumbot.game.ending import game_over
from forumbot.game.runtime import Runtime
from forumbot.store.alarms import Alarm
from forumbot.store.records import CardColor, CardEntry
from forumbot.game.views import CARD_NAMES, CardTotals, format_left, format_time
from forumbot.wording import card_said, vote_ruling_zh

# What the director may give as an out's cause, as the desk and the CLI show it.
OUT_REASONS = {"vote": "投票出局", "night": "夜晚出局", "card": "红牌罚下", "red": "红牌罚下",
               "lover": "殉情出局", "hunter": "被猎人带走", "other": "其他"}


def _state(rt: Runtime) -> GameState:
    return current_state(rt.config, rt.store)


def _day_number(rt: Runtime, state: GameState, day: int | None, now: datetime) -> int:
    if day is not None:
        try:
            state.day(day)
        except StateError as exc:
            raise DirectorError(str(exc)) from None
        return day
    current = day_at(state, now)
    if current is None:
        raise DirectorError("还没有任何一天开始：请用 --day 指定")
    return current.number


def successor_candidates(rt: Runtime, now: datetime) -> tuple[str, ...]:
    """Who may take the badge now under the rule set (living; not the sheriff who left —
    双身份: 不能选择自己的第二身份; S10: not a revealed idiot)."""
    return _candidates(_state(rt), rt.config.rules, now)


# ---------------------------------------------------------------- game changes
# Each is one event through the game log (``forumbot.game.gamelog.enter``): checked, given its
# SPEC §9 game time, written with the audit line, and followed by the redrafts it needs.


def record_night(rt: Runtime, day: int, out: list[str], now: datetime, *, at: datetime | None = None) -> list[str]:
    """Who went out during the night before ``day``'s morning, in the order they went
    (双身份: who lost an identity). Takes effect at that day's start, whenever typed;
    entering the night again corrects the earlier entry."""
    applied = enter(rt, EventSpec("night", day=day, players=tuple(out), at=at), now)
    return list(applied.event.payload["out"])


def put_out(rt: Runtime, name: str, why: str, now: datetime, day: int | None = None, *,
            at: datetime | None = None, note: str = "") -> str:
    applied = enter(rt, EventSpec("out", player=name, why=why, day=day, at=at, note=note), now)
    return applied.event.payload["player"]


def lose_identity(rt: Runtime, name: str, why: str, now: datetime, day: int | None = None, *,
                  at: datetime | None = None) -> str:
    applied = enter(rt, EventSpec("identity_lost", player=name, why=why, day=day, at=at), now)
    return applied.event.payload["player"]


def set_sheriff(rt: Runtime, name: str | None, now: datetime, *, at: datetime | None = None) -> str | None:
    applied = enter(rt, EventSpec("sheriff", player=name or None, at=at), now)
    return applied.event.payload.get("player")


def set_scapegoat(rt: Runtime, name: str | None, now: datetime, *, at: datetime | None = None) -> str | None:
    applied = enter(rt, EventSpec("scapegoat", player=name or None, at=at), now)
    return applied.event.payload.get("player")


def restrict_voters(rt: Runtime, day: int | None, names: list[str], now: datetime) -> tuple[str, ...]:
    applied = enter(rt, EventSpec("voters", day=day, players=tuple(names)), now)
    return tuple(applied.event.payload["players"])


def accelerate(rt: Runtime, day: int | None, now: datetime) -> DayWindow:
    applied = enter(rt, EventSpec("accelerated", day=day), now)
    return _state(rt).day(applied.event.day)


def substitute(rt: Runtime, old: str, new: str, now: datetime) -> str:
    enter(rt, EventSpec("substitute", player=old, name=new), now)
    return _state(rt).seat_of(new) or old


def add_alias(rt: Runtime, name: str, alias: str, now: datetime) -> str:
    applied = enter(rt, EventSpec("alias", player=name, name=alias), now)
    return applied.event.payload["player"]


def void_post(rt: Runtime, pid: int, why: str, now: datetime) -> int:
    """Rule one post void (串号, cheating, a post deleted on the forum…): the tally treats
    it as void with the director's reason, and the player may still vote."""
    applied = enter(rt, EventSpec("void", pid=pid, note=why), now)
    return applied.event.day


def reveal_idiot(rt: Runtime, name: str, now: datetime, *, at: datetime | None = None) -> str:
    """The idiot used 【若愚】: at the deadline of the vote that put them out (so that
    vote-out is cancelled), or now."""
    applied = enter(rt, EventSpec("idiot", player=name, at=at), now)
    return applied.event.payload["player"]


# ---------------------------------------------------------------- cards


@dataclass(frozen=True)
class CardOutcome:
    player: str
    card: str
    sent_off: bool
    badge_to: str | None
    seed: int | None
    draft: Draft | None
    events: tuple[str, ...]
    points: int | None = None  # 双身份: points deducted (card "points")
    total: int | None = None  # … and the player's total after it
    sendoff_points: int | None = None

    def describe(self, sent_off_note: str = "") -> str:
        """What giving the card did, in one Chinese line (the CLI's answer, the desk's
        flash; the desk adds how to take a send-off back)."""
        text = f"{self.player}：{card_said(self.card, self.points)}"
        if self.total is not None:
            text += f"（累计 {self.total}/{self.sendoff_points} 分）"
        if self.sent_off:
            text += "，罚下" + sent_off_note
        if self.badge_to:
            text += f"；警徽随机移交给 {self.badge_to}（随机种子 {self.seed}）"
        if self.draft:
            text += f"；判罚通知草稿 #{self.draft.id} 待审批"
        return text


def ledger(rt: Runtime, state: GameState, *, without: int | None = None) -> tuple[CardLedger, GameState]:
    """The ledger rebuilt from every card the director gave and did not take back (in
    order), or as if card ``without`` were taken back too. Its state is the ledger's own
    view; the game's outs are the events ``give_card`` entered."""
    book = CardLedger.for_rules(rt.config.rules)
    for entry in rt.store.cards():
        if entry.id == without:
            continue
        decision = Decision(player=entry.player, day=entry.day or 0, card=card_of(entry.color.value),
                            points=entry.points or 0, why=entry.reason, at=entry.at)
        seed = int(entry.reason.rsplit("seed=", 1)[1].rstrip(")")) if "seed=" in entry.reason else 0
        book, state, _ = book.apply(decision, state, seed=seed)
    return book, state


def card_of(color: str) -> Card | None:
    """The ledger's card for a stored colour; None for a deduction (双身份's points)."""
    return None if color == CardColor.POINTS.value else Card(color)


def card_choice(rules, color: str | None, points: int | None) -> str:
    """The card the director asked for, checked against the rule set (SPEC §5): colours
    under the 14人简易 ladder, a number of points under 双身份's (累计扣满12分者将予以罚下 —
    it has no colours). Returns the colour, or ``"points"``."""
    if rules.card_policy is CardPolicy.POINTS:
        if color not in (None, "", CardColor.POINTS.value):
            raise DirectorError(f"本局规则（{rules.title}）按扣分判罚，没有蓝牌、黄牌、红牌："
                                f"请只给出扣分（累计扣满{rules.sendoff_points}分罚下）")
        if not points or points <= 0:
            raise DirectorError(f"请给出扣分：大于 0 的整数（累计扣满{rules.sendoff_points}分罚下）")
        return CardColor.POINTS.value
    if color not in CARD_NAMES:
        raise DirectorError(f"牌色只能是 blue（蓝）、yellow（黄）或 red（红），不是“{color or ''}”")
    if points:
        raise DirectorError(f"本局规则（{rules.title}）用蓝牌、黄牌、红牌，不扣分：请不要给出扣分")
    return color


def give_card(rt: Runtime, name: str, color: str | None, why: str, now: datetime, *, points: int | None = None,
              proposal_id: int | None = None, seed: int | None = None) -> CardOutcome:
    """The director's card decision: the ledger entry, a send-off as an ``out`` event
    (why = card) at ``now``, the badge as the rule set says (14人简易: 红牌罚下的警长警徽随机移交,
    by a recorded seed), and a card notice draft. All in one transaction. Under the points
    rules (双身份) ``color`` is ``"points"`` (or None) and ``points`` the deduction."""
    state = _state(rt)
    player = _player(state, name)
    rules = rt.config.rules
    color = card_choice(rules, color, points)
    in_points = color == CardColor.POINTS.value
    day = day_at(state, now)
    book, _ = ledger(rt, state)
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    decision = Decision(player=player, day=day.number if day else 0, card=card_of(color), points=points or 0,
                        why=why, at=now)
    try:
        book, _, events = book.apply(decision, state, seed=seed)
    except ValueError as exc:
        raise DirectorError(str(exc)) from None
    sent_off = any(e.kind == "sent_off" for e in events)
    badge_event = next((e for e in events if e.kind == "badge"), None)
    reason = why + (f" (badge draw seed={seed})" if badge_event else "")
    badge_to = None
    with rt.store.write():
        proposal = rt.store.proposal(proposal_id) if proposal_id is not None else None
        # Under the points rules any proposal is a deduction (one stored before proposals
        # followed the rule set may carry a colour): accepted as points.
        if proposal is not None and (proposal.color.value == color or in_points):
            entry = rt.store.accept_proposal(proposal.id, actor=DIRECTOR, at=now, reason=reason, points=points,
                                             color=color)
        else:
            if proposal is not None:  # the director chose another card than proposed
                rt.store.dismiss_proposal(proposal.id, actor=DIRECTOR, at=now,
                                          why=f"改为给出{CARD_NAMES.get(color, color)}（提议为"
                                              f"{CARD_NAMES.get(proposal.color.value, proposal.color.value)}）")
            entry = rt.store.add_card(player, CardColor(color), reason, actor=DIRECTOR, at=now,
                                      day=decision.day, points=points)
        caused: list[int] = []  # taking the card back takes these back too
        if sent_off and not state.is_out(player, now):
            caused.append(enter(rt, EventSpec("out", player=player, why=OutWhy.CARD.value, at=now,
                                              note=why), now).event.id)
        if badge_event is not None:
            drawn = draw_sheriff(rt, now, seed=seed, notice=False)
            caused.append(drawn.event.id)
            badge_to = drawn.event.payload.get("player")
        if caused:
            rt.store.link_card_events(entry.id, caused)
    standing = book.standing(player)
    totals = _totals(standing, rules)
    draft = None
    tid = announce.notice_thread(state, decision.day) if day is not None else None
    if tid is not None:
        body = card_notice_body(rt.env, player=player, card=color, why=why, totals=totals, sent_off=sent_off,
                                badge_to=badge_to, badge_seed=seed if badge_event else None,
                                points=points if in_points else None, sendoff_points=rules.sendoff_points)
        draft = rt.outbox.create_draft(DraftKind.CARD_NOTICE, tid, body, now=now, day=decision.day,
                                       actor=DIRECTOR)
    return CardOutcome(player, color, sent_off, badge_to, seed if badge_event else None, draft,
                       tuple(e.detail for e in events), points=points if in_points else None,
                       total=standing.points if in_points else None,
                       sendoff_points=rules.sendoff_points if in_points else None)


def _totals(standing, rules) -> CardTotals:
    """The player's standing as a notice says it: points under the points rules, colours otherwise."""
    return CardTotals(blue=standing.blue, yellow=standing.yellow, red=int(standing.sent_off),
                      points=standing.points if rules.card_policy is CardPolicy.POINTS else None)


@dataclass(frozen=True)
class CardTakeBack:
    """What taking card ``entry`` back changes: the player's standing in the ledger, and
    the game events the card caused (a send-off, a badge draw), taken back with it."""

    entry: CardEntry
    standing_before: str
    standing_after: str
    events: tuple[int, ...]  # the standing events the card caused
    impact: Impact | None  # what taking those events back changes (None: none)

    def lines(self) -> list[str]:
        card = card_said(self.entry.color, self.entry.points)
        out = [f"撤销判罚 #{self.entry.id}：{self.entry.player} 的{card}（{self.entry.reason}）",
               f"{self.entry.player} 累计：{self.standing_before} → {self.standing_after}"]
        if self.impact is not None:
            out.append("一并撤销这张牌造成的事件：" + "、".join(f"#{i}" for i in self.events))
            out += self.impact.lines()[1:]
        return out


def _standing_text(book: CardLedger, player: str, rules) -> str:
    s = book.standing(player)
    if rules.card_policy is CardPolicy.POINTS:  # 双身份 has no colours
        return f"扣分 {s.points}/{rules.sendoff_points}" + ("，已罚下" if s.sent_off else "")
    return f"蓝牌 {s.blue}，黄牌 {s.yellow}" + ("，已罚下" if s.sent_off else "")


def preview_take_back_card(rt: Runtime, entry_id: int, now: datetime) -> CardTakeBack:
    try:
        entry = rt.store.card(entry_id)
    except LookupError as exc:
        raise DirectorError(str(exc)) from None
    if not entry.standing:
        raise DirectorError(f"判罚 #{entry_id} 已于 {format_time(entry.retracted_at)} 撤销")
    state = _state(rt)
    before, _ = ledger(rt, state)
    after, _ = ledger(rt, state, without=entry_id)
    standing = {e.id for e in list_events(rt) if e.live}
    events = tuple(i for i in entry.events if i in standing)
    change = None
    if events:
        from forumbot.game.gamelog import _without, impact

        change = impact(rt, state, _without(rt, *events), now, f"撤销判罚 #{entry_id}")
    rules = rt.config.rules
    return CardTakeBack(entry, _standing_text(before, entry.player, rules),
                        _standing_text(after, entry.player, rules), events, change)


def take_back_card(rt: Runtime, entry_id: int, why: str, now: datetime) -> tuple[CardTakeBack, Draft | None]:
    """Take a card back (a wrong player, a mistake): it leaves the ledger (kept, marked, in
    its history), the send-off and badge draw it caused are undone, and a notice saying
    so is drafted. All in one transaction."""
    if not why.strip():
        raise DirectorError("请说明撤销判罚的理由（会写进通知和审计日志）")
    change = preview_take_back_card(rt, entry_id, now)
    entry = change.entry
    state = _state(rt)
    with rt.store.write():
        rt.store.retract_card(entry_id, actor=DIRECTOR, at=now, why=why)
        for event_id in sorted(change.events, reverse=True):  # the draw before the send-off
            retract(rt, event_id, f"撤销判罚 #{entry_id}：{why}", now)
        book, _ = ledger(rt, _state(rt))
        standing = book.standing(entry.player)
        totals = _totals(standing, rt.config.rules)
        draft = None
        day = day_at(state, now)
        tid = announce.notice_thread(state, day.number) if day is not None else None
        if tid is not None:
            body = card_notice_body(rt.env, player=entry.player, card=entry.color.value, why=why,
                                    totals=totals, withdrawn=True, sent_off=bool(change.events),
                                    points=entry.points, sendoff_points=rt.config.rules.sendoff_points)
            draft = rt.outbox.create_draft(DraftKind.CARD_NOTICE, tid, body, now=now, day=day.number,
                                           actor=DIRECTOR)
    return change, draft


def _player(state: GameState, name: str) -> str:
    from forumbot.game.gamelog import _player as find

    return find(state, name)


def dismiss_proposal(rt: Runtime, proposal_id: int, why: str, now: datetime):
    return rt.store.dismiss_proposal(proposal_id, actor=DIRECTOR, at=now, why=why)


# ---------------------------------------------------------------- drafts


# The routes a director decides a draft by: the desk, the command line, a forum PM
# (forumbot.notify) — the same operations, each its own actor in the audit log, so that
# "approved on the desk" and "approved at the terminal" can be told apart. ``DIRECTOR``
# is what earlier versions wrote for both (kept readable).
DIRECTOR_PM = "director(pm)"
DIRECTOR_DESK = "director(desk)"
DIRECTOR_CLI = "director(cli)"
ROUTE_ZH = {DIRECTOR: "在导演台或命令行", DIRECTOR_DESK: "在导演台", DIRECTOR_CLI: "在命令行",
            DIRECTOR_PM: "通过站内信", "bot": "由机器人"}
_DONE = (DraftState.APPROVED, DraftState.PUBLISHING, DraftState.PUBLISHED, DraftState.PENDING_MODERATION)


def route_zh(actor: str | None) -> str:
    """How a draft was decided, as a sentence part: 在导演台 / 在命令行 / 通过站内信 / 由机器人."""
    return ROUTE_ZH.get(actor or "", "")


def decided_elsewhere(draft: Draft, actor: str, *, rejecting: bool = False) -> str | None:
    """Why ``actor`` may not approve ``draft`` (or reject it) now: it was approved already —
    the answer says when, by which route, where it stands, and that this one came second.
    Whichever came first won. None when it may go on.

    Approving again is always a second approval (the desk twice, the desk then the CLI…).
    Rejecting an approved draft not yet sent stays possible on the route that approved it
    (the director changed their mind), not across a PM and the desk/CLI; a post held for
    moderation may always be given up."""
    if draft.state not in _DONE or draft.approved_by is None:
        return None
    if rejecting:
        if draft.state is DraftState.PENDING_MODERATION:
            return None
        pm = DIRECTOR_PM in (draft.approved_by, actor)
        if draft.state is DraftState.APPROVED and (not pm or draft.approved_by in (actor, "bot")):
            return None
    when = f"{draft.approved_at:%m-%d %H:%M} " if draft.approved_at else ""
    done = {DraftState.PUBLISHED: f"，已发布（pid {draft.pid}）" if draft.pid else "，已发布",
            DraftState.PENDING_MODERATION: "，已发出，论坛审核中"}.get(draft.state, "，正在发出")
    by = "自动发布（按发布策略）" if draft.approved_by == "bot" else f"{route_zh(draft.approved_by)}批准"
    second = f"这次{'驳回' if rejecting else '批准'}（{route_zh(actor) or '导演'}）晚了一步，" if actor != "bot" else ""
    return f"草稿 #{draft.id} 已于 {when}{by}{done}：{second}无需再操作"


def approve(rt: Runtime, draft_id: int, now: datetime, body: str | None = None, *,
            actor: str = DIRECTOR, subject: str | None = None) -> Draft:
    """Approve a draft. Approved already (by any route): a DirectorError saying by whom and
    when, and that this approval came second. An edited body (a new thread's ``subject``
    too) still replaces the text of a draft approved but not yet sent."""
    draft = rt.outbox.get(draft_id)
    edits = body is not None or subject is not None
    if not (edits and draft.state is DraftState.APPROVED) and (why := decided_elsewhere(draft, actor)):
        raise DirectorError(why)
    if subject is not None and not draft.is_new_thread:
        subject = None  # only a new thread has a subject to edit
    return rt.outbox.approve(draft_id, actor, body=body, now=now, subject=subject)


def reject(rt: Runtime, draft_id: int, why: str, now: datetime, *, actor: str = DIRECTOR) -> Draft:
    if (elsewhere := decided_elsewhere(rt.outbox.get(draft_id), actor, rejecting=True)):
        raise DirectorError(elsewhere)
    return rt.outbox.reject(draft_id, actor, why, now=now)


def retry(rt: Runtime, draft_id: int, now: datetime, *, actor: str = DIRECTOR) -> Draft:
    """Send a failed draft again: approved once more, looked up by its marker before it is
    sent (the desk's 重发 and ``forumbot retry``)."""
    return rt.outbox.retry(draft_id, actor, now=now)


def waiting(rt: Runtime) -> list[Draft]:
    return rt.outbox.awaiting_approval()


def announcement_draft(rt: Runtime, day: int, now: datetime) -> Draft | None:
    """Draft the morning announcement of ``day`` once the night before it is entered:
    every out since the previous morning in the order it took effect (daytime outs, the
    vote, the night — 双身份: 身份死亡 or 出局), the badge, the cards of the previous day.
    A waiting draft the game no longer matches is replaced; a published one is kept."""
    try:
        return announce.draft_announcement(rt, day, now)
    except StateError as exc:
        raise DirectorError(str(exc)) from None


# ---------------------------------------------------------------- looking


@dataclass(frozen=True)
class Status:
    now: datetime
    day: DayWindow | None
    time_left: str | None  # None once the deadline has passed
    sheriff: str | None
    out: tuple[tuple[str, str], ...]  # (player, why in Chinese), in the order they went
    tally: dict[str, Any] | None
    drafts_waiting: tuple[Draft, ...]
    failed: tuple[Draft, ...]
    proposals: tuple[Any, ...]
    acceleration: AccelerationStatus | None = None
    badge: BadgeStatus | None = None
    lives: tuple[tuple[str, int], ...] = ()  # 双身份: players with one identity left
    waiting_for: tuple[str, ...] = ()  # what the game waits for from the director (Chinese)
    stale_published: tuple[str, ...] = ()  # published posts a later change made wrong
    ignored: tuple[str, ...] = ()  # events without effect, and why
    alarms: tuple[Alarm, ...] = ()  # what the bot cannot fix itself, until it clears (forumbot.game.alarms)
    recovered: tuple[str, ...] = ()  # outages over in the last hours: 「…恢复于 …」
    over: str | None = None  # the game is over: how, in Chinese (forumbot.game.ending)

    @property
    def voting_over(self) -> bool:
        return self.day is not None and self.now >= self.day.deadline


def status(rt: Runtime, now: datetime) -> Status:
    state = _state(rt)
    day = day_at(state, now)
    tally = None
    acceleration = None
    if day is not None:
        counted = count_day(rt.config, rt.store, day.number)
        tally = counted.data
        if day.progress_thread is not None and not day.accelerated and now < day.deadline:
            acceleration = acceleration_requests(counted.ballots, counted.state, day.number,
                                                 rt.config.rules, now)
    from engine.events import WHY_ZH, parse_why

    badge_now = badge(rt, now)
    over = game_over(rt, state)
    return Status(
        now=now,
        day=day,
        time_left=format_left(day.deadline - now) if day and now < day.deadline else None,
        sheriff=badge_now.sheriff,
        out=tuple((r.player, WHY_ZH.get(parse_why(r.why), r.why)) for r in state.out),
        tally=tally,
        drafts_waiting=tuple(rt.outbox.awaiting_approval()),
        failed=tuple(rt.outbox.drafts(DraftState.FAILED)),
        proposals=tuple(rt.store.proposals(state="proposed")),
        acceleration=acceleration,
        badge=badge_now,
        lives=tuple((p, state.lives(p)) for p in state.players
                    if state.identities > 1 and 0 < state.lives(p) < state.identities),
        waiting_for=_waiting_for(rt, state, badge_now, now, over=over is not None),
        stale_published=tuple(text for d in rt.outbox.drafts(DraftState.PUBLISHED)
                              if (text := rt.store.get_meta(f"stale_published:{d.id}"))),
        ignored=tuple(f"#{s.event.ref} {s.event.describe()}：{s.note}" for s in state.ignored
                      if s.event.ref is not None),
        alarms=tuple(rt.store.alarms()),
        recovered=tuple(recovery_text(a) for a in recoveries(rt.store, now)),
        over=over.text if over is not None else None,
    )


def _waiting_for(rt: Runtime, state: GameState, badge_now: BadgeStatus, now: datetime, *,
                 over: bool = False) -> tuple[str, ...]:
    """What the game is waiting for from the director, in Chinese (night results, a
    successor sheriff, a final count to approve). A game that is over waits for no next
    night and no successor: there is no next day."""
    lines = []
    for window in state.days:
        if window.deadline > now:
            continue
        final = announce.final_draft(rt.outbox, window.number)
        if final is not None and final.state is DraftState.DRAFT:
            lines.append(f"第{window.number}日最终计票 #{final.id} 待审批")
        following = [d for d in state.days if d.number == window.number + 1]
        if following and not over and rt.store.night_result(window.number + 1) is None:
            lines.append(f"第{window.number + 1}日前夜的结果尚未录入（forumbot night --day {window.number + 1}）")
    if not over and badge_now.vacancy is not None and badge_now.succession is not Succession.VACANT:
        lines.append(badge_now.describe(now))
    return tuple(lines)


def retally(rt: Runtime, day: int, now: datetime) -> tuple[dict[str, Any], bool]:
    """Recount a day from the stored posts (after an alias or a correction)."""
    number = _day_number(rt, _state(rt), day, now)
    data = count_day(rt.config, rt.store, number).data
    changed = rt.store.save_tally(number, data, at=now)
    rt.store.audit(DIRECTOR, "retally", {"day": number, "changed": changed}, at=now)
    return data, changed


def count_now(rt: Runtime, now: datetime, day: int | None = None) -> Draft:
    """A running count drafted now, whatever the rate limit (the director asked)."""
    state = _state(rt)
    if day is not None:
        try:
            window: DayWindow | None = state.day(day)
        except StateError as exc:
            raise DirectorError(str(exc)) from None
    else:
        window = day_at(state, now)
    if window is None or window.vote_thread is None:
        raise DirectorError("没有正在进行投票的一天")
    if now < window.start:
        raise DirectorError(f"第{window.number}日的投票还没有开始")
    if now >= window.deadline:
        # A running count is published without approval; after the deadline only the
        # final count (which the director approves) speaks for the day.
        raise DirectorError(f"第{window.number}日的投票已截止：请审批它的最终计票"
                            "（更正后驳回它，机器人会重新起草）")
    day_ = window
    data, _ = retally(rt, day_.number, now)
    state = state_for_day(rt.config, rt.store, day_.number)
    body = count_body(rt.env, data, state=state, rules=rt.config.rules, now=now, final=False,
                      hide_voters=counts_only(rt.config.rules, rt.settings.agent.counts_only))
    return rt.outbox.create_draft(DraftKind.RUNNING_COUNT, day_.vote_thread, body, now=now, day=day_.number,
                                  actor=DIRECTOR)


def describe_vote(vote: dict[str, Any], change_window_minutes: int | None = None) -> str:
    return vote_ruling_zh(vote, change_window_minutes)


__all__ = [
    "DIRECTOR", "DIRECTOR_CLI", "DIRECTOR_DESK", "DIRECTOR_PM", "OUT_REASONS", "ROUTE_ZH", "decided_elsewhere",
    "route_zh", "Applied", "CardOutcome", "DirectorError", "EventSpec", "EventView", "Impact",
    "Status", "accelerate", "add_alias", "announcement_draft", "approve", "badge", "correct", "count_now",
    "card_choice", "card_of", "describe_vote", "dismiss_proposal", "draw_sheriff", "enter", "give_card", "ledger", "list_events",
    "lose_identity", "preview", "preview_correct", "preview_retract", "put_out", "record_night",
    "redraft_final", "reject", "restrict_voters", "retally", "retract", "retry", "reveal_idiot", "set_scapegoat",
    "set_sheriff", "settle_result", "status", "substitute", "successor_candidates", "void_post", "waiting",
]

