"""The request/response records passed between the HTTP plumbing and the forum logic."""

from __future__ import annotations

import secrets
import string
from dataclasses import dataclass, field, replace
from datetime import datetime
from urllib.parse import parse_qsl, urlsplit


@dataclass
class Request:
    method: str
    path: str  # "/forum.php"
    query: dict[str, str]
    form: dict[str, str]
    cookies: dict[str, str]
    headers: dict[str, str]  # lower-case names
    client_ip: str = "127.0.0.1"
    raw_target: str = ""  # path + "?" + query as sent
    raw_body: bytes = b""

    def arg(self, name: str, default: str = "") -> str:
        """A parameter from the query string or the form (Discuz's ``$_GET`` merges both)."""
        if name in self.query:
            return self.query[name]
        return self.form.get(name, default)

    def int_arg(self, name: str, default: int = 0) -> int:
        try:
            return int(self.arg(name, str(default)) or default)
        except ValueError:
            return default

    def all_args(self, name: str) -> list[str]:
        """A list parameter (``moderate[]``) from the query and the form. The simulator
        keeps one value per name (the last sent): one thread per request is all a bot sends."""
        return [v for v in (self.query.get(name), self.form.get(name)) if v is not None]

    def as_ajax(self) -> "Request":
        """The same request as the forum treats it when a script sets ``inajax``."""
        return replace(self, query={**self.query, "inajax": "1"})

    @property
    def inajax(self) -> bool:
        return self.arg("inajax") not in ("", "0")

    @property
    def wants_json(self) -> bool:
        return self.arg("ajaxdata") == "json"

    @property
    def user_agent(self) -> str:
        return self.headers.get("user-agent", "")

    @property
    def script(self) -> str:
        """The entry script Discuz runs: ``forum.php``, ``viewthread.php``, … (``/`` is index)."""
        return self.path.rsplit("/", 1)[-1]


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)
    cookies: list[str] = field(default_factory=list)  # full Set-Cookie values

    def location(self, url: str) -> "Response":
        self.headers.append(("Location", url))
        return self


@dataclass(frozen=True)
class RequestRecord:
    """What the simulator saw: tests count requests and check who made them."""

    method: str
    path: str
    query: dict[str, str]
    user: str | None
    status: int
    at: datetime


def parse_pairs(text: str, charset: str) -> dict[str, str]:
    return dict(parse_qsl(text, keep_blank_values=True, encoding=charset, errors="replace"))


def split_target(target: str, charset: str) -> tuple[str, dict[str, str]]:
    parts = urlsplit(target)
    return parts.path or "/", parse_pairs(parts.query, charset)


def parse_cookies(header: str) -> dict[str, str]:
    jar: dict[str, str] = {}
    for chunk in header.split(";"):
        if "=" in chunk:
            name, value = chunk.split("=", 1)
            jar[name.strip()] = value.strip()
    return jar


def random_token(length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))
