"""Changes to the game from the desk, each in two steps: the form shows what it will do
(the confirm page: ``forumbot.game.gamelog``'s preview of the rulings, counts and result of
every day it touches, the drafts it redrafts, the published posts it makes wrong), and
only the second POST — the same fields, confirmed — applies it.

* events (出局, 身份死亡, 若愚, 警长, 替罪羊, 冤死, 加速, 夜晚结果, 别名, 替补, 判废),
  their undo (with a reason) and their correction (wrong player, wrong time);
* the badge's random draw; cards (a send-off is an out) and taking one back;
* the game's end;
* the schedule (SPEC §11): a day's deadline moved, the day lengthened or closed now (the
  preview says what moves: the deadline, the change freeze, the days after it), and a
  voting thread the bot closed opened again;
* a night's phase lengthened (``forumbot.game.nightplan``: the preview lists each phase
  that moves).

If the effect changed between the two steps (the agent read new votes that turn a
result, another draft went stale), the change is not applied: the new effect is shown to
confirm again (``impact.fingerprint``).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import datetime
from typing import Any

from flask import abort, flash, g, redirect, render_template, request, url_for

from engine.badge import Succession
from engine.cards import Decision
from forumbot.game import director
from forumbot.game import ending
from forumbot import wording as texts
from forumbot.desk import data, forms
from forumbot.desk.app import runtime_holder
from forumbot.desk.impact import ImpactView, fingerprint, view
from forumbot.desk.routes import (bp, domain_errors, field, int_field, local, page_context, render_page,
                                   say_error)
from forumbot.game.director import DirectorError, EventSpec
from forumbot.game.state import current_state, day_at
from forumbot.game.gamelog import Applied
from forumbot.game.nightplan import ExtendRequest, extend_phase, preview_extension
from forumbot.game.runtime import Runtime

CHANGED = "游戏在你确认之前有了变化，结果与刚才看到的不同：请再看一遍，确认后才会执行。"


def _confirm(rt: Runtime, now: datetime, *, title: str, impact: ImpactView | None, fields: list[tuple[str, str]],
             action: str, verb: str, back: str, lines: list[str] | None = None, changed: bool = False,
             danger: bool = True) -> str:
    """The confirm page: what the change does, and the one button that applies it."""
    g.poll_seconds = 0  # a POST's answer: never refreshed in place
    context = page_context(rt, now)
    context["banner"] = None  # the decision at hand only; the banner is on every other page
    return render_template("confirm.html", **context, title=title, impact=impact, fields=fields,
                           action=action, verb=verb, back=back, lines=lines or [], changed=changed, changed_text=CHANGED,
                           danger=danger)


def _back(default: str) -> str:
    return local(request.form.get("next"), default)


def _fields_with(fields: list[tuple[str, str]], **more: Any) -> list[tuple[str, str]]:
    out = list(fields)
    for name, value in more.items():
        if value is not None and value != "":
            out.append((name, str(value)))
    return out


def _applied_lines(applied: Applied) -> list[str]:
    """What was done, in Chinese (the library's ``Applied.lines`` names draft kinds in English)."""
    out = [f"已记录事件 #{applied.event.id}：{texts.clean(applied.impact.summary)}"]
    out += [f"已重新起草 #{d.id}（{texts.kind_zh(d.kind)}" + (f"，第{d.day}日" if d.day else "") + "），等你审批"
            for d in applied.redrafted]
    out += [f"{texts.kind_zh(d.kind)}草稿 #{d.id} 等你审批" for d in applied.notices]
    out += [texts.clean(s) for s in applied.settled]
    out += [f"已发布的{texts.kind_zh(d.draft.kind)} #{d.draft.id} 已不正确（见「待发帖子」页）"
            for d in applied.impact.stale_published]
    return out


# ---------------------------------------------------------------- events


@bp.post("/event")
def event_preview():
    back = _back(url_for("desk.actions"))
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            spec = forms.spec_from_form(rt, request.form)
            spec, default = forms.resolve(rt, spec, now)
            impact = director.preview(rt, spec, now)
            return _event_confirm(rt, now, spec, impact, default, back)
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


def _time_line(rt: Runtime, spec: EventSpec, default: str | None) -> list[str]:
    if spec.at is None:
        return []
    at = spec.at.astimezone(rt.config.forum.tz)
    return [f"生效时间：{at:%Y-%m-%d %H:%M:%S}" + (f"（{default}）" if default else "（你填写的时间）")]


def _event_confirm(rt: Runtime, now: datetime, spec: EventSpec, impact, default: str | None, back: str, *,
                   changed: bool = False) -> str:
    fields = _fields_with(forms.spec_fields(spec), fingerprint=fingerprint(impact), next=back)
    return _confirm(rt, now, title=f"确认：{texts.EVENT_KIND_ZH.get(spec.kind, '操作')}", impact=view(impact),
                    fields=fields, action=url_for("desk.event_apply"), verb=forms.VERB[spec.kind], back=back,
                    lines=_time_line(rt, spec, default), changed=changed)


@bp.post("/event/apply")
def event_apply():
    back = _back(url_for("desk.actions"))
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            g.forum_tz = rt.config.forum.tz
            spec = forms.spec_from_form(rt, request.form)
            impact = director.preview(rt, spec, now)
            if fingerprint(impact) != request.form.get("fingerprint"):
                return _event_confirm(rt, now, spec, impact, None, back, changed=True)
            applied = director.enter(rt, spec, now)
            lines = _applied_lines(applied)
            if spec.kind == "night":
                lines[0] = f"第{applied.event.day}日前夜：" + ("、".join(applied.event.payload.get("out", [])) or "平安夜") \
                    + f"（事件 #{applied.event.id}）"
                draft = director.announcement_draft(rt, applied.event.day, now)
                if draft is not None:
                    lines.append(f"公示草稿 #{draft.id} 等你审批")
            lines.append(f"如有错误，可在「事件」页撤销或更正 #{applied.event.id}")
        flash("；".join(lines), "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(back)


# ---------------------------------------------------------------- undo and correct


@bp.post("/events/<int:event_id>/undo")
def undo_preview(event_id: int):
    back = url_for("desk.events")
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            why = field("why", what="撤销的理由（记入日志）")
            impact = director.preview_retract(rt, event_id, now)
            return _undo_confirm(rt, now, event_id, why, impact)
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


def _undo_confirm(rt: Runtime, now: datetime, event_id: int, why: str, impact, *, changed: bool = False) -> str:
    target = rt.store.event(event_id)
    restoring = target.kind.value == "retract"
    fields = [("why", why), ("fingerprint", fingerprint(impact))]
    title = f"确认：恢复事件 #{target.payload.get('event')}" if restoring else f"确认：撤销事件 #{event_id}"
    return _confirm(rt, now, title=title, impact=view(impact), fields=fields,
                    action=url_for("desk.undo_apply", event_id=event_id),
                    verb="确认恢复" if restoring else "确认撤销", back=url_for("desk.events"),
                    lines=[f"理由：{why}"], changed=changed)


@bp.post("/events/<int:event_id>/undo/apply")
def undo_apply(event_id: int):
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            g.forum_tz = rt.config.forum.tz
            why = field("why", what="撤销的理由（记入日志）")
            impact = director.preview_retract(rt, event_id, now)
            if fingerprint(impact) != request.form.get("fingerprint"):
                return _undo_confirm(rt, now, event_id, why, impact, changed=True)
            target = rt.store.event(event_id)
            applied = director.retract(rt, event_id, why, now)
            lines = _applied_lines(applied)
            what = texts.clean(applied.impact.summary).split("：", 1)[-1]
            if target.kind.value == "retract":
                lines[0] = f"已恢复事件 #{target.payload.get('event')}（取消了撤销记录 #{event_id}）"
            else:
                lines[0] = f"已撤销事件 #{event_id}：{what}（撤销记录 #{applied.event.id}；撤销它即可恢复）"
        flash("；".join(lines), "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for("desk.events"))


@bp.get("/events/<int:event_id>/correct")
def correct_form(event_id: int):
    def build(rt: Runtime, now: datetime) -> dict[str, Any]:
        rows = [r for r in data.events(rt) if r.view.id == event_id]
        if not rows or not rows[0].correctable:
            abort(404, description=f"事件 #{event_id} 不存在或不能更正（只有生效的出局、身份死亡、若愚、警长、"
                                   "替罪羊、夜晚结果、冤死名单和加速可以更正；其他请撤销后重新录入）")
        row = rows[0]
        tz = rt.config.forum.tz
        return {"row": row, "p": row.view.payload, "at_local": forms.local(row.view.game_at, tz),
                "players": g.state.players, "why_choices": texts.OUT_WHY_CHOICES + (("card", "红牌罚下"),),
                "listed": list(row.view.payload.get("players") or row.view.payload.get("out") or []),
                "slots": max(forms.NIGHT_SLOTS, len(row.view.payload.get("out") or [])),
                "days": sorted(d.number for d in g.state.days), "nobody": forms.NOBODY}

    return render_page("correct.html", build)


def _correction(rt: Runtime, event_id: int) -> EventSpec:
    from forumbot.game.entry import correction_spec  # the CLI's reading of "what is not given is kept"

    form = request.form
    player = form.get("player", "").strip()
    why = form.get("why", "").strip() or None
    day = int_field("day", required=False, what="日期")
    at = forms.parse_time(rt, form.get("at", "").strip())
    old = rt.store.event(event_id)
    players = None
    if old.kind.value in ("night", "voters"):
        players = tuple(n for n in (v.strip() for v in form.getlist("players")) if n)
        if form.get("nobody"):
            players = ()
    spec = correction_spec(rt, event_id, player=None if player in ("", forms.NOBODY) else player, at=at, why=why,
                           day=day, players=players)
    if old.kind.value in ("sheriff", "scapegoat") and player == forms.NOBODY:
        spec = replace(spec, player=None)
    return spec


@bp.post("/events/<int:event_id>/correct")
def correct_preview(event_id: int):
    back = url_for("desk.correct_form", event_id=event_id)
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            because = field("because", what="更正的理由（记入日志）")
            spec = _correction(rt, event_id)
            impact = director.preview_correct(rt, event_id, spec, now)
            return _correct_confirm(rt, now, event_id, spec, because, impact)
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


def _correct_confirm(rt: Runtime, now: datetime, event_id: int, spec: EventSpec, because: str, impact, *,
                     changed: bool = False) -> str:
    fields = _fields_with(forms.spec_fields(spec), because=because, fingerprint=fingerprint(impact))
    return _confirm(rt, now, title=f"确认：更正事件 #{event_id}", impact=view(impact), fields=fields,
                    action=url_for("desk.correct_apply", event_id=event_id), verb="确认更正",
                    back=url_for("desk.correct_form", event_id=event_id),
                    lines=_time_line(rt, spec, None) + [f"理由：{because}"], changed=changed)


@bp.post("/events/<int:event_id>/correct/apply")
def correct_apply(event_id: int):
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            g.forum_tz = rt.config.forum.tz
            because = field("because", what="更正的理由（记入日志）")
            spec = forms.spec_from_form(rt, request.form)
            impact = director.preview_correct(rt, event_id, spec, now)
            if fingerprint(impact) != request.form.get("fingerprint"):
                return _correct_confirm(rt, now, event_id, spec, because, impact, changed=True)
            applied = director.correct(rt, event_id, spec, because, now)
            lines = _applied_lines(applied)
        flash("；".join(lines), "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for("desk.events"))


# ---------------------------------------------------------------- the badge's draw


def _draw_key(badge) -> str:
    return hashlib.sha256("、".join(badge.candidates).encode("utf-8")).hexdigest()[:16]


@bp.post("/sheriff/draw")
def draw_preview():
    back = url_for("desk.actions", _anchor="sheriff")
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            return _draw_confirm(rt, now)
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


def _draw_confirm(rt: Runtime, now: datetime, *, changed: bool = False) -> str:
    badge = director.badge(rt, now)
    if badge.vacancy is None:
        raise DirectorError("警长没有空缺，不需要抽签")
    if badge.succession is Succession.VACANT:
        raise DirectorError("本规则下罚下不触发【殉职】，警徽不随机移交")
    if badge.succession is not Succession.DRAW and not badge.draw_offered(now):
        when = f"{badge.draw_from:%m-%d %H:%M} 起才可随机移交" if badge.draw_from else "本规则不随机移交警徽"
        raise DirectorError(f"{when}：请等待 {badge.vacancy.previous} 指定继任者")
    lines = [texts.clean(badge.describe(now)), "候选：" + ("、".join(badge.candidates) or "无"),
             "确认后随机抽取一人继任警长；随机种子在确认时生成并记入事件，任何人都可以复核。",
             "会生成一篇警长通知草稿，等你审批。"]
    return _confirm(rt, now, title="确认：随机移交警徽", impact=None, fields=[("candidates", _draw_key(badge))],
                    action=url_for("desk.draw_apply"), verb="确认随机抽取", back=url_for("desk.actions"),
                    lines=lines, changed=changed)


@bp.post("/sheriff/draw/apply")
def draw_apply():
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            g.forum_tz = rt.config.forum.tz
            if _draw_key(director.badge(rt, now)) != request.form.get("candidates"):
                return _draw_confirm(rt, now, changed=True)
            applied = director.draw_sheriff(rt, now)
            lines = _applied_lines(applied)
        flash("；".join(lines), "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for("desk.actions"))


# ---------------------------------------------------------------- cards


def _card_preview(rt: Runtime, player: str, color: str, points: int | None, why: str,
                  now: datetime) -> tuple[ImpactView, str]:
    """What a card does: the ledger after it, a send-off (an out, previewed as an event),
    the badge of a sent-off sheriff."""
    if not player:
        raise DirectorError("请先选择玩家（为防误触，名单不预选任何人）")
    points_rule = rt.config.rules.card_policy.value == "points"
    if not color and not points_rule:
        raise DirectorError("请选择牌色")
    color = director.card_choice(rt.config.rules, color, points)  # 双身份: points, never a colour
    if not why:
        raise DirectorError("请填写理由（会公布在判罚通知里）")
    state = current_state(rt.config, rt.store)
    book, _ = director.ledger(rt, state)
    day = day_at(state, now)
    decision = Decision(player=player, day=day.number if day else 0, card=director.card_of(color),
                        points=points or 0, why=why, at=now)
    before = book.standing(player)
    after_book, _, events = book.apply(decision, state, seed=0)
    after = after_book.standing(player)
    said = texts.card_said(color, points)
    summary = f"给 {player} {said}：{why}"
    notes = [e.detail for e in events if e.kind in ("upgrade", "points")]
    if points_rule:
        notes.append(f"{player} 累计扣分：{before.points} → {after.points}（满 {rt.config.rules.sendoff_points} 分罚下）")
    else:
        notes.append(f"{player} 的卡牌：蓝 {before.blue} 黄 {before.yellow} → 蓝 {after.blue} 黄 {after.yellow}")
    sent_off = any(e.kind == "sent_off" for e in events)
    impact = None
    if sent_off:
        notes.append(f"{player} 将被罚下（无遗言），从现在起出局" if not points_rule else
                     f"{player} 累计扣满{rt.config.rules.sendoff_points}分，将被罚下（无遗言），从现在起出局")
        if any(e.kind == "badge" for e in events):
            notes.append(f"{player} 是警长：警徽将随机移交（确认时抽签，随机种子会记录）")
        if not state.is_out(player, now):
            impact = director.preview(rt, EventSpec("out", player=player, why="card", at=now, note=why), now)
    notes.append("会生成一篇判罚通知草稿，等你审批")
    if impact is not None:
        shown = view(impact, notes=notes)
        shown = replace(shown, summary=summary)
    else:
        shown = ImpactView(summary=summary, notes=notes)
    key = hashlib.sha256("|".join([summary, *notes, fingerprint(impact) if impact else ""]).encode()).hexdigest()[:16]
    return shown, key


def _card_form() -> tuple[str, str, int | None, str]:
    return (field("player", required=False), field("color", required=False),
            int_field("points", required=False, what="扣分"), field("why", required=False))


@bp.post("/cards/give")
def give_preview():
    back = url_for("desk.cards")
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            player, color, points, why = _card_form()
            return _give_confirm(rt, now, player, color, points, why, proposal=None)
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


@bp.post("/cards/<int:proposal_id>/accept")
def accept_preview(proposal_id: int):
    back = url_for("desk.cards")
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            proposal = rt.store.proposal(proposal_id)
            # The ledger entry takes the proposal's colour (store.accept_proposal): the card
            # given is the one proposed; another card is a dismissal plus a direct card.
            # 双身份 counts points: a proposal is a deduction whatever colour an older one carried.
            colour = "points" if rt.config.rules.card_policy.value == "points" else proposal.color.value
            return _give_confirm(rt, now, proposal.player, colour,
                                 int_field("points", required=False, what="扣分"), field("why", required=False),
                                 proposal=proposal_id)
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


def _give_confirm(rt: Runtime, now: datetime, player: str, color: str, points: int | None, why: str, *,
                  proposal: int | None, changed: bool = False) -> str:
    shown, key = _card_preview(rt, player, color, points, why, now)
    fields = _fields_with([("player", player), ("color", color), ("why", why)], points=points,
                          proposal=proposal, fingerprint=key)
    return _confirm(rt, now, title="确认：判罚", impact=shown, fields=fields, action=url_for("desk.give_apply"),
                    verb="确认扣分" if color == "points" else f"确认给出{texts.card_zh(color)}",
                    back=url_for("desk.cards"), changed=changed)


@bp.post("/cards/give/apply")
def give_apply():
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            g.forum_tz = rt.config.forum.tz
            player, color, points, why = _card_form()
            proposal = int_field("proposal", required=False, what="提议编号")
            _, key = _card_preview(rt, player, color, points, why, now)
            if key != request.form.get("fingerprint"):
                return _give_confirm(rt, now, player, color, points, why, proposal=proposal, changed=True)
            result = director.give_card(rt, player, color, why, now, points=points, proposal_id=proposal)
        flash(_card_message(result), "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for("desk.cards"))


def _card_message(result: director.CardOutcome) -> str:
    return result.describe("（判错了：在本页账本里「撤销…」这张牌，罚下和警徽移交一并撤销）")


@bp.post("/cards/<int:entry_id>/undo")
def card_undo_preview(entry_id: int):
    back = url_for("desk.cards")
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            why = field("why", what="撤销判罚的理由（会写进通知和审计日志）")
            return _card_undo_confirm(rt, now, entry_id, why)
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


def _card_take_back(rt: Runtime, entry_id: int, now: datetime) -> tuple[ImpactView, str]:
    """What taking a card back does, for the confirm page, and the key that says it did
    not change before the director confirmed."""
    change = director.preview_take_back_card(rt, entry_id, now)
    lines = [texts.clean(line) for line in change.lines()]
    summary, notes = lines[0], lines[1:2]  # the card; the player's standing before → after
    if change.events:
        notes.append("一并撤销这张牌造成的事件：" + "、".join(f"#{i}" for i in change.events))
    notes.append("会生成一篇【撤销判罚】通知草稿，等你审批")
    shown = (replace(view(change.impact, notes=notes), summary=summary) if change.impact is not None
             else ImpactView(summary=summary, notes=notes))
    key = hashlib.sha256("|".join([*lines, fingerprint(change.impact) if change.impact else ""]).encode())
    return shown, key.hexdigest()[:16]


def _card_undo_confirm(rt: Runtime, now: datetime, entry_id: int, why: str, *, changed: bool = False) -> str:
    shown, key = _card_take_back(rt, entry_id, now)
    return _confirm(rt, now, title=f"确认：撤销判罚 #{entry_id}", impact=shown,
                    fields=[("why", why), ("fingerprint", key)],
                    action=url_for("desk.card_undo_apply", entry_id=entry_id), verb="确认撤销判罚",
                    back=url_for("desk.cards"), lines=[f"理由：{why}"], changed=changed)


@bp.post("/cards/<int:entry_id>/undo/apply")
def card_undo_apply(entry_id: int):
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            g.forum_tz = rt.config.forum.tz
            why = field("why", what="撤销判罚的理由（会写进通知和审计日志）")
            _, key = _card_take_back(rt, entry_id, now)
            if key != request.form.get("fingerprint"):
                return _card_undo_confirm(rt, now, entry_id, why, changed=True)
            change, draft = director.take_back_card(rt, entry_id, why, now)
        entry = change.entry
        text = f"已撤销判罚 #{entry.id}：{entry.player} 的{texts.card_said(entry.color, entry.points)}"
        if change.events:
            text += "；一并撤销了它造成的事件 " + "、".join(f"#{i}" for i in change.events)
        if draft is not None:
            text += f"；【撤销判罚】通知草稿 #{draft.id} 等你审批"
        flash(text, "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for("desk.cards"))


# ---------------------------------------------------------------- the game's end


@bp.post("/game/over")
def over_preview():
    back = url_for("desk.now")
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            winner, note = field("winner", required=False), field("note", required=False)
            if winner not in texts.WINNER_ZH:
                raise DirectorError("请选择结局")
            if ending.recorded(rt) is not None:
                raise DirectorError("已经宣布过游戏结束")
            lines = [f"结局：{texts.WINNER_ZH[winner]}" + (f"（{note}）" if note else ""),
                     "导演台会显示游戏已结束，不再提醒录入之后的夜晚结果或继任警长；待审批和发送失败的帖子照常显示。",
                     "机器人不会因此在论坛上发帖；需要时可以撤销。"]
            return _confirm(rt, now, title="确认：宣布游戏结束", impact=None,
                            fields=[("winner", winner), ("note", note)], action=url_for("desk.over_apply"),
                            verb="确认游戏结束", back=back, lines=lines)
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


@bp.post("/game/over/apply")
def over_apply():
    try:
        with runtime_holder().use() as rt:
            ending.declare(rt, field("winner", required=False), field("note", required=False), rt.clock.now())
        flash("已宣布游戏结束（可以撤销）。", "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for("desk.now"))


@bp.post("/game/resume")
def resume():
    try:
        with runtime_holder().use() as rt:
            ending.resume(rt, field("why", what="理由"), rt.clock.now())
        flash("已撤销游戏结束。", "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for("desk.now"))


# ---------------------------------------------------------------- the schedule

SCHEDULE_BACK = "desk.now"


def _schedule_request(rt: Runtime, now: datetime) -> director.DeadlineRequest:
    how = field("how", what="改法")
    day = int_field("day", required=False, what="第几日")
    why = field("why", required=False)
    if how == "at":
        return director.DeadlineRequest(day=day, at=director.parse_when(field("at", what="新的截止时间"), now), why=why)
    if how == "extend":
        return director.DeadlineRequest(day=day, extend=director.parse_span(field("extend", what="延长多久")), why=why)
    if how == "now":
        return director.DeadlineRequest(day=day, close_now=True, why=why)
    raise director.DirectorError("请选择改法：改截止时间、延长或现在截止")


def _schedule_key(rt: Runtime, lines: tuple[str, ...]) -> str:
    """What the confirmation was about: the changes made so far and the preview shown."""
    changes = rt.store.day_changes()
    basis = f"{changes[-1].id if changes else 0}|" + "\n".join(lines)
    return hashlib.sha256(basis.encode("utf-8")).hexdigest()[:16]


def _schedule_fields() -> list[tuple[str, str]]:
    return [(name, request.form.get(name, "")) for name in ("how", "day", "at", "extend", "why")]


def _deadline_confirm(rt: Runtime, now: datetime, *, changed: bool = False) -> str:
    shown = director.preview_deadline(rt, _schedule_request(rt, now), now)
    lines = shown.lines_zh()
    if not shown.shifts:
        raise director.DirectorError("没有任何时间改变")
    return _confirm(rt, now, title="确认：改日程", impact=None, fields=[*_schedule_fields(), ("key", _schedule_key(rt, lines))],
                    action=url_for("desk.deadline_apply"), verb="确认修改", back=url_for(SCHEDULE_BACK, _anchor="schedule"),
                    lines=[*lines, "确认后机器人按新的时间提醒和截止（截止帖、关闭投票帖）。"], changed=changed)


@bp.post("/schedule/deadline")
def deadline_preview():
    back = url_for(SCHEDULE_BACK, _anchor="schedule")
    try:
        with runtime_holder().use() as rt:
            return _deadline_confirm(rt, rt.clock.now())
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


@bp.post("/schedule/deadline/apply")
def deadline_apply():
    back = url_for(SCHEDULE_BACK, _anchor="schedule")
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            shown = director.preview_deadline(rt, _schedule_request(rt, now), now)
            if _schedule_key(rt, shown.lines_zh()) != request.form.get("key"):
                return _deadline_confirm(rt, now, changed=True)
            done = director.change_deadline(rt, _schedule_request(rt, now), now)
            flash(f"已记下：{done.change.describe_zh()}", "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(back)


# ---------------------------------------------------------------- a night's phase lengthened

NIGHTS_BACK = "desk.actions"


def _extension_request() -> ExtendRequest:
    how = field("how", what="延长法")
    night = int_field("night", what="第几晚")
    assert night is not None
    phase, why = field("phase", what="阶段"), field("why", required=False)
    if how == "minutes":
        return ExtendRequest(night, phase, span=field("minutes", what="延长多久"), why=why)
    if how == "until":
        return ExtendRequest(night, phase, until=field("until", what="延长到什么时候"), why=why)
    raise director.DirectorError("请选择延长法：延长多久，或延长到什么时候")


def _extension_key(rt: Runtime, lines: tuple[str, ...]) -> str:
    """What the confirmation was about: the extensions kept so far and the preview shown."""
    kept = rt.store.night_extensions()
    basis = f"{kept[-1].id if kept else 0}|" + "\n".join(lines)
    return hashlib.sha256(basis.encode("utf-8")).hexdigest()[:16]


def _extension_confirm(rt: Runtime, now: datetime, *, changed: bool = False) -> str:
    shown = preview_extension(rt, _extension_request(), now)
    lines = shown.lines_zh()
    fields = [(name, request.form.get(name, "")) for name in ("how", "night", "phase", "minutes", "until", "why")]
    return _confirm(rt, now, title="确认：延长夜晚阶段", impact=None, fields=[*fields, ("key", _extension_key(rt, lines))],
                    action=url_for("desk.extend_night_apply"), verb="确认延长",
                    back=url_for(NIGHTS_BACK, _anchor="bot-nights"),
                    lines=[*lines, "确认后机器人按新的时间裁定行动和结算。"], changed=changed)


@bp.post("/nights/extend")
def extend_night_preview():
    try:
        with runtime_holder().use() as rt:
            return _extension_confirm(rt, rt.clock.now())
    except domain_errors() as exc:
        say_error(exc)
        return redirect(url_for(NIGHTS_BACK, _anchor="bot-nights"))


@bp.post("/nights/extend/apply")
def extend_night_apply():
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            if _extension_key(rt, preview_extension(rt, _extension_request(), now).lines_zh()) != request.form.get("key"):
                return _extension_confirm(rt, now, changed=True)
            done = extend_phase(rt, _extension_request(), now, actor=director.DIRECTOR_DESK)
            flash(f"已记下：{done.describe_zh()}", "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for(NIGHTS_BACK, _anchor="bot-nights"))


@bp.post("/schedule/reopen")
def reopen():
    try:
        with runtime_holder().use() as rt:
            flash(director.ask_reopen(rt, int_field("day", required=False, what="第几日"), rt.clock.now()), "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for(SCHEDULE_BACK, _anchor="schedule"))
