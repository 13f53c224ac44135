"""``forumbot serve`` killed with SIGKILL while it publishes — three times right after
the forum stored one of its posts and before it heard back, once at a random moment —
and restarted each time: every game's posts are on the forum exactly once (each found by
its marker after the restart, never sent again), every final count published once, and
the forum never refused a post for flood control."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from datetime import timedelta

import pytest

from forumbot.demo.harness import audit_posts, published_kinds
from forumbot.store.outbox import DraftKind, DraftState
from tests.forumbot.service_support import served, wait_for

GAMES = 4


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("service-crash")
    s = served(tmp, GAMES, deadline=timedelta(hours=2, minutes=12), running_count_interval_minutes=0,
               policies={"final_count": "auto"})
    log = tmp / "serve.log"
    stderr = open(tmp / "serve.stderr", "ab")
    state = {"proc": None, "kills": [], "starts": 0, "armed": 3}
    lock = threading.Lock()

    def start():
        env = s.env()
        state["proc"] = s.forumbot("serve", "--games", str(s.folder), "--no-desk", env=env)
        state["starts"] += 1

    def window(post):  # in the simulator's thread: the post is stored, the answer not yet sent
        with lock:
            proc = state["proc"]
            if state["armed"] > 0 and proc is not None and proc.poll() is None:
                state["armed"] -= 1
                os.kill(proc.pid, signal.SIGKILL)
                state["kills"].append(("window", post.pid))

    s.sim.on_bot_post = window
    players = threading.Event()

    def vote_on():  # the players keep voting in every game until the deadline
        n = 0
        while not players.is_set() and s.clock.now() < s.many.games[0].plan.days[0].deadline:
            for game in s.many.games:
                people = game.plan.players
                game.vote(people[n % len(people)], people[(n + 3) % len(people)])
            n += 1
            players.wait(1.0)

    voter = threading.Thread(target=vote_on, daemon=True)
    start()
    voter.start()
    timed_kill_at = time.monotonic() + 6
    began = time.monotonic()

    def settled():
        for game in s.many.games:
            rt = s.open(game.name)
            try:
                if not any(d.kind is DraftKind.FINAL_COUNT for d in rt.outbox.drafts(DraftState.PUBLISHED)):
                    return False
                if rt.outbox.drafts(DraftState.APPROVED, DraftState.PUBLISHING):
                    return False
            finally:
                rt.close()
        return True

    try:
        while time.monotonic() - began < 150:
            proc = state["proc"]
            with lock:
                if proc.poll() is not None:
                    if proc.returncode != -signal.SIGKILL:
                        raise AssertionError(f"serve exited {proc.returncode}: {proc.stderr.read()}")
                    start()
            if timed_kill_at and time.monotonic() >= timed_kill_at:
                with lock:
                    if state["proc"].poll() is None:
                        state["proc"].send_signal(signal.SIGKILL)
                        state["proc"].wait()
                        state["kills"].append(("timed", None))
                timed_kill_at = 0
            if state["armed"] == 0 and not timed_kill_at and s.clock.now() > s.many.games[0].plan.days[0].deadline \
                    and settled():
                break
            time.sleep(0.05)
        finished = settled()
    finally:
        players.set()
        with lock:
            state["armed"] = 0
            proc = state["proc"]
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                out, err = proc.communicate(timeout=30)
                state["last_stderr"] = err
        stderr.close()
    yield s, state, finished
    s.sim.stop()


def test_service_crash__every_kill_landed_and_the_games_finished(run):
    s, state, finished = run
    assert finished, "the games did not settle in time"
    assert [k for k, _ in state["kills"]].count("window") == 3
    assert ("timed", None) in state["kills"]
    assert state["starts"] == len(state["kills"]) + 1


def test_service_crash__every_post_exactly_once_in_every_game(run):
    s, state, _ = run
    found = 0
    for game in s.many.games:
        rt = s.open(game.name)
        try:
            audit = audit_posts(game.world, rt.outbox)
            assert audit.ok, (game.name, audit)
            kinds = published_kinds(rt.outbox)
            assert kinds[(DraftKind.FINAL_COUNT.value, 1)] == 1, (game.name, kinds)
            assert kinds[(DraftKind.RUNNING_COUNT.value, 1)] >= 1, (game.name, kinds)
            found += sum(1 for d in rt.outbox.drafts(DraftState.PUBLISHED) for h in rt.outbox.history(d.id)
                         if h.detail.get("found_by_marker"))
        finally:
            rt.close()
    # each post killed in its window was found on the forum by its marker, not sent again
    assert found >= 3
    pids = Counter(p.pid for p in s.many.bot_posts())
    assert all(n == 1 for n in pids.values())


def test_service_crash__no_flood_refusal_across_restarts(run):
    s, _, _ = run
    assert s.sim.data.flood_refusals == 0
    assert "Traceback" not in run[1].get("last_stderr", "")
