"""Who may use the desk, and proof that a form came from the desk's own page.

* Bound to a loopback address the desk trusts the machine's user, but only answers
  requests addressed to a loopback host name (``TRUSTED_HOSTS``), so a web page using DNS
  rebinding cannot reach it under its own name.
* Bound anywhere else it requires a login with the token from ``FORUMBOT_DESK_TOKEN``;
  without a token it refuses to start.
* Logins are rate-limited per client address (``LoginLimiter``): after 5 wrong tokens
  in 15 minutes that address is refused for 15 minutes, the right token included.
* Every POST carries the session's CSRF token (a random value kept in the signed session
  cookie, compared in constant time); the cookie is ``SameSite=Strict`` and ``HttpOnly``.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from flask import abort, current_app, request, session

TOKEN_ENV = "FORUMBOT_DESK_TOKEN"
CSRF_FIELD = "csrf_token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


def app_config(*, secret_key: bytes, needs_login: bool, token: str, poll_seconds: float) -> dict[str, object]:
    """The Flask settings every desk app has (one game's, the service's): the signed
    session cookie, the body limit, the login and the trusted host names."""
    return dict(
        SECRET_KEY=secret_key,
        SESSION_COOKIE_NAME="forumbot_desk",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=1024 * 1024,
        DESK_LOGIN=needs_login,
        DESK_TOKEN=token,
        DESK_POLL_SECONDS=poll_seconds,
        TRUSTED_HOSTS=list(LOOPBACK_NAMES) if not needs_login else None,
    )


def security_headers(response):
    """No inline script, no framing, no referrer, no caching: on every desk answer."""
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
        "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("Cache-Control", "no-store")
    return response


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
        abort(400, description="表单已过期或缺少安全令牌：请回到导演台的页面，刷新后重试（什么都没有改变）。")


def login_required() -> bool:
    return bool(current_app.config.get("DESK_LOGIN"))


def logged_in() -> bool:
    return not login_required() or session.get("auth") is True


def token_matches(given: str) -> bool:
    """The login's check: counts a wrong token against the client's address, and refuses
    (even the right token) while that address is locked out."""
    limiter = login_limiter()
    address = client_address()
    if limiter.locked_for(address) > 0:
        return False
    expected = current_app.config.get("DESK_TOKEN") or ""
    ok = bool(expected) and hmac.compare_digest(expected.encode(), given.strip().encode())
    if ok:
        limiter.succeeded(address)
    else:
        limiter.failed(address)
    return ok


MAX_FAILURES = 5
LOCKOUT_SECONDS = 15 * 60


@dataclass
class _Tries:
    failures: list[float] = field(default_factory=list)
    locked_until: float = 0.0


class LoginLimiter:
    """Wrong tokens per client address: ``max_failures`` within ``window`` seconds lock
    that address out for ``lockout`` seconds. Wall-clock time (a guesser does not care
    about the demo's accelerated game clock); kept in memory — a restart forgets, which
    costs a guesser a restart of the director's desk, not a way in. Behind a reverse proxy
    every client shares the proxy's address: X-Forwarded-For is not trusted (anyone can
    write it), so there the limit applies to all clients together."""

    def __init__(self, max_failures: int = MAX_FAILURES, window: float = LOCKOUT_SECONDS,
                 lockout: float = LOCKOUT_SECONDS, clock: Callable[[], float] = time.monotonic,
                 max_addresses: int = 10_000) -> None:
        self.max_failures, self.window, self.lockout = max_failures, window, lockout
        self.clock = clock
        self.max_addresses = max_addresses
        self._tries: dict[str, _Tries] = {}
        self._lock = threading.Lock()

    def locked_for(self, address: str) -> float:
        """Seconds left of ``address``'s lockout (0: may try)."""
        with self._lock:
            tries = self._tries.get(address)
            return max(0.0, tries.locked_until - self.clock()) if tries else 0.0

    def failed(self, address: str) -> None:
        now = self.clock()
        with self._lock:
            if address not in self._tries and len(self._tries) >= self.max_addresses:
                self._forget_stale(now)
            tries = self._tries.setdefault(address, _Tries())
            tries.failures = [t for t in tries.failures if now - t < self.window] + [now]
            if len(tries.failures) >= self.max_failures:
                tries.locked_until = now + self.lockout
                tries.failures.clear()

    def succeeded(self, address: str) -> None:
        with self._lock:
            self._tries.pop(address, None)

    def _forget_stale(self, now: float) -> None:
        stale = [a for a, t in self._tries.items()
                 if t.locked_until <= now and all(now - f >= self.window for f in t.failures)]
        for address in stale:
            del self._tries[address]
        if len(self._tries) >= self.max_addresses:  # a flood of addresses: keep the locked ones
            for address in [a for a, t in self._tries.items() if t.locked_until <= now]:
                del self._tries[address]


def login_limiter() -> LoginLimiter:
    return current_app.extensions["forumbot_login_limiter"]


def client_address() -> str:
    return request.remote_addr or "?"


def lockout_message(seconds: float) -> str:
    minutes = max(1, int((seconds + 59) // 60))
    return f"登录失败次数过多（连续 {MAX_FAILURES} 次令牌不对）：请 {minutes} 分钟后再试。"
