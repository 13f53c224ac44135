"""Who may use the desk, and proof that a form came from the desk's own page.

* Bound to a loopback address the desk trusts the machine's user, but only answers
  requests addressed to a loopback host name (``TRUSTED_HOSTS``), so a web page using DNS
  rebinding cannot reach it under its own name.
* Bound anywhere else it requires a login with the token from ``FORUMBOT_DESK_TOKEN``;
  without a token it refuses to start.
* Every POST carries the session's CSRF token (a random value kept in the signed session
  cookie, compared in constant time); the cookie is ``SameSite=Strict`` and ``HttpOnly``.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets

from flask import abort, current_app, request, session

TOKEN_ENV = "FORUMBOT_DESK_TOKEN"
CSRF_FIELD = "csrf_token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


class DeskSecurityError(Exception):
    """The desk cannot be served safely as asked (e.g. no token for a non-loopback host)."""


def is_loopback(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """Abort with 400 unless the POST carries this session's CSRF token."""
    expected = session.get("csrf")
    given = request.form.get(CSRF_FIELD, "")
    if not expected or not given or not hmac.compare_digest(str(expected), given):
        abort(400, description="表单已过期或缺少 CSRF 令牌（CSRF token missing or wrong）：请刷新页面后重试。")


def login_required() -> bool:
    return bool(current_app.config.get("DESK_LOGIN"))


def logged_in() -> bool:
    return not login_required() or session.get("auth") is True


def token_matches(given: str) -> bool:
    expected = current_app.config.get("DESK_TOKEN") or ""
    return bool(expected) and hmac.compare_digest(expected.encode(), given.strip().encode())
