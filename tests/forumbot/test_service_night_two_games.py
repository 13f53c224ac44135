"""``forumbot serve`` with two 14人简易 games with identities on ONE bot account, a player in
both, over real HTTP on the simulator (issue 20): a player's night PM is filed in exactly
one game — the one it names (``乙局 预言 …``), else the one game where they can act that
night — or, when that is unclear, they are asked once which game, and nothing is filed;
a player of one game only is read as before; and after a restart of the service nothing
is answered again (every PM sent exactly once, by its marker)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import timedelta

from forumbot.demo.harness import HarnessSimulator
from forumbot.demo.harness.many import build_games, write_games
from forumbot.demo.scenario import BOT, GAME_START, long_players
from forumbot.game.clock import AcceleratedClock
from forumbot.game.nightrun import RESULT_WAIT
from tests.forumbot.nights_support import MARKER, body
from tests.forumbot.notify_support import head
from tests.forumbot.service_support import AGENT, FACTOR, Served, wait_for

GAMES = ["甲局", "乙局"]
POOL = long_players(26)
ROSTERS = [POOL[0:14], POOL[12:26]]
BOTH_WITCH = POOL[12]  # 甲局's 女巫, 乙局's 村民: can act in 甲局 only
BOTH_WOLF = POOL[13]  # 甲局's 狼人, 乙局's 预言家: can act in both
ONLY_A = POOL[0]  # a 狼人 of 甲局 alone
A_TARGET, B_TARGET = POOL[5], POOL[20]


def _sheet(roster: tuple[str, ...], wolves, seer, witch, elder) -> dict[str, str]:
    return {p: "狼人" if p in wolves else "预言家" if p == seer else "女巫" if p == witch
            else "长老" if p == elder else "村民" for p in roster}


SHEETS = [_sheet(ROSTERS[0], (POOL[0], POOL[1], POOL[2], BOTH_WOLF), POOL[3], BOTH_WITCH, POOL[4]),
          _sheet(ROSTERS[1], POOL[14:18], BOTH_WOLF, POOL[18], POOL[19])]
DEADLINE = timedelta(hours=2)  # day 1 09:00–11:00; night 1 from 11:00 to 08:00 the next morning
# Past the wait for day 1's vote result (no director approves it here): night 1 goes on.
NOW = DEADLINE + RESULT_WAIT + timedelta(minutes=10)
NIGHT = '\n[night.lengths]\n"狼人" = "08:00"\n"预言家" = "08:00"\n'  # every phase open all night


def _served(tmp) -> Served:
    clock = AcceleratedClock(origin=GAME_START + NOW, factor=FACTOR)
    sim = HarnessSimulator(clock=clock, bot_name=BOT)
    many = build_games(sim, 2, start=GAME_START, deadline=GAME_START + DEADLINE, names=GAMES, days=2,
                       rosters=ROSTERS)
    for game, sheet in zip(many.games, SHEETS):
        game.plan = replace(game.plan, identities=sheet)
    base = sim.start()
    folder = tmp / "games"
    write_games(many, folder, base, notify={"enabled": True}, **AGENT)
    for game in many.games:
        assert game.config is not None
        game.config.write_text(game.config.read_text(encoding="utf-8") + NIGHT, encoding="utf-8")
    return Served(many, sim, clock, folder)


def _answers(s: Served, who: str) -> list[tuple[str | None, str]]:
    """The bot's PMs to ``who``: (the game(s) at its head, the text)."""
    bot = s.sim.data.user(BOT).uid
    return [(head(m.text), body(m.text)) for m in s.sim.pms_between(BOT, who) if m.fromuid == bot]


def _messages(s: Served, game: str, who: str) -> list[dict]:
    rt = s.open(game)
    try:
        return rt.store.night_messages(who)
    finally:
        rt.close()


def _actions(s: Served, game: str) -> list[tuple[str, str, str]]:
    rt = s.open(game)
    try:
        return [(r["actor"], r["skill"], r["text"]) for r in rt.store.db.query("SELECT * FROM night_actions")]
    finally:
        rt.close()


def _results(s: Served, game: str, who: str) -> list[str]:
    return [m["effect"].get("result") or m["effect"]["lines"][0]["result"] for m in _messages(s, game, who)]


def _restart(s: Served) -> None:
    assert s.service is not None and s.thread is not None
    s.service.stop.set()
    s.thread.join(30)
    assert not s.thread.is_alive()
    s.service = s.thread = None
    s.start(desk=False)


def test_service_night_two_games__each_pm_is_filed_in_one_game_and_answered_once(tmp_path):
    s = _served(tmp_path).start(desk=False)
    try:
        # Named: 乙局's seer (甲局's wolf) — filed in 乙局 alone, answered once by 乙局.
        s.sim.send_pm(BOTH_WOLF, BOT, f"乙局 预言 {B_TARGET}")
        wait_for(lambda: any(t.startswith("已收到：预言") for _, t in _answers(s, BOTH_WOLF)), timeout=60)
        assert [(g, t.split("\n")[0]) for g, t in _answers(s, BOTH_WOLF) if "预言" in t] == [
            ("乙局", f"已收到：预言 {B_TARGET}")]
        assert [a[:2] for a in _actions(s, "乙局")] == [(BOTH_WOLF, "divine")]
        assert _actions(s, "甲局") == []
        assert _results(s, "甲局", BOTH_WOLF) == ["elsewhere"]
        assert [m["text"] for m in _messages(s, "甲局", BOTH_WOLF)] == [""]  # 乙局's night is not kept in 甲局

        # Unnamed, and only 甲局 has a night in which they can act (乙局's 村民): 甲局.
        s.sim.send_pm(BOTH_WITCH, BOT, f"毒药 {A_TARGET}")
        wait_for(lambda: any(t.startswith("已收到：毒药") for _, t in _answers(s, BOTH_WITCH)), timeout=60)
        assert [(g, t) for g, t in _answers(s, BOTH_WITCH) if "毒药" in t] == [("甲局", f"已收到：毒药 {A_TARGET}")]
        assert [a[:2] for a in _actions(s, "甲局")] == [(BOTH_WITCH, "poison")]
        assert _results(s, "乙局", BOTH_WITCH) == ["elsewhere"]

        # Unnamed, and they can act in both: asked once which game, nothing filed anywhere.
        before = len(_answers(s, BOTH_WOLF))
        s.sim.send_pm(BOTH_WOLF, BOT, f"杀人 {A_TARGET}")
        wait_for(lambda: len(_answers(s, BOTH_WOLF)) > before, timeout=60)
        [(games, question)] = _answers(s, BOTH_WOLF)[before:]
        assert set((games or "").split("、")) == set(GAMES)
        first, second = sorted(GAMES)  # the games by name
        assert question.startswith(f"这条消息没有计入：你在 2 局游戏里（{first}、{second}）")
        assert f"例如：{first} 杀人 {A_TARGET}" in question
        assert not any(w in question for w in ("狼人", "预言家", "女巫", "村民", "长老", "夜"))  # nothing of either game
        assert [a[0] for a in _actions(s, "甲局")] == [BOTH_WITCH] and len(_actions(s, "乙局")) == 1

        # Sent again with the game's name: filed in 甲局, once.
        s.sim.send_pm(BOTH_WOLF, BOT, f"甲局 杀人 {A_TARGET}")
        wait_for(lambda: any(t.startswith("已收到：杀人") for _, t in _answers(s, BOTH_WOLF)), timeout=60)
        assert [(g, t) for g, t in _answers(s, BOTH_WOLF) if t.startswith("已收到：杀人")] == [
            ("甲局", f"已收到：杀人 {A_TARGET}")]
        assert [a[:2] for a in _actions(s, "甲局")] == [(BOTH_WITCH, "poison"), (BOTH_WOLF, "kill")]
        assert len(_actions(s, "乙局")) == 1

        # A player of one game only: as before.
        s.sim.send_pm(ONLY_A, BOT, f"杀人 {A_TARGET}")
        wait_for(lambda: _answers(s, ONLY_A), timeout=60)
        assert [(g, t) for g, t in _answers(s, ONLY_A)] == [("甲局", f"已收到：杀人 {A_TARGET}")]
        assert _messages(s, "乙局", ONLY_A) == []

        # Restarted: a few passes later, nothing answered again.
        wait_for(lambda: all(not _pending(s, g) for g in GAMES), timeout=60)
        said = {who: _answers(s, who) for who in (BOTH_WOLF, BOTH_WITCH, ONLY_A)}
        _restart(s)
        passes = s.service.passes  # type: ignore[union-attr]
        wait_for(lambda: s.service.passes > passes + 12, timeout=60)  # type: ignore[union-attr]
        assert {who: _answers(s, who) for who in said} == said
        bot = s.sim.data.user(BOT).uid
        markers = Counter(k for m in s.sim.data.pms.messages.values() if m.fromuid == bot
                          for k in MARKER.findall(m.text))
        assert markers and max(markers.values()) == 1
        assert s.errors == []
    finally:
        s.stop()


def _pending(s: Served, game: str) -> list:
    rt = s.open(game)
    try:
        return list(rt.store.db.query("SELECT * FROM notify_pms WHERE state IN ('queued', 'sending')"))
    finally:
        rt.close()


