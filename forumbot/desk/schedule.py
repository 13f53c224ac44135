"""The schedule on the desk (SPEC §11): move a day's deadline, lengthen it, close it now —
previewed (what moves: the deadline, the change freeze, the days after it) and only the
second POST applies it — and open again a voting thread the bot closed. The calls are
``forumbot.game.director``'s, as for the CLI's ``forumbot deadline`` / ``reopen``."""

from __future__ import annotations

import hashlib
from datetime import datetime

from flask import flash, redirect, request, url_for

from engine.calendar import when_zh
from forumbot.desk.app import runtime_holder
from forumbot.desk.changes import _confirm
from forumbot.desk.routes import bp, domain_errors, field, int_field, say_error
from forumbot.game import director
from forumbot.game.runtime import Runtime

BACK = "desk.now"


def _request(rt: Runtime, now: datetime) -> director.DeadlineRequest:
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


def _key(rt: Runtime, lines: tuple[str, ...]) -> str:
    """What the confirmation was about: the changes made so far and the preview shown."""
    changes = rt.store.day_changes()
    basis = f"{changes[-1].id if changes else 0}|" + "\n".join(lines)
    return hashlib.sha256(basis.encode("utf-8")).hexdigest()[:16]


def _fields() -> list[tuple[str, str]]:
    return [(name, request.form.get(name, "")) for name in ("how", "day", "at", "extend", "why")]


def _deadline_confirm(rt: Runtime, now: datetime, *, changed: bool = False) -> str:
    shown = director.preview_deadline(rt, _request(rt, now), now)
    lines = shown.lines_zh()
    if not shown.shifts:
        raise director.DirectorError("没有任何时间改变")
    return _confirm(rt, now, title="确认：改日程", impact=None, fields=[*_fields(), ("key", _key(rt, lines))],
                    action=url_for("desk.deadline_apply"), verb="确认修改", back=url_for(BACK, _anchor="schedule"),
                    lines=[*lines, "确认后机器人按新的时间提醒和截止（截止帖、关闭投票帖）。"], changed=changed)


@bp.post("/schedule/deadline")
def deadline_preview():
    back = url_for(BACK, _anchor="schedule")
    try:
        with runtime_holder().use() as rt:
            return _deadline_confirm(rt, rt.clock.now())
    except domain_errors() as exc:
        say_error(exc)
        return redirect(back)


@bp.post("/schedule/deadline/apply")
def deadline_apply():
    back = url_for(BACK, _anchor="schedule")
    try:
        with runtime_holder().use() as rt:
            now = rt.clock.now()
            shown = director.preview_deadline(rt, _request(rt, now), now)
            if _key(rt, shown.lines_zh()) != request.form.get("key"):
                return _deadline_confirm(rt, now, changed=True)
            done = director.change_deadline(rt, _request(rt, now), now)
            flash(f"已记下：{done.change.describe_zh()}", "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(back)


@bp.post("/schedule/reopen")
def reopen():
    try:
        with runtime_holder().use() as rt:
            flash(director.ask_reopen(rt, int_field("day", required=False, what="第几日"), rt.clock.now()), "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(url_for(BACK, _anchor="schedule"))


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
