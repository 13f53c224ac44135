"""What a run must show: every post once, every vote kept and ruled, the same tallies.

Two runs of one script differ legitimately in WHEN the agent saw things and so in where
its own posts landed: floors, pids and the times printed in running counts. The digests
here leave exactly that out, and keep everything the rules decide.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from forumbot.store.marker import find_marker_in_text, strip_marker
from forumbot.store.outbox import DraftState, Outbox
from forumbot.demo.scenario import BOT, World
from forumbot.store import Store

VOTE_KEYS = ("voter", "account", "kind", "target", "written", "weight", "valid", "reason", "time", "final")
TALLY_KEYS = ("counts", "abstain", "non_voters", "abstainers", "result", "total_weight", "sheriff_going_in")


def tally_digest(store: Store, days: list[int]) -> dict[int, dict[str, Any]]:
    """Per day: counts, result and every ruling, with floors and pids left out (the bot's
    own posts shift floors and pids from one run to another)."""
    out: dict[int, dict[str, Any]] = {}
    for day in days:
        snap = store.tally(day)
        if snap is None:
            out[day] = {"missing": True}
            continue
        data = snap.data
        digest = {k: data.get(k) for k in TALLY_KEYS}
        digest["votes"] = sorted((tuple(v.get(k) for k in VOTE_KEYS) for v in data["votes"]), key=repr)
        digest["flags"] = sorted((f["player"] or "", f["kind"], f.get("reason") or "") for f in data["flags"])
        out[day] = digest
    return out


def compare_tallies(got: dict[int, dict[str, Any]], want: dict[int, dict[str, Any]]) -> list[str]:
    """One line per difference: 'day 2 counts: {...} != {...}'."""
    diffs = []
    for day in sorted(set(got) | set(want)):
        a, b = got.get(day, {}), want.get(day, {})
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                diffs.append(f"day {day} {key}: {a.get(key)!r} != {b.get(key)!r}")
    return diffs


@dataclass
class PostAudit:
    posts: int  # bot posts on the forum
    duplicates: list[str] = field(default_factory=list)  # a marker seen on more than one post
    unmarked: list[int] = field(default_factory=list)  # bot posts without a marker
    orphans: list[str] = field(default_factory=list)  # on the forum, but no published draft has it
    missing: list[int] = field(default_factory=list)  # published drafts whose pid is not on the forum

    @property
    def ok(self) -> bool:
        return not (self.duplicates or self.unmarked or self.orphans or self.missing)


def bot_posts(world: World, bot: str = BOT) -> list[tuple[str, int, str]]:
    """(thread key, pid, message) of every post the bot made, by pid."""
    return world.bot_posts(bot)


def audit_posts(world: World, outbox: Outbox) -> PostAudit:
    posts = bot_posts(world)
    audit = PostAudit(len(posts))
    markers = Counter()
    for _, pid, message in posts:
        marker = find_marker_in_text(message)
        if marker is None:
            audit.unmarked.append(pid)
        else:
            markers[marker] += 1
    audit.duplicates = sorted(m for m, n in markers.items() if n > 1)
    published = outbox.drafts(DraftState.PUBLISHED)
    by_marker = {d.marker: d for d in published}
    audit.orphans = sorted(m for m in markers if m not in by_marker)
    on_forum = {pid for _, pid, _ in posts}
    audit.missing = sorted(d.pid for d in published if d.pid and d.pid not in on_forum)
    return audit


def published_kinds(outbox: Outbox) -> Counter[tuple[str, int | None]]:
    return Counter((d.kind.value, d.day) for d in outbox.drafts(DraftState.PUBLISHED))


def lost_votes(vote_posts: list[tuple[Any, int]], store: Store) -> list[str]:
    """Scripted votes that are not in the store, or that no ruling of their day names."""
    lost = []
    ruled: dict[int, set[int]] = {}
    for action, pid in vote_posts:
        day = int(action.thread[4:])
        if day not in ruled:
            snap = store.tally(day)
            ruled[day] = {v["pid"] for v in snap.data["votes"]} if snap else set()
        if not store.has_post(pid):
            lost.append(f"pid {pid} ({action.author} day {day}) not stored")
        elif pid not in ruled[day]:
            lost.append(f"pid {pid} ({action.author} day {day}) stored but not ruled")
    return lost


_FLOOR_LINK = re.compile(r"pid=\d+|ptid=\d+|tid=\d+|\d+楼|#pid\d+")
# The forum's address in the bot's links (absolute: issue 18 #7): each run has its own port.
_FORUM_ROOT = re.compile(r"https?://[^/\s\]\[]+/")
_TIMES = re.compile(r"\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{2}(:\d{2})?|\d{1,2}:\d{2}|剩余[^\n]*|还剩[^\n]*")


def normalise_body(body: str) -> str:
    """A post body without its marker, pids, floors and clock times (what legitimately
    differs between two runs that saw the same forum at different moments)."""
    return _TIMES.sub("T", _FLOOR_LINK.sub("#", _FORUM_ROOT.sub("BASE/", strip_marker(body)))).strip()


__all__ = ["PostAudit", "audit_posts", "bot_posts", "compare_tallies", "lost_votes", "normalise_body",
           "published_kinds", "tally_digest"]
