"""The scripted game with the forum misbehaving along the way — server errors, a read
slower than the client's timeout, a reply answered after the timeout (stored), dropped
connections before and after a reply was stored, a truncated answer to a reply, an
expired session, flood control, and the site closed for three hours: the agent recovers
and ends with the same tallies and the same posts as a run without faults.

In-process (a ``SimClock`` moved ten game minutes a pass) with a 0.5 s HTTP timeout.
What may differ between the two runs: pids, floors and the clock times printed in the
posts (a post delayed by a fault lands later). Final counts and announcements are
compared exactly apart from those; running counts by number per day.
"""

from __future__ import annotations

import os
from collections import Counter
from datetime import datetime
from typing import Callable

import pytest

from forumbot.agent.loop import Agent, TickReport

from forumbot.notify import Notifier
from forumbot.demo.harness import (
    Played,
    setup_plan,
    RandomFaults,
    audit_posts,
    compare_tallies,
    lost_votes,
    normalise_body,
    play_in_process,
    published_kinds,
    tally_digest,
)
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.game.runtime import make_client, open_runtime
from forumbot.demo.scenario import PASSWORD, at, demo_plan
from forumbot.simulator import Fault, SimClock

DAYS = [1, 2, 3]
AGENT = {"count_request_max_age_minutes": 720, "min_request_interval_seconds": 1}
TIMEOUT = 0.5  # wall seconds per request
REPLY = "action=reply"
VIEW = "viewthread"  # the API read (module=viewthread) and the page (mod=viewthread)


def _schedule(faults: RandomFaults, sim) -> list[tuple[datetime, str, Callable[[], None]]]:
    """(game time, name, what to do) — each done once, at the first pass at or after it."""
    def closed(reason: str | None) -> Callable[[], None]:
        def set_closed() -> None:
            sim.settings.site_closed = reason
        return set_closed

    def flood(seconds: int) -> Callable[[], None]:
        def set_flood() -> None:
            sim.settings.floodctrl = seconds
        return set_flood

    return [
        (at(1, "09:55"), "5xx", lambda: faults.add(Fault.SERVER_ERROR, status=502, times=3)),
        (at(1, "10:05"), "5xx on reply", lambda: faults.add(Fault.SERVER_ERROR, match=REPLY, status=503)),
        (at(1, "10:25"), "slow read", lambda: faults.add(Fault.SLOW, match=VIEW, delay=TIMEOUT * 2)),
        (at(1, "12:05"), "drop before store", lambda: faults.add(Fault.DROP_BEFORE_STORE, match=REPLY)),
        (at(1, "13:00"), "flood control on", flood(3600)),
        (at(1, "17:00"), "flood control off", flood(15)),
        (at(1, "21:20"), "drop after store", lambda: faults.add(Fault.DROP_AFTER_STORE, match=REPLY)),
        (at(1, "22:50"), "site closed", closed("论坛维护中，预计 3 小时后恢复。")),
        (at(2, "01:50"), "site open", closed(None)),
        (at(2, "09:35"), "session expires", lambda: faults.add(Fault.SESSION_EXPIRE, match=VIEW)),
        (at(2, "11:05"), "slow reply (stored)", lambda: faults.add_slow_after(REPLY, after=TIMEOUT * 2)),
        (at(2, "13:55"), "truncated reply", lambda: faults.add(Fault.TRUNCATE, match=REPLY)),
        (at(2, "14:30"), "drop reads", lambda: faults.add(Fault.DROP_BEFORE_STORE, match=VIEW, times=2)),
        (at(2, "21:30"), "5xx at the deadline", lambda: faults.add(Fault.SERVER_ERROR, times=2)),
        (at(3, "09:55"), "drop after store", lambda: faults.add(Fault.DROP_AFTER_STORE, match=REPLY)),
        (at(3, "12:00"), "session expires on reply", lambda: faults.add(Fault.SESSION_EXPIRE, match=REPLY)),
    ]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    os.environ.setdefault("FORUMBOT_PASSWORD", PASSWORD)
    clean = play_in_process(demo_plan(), tmp_path_factory.mktemp("clean"), http_timeout=TIMEOUT, **AGENT)
    faults = RandomFaults(0.0)
    pending: list = []
    done: list[str] = []

    def on_setup(game) -> None:
        pending.extend(_schedule(faults, game.sim))

    def on_tick(report, now: datetime) -> None:
        while pending and pending[0][0] <= now:
            _, name, action = pending.pop(0)
            action()
            done.append(name)

    faulty = play_in_process(demo_plan(), tmp_path_factory.mktemp("faulty"), faults=faults,
                             http_timeout=TIMEOUT, on_setup=on_setup, on_tick=on_tick, **AGENT)
    yield clean, faulty, faults, done
    clean.close()
    faulty.close()


def test_agent_faults__every_fault_fired(runs):
    _, faulty, faults, done = runs
    assert len(done) == 16
    assert faults.pending == [], faults.pending  # each planned fault met a request
    fired = Counter(kind for kind, _ in faults.fired)
    assert set(fired) == set(Fault) - {Fault.SITE_CLOSED}  # the closure is a site setting here
    assert faulty.errors, "the faults never reached the agent's passes"
    assert any("closed" in e or "维护" in e for e in faulty.errors), faulty.errors


def test_agent_faults__stored_replies_found_by_marker_not_resent(runs):
    """Drop after store (×2), the slow reply and the truncated answer: each post reached
    the forum without the agent hearing back; each was found by its marker."""
    _, faulty, *_ = runs
    outbox = faulty.rt.outbox
    found = [d.id for d in outbox.drafts(DraftState.PUBLISHED)
             if any(h.detail.get("found_by_marker") for h in outbox.history(d.id))]
    assert len(found) == 4, found


def test_agent_faults__clean_run_had_no_errors(runs):
    clean, *_ = runs
    assert clean.errors == []


@pytest.mark.parametrize("which", ["clean", "faulty"])
def test_agent_faults__no_post_duplicated_or_missing(runs, which):
    played = runs[0] if which == "clean" else runs[1]
    audit = audit_posts(played.game.world, played.rt.outbox)
    assert audit.ok, audit
    assert played.rt.outbox.pending() == []


def test_agent_faults__same_tallies(runs):
    clean, faulty, *_ = runs
    assert compare_tallies(tally_digest(faulty.rt.store, DAYS), tally_digest(clean.rt.store, DAYS)) == []
    assert lost_votes(faulty.game.vote_posts(), faulty.rt.store) == []


def test_agent_faults__same_posts_by_kind_and_day(runs):
    clean, faulty, *_ = runs
    assert published_kinds(faulty.rt.outbox) == published_kinds(clean.rt.outbox)


@pytest.mark.parametrize("kind", [DraftKind.FINAL_COUNT, DraftKind.ANNOUNCEMENT, DraftKind.COUNT_REPLY],
                         ids=lambda k: k.value)
def test_agent_faults__same_bodies(runs, kind):
    clean, faulty, *_ = runs

    def bodies(played: Played) -> list[tuple[int | None, str]]:
        return [(d.day, normalise_body(d.body)) for d in played.rt.outbox.drafts(DraftState.PUBLISHED)
                if d.kind is kind]

    assert bodies(faulty) == bodies(clean)
    assert bodies(clean)


@pytest.mark.parametrize("replies_after", [0, 9, 35], ids=["none", "same-page", "four-pages"])
def test_agent_faults__lost_answer_found_however_far_back(tmp_path, monkeypatch, replies_after):
    """The forum stores the bot's post and the connection drops; players then post
    ``replies_after`` replies (10 per page) before the agent's next pass. The marker
    lookup must find the post wherever it now is, never send it again. (With 35 replies
    the lookup used to stop after the last 3 pages and the post went out twice.)"""
    monkeypatch.setenv("FORUMBOT_PASSWORD", PASSWORD)
    clock = SimClock(start=at(1, "10:00"))
    faults = RandomFaults(0.0)
    game = setup_plan(demo_plan(), tmp_path, clock, faults=faults)
    rt = open_runtime(game.config, clock=clock)
    try:
        agent = Agent(rt, make_client(rt), notifier=Notifier.for_agent)
        agent.start()
        tid = game.world.tids["vote1"]
        draft = rt.outbox.create_draft(DraftKind.RUNNING_COUNT, tid, "【计票】测试", now=clock.now(), day=1)
        faults.add(Fault.DROP_AFTER_STORE, match=REPLY)
        agent.publish(clock.now(), TickReport(at=clock.now()))
        assert rt.outbox.get(draft.id).state is DraftState.PUBLISHING
        for i in range(replies_after):
            game.sim.add_post(tid, "饺子", f"路过水一帖，第{i}次", at=clock.now())
        clock.advance(minutes=10)
        report = TickReport(at=clock.now())
        agent.publish(clock.now(), report)
        assert [p.how.value for p in report.published] == ["found"]
        audit = audit_posts(game.world, rt.outbox)
        assert audit.ok and audit.posts == 1, audit
    finally:
        rt.close()
        game.sim.stop()
