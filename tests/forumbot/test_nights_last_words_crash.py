"""遗言 by PM (SPEC §10.5) with the agent in a subprocess over real HTTP on the simulator,
SIGKILLed at the named moments of collecting the words and at random ones (about every
three game hours, and right after the forum stored a bot post), restarted each time:

* after the forum stored the bot's PM asking for 遗言, before the bot heard back (a
  lookup by marker finds it);
* after the player's answer was read, before it was stored (the statement that keeps the
  words about to run: its transaction never commits);
* after the words were stored, before the announcement carrying them was drafted.

On restart each holder is asked exactly once, each holder's words are taken once and never
change, the announcement carries them exactly once, and no player message goes unanswered.
On Discuz! X3.5 (7.2 GBK: test_nights_last_words, in process)."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from collections import Counter
from datetime import timedelta
from html import unescape
from pathlib import Path

import pytest

from forumbot.demo.harness import KillOptions, run_with_kills
from forumbot.demo.nights import PLAYERS14
from forumbot.demo.scenario import BOT
from forumbot.game.runtime import open_runtime
from tests.forumbot.nights_support import MARKER, answers_to, words_plan

AGENT = {"min_request_interval_seconds": 1, "poll_jitter_seconds": 30}
ASK = "可以留下遗言"
# The agent dies right after the forum stored the questions to 包子 and 春卷 (for the
# morning of day 3); not 汤圆's, asked at 08:00 for the 09:00 morning (see POINTS).
ASK_DAY3 = "公布在第3日的公示中"
HOLDERS = ("汤圆", "包子", "春卷")
# The agent dies as the statement keeping a holder's words starts (包子's twice in a row:
# two lives that read the answer and never stored it), and as the announcement with the
# words is about to be drafted. Not while keeping 汤圆's: asked when night 1 is final
# (08:00), answering before the 09:00 morning, a restart at this clock (≈ 50 game minutes)
# would make the words late — a different, tested case.
KEEP = r"UPDATE last_words SET text = .* AND player = '(?P<key>%s)' AND text IS NULL"
POINTS = {
    "read_not_stored": KEEP % "包子|春卷",
    "read_not_stored_again": KEEP % "包子",
    "stored_not_drafted": r"INSERT INTO outbox \(kind.*VALUES \('announcement'.*遗言：",
}
WORDS = "我是好人，大家看月饼\n再见😀"


def asked(game, who: str) -> bool:
    bot = game.sim.data.user(BOT).uid
    return any(m.fromuid == bot and ASK in m.text for m in game.sim.pms_between(BOT, who))


def words_wait_for_the_ask(game, action) -> bool:
    """A holder answers once the bot's question is on the forum (however late a restart
    made it), as a player does: 遗言 sent before being asked is another case (tested
    in test_nights_last_words)."""
    if action.kind != "pm" or action.author not in HOLDERS or "遗言" not in action.message:
        return True
    return asked(game, action.author)


@functools.cache
def crash_run(discuz: str, charset: str):
    tmp = Path(tempfile.mkdtemp(prefix="forumbot-words-crash-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    run = run_with_kills(words_plan(), tmp, KillOptions(
        factor=3000.0, kill_every=timedelta(hours=3), window_kills=3, seed=23, wall_limit=420, agent=dict(AGENT),
        pm_kills=(ASK_DAY3,), death_points=dict(POINTS), gate=words_wait_for_the_ask,
        forum={"discuz": discuz, "charset": charset}))
    run.game.sim.stop()
    return run


# X3.5 only: a run costs ≈ 150 s of CI; 7.2 GBK's PMs of 遗言 are tested in process
# (test_nights_last_words), and the kill-safety here does not depend on the generation.
@pytest.fixture(scope="module", params=[("x3", "utf-8")], ids=["x3"])
def run(request):
    return crash_run(*request.param)


@pytest.fixture(scope="module")
def rt(run):
    r = open_runtime(run.game.config)
    yield r
    r.close()


def test_words_crash__killed_at_every_named_moment(run):
    assert run.finished and not run.unexpected_exits and not run.thread_errors, (run.unexpected_exits,
                                                                                  run.thread_errors)
    kinds = Counter(k.kind for k in run.kills)
    assert kinds["pm"] == 2, run.kills  # after the questions to 包子 and 春卷 were stored
    assert {k.detail for k in run.kills if k.kind == "point"} == (
        {"read_not_stored:包子", "read_not_stored_again:包子", "read_not_stored:春卷", "stored_not_drafted:"}), run.kills
    assert kinds["timed"] >= 10, run.kills


def test_words_crash__each_holder_asked_exactly_once(run):
    bot = run.game.sim.data.user(BOT).uid
    for who in PLAYERS14:
        questions = [m for m in run.game.sim.pms_between(BOT, who) if m.fromuid == bot and ASK in m.text]
        assert len(questions) == (1 if who in HOLDERS else 0), who


def test_words_crash__the_words_taken_once_and_never_changed(rt):
    kept = {w.player: (w.night, w.text, w.late) for w in rt.store.last_words()}
    assert kept == {"汤圆": (1, WORDS, False), "包子": (2, "", False), "春卷": (2, "太晚了", True)}
    audit = [r for r in rt.store.db.query("SELECT * FROM audit WHERE action = 'night.last_words'")]
    assert len(audit) == len(HOLDERS)


def test_words_crash__the_announcement_carries_them_exactly_once(run):
    posts = [unescape(text) for _, _, text in run.game.world.bot_posts()]  # 7.2 GBK: 😀 goes as &#128512;
    carrying = [t for t in posts if "我是好人" in t]
    assert len(carrying) == 1 and carrying[0].count(WORDS) == 1, carrying
    assert "遗言：\n汤圆：\n" + WORDS in carrying[0]
    assert not [t for t in posts if "我改主意了" in t or "太晚了" in t or "[b]我是好人" in t]


def test_words_crash__every_message_answered_once_and_no_pm_or_post_twice(run):
    sim = run.game.sim
    for who in PLAYERS14:
        sent, answers = answers_to(sim, who)
        assert len(answers) == len(sent), (who, sent, answers)
    bot = sim.data.user(BOT).uid
    markers = Counter(mk for m in sim.data.pms.messages.values() if m.fromuid == bot for mk in MARKER.findall(m.text))
    assert markers and max(markers.values()) == 1
    texts = Counter(text for _, _, text in run.game.world.bot_posts())
    assert texts and max(texts.values()) == 1
