"""第零晚 by PM over real HTTP on the simulator (SPEC §10.2: S10/S09 have night 0, from the
deal to day 1's start): in an S10 game with identities, 爱神 sends 金箭 by PM before day 1 —
answered once, the lovers told, night 0 proposed to the director and confirmed by PM; the
wolves kill one lover on night 1 and the other follows (殉情) in night 1's proposal. A PM
before day 1 in a 14人简易 game is still answered 没有可以行动的夜晚 (no night 0 there)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from forumbot.demo.nights import PLAYERS14, SEER, SHEET14
from forumbot.demo.scenario import DIRECTOR, DayPlan, GamePlan, _day_threads, at, night_pm, vote
from tests.forumbot.nights_support import bot_said, played_by_pm

# 46D: 狼人×3, 村民×5, 先知, 女巫, 守卫, 猎人, 爱神, 吹笛 (fourteen players).
WOLVES = ("包子", "月饼", "春卷")
CUPID = "麻花"
LOVERS = ("Alice", "烧卖")
SHEET = {"包子": "狼人", "月饼": "狼人", "春卷": "狼人", "小笼包": "先知", "Carol": "女巫", "油条": "守卫",
         "馄饨": "猎人", CUPID: "爱神", "粽子": "吹笛",
         **{p: "村民" for p in ("饺子", "汤圆", "Alice", "bob_2", "烧卖")}}


def zero_plan(ruleset: str = "s10", sheet: dict | None = None, game: dict | None = None,
              first: tuple[str, str] = (CUPID, f"金箭 {LOVERS[0]} {LOVERS[1]}")) -> GamePlan:
    a = [night_pm(0, "08:50", *first, next_day=True)]  # before day 1 (09:00)
    a += [vote(1, f"{10 + k // 3:02d}:{(k % 3) * 20 + 5:02d}", who, "饺子" if who != "饺子" else "包子", "选警长")
          for k, who in enumerate(PLAYERS14)]
    a += [night_pm(1, "21:40", w, f"杀人 {LOVERS[0]}") for w in WOLVES]
    days = (DayPlan(1, at(1, "09:00"), at(1, "21:30")), DayPlan(2, at(2, "09:00"), at(2, "21:30")))
    return GamePlan(PLAYERS14, days, _day_threads(2), sorted(a, key=lambda x: x.when), at(2, "10:00"),
                    ruleset=ruleset, identities=dict(sheet or SHEET), tell_by_pm=True, game=dict(game or {}))


@pytest.fixture(scope="module")
def s10():
    yield from played_by_pm(zero_plan(game={"version": "46D"}), "x3", "utf-8", "forumbot-night0-")


def test_night0__arrow_answered_once_and_lovers_told(s10):
    assert s10.errors == []
    answers = [t for t in bot_said(s10, CUPID) if "金箭" in t and ("已收到" in t or "未计入" in t)]
    assert answers == [f"已收到：金箭 {LOVERS[0]} {LOVERS[1]}"]
    for lover, other in (LOVERS, LOVERS[::-1]):
        told = [t for t in bot_said(s10, lover) if "情侣" in t and other in t]
        assert len(told) == 1 and told[0].startswith("第零晚 金箭")


def test_night0__proposed_and_confirmed_by_pm(s10):
    from forumbot.game import nightrun
    from forumbot.store.records import EventKind

    zero = s10.rt.store.night_proposal(0)
    assert zero is not None and zero.state == "confirmed"
    assert zero.proposed_at < at(1, "09:00")  # before day 1 starts
    night_entries = [e for e in s10.rt.store.live_events() if e.id in zero.events]
    assert [(e.kind, e.day) for e in night_entries] == [(EventKind.NIGHT, 1)]
    assert nightrun.chronicle(s10.rt).position(at(1, "09:00")).lovers == LOVERS  # seat order
    proposed = [t for t in bot_said(s10, DIRECTOR) if t.startswith("第零晚结算建议")]
    assert len(proposed) == 1 and f"{CUPID}（爱神）金箭 {LOVERS[0]}、{LOVERS[1]} — 计入" in proposed[0]
    assert s10.rt.store.night_proposal(1).state == "confirmed"


def test_night0__a_lover_killed_takes_the_other(s10):
    data = s10.rt.store.night_proposal(1).data
    assert data["out"][:1] == [LOVERS[0]] and LOVERS[1] in data["out"]
    assert any("殉情" in str(d.get("cause")) for d in data["deaths"] if d["player"] == LOVERS[1])


def test_night0__resolve_agrees_with_the_proposal(s10):
    """The offline resolve of the game's config with the PM'd actions as ``[[actions]]``
    rules night 0 as the agent proposed it."""
    from forumbot.cli import main
    from forumbot.game import nightrun
    from tests.forumbot.identity_support import actions_toml

    folder = s10.rt.store.path.parent
    offline = folder / "offline.toml"  # beside the sheet the config names
    zero_actions = [a for a in nightrun.stored_actions(s10.rt) if a.night == 0]
    assert len(zero_actions) == 1
    offline.write_text((folder / "game.toml").read_text(encoding="utf-8") + "\n" + actions_toml(zero_actions),
                       encoding="utf-8")
    result = CliRunner().invoke(main, ["resolve", "--config", str(offline), "--night", "0", "--json"])
    assert result.exit_code == 0, result.output
    resolved = json.loads(result.output)
    zero = s10.rt.store.night_proposal(0).data

    def ruled(data):
        return [(a["actor"], a["skill"], a["target"], a["counted"], a["reason"]) for a in data["actions"]]

    assert ruled(resolved) == ruled(zero) == [(CUPID, "金箭", list(LOVERS), True, None)]
    assert resolved["deaths"] == zero["deaths"] == []
    assert resolved["feedback"] == zero["feedback"]


@pytest.fixture(scope="module")
def simple():
    yield from played_by_pm(zero_plan("simple14", SHEET14, first=(SEER, "预言 包子")), "x3", "utf-8",
                            "forumbot-night0-simple-")


def test_no_night0_in_simple14(simple):
    """14人简易 has no night 0: a seer's PM before day 1 is answered as before, and no night 0
    is proposed."""
    answers = [t for t in bot_said(simple, SEER) if "预言 包子" in t]
    assert answers == ["未计入：预言 包子（游戏还没有开始，没有可以行动的夜晚）"]
    assert simple.rt.store.night_proposal(0) is None
    assert simple.rt.store.night_actions(0) == []

