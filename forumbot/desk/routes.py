"""The desk's pages (GET, never change anything) and its plain forms (POST, each one
library call through ``forumbot.game.director`` or the outbox, then back to the page with a
message). Changes to the game itself — events, cards, the badge, the game's end — are
in ``forumbot.desk.changes``: each is previewed and confirmed before it is applied."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable
from urllib.parse import urlsplit

from flask import Blueprint, abort, current_app, flash, g, redirect, render_template, request, session, url_for

from forumbot.game import director
from forumbot import wording as texts
from forumbot.desk import data
from forumbot.desk.forms import NOBODY
from forumbot.desk.app import runtime_holder
from forumbot.desk.security import check_csrf, logged_in, security_headers, token_matches
from forumbot.game.state import current_state
from forumbot.game.runtime import Runtime

bp = Blueprint("desk", __name__)

OPEN_ENDPOINTS = {"desk.login", "static"}


def domain_errors() -> tuple[type[BaseException], ...]:
    from engine.cards import CardError
    from engine.state import StateError
    from forumbot.config.gamefile import ConfigError
    from forumbot.game.director import DirectorError
    from forumbot.store.outbox import OutboxError
    from forumbot.store.cards import ProposalDecidedError

    return (DirectorError, StateError, CardError, OutboxError, ProposalDecidedError, ConfigError,
            LookupError, ValueError)


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {"when": when, "poll_seconds": g.get("poll_seconds", current_app.config["DESK_POLL_SECONDS"]),
            "login_required": current_app.config["DESK_LOGIN"], "kind_zh": texts.kind_zh,
            "state_zh": texts.state_zh, "card_zh": texts.card_zh, "card_said": texts.card_said, "proposal_zh": texts.PROPOSAL_ZH,
            "actor_zh": texts.actor_zh, "clean": texts.clean, "nobody_value": NOBODY,
            "ruleset_zh": texts.ruleset_zh}


def when(at: datetime | None) -> str:
    """A time as the desk shows it: the forum's zone, to the minute."""
    if at is None:
        return "—"
    tz = g.get("forum_tz")
    return data.when(at.astimezone(tz) if tz is not None else at)


@bp.before_app_request
def _guard():
    if request.endpoint not in OPEN_ENDPOINTS and not logged_in():
        return redirect(url_for("desk.login", next=request.full_path if request.method == "GET" else "/"))
    if request.method == "POST":
        check_csrf()
    return None


bp.after_app_request(security_headers)


def local(target: str | None, default: str) -> str:
    """Only same-site paths are followed after a form (no open redirect)."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return default
    return target


def banner_urls() -> dict[str, str]:
    return {"night": url_for("desk.actions", _anchor="night"), "sheriff": url_for("desk.actions", _anchor="sheriff"),
            "drafts": url_for("desk.drafts"), "cards": url_for("desk.cards"),
            "accelerate": url_for("desk.actions", _anchor="accelerate"), "events": url_for("desk.events"),
            "stale": url_for("desk.drafts", _anchor="stale")}


def page_context(rt: Runtime, now: datetime) -> dict[str, Any]:
    """What every page shows around its own content: the banner, the game clock."""
    g.forum_tz = rt.config.forum.tz
    status = director.status(rt, now)
    state = current_state(rt.config, rt.store)
    g.status, g.state = status, state
    return {"now": now, "game": rt.config, "nav_waiting": len(status.drafts_waiting),
            "banner": data.banner(rt, status, state, now, banner_urls())}


def render_page(template: str, build: Callable[[Runtime, datetime], dict[str, Any]], **extra: Any) -> str:
    with runtime_holder().use() as rt:
        now = rt.clock.now()
        around = page_context(rt, now)
        context = build(rt, now)
        return render_template(template, **around, **context, **extra)


def say_error(exc: BaseException) -> None:
    """A refusal as a message on the page (Chinese; what the library said in English, if
    anything, only in a collapsed detail for an operator)."""
    said = texts.error_zh(exc)
    flash(f"未执行：{said.text}", "error")
    if said.raw:
        flash(said.raw, "raw")


def act(change: Callable[[Runtime, datetime], str], *, back: str) -> Any:
    """Run one change; its message (or the domain error) is shown on the page it came from."""
    try:
        with runtime_holder().use() as rt:
            g.forum_tz = rt.config.forum.tz
            message = change(rt, rt.clock.now())
        flash(message, "ok")
    except domain_errors() as exc:
        say_error(exc)
    return redirect(local(request.form.get("next"), back))


def field(name: str, *, required: bool = True, what: str | None = None) -> str:
    value = request.form.get(name, "").strip()
    if required and not value:
        raise director.DirectorError(f"请填写{what or '必填项'}")
    return value


def int_field(name: str, *, required: bool = True, what: str = "数字") -> int | None:
    value = field(name, required=required, what=what)
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise director.DirectorError(f"{what}应为数字，而不是“{value}”") from None


# ---------------------------------------------------------------- login


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        if token_matches(request.form.get("token", "")):
            session.clear()
            session["auth"] = True
            return redirect(local(request.form.get("next"), url_for("desk.now")))
        flash("令牌不对。", "error")
    return render_template("login.html", next=local(request.args.get("next"), "/"), now=None,
                           nav_waiting=0, game=None)


@bp.post("/logout")
def logout():
    session.clear()
    return redirect(url_for("desk.login"))


# ---------------------------------------------------------------- pages


@bp.get("/")
def now():
    def build(rt: Runtime, now: datetime) -> dict[str, Any]:
        return {"g_now": data.game_now(rt, now, g.status, g.state), "winners": texts.WINNERS,
                "schedule": data.schedule_rows(rt)}

    return render_page("now.html", build)


@bp.get("/tally")
def tally():
    def build(rt: Runtime, now: datetime) -> dict[str, Any]:
        days = data.day_numbers(rt)
        current = g.status.day
        number = request.args.get("day", type=int) or (current.number if current else (days[0] if days else None))
        if number not in days:
            abort(404, description=f"没有第{number}日" if number else "还没有配置任何游戏日")
        return {"days": days, "day": number, "tally": data.day_tally(rt, number)}

    return render_page("tally.html", build)


@bp.get("/activity")
def activity():
    def build(rt: Runtime, now: datetime) -> dict[str, Any]:
        return {"by_day": data.activity(rt), "rules": rt.config.rules}

    return render_page("activity.html", build)


@bp.get("/cards")
def cards():
    return render_page("cards.html", lambda rt, now: {
        "view": data.cards(rt), "points": rt.config.rules.card_policy.value == "points",
        "sendoff_points": rt.config.rules.sendoff_points})


@bp.get("/drafts")
def drafts():
    return render_page("drafts.html", lambda rt, now: {"view": data.drafts(rt)})


@bp.get("/actions")
def actions():
    from forumbot.desk.forms import actions_view

    def build(rt: Runtime, now: datetime) -> dict[str, Any]:
        return {"a": actions_view(rt, g.state, g.status, now), "g_now": data.game_now(rt, now, g.status, g.state),
                "bot_nights": _bot_nights(rt, now)}

    return render_page("actions.html", build)


def _bot_nights(rt: Runtime, now: datetime) -> dict[str, Any] | None:
    """A game whose nights the bot runs: each night's state, and — only behind the desk's
    login (SPEC §10.1: identities never on a page anyone on the machine can open) — the
    proposal in full."""
    from forumbot.game import nightrun

    if not nightrun.active(rt):
        return None
    secrets = bool(current_app.config["DESK_LOGIN"])
    rows = []
    for s in nightrun.status_of(rt, now):
        p = s.proposal
        ready = p is not None and p.state == "proposed" or (p is None and s.result is not None and s.result.ready)
        lines: list[str] = []
        if secrets and ready:
            proposal = p.data if p is not None else nightrun.proposal_data(s.result, current_state(rt.config, rt.store))  # type: ignore[arg-type]
            lines = nightrun.proposal_lines(proposal, night=s.night, version=p.version if p else None)[1:]
        rows.append({"night": s.night, "title": nightrun.night_zh(s.night), "ready": ready, "version": p.version if p else None,
                     "lines": lines, "state": p.state if p else ("ready" if ready else "collecting")})
    return {"rows": rows, "secrets": secrets, "lines": nightrun.night_lines(rt, now)}


@bp.post("/nights/<int:night>/confirm")
def confirm_night(night: int):
    def change(rt: Runtime, now: datetime) -> str:
        from forumbot.game import nightrun

        version = int_field("version", required=False, what="版本")
        done = nightrun.confirm(rt, night, now, actor="director(desk)", version=version)
        director.announcement_draft(rt, night + 1, now)
        out = "、".join(done.data.get("out") or ()) or "无人（平安夜）"
        return f"已确认{nightrun.night_zh(night)}（第{done.version}版）：{out}，第{night + 1}日开始时生效；当天的公示已起草，待你审批"

    return act(change, back=url_for("desk.actions", _anchor="bot-nights"))


@bp.post("/nights/action")
def night_action():
    def change(rt: Runtime, now: datetime) -> str:
        from forumbot.game import nightrun

        text = field("order", what="行动（玩家 技能 目标）")
        filed = nightrun.director_action(rt, text, now, actor="director(desk)")
        mode = nightrun.mode_of(rt)
        assert mode is not None
        return f"已录入第{filed.record.night}晚 {filed.record.actor} 的行动：{filed.answer(mode)}"

    return act(change, back=url_for("desk.actions", _anchor="bot-nights"))


@bp.get("/events")
def events():
    return render_page("events.html", lambda rt, now: {"rows": data.events(rt)})


@bp.get("/log")
def log():
    return render_page("log.html", lambda rt, now: {"entries": data.audit_tail(rt)})


# ---------------------------------------------------------------- drafts


@bp.post("/drafts/<int:draft_id>/approve")
def approve(draft_id: int):
    def change(rt: Runtime, now: datetime) -> str:
        body = request.form.get("body")
        if body is not None:
            body = body.replace("\r\n", "\n")
        d = director.approve(rt, draft_id, now, body=body, actor=director.DIRECTOR_DESK,
                             subject=request.form.get("subject"))
        edited = "（已按修改稿，将原样发出）" if body is not None and d.edited else ""
        return f"已批准 #{d.id} {texts.kind_zh(d.kind)}{edited}：运行中的机器人会发出它（只发一次）。"

    return act(change, back=url_for("desk.drafts"))


@bp.post("/drafts/<int:draft_id>/reject")
def reject(draft_id: int):
    def change(rt: Runtime, now: datetime) -> str:
        d = director.reject(rt, draft_id, field("why", what="驳回理由"), now, actor=director.DIRECTOR_DESK)
        return f"已驳回 #{d.id}：不会发出。"

    return act(change, back=url_for("desk.drafts"))


@bp.post("/drafts/<int:draft_id>/retry")
def retry(draft_id: int):
    def change(rt: Runtime, now: datetime) -> str:
        d = director.retry(rt, draft_id, now, actor=director.DIRECTOR_DESK)
        return f"#{d.id} 将重新发送（先在论坛上查找是否已经发出）。"

    return act(change, back=url_for("desk.drafts"))


@bp.post("/redraft")
def redraft():
    def change(rt: Runtime, now: datetime) -> str:
        day = int_field("day", what="日期")
        d = director.redraft_final(rt, day, now)  # type: ignore[arg-type]
        title = "更正的" if "更正" in d.body else ""
        return f"已起草第{day}日{title}最终计票 #{d.id}，等你审批；已发布的那篇不会被改动。"

    return act(change, back=url_for("desk.drafts"))


@bp.post("/cards/<int:proposal_id>/dismiss")
def dismiss(proposal_id: int):
    def change(rt: Runtime, now: datetime) -> str:
        p = director.dismiss_proposal(rt, proposal_id, field("why", required=False), now)
        return f"已忽略提议 #{p.id}（{p.player}）。"

    return act(change, back=url_for("desk.cards"))


# ---------------------------------------------------------------- counts


@bp.post("/retally")
def retally():
    def change(rt: Runtime, now: datetime) -> str:
        tally, changed = director.retally(rt, int_field("day", what="日期"), now)  # type: ignore[arg-type]
        return f"第{tally['day']}日已重新计票：{'有变化' if changed else '无变化'}"

    return act(change, back=url_for("desk.tally"))


@bp.post("/count-now")
def count_now():
    def change(rt: Runtime, now: datetime) -> str:
        d = director.count_now(rt, now)
        return f"已生成计票 #{d.id}（{texts.state_zh(d.state)}）"

    return act(change, back=url_for("desk.tally"))


# ---------------------------------------------------------------- whose posts (forumbot.game.provenance)


@bp.post("/state/adopt")
def adopt_state():
    def change(rt: Runtime, now: datetime) -> str:
        from forumbot.game.takeover import adopt

        if request.form.get("lost") != "yes":
            raise director.DirectorError("请先勾选：原来的数据库确已丢失")
        done = adopt(rt, now, actor=director.DIRECTOR)
        said = [f"已接管 {done.posts} 篇帖子，本局恢复发帖。"]
        if done.notable:
            said.append(f"论坛上已有、不会再起草：{'、'.join(done.notable)}。")
        said += [f"注意：{w}" for w in done.warnings]
        said.append("旧数据库里录入的事件（夜晚结果、判废、别名、判罚等）请重新录入。")
        return "".join(said)

    return act(change, back=url_for("desk.now"))


@bp.post("/state/copy")
def mark_copy():
    def change(rt: Runtime, now: datetime) -> str:
        from forumbot.game.takeover import mark_copy as mark

        mark(rt, now, actor=director.DIRECTOR)
        return (f"已记下这份配置是副本：本局继续不发帖。请改正 {rt.config.path} 的 [agent].database "
                "或各日的帖子号后重启机器人。")

    return act(change, back=url_for("desk.now"))
