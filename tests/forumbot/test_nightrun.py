"""forumbot.game.nightrun without a forum: actions filed and ruled as they stood when sent,
the proposal once the night is ready (versioned by content), confirmation into the next
day's night entry, the director's hand entry standing, and — a property — the proposal
resolved from the stored actions after a restart is the one proposed before it."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.night import Skill
from forumbot.game import director, nightrun
from forumbot.game.gamelog import DirectorError
from forumbot.game.runtime import open_runtime
from forumbot.store.records import EventKind
from tests.engine.night_builders import SEER14, SIMPLE, WITCH14, WOLVES14, at
from tests.forumbot.identity_support import simple_game


def runtime(tmp: Path, *, day_one: bool = True):
    config = simple_game(tmp, extra=f'[agent]\ndatabase = "{tmp / "g.sqlite"}"\n')
    rt = open_runtime(config)
    if day_one and not rt.store.events():
        # day 1's result as the agent records it once the final count is approved
        rt.store.append_event(1, EventKind.SHERIFF, {"source": "result", "why": "vote", "player": SIMPLE[8]},
                              actor="bot", at=at(2, 21, 31), game_at=at(2, 21, 30))
    return rt


@pytest.fixture
def rt(tmp_path):
    r = runtime(tmp_path)
    yield r
    r.close()


def pm(rt, night, actor, skill, target, when, pmid):
    with rt.store.write():
        return nightrun.file_action(rt, night, actor, skill, [target] if target else [], at=when, now=when,
                                    source="pm", entered_by=nightrun.PLAYER_PM, pmid=pmid, text="…")


def test_nightrun__a_pm_is_ruled_as_it_stood_when_sent(rt):
    mode = nightrun.mode_of(rt)
    kill = pm(rt, 1, WOLVES14[0], Skill.KILL, "馄饨", at(2, 21, 40), 11)
    assert kill.answer(mode) == "已收到：杀人 馄饨"
    early = pm(rt, 1, SEER14, Skill.DIVINE, "饺子", at(2, 20, 0), 12)
    assert early.answer(mode).startswith("未计入：预言 饺子（夜晚开始前发出")
    villager = pm(rt, 1, SIMPLE[9], Skill.KILL, "饺子", at(2, 21, 41), 13)
    assert "没有这个技能" in villager.answer(mode)
    again = pm(rt, 1, WOLVES14[0], Skill.KILL, "馄饨", at(2, 21, 40), 11)
    assert again.record.id == kill.record.id  # one PM, one action


def test_nightrun__the_night_is_proposed_confirmed_and_becomes_the_morning_entry(rt):
    pm(rt, 1, WOLVES14[1], Skill.KILL, "春卷", at(2, 21, 40), 1)
    pm(rt, 1, SEER14, Skill.DIVINE, "饺子", at(2, 21, 45), 2)
    proposal, new, result = nightrun.propose(rt, 1, at(2, 22, 0))
    assert proposal is None and not result.ready  # the witch has until 08:00
    pm(rt, 1, WITCH14, Skill.PASS, None, at(2, 23, 0), 3)
    proposal, new, result = nightrun.propose(rt, 1, at(2, 23, 10))
    assert new and proposal.version == 1 and proposal.data["out"] == ["春卷"]
    assert nightrun.propose(rt, 1, at(2, 23, 20))[1] is False  # unchanged: no new version
    text = "\n".join(nightrun.proposal_lines(proposal.data, night=1, version=1))
    assert "春卷（村民）出局，原因：杀人" in text
    done = nightrun.confirm(rt, 1, at(3, 7, 0), actor="director", version=1)
    assert done.state == "confirmed" and rt.store.night_result(2).out == ("春卷",)
    with pytest.raises(DirectorError, match="已经确认"):
        nightrun.confirm(rt, 1, at(3, 7, 5), actor="director")


def test_nightrun__the_directors_own_entry_stands(rt):
    pm(rt, 1, WOLVES14[0], Skill.KILL, "春卷", at(2, 21, 40), 1)
    pm(rt, 1, WITCH14, Skill.PASS, None, at(2, 21, 50), 2)
    pm(rt, 1, SEER14, Skill.PASS, None, at(2, 21, 51), 3)
    assert nightrun.propose(rt, 1, at(2, 22, 0))[0] is None  # the other wolves may still order until 23:00
    assert nightrun.propose(rt, 1, at(2, 23, 5))[0].state == "proposed"
    director.record_night(rt, 2, ["油条"], at(2, 23, 6))
    proposal, new, _ = nightrun.propose(rt, 1, at(2, 23, 10))
    assert proposal.state == "corrected" and not new
    with pytest.raises(DirectorError, match="以导演录入的为准"):
        nightrun.confirm(rt, 1, at(2, 23, 20), actor="director")


def test_nightrun__the_night_waits_for_its_days_vote_result(tmp_path):
    rt = runtime(tmp_path, day_one=False)
    try:
        pm(rt, 1, WOLVES14[0], Skill.KILL, "春卷", at(2, 21, 40), 1)
        assert nightrun.waits_for_day(rt, 1, at(2, 23, 30))
        assert nightrun.propose(rt, 1, at(2, 23, 30))[2] is None  # not resolved on a game missing the vote
        assert not nightrun.waits_for_day(rt, 1, at(3, 4, 0))  # six hours on: the game as recorded goes on
    finally:
        rt.close()


def test_nightrun__the_director_enters_an_action(rt):
    filed = nightrun.director_action(rt, "行动 烧卖 毒药 饺子", at(2, 22, 0), actor="director")
    assert (filed.record.actor, filed.record.skill, filed.record.by_director) == (WITCH14, "poison", True)
    assert filed.ruling.counted
    with pytest.raises(DirectorError, match="不是玩家"):
        nightrun.director_action(rt, "行动 无名 毒药 饺子", at(2, 22, 0), actor="director")


ACTORS = [(WOLVES14[0], Skill.KILL), (WOLVES14[2], Skill.KILL), (SEER14, Skill.DIVINE), (WITCH14, Skill.SAVE),
          (WITCH14, Skill.POISON), (WITCH14, Skill.PASS)]


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(ACTORS), st.sampled_from(SIMPLE), st.integers(-30, 700)),
                min_size=1, max_size=8))
def test_nightrun__resolving_the_stored_actions_after_a_restart_gives_the_same_proposal(tmp_path_factory, acts):
    tmp = tmp_path_factory.mktemp("restart")
    now = at(3, 8, 30)
    rt = runtime(tmp)
    try:
        for k, ((actor, skill), target, minutes) in enumerate(acts):
            when = at(2, 21, 30) + timedelta(minutes=minutes)
            pm(rt, 1, actor, skill, None if skill is Skill.PASS else target, when, 100 + k)
        before, _, result = nightrun.propose(rt, 1, now)
        rulings = [nightrun.ruling_of(rt, r) for r in rt.store.night_actions()]
    finally:
        rt.close()
    rt = runtime(tmp)  # a restart: a new process opens the same files
    try:
        again = nightrun.chronicle(rt).resolve(1, now)
        assert again.to_json() == result.to_json()
        assert [nightrun.ruling_of(rt, r) for r in rt.store.night_actions()] == rulings
        assert rt.store.night_proposal(1) == before
        assert nightrun.proposal_data(again, nightrun.current_state(rt.config, rt.store)) == before.data
    finally:
        rt.close()


def test_nightrun__dual_an_order_by_pm_and_the_hunters_shot_after_a_vote_out(tmp_path):
    from tests.forumbot.identity_support import dual_game

    config = dual_game(tmp_path, extra=f'[agent]\ndatabase = "{tmp_path / "g.sqlite"}"\n')
    rt = open_runtime(config)
    try:
        # 戊 holds 长老 / 猎人 and puts 猎人 first before day 1 (由演员决定身份的顺序)
        rt.store.set_identity_order("戊", "hunter", at=at(1, 8, 0), entered_by=nightrun.PLAYER_PM, now=at(1, 8, 0))
        assert nightrun.sheet_of(rt).hand("戊")[0].value == "hunter"
        rt.store.append_event(1, EventKind.IDENTITY_LOST, {"source": "result", "why": "vote", "player": "戊"},
                              actor="bot", at=at(2, 21, 31), game_at=at(2, 21, 30))
        filed = pm(rt, 1, "戊", Skill.LAST_SHOT, "甲", at(2, 21, 40), 5)
        assert filed.ruling is not None and filed.ruling.counted, filed
        (shot,) = nightrun.day_shots(rt)
        assert (shot.day, shot.player, shot.target, shot.effect) == (1, "戊", "甲", "identity_lost")
        late = pm(rt, 1, "戊", Skill.LAST_SHOT, "乙", at(2, 21, 50), 6)
        assert not late.ruling.counted  # the first counting shot is final
        lines = nightrun.night_lines(rt, at(2, 21, 55))
        assert any("白天触发的技能已计入" in line and "甲" not in line for line in lines)
        assert any("戊 最后一枪 甲" in line for line in nightrun.night_lines(rt, at(2, 21, 55), secrets=True))
    finally:
        rt.close()


def test_nightrun__what_the_night_says_to_announce_goes_into_the_morning_announcement(tmp_path):
    from tests.engine.night_builders import ELDER14

    config = simple_game(tmp_path, extra=f'[agent]\ndatabase = "{tmp_path / "g.sqlite"}"\n', progress_thread=50)
    rt = open_runtime(config)
    try:
        rt.store.append_event(1, EventKind.SHERIFF, {"source": "result", "why": "vote", "player": SIMPLE[8]},
                              actor="bot", at=at(2, 21, 31), game_at=at(2, 21, 30))
        pm(rt, 1, WITCH14, Skill.POISON, ELDER14, at(2, 21, 40), 1)  # the elder poisoned: 女巫、预言家失去技能
        pm(rt, 1, SEER14, Skill.PASS, None, at(2, 21, 41), 2)
        proposal, _, _ = nightrun.propose(rt, 1, at(2, 23, 5))
        assert proposal.data["announcements"] == ["女巫、预言家失去技能"]
        nightrun.confirm(rt, 1, at(2, 23, 10), actor="director")
        # drafted once the wait for the elder's last words (遗言) is over: the morning, and
        # 30 minutes after the out was recorded (docs/decisions.md)
        assert director.announcement_draft(rt, 2, at(2, 23, 10)) is None
        from forumbot.game.lastwords import words_until
        from forumbot.game.state import current_state

        until = words_until(rt, current_state(rt.config, rt.store), 2)
        assert until is not None and until > at(2, 23, 10)
        draft = director.announcement_draft(rt, 2, until)
        assert draft is not None and "女巫、预言家失去技能" in draft.body and ELDER14 in draft.body
        assert "长老" not in draft.body  # who held what is never said
    finally:
        rt.close()


def test_nightrun__the_directors_pm_commands(rt):
    """``行动 玩家 技能 目标`` and ``确认 夜N`` / the proposal's code, as the PM handler runs them."""
    from forumbot.notify.codes import Codes
    from forumbot.notify.handle import Handler
    from parsers.commands import parse

    codes = Codes(rt.store)

    def say(text, now, pmid):
        handler = Handler(rt, codes, now, pmid)
        with rt.store.write():
            handler.run(parse(text))
        return handler.answers

    (answer,) = say("行动 饺子 杀人 春卷", at(2, 21, 45), 1)
    assert answer == "饺子：已收到：杀人 春卷（第1晚，导演录入）"
    (answer,) = say("行动 路人 杀人 春卷", at(2, 21, 46), 2)
    assert "没有执行" in answer and "不是玩家" in answer
    say("行动 小笼包 放弃\n行动 烧卖 放弃", at(2, 21, 47), 3)
    (status,) = say("状态", at(2, 21, 50), 8)
    assert "第1晚：收集行动中（等待行动（12-02 23:00 截止））" in status and "杀人" not in status
    (answer,) = say("确认 夜1", at(2, 22, 0), 4)
    assert "没有执行" in answer and "还没有结算建议" in answer  # the other wolves may order until 23:00
    nightrun.propose(rt, 1, at(2, 23, 5))
    code = codes.event_code({"kind": "night_proposal", "night": 1, "version": 1, "command": "确认 夜1"},
                            at=at(2, 23, 5))
    (answer,) = say(f"确认 {code}", at(2, 23, 10), 5)
    assert answer.startswith("已确认第1晚（第1版）：春卷，第2日开始时生效")
    (answer,) = say("确认 第1晚", at(2, 23, 11), 6)
    assert "已经确认" in answer
    (answer,) = say("状态", at(2, 23, 12), 7)
    assert "第1晚：已确认（第1版" in answer


def test_nightrun__the_director_sees_the_packs_disagreement(rt):
    pm(rt, 1, WOLVES14[0], Skill.KILL, "春卷", at(2, 21, 40), 1)
    pm(rt, 1, WOLVES14[1], Skill.KILL, "油条", at(2, 21, 45), 2)
    (line,) = [x for x in nightrun.night_lines(rt, at(2, 22, 0)) if x.startswith("第1晚")]
    assert "狼人的指杀目标不一致" in line and "油条" not in line
    detail = "\n".join(nightrun.night_lines(rt, at(2, 22, 0), secrets=True))
    assert "油条" in detail  # the standing order, with --secrets
    pm(rt, 1, WOLVES14[0], Skill.KILL, "油条", at(2, 21, 50), 3)
    (line,) = [x for x in nightrun.night_lines(rt, at(2, 22, 0)) if x.startswith("第1晚")]
    assert "不一致" not in line
