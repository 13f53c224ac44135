"""End-to-end fuzzing support: posts the way players write them, put on the simulated
forum, served as page bytes, and read back through the whole pipeline —
``read_page`` → ``parse_vote`` → ``engine.tally_day``.

The text-level strategies of ``tests/parsers/test_votes_fuzz.py`` (zero-width
sprinkling, BBCode wrapping, key lines, nested quote blocks, the fragment soup) are
reused; what is added here is what they lack: a game roster, targets written the way
players mistype real names (full-width, Traditional, mixed case, zero-width inside), fake
quote headers naming other players, hand-typed and nested quotes, mis-nested BBCode,
whole threads rendered by the simulator (HTML pages and mobile-API JSON), and mangled
copies of those pages.

Example budget: ``FORUMBOT_FUZZ_EXAMPLES`` is the total for all end-to-end fuzz tests
(``make fuzz``: 100000); each test takes its share. Without it the suite runs
``DEFAULT_TOTAL`` examples in all, to stay fast.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine.ballots import Ballot
from engine.rules import PRESETS
from engine.state import DayWindow, GameState
from engine.tally import TallyResult, tally_day
from forumbot.simulator import BEIJING, SimClock, Simulator
from forumbot.simulator.wire import Request
from parsers.models import ThreadPage
from parsers.pages import read_page
from parsers.votes import parse_vote
from tests.parsers.test_votes_fuzz import (
    CHAT,
    COLONS,
    FRAGMENTS,
    REASONS,
    SPACES,
    ZERO_WIDTH,
    OPEN_TAGS,
    quote_block,
    sprinkle_zero_width,
)

# ------------------------------------------------------------------ example budget

ENV = "FORUMBOT_FUZZ_EXAMPLES"
DEFAULT_TOTAL = 300  # all end-to-end fuzz tests together, in the normal suite
#: Each fuzz test's share of the total (weights; they need not sum to anything).
SHARES = {"posts": 4, "headers": 1, "mangled": 2, "rulings": 3}


def examples(share: str) -> int:
    total = int(os.environ.get(ENV) or DEFAULT_TOTAL)
    weight = SHARES[share]
    return max(10, total * weight // sum(SHARES.values()))


def fuzz_settings(share: str) -> settings:
    return settings(max_examples=examples(share), deadline=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


# ------------------------------------------------------------------ the game

ROSTER = ("饺子", "包子", "Alice", "bob_2", "阿Ｂ", "老７", "月饼", "Mr.K", "小笼包", "烧卖")
DIRECTOR = "导演"
OUTSIDER = "路人甲"  # an account that posts but does not play
AUTHORS = (*ROSTER, DIRECTOR, OUTSIDER)
START = datetime(2026, 12, 1, 9, 0, tzinfo=BEIJING)
DEADLINE = START + timedelta(hours=12, minutes=30)
VOTE_TID = 1  # the simulator numbers threads from 1


def state(*, sheriff: str | None = None, out: tuple[str, ...] = (), accelerated: bool = False) -> GameState:
    day = DayWindow(number=1, start=START, deadline=DEADLINE, vote_thread=VOTE_TID,
                    accelerated=accelerated)
    game = GameState(players=ROSTER, director=DIRECTOR, bot="计票机器人", days=(day,))
    if sheriff:
        game = game.set_sheriff(sheriff)
    for player in out:
        game = game.put_out(player, None, "出局")
    return game


# ------------------------------------------------------------------ how targets get written

#: Inline BBCode only: ``[align]`` renders as a block (``<div align>``), which puts the
#: name on a line of its own on the page — see the named case in test_fuzz_posts.
INLINE_TAGS = [t for t in OPEN_TAGS if not t[0].startswith("[align")]


@st.composite
def wrap_bbcode(draw: st.DrawFn, s: str) -> str:
    for open_tag, close_tag in draw(st.lists(st.sampled_from(INLINE_TAGS), max_size=3)):
        s = open_tag + s + close_tag
    return s


ABSTAIN_WRITTEN = ("弃权", "棄權", "弃權", "棄权")  # Traditional forms the parser accepts


def full_width(s: str) -> str:
    """ASCII letters and digits as their full-width forms (NFKC folds them back)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" and c.isalnum() else c for c in s)


@st.composite
def written_name(draw: st.DrawFn, name: str) -> str:
    """``name`` as a player might type it: full-width, other case, zero-width characters
    inside, BBCode around it (弃权 also in Traditional). Each form still names ``name``:
    the engine matches names by NFKC + case-fold + zero-width strip."""
    forms = list(ABSTAIN_WRITTEN) if name == "弃权" else [name, full_width(name)]
    if name.isascii():
        forms += [name.upper(), name.lower()]
    text = draw(st.sampled_from(forms))
    if draw(st.booleans()):
        text = draw(sprinkle_zero_width(text))
    return draw(wrap_bbcode(text))


def header(author: str, minute: int = 24) -> str:
    """The line Discuz puts at the top of a quote: "X 发表于 2026-12-01 10:24"."""
    return f"{author} 发表于 2026-12-01 10:{minute:02d}"


# ------------------------------------------------------------------ posts

@dataclass(frozen=True)
class Written:
    """One generated post and what its author meant by it."""

    author: str
    message: str  # BBCode as posted
    intent: str  # "vote" | "change" | "two_targets" | "no_target" | "quoted_only" | "chatter"
    target: str | None = None  # the roster name (or 弃权) meant, for vote/change
    quote: int | None = None  # index of an earlier post to quote with the reply button


@st.composite
def target_line(draw: st.DrawFn, action: str, value: str) -> str:
    key = action + draw(st.sampled_from(["对象", "對象"]))
    if draw(st.integers(0, 3)) == 0:
        key = draw(sprinkle_zero_width(key))
    colon = draw(st.sampled_from(SPACES)) + draw(st.sampled_from(COLONS)) + draw(st.sampled_from(SPACES))
    return key + colon + value


@st.composite
def reason_line(draw: st.DrawFn, action: str) -> str:
    colon = draw(st.sampled_from(COLONS))
    return f"{action}理由{colon}{draw(st.sampled_from(REASONS))}"


def _lines(*parts: str, newline: str = "\n") -> str:
    return newline.join(p for p in parts if p)


@st.composite
def fake_header(draw: st.DrawFn, author: str) -> str:
    """A fake quote header naming another player, typed into the post's own text."""
    other = draw(st.sampled_from([a for a in ROSTER if a != author]))
    return draw(st.sampled_from([header(other), f"原帖由 {other} 于 2026-12-01 10:24 发表",
                                 f"[color=#999999]{header(other)}[/color]"]))


@st.composite
def vote_post(draw: st.DrawFn, author: str, n_before: int) -> Written:
    """A vote or a change naming a roster player (or abstaining), decorated."""
    change = n_before > 0 and draw(st.integers(0, 3)) == 0
    action = "改票" if change else "投票"
    target = draw(st.sampled_from([*ROSTER, "弃权"]))
    value = draw(written_name(target)) + draw(st.sampled_from(["", "。", "！", " ", "~"]))
    chat = st.sampled_from(CHAT)
    lines = [*draw(st.lists(chat, max_size=1))]
    if draw(st.integers(0, 4)) == 0:
        lines.append(draw(fake_header(author)))
    lines.append(draw(wrap_bbcode(draw(target_line(action, value)))))
    lines.append(draw(reason_line(action)))
    if draw(st.booleans()):
        lines.insert(0, draw(quote_block()))  # someone else's vote, quoted (maybe nested)
    quote = draw(st.integers(0, n_before - 1)) if change else None
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return Written(author, _lines(*lines, newline=newline), "change" if change else "vote", target, quote)


@st.composite
def quoted_only(draw: st.DrawFn, author: str) -> Written:
    """A vote that is only inside a quote — typed by hand, with a header naming another
    player, possibly nested — and the poster's own words outside it, which declare
    nothing."""
    other = draw(st.sampled_from(ROSTER))
    inner = _lines(header(other), f"投票对象：{draw(st.sampled_from(ROSTER))}", "投票理由：跟票")
    for _ in range(draw(st.integers(1, 3))):
        inner = f"[quote]{inner}[/quote]"
    own = draw(st.sampled_from(["同意楼上", "+1", "楼上说得对，不过我还要再看看。", "呵呵"]))
    return Written(author, inner + "\n" + own, "quoted_only")


@st.composite
def two_targets(draw: st.DrawFn, author: str) -> Written:
    a, b = draw(st.lists(st.sampled_from(ROSTER), min_size=2, max_size=2, unique=True))
    return Written(author, _lines(f"投票对象：{a}", f"投票对象：{b}", draw(reason_line("投票"))), "two_targets")


@st.composite
def no_target(draw: st.DrawFn, author: str) -> Written:
    line = draw(target_line("投票", draw(st.sampled_from(["", " ", "[b][/b]", "\u200b", "。"]))))
    return Written(author, _lines(line, draw(reason_line("投票"))), "no_target")


MISNESTED = ["[b][color=Red]{x}[/b][/color]", "[size=7][b]{x}[/size]", "[quote]{x}",
             "{x}[/quote]", "[color=]{x}[/color]", "[url]{x}", "[i=s]{x}[/i]"]


@st.composite
def chatter(draw: st.DrawFn, author: str) -> Written:
    """Anything else: chat, fragment soup, mis-nested BBCode, arbitrary text."""
    soup = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=25).map("".join)
    text = draw(st.one_of(st.sampled_from(CHAT), soup, st.text(max_size=60)))
    if draw(st.integers(0, 3)) == 0:
        text = draw(st.sampled_from(MISNESTED)).format(x=text)
    return Written(author, text, "chatter")


@st.composite
def player_post(draw: st.DrawFn, n_before: int) -> Written:
    author = draw(st.sampled_from(AUTHORS))
    kind = draw(st.sampled_from(["vote", "vote", "vote", "quoted_only", "two_targets", "no_target",
                                 "chatter", "chatter"]))
    if kind == "vote":
        return draw(vote_post(author, n_before))
    return draw({"quoted_only": quoted_only, "two_targets": two_targets, "no_target": no_target,
                 "chatter": chatter}[kind](author))


@st.composite
def threads(draw: st.DrawFn, max_posts: int = 14) -> list[Written]:
    """A vote thread's replies, in order (quotes point at earlier replies)."""
    count = draw(st.integers(1, max_posts))
    return [draw(player_post(i)) for i in range(count)]


# ------------------------------------------------------------------ through the forum

@dataclass
class Served:
    sim: Simulator
    pids: list[int]  # pid of each generated post, in order
    pages: list[bytes]
    content_type: str


def post_on_forum(written: list[Written], *, api: bool = False, charset: str = "utf-8",
                  per_page: int = 10) -> Served:
    """Put the posts on a fresh simulated forum (a minute apart, from 10:00 on day 1) and
    fetch every page of the vote thread as a logged-out reader would (HTML or API)."""
    clock = SimClock(start=START + timedelta(hours=1))
    sim = Simulator(clock=clock, charset=charset, posts_per_page=per_page)
    for name in AUTHORS:
        sim.add_user(name, "pw")
    fid = sim.add_forum("版杀区")
    tid = sim.add_thread(fid, "【饺子村】第一日 投票帖", DIRECTOR, "投票格式：\n投票对象：玩家名",
                         at=START - timedelta(minutes=30))
    assert tid == VOTE_TID
    pids: list[int] = []
    for i, w in enumerate(written):
        quote = pids[w.quote] if w.quote is not None else None
        pids.append(sim.add_post(tid, w.author, w.message, at=START + timedelta(minutes=i + 1),
                                 quote_pid=quote))
    total = -(-(len(written) + 1) // per_page)
    pages, content_type = [], ""
    for page in range(1, total + 1):
        if api:
            query = {"version": "4", "module": "viewthread", "tid": str(tid), "page": str(page)}
            req = Request("GET", "/api/mobile/index.php", query, {}, {}, {})
        else:
            query = {"mod": "viewthread", "tid": str(tid), "page": str(page)}
            req = Request("GET", "/forum.php", query, {}, {}, {})
        response = sim.server.dispatch(req, None)
        pages.append(response.body)
        content_type = response.content_type
    return Served(sim, pids, pages, content_type)


def ballots_from(pages: list[ThreadPage]) -> list[Ballot]:
    """Each post read from the pages, with what its own text declares (as the agent
    builds them: ``parse_vote(post.text)``)."""
    seen: dict[int, Ballot] = {}
    for page in pages:
        for post in page.posts:
            seen.setdefault(post.pid, Ballot(post=post, declaration=parse_vote(post.text), thread="vote"))
    return list(seen.values())


def read_all(served: Served, source: str = "fuzzed-thread") -> list[ThreadPage]:
    return [read_page(body, content_type=served.content_type, source=f"{source}-p{i + 1}")
            for i, body in enumerate(served.pages)]


def tally(ballots: list[Ballot], game: GameState | None = None, ruleset: str = "simple14") -> TallyResult:
    return tally_day(ballots, game or state(), 1, PRESETS[ruleset])


def nfkc(s: str) -> str:
    return unicodedata.normalize("NFKC", s)


__all__ = [
    "AUTHORS", "DEFAULT_TOTAL", "ENV", "ROSTER", "Served", "Written", "ballots_from", "chatter",
    "examples", "fake_header", "full_width", "fuzz_settings", "header", "no_target",
    "player_post", "post_on_forum", "quoted_only", "read_all", "state", "tally", "threads",
    "two_targets", "vote_post", "written_name", "ZERO_WIDTH",
]
