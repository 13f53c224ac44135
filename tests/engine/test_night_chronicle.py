"""The game across nights and days, rebuilt from stored actions and §9 events."""

from __future__ import annotations

from datetime import timedelta

from engine.events import EventKind, GameEvent, OutWhy
from engine.night import Faction, Skill, clean_last_words, last_words_holders, mode_for
from engine.state import GameState
from tests.engine.night_builders import (
    DUAL_HUNTER, act, chronicle, day_start, days, deadline, m, out,
)


def confirmed(c, night: int):
    """The events the director's confirmation of night ``night`` makes."""
    return c.resolve(night).events(day_start(night + 1))


# --- replaying nights --------------------------------------------------------------------

def test_replay__confirmed_night_carries_what_only_the_night_knows():
    actions = [act(1, "饺子", "杀人", "馄饨", 5), act(1, "烧卖", "毒药", "春卷", 100),
               act(2, "烧卖", "毒药", "油条", 100), act(2, "饺子", "杀人", "馄饨", 5)]
    first = chronicle("simple14", actions)
    events = confirmed(first, 1)
    assert [(e.player, e.cause) for e in events] == [("春卷", "毒药")]
    again = chronicle("simple14", actions, events)
    night2 = again.resolve(2)
    assert night2.warnings == ()
    # the mark (night 1) makes night 2's kill on the elder final; the poison was spent
    assert [(d.player, d.cause) for d in night2.deaths] == [("馄饨", "杀人")]
    assert [r.reason.value for r in night2.rulings if r.action.skill is Skill.POISON] == ["no_skill"]


def test_replay__events_stand_where_the_night_disagrees():
    actions = [act(1, "饺子", "杀人", "春卷", 5), act(2, "饺子", "杀人", "春卷", 5)]
    c = chronicle("simple14", actions, [out("油条", day_start(2))])
    position = c.position(day_start(2))
    assert position.in_game("春卷") and not position.in_game("油条")
    night2 = c.resolve(2)
    assert night2.warnings == (
        "第1晚：按行动结算 春卷 出局，事件记录为未出局 —— 以事件为准",
        "第1晚：按行动结算 油条 未出局，事件记录为出局 —— 以事件为准",
    )
    assert [d.player for d in night2.deaths] == ["春卷"]  # still in, so killable


def test_replay__events_stand_but_the_save_stays_spent():
    actions = [act(1, "饺子", "杀人", "春卷", 5), act(1, "烧卖", "救药", "春卷", 100),
               act(2, "饺子", "杀人", "油条", 5), act(2, "烧卖", "救药", "油条", 100)]
    c = chronicle("simple14", actions, [out("春卷", day_start(2))])  # the director says 春卷 died anyway
    night2 = c.resolve(2)
    assert night2.warnings and [r.reason.value if r.reason else "ok" for r in night2.rulings] == ["ok", "no_skill"]


def test_replay__night_without_actions_one_warning():
    c = chronicle("simple14", [act(2, "饺子", "杀人", "春卷", 5)], [out("油条", day_start(2))])
    assert c.resolve(2).warnings == ("第1晚没有记录任何行动：以事件为准",)
    assert c.resolve(1).warnings == ()  # about the nights before it only


def test_replay__elder_poisoned_by_the_events_cause():
    # No actions stored for night 1; the director's event says 毒药 (cause): skills lost.
    c = chronicle("simple14", [act(2, "小笼包", "预言", "饺子", 10)], [out("馄饨", day_start(2), cause="毒药")])
    assert [r.reason.value for r in c.resolve(2).rulings] == ["no_skill"]


def test_replay__elder_night_out_without_cause_is_a_kill_and_said_so():
    c = chronicle("simple14", [act(2, "小笼包", "预言", "饺子", 10)], [out("馄饨", day_start(2))])
    result = c.resolve(2)
    assert [r.counted for r in result.rulings] == [True]
    assert any("未注明原因（cause），按杀人处理" in w for w in result.warnings)


def test_replay__cause_from_the_actions_when_the_event_has_none():
    # The director entered 馄饨's death by hand (no cause) and it agrees with the actions.
    actions = [act(1, "烧卖", "毒药", "馄饨", 100), act(2, "小笼包", "预言", "饺子", 10)]
    c = chronicle("simple14", actions, [out("馄饨", day_start(2))])
    assert c.resolve(2).warnings == ()
    assert [r.reason.value for r in c.resolve(2).rulings] == ["no_skill"]


def test_replay__game_over_stops_later_nights():
    events = [GameEvent(EventKind.OUT, None, p, OutWhy.OTHER) for p in ("饺子", "包子", "汤圆")]
    actions = [act(1, "烧卖", "毒药", "月饼", 100), act(2, "小笼包", "预言", "粽子", 10)]
    c = chronicle("simple14", actions, [*events, out("月饼", day_start(2), cause="毒药")])
    assert c.win.faction is Faction.VILLAGE
    result = c.resolve(2)
    assert result.win is None and result.deaths == ()
    assert "游戏已结束（村民阵营获胜），本晚不结算" in result.warnings


def test_replay__out_player_cannot_act_next_night():
    c = chronicle("dual", [act(1, "甲", "杀人", "己", 25), act(1, "甲", "杀人", "己", 26, seq=1)],
                  [out("己", day_start(2), lost=True)])
    assert c.position(day_start(2)).layers_lost("己") == 1
    assert c.position(deadline(1)).layers_lost("己") == 0


# --- day steps --------------------------------------------------------------------------

def test_day__elder_voted_out_witch_and_seer_lose_skills():
    # 当长老因投票、女巫<毒药>而出局后，女巫、预言家将失去技能。
    c = chronicle("simple14", [], [out("馄饨", deadline(2), OutWhy.VOTE)])
    report = c.day(2)
    assert [(s.player, c.mode.name(s.identity)) for s in report.skills_lost] == [("小笼包", "预言家"), ("烧卖", "女巫")]
    assert report.announcements == ("女巫、预言家失去技能",)
    assert report.win is None


def test_day__elder_sent_off_loses_nothing():
    c = chronicle("simple14", [], [out("馄饨", day_start(2) + timedelta(hours=3), OutWhy.CARD)])
    assert c.day(2).skills_lost == ()


def test_day__vote_out_wins():
    # 狼人阵营存活的人数占总存活人数的一半或一半以上 after the day's vote.
    pre = [GameEvent(EventKind.OUT, None, p, OutWhy.OTHER) for p in ("粽子", "春卷", "油条", "豆浆", "麻花")]
    c = chronicle("simple14", [], [*pre, out("元宵", deadline(2), OutWhy.VOTE)])
    assert c.win_at(deadline(2) - timedelta(minutes=1)) is None
    assert c.win_at(deadline(2)).faction is Faction.WOLVES
    assert c.day(2).win.faction is Faction.WOLVES


def test_day__surrender_the_faction_loses():
    # 投降……该阵营优先判负。
    c = chronicle("simple14", [], [GameEvent(EventKind.SURRENDER, deadline(1) - timedelta(hours=2), "包子")])
    win = c.win
    assert win.faction is Faction.VILLAGE and win.rule.startswith("狼人阵营投降，优先判负")


def test_day__preview_of_a_vote_out():
    c = chronicle("simple14")
    step = c.after(GameEvent(EventKind.OUT, deadline(2), "馄饨", OutWhy.VOTE))
    assert [d.player for d in step.outcome.deaths] == ["馄饨"]
    assert step.outcome.announcements == ("女巫、预言家失去技能",)


def test_day__dual_vote_costs_one_identity_hunter_may_shoot():
    # 【最后一枪】猎人失去猎人身份时，可在15分钟内决定一名存活角色失去当前第一身份。
    vote = GameEvent(EventKind.IDENTITY_LOST, deadline(2), "戊", OutWhy.VOTE)
    shot = act(2, "戊", "最后一枪", "甲", 5)
    c = chronicle("dual", [shot], [vote], table=DUAL_HUNTER)
    report = c.day(2)
    assert [t.player for t in report.triggers] == ["戊"]
    ((trigger, action, outcome),) = report.proposed_shots
    assert action == shot and [(d.player, d.cause) for d in outcome.deaths] == [("甲", "最后一枪")]
    # entered as an event at the shot's own time: no longer proposed, and night 2 sees it
    entered = GameEvent(EventKind.IDENTITY_LOST, m(2, 5), "甲", OutWhy.HUNTER, cause="最后一枪")
    c2 = chronicle("dual", [shot, act(2, "甲", "杀人", "己", 4), act(2, "庚", "杀人", "丙", 22)],
                   [vote, entered], table=DUAL_HUNTER)
    assert c2.day(2).proposed_shots == ()
    night2 = c2.resolve(2)
    # 甲's order was his to give when sent (before the shot), then replaced by 庚's; the
    # shot itself is the day's, not an action of the night
    assert [(r.action.actor, r.reason.value if r.reason else None) for r in night2.rulings] == [
        ("甲", "superseded"), ("庚", None)]
    assert [d.player for d in night2.deaths] == ["丙"]
    # after the shot 甲's first identity is 村民: out of the pack
    assert c2.position(m(2, 6)).current("甲").value == "villager"


def test_day__daytime_shot_during_the_guards_phase():
    # The guard is shot at 21:35: his 守护 at 21:33 counts (held when sent), at 21:37 not.
    vote = GameEvent(EventKind.IDENTITY_LOST, deadline(2), "戊", OutWhy.VOTE)
    entered = GameEvent(EventKind.IDENTITY_LOST, m(2, 5), "丁", OutWhy.HUNTER, cause="最后一枪")
    c = chronicle("dual", [act(2, "丁", "守护", "己", 3), act(2, "丁", "守护", "丙", 7)], [vote, entered],
                  table=DUAL_HUNTER)
    assert [(r.counted, r.reason.value if r.reason else None) for r in c.resolve(2).rulings] == [
        (True, None), (False, "no_skill")]


def test_day__shot_window_open_then_passed():
    vote = GameEvent(EventKind.IDENTITY_LOST, deadline(2), "戊", OutWhy.VOTE)
    c = chronicle("dual", [], [vote], table=DUAL_HUNTER)
    assert [t.player for t in c.day(2, now=m(2, 10)).awaiting] == ["戊"]
    assert c.day(2, now=m(2, 16)).awaiting == ()


def test_day__red_card_sets_nothing_off():
    # 角色因罚下而离开游戏不触发相应出局技能。
    card = GameEvent(EventKind.OUT, day_start(2) + timedelta(hours=2), "戊", OutWhy.CARD)
    c = chronicle("dual", [], [card], table=DUAL_HUNTER)
    report = c.day(2)
    assert report.triggers == () and report.skills_lost == ()
    assert not c.position().in_game("戊")


def test_day__dual_elder_voted_out_all_special_lose_skills():
    c = chronicle("dual", [], [GameEvent(EventKind.IDENTITY_LOST, deadline(2), "戊", OutWhy.VOTE)])
    assert c.day(2).announcements == ("所有特殊身份失去技能",)


# --- last words ---------------------------------------------------------------------------

def test_last_words__simple14_first_four_out_not_red_carded():
    # 遗言数量等于狼人的数量，靠前出局且可以留下遗言的角色会收到可以留下遗言的通知。
    # 红牌罚下出局的角色没有遗言权利。
    state = GameState(players=tuple("ABCDEFG"), days=days(4))
    state = state.put_out("A", day_start(2), "night")
    state = state.put_out("B", deadline(2) - timedelta(hours=3), "card")
    state = state.put_out("C", deadline(2), "vote")
    state = state.put_out("D", day_start(3), "night")
    state = state.put_out("E", day_start(3), "night")
    state = state.put_out("F", deadline(3), "vote")
    assert last_words_holders(mode_for("simple14"), state) == ("A", "C", "D", "E")


def test_last_words__dual_none():
    # 该规则下角色出局没有遗言。
    state = GameState(players=tuple("ABC"), identities=2, days=days(2)).put_out("A", day_start(2), "night")
    assert last_words_holders(mode_for("dual"), state) == ()


def test_last_words__discuz_codes_removed():
    # 遗言中禁止使用Discuz!代码。
    words = "[b]我是[color=red]预言家[/color][/b]\r\n{:2_33:}饺子是狼[img]http://x/1.png[/img] [hide]秘密[/hide] [foo=1]x[/foo]\n"
    assert clean_last_words(words) == "我是预言家\n饺子是狼 秘密 x"
