"""One desk for every game of ``forumbot serve``.

* ``/`` — the game list: each game's name, rule set, day, deadline and time left, drafts
  waiting, alarms, whether it runs, its last pass and what goes wrong (the service's
  summaries, computed by its scheduler after each pass: the list costs no query);
* ``/g/<name>/…`` — that game's desk exactly as ``forumbot desk`` serves it
  (``forumbot.desk.app.create_app``), mounted below the prefix (``SCRIPT_NAME``), made on
  first visit and made again when the game's config changes;
* ``/healthz`` — JSON for a monitor: the service alive (HTTP 200; 503 when its scheduler
  has not gone round for a while) and, per game, its state, last pass, alarms and
  problems, with ``trouble`` naming the games a person must look at.

One security for all of it, as the single desk has: bound to loopback it answers only
requests addressed to a loopback name; bound anywhere else it wants a login with the
token (``FORUMBOT_DESK_TOKEN`` or ``[service].desk_token_file``), one session cookie and
one secret key for the list and every game, one count of wrong tokens per address
(``LoginLimiter``), the CSRF token on every form, the same CSP. ``/healthz`` needs no
login from a loopback address (a monitor on the machine); from any other address it
wants the logged-in session or ``Authorization: Bearer <token>`` (wrong tokens count
against the address like a wrong login).
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from flask import Flask, abort, flash, jsonify, redirect, render_template, request, session, url_for

from forumbot.game.clock import Clock
from forumbot.desk.app import _error_page, create_app
from forumbot.desk.security import (CSRF_FIELD, TOKEN_ENV, DeskSecurityError, LoginLimiter,
                                    app_config, check_csrf, client_address, csrf_token, is_loopback,
                                    lockout_message, logged_in, login_limiter, security_headers, token_matches)
from forumbot.desk.server import ServedDesk
from forumbot.wording import hm
from forumbot.service.scanner import signature as _signature

# The scheduler publishes its view after every pass and at least every few seconds while
# idle: older than this (game seconds), it is stuck.
STUCK_AFTER = 300.0


class GameApps:
    """Each game's desk app, made on first visit, made again when its config changed."""

    def __init__(self, make: Callable[[Path], Flask]) -> None:
        self.make = make
        self._apps: dict[str, tuple[Path, tuple[int, int] | None, Flask]] = {}
        self._lock = threading.Lock()

    def get(self, name: str, path: Path) -> Flask:
        signature = _signature(path)
        with self._lock:
            cached = self._apps.get(name)
            if cached is not None and cached[0] == path and cached[1] == signature:
                return cached[2]
            if cached is not None:
                cached[2].extensions["forumbot_runtime"].close()
            app = self.make(path)
            self._apps[name] = (path, signature, app)
            return app

    def forget(self, keep: set[str]) -> None:
        with self._lock:
            for name in [n for n in self._apps if n not in keep]:
                self._apps.pop(name)[2].extensions["forumbot_runtime"].close()

    def close(self) -> None:
        self.forget(set())


class ServiceDesk:
    """The WSGI application: ``/g/<name>/…`` to the game's desk, the rest to the list."""

    # A game's own desk is served only while the service can open it.
    OPEN_STATES = ("running", "finished", "busy")

    def __init__(self, service: Any, *, host: str, clock: Clock | None = None, token: str | None = None,
                 poll_seconds: float = 10.0) -> None:
        token = token if token is not None else os.environ.get(TOKEN_ENV, "")
        needs_login = not is_loopback(host)
        if needs_login and len(token) < 8:
            raise DeskSecurityError(
                f"导演台监听的是 {host}，不是 127.0.0.1：请把 {TOKEN_ENV}（或 [service].desk_token_file）"
                "设为登录口令（至少 8 个字符），或只监听 127.0.0.1")
        self.service = service
        self.secret_key = secrets.token_bytes(32)
        self.limiter = LoginLimiter()
        self.games = GameApps(lambda path: create_app(path, host=host, clock=clock, token=token,
                                                      poll_seconds=poll_seconds, secret_key=self.secret_key,
                                                      limiter=self.limiter))
        self.root = _root_app(self, needs_login=needs_login, token=token, poll_seconds=poll_seconds)

    def summary(self, name: str):
        return next((g for g in self.service.view.games if g.name == name), None)

    def __call__(self, environ: dict, start_response: Callable) -> Any:
        path = environ.get("PATH_INFO", "")
        if path.startswith("/g/"):
            raw, slash, rest = path[3:].partition("/")
            try:
                name = raw.encode("latin-1").decode("utf-8")  # WSGI: the URL's bytes as latin-1
            except UnicodeError:
                name = ""
            game = self.summary(name) if name else None
            if game is not None and game.state in self.OPEN_STATES and slash:
                app = self.games.get(name, Path(game.config))
                environ = dict(environ)
                root = environ.get("SCRIPT_NAME", "")
                environ["SCRIPT_NAME"] = f"{root}/g/{raw}"
                environ["PATH_INFO"] = "/" + rest
                environ["forumbot.service_root"] = (root or "") + "/"
                environ["forumbot.game.state"] = name
                return app(environ, start_response)
        return self.root(environ, start_response)

    def close(self) -> None:
        self.games.close()


def _root_app(desk: ServiceDesk, *, needs_login: bool, token: str, poll_seconds: float) -> Flask:
    app = Flask("forumbot.desk.service", root_path=str(Path(__file__).parent))
    app.config.update(app_config(secret_key=desk.secret_key, needs_login=needs_login, token=token,
                                 poll_seconds=poll_seconds))
    app.extensions["forumbot_login_limiter"] = desk.limiter
    app.extensions["forumbot_service_desk"] = desk
    app.json.ensure_ascii = False  # type: ignore[attr-defined]  # /healthz in readable UTF-8
    app.jinja_env.globals.update(csrf_token=csrf_token, csrf_field=CSRF_FIELD)
    app.register_error_handler(Exception, _error_page)
    from werkzeug.exceptions import HTTPException

    app.register_error_handler(HTTPException, _error_page)
    open_endpoints = {"login", "static", "healthz"}

    @app.before_request
    def _guard():
        if request.endpoint == "login" and request.method == "POST":
            left = login_limiter().locked_for(client_address())
            if left > 0:
                flash(lockout_message(left), "error")
                return render_template("service_login.html", next="/", poll_seconds=0), 429, \
                    {"Retry-After": str(int(left) + 1)}
        if request.endpoint not in open_endpoints and not logged_in():
            return redirect(url_for("login", next=request.full_path if request.method == "GET" else "/"))
        if request.method == "POST":
            check_csrf()
        return None

    app.after_request(security_headers)

    @app.context_processor
    def _globals() -> dict[str, Any]:
        return {"login_required": needs_login, "poll_seconds": poll_seconds, "hm": hm}

    @app.get("/")
    def games():
        view = desk.service.view
        shown = [_row(g, view.now) for g in view.games]
        trouble = [g.name for g in view.games if g.trouble]
        down = [(s["account"], hm(datetime.fromisoformat(s["down_since"])), s["games"])
                for s in view.sessions if s["down_since"]]
        return render_template("games.html", view=view, games=shown, trouble=trouble, down=down)

    @app.get("/g/<name>/")
    @app.get("/g/<name>/<path:rest>")
    def game(name: str, rest: str = ""):
        summary = desk.summary(name)
        if summary is None or summary.state in ServiceDesk.OPEN_STATES:  # an open game's desk is its own app
            abort(404, description=f"没有名为「{name}」的游戏：请从游戏列表进入")
        return render_template("game_problem.html", game=_row(summary, desk.service.view.now)), 503

    @app.route("/login", methods=["GET", "POST"])
    def login():
        if request.method == "POST":
            if token_matches(request.form.get("token", "")):
                session.clear()
                session["auth"] = True
                return redirect(_local(request.form.get("next"), url_for("games")))
            flash("令牌不对。", "error")
        return render_template("service_login.html", next=_local(request.args.get("next"), "/"), poll_seconds=0)

    @app.post("/logout")
    def logout():
        session.clear()
        return redirect(url_for("login"))

    @app.get("/healthz")
    def healthz():
        if not is_loopback(client_address()) and not logged_in() and not _bearer_ok(token):
            return jsonify({"error": "要先登录：Authorization: Bearer <导演台口令>"}), 401
        return _health(desk.service)

    return app


def _bearer_ok(token: str) -> bool:
    header = request.headers.get("Authorization", "")
    if not header.startswith("Bearer "):
        return False
    limiter = login_limiter()
    address = client_address()
    if limiter.locked_for(address) > 0:
        return False
    ok = bool(token) and hmac.compare_digest(token.encode(), header[7:].strip().encode())
    (limiter.succeeded if ok else limiter.failed)(address)
    return ok


def _local(target: str | None, default: str) -> str:
    from forumbot.desk.routes import local

    return local(target, default)


def _row(g, now: datetime) -> dict[str, Any]:
    from forumbot.wording import clean
    from forumbot.game.views import format_left

    state = {"running": "运行中", "finished": "已结束", "error": "出错", "busy": "由其他进程运行",
             "stopped": "未运行", "starting": "启动中"}.get(g.state, g.state)
    return {"name": g.name, "state": state, "css": "error" if g.trouble else "", "summary": g,
            "problems": [clean(p) for p in g.problems], "alarms": [clean(a) for a in g.alarms],
            "deadline": hm(g.deadline) if g.deadline else "—", "last_pass": hm(g.last_pass) if g.last_pass else "—",
            "left": format_left(g.deadline - now) if g.deadline and not g.over else None,
            "open": g.state in ServiceDesk.OPEN_STATES}


def _health(service: Any):
    view = service.view
    now = service.clock.now()
    stuck = (now - view.now).total_seconds() > STUCK_AFTER
    games = {g.name: {"state": g.state, "day": g.day, "deadline": g.deadline.isoformat() if g.deadline else None,
                      "last_pass": g.last_pass.isoformat() if g.last_pass else None, "alarms": list(g.alarms),
                      "problems": list(g.problems), "detail": list(g.detail), "drafts_waiting": g.drafts_waiting,
                      "failed": g.failed, "over": g.over is not None, "trouble": g.trouble}
             for g in view.games}
    body = {"alive": not stuck, "pid": view.pid, "started": view.started.isoformat(), "now": now.isoformat(),
            "scheduler_seen": view.now.isoformat(), "folder": view.folder, "folder_error": view.folder_error,
            "games_total": len(games), "trouble": sorted(n for n, g in games.items() if g["trouble"]),
            "games": games, "sessions": list(view.sessions)}
    response = jsonify(body)
    response.status_code = 503 if stuck else 200
    response.headers["Cache-Control"] = "no-store"
    return response




class ServiceDeskServer(ServedDesk):
    """The service's desk served from a background thread (``stop()`` ends it)."""

    def __init__(self, desk: ServiceDesk, server: Any, thread: threading.Thread) -> None:
        self.desk, self.server, self.thread = desk, server, thread

    def stop(self) -> None:
        self._shut_down()
        self.desk.close()


def start_service_desk(service: Any, *, host: str = "127.0.0.1", port: int = 8765, clock: Clock | None = None,
                       token: str | None = None, poll_seconds: float = 10.0) -> ServiceDeskServer:
    """Serve the one desk of ``service`` in a daemon thread (port 0: any free port).
    Raises ``OSError`` when it cannot listen, ``DeskSecurityError`` when it would be unsafe."""
    from forumbot.desk.server import _server

    desk = ServiceDesk(service, host=host, clock=clock, token=token, poll_seconds=poll_seconds)
    server = _server(desk, host, port)  # type: ignore[arg-type]
    thread = threading.Thread(target=server.serve_forever, name="forumbot-desk", daemon=True)
    thread.start()
    return ServiceDeskServer(desk, server, thread)


__all__ = ["GameApps", "ServiceDesk", "ServiceDeskServer", "start_service_desk"]
