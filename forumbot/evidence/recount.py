"""Recount a day from its evidence exactly as the live run counted it, and compare.

The live run counts with ``forumbot.game.state.count_day``: the game is the config's starting
state plus the store's events that stand (``build_state``), each post is a Ballot of its
first-seen and latest versions (``forumbot.game.state``'s own constructor: the first-seen text
stands), and ``engine.tally.tally_day`` + ``engine.report.tally_json`` give the SPEC §7
JSON. Here the same functions run on what the file holds instead of the store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.report import tally_json
from engine.tally import tally_day
from forumbot.evidence.fileformat import Evidence
from forumbot.game.state import _ballot as ballot_of_versions  # the live run's own constructor: one rule, one place
from forumbot.game.state import build_state


def recount(evidence: Evidence) -> dict[str, Any]:
    """The SPEC §7 tally JSON of the evidence's day, as JSON values (what the store keeps)."""
    config = evidence.config
    state = build_state(config, evidence.events)
    ballots = [ballot_of_versions(p.first, p.latest, p.role) for p in evidence.posts]
    result = tally_day(ballots, state, evidence.day, config.rules)
    return _json(tally_json(result, state, evidence.day, config.rules))


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False))


@dataclass(frozen=True)
class Difference:
    """One place where the live tally and the recount disagree."""

    path: str  # e.g. ``votes[pid 1012].target``, ``counts.包子``
    live: Any
    recount: Any

    def line(self) -> str:
        return f"{self.path}：实时计票 {_shown(self.live)}，复核 {_shown(self.recount)}"


_MISSING = object()


def _shown(value: Any) -> str:
    if value is _MISSING:
        return "（没有这一项）"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "…"


def compare(live: Any, recounted: Any, path: str = "") -> list[Difference]:
    """Every difference, by key; lists of records with a pid (votes, flags, the
    timeline) are matched by pid so one changed vote is one line, not a shifted list."""
    if isinstance(live, dict) and isinstance(recounted, dict):
        out: list[Difference] = []
        for key in [*live, *(k for k in recounted if k not in live)]:
            where = f"{path}.{key}" if path else str(key)
            a, b = live.get(key, _MISSING), recounted.get(key, _MISSING)
            if a is _MISSING or b is _MISSING:
                out.append(_diff(where, a, b))
            else:
                out += compare(a, b, where)
        return out
    if isinstance(live, list) and isinstance(recounted, list):
        keyed = _by_pid(live), _by_pid(recounted)
        if keyed[0] is not None and keyed[1] is not None:
            out = []
            for key in [*keyed[0], *(k for k in keyed[1] if k not in keyed[0])]:
                out += compare(keyed[0].get(key, _MISSING), keyed[1].get(key, _MISSING), f"{path}[{key}]")
            return out
        out = []
        for index in range(max(len(live), len(recounted))):
            a = live[index] if index < len(live) else _MISSING
            b = recounted[index] if index < len(recounted) else _MISSING
            out += compare(a, b, f"{path}[{index}]")
        return out
    if live is _MISSING or recounted is _MISSING or live != recounted or type(live) is not type(recounted):
        return [_diff(path, live, recounted)]
    return []


def _diff(path: str, live: Any, recounted: Any) -> Difference:
    return Difference(path or "（整个计票）", live, recounted)


def _by_pid(items: list[Any]) -> dict[str, Any] | None:
    """pid (and kind, for flags) → item, when every item is a record with a pid."""
    if not items or not all(isinstance(i, dict) and "pid" in i for i in items):
        return None
    keyed: dict[str, Any] = {}
    for item in items:
        key = f"pid {item['pid']}" + (f" {item['kind']}" if "kind" in item and "voter" not in item else "")
        if "index" in item:  # the timeline: one pid per entry, but keep the order's number
            key = f"#{item['index']} pid {item['pid']}"
        if key in keyed:
            return None
        keyed[key] = item
    return keyed


@dataclass(frozen=True)
class Check:
    """The recount, and how it compares with the live tally stored in the file."""

    recount: dict[str, Any]
    differences: tuple[Difference, ...]
    has_live: bool
    checksum_ok: bool | None

    @property
    def equal(self) -> bool:
        return self.has_live and not self.differences


def verify(evidence: Evidence) -> Check:
    recounted = recount(evidence)
    live = evidence.live
    differences = () if live is None else tuple(compare(_json(live), recounted))
    return Check(recounted, differences, live is not None, evidence.checksum_ok)
