"""``forumbot night --extend N --phase 女巫 --minutes 30`` (SPEC §10.2: the director extends
one phase of one night): previewed (``--json`` changes nothing), kept in the store
(append-only, across a restart), the action inside the added time counted, the proposal
waiting for the new end; ``forumbot resolve`` with the same ``[[night.extensions]]``
agrees with the agent; the refusals say why in Chinese."""

from __future__ import annotations

import json

from engine.night import Action
from forumbot.game import nightrun
from forumbot.game.runtime import open_runtime
from tests.engine.night_builders import SEER14, WITCH14, WOLVES14, at
from tests.forumbot.identity_support import actions_toml
from tests.forumbot.test_cmd_nights import at_clock, game, run

EXTENSION_TOML = '\n[[night.extensions]]\nnight = 1\nphase = "女巫"\nminutes = 30\n'


def extensions(config):
    rt = open_runtime(config)
    try:
        return [(e.night, e.phase, e.minutes, e.actor) for e in rt.store.night_extensions()]
    finally:
        rt.close()


def test_extend__preview_json_changes_nothing(tmp_path, monkeypatch):
    config = game(tmp_path, monkeypatch, at(2, 23, 0))
    r = run(config, "night", "--extend", "1", "--phase", "女巫", "--minutes", "30", "--json")
    assert r.exit_code == 0, r.output
    shown = json.loads(r.output)
    assert shown["shifts"] == [{"phase": "女巫", "old_start": "2026-12-02T21:30:00+08:00",
                                "old_end": "2026-12-03T08:00:00+08:00", "new_start": "2026-12-02T21:30:00+08:00",
                                "new_end": "2026-12-03T08:30:00+08:00"}]
    assert shown["minutes"] == 30 and "第1晚的女巫阶段延长 30 分钟" in shown["change"]
    assert extensions(config) == []
    # --until: a clock time alone is the first one after the night began (tomorrow's 08:30).
    r = run(config, "night", "--extend", "1", "--phase", "witch", "--until", "08:30", "--json")
    assert json.loads(r.output)["minutes"] == 30


def test_extend__kept_and_the_witch_counted_inside_it(tmp_path, monkeypatch):
    config = game(tmp_path, monkeypatch, at(2, 23, 0))
    for who, words in ((WOLVES14[0], ("杀人", "春卷")), (SEER14, ("放弃",))):
        assert run(config, "action", who, *words, "--at", "12-02 21:40").exit_code == 0
    r = run(config, "night", "--extend", "1", "--phase", "女巫", "--minutes", "30", "--why", "女巫说要晚点", "--yes")
    assert r.exit_code == 0 and "已记下：第1晚的女巫阶段延长 30 分钟" in r.output and "女巫：12-02 21:30–12-03 08:00 → " \
        "12-02 21:30–12-03 08:30" in r.output
    assert extensions(config) == [(1, "witch", 30, "director")]  # kept across the restart of each command
    at_clock(monkeypatch, at(3, 8, 10))
    r = run(config, "action", WITCH14, "毒药", "油条")
    assert r.exit_code == 0 and "已收到：毒药 油条" in r.output  # late without the extension
    r = run(config, "night", "--confirm", "1", "--yes")
    assert r.exit_code != 0 and "还没有结算建议" in r.output  # waits for 08:30
    at_clock(monkeypatch, at(3, 8, 31))
    rt = open_runtime(config)
    try:
        proposal, _, _ = nightrun.propose(rt, 1, rt.clock.now())
        assert proposal is not None and proposal.data["out"] == ["春卷", "油条"]
        stored = nightrun.stored_actions(rt)
    finally:
        rt.close()
    # Offline, the same night from the config alone: the same rulings and deaths.
    offline = tmp_path / "offline.toml"
    offline.write_text(config.read_text(encoding="utf-8") + EXTENSION_TOML + "\n"
                       + actions_toml([Action(a.night, a.actor, a.skill, a.targets, a.at) for a in stored]),
                       encoding="utf-8")
    report = json.loads(run(offline, "resolve", "--night", "1", "--json").output)
    assert report["deaths"] == proposal.data["deaths"]
    assert [(a["actor"], a["counted"], a["reason"]) for a in report["actions"]] == \
        [(a["actor"], a["counted"], a["reason"]) for a in proposal.data["actions"]]
    without = tmp_path / "without.toml"
    without.write_text(offline.read_text(encoding="utf-8").replace(EXTENSION_TOML, ""), encoding="utf-8")
    plain = json.loads(run(without, "resolve", "--night", "1", "--json").output)
    assert [a["reason"] for a in plain["actions"] if a["actor"] == WITCH14] == ["late"]


def test_extend__refusals_in_chinese(tmp_path, monkeypatch):
    config = game(tmp_path, monkeypatch, at(2, 23, 30))
    r = run(config, "night", "--extend", "1", "--phase", "狼人", "--minutes", "10", "--yes")
    assert r.exit_code != 0 and "第1晚的狼人阶段已于 2026-12-02 周三 23:00 结束：已结束的阶段不能再改" in r.output
    r = run(config, "night", "--extend", "1", "--phase", "吹笛", "--minutes", "10")
    assert r.exit_code != 0 and "没有“吹笛”这个夜晚阶段" in r.output
    r = run(config, "night", "--extend", "1", "--phase", "女巫", "--until", "07:00")
    assert r.exit_code != 0 and "只能延长" in r.output
    r = run(config, "night", "--extend", "1", "--minutes", "10")
    assert r.exit_code != 0 and "要写 --phase" in r.output
    r = run(config, "night", "--extend", "1", "--phase", "女巫")
    assert r.exit_code != 0 and "请给出一种延长法" in r.output
    r = run(config, "night", "--extend", "9", "--phase", "女巫", "--minutes", "10")
    assert r.exit_code != 0 and "没有第9日" in r.output
    r = run(config, "night", "--extend", "0", "--phase", "女巫", "--minutes", "10")
    assert r.exit_code != 0 and "14人简易规则从第1晚开始（没有第0晚）" in r.output
    assert "Traceback" not in r.output
    # Confirmed: the night's phases are what they were.
    for who, words in ((WOLVES14[0], ("杀人", "春卷")), (SEER14, ("放弃",)), (WITCH14, ("放弃",))):
        assert run(config, "action", who, *words, "--at", "12-02 21:40").exit_code == 0
    assert run(config, "night", "--confirm", "1", "--yes").exit_code == 0
    r = run(config, "night", "--extend", "1", "--phase", "女巫", "--minutes", "10", "--yes")
    assert r.exit_code != 0 and "第1晚的结算已于 12-02 23:30 确认：不能再延长它的阶段" in r.output
    assert extensions(config) == []


def test_extend__after_a_proposal_the_old_version_cannot_be_confirmed(tmp_path, monkeypatch):
    config = game(tmp_path, monkeypatch, at(2, 23, 5))
    for who, words in ((WOLVES14[0], ("杀人", "春卷")), (SEER14, ("放弃",)), (WITCH14, ("放弃",))):
        assert run(config, "action", who, *words, "--at", "12-02 21:40").exit_code == 0
    rt = open_runtime(config)
    try:
        proposal, _, _ = nightrun.propose(rt, 1, rt.clock.now())
        assert proposal is not None  # everyone acted, the wolves' phase over: proposed before 08:00
    finally:
        rt.close()
    assert run(config, "night", "--extend", "1", "--phase", "女巫", "--minutes", "30", "--yes").exit_code == 0
    r = run(config, "night", "--confirm", "1", "--yes")
    assert r.exit_code != 0 and "之后阶段延长了，还在等：等待女巫行动（至 12-03 08:30）" in r.output


def test_extend__the_desk_form_previews_then_applies(tmp_path, monkeypatch):
    import re

    from forumbot.desk.app import create_app
    from forumbot.simulator import SimClock

    config = game(tmp_path, monkeypatch, at(2, 21, 0))
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    app = create_app(config, clock=SimClock(start=at(2, 21, 0)), secret_key=b"k" * 32)
    app.testing = True
    client = app.test_client()
    page = client.get("/actions").get_data(as_text=True)
    assert "预览延长" in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    form = {"csrf_token": token, "how": "minutes", "night": "1", "phase": "守卫", "minutes": "30分钟", "until": "",
            "why": ""}
    bad = client.post("/nights/extend", data=form, follow_redirects=True).get_data(as_text=True)
    assert "没有“守卫”这个夜晚阶段" in bad
    form["phase"] = "女巫"
    shown = client.post("/nights/extend", data=form).get_data(as_text=True)
    assert "女巫：12-02 21:30–12-03 08:00 → 12-02 21:30–12-03 08:30" in shown and "确认延长" in shown
    assert extensions(config) == []
    key = re.search(r'name="key" value="([^"]+)"', shown).group(1)
    done = client.post("/nights/extend/apply", data={**form, "key": key}, follow_redirects=True)
    assert "已记下：第1晚的女巫阶段延长 30 分钟" in done.get_data(as_text=True)
    assert extensions(config) == [(1, "witch", 30, "director(desk)")]


def test_extend__dual_guard_moves_the_phases_after_it(tmp_path, monkeypatch):
    from tests.forumbot.identity_support import dual_game

    config = dual_game(tmp_path, extra=f'[agent]\ndatabase = "{tmp_path / "g.sqlite"}"\n')
    at_clock(monkeypatch, at(2, 21, 35))
    open_runtime(config).close()
    shown = json.loads(run(config, "night", "--extend", "1", "--phase", "守卫", "--minutes", "10", "--json").output)
    assert [(s["phase"], s["new_start"][11:16], s["new_end"][11:16]) for s in shown["shifts"]] == [
        ("守卫", "21:30", "21:50"), ("先知", "21:50", "22:00"), ("狼人", "22:00", "22:10"), ("女巫", "22:10", "22:20")]
