"""The nights as the bot runs them (SPEC §10.2–10.3): the operations every face shares.

The agent's PM pass (``forumbot.notify.nightpm``), the CLI (``forumbot action``,
``forumbot night --confirm N``), the desk and the director's PMs (``行动 玩家 技能 目标``,
``确认 夜N``) all go through these calls; the pure rules are ``engine.night``'s.

* ``chronicle(rt)`` — the game across nights rebuilt from the identities, the stored §9
  events and every stored action (the config's ``[[actions]]`` too). Nothing is kept
  between calls: a restart resolves from the same rows and gets the same answers.
* ``file_action`` — an action into the store (by PM or by the director), with its ruling
  as it stood when it was sent (what the sender is told).
* ``propose(rt, night, now)`` — the night's resolution once it is ready, kept as a
  versioned proposal (a new version only when it changed).
* ``confirm(rt, night, now)`` — the latest proposal becomes the night's §9 entry (a
  ``night`` event for the next day, taking effect at its start, in the order of the
  deaths): the game log enters it as if the director had typed the outs, so the morning
  announcement, the redrafts and the tallies follow as they always did. A night the
  director entered by hand (``forumbot night --day N+1 --out …``) is ``corrected``: the
  director's version stands (the chronicle warns where it differs from the actions).

Secret: everything returned here names identities and actions. Callers show it to the
director (``--secrets``, the desk behind its login, the director's PMs) or to the owner
of the action, never in a public post or a log line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from engine.names import NameTable
from engine.night import (Action, ActionRuling, Chronicle, ChronicleError, Mode, NightResult, Sheet, Skill, Trigger,
                          read_director_order)
from engine.state import GameState
from forumbot.game.gamelog import DirectorError, EventSpec, enter
from forumbot.game.nights import STORE_SEQ, NightsError, runtime_chronicle, runtime_config
from forumbot.game.nights import stored_actions as _stored_actions
from forumbot.game.runtime import Runtime
from forumbot.game.state import current_state
from forumbot.store.nights import NightActionRecord, NightProposal, ProposalStateError
from forumbot.store.records import EventKind

__all__ = ["PLAYER_PM", "Filed", "NightStatus", "active", "chronicle", "confirm", "director_action", "file_action",
           "ended_at", "has_night_zero", "mode_of", "night_after_end", "night_for", "night_zh", "nights_begun", "propose", "proposal_lines", "sheet_of", "status_of"]

PLAYER_PM = "player(pm)"  # the audit's actor for an action a role account sent by PM


# ---------------------------------------------------------------- what the game has


def mode_of(rt: Runtime) -> Mode | None:
    return getattr(rt.config, "night_mode", None)


def active(rt: Runtime) -> bool:
    """The bot runs this game's nights: it has identities (a game without them is counted
    exactly as before, the director entering the nights)."""
    return getattr(rt.config, "identities", None) is not None and mode_of(rt) is not None


def sheet_of(rt: Runtime) -> Sheet:
    """The identities, with the 双身份 orders the players sent by PM applied (first
    identity first)."""
    sheet = runtime_config(rt).identities
    assert sheet is not None
    return sheet


def stored_actions(rt: Runtime) -> list[Action]:
    """The store's actions as the engine's (``forumbot.game.nights.stored_actions``)."""
    return list(_stored_actions(rt))


def chronicle(rt: Runtime, state: GameState | None = None) -> Chronicle:
    """The game's chronicle exactly as ``forumbot resolve`` builds it (``forumbot.game.nights``),
    with the stored events and actions beside the config's, and the players' 双身份 orders."""
    try:
        found = runtime_chronicle(rt, state or current_state(rt.config, rt.store))
    except NightsError as exc:
        raise ChronicleError(str(exc)) from None
    assert found is not None
    return found


def has_night_zero(mode: Mode | None) -> bool:
    """S10/S09 have 第零晚 (from the deal to day 1's start); 14人简易 and 双身份 do not."""
    return mode is not None and mode.first_night == 0


def night_zh(night: int) -> str:
    """A night as the director and players read it: 第零晚 (S10/S09's night 0), 第N晚."""
    return "第零晚" if night == 0 else f"第{night}晚"


def night_for(state: GameState, at: datetime, mode: Mode | None = None) -> int | None:
    """The night an action sent at ``at`` is for: the night in progress (from day N's
    deadline to day N+1's start); during day N, night N (ruled 夜晚开始前发出); after the
    last day's deadline, the last night. Before day 1's start: night 0 where ``mode`` has
    one (S10/S09 — the deal is not known to the bot: any message it reads as this game's,
    see docs/decisions.md), else None."""
    days = sorted(state.days, key=lambda d: d.number)
    if days and at < days[0].start and has_night_zero(mode):
        return 0
    for k, day in enumerate(days):
        following = days[k + 1] if k + 1 < len(days) else None
        if day.deadline <= at and (following is None or at < following.start):
            return day.number
        if day.start <= at < day.deadline:
            return day.number
    return None


# How long a night's business waits for its day's vote result to be recorded (the director
# approves the final count) before going on with the game as recorded.
RESULT_WAIT = timedelta(hours=6)


def waits_for_day(rt: Runtime, night: int, now: datetime, state: GameState | None = None) -> bool:
    """Night ``night`` waits for day ``night``'s vote result: its deadline has passed and the
    result (the vote-out, the election) is not recorded yet. A wolf voted out at 21:30 who
    orders at 21:45 must be told 行动者已出局, not 已收到, and the night is not proposed on a
    game without that day's vote-out — unless the result is still missing ``RESULT_WAIT``
    after the deadline (then the game as recorded goes on)."""
    from forumbot.game.gamelog import _is_result

    state = state or current_state(rt.config, rt.store)
    try:
        window = state.day(night)
    except Exception:  # noqa: BLE001 - no such day: nothing to wait for
        return False
    if now < window.deadline or now >= window.deadline + RESULT_WAIT:
        return False
    return not any(e.day == night and _is_result(e) for e in rt.store.live_events())


def nights_begun(state: GameState, now: datetime, mode: Mode | None = None) -> list[int]:
    """The nights whose day's deadline has passed, in order; night 0 first where ``mode``
    has one (it runs from the deal, so it has always begun)."""
    zero = [0] if state.days and has_night_zero(mode) else []
    return zero + [d.number for d in sorted(state.days, key=lambda d: d.number) if d.deadline <= now]


def ended_at(rt: Runtime, ch: Chronicle | None = None) -> datetime | None:
    """When the game ended (SPEC §10.4–10.5): the moment a faction won on the game as
    recorded (宣布阵营获得胜利会立即终止一切结算), else when the director ended it; None
    while it goes on. A night begun at or after it is never run (no proposal, feedback or
    watching) and an order sent after it is answered 游戏已经结束."""
    from forumbot.game.ending import recorded

    if active(rt):
        try:
            ch = ch or chronicle(rt)
            win = ch.win
        except ChronicleError:
            win = None
        if win is not None and win.at is not None:
            return win.at
        if win is not None and ch is not None:
            # A win after a daytime step (a vote-out) carries no time: the first departure
            # after which the game stands won.
            state = current_state(rt.config, rt.store)
            for moment in sorted({d.at for d in state.departures() if d.at is not None}):
                if ch.win_at(moment) is not None:
                    return moment
    said = recorded(rt)
    if said and said.get("at"):
        try:
            return datetime.fromisoformat(str(said["at"]))
        except ValueError:
            return None
    return None


def night_after_end(rt: Runtime, night: int, ch: Chronicle | None = None,
                    state: GameState | None = None) -> bool:
    """Night ``night`` begins (its day's deadline) at or after the game's end."""
    end = ended_at(rt, ch)
    if end is None:
        return False
    state = state or current_state(rt.config, rt.store)
    try:
        return state.day(night).deadline >= end
    except Exception:  # noqa: BLE001 - no such day: no such night to run
        return True


# ---------------------------------------------------------------- filing actions


@dataclass(frozen=True)
class Filed:
    record: NightActionRecord
    ruling: ActionRuling | None  # None: the night cannot be ruled (no such night)

    def answer(self, mode: Mode) -> str:
        """What the sender is told: 已收到：杀人 包子 / 未计入：…（why）."""
        if self.ruling is None:
            shown = " ".join((mode.skill_name(Skill(self.record.skill)), *self.record.targets))
            return f"未计入：{shown}（现在没有可以行动的夜晚）"
        return self.ruling.describe(mode.skill_name)


def file_action(rt: Runtime, night: int, actor: str, skill: Skill, targets: Sequence[str], *, at: datetime,
                now: datetime, source: str, entered_by: str, pmid: int | None = None, text: str = "") -> Filed:
    """Store one action and rule it as the night stood when it was sent (joins the
    caller's transaction). The same PM filed twice is one action."""
    record = rt.store.add_night_action(night, actor, skill.value, list(targets), at=at, source=source,
                                       entered_by=entered_by, now=now, pmid=pmid, text=text)
    return Filed(record, ruling_of(rt, record))


def ruling_of(rt: Runtime, record: NightActionRecord, ch: Chronicle | None = None) -> ActionRuling | None:
    """The action's ruling with what had arrived by the moment it was sent."""
    try:
        ch = ch or chronicle(rt)
        result = ch.resolve(record.night, record.at)
    except ChronicleError:
        return None
    for ruling in result.rulings:
        if ruling.action.seq == STORE_SEQ + record.id:
            return ruling
    # A triggered skill answering a daytime loss (猎人 最后一枪 after a vote-out) is the
    # day's, not the night's: its ruling is in the day's report.
    for day in sorted(ch.days):
        for ruling in ch.day(day, record.at).shot_rulings:
            if ruling.action.seq == STORE_SEQ + record.id:
                return ruling
    return None


@dataclass(frozen=True)
class DayShot:
    """A triggered skill sent after a daytime loss and counted, not yet entered. A shot's
    out the director enters (``forumbot out 目标 --why hunter --at 时间``); 若愚 names no
    one but the idiot, so the bot enters it itself (docs/decisions.md)."""

    day: int
    player: str
    skill: str
    target: str
    at: datetime
    effect: str  # out | identity_lost | idiot
    since: datetime | None = None  # the loss that opened the window (若愚: the vote's moment)

    def command(self) -> str:
        """The director's command that enters it."""
        if self.effect == "idiot":
            return f"forumbot idiot {self.player}"
        return f"forumbot {self.effect.replace('_', '-')} {self.target} --why hunter --at \"{self.at:%m-%d %H:%M}\""


def day_shots(rt: Runtime, ch: Chronicle | None = None) -> list[DayShot]:
    if not active(rt):
        return []
    ch = ch or chronicle(rt)
    mode = mode_of(rt)
    assert mode is not None
    out = []
    for day in sorted(ch.days):
        for trigger, action, outcome in ch.day(day).proposed_shots:
            if trigger.skill is Skill.FOOL:
                effect = "idiot"
            else:
                effect = "identity_lost" if any(d.effect == "identity_lost" for d in outcome.deaths) else "out"
            out.append(DayShot(day, trigger.player, mode.skill_name(trigger.skill), action.target or "",
                               action.at, effect, trigger.since))
    return out


def open_day_triggers(rt: Runtime, now: datetime, ch: Chronicle | None = None) -> list[tuple[int, Trigger]]:
    """The daytime triggers still awaiting their holder's answer at ``now`` (a hunter's
    shot, 若愚), each with its day."""
    if not active(rt):
        return []
    try:
        ch = ch or chronicle(rt)
    except ChronicleError:
        return []
    return [(day, t) for day in sorted(ch.days) for t in ch.day(day, now).awaiting]


def day_trigger_open(rt: Runtime, night: int, now: datetime, ch: Chronicle | None = None) -> bool:
    """Night ``night`` waits for its day's triggers (the vote-out's shot or 若愚): who is in
    that night depends on the answer — until it comes or its window ends."""
    return any(day == night for day, _ in open_day_triggers(rt, now, ch))


def enter_fool(rt: Runtime, shot: DayShot, now: datetime) -> None:
    """A counted 若愚 becomes the §9 ``idiot`` event at the vote's moment: the vote-out is
    cancelled and the idiot's votes weigh 0 from then (joins the caller's transaction)."""
    enter(rt, EventSpec("idiot", player=shot.player, at=shot.since), now, actor=PLAYER_PM)


def director_action(rt: Runtime, text: str, now: datetime, *, at: datetime | None = None, night: int | None = None,
                    actor: str) -> Filed:
    """The director enters an action: ``行动 玩家 技能 目标`` (the leading 行动 may be left
    out), sent at ``at`` (default: now) for ``night`` (default: the night ``at`` falls in)."""
    if not active(rt):
        raise DirectorError("这局没有身份表（[identities]），夜晚由导演直接录入出局：forumbot night --day N --out …")
    mode = mode_of(rt)
    assert mode is not None
    state = current_state(rt.config, rt.store)
    reading = read_director_order(text, mode, NameTable(state))
    if not reading.ok:
        raise DirectorError(f"没有录入：{reading.message}")
    when = at or now
    number = night if night is not None else night_for(state, when, mode)
    if number is None:
        raise DirectorError("第一日开始之前没有夜晚：请用 --night 指定第几晚")
    assert reading.skill is not None and reading.actor is not None
    with rt.store.write():
        return file_action(rt, number, reading.actor, reading.skill, reading.targets, at=when, now=now,
                           source="director", entered_by=actor, text=text.strip())


# ---------------------------------------------------------------- proposals


def _next_start(state: GameState, night: int) -> datetime | None:
    for day in state.days:
        if day.number == night + 1:
            return day.start
    return None


def _entered_by_hand(rt: Runtime, night: int, proposal: NightProposal | None) -> bool:
    """A ``night`` entry for the morning after ``night`` that no confirmation made."""
    mine = set(proposal.events) if proposal is not None else set()
    return any(e.kind is EventKind.NIGHT and e.day == night + 1 and e.id not in mine for e in rt.store.live_events())


def proposal_data(result: NightResult, state: GameState) -> dict[str, Any]:
    """What is kept and versioned: §10.6's object without what only the clock changes
    (``final`` turns true when the last phase ends; ``ready``/``pending`` are what made it a
    proposal) — a new version means the resolution changed, not the time."""
    data = {k: v for k, v in result.to_json().items() if k not in ("final", "ready", "pending")}
    start = _next_start(state, result.night)
    data["takes_effect"] = start.isoformat() if start else None
    data["out"] = [d.player for d in result.deaths]
    return data


def propose(rt: Runtime, night: int, now: datetime, *, ch: Chronicle | None = None
            ) -> tuple[NightProposal | None, bool, NightResult | None]:
    """Night ``night`` as it stands at ``now``; kept as a proposal once it is ready (every
    acting identity has acted or its phase ended, every triggered skill decided). Returns
    (the latest proposal, whether a new version was saved now, the resolution)."""
    last = rt.store.night_proposal(night)
    if last is not None and last.state in ("confirmed", "corrected"):
        return last, False, None
    if _entered_by_hand(rt, night, last):
        if last is not None:
            last = rt.store.decide_night_proposal(night, "corrected", by="director", now=now)
        return last, False, None
    state = current_state(rt.config, rt.store)
    if waits_for_day(rt, night, now, state) or day_trigger_open(rt, night, now, ch):
        return last, False, None
    if night_after_end(rt, night, ch, state):
        return last, False, None  # the game was over before this night began
    try:
        result = (ch or chronicle(rt, state)).resolve(night, now)
    except ChronicleError:
        return last, False, None
    if not result.ready:
        return last, False, result
    proposal, new = rt.store.save_night_proposal(night, proposal_data(result, state), now=now)
    return proposal, new, result


def confirm(rt: Runtime, night: int, now: datetime, *, actor: str, version: int | None = None) -> NightProposal:
    """The director confirms night ``night``'s latest proposal: its deaths become the
    ``night`` entry of the next day (taking effect at its start, in order). Refused when
    there is none, when it changed since ``version`` was shown, or when it is decided."""
    if not active(rt):
        raise DirectorError("这局没有身份表（[identities]），没有机器人结算的夜晚可确认")
    with rt.store.write():
        proposal, _, result = propose(rt, night, now)
        if proposal is None:
            raise DirectorError(f"{night_zh(night)}还没有结算建议（夜晚还没结束，或还在等行动）")
        if proposal.state == "corrected":
            raise DirectorError(f"{night_zh(night)}已由导演直接录入，以导演录入的为准")
        if proposal.state == "proposed" and result is not None and not result.ready:
            # A phase lengthened after the proposal was made: it is not the night's result yet.
            raise DirectorError(f"{night_zh(night)}的结算建议（第{proposal.version}版）之后阶段延长了，还在等："
                                + "；".join(result.pending()))
        out = tuple(str(p) for p in proposal.data.get("out") or ())
        try:
            applied = enter(rt, EventSpec("night", day=night + 1, players=out), now, actor=actor)
            return rt.store.decide_night_proposal(night, "confirmed", by=actor, now=now, version=version,
                                                  events=[applied.event.id])
        except ProposalStateError as exc:
            raise DirectorError(str(exc)) from None


# ---------------------------------------------------------------- for the director's screens


@dataclass(frozen=True)
class NightStatus:
    night: int
    proposal: NightProposal | None
    result: NightResult | None


def status_of(rt: Runtime, now: datetime) -> list[NightStatus]:
    """Every night begun, with its proposal and (while undecided) how it stands now."""
    if not active(rt):
        return []
    state = current_state(rt.config, rt.store)
    ch = chronicle(rt, state)
    out = []
    for night in nights_begun(state, now, mode_of(rt)):
        proposal = rt.store.night_proposal(night)
        result = None
        if proposal is None or proposal.state == "proposed":
            try:
                result = ch.resolve(night, now)
            except ChronicleError:
                result = None
        out.append(NightStatus(night, proposal, result))
    return out


def night_lines(rt: Runtime, now: datetime, *, secrets: bool = False) -> list[str]:
    """The nights for ``forumbot status`` (Chinese). Without ``secrets`` only where each
    night stands — who has not acted yet is no secret, what they did and who dies are."""
    lines: list[str] = []
    for shot in day_shots(rt):
        # Entered by the director as an out at the shot's time; until then it waits.
        lines.append(f"第{shot.day}日：一个白天触发的技能已计入，待录入" + (
            f"：{shot.player} {shot.skill} {shot.target}（{shot.at:%m-%d %H:%M}）—— {shot.command()}"
            if secrets else "（加 --secrets 看详情）"))
    for s in status_of(rt, now):
        p, r = s.proposal, s.result
        if p is not None and p.state == "confirmed":
            lines.append(f"{night_zh(s.night)}：已确认（第{p.version}版，{p.decided_at:%m-%d %H:%M}）")
            continue
        if p is not None and p.state == "corrected":
            lines.append(f"{night_zh(s.night)}：导演已直接录入（以导演录入的为准）")
            continue
        if waits_for_day(rt, s.night, now):
            lines.append(f"第{s.night}晚：等第{s.night}日的投票结果记录后再结算（批准第{s.night}日最终计票）")
            continue
        if day_trigger_open(rt, s.night, now):
            lines.append(f"第{s.night}晚：等第{s.night}日投票出局触发的技能答复（或时限结束）后再结算")
            continue
        if p is not None or (r is not None and r.ready):
            # Ready but not kept yet (the agent keeps it on its next pass): the same proposal.
            version = p.version if p is not None else 1
            head = (f"{night_zh(s.night)}：结算建议待确认（第{version}版）—— forumbot night --confirm {s.night}"
                    + ("" if secrets else "（加 --secrets 看全文）"))
            lines.append(head)
            if secrets:
                data = p.data if p is not None else proposal_data(r, current_state(rt.config, rt.store))  # type: ignore[arg-type]
                lines += nightrun_lines(data, s.night, version, "proposed")
            continue
        pending = _public_pending(r, secrets)
        if r is not None and r.disagreement:
            # The director sees it while the pack can still agree (no name, no target here).
            pending.append("狼人的指杀目标不一致：以最后一个有效指令为准")
        lines.append(f"{night_zh(s.night)}：收集行动中" + (f"（{'；'.join(pending)}）" if pending else ""))
        if secrets and r is not None:
            lines += nightrun_lines(proposal_data(r, current_state(rt.config, rt.store)), s.night, None, "proposed")
    return lines


def _public_pending(result: NightResult | None, secrets: bool) -> list[str]:
    """What a night waits for. Without ``secrets`` only the phases (the rule set's, public):
    a triggered skill awaited names its holder (等待 某某 发动最后一枪), a secret."""
    if result is None:
        return []
    if secrets:
        return list(result.pending())
    # Not even the phase's name: a crawl for identity words must find none without --secrets.
    ends = sorted({end for _, end in result.waiting})
    return [f"等待行动（{'、'.join(f'{end:%m-%d %H:%M}' for end in ends)} 截止）"] if ends else []


def nightrun_lines(data: dict[str, Any], night: int, version: int | None, state: str) -> list[str]:
    return ["  " + line for line in proposal_lines(data, night=night, state=state, version=version)[1:]]


def nights_json(rt: Runtime, now: datetime, *, secrets: bool = False) -> list[dict[str, Any]]:
    """The nights for ``forumbot status --json``; the proposal itself only with ``secrets``."""
    out = []
    for s in status_of(rt, now):
        p = s.proposal
        ready = p is None and s.result is not None and s.result.ready
        entry: dict[str, Any] = {"night": s.night, "state": p.state if p else "ready" if ready else "collecting",
                                 "version": p.version if p else None,
                                 "pending": _public_pending(s.result, secrets) if p is None else []}
        if secrets:
            entry["proposal"] = p.data if p else (
                proposal_data(s.result, current_state(rt.config, rt.store)) if s.result is not None else None)
        out.append(entry)
    return out


_STATE_ZH = {"proposed": "待确认", "confirmed": "已确认", "corrected": "导演已直接录入（以导演的为准）",
             "superseded": "已被新版取代"}


def proposal_lines(data: dict[str, Any], *, night: int, state: str = "proposed", version: int | None = None) -> list[str]:
    """A proposal for the director (Chinese): who dies and loses what, in order, marks,
    skills lost, what must be announced, the win, the pack's disagreement, the actions."""
    head = f"{night_zh(night)}结算建议" + (f"（第{version}版，{_STATE_ZH.get(state, state)}）" if version else "")
    lines = [head]
    deaths = data.get("deaths") or []
    if deaths:
        for d in deaths:
            effect = "出局" if d.get("effect") == "out" else "身份死亡"
            lines.append(f"  {d.get('order')}. {d.get('player')}（{d.get('identity')}）{effect}，原因：{d.get('cause')}")
    else:
        lines.append("  无人死亡（平安夜）")
    if data.get("marks"):
        lines.append(f"  标记：{'、'.join(data['marks'])}")
    for lost in data.get("skills_lost") or []:
        lines.append(f"  失去技能：{lost.get('player')}（{lost.get('identity')}）")
    for text in data.get("announcements") or []:
        lines.append(f"  须公布：{text}")
    win = data.get("win")
    if win:
        lines.append(f"  胜负：{win.get('faction')}获胜（{win.get('rule')}）")
    if data.get("disagreement"):
        lines.append("  注意：狼人的指杀目标不一致（以最后一个有效指令为准）")
    for text in data.get("pending") or []:
        lines.append(f"  {text}")
    for w in data.get("warnings") or []:
        lines.append(f"  警告：{w}")
    acts = data.get("actions") or []
    if acts:
        lines.append("  行动：")
        for a in acts:
            target = a.get("target")
            shown = "、".join(target) if isinstance(target, list) else (target or "")
            ruled = "计入" if a.get("counted") else f"不计入（{_reason_zh(a.get('reason'))}）"
            lines.append(f"    {a.get('actor')}（{a.get('identity') or '？'}）{a.get('skill')} {shown} — {ruled}")
    return lines


def _reason_zh(code: str | None) -> str:
    from engine.night import REASON_ZH, ActionReason

    try:
        return REASON_ZH[ActionReason(code)]
    except ValueError:
        return code or ""
