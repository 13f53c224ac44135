"""Serve the real captured Discuz exchanges (../shared/fixtures/*/exchanges.json) to httpx.

``captured_response`` rebuilds one recorded answer (status, headers, each Set-Cookie,
body bytes) for a request; ``Router`` is an ``httpx.MockTransport`` handler that answers
each request with the exchange a test chose for it and records what was sent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Callable

import httpx

from tests.support import fixture_dir

_COOKIE_SPLIT = re.compile(r",\s*(?=[A-Za-z0-9_]+=)")
_SKIP_HEADERS = {"set-cookie", "content-encoding", "content-length", "connection", "status"}


@cache
def exchanges(fixture: str) -> dict[str, dict]:
    base = fixture_dir(fixture)
    return {e["name"]: e for e in json.loads((base / "exchanges.json").read_text(encoding="utf-8"))}


def body_of(fixture: str, exchange: dict) -> bytes:
    if not exchange["response_body_file"]:
        return b""
    return (fixture_dir(fixture) / exchange["response_body_file"]).read_bytes()


def captured_response(fixture: str, name: str, request: httpx.Request | None = None) -> httpx.Response:
    e = exchanges(fixture)[name]
    headers: list[tuple[str, str]] = []
    for key, value in e["response_headers"].items():
        if key.lower() == "set-cookie":
            headers += [("Set-Cookie", c) for c in _COOKIE_SPLIT.split(value)]
        elif key.lower() not in _SKIP_HEADERS:
            headers.append((key, value))
    if e["response_content_type"] and not any(k.lower() == "content-type" for k, _ in headers):
        headers.append(("Content-Type", e["response_content_type"]))
    if request is None:
        request = httpx.Request(e["method"], e["url"].replace("BASE/", "http://127.0.0.1:8080/"))
    return httpx.Response(e["response_status"], headers=headers, content=body_of(fixture, e), request=request)


Rule = tuple[str, Callable[[httpx.Request], bool], "str | Callable[[httpx.Request], httpx.Response]"]


@dataclass
class Router:
    """Answer requests from captured exchanges; rules are tried in order, each may be
    limited to ``times`` uses (so a test can serve flood control first, success after)."""

    fixture: str = "discuz-x3"
    rules: list[list] = field(default_factory=list)
    sent: list[httpx.Request] = field(default_factory=list)

    def on(self, method: str, contains: str, answer, times: int | None = None) -> Router:
        self.rules.append([method, contains, answer, times])
        return self

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.sent.append(request)
        target = str(request.url)
        for rule in self.rules:
            method, contains, answer, times = rule
            if request.method != method or contains not in target or times == 0:
                continue
            if times is not None:
                rule[3] = times - 1
            if callable(answer):
                return answer(request)
            return captured_response(self.fixture, answer, request)
        raise AssertionError(f"no captured exchange for {request.method} {target}")

    def posts(self) -> list[httpx.Request]:
        return [r for r in self.sent if r.method == "POST"]
