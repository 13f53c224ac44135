"""The desk's pages (GET, never change anything) and forms (POST, each one library call
through ``forumbot.director`` or the outbox, then back to the page with a message)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable
from urllib.parse import urlsplit

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, session, url_for

from forumbot import director
from forumbot.desk import data
from forumbot.desk.app import runtime_holder
from forumbot.desk.security import check_csrf, logged_in, token_matches
from forumbot.runtime import Runtime

bp = Blueprint("desk", __name__)

OPEN_ENDPOINTS = {"desk.login", "static"}


def _domain_errors() -> tuple[type[BaseException], ...]:
    from engine.cards import CardError
    from engine.state import StateError
    from forumbot.config import ConfigError
    from forumbot.director import DirectorError
    from forumbot.outbox import OutboxError
    from forumbot.store.cards import ProposalDecidedError

    return (DirectorError, StateError, CardError, OutboxError, ProposalDecidedError, ConfigError,
            LookupError, ValueError)


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {"when": data.when,
            "poll_seconds": current_app.config["DESK_POLL_SECONDS"],
            "login_required": current_app.config["DESK_LOGIN"], "kind_zh": data.KIND_ZH,
            "card_zh": data.CARD_ZH, "proposal_zh": data.PROPOSAL_ZH}


@bp.before_app_request
def _guard():
    if request.endpoint not in OPEN_ENDPOINTS and not logged_in():
        return redirect(url_for("desk.login", next=request.full_path if request.method == "GET" else "/"))
    if request.method == "POST":
        check_csrf()
    return None


@bp.after_app_request
def _headers(response):
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
        "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def _local(target: str | None, default: str) -> str:
    """Only same-site paths are followed after a form (no open redirect)."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return default
    return target


def _page(template: str, build: Callable[[Runtime, datetime], dict[str, Any]], **extra: Any) -> str:
    with runtime_holder().use() as rt:
        now = rt.clock.now()
        context = build(rt, now)
        return render_template(template, now=now, game=rt.config, nav_waiting=len(rt.outbox.awaiting_approval()),
                               **context, **extra)


def _act(change: Callable[[Runtime, datetime], str], *, back: str) -> Any:
    """Run one change; its message (or the domain error) is shown on the page it came from."""
    try:
        with runtime_holder().use() as rt:
            message = change(rt, rt.clock.now())
        flash(message, "ok")
    except _domain_errors() as exc:
        text = str(exc).strip("'\"") or type(exc).__name__
        flash(f"未执行：{text}", "error")
    return redirect(_local(request.form.get("next"), back))


def _field(name: str, *, required: bool = True) -> str:
    value = request.form.get(name, "").strip()
    if required and not value:
        raise ValueError(f"缺少 {name}")
    return value


def _int(name: str, *, required: bool = True) -> int | None:
    value = _field(name, required=required)
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name} 应为数字，而不是 {value!r}") from None


def _names(value: str) -> list[str]:
    return [n.strip() for n in value.replace("，", ",").replace("、", ",").replace("\n", ",").split(",")
            if n.strip()]


# ---------------------------------------------------------------- login


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        if token_matches(request.form.get("token", "")):
            session.clear()
            session["auth"] = True
            return redirect(_local(request.form.get("next"), url_for("desk.now")))
        flash("令牌不对。", "error")
    return render_template("login.html", next=_local(request.args.get("next"), "/"), now=None,
                           nav_waiting=0, game=None)


@bp.post("/logout")
def logout():
    session.clear()
    return redirect(url_for("desk.login"))


# ---------------------------------------------------------------- pages


@bp.get("/")
def now():
    return _page("now.html", lambda rt, now: {"g_now": data.game_now(rt, now)})


@bp.get("/tally")
def tally():
    def build(rt: Runtime, now: datetime) -> dict[str, Any]:
        days = data.day_numbers(rt)
        current = director.status(rt, now).day
        number = request.args.get("day", type=int) or (current.number if current else (days[0] if days else None))
        if number not in days:
            abort(404, description=f"没有第{number}日")
        return {"days": days, "day": number, "tally": data.day_tally(rt, number)}

    return _page("tally.html", build)


@bp.get("/activity")
def activity():
    def build(rt: Runtime, now: datetime) -> dict[str, Any]:
        return {"by_day": data.activity(rt), "rules": rt.config.rules}

    return _page("activity.html", build)


@bp.get("/cards")
def cards():
    return _page("cards.html", lambda rt, now: {
        "view": data.cards(rt), "points": rt.config.rules.card_policy.value == "points"})


@bp.get("/drafts")
def drafts():
    return _page("drafts.html", lambda rt, now: {"view": data.drafts(rt)})


@bp.get("/actions")
def actions():
    def build(rt: Runtime, now: datetime) -> dict[str, Any]:
        g_now = data.game_now(rt, now)
        return {"g_now": g_now, "days": data.day_numbers(rt)}

    return _page("actions.html", build)


@bp.get("/log")
def log():
    return _page("log.html", lambda rt, now: {"entries": data.audit_tail(rt)})


# ---------------------------------------------------------------- drafts


@bp.post("/drafts/<int:draft_id>/approve")
def approve(draft_id: int):
    def change(rt: Runtime, now: datetime) -> str:
        body = request.form.get("body")
        if body is not None:
            body = body.replace("\r\n", "\n")
        d = director.approve(rt, draft_id, now, body=body)
        edited = "（已按修改稿）" if body is not None and d.edited else ""
        return f"已批准 #{d.id} {data.KIND_ZH.get(d.kind, d.kind.value)}{edited}：运行中的机器人会发出它（只发一次）。"

    return _act(change, back=url_for("desk.drafts"))


@bp.post("/drafts/<int:draft_id>/reject")
def reject(draft_id: int):
    def change(rt: Runtime, now: datetime) -> str:
        d = director.reject(rt, draft_id, _field("why"), now)
        return f"已驳回 #{d.id}：不会发出。"

    return _act(change, back=url_for("desk.drafts"))


@bp.post("/drafts/<int:draft_id>/retry")
def retry(draft_id: int):
    def change(rt: Runtime, now: datetime) -> str:
        d = rt.outbox.retry(draft_id, director.DIRECTOR, now=now)
        return f"#{d.id} 将重新发送（先按标记查找论坛上是否已有）。"

    return _act(change, back=url_for("desk.drafts"))


# ---------------------------------------------------------------- cards


@bp.post("/cards/<int:proposal_id>/accept")
def accept(proposal_id: int):
    def change(rt: Runtime, now: datetime) -> str:
        proposal = rt.store.proposal(proposal_id)
        # The ledger entry takes the proposal's colour (store.accept_proposal): the card
        # given is the one proposed; another card is a dismissal plus a direct card.
        result = director.give_card(rt, proposal.player, proposal.color.value, _field("why"), now,
                                    points=_int("points", required=False), proposal_id=proposal_id)
        return _card_message(result)

    return _act(change, back=url_for("desk.cards"))


@bp.post("/cards/<int:proposal_id>/dismiss")
def dismiss(proposal_id: int):
    def change(rt: Runtime, now: datetime) -> str:
        p = director.dismiss_proposal(rt, proposal_id, _field("why", required=False), now)
        return f"已忽略提议 #{p.id}（{p.player}）。"

    return _act(change, back=url_for("desk.cards"))


@bp.post("/cards/give")
def give():
    def change(rt: Runtime, now: datetime) -> str:
        result = director.give_card(rt, _field("player"), _field("color"), _field("why"), now,
                                    points=_int("points", required=False))
        return _card_message(result)

    return _act(change, back=url_for("desk.cards"))


def _card_message(result: director.CardOutcome) -> str:
    text = f"{result.player}：{data.CARD_ZH.get(result.card, result.card)}"
    if result.sent_off:
        text += "，罚下"
    if result.badge_to:
        text += f"；警徽随机移交给 {result.badge_to}（seed {result.seed}）"
    if result.draft:
        text += f"；判罚通知草稿 #{result.draft.id} 待审批"
    return text


# ---------------------------------------------------------------- game changes


@bp.post("/night")
def night():
    def change(rt: Runtime, now: datetime) -> str:
        day = _int("day")
        names = director.record_night(rt, day, _names(_field("out", required=False)), now)
        draft = director.announcement_draft(rt, day, now)
        return (f"第{day}日前夜：" + ("、".join(names) or "平安夜")
                + (f"；公示草稿 #{draft.id} 待审批" if draft else ""))

    return _act(change, back=url_for("desk.actions"))


@bp.post("/out")
def out():
    def change(rt: Runtime, now: datetime) -> str:
        why = _field("why")
        player = director.put_out(rt, _field("player"), why, now, _int("day", required=False))
        return f"{player} 出局（{director.OUT_REASONS.get(why, why)}）"

    return _act(change, back=url_for("desk.actions"))


@bp.post("/sheriff")
def sheriff():
    def change(rt: Runtime, now: datetime) -> str:
        player = director.set_sheriff(rt, _field("player", required=False) or None, now)
        return f"警长：{player or '无'}"

    return _act(change, back=url_for("desk.actions"))


@bp.post("/accelerate")
def accelerate():
    def change(rt: Runtime, now: datetime) -> str:
        window = director.accelerate(rt, _int("day"), now)
        return f"第{window.number}日已加速：此后不再接受改票，当日所有改票作废。"

    return _act(change, back=url_for("desk.actions"))


@bp.post("/substitute")
def substitute():
    def change(rt: Runtime, now: datetime) -> str:
        old, new = _field("old"), _field("new")
        seat = director.substitute(rt, old, new, now)
        return f"{new} 接替 {seat}"

    return _act(change, back=url_for("desk.actions"))


@bp.post("/alias")
def alias():
    def change(rt: Runtime, now: datetime) -> str:
        name = _field("alias")
        player = director.add_alias(rt, _field("player"), name, now)
        return f"别名「{name}」→ {player}（重新计票后生效）"

    return _act(change, back=url_for("desk.actions"))


@bp.post("/void")
def void():
    def change(rt: Runtime, now: datetime) -> str:
        pid, why = _int("pid"), _field("why")
        day = director.void_post(rt, pid, why, now)
        director.retally(rt, day, now)
        return f"第{day}日 pid {pid} 判为废票（{why}），已重新计票"

    return _act(change, back=url_for("desk.actions"))


@bp.post("/retally")
def retally():
    def change(rt: Runtime, now: datetime) -> str:
        tally, changed = director.retally(rt, _int("day"), now)
        return f"第{tally['day']}日已重新计票：{'有变化' if changed else '无变化'}"

    return _act(change, back=url_for("desk.tally"))


@bp.post("/count-now")
def count_now():
    def change(rt: Runtime, now: datetime) -> str:
        d = director.count_now(rt, now)
        return f"已生成计票 #{d.id}（{data.STATE_ZH.get(d.state, d.state.value)}）"

    return _act(change, back=url_for("desk.tally"))
