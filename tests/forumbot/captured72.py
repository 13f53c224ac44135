"""Serve the real Discuz! 7.2 captures (../shared/fixtures/discuz-7.2[-gbk]/exchanges.json).

The 7.2 sets record every exchange by number ``n``: method, URL, the form fields sent (and
on the GBK forum the exact body bytes, password masked), the status, every response
header, and the file the body was saved to (``saved_as``; exchanges without one had an
empty body, e.g. a 302, or were not kept). :class:`Router72` answers each request with the
exchange a test chose for it and keeps what the client sent, so a test can compare the
client's requests with the browser's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from typing import Callable
from urllib.parse import parse_qsl

import httpx

from tests.support import fixture_dir

_SKIP_HEADERS = {"content-encoding", "content-length", "connection", "transfer-encoding"}
D72, D72_GBK = "discuz-7.2", "discuz-7.2-gbk"
BASES = {D72: "http://127.0.0.1:8072/", D72_GBK: "http://127.0.0.1:8073/"}


@cache
def exchanges72(fixture: str) -> dict[int, dict]:
    records = json.loads((fixture_dir(fixture) / "exchanges.json").read_text(encoding="utf-8"))
    return {e["n"]: e for e in records}


def body72(fixture: str, exchange: dict) -> bytes:
    name = exchange.get("saved_as")
    return (fixture_dir(fixture) / name).read_bytes() if name else b""


def response72(fixture: str, n: int, request: httpx.Request) -> httpx.Response:
    """Exchange ``n``'s answer, byte for byte: status, every header, the saved body."""
    e = exchanges72(fixture)[n]
    if e["bytes"] and not e.get("saved_as"):
        raise AssertionError(f"{fixture} exchange {n} ({e['note']}): its body was not kept")
    headers = [(k, v) for k, v in e["headers"] if k.lower() not in _SKIP_HEADERS]
    return httpx.Response(e["status"], headers=headers, content=body72(fixture, e), request=request)


def fields72(fixture: str, n: int) -> list[tuple[str, str]]:
    """The form fields the browser sent in exchange ``n`` (password masked as ***)."""
    return [tuple(pair) for pair in exchanges72(fixture)[n]["fields"]]


def sent_fields(request: httpx.Request, charset: str) -> list[tuple[str, str]]:
    body = request.content.decode("ascii")
    return parse_qsl(body, keep_blank_values=True, encoding=charset, errors="strict")


@dataclass
class Router72:
    """Answer requests from captured exchanges; rules are tried in order, each may be
    limited to ``times`` uses."""

    fixture: str = D72
    rules: list[list] = field(default_factory=list)
    sent: list[httpx.Request] = field(default_factory=list)

    @property
    def base(self) -> str:
        return BASES[self.fixture]

    @property
    def charset(self) -> str:
        return "gbk" if self.fixture == D72_GBK else "utf-8"

    def on(self, method: str, contains: str, answer: int | Callable[[httpx.Request], httpx.Response],
           times: int | None = None) -> Router72:
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
            return response72(self.fixture, answer, request)
        raise AssertionError(f"no captured exchange for {request.method} {target}")

    def posts(self) -> list[httpx.Request]:
        return [r for r in self.sent if r.method == "POST"]

    def paths(self) -> list[str]:
        """Each request as ``METHOD path?query`` relative to the forum root."""
        return [f"{r.method} {str(r.url)[len(self.base):]}" for r in self.sent]
