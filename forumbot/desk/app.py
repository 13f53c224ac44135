"""The desk's Flask application: one shared ``Runtime`` used by one request at a time.

The store allows a connection to be handed between threads but not used by two at once,
and werkzeug's threaded server runs each request in its own thread: a lock around the
runtime serialises the (short) requests. The agent may run in another process on the
same database file; SQLite's WAL keeps the two consistent.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from flask import Flask, current_app, flash, render_template, request
from werkzeug.exceptions import HTTPException

from forumbot.game.clock import Clock
from forumbot.desk.security import (CSRF_FIELD, TOKEN_ENV, DeskSecurityError, LoginLimiter,
                                    app_config, client_address, csrf_token, is_loopback, lockout_message,
                                    login_limiter)
from forumbot.game.runtime import Runtime, open_runtime

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


class RuntimeHolder:
    """Opens the runtime on first use and lends it to one request at a time."""

    def __init__(self, opener: Callable[[], Runtime]) -> None:
        self._opener = opener
        self._rt: Runtime | None = None
        self._lock = threading.Lock()

    @contextmanager
    def use(self) -> Iterator[Runtime]:
        with self._lock:
            if self._rt is None:
                self._rt = self._opener()
            yield self._rt

    def close(self) -> None:
        with self._lock:
            if self._rt is not None:
                self._rt.close()
                self._rt = None


def create_app(config_path: str | Path, *, host: str = DEFAULT_HOST, clock: Clock | None = None,
               token: str | None = None, poll_seconds: float = 10.0,
               secret_key: bytes | None = None, limiter: LoginLimiter | None = None) -> Flask:
    """The desk for one game's config. ``host`` is where it will be bound: anything but
    loopback requires a login with ``token`` (default: env ``FORUMBOT_DESK_TOKEN``).

    Under ``forumbot serve`` each game's desk is this app below ``/g/<name>/`` with the
    service's ``secret_key`` and ``limiter``: one login (the session cookie is the same
    for every game), one count of wrong tokens (``forumbot.desk.service``)."""
    token = token if token is not None else os.environ.get(TOKEN_ENV, "")
    needs_login = not is_loopback(host)
    if needs_login and len(token) < 8:
        raise DeskSecurityError(
            f"导演台监听的是 {host}，不是 127.0.0.1：请把 {TOKEN_ENV} 设为登录口令"
            "（至少 8 个字符），或只监听 127.0.0.1"
        )
    app = Flask("forumbot.desk", root_path=str(Path(__file__).parent))
    app.config.update(app_config(secret_key=secret_key or secrets.token_bytes(32), needs_login=needs_login,
                                 token=token, poll_seconds=poll_seconds))
    app.extensions["forumbot_runtime"] = RuntimeHolder(lambda: open_runtime(config_path, clock=clock))
    app.extensions["forumbot_login_limiter"] = limiter or LoginLimiter()
    # Registered before the blueprint's guards, so a locked-out address is answered first.
    app.before_request(_refuse_locked_out_login)
    from forumbot.desk import changes  # noqa: F401 - registers the two-step changes on the blueprint
    from forumbot.desk.routes import bp

    # Globals, not context: the macros in _macros.html are imported without context.
    app.jinja_env.globals.update(csrf_token=csrf_token, csrf_field=CSRF_FIELD)

    app.register_blueprint(bp)
    app.register_error_handler(HTTPException, _error_page)
    app.register_error_handler(500, _error_page)
    return app


# Every error page in Chinese: werkzeug's own descriptions are English.
ERROR_TITLES = {
    400: ("请求无效", "这个请求导演台看不懂。请回到导演台的页面重新操作。"),
    403: ("无权访问", "你没有权限打开这个页面。"),
    404: ("页面不存在", "导演台没有这个页面。请用上方的菜单。"),
    405: ("不能这样打开这个地址", "这个地址只接受表单提交：请回到导演台的页面重新操作。"),
    413: ("提交的内容太大", "表单内容超过了 1 MB。"),
    429: ("请求太频繁", "请稍后再试。"),
    500: ("导演台出错了", "导演台处理这个请求时出错了，详情已写入日志。游戏数据没有因此改变：请刷新页面重试。"),
}


def _error_page(exc):
    code = getattr(exc, "code", None) or 500
    title, default = ERROR_TITLES.get(code, ("出错了", "请回到导演台的页面重新操作。"))
    said = getattr(exc, "description", None)
    if not said or said == getattr(type(exc), "description", None) or not _chinese(said):
        said = default
    page = render_template("error.html", code=code, title=title, description=said, now=None, nav_waiting=0,
                           game=None, poll_seconds=0)
    return page, code


def _chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in str(text))


def _refuse_locked_out_login():
    """A login attempt from an address with too many wrong tokens: 429 and the login page
    saying how long to wait (the token is not even looked at)."""
    if request.endpoint != "desk.login" or request.method != "POST":
        return None
    left = login_limiter().locked_for(client_address())
    if left <= 0:
        return None
    flash(lockout_message(left), "error")
    page = render_template("login.html", next="/", now=None, nav_waiting=0, game=None)
    return page, 429, {"Retry-After": str(int(left) + 1)}


def runtime_holder() -> RuntimeHolder:
    return current_app.extensions["forumbot_runtime"]
