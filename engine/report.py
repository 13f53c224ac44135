"""The SPEC §7 JSON object for a tallied day. Keys may be added, never renamed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.flags import Flag
from engine.reasons import Reason, describe
from engine.rules import RuleSet
from engine.rulings import VoteRuling
from engine.state import GameState
from engine.tally import TallyResult, TimelineEvent


def _iso(t: datetime | None) -> str | None:
    return t.isoformat() if t is not None else None


def vote_json(r: VoteRuling, rules: RuleSet | None = None) -> dict[str, Any]:
    return {
        "floor": r.floor,
        "pid": r.pid,
        "voter": r.voter,
        "kind": r.kind.value,
        "target": r.target,
        "weight": r.weight,
        "valid": r.valid,
        "reason": None if r.valid else r.reason.value,
        "time": _iso(r.time),
        # additions
        "account": r.account,
        "written": r.written,
        "final": r.final,
        # SPEC §9: a valid vote may count for no one at the deadline (its voter or its
        # target went out before it): valid true, counted false, ``dropped`` says why.
        "counted": r.counted,
        "dropped": r.dropped,
        "reason_text": None if r.valid else describe(
            r.reason, change_window_minutes=rules.change_window_minutes if rules else None),
        "detail": r.detail,
        "candidates": list(r.candidates),
        "time_precision": r.ballot.post.time_precision.value,
    }


def flag_json(f: Flag) -> dict[str, Any]:
    return {
        "floor": f.floor,
        "player": f.player,
        "kind": f.kind.value,
        "detail": f.detail,
        # additions
        "pid": f.pid,
        "tid": f.tid,
        "thread": f.thread,
        "reason": f.reason.value if isinstance(f.reason, Reason) else None,
        "candidates": list(f.candidates),
    }


def event_json(e: TimelineEvent) -> dict[str, Any]:
    return {
        "index": e.index, "floor": e.floor, "pid": e.pid, "time": _iso(e.time), "voter": e.voter,
        "kind": e.kind.value, "from": e.before, "to": e.after, "weight": e.weight,
        "counts": dict(e.counts), "abstain": e.abstain,
    }


def tally_json(result: TallyResult, state: GameState, day: int, rules: RuleSet) -> dict[str, Any]:
    window = state.day(day)
    return {
        "day": day,
        "ruleset": rules.name,
        "deadline": _iso(window.deadline),
        "votes": [vote_json(r, rules) for r in result.rulings],
        "counts": dict(result.counts),
        "abstain": result.abstain,
        "non_voters": list(result.non_voters),
        "result": {
            "out": result.result.out,
            "sheriff": result.result.sheriff,
            "tie": list(result.result.tie),
            "rule": result.result.rule,
            "detail": result.result.detail,
            "effect": result.result.effect,
        },
        "flags": [flag_json(f) for f in result.flags],
        # additions
        "start": _iso(window.start),
        "accelerated": window.accelerated,
        "vote_thread": window.vote_thread,
        # The sheriff whose vote weighs double: the badge at the deadline, before the
        # day's own result (SPEC §9). ``sheriff_going_in`` is the same, kept for scripts.
        "sheriff_going_in": result.sheriff,
        "sheriff_at_deadline": result.sheriff,
        "badge_vacant": result.vacancy is not None,
        "vacated_by": result.vacancy.previous if result.vacancy else None,
        "allowed_voters": None if result.allowed_voters is None else list(result.allowed_voters),
        "dropped": [r.pid for r in result.dropped],
        "abstainers": list(result.abstainers),
        "total_weight": result.total_weight,
        "visibility": rules.visibility.value,
        "timeline": [event_json(e) for e in result.timeline],
        "reached": {p: i for p, i in result.reached.items()},
    }
