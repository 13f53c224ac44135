"""Drift guard for the simulator's private messages, against the real PM captures
(../shared/fixtures/discuz-pm: x35 = Discuz! X3.5, d72 = 7.2).

Every captured exchange is replayed, in order and at its captured time (the simulator's
clock is set to each exchange's ``unix``), against a simulator of that generation with
the captured cookie prefix and the captured users (导演 uid 2, 投票机 uid 3; 7.2 also
饺子, who never wrote to the bot), one cookie jar per captured visitor and the captured
User-Agent. The ``checkpm`` cookie is sent only where the captured request sent it (the
capture tool's jar let it expire after 30 real seconds; the replay runs in less).
Each answer must match the real one in:

* status, ``Location``, Content-Type, and the cookies that matter here (``checkpm`` set
  or deleted, ``auth``);
* the kind of answer: a message box (its class and text); an ajax answer (its text and
  handler calls, pmids included); a mobile-API answer (``messageval``, ``pmid``,
  ``notice.newpm``); the send forms (their ids, the prefilled recipient); the popup (its
  form and messages); the 7.2 ``checknewpm`` script (the prompt text);
* the unread indicators every page carries (X3.5: ``pm_ntc`` ``class="new"``, the menu's
  ``prompt_news``, the footer's ``op=checknewpm`` script; 7.2: 私人消息 (N) shown or not,
  ``myprompt`` ``class="new"`` for the bot — the director's has other 提醒 kinds from the
  capture session that the simulator does not model);
* every PM page (inbox, conversation, API JSON, the 7.2 reply node), read by
  ``parsers.pm.read_pm_page`` from the real body and from the simulator's: the same
  records (ids, authors, uids, times and precision, texts, whose, unread; conversations).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from html import unescape
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
import pytest

from forumbot.simulator import SimClock, Simulator
from parsers.errors import PageParseError
from parsers.pm import read_pm_page
from tests.support import fixture_dir

pytestmark = pytest.mark.fixtures

GENERATIONS = {"x35": "x3", "d72": "7.2"}
USERS = {"x35": ("admin", "导演", "投票机"), "d72": ("admin", "导演", "投票机", "饺子")}
MATTERING_COOKIES = {"checkpm", "auth"}


def password_of(name: str) -> str:
    return f"pw-{name}"


def exchanges(gen: str) -> list[dict[str, Any]]:
    path = fixture_dir("discuz-pm") / gen / "exchanges.json"
    return sorted(json.loads(path.read_text(encoding="utf-8")), key=lambda e: e["n"])


def body_of(gen: str, e: dict[str, Any]) -> bytes:
    name = next(f for f in e["files"] if f.endswith(".body"))
    return (fixture_dir("discuz-pm") / gen / name).read_bytes()


def sent_cookies(gen: str, e: dict[str, Any]) -> set[str]:
    name = next(f for f in e["files"] if f.endswith(".req.txt"))
    text = (fixture_dir("discuz-pm") / gen / name).read_text(encoding="utf-8")
    line = next((ln for ln in text.splitlines() if ln.lower().startswith("cookie:")), "")
    return {part.split("=", 1)[0].strip() for part in line[7:].split(";") if "=" in part}


@dataclass
class Replayed:
    exchange: dict[str, Any]
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    at: datetime


class Replayer:
    def __init__(self, gen: str) -> None:
        self.gen = gen
        self.exchanges = exchanges(gen)
        first = self.exchanges[0]
        self.real_base = "{0.scheme}://{0.netloc}/".format(urlsplit(first["url"]))
        self.cookiepre = next(h[1].split("sid=")[0] for e in self.exchanges for h in e["headers"]
                              if h[0].lower() == "set-cookie" and "_sid=" in h[1])
        self.clock = SimClock(self.at(first))
        self.sim = Simulator(clock=self.clock, discuz=GENERATIONS[gen], cookiepre=self.cookiepre)
        for uid, name in enumerate(USERS[gen], start=1):
            self.sim.add_user(name, password_of(name), uid=uid)
        fid = self.sim.add_forum("版杀区")
        self.sim.add_thread(fid, "【测试】第一日 投票帖", "导演", "投票对象：某某，投票理由：测试。")
        self.jars: dict[str, httpx.Client] = {}

    @staticmethod
    def at(e: dict[str, Any]) -> datetime:
        return datetime.fromtimestamp(e["unix"], timezone.utc)

    def jar(self, who: str) -> httpx.Client:
        if who not in self.jars:
            self.jars[who] = httpx.Client(base_url=self.sim.base_url, follow_redirects=False, timeout=10)
        return self.jars[who]

    def formhash(self, who: str) -> str:
        server = self.sim.server
        viewer = server.viewer_for(self.jar(who).cookies.get(self.cookiepre + "auth"))
        if self.gen == "x3" or GENERATIONS[self.gen] == "x3":
            return server.formhash_for(self.jar(who).cookies.get(self.cookiepre + "saltkey", ""), viewer)
        return server.formhash_for(viewer)

    def fields(self, e: dict[str, Any]) -> list[tuple[str, str]]:
        out = []
        for name, value in e["fields"] or []:
            if name == "formhash":
                value = self.formhash(e["who"])
            elif name == "password":
                value = password_of(dict(e["fields"])["username"])
            else:
                value = value.replace(self.real_base, self.sim.base_url)
            out.append((name, value))
        return out

    def send(self, e: dict[str, Any]) -> Replayed:
        jar = self.jar(e["who"])
        sent = sent_cookies(self.gen, e)
        for name in ("checkpm", self.cookiepre + "checkpm"):
            if name not in sent and name in jar.cookies:
                jar.cookies.delete(name)
        headers = {"User-Agent": e["ua"]}
        content = None
        if e["method"] == "POST":
            content = urlencode(self.fields(e), encoding="utf-8")
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        r = jar.request(e["method"], e["url"].replace(self.real_base, ""), content=content,
                        headers=headers)
        return Replayed(e, r.status_code, list(r.headers.multi_items()), r.content, self.clock.now())

    def run(self) -> dict[int, Replayed]:
        out = {}
        with self.sim.running():
            for e in self.exchanges:
                self.clock.set(self.at(e))
                out[e["n"]] = self.send(e)
            for jar in self.jars.values():
                jar.close()
        return out


@cache
def run_of(gen: str) -> tuple[dict[int, Replayed], str, str, str]:
    replayer = Replayer(gen)
    return replayer.run(), replayer.cookiepre, replayer.real_base, replayer.sim.base_url


# ---- what an answer is ----------------------------------------------------------------------

def header_values(headers, name: str) -> list[str]:
    return [v for k, v in headers if k.lower() == name]


def mattering_cookies(headers, prefix: str) -> frozenset[tuple[str, str]]:
    out = set()
    for value in header_values(headers, "set-cookie"):
        name, _, rest = value.partition("=")
        name = name.removeprefix(prefix)
        if name in MATTERING_COOKIES:
            out.add((name, "deleted" if rest.startswith("deleted") else "set"))
    return frozenset(out)


_HANDLER = re.compile(r"((?:succeed|error|message)handle_\w+)\((.*?)\);\}", re.S)


def _plain(html: str) -> str:
    html = re.sub(r"<script\b.*?</script>", "", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def indicators(text: str, gen: str, who: str) -> tuple:
    if gen == "x35":
        menu = re.search(r'id="pm_ntc" style="[^"]*"><em class="(prompt_news(?:_0)?)"', text)
        link = re.search(r'<a href="home\.php\?mod=space&amp;do=pm" id="pm_ntc"( class="new")?>', text)
        return ("x3", menu.group(1) if menu else None, bool(link and link.group(1)),
                "op=checknewpm&rand=" in text)
    prompt = re.search(r'<li( style="display:none")?><a id="prompt_pm"[^>]*>(.*?)</a>', text)
    myprompt = re.search(r'<a id="myprompt" href="notice\.php"\s*(class="new")?', text)
    return ("7.2", (prompt.group(1) is None, prompt.group(2)) if prompt else None,
            bool(myprompt and myprompt.group(1)) if who == "投票机" else "not compared")


def records(body: bytes, ctype: str, at: datetime) -> tuple | None:
    try:
        page = read_pm_page(body, content_type=ctype, now=at)
    except PageParseError:
        return None
    return (str(page.kind), page.generation, page.source, page.viewer_uid, page.with_uid,
            page.with_name, page.total, page.new_pm,
            [(m.id, m.author, m.uid, m.time, str(m.time_precision), m.text, m.own, m.unread)
             for m in page.messages],
            [(c.id, c.uid, c.name, c.last_text, c.last_own, c.time, c.unread, c.count)
             for c in page.conversations])


def kind_of(gen: str, who: str, body: bytes, ctype: str, base: str, at: datetime) -> tuple:
    if not body:
        return ("empty",)
    text = body.decode("utf-8", errors="replace").replace(base, "BASE/")
    if text.lstrip().startswith("{"):
        doc = json.loads(text)
        variables, message = doc.get("Variables", {}), doc.get("Message") or {}
        return ("api", message.get("messageval"), variables.get("pmid", "absent"),
                (variables.get("notice") or {}).get("newpm"), records(body, ctype, at))
    if text.lstrip().startswith("<?xml"):
        cdata = "".join(re.findall(r"<!\[CDATA\[(.*?)\]\]>", text, re.S))
        calls = [(name, " ".join(args.split())) for name, args in _HANDLER.findall(cdata)]
        if '<li id="pm_' in cdata:
            return ("node", records(body, ctype, at))
        if 'id="pmform_' in cdata:
            form = re.search(r'<form id="(pmform_\d+)"[^>]*action="([^"]*)"', cdata)
            msglist = re.search(r'id="msglist">(.*?)</ul>', cdata, re.S).group(1)
            items = re.findall(r'<div class="pmt">(.*?)</div>\s*<div class="pmd">(.*?)</div>', msglist, re.S)
            return ("popup", form.groups(), [(_plain(a), _plain(b)) for a, b in items])
        if 'id="sendpmform"' in cdata:
            to = re.search(r'<input name="msgto" value="([^"]*)"', cdata)
            return ("sendform", to.group(1) if to else None)
        if "prompt_pm" in cdata:
            return ("checknew", re.search(r"\$\('prompt_pm'\)\.innerHTML='([^']*)'", cdata).group(1))
        if "succeedhandle_" in cdata and "succeedlocation" in cdata:
            return ("login",)
        return ("ajax", _plain(cdata), calls)
    box = (re.search(r'<div id="messagetext" class="(alert_\w+)">(.*?)</div>', text, re.S)
           or re.search(r'<div class="postbox"><div class="(alert_\w+)">(.*?)</div>', text, re.S))
    marks = indicators(text, gen, who)
    if box and _plain(box.group(2)):
        first = re.search(r"<p>(.*?)</p>", box.group(2), re.S)
        return ("message", box.group(1), _plain(first.group(1) if first else box.group(2)), marks)
    found = records(body, ctype, at)
    if found is not None:
        return ("pm", found, marks)
    forms = sorted(set(re.findall(r'<form id="((?:pmform_\d+)|sendpmform)"', text)))
    if forms:
        return ("form", forms, marks)
    if 'id="loginform' in text or 'name="login"' in text:
        return ("loginform", marks)
    return ("page", marks)


@dataclass(frozen=True)
class Answer:
    status: int
    location: str | None
    content_type: str
    cookies: frozenset
    kind: tuple


def answer(gen: str, who: str, status: int, headers, body: bytes, prefix: str, base: str,
           at: datetime) -> Answer:
    ctype = (header_values(headers, "content-type") or [""])[0]
    return Answer(status, (header_values(headers, "location") or [None])[0],
                  ctype.lower().replace(" ", ""), mattering_cookies(headers, prefix),
                  kind_of(gen, who, body, ctype, base, at))


def _cases():
    for gen in GENERATIONS:
        for e in exchanges(gen):
            yield pytest.param(gen, e["n"], id=f"{gen}-{e['n']:02d}-{e['note'][:40] or e['url'][-40:]}")


@pytest.mark.parametrize(("gen", "n"), list(_cases()))
def test_drift_pm__every_exchange_answers_like_the_real_forum(gen: str, n: int) -> None:
    runs, prefix, real_base, sim_base = run_of(gen)
    r = runs[n]
    e = r.exchange
    real = answer(gen, e["who"], e["status"], e["headers"], body_of(gen, e), prefix, real_base, r.at)
    sim = answer(gen, e["who"], r.status, r.headers, r.body, prefix, sim_base, r.at)
    assert sim == real, f"{e['note']}: {e['method']} {e['url']}"
