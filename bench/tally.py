"""Tally speed: ``tally_day`` over 10,000 vote events (issue 3: milliseconds, not seconds).

Input: one day's vote thread with 10,000 vote posts by 500 players — first votes,
changes quoting the vote, second changes, votes after votes, unknown targets, abstentions
and late posts — built as parsed records (``Ballot`` with a ``VoteDeclaration``), so the
figure is the engine's own cost, not the text parser's. The reference is the time to
merely sort the same 10,000 ballots into post order, in the same run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from engine.ballots import Ballot, in_post_order
from engine.report import tally_json
from engine.rules import PRESETS
from engine.events import EventKind, GameEvent
from engine.state import DayWindow, GameState
from engine.tally import tally_day
from parsers.models import Post, Quote, TimePrecision, VoteDeclaration, VoteKind

EVENTS = 10_000
PLAYERS = 500
ROUNDS = 5
GOAL = "< 1,000 ms for 10,000 vote events (issue 3: milliseconds, not seconds)"
TZ = timezone(timedelta(hours=8))


def build(events: int = EVENTS, players: int = PLAYERS, seed: int = 7) -> tuple[list[Ballot], GameState]:
    rnd = random.Random(seed)
    names = tuple(f"玩家{i:03d}" for i in range(players))
    start = datetime(2026, 11, 29, 9, 30, tzinfo=TZ)
    deadline = start + timedelta(hours=36)
    day = DayWindow(number=2, start=start, deadline=deadline, vote_thread=12)
    # The sheriff (×2) was elected before this day: an event with no game time (SPEC §9).
    sheriff = GameEvent(EventKind.SHERIFF, None, player=names[0])
    state = GameState(players=names, director="导演", bot="计票机器人", days=(day,), events=(sheriff,))
    first_vote: dict[str, int] = {}
    ballots = []
    for i in range(events):
        pid = 1000 + i
        author = rnd.choice(names)
        target = rnd.choice((*names[:20], "弃权", "路人"))
        quotes: tuple[Quote, ...] = ()
        kind = VoteKind.VOTE
        if author in first_vote and rnd.random() < 0.7:
            kind = VoteKind.CHANGE
            quotes = (Quote(pid=first_vote[author], tid=12, author=author, quoted_at=None, text=""),)
        else:
            first_vote.setdefault(author, pid)
        at = start + timedelta(seconds=i * 36 * 3600 // events) + timedelta(minutes=rnd.choice((0, 0, 0, 90)))
        post = Post(tid=12, pid=pid, floor=i + 2, author=author, author_uid=None, posted_at=at,
                    time_precision=TimePrecision.SECOND, html="", text="", quotes=quotes)
        declaration = VoteDeclaration(kind=kind, target=target, reason="理由", targets_seen=(target,))
        ballots.append(Ballot(post=post, declaration=declaration))
    rnd.shuffle(ballots)  # pages may arrive in any order
    return ballots, state


def _best(fn: Callable[[], object], rounds: int = ROUNDS) -> float:
    best = float("inf")
    for _ in range(rounds):
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return best


def measure(events: int = EVENTS) -> tuple[float, float, float, int]:
    """``(tally s, tally + JSON s, sort s, valid rulings)`` best of ROUNDS."""
    ballots, state = build(events)
    rules = PRESETS["s10"]
    result = tally_day(ballots, state, 2, rules)
    valid = sum(r.valid for r in result.rulings)
    tally = _best(lambda: tally_day(ballots, state, 2, rules))
    with_json = _best(lambda: tally_json(tally_day(ballots, state, 2, rules), state, 2, rules))
    sort = _best(lambda: in_post_order(ballots))
    return tally, with_json, sort, valid


def run() -> list[dict[str, object]]:
    tally, with_json, sort, valid = measure()
    reference = f"sorting the same {EVENTS:,} ballots into post order: {sort * 1000:.1f} ms"
    return [
        {
            "benchmark": "tally",
            "figure": f"tally_day over {EVENTS:,} vote events ({PLAYERS} players, {valid} valid)",
            "value": tally * 1000,
            "unit": "ms",
            "reference": reference,
            "ratio": tally / sort if sort else None,
            "goal": GOAL,
        },
        {
            "benchmark": "tally",
            "figure": f"tally_day + SPEC §7 JSON over {EVENTS:,} vote events",
            "value": with_json * 1000,
            "unit": "ms",
            "reference": reference,
            "ratio": with_json / sort if sort else None,
            "goal": "(no goal; the JSON lists every ruling)",
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
