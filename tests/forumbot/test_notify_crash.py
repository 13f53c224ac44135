"""``forumbot run`` in a real subprocess, SIGKILLed after the forum stored its PM to the
director and before it heard back (the simulator holds the answer): restarted, it finds
the PM in the conversation by its marker and records it — the director gets it once.
Both Discuz generations (X3.5's popup form, 7.2's reply form).

It once failed under load with ``attempts`` 2: the claim is taken before the client's
16 s flood-clock wait, the forum stamps the PM when its POST arrives, and the restarted
process looked it up within that second — which no conversation view lists yet — because
the claim was old enough; it sent the PM again. The lookup now waits out the second the
attempt's fate became unknown (``pmbox._send_one``; ``test_notify.py``'s
``…stored_after_the_write_clock_wait…`` shows it without a subprocess)."""

from __future__ import annotations

import os
import signal

import pytest

from forumbot.store.outbox import DraftKind
from forumbot.game.runtime import open_runtime
from forumbot.demo.scenario import BOT, DIRECTOR
from forumbot.simulator import Fault
from tests.forumbot.agent_process import live_game, stop, wait_for

SEND = {"x3": "op=send", "7.2": "action=send"}


@pytest.mark.parametrize("discuz", ["x3", "7.2"])
def test_notify_crash__killed_between_the_forum_storing_a_pm_and_recording_it_sends_it_once(
        tmp_path, discuz):
    game = live_game(tmp_path, discuz=discuz, notify={"enabled": True})
    try:
        rt = open_runtime(game.config, clock=game.clock)
        draft = rt.outbox.create_draft(DraftKind.CARD_NOTICE, game.world.tids["progress"], "判罚通知：烧卖 蓝牌",
                                       now=game.clock.now())
        rt.close()
        bot = game.sim.data.user(BOT).uid
        # Stored; the answer held back for longer than the test lasts: however late the kill
        # comes on a loaded machine, the first process never hears back (its client gives
        # up after its timeout and leaves the PM ``sending``, as a kill does).
        game.sim.faults.add(Fault.SLOW, match=SEND[discuz], after=3600.0)

        def bot_pms():
            return [m for m in game.sim.pms_between(BOT, DIRECTOR) if m.fromuid == bot]

        first = game.forumbot("run")
        try:
            [stored] = wait_for(bot_pms, timeout=60)
        finally:
            os.kill(first.pid, signal.SIGKILL)
            first.wait(timeout=10)
        assert f"#{draft.id}" in stored.text
        rt = open_runtime(game.config, clock=game.clock)
        [row] = [r for r in rt.store.db.query("SELECT * FROM notify_pms")]
        assert row["state"] == "sending" and row["marker"] in stored.text  # claimed, not recorded
        assert row["attempts"] == 1
        rt.close()

        second = game.forumbot("run")
        try:
            def recorded():
                rt2 = open_runtime(game.config, clock=game.clock)
                try:
                    return [r for r in rt2.store.db.query("SELECT * FROM notify_pms WHERE state = 'sent'")]
                finally:
                    rt2.close()
            [sent] = wait_for(recorded, timeout=60)
        finally:
            code, out, err = stop(second)
        assert code == 0, err
        assert sent["pmid"] == stored.pmid and sent["attempts"] == 1
        assert [m.pmid for m in bot_pms()] == [stored.pmid]  # once, not twice
        sends = [r for r in game.sim.requests if r.method == "POST" and r.user == BOT
                 and SEND[discuz].split("=")[1] in r.query.values()]
        assert len(sends) == 1
    finally:
        game.sim.stop()
