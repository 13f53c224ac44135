"""``forumbot resolve --config GAME.toml --night N --json`` (SPEC §10.6): the night offline
from the config's sheet, ``[[events]]`` and ``[[actions]]`` — the same object the engine's
chronicle gives for the same game (the agent resolves through the same
``forumbot.game.nights``), with the earlier nights replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.events import OutWhy
from forumbot.cli import main
from forumbot.config.gamefile import parse_config
from forumbot.game.nights import NightsError, game_chronicle, resolve_night, win_after_day
from tests.engine.night_builders import (
    DUAL_TABLE, ELDER14, SEER14, SIMPLE_TABLE, WITCH14, act, day_start, out,
)
from tests.engine.night_builders import chronicle as engine_chronicle
from tests.forumbot.identity_support import DUAL, actions_toml, events_toml, game_toml, inline, simple_game


def run(config: Path, *args: str):
    return CliRunner().invoke(main, ["resolve", "--config", str(config), *args])


# 14人简易: night 1 the pack kills the elder (marked, stays; the witch's save is spent too,
# "(a) comes first"), the seer looks at a wolf; night 2 the pack kills the elder again (out),
# the witch poisons a villager — 救药 used up, so her second 救药 does not count.
SIMPLE_ACTIONS = [
    act(1, "饺子", "杀人", ELDER14, 10),
    act(1, SEER14, "预言", "包子", 12),
    act(1, WITCH14, "救药", ELDER14, 100),
    act(2, "包子", "杀人", ELDER14, 5),
    act(2, SEER14, "预言", "粽子", 6),
    act(2, WITCH14, "救药", ELDER14, 120),
    act(2, WITCH14, "毒药", "春卷", 130),
]
SIMPLE_EVENTS = [out(ELDER14, day_start(3), OutWhy.NIGHT, "杀人"), out("春卷", day_start(3), OutWhy.NIGHT, "毒药")]


def config_for(tmp_path: Path, actions, events=(), ruleset="simple14", table=SIMPLE_TABLE, players=None, days=3) -> Path:
    path = tmp_path / "game.toml"
    kw = {} if players is None else {"players": players}
    path.write_text(game_toml(ruleset, identities=inline(table), extra=events_toml(events) + "\n" + actions_toml(actions),
                              days=days, **kw), encoding="utf-8")
    return path


@pytest.mark.parametrize("night", [1, 2])
def test_resolve_json__the_engines_object(tmp_path: Path, night: int):
    config = config_for(tmp_path, SIMPLE_ACTIONS, SIMPLE_EVENTS)
    result = run(config, "--night", str(night), "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    expected = engine_chronicle("simple14", SIMPLE_ACTIONS, SIMPLE_EVENTS, count=3).resolve(night).to_json()
    assert printed == expected
    # §10.6's keys, whatever else is added.
    assert {"night", "ruleset", "actions", "deaths", "marks", "skills_lost", "feedback", "win"} <= set(printed)


def test_resolve_json__what_the_seeds_say(tmp_path: Path):
    config = config_for(tmp_path, SIMPLE_ACTIONS, SIMPLE_EVENTS)
    one = json.loads(run(config, "--night", "1", "--json").output)
    assert one["deaths"] == [] and one["marks"] == [ELDER14]
    assert {"to": SEER14, "skill": "预言", "about": "包子", "result": "非村民阵营"} in one["feedback"]
    two = json.loads(run(config, "--night", "2", "--json").output)
    assert [(d["player"], d["cause"], d["order"]) for d in two["deaths"]] == [(ELDER14, "杀人", 1), ("春卷", "毒药", 2)]
    save = [a for a in two["actions"] if a["skill"] == "救药"]
    assert save and not save[0]["counted"] and save[0]["reason"] in ("no_skill", "superseded")
    assert two["warnings"] == []


def test_resolve__events_stand_and_the_difference_is_a_warning(tmp_path: Path):
    # The director recorded night 1's death differently: the events stand, listed.
    events = [out("粽子", day_start(2), OutWhy.NIGHT)]
    config = config_for(tmp_path, SIMPLE_ACTIONS[:3], events)
    printed = json.loads(run(config, "--night", "2", "--json").output)
    assert printed["warnings"] and "以事件为准" in printed["warnings"][0]


def test_resolve_dual__the_engines_object(tmp_path: Path):
    actions = [act(1, "丁", "守护", "丙", 2), act(1, "乙", "预言", "甲", 12), act(1, "甲", "杀人", "丙", 25),
               act(1, "丙", "毒药", "庚", 35)]
    config = config_for(tmp_path, actions, ruleset="dual", table=DUAL_TABLE, players=DUAL)
    printed = json.loads(run(config, "--night", "1", "--json").output)
    assert printed == engine_chronicle("dual", actions, count=3).resolve(1).to_json()
    assert printed["ruleset"] == "dual"


def test_resolve__text_is_chinese(tmp_path: Path):
    result = run(config_for(tmp_path, SIMPLE_ACTIONS, SIMPLE_EVENTS), "--night", "2")
    assert result.exit_code == 0
    assert "第2晚的行动" in result.output and "馄饨 出局（长老，杀人）" in result.output and "胜负" in result.output


def test_resolve__no_identities_or_no_such_night(tmp_path: Path):
    plain = tmp_path / "plain.toml"
    plain.write_text(game_toml(), encoding="utf-8")
    result = run(plain, "--night", "1")
    assert result.exit_code == 1 and "没有身份表" in result.output and "Traceback" not in result.output
    result = run(config_for(tmp_path, []), "--night", "7")
    assert result.exit_code == 1 and "没有第7晚" in result.output


def test_resolve__bad_sheet_listed_on_the_directors_screen(tmp_path: Path):
    result = run(config_for(tmp_path, [], table={**SIMPLE_TABLE, ELDER14: "村民"}), "--night", "1")
    assert result.exit_code == 1 and "处问题" in result.output and "长老应为 1 个" in result.output


def test_game_chronicle__none_without_identities():
    assert game_chronicle(parse_config(game_toml())) is None
    with pytest.raises(NightsError):
        resolve_night(parse_config(game_toml()), 1)


def test_win_after_day__the_vote_out_at_the_deadline():
    # Three wolves out by night outs; the fourth voted out on day 3: 狼人 every wolf out.
    events = [out("饺子", day_start(2)), out("包子", day_start(2), OutWhy.VOTE), out("汤圆", day_start(3))]
    config = parse_config(game_toml(identities=inline(SIMPLE_TABLE), extra=events_toml(events)))
    assert win_after_day(config, config.state, 3, None).win is None
    won = win_after_day(config, config.state, 3, "月饼")
    assert won.win is not None and won.win.faction.value == "村民阵营"
    assert win_after_day(parse_config(game_toml()), parse_config(game_toml()).state, 1, None) is None


def test_resolve__agrees_with_the_agents_chronicle(tmp_path: Path):
    """The agent resolves from its stored events (the director's 「night」 entry) and every
    action; ``forumbot resolve`` from the config's [[events]]: the same object."""
    from forumbot.game import gamelog
    from forumbot.game.nights import game_actions, night_json
    from forumbot.game.runtime import open_runtime
    from forumbot.game.state import current_state
    from forumbot.simulator import SimClock

    stored = tmp_path / "agent"
    stored.mkdir()
    config = config_for(stored, SIMPLE_ACTIONS)
    with open(config, "a", encoding="utf-8") as fh:
        fh.write(f'\n[agent]\ndatabase = "{stored / "g.sqlite"}"\n')
    clock = SimClock(start=day_start(3))
    rt = open_runtime(config, clock=clock)
    try:
        # Night 1: nobody died (the elder's mark). Night 2: the elder, then the poisoned 春卷.
        gamelog.enter(rt, gamelog.EventSpec("night", day=2, players=()), clock.now())
        gamelog.enter(rt, gamelog.EventSpec("night", day=3, players=(ELDER14, "春卷")), clock.now())
        state = current_state(rt.config, rt.store)
        agent = [night_json(rt.config, n, state, game_actions(rt)) for n in (1, 2)]
    finally:
        rt.close()
    offline_config = config_for(tmp_path, SIMPLE_ACTIONS, SIMPLE_EVENTS)
    offline = [json.loads(run(offline_config, "--night", str(n), "--json").output) for n in (1, 2)]
    assert agent == offline
    assert [d["player"] for d in agent[1]["deaths"]] == [ELDER14, "春卷"]


def test_stored_cause_reaches_the_engine(tmp_path: Path):
    """An out stored with its cause (a confirmed night's 毒药) is an engine event with it:
    the elder out by 毒药 costs the witch and the seer their skills, by 杀人 not."""
    from forumbot.game.nights import runtime_chronicle
    from forumbot.game.runtime import open_runtime
    from forumbot.game.state import current_state, engine_events
    from forumbot.simulator import SimClock

    config = config_for(tmp_path, [])
    with open(config, "a", encoding="utf-8") as fh:
        fh.write(f'\n[agent]\ndatabase = "{tmp_path / "g.sqlite"}"\n')
    clock = SimClock(start=day_start(2))
    rt = open_runtime(config, clock=clock)
    try:
        rt.store.append_event(2, "out", {"player": ELDER14, "why": "night", "cause": "毒药"}, actor="导演",
                              at=clock.now(), game_at=day_start(2))
        (event,) = engine_events(rt.config, rt.store.events())
        assert event.cause == "毒药"
        position = runtime_chronicle(rt, current_state(rt.config, rt.store)).position()
        assert not position.has_skills(WITCH14) and not position.has_skills(SEER14)
    finally:
        rt.close()
