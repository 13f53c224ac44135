"""The evidence file recounts exactly as the live run counted (issue 12, item 12): games
with events — a night out entered late, a retracted event, a corrected one, 若愚 and a
successor, 双身份's lost identities and scapegoat, aliases, substitutes, a voided post, an
accelerated day, edits seen and edits first seen already made — as a table and as a
property. The live count is ``forumbot.game.state.count_day`` over the store, as the agent
runs it; the recount reads nothing but the file."""

from __future__ import annotations

import json
import random
import tempfile
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.game import gamelog
from forumbot.evidence import dumps, export_day, parse, recount, verify
from forumbot.game.gamelog import EventSpec
from tests.forumbot.game_support import PLAYERS, StoreGame, at, config_text, store_game, vote_tid


def edit(g: StoreGame, pid: int, text: str, when: datetime) -> None:
    """The player edits the post; the bot reads the edit at ``when``."""
    post = g.rt.store.latest(pid)
    g.rt.store.record_posts([replace(post, text=text, html=text, edited_by=post.author, edited_at=when)], when)


def edited_before_seen(g: StoreGame, day: int, hhmm: str, who: str, target: str) -> int:
    """A vote the player edited before the bot first read it (the page shows the stamp)."""
    pid = g.vote(day, hhmm, who, target)
    post = g.rt.store.latest(pid)
    g.rt.store.db.execute("DELETE FROM posts WHERE pid = ?", (pid,))
    g.rt.store.record_posts([replace(post, edited_by=who, edited_at=post.posted_at + timedelta(minutes=3))],
                            post.posted_at + timedelta(minutes=10))
    return pid


def live_and_file(g: StoreGame, day: int, when: datetime) -> tuple[dict, dict]:
    """The live count saved as the agent saves it, and the day's evidence as written."""
    live = g.tally(day)
    g.rt.store.save_tally(day, live, at=when)
    data = json.loads(dumps(export_day(g.rt.config, g.rt.store, day, now=when)))
    return g.rt.store.tally(day).data, data


def recount_of(data: dict) -> dict:
    return recount(parse(data))


# ------------------------------------------------------------------ the table


def night_late_and_a_retraction(tmp: Path) -> tuple[StoreGame, int, list]:
    """14人简易: 汤圆's night death typed at noon after he voted; 月饼 put out by mistake and
    the out taken back; 烧卖 edits his vote after the bot read it; 小笼包 edited before."""
    g = store_game(tmp, "simple14", sheriff="饺子")
    g.vote(2, "10:00", "饺子", "包子")
    g.vote(2, "10:05", "包子", "汤圆")
    g.vote(2, "10:30", "汤圆", "包子")
    g.vote(2, "11:00", "月饼", "包子")
    shaomai = g.vote(2, "11:40", "烧卖", "包子")
    edit(g, shaomai, "投票对象：月饼\n投票理由：改主意了", at(2, "12:30"))
    edited_before_seen(g, 2, "11:50", "小笼包", "月饼")
    g.enter(EventSpec("night", day=2, players=("汤圆",)), at(2, "12:00"))
    wrong = g.enter(EventSpec("out", player="月饼", why="card", at=at(2, "10:50")), at(2, "13:00"))
    gamelog.retract(g.rt, wrong.event.id, "录错了人", at(2, "13:05"))
    return g, 2, ["retract", "night"]


def ruoyu_red_card_and_successor(tmp: Path) -> tuple[StoreGame, int, list]:
    """S10: the sheriff red-carded at 14:00, 包子 succeeds at 14:05 (weighs ×2 for the day);
    烧卖 voted out and reveals (若愚) at the deadline."""
    g = store_game(tmp, "s10", sheriff="饺子")
    g.vote(2, "10:00", "饺子", "烧卖")
    g.vote(2, "10:10", "包子", "烧卖")
    g.vote(2, "10:20", "汤圆", "月饼")
    g.vote(2, "10:30", "月饼", "汤圆")
    g.vote(2, "10:40", "小笼包", "烧卖")
    g.vote(2, "10:50", "烧卖", "月饼")
    g.enter(EventSpec("out", player="饺子", why="card", at=at(2, "14:00")), at(2, "14:01"))
    g.enter(EventSpec("sheriff", player="包子", at=at(2, "14:05")), at(2, "14:06"))
    g.enter(EventSpec("out", player="烧卖", why="vote", day=2), at(2, "21:40"))
    g.enter(EventSpec("idiot", player="烧卖"), at(2, "21:41"))
    return g, 2, ["out", "sheriff"]


def dual_scapegoat_and_voters(tmp: Path) -> tuple[StoreGame, int, list]:
    """双身份: 汤圆 loses an identity in the night and votes on; a tie; the scapegoat; only
    some may vote (冤死)."""
    g = store_game(tmp, "dual", sheriff="饺子", scapegoat="烧卖")
    g.enter(EventSpec("night", day=2, players=("汤圆",)), at(2, "08:00"))
    g.enter(EventSpec("voters", day=2, players=("饺子", "包子", "汤圆", "月饼")), at(2, "08:30"))
    g.vote(2, "10:00", "汤圆", "包子")
    g.vote(2, "10:10", "包子", "汤圆")
    g.vote(2, "10:20", "月饼", "包子")
    g.vote(2, "10:30", "饺子", "汤圆")
    g.vote(2, "10:40", "小笼包", "包子")  # not named: void
    return g, 2, ["voters"]


def corrections_and_acceleration(tmp: Path) -> tuple[StoreGame, int, list]:
    """An alias, a substitute account, a post ruled void, a corrected night and an
    accelerated day that voids the changes (14人简易)."""
    g = store_game(tmp, "simple14", sheriff="饺子")
    g.vote(2, "10:00", "饺子", "包", key="jz")
    g.vote(2, "10:10", "包子小号", "汤圆")
    spam = g.vote(2, "10:20", "月饼", "包子")
    g.change(2, "11:00", "饺子", "汤圆", quote="jz")
    g.vote(2, "11:10", "小笼包", "月饼")
    g.enter(EventSpec("alias", player="包子", name="包"), at(2, "12:00"))
    g.enter(EventSpec("substitute", player="包子", name="包子小号"), at(2, "12:01"))
    g.enter(EventSpec("void", pid=spam, note="串号"), at(2, "12:02"))
    night = g.enter(EventSpec("night", day=2, players=("汤圆",)), at(2, "12:03"))
    gamelog.correct(g.rt, night.event.id, EventSpec("night", day=2, players=("小笼包",)), "报错了人", at(2, "12:04"))
    g.enter(EventSpec("accelerated", day=2), at(2, "15:00"))
    return g, 2, ["alias", "void", "night"]


SCENARIOS = [night_late_and_a_retraction, ruoyu_red_card_and_successor, dual_scapegoat_and_voters,
             corrections_and_acceleration]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_evidence__recount_equals_the_live_count(tmp_path, scenario):
    g, day, kinds = scenario(tmp_path)
    try:
        live, data = live_and_file(g, day, at(day, "21:45"))
        check = verify(parse(data))
        assert check.equal and check.checksum_ok, [d.line() for d in check.differences]
        assert check.recount == live
        assert data["export_check"] == {"recount_equals_live": True, "differences": []}
        # not vacuous: the events the scenario is about change the count
        for kind in kinds:
            stripped = {**data, "events": [e for e in data["events"] if e["kind"] != kind]}
            assert recount_of(stripped) != live, kind
    finally:
        g.close()


def test_evidence__first_seen_texts_count_and_both_edits_are_in_the_file(tmp_path):
    g, day, _ = night_late_and_a_retraction(tmp_path)
    try:
        live, data = live_and_file(g, day, at(day, "21:45"))
        posts = {p["author"]: p for p in data["posts"] if p["thread"] == "vote"}
        assert [v["text"].split("\n")[0] for v in posts["烧卖"]["seen"]] == ["投票对象：包子", "投票对象：月饼"]
        assert posts["小笼包"]["edited_before_first_seen"] and posts["小笼包"]["versions_seen"] == 1
        votes = {v["voter"]: v for v in live["votes"]}
        assert votes["烧卖"]["target"] == "包子"
        assert votes["汤圆"]["reason"] == "voter_out"  # the night typed at noon
        assert votes["月饼"]["valid"]  # the mistaken out taken back
        # the latest version in place of the first would count 烧卖 for 月饼
        swapped = json.loads(json.dumps(data))
        for p in swapped["posts"]:
            if p["author"] == "烧卖":
                p["seen"] = [p["seen"][-1]]
        assert {v["voter"]: v["target"] for v in recount_of(swapped)["votes"]}["烧卖"] == "月饼"
        events = {e["kind"]: e for e in data["events"]}
        assert events["out"]["standing"] is False and events["out"]["taken_back_by"] == [events["retract"]["id"]]
        assert events["night"]["game_at"] == at(2, "09:00").isoformat()
        assert events["night"]["entered_at"] == at(2, "12:00").isoformat()
    finally:
        g.close()


# ------------------------------------------------------------------ the property

MORTAL = ("汤圆", "月饼", "小笼包", "烧卖")


@st.composite
def games(draw):
    ruleset = draw(st.sampled_from(["s09", "s10", "simple14", "dual"]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    return ruleset, rng.random()


def _play(g: StoreGame, ruleset: str, rng: random.Random) -> None:
    """A random day 2: votes, changes, edits seen and unseen, events typed late, some
    taken back or corrected."""
    posts: dict[str, int] = {}
    for minute in sorted(rng.sample(range(30, 700), 10)):
        who = rng.choice(PLAYERS)
        when = at(2, "09:00") + timedelta(minutes=minute)
        hhmm = f"{when:%H:%M}"
        roll = rng.random()
        if who in posts and roll < 0.3:
            g.change(2, hhmm, who, rng.choice(PLAYERS), quote=who)
        elif roll < 0.4:
            edited_before_seen(g, 2, hhmm, who, rng.choice(PLAYERS))
        else:
            posts[who] = g.vote(2, hhmm, who, rng.choice(PLAYERS + ("弃权",)), key=who)
            if rng.random() < 0.3:
                edit(g, posts[who], f"投票对象：{rng.choice(PLAYERS)}\n投票理由：改了", when + timedelta(minutes=20))
    entered = []
    for player in rng.sample(MORTAL, rng.randrange(0, 3)):
        kind = rng.choice(("night", "day"))
        typed = at(2, "09:00") + timedelta(minutes=rng.randrange(30, 740))
        if kind == "night":
            spec = EventSpec("night", day=2, players=(player,))
        else:
            spec = EventSpec("identity_lost" if ruleset == "dual" else "out", player=player, why="other",
                             at=at(2, "09:00") + timedelta(minutes=rng.randrange(0, 740)))
            typed = max(typed, spec.at)  # type: ignore[type-var]
        try:
            entered.append(g.enter(spec, typed).event.id)
        except Exception:  # noqa: BLE001 - refused (already out): the director is told, nothing stored
            continue
    if rng.random() < 0.3:
        g.enter(EventSpec("accelerated", day=2), at(2, "20:00"))
    if entered and rng.random() < 0.5:
        gamelog.retract(g.rt, rng.choice(entered), "录错了", at(2, "21:00"))
    if rng.random() < 0.3:
        g.enter(EventSpec("sheriff", player="包子", at=at(2, "12:00")), at(2, "21:10"))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_evidence__property_recount_equals_the_live_count(game):
    ruleset, seed = game
    with tempfile.TemporaryDirectory() as tmp:
        g = store_game(Path(tmp), ruleset, sheriff="饺子", scapegoat="烧卖" if ruleset == "dual" else None)
        try:
            _play(g, ruleset, random.Random(seed))
            live, data = live_and_file(g, 2, at(2, "21:45"))
            check = verify(parse(data))
            assert check.recount == live, [d.line() for d in check.differences]
            assert check.equal
        finally:
            g.close()


def test_evidence__a_shared_vote_thread_keeps_other_days_posts(tmp_path):
    """One thread for two days: day 1's votes are in day 2's file too (the engine decides
    which belong to the day), and the recount matches."""
    from forumbot.game.runtime import open_runtime
    from forumbot.simulator import SimClock

    path = tmp_path / "game.toml"
    path.write_text(config_text("simple14", sheriff="饺子").replace(
        f"vote_thread = {vote_tid(2)}", f"vote_thread = {vote_tid(1)}"), encoding="utf-8")
    clock = SimClock(start=at(1, "08:00"))
    g = StoreGame(open_runtime(path, clock=clock), clock)
    try:
        g.vote(1, "10:00", "饺子", "包子")  # day 1's: not listed on day 2
        g.post(vote_tid(1), "汤圆", "投票对象：饺子\n投票理由：半夜", at(1, "23:00"))  # in neither day
        g.post(vote_tid(1), "包子", "投票对象：汤圆\n投票理由：第二天", at(2, "10:00"))
        live, data = live_and_file(g, 2, at(2, "21:45"))
        assert len([p for p in data["posts"] if p["thread"] == "vote"]) == 3
        assert [v["reason"] for v in live["votes"]] == ["before_start", None]
        assert verify(parse(data)).equal
    finally:
        g.close()
