"""The SPEC §7 JSON object."""

from __future__ import annotations

import json

from engine.report import tally_json
from engine.rules import PRESETS
from engine.tally import tally_day
from tests.engine.builders import Thread, game, vote

SPEC_KEYS = {"day", "ruleset", "deadline", "votes", "counts", "abstain", "non_voters", "result", "flags"}
VOTE_KEYS = {"floor", "pid", "voter", "kind", "target", "weight", "valid", "reason", "time"}


def test_tally_json__has_the_spec_keys_and_values():
    thread = Thread()
    thread.post("饺子", vote("包子"))
    thread.post("汤圆", "投票对象：包子")
    state = game(sheriff="饺子")
    rules = PRESETS["s10"]
    out = tally_json(tally_day(thread.ballots, state, 2, rules), state, 2, rules)
    json.dumps(out, ensure_ascii=False)  # serialisable as is
    assert SPEC_KEYS <= set(out) and VOTE_KEYS <= set(out["votes"][0])
    assert (out["day"], out["ruleset"], out["deadline"]) == (2, "s10", "2026-11-30T21:30:00+08:00")
    assert out["counts"] == {"包子": 2}
    assert out["result"] == {"out": "包子", "sheriff": None, "tie": [], "rule": "most_votes", "detail": "包子 2票",
                             "effect": "out"}
    assert [(v["voter"], v["valid"], v["reason"], v["weight"], v["counted"]) for v in out["votes"]] == [
        ("饺子", True, None, 2, True), ("汤圆", False, "no_reason", 1, False)]
    assert out["votes"][0]["time"] == "2026-11-30T10:01:00+08:00"
    assert set(out["result"]) >= {"out", "sheriff", "tie", "rule"}


def test_tally_json__every_void_vote_has_a_reason_and_floor():
    thread = Thread()
    thread.post("饺子", vote("路人"))
    thread.post("导演", vote("玩家名"))
    out = tally_json(tally_day(thread.ballots, game(), 2, PRESETS["dual"]), game(), 2, PRESETS["dual"])
    assert all(v["reason"] and v["floor"] for v in out["votes"] if not v["valid"])
