"""Drift guard for the simulator's Discuz! 7.2 mode, against the real 7.2 captures.

Every exchange of ``../shared/fixtures/discuz-7.2/exchanges.json`` (UTF-8) and
``discuz-7.2-gbk/exchanges.json`` is replayed, in the captured order and at the captured
time (the simulator's clock is set to each exchange's ``time``), against a 7.2 simulator
with the captured cookie prefix, one cookie jar per captured visitor. Registration is not
simulated over HTTP: it is applied through the simulator's API at its time (users get the
captured uids in order) and skipped with that reason; the archiver and the printable view
are not simulated. Everything else — new threads included (the form, then the 302 to the
new thread with the captured tid) — must answer alike:

* the status, the ``Location`` (exactly: the replies get the captured pids and pages),
  the Content-Type header (the GBK site sends none with a charset), the session cookies set
  (``sid``, ``auth``, ``cookietime``, ``loginuser``, ``activationauth``, ``pmnum``);
* for saved bodies, the kind of answer: a showmessage box (its class and its text), the
  login-box refusal, the ajax text or handler, a form (the quote form's textarea), a
  thread page — whose posts ``parsers.pages.read_page`` must read the same from both
  (pid, floor, author, uid, time and its precision, edit stamp, quoted pids, text).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from html import unescape
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
import pytest
from lxml import html as lxml_html

from forumbot.simulator import SimClock, Simulator
from parsers.pages import read_page
from tests.support import fixture_dir

pytestmark = pytest.mark.fixtures

FIXTURES = {"discuz-7.2": "utf-8", "discuz-7.2-gbk": "gbk"}
# ``sid`` is left out: 7.2's updatesession() deletes guest sessions from the same IP
# whenever another session starts within 60 s, so the captured sids churn with the capture
# tool's other visitors (all on 127.0.0.1); the simulator keeps one sid per cookie jar.
SESSION_COOKIES = {"auth", "cookietime", "loginuser", "activationauth", "pmnum"}


def password_of(name: str) -> str:
    return f"pw-{name}"


@dataclass
class Replayed:
    exchange: dict[str, Any]
    skip: str | None = None
    status: int = 0
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    at: datetime | None = None


def captured_time(exchange: dict[str, Any]) -> datetime:
    return datetime.strptime(exchange["time"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)


def skip_reason(exchange: dict[str, Any]) -> str | None:
    url = exchange["url"]
    if "register.php" in url:
        return "registration is not simulated: the user is added through the API at this time"
    if "/archiver/" in url:
        return "the archiver is not simulated"
    if "action=printable" in url:
        return "the printable view is not simulated"
    return None


def starts_a_jar(exchange: dict[str, Any]) -> bool:
    """The capture tool logged in again through a fresh cookie jar: a login page GET the
    real forum answered with the form and a new ``sid`` (no session came with it)."""
    return (exchange["method"] == "GET" and exchange["url"].endswith("logging.php?action=login")
            and any(h[0].lower() == "set-cookie" and "_sid=" in h[1] for h in exchange["headers"]))


class Replayer:
    """Plays one fixture's exchanges against a fresh 7.2 simulator."""

    def __init__(self, fixture: str) -> None:
        self.fixture = fixture
        self.charset = FIXTURES[fixture]
        self.exchanges = sorted(json.loads((fixture_dir(fixture) / "exchanges.json")
                                           .read_text(encoding="utf-8")), key=lambda e: e["n"])
        first = self.exchanges[0]
        self.real_base = "{0.scheme}://{0.netloc}/".format(urlsplit(first["url"]))
        self.cookiepre = next(h[1].split("sid=")[0] for e in self.exchanges
                              for h in e["headers"] if h[0].lower() == "set-cookie" and "sid=" in h[1])
        self.clock = SimClock(captured_time(first))
        self.sim = Simulator(clock=self.clock, discuz="7.2", charset=self.charset,
                             cookiepre=self.cookiepre)
        self.sim.add_user("admin", "admin-pw", uid=1)
        while self.sim.add_forum("版杀区") < 3:
            pass
        self.jars: dict[str, httpx.Client] = {}

    def jar(self, who: str) -> httpx.Client:
        if who not in self.jars:
            self.jars[who] = httpx.Client(base_url=self.sim.base_url, follow_redirects=False,
                                          timeout=10)
        return self.jars[who]

    def formhash(self, who: str) -> str:
        server = self.sim.server
        viewer = server.viewer_for(self.jar(who).cookies.get(self.cookiepre + "auth"))
        return server.formhash_for(viewer)

    def seed(self, exchange: dict[str, Any]) -> None:
        fields = dict(exchange["fields"] or [])
        if "register.php" in exchange["url"] and exchange["method"] == "POST":
            name = fields["username"]
            self.sim.add_user(name, password_of(name), registered_at=self.clock.now())

    def fields(self, exchange: dict[str, Any]) -> list[tuple[str, str]]:
        out = []
        for name, value in exchange["fields"] or []:
            if name == "formhash":
                value = self.formhash(exchange["who"])
            elif name == "password":
                user = dict(exchange["fields"]).get("username", "")
                value = "wrong-password" if "bad password" in exchange["note"] else password_of(user)
            else:
                value = value.replace(self.real_base, self.sim.base_url)
            out.append((name, value))
        return out

    def send(self, exchange: dict[str, Any]) -> Replayed:
        target = exchange["url"].replace(self.real_base, "")
        if starts_a_jar(exchange):
            old = self.jars.pop(exchange["who"], None)
            if old is not None:
                old.close()
        content = None
        headers = {}
        if exchange["method"] == "POST":
            content = urlencode(self.fields(exchange), encoding=self.charset)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        r = self.jar(exchange["who"]).request(exchange["method"], target, content=content,
                                              headers=headers)
        return Replayed(exchange, None, r.status_code, list(r.headers.multi_items()), r.content,
                        self.clock.now())

    def run(self) -> list[Replayed]:
        out = []
        with self.sim.running():
            for exchange in self.exchanges:
                self.clock.set(captured_time(exchange))
                reason = skip_reason(exchange)
                if reason is not None:
                    self.seed(exchange)
                    out.append(Replayed(exchange, reason, at=self.clock.now()))
                    continue
                out.append(self.send(exchange))
            for jar in self.jars.values():
                jar.close()
        return out


@dataclass(frozen=True)
class Run:
    replayed: dict[int, Replayed]
    cookiepre: str
    real_base: str
    sim_base: str


@cache
def run_of(fixture: str) -> Run:
    replayer = Replayer(fixture)
    runs = {r.exchange["n"]: r for r in replayer.run()}
    return Run(runs, replayer.cookiepre, replayer.real_base, replayer.sim.base_url)


def _cases():
    for fixture in FIXTURES:
        path = fixture_dir(fixture) / "exchanges.json"
        for e in json.loads(path.read_text(encoding="utf-8")):
            reason = skip_reason(e)
            marks = [pytest.mark.skip(reason=reason)] if reason else []
            yield pytest.param(fixture, e["n"], id=f"{fixture}-{e['n']:03d}-{e['note']}", marks=marks)


# ---------------------------------------------------------------- what an answer is

def header_values(headers: list[tuple[str, str]] | list[list[str]], name: str) -> list[str]:
    return [v for k, v in headers if k.lower() == name]


def session_cookies(headers, prefix: str) -> set[str]:
    names = {v.split("=", 1)[0] for v in header_values(headers, "set-cookie")}
    return {n.removeprefix(prefix) for n in names if n.startswith(prefix)} & SESSION_COOKIES


def _texts(html: str) -> list[str]:
    html = re.sub(r"<script\b.*?</script>", "", html, flags=re.S)
    return [" ".join(unescape(re.sub(r"<[^>]+>", " ", p)).split())
            for p in re.findall(r"<p\b[^>]*>(.*?)</p>", html, re.S)]


def kind_of(body: bytes, content_type: str, charset: str, base: str) -> tuple:
    """What kind of answer a body is, in terms both forums must agree on."""
    if not body:
        return ("empty",)
    text = body.decode(charset, errors="replace")
    if text.startswith("<?xml"):
        cdata = re.search(r"<!\[CDATA\[(.*)\]\]></root>", text, re.S).group(1)
        plain = " ".join(unescape(re.sub(r"<[^>]+>", " ",
                                         re.sub(r"<script\b.*?</script>", "", cdata, flags=re.S))).split())
        welcome = re.findall(r"messageleft'\)\.innerHTML = '(.*?)';", cdata)
        handlers = sorted(set(re.findall(r"(\w+handle_\w+)\(", cdata)))
        return ("ajax", plain, welcome, handlers)
    if 'id="postlist"' in text:
        return ("thread",)
    box = re.search(r'<div class="(alert_right|alert_info|alert_error)">(.*?)</div>', text, re.S)
    if box:
        return ("message", box.group(1), _texts(box.group(2))[:2])
    if 'id="postform"' in text:
        area = re.search(r"<textarea[^>]*>(.*?)</textarea>", text, re.S).group(1)
        return ("postform", unescape(area).replace(base, "BASE/").replace("\r\n", "\n"))
    if 'id="loginform"' in text:
        return ("loginform",)
    return ("other", re.search(r"<title>(.*?)</title>", text, re.S).group(1))


@dataclass(frozen=True)
class Answer:
    status: int
    location: str | None
    content_type: str
    cookies: frozenset[str]
    kind: tuple | None


def real_answer(fixture: str, e: dict[str, Any], prefix: str, base: str) -> Answer:
    headers = e["headers"]
    location = (header_values(headers, "location") or [None])[0]
    ctype = (header_values(headers, "content-type") or [""])[0]
    kind = None
    if e["saved_as"]:
        body = (fixture_dir(fixture) / e["saved_as"]).read_bytes()
        kind = kind_of(body, ctype, FIXTURES[fixture], base)
    return Answer(e["status"], location, ctype.lower(), frozenset(session_cookies(headers, prefix)),
                  kind)


def sim_answer(fixture: str, r: Replayed, prefix: str, base: str, with_kind: bool) -> Answer:
    location = (header_values(r.headers, "location") or [None])[0]
    ctype = (header_values(r.headers, "content-type") or [""])[0]
    kind = kind_of(r.body, ctype, FIXTURES[fixture], base) if with_kind else None
    return Answer(r.status, location, ctype.lower(), frozenset(session_cookies(r.headers, prefix)),
                  kind)


@pytest.mark.parametrize(("fixture", "n"), list(_cases()))
def test_drift_d72__every_exchange_answers_like_the_real_forum(fixture: str, n: int) -> None:
    run = run_of(fixture)
    r = run.replayed[n]
    e = r.exchange
    real = real_answer(fixture, e, run.cookiepre, run.real_base)
    sim = sim_answer(fixture, r, run.cookiepre, run.sim_base, real.kind is not None)
    assert sim == real, f"{e['note']}: {e['method']} {e['url']}"


# ---------------------------------------------------------------- thread pages

def _page_cases():
    for fixture in FIXTURES:
        path = fixture_dir(fixture) / "exchanges.json"
        for e in json.loads(path.read_text(encoding="utf-8")):
            if e["saved_as"] and "viewthread.php" in e["url"] and "printable" not in e["url"]:
                yield pytest.param(fixture, e["n"], id=f"{fixture}-{e['saved_as']}")


def post_fields(post) -> dict[str, object]:
    return {"pid": post.pid, "floor": post.floor, "author": post.author, "uid": post.author_uid,
            "posted_at": post.posted_at, "precision": str(post.time_precision),
            "edited_by": post.edited_by, "edited_at": post.edited_at,
            "quotes": [(q.pid, q.tid, q.author, q.quoted_at) for q in post.quotes],
            "notice": post.notice, "text": " ".join(post.text.split())}


@pytest.mark.parametrize(("fixture", "n"), list(_page_cases()))
def test_drift_d72__thread_pages_read_alike(fixture: str, n: int) -> None:
    run = run_of(fixture)
    r = run.replayed[n]
    e = r.exchange
    ctype = (header_values(e["headers"], "content-type") or [""])[0]
    real = read_page((fixture_dir(fixture) / e["saved_as"]).read_bytes(), content_type=ctype,
                     source=e["saved_as"], now=r.at)
    sim = read_page(r.body, content_type=(header_values(r.headers, "content-type") or [""])[0],
                    source=f"simulator {e['saved_as']}", now=r.at)
    same = ("tid", "page", "total_pages", "charset", "viewer_uid", "subject", "closed",
            "cookiepre", "source")
    assert {f: getattr(sim, f) for f in same} == {f: getattr(real, f) for f in same}
    assert bool(sim.formhash) and bool(real.formhash)
    assert [post_fields(p) for p in sim.posts] == [post_fields(p) for p in real.posts]
    # The links inside the posts as 7.2's discuzcode rendered them (issue 18 #7: 7.2 makes a
    # link only of an absolute address): the same anchors, to the same places.
    assert ([body_links(p.html, run.sim_base) for p in sim.posts]
            == [body_links(p.html, run.real_base) for p in real.posts])


def body_links(html: str, base: str) -> list[tuple[str, str, str]]:
    """Every ``<a>`` of a post body: its href (the forum's address as BASE/), its target
    and its text, and every ``[url`` the page shows as text."""
    tree = lxml_html.fromstring(f"<div>{html}</div>")
    links = [((a.get("href") or "").replace(base, "BASE/"), a.get("target") or "",
              " ".join(a.text_content().split())) for a in tree.iter("a")]
    raw = [("raw", "", m) for m in re.findall(r"\[url[^\]]*\]", tree.text_content())]
    return links + raw
