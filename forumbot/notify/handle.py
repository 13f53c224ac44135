"""The director's commands carried out, and the answers (Chinese) that go back by PM.

Approving by PM is ``forumbot.game.director.approve`` — the desk's and the CLI's operation —
with the actor ``director(pm)``; rejecting, sending again and entering a night likewise.
Whichever route comes first wins: a code is stale once its draft is decided (or the code
used), and the answer says by whom and when. Each command runs in a savepoint of the
caller's transaction (``Notifier`` commits the commands, the record of the message that
carried them and the answer in one transaction), so one that fails leaves nothing half
done and the others in the message still count. Every command is in the audit log
(``notify.command``), whatever became of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from engine.state import StateError
from forumbot.game import director
from forumbot.game.alarms import DRAFT_KIND_ZH, short_time
from forumbot.game.gamelog import DirectorError, EventSpec
from forumbot.notify.codes import Code, Codes
from parsers.commands import VERB_ZH, Command, Ref, Verb
from forumbot.notify.tell import HELP, Matter, current_matters, no_api_keys, status_text
from forumbot.store.outbox import Draft, DraftState, OutboxError, UnknownDraftError
from forumbot.game.runtime import Runtime

__all__ = ["CONFIRM_VALID", "Handler", "draft_name", "state_line", "plain"]

ACTOR = director.DIRECTOR_PM
CONFIRM_VALID = timedelta(hours=24)  # a preview's code, then it must be asked again


def plain(text: str) -> str:
    """A library line for the director: no command-line hints, no untranslated API keys."""
    from forumbot.wording import clean

    return no_api_keys(clean(text))


def draft_name(draft: Draft) -> str:
    day = f"第{draft.day}日" if draft.day else ""
    return f"#{draft.id} {day}{DRAFT_KIND_ZH.get(draft.kind.value, '帖子')}"


def _route(actor: str | None) -> str:
    return director.route_zh(actor)


def state_line(rt: Runtime, draft: Draft) -> str:
    """Where ``draft`` stands, with who decided it and when (Chinese)."""
    from forumbot.wording import forum_error

    name = draft_name(draft)
    when = f"于 {short_time(draft.approved_at)} " if draft.approved_at else ""
    who = _route(draft.approved_by) if draft.approved_by != "bot" else "自动"
    if draft.state is DraftState.DRAFT:
        return f"{name} 待审批"
    if draft.state in (DraftState.APPROVED, DraftState.PUBLISHING):
        return f"{name} 已{when}{who}批准，正在发出"
    if draft.state is DraftState.PUBLISHED:
        return f"{name} 已{when}{who}批准，已发布" + (f"（pid {draft.pid}）" if draft.pid else "")
    if draft.state is DraftState.PENDING_MODERATION:
        return f"{name} 已{when}{who}批准并发出，正在等论坛审核"
    if draft.state is DraftState.FAILED:
        return f"{name} 发送失败：{plain(forum_error(draft.last_error).text)}"
    if draft.state is DraftState.SUPERSEDED:
        return f"{name} 已被新的 #{draft.superseded_by} 取代" if draft.superseded_by else f"{name} 已过时，不再发送"
    last = next((h for h in reversed(rt.outbox.history(draft.id)) if h.to_state is DraftState.REJECTED), None)
    if last is None:
        return f"{name} 已驳回"
    why = plain(str(last.detail.get("why") or ""))
    if last.actor == "bot":
        return f"{name} 已由机器人撤下（{short_time(last.at)}）" + (f"：{why}" if why else "")
    return f"{name} 已于 {short_time(last.at)} {_route(last.actor)}驳回" + (f"（理由：{why}）" if why else "")


@dataclass
class Handler:
    """Carries out one message's commands at ``now`` (the message is ``pmid``)."""

    rt: Runtime
    codes: Codes
    now: datetime
    pmid: int
    prefix: str = ""  # the game's name and a space when the director runs several games
    answers: list[str] = field(default_factory=list)
    effects: list[dict[str, Any]] = field(default_factory=list)
    changed: bool = False  # a draft was approved or sent again: worth publishing at once

    def run(self, commands: list[Command]) -> None:
        conn = self.rt.store.db.conn
        for command in commands:
            conn.execute("SAVEPOINT notify_command")
            try:
                answer, effect = self._one(command)
            except (DirectorError, OutboxError, StateError, ValueError) as exc:
                conn.execute("ROLLBACK TO notify_command")
                answer, effect = f"「{command.text}」没有执行：{self._why(exc)}", {"result": "refused",
                                                                                "why": str(exc)}
            conn.execute("RELEASE notify_command")
            self.answers.append(answer)
            record = {"command": command.text, "verb": command.verb.value,
                      "refs": [str(r) for r in command.refs], "pmid": self.pmid, **effect}
            self.effects.append(record)
            self.rt.store.audit(ACTOR, "notify.command", record, at=self.now)

    @staticmethod
    def _why(exc: BaseException) -> str:
        from forumbot.wording import error_zh

        return plain(error_zh(exc).text)

    # -- one command ---------------------------------------------------------------------

    def _one(self, c: Command) -> tuple[str, dict[str, Any]]:
        if c.problem:
            return f"「{c.text}」没看懂：{c.problem}", {"result": "not_understood"}
        if c.verb is Verb.STATUS:
            return status_text(self.rt, self.now, self.code_for), {"result": "answered"}
        if c.verb is Verb.HELP:
            return HELP, {"result": "answered"}
        if c.verb is Verb.CONFIRM:
            return self._lines([self._confirm(ref) for ref in c.refs])
        if c.verb is Verb.ACTION:
            return self._action(c)
        if c.verb is Verb.NIGHT:
            return self._preview(c, self._night_spec(c))
        if c.verb is Verb.SHERIFF:
            return self._preview(c, EventSpec("sheriff", player=c.player))
        if c.verb is Verb.EXTEND and c.night is not None:
            return self._preview_extension(c)
        if c.verb in (Verb.DEADLINE, Verb.EXTEND):
            return self._preview_schedule(c)
        if c.verb is Verb.REOPEN:
            return director.ask_reopen(self.rt, c.day, self.now, actor=ACTOR), {"result": "done", "day": c.day}
        return self._lines([self._draft_command(c, ref) for ref in c.refs])

    @staticmethod
    def _lines(parts: list[tuple[str, dict[str, Any]]]) -> tuple[str, dict[str, Any]]:
        results = [p[1] for p in parts]
        outcome = "done" if all(r.get("result") == "done" for r in results) else (
            "answered" if all(r.get("result") in ("done", "answered") for r in results) else "refused")
        return "\n".join(p[0] for p in parts), {"result": outcome, "each": results}

    def code_for(self, matter: Matter) -> str | None:
        if matter.draft_id is None:
            return None
        return self.codes.draft_code(matter.draft_id, at=self.now)

    def _resolve(self, ref: Ref, verb: Verb) -> tuple[Draft | None, Code | None, str | None]:
        """The draft ``ref`` names, its code, or why it names none usable."""
        if ref.code is not None:
            code = self.codes.get(ref.code)
            if code is None:
                return None, None, (f"没有编号为 {ref.code} 的草稿或待确认的录入（编号不分大小写，"
                                    f"请对照机器人的消息）。回复「{self.prefix}状态」看现在的待办")
            if code.kind != "draft" or code.draft_id is None:
                return None, code, f"{ref.code} 是待确认的录入，不是草稿：要执行请回复「确认 {ref.code}」"
            draft = self.rt.outbox.get(code.draft_id)
            if code.used and verb is not Verb.VIEW:
                return draft, code, (f"编号 {ref.code} 已经用过（{short_time(code.used_at)}），不能再用："
                                     f"{state_line(self.rt, draft)}")
            return draft, code, None
        try:
            return self.rt.outbox.get(ref.draft_id or 0), None, None
        except UnknownDraftError:
            return None, None, f"没有草稿 #{ref.draft_id}。回复「{self.prefix}状态」看现在的待办"

    def _draft_command(self, c: Command, ref: Ref) -> tuple[str, dict[str, Any]]:
        draft, code, problem = self._resolve(ref, c.verb)
        if problem is not None:
            return problem, {"result": "refused", "ref": str(ref), "why": "unknown" if draft is None else "stale",
                             **({"draft": draft.id} if draft else {})}
        assert draft is not None
        effect: dict[str, Any] = {"ref": str(ref), "draft": draft.id}
        # 驳回 a post held for moderation: the bot stops waiting for it (as `forumbot reject`).
        allowed = {Verb.APPROVE: (DraftState.DRAFT, DraftState.FAILED),
                   Verb.REJECT: (DraftState.DRAFT, DraftState.FAILED, DraftState.PENDING_MODERATION),
                   Verb.RETRY: (DraftState.FAILED,)}.get(c.verb)
        if c.verb is Verb.VIEW:
            return self._view(draft, code), {**effect, "result": "answered"}
        assert allowed is not None
        if draft.state not in allowed:
            word = VERB_ZH[c.verb]
            if c.verb is Verb.APPROVE and draft.approved_by not in (None, "bot") and draft.state in (
                    DraftState.APPROVED, DraftState.PUBLISHING, DraftState.PUBLISHED, DraftState.PENDING_MODERATION):
                # A second approval: it came second, and the first one's route and time say by whom.
                return (f"{ref} 已失效：这次批准晚了一步，没有再做什么——{state_line(self.rt, draft)}",
                        {**effect, "result": "refused", "why": "stale", "second": True,
                         "first": draft.approved_by, "state": draft.state.value})
            return (f"{ref} 已失效，没有{word}：{state_line(self.rt, draft)}",
                    {**effect, "result": "refused", "why": "stale", "state": draft.state.value})
        name = draft_name(draft)
        if c.verb is Verb.REJECT and draft.state is DraftState.PENDING_MODERATION:
            director.reject(self.rt, draft.id, c.reason, self.now, actor=ACTOR)
            text = (f"已驳回 {name}：机器人不再等它通过审核（理由：{c.reason}）。"
                    "它仍在论坛的审核队列里，请版主删除它，免得日后被误放出")
        elif c.verb is Verb.REJECT:
            director.reject(self.rt, draft.id, c.reason, self.now, actor=ACTOR)
            text = f"已驳回 {name}，不会发出（理由：{c.reason}）"
        elif c.verb is Verb.RETRY or draft.state is DraftState.FAILED:
            director.retry(self.rt, draft.id, self.now, actor=ACTOR)
            self.changed = True
            text = f"将重新发送 {name}：先在论坛上查找它是否已经发出，不会重复"
        else:
            director.approve(self.rt, draft.id, self.now, actor=ACTOR)
            self.changed = True
            text = f"已批准 {name}：机器人马上发出（只发一次）"
        if code is not None:
            self.codes.use(code.code, at=self.now, pmid=self.pmid)
        return text, {**effect, "result": "done"}

    def _view(self, draft: Draft, code: Code | None) -> str:
        code_text = code.code if code is not None else (
            self.codes.draft_code(draft.id, at=self.now) if draft.state in (DraftState.DRAFT, DraftState.FAILED)
            else None)
        lines = [f"【全文】{draft_name(draft)}（{state_line(self.rt, draft).removeprefix(draft_name(draft)).strip()}）",
                 draft.body.strip(), "——"]
        if draft.state is DraftState.DRAFT and code_text:
            lines.append(f"回复「批准 {code_text}」发出，「驳回 {code_text} 理由：……」不发")
        elif draft.state is DraftState.FAILED and code_text:
            lines.append(f"回复「重发 {code_text}」再发一次，「驳回 {code_text} 理由：……」放弃")
        else:
            lines.append("（全文结束）")
        return "\n".join(lines)

    # -- the nights the bot runs ------------------------------------------------------------

    def _confirm_night(self, night: int, version: int | None, ref: Ref) -> tuple[str, dict[str, Any]]:
        """确认 夜N (or the proposal's code): the night's proposal becomes the next morning's
        entry, as ``forumbot night --confirm N``."""
        from forumbot.game import nightrun

        proposal = nightrun.confirm(self.rt, night, self.now, actor=ACTOR, version=version)
        out = "、".join(proposal.data.get("out") or ()) or "无人（平安夜）"
        lines = [f"已确认{nightrun.night_zh(night)}（第{proposal.version}版）：{out}，第{night + 1}日开始时生效"]
        try:
            draft = director.announcement_draft(self.rt, night + 1, self.now)
        except DirectorError:
            draft = None
        if draft is not None and draft.state is DraftState.DRAFT:
            lines.append(f"第{night + 1}日公示 #{draft.id} 已起草，待你审批")
        elif draft is None:
            lines += _words_wait(self.rt, night + 1, self.now)
        return "\n".join(lines), {"result": "done", "ref": str(ref), "night": night, "events": list(proposal.events)}

    def _action(self, c: Command) -> tuple[str, dict[str, Any]]:
        """行动 玩家 技能 目标: the director enters an action for the night in progress."""
        from forumbot.game import nightrun

        mode = nightrun.mode_of(self.rt)
        filed = nightrun.director_action(self.rt, c.text, self.now, actor=ACTOR)
        assert mode is not None
        return (f"{filed.record.actor}：{filed.answer(mode)}（第{filed.record.night}晚，导演录入）",
                {"result": "done", "action": filed.record.id})

    # -- entries that wait for 确认 --------------------------------------------------------

    def _night_spec(self, c: Command) -> EventSpec:
        day = c.day
        if day is None:
            awaited = [m.day for m in current_matters(self.rt, self.now, ["night_result"]) if m.day]
            if len(awaited) != 1:
                raise DirectorError("请写明是第几日的前夜，例如：夜晚 第3日 出局：汤圆")
            day = awaited[0]
        return EventSpec("night", day=day, players=c.players)

    def _basis(self) -> int:
        events = self.rt.store.events()
        return events[-1].id if events else 0

    def _preview(self, c: Command, spec: EventSpec) -> tuple[str, dict[str, Any]]:
        from forumbot.game import gamelog

        impact = gamelog.preview(self.rt, spec, self.now)
        payload = {"kind": spec.kind, "day": spec.day, "players": list(spec.players), "player": spec.player,
                   "basis": self._basis(), "command": c.text}
        code = self.codes.event_code(payload, at=self.now)
        lines = [plain(line) for line in impact.lines()]
        lines.append(f"确认请回复「确认 {code}」（这次预览的编号，只能用一次；局面有变化需重新发送）")
        return "\n".join(lines), {"result": "previewed", "code": code, "summary": impact.summary}

    # -- the schedule's changes (SPEC §11): 截止 / 延长, previewed, then 确认 ----------------

    def _schedule_basis(self) -> str:
        changes = self.rt.store.day_changes()
        return f"days:{changes[-1].id if changes else 0}"

    @staticmethod
    def _request(p: dict[str, Any], now: datetime) -> director.DeadlineRequest:
        return director.DeadlineRequest(
            day=p.get("day"), at=director.parse_when(p["when"], now) if p.get("when") else None,
            extend=director.parse_span(p["span"]) if p.get("span") else None, close_now=bool(p.get("now")))

    def _preview_schedule(self, c: Command) -> tuple[str, dict[str, Any]]:
        payload = {"kind": "schedule", "day": c.day, "when": c.when, "span": c.span, "now": c.now,
                   "command": c.text}
        shown = director.preview_deadline(self.rt, self._request(payload, self.now), self.now)
        if not shown.shifts:
            return f"「{c.text}」：没有任何时间改变", {"result": "answered"}
        # The moment typed is read now: 确认 later carries out exactly what was previewed.
        payload.update(day=shown.change.day, basis=self._schedule_basis(),
                       when=getattr(shown.change, "deadline", None) and shown.change.deadline.isoformat())
        code = self.codes.event_code(payload, at=self.now)
        lines = [plain(line) for line in shown.lines_zh()]
        lines.append(f"确认请回复「确认 {code}」（这次预览的编号，只能用一次；日程有变化需重新发送）")
        return "\n".join(lines), {"result": "previewed", "code": code, "change": shown.change.describe_zh()}

    def _confirm_schedule(self, ref: Ref, code: Code) -> tuple[str, dict[str, Any]]:
        p = code.payload
        if p.get("basis") != self._schedule_basis():
            return (f"编号 {ref} 已失效：预览之后日程有了变化，请重新发送「{p.get('command', '')}」看最新的影响",
                    {"result": "refused", "ref": str(ref), "why": "changed"})
        shown = director.change_deadline(self.rt, self._request(p, self.now), self.now, actor=ACTOR)
        self.codes.use(code.code, at=self.now, pmid=self.pmid)
        return (f"已记下：{plain(shown.change.describe_zh())}。机器人下一轮按新的时间提醒和截止",
                {"result": "done", "ref": str(ref), "change": shown.change.describe_zh()})

    # -- a night's phase lengthened (SPEC §10.2): 延长 夜N 女巫 30分钟, previewed, then 确认 -----

    def _extension_basis(self) -> str:
        kept = self.rt.store.night_extensions()
        return f"nights:{kept[-1].id if kept else 0}"

    def _preview_extension(self, c: Command) -> tuple[str, dict[str, Any]]:
        from forumbot.game import nightplan

        assert c.night is not None and c.phase is not None
        request = nightplan.ExtendRequest(c.night, c.phase, span=c.span, until=c.when)
        shown = nightplan.preview_extension(self.rt, request, self.now)
        # The minutes are read now: 确认 later carries out exactly what was previewed.
        payload = {"kind": "night_extension", "night": shown.night, "phase": shown.phase.value,
                   "minutes": shown.minutes, "basis": self._extension_basis(), "command": c.text}
        code = self.codes.event_code(payload, at=self.now)
        lines = [plain(line) for line in shown.lines_zh()]
        lines.append(f"确认请回复「确认 {code}」（这次预览的编号，只能用一次；阶段有变化需重新发送）")
        return "\n".join(lines), {"result": "previewed", "code": code, "change": shown.describe_zh()}

    def _confirm_extension(self, ref: Ref, code: Code) -> tuple[str, dict[str, Any]]:
        from forumbot.game import nightplan

        p = code.payload
        if p.get("basis") != self._extension_basis():
            return (f"编号 {ref} 已失效：预览之后夜晚的阶段有了变化，请重新发送「{p.get('command', '')}」看最新的影响",
                    {"result": "refused", "ref": str(ref), "why": "changed"})
        request = nightplan.ExtendRequest(int(p["night"]), str(p["phase"]), span=f"{int(p['minutes'])}分钟")
        shown = nightplan.extend_phase(self.rt, request, self.now, actor=ACTOR)
        self.codes.use(code.code, at=self.now, pmid=self.pmid)
        return (f"已记下：{plain(shown.describe_zh())}。机器人下一轮按新的时间裁定行动和结算",
                {"result": "done", "ref": str(ref), "change": shown.describe_zh()})

    def _confirm(self, ref: Ref) -> tuple[str, dict[str, Any]]:
        from forumbot.game import gamelog

        if ref.night is not None:
            return self._confirm_night(ref.night, None, ref)
        code = self.codes.get(ref.code) if ref.code else None
        if code is None or code.kind != "event":
            if code is not None:
                return (f"{ref} 是草稿的编号：要发出请回复「批准 {ref}」",
                        {"result": "refused", "ref": str(ref), "why": "not_an_entry"})
            return (f"没有编号为 {ref} 的待确认录入。回复「{self.prefix}状态」看现在的待办",
                    {"result": "refused", "ref": str(ref), "why": "unknown"})
        p = code.payload
        if code.used:
            return (f"编号 {ref} 已经在 {short_time(code.used_at)} 确认过了：{p.get('command', '')}",
                    {"result": "refused", "ref": str(ref), "why": "used"})
        if self.now - code.issued_at > CONFIRM_VALID:
            return (f"编号 {ref} 已过期（预览于 {short_time(code.issued_at)}）：请重新发送「{p.get('command', '')}」",
                    {"result": "refused", "ref": str(ref), "why": "expired"})
        if p.get("kind") == "schedule":
            return self._confirm_schedule(ref, code)
        if p.get("kind") == "night_extension":
            return self._confirm_extension(ref, code)
        if p.get("kind") == "night_proposal":  # the bot's resolution of a night: its version decides
            said, effect = self._confirm_night(int(p["night"]), p.get("version"), ref)
            if effect.get("result") == "done":
                self.codes.use(code.code, at=self.now, pmid=self.pmid)
            return said, effect
        if p.get("basis") != self._basis():
            return (f"编号 {ref} 已失效：预览之后局面有了变化（有新的录入或撤销），请重新发送"
                    f"「{p.get('command', '')}」看最新的影响",
                    {"result": "refused", "ref": str(ref), "why": "changed"})
        spec = EventSpec(p["kind"], day=p.get("day"), players=tuple(p.get("players") or ()), player=p.get("player"))
        applied = gamelog.enter(self.rt, spec, self.now, actor=ACTOR)
        lines = [plain(line) for line in applied.lines()]
        if spec.kind == "night" and spec.day is not None:
            try:  # the agent drafts it too, next pass: a failure here does not undo the night
                draft = director.announcement_draft(self.rt, spec.day, self.now)
            except DirectorError:
                draft = None
            if draft is not None and draft.state is DraftState.DRAFT:
                lines.append(f"第{spec.day}日公示 #{draft.id} 已起草，待你审批")
            elif draft is None:
                lines += _words_wait(self.rt, spec.day, self.now)
        self.codes.use(code.code, at=self.now, pmid=self.pmid)
        return "\n".join(lines), {"result": "done", "ref": str(ref), "event": applied.event.id}


def _words_wait(rt, day: int, now) -> list[str]:
    """Why the morning announcement is not drafted yet: it waits for 遗言 (or nothing)."""
    from forumbot.game.lastwords import wait_note
    from forumbot.game.state import current_state

    note = wait_note(rt, current_state(rt.config, rt.store), day, now)
    return [note] if note else []
