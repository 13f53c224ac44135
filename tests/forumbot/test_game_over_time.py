"""Issue 11's "Why" list, each as a regression test, through the director's library and
the agent's end-of-day steps over a real store (SPEC §9: the game as events in game time).

Each of these failed on the code before events had game times: outs took effect when the
director typed, 双身份's first identity was an out, 若愚 left the idiot out, a red card
before the deadline did not come before the vote-out, a dead sheriff stayed sheriff.
"""

from __future__ import annotations

import json

import pytest

from forumbot.game import announce
from forumbot.game import director
from forumbot.game import gamelog
from forumbot.game.gamelog import DirectorError, EventSpec
from tests.forumbot.game_support import at, store_game


def reasons(tally: dict, voter: str) -> list[str]:
    return [v["reason"] or "valid" for v in tally["votes"] if v["voter"] == voter]


def ruling(tally: dict, pid: int) -> dict:
    (vote,) = [v for v in tally["votes"] if v["pid"] == pid]
    return vote


def day2_votes_out(g, target: str, *, voters=("饺子", "包子", "汤圆", "月饼")) -> None:
    """Day 2: four players vote ``target``, ``target`` votes someone else."""
    for i, who in enumerate(v for v in voters if v != target):
        g.vote(2, f"1{i}:00", who, target)
    g.vote(2, "15:00", target, "饺子")


@pytest.fixture
def dual(tmp_path):
    g = store_game(tmp_path, "dual")
    yield g
    g.close()


@pytest.fixture
def s10(tmp_path):
    g = store_game(tmp_path, "s10", sheriff="饺子")
    yield g
    g.close()


@pytest.fixture
def simple14(tmp_path):
    g = store_game(tmp_path, "simple14", sheriff="饺子")
    yield g
    g.close()


# ------------------------------------------------------------------ 双身份 is playable


def test_dual__losing_the_first_identity_is_not_out(dual):
    """双身份: 结算结束后，仅失去一层身份的角色还能继续参与讨论、投票、发动技能。 A player voted
    out on day 2 loses one identity: on day 3 they vote, are voted for, and post without a
    诈尸 flag."""
    day2_votes_out(dual, "包子")
    done = dual.approve_final(2, at(2, "21:45"))
    assert any("包子 身份死亡" in line for line in done)
    assert dual.state().lives("包子") == 1 and not dual.state().is_out("包子")
    mine = dual.vote(3, "10:00", "包子", "月饼")
    theirs = dual.vote(3, "10:05", "月饼", "包子")
    dual.talk(3, "10:10", "包子", "我还在")
    tally = dual.tally(3)
    assert ruling(tally, mine)["valid"] and ruling(tally, theirs)["valid"]
    assert not [f for f in tally["flags"] if f["kind"] == "zombie"]


def test_dual__the_second_identity_lost_is_out(dual):
    """已失去一层身份的角色，因游戏流程的正常进行…再次失去身份，称为“出局”。"""
    day2_votes_out(dual, "包子")
    dual.approve_final(2, at(2, "21:45"))
    dual.enter(EventSpec("night", day=3, players=("包子",)), at(3, "08:00"))
    assert dual.state().is_out("包子", at(3, "09:00"))
    late = dual.vote(3, "10:00", "包子", "月饼")
    assert ruling(dual.tally(3), late)["reason"] == "voter_out"
    text = announce.announcement_text(dual.rt, dual.state(), 3, at(3, "08:00"))
    assert "1. 包子：身份死亡（投票）\n2. 包子：出局（夜晚）" in text


def test_dual__wrongful_death_names_who_votes_next_day(dual):
    """【冤死】…替罪羊代替他们出局。并可以指定下一天有那些角色可以投票，若指定人数为0，则下一天无人出局。"""
    dual.enter(EventSpec("scapegoat", player="烧卖"), at(1, "08:30"))
    dual.vote(2, "10:00", "饺子", "包子")
    dual.vote(2, "10:10", "汤圆", "月饼")
    assert dual.tally(2)["result"]["out"] == "烧卖" and dual.tally(2)["result"]["rule"] == "tie_scapegoat"
    dual.approve_final(2, at(2, "21:45"))
    assert dual.state().scapegoat is None  # the 替罪羊 identity died with the tie
    dual.enter(EventSpec("voters", day=3, players=()), at(2, "22:00"))
    dual.vote(3, "10:00", "饺子", "包子")
    tally = dual.tally(3)
    assert tally["result"]["out"] is None and tally["result"]["rule"] == "no_voters"
    assert reasons(tally, "饺子") == ["voter_not_allowed"] and tally["non_voters"] == []
    # naming who may vote: the others' votes are void, and only the named are non-voters
    dual.enter(EventSpec("voters", day=3, players=("饺子", "月饼")), at(2, "22:05"))
    dual.vote(3, "10:30", "包子", "汤圆")
    tally = dual.tally(3)
    assert tally["result"]["out"] == "包子" and reasons(tally, "包子") == ["voter_not_allowed"]
    assert tally["non_voters"] == ["月饼"]


def test_dual__acceleration_needs_every_living_player(dual):
    """如所有角色均同意缩短游戏日，游戏日可能缩短。 More than half is not enough."""
    from engine.acceleration import acceleration_requests
    from forumbot.game.state import count_day

    for i, who in enumerate(("饺子", "包子", "汤圆", "月饼", "小笼包")):
        dual.progress(2, f"1{i}:00", who, "申请加速")
    dual.progress(2, "16:00", "烧卖", "我不想加速")
    counted = count_day(dual.rt.config, dual.rt.store, 2)
    status = acceleration_requests(counted.ballots, counted.state, 2, dual.rt.config.rules, at(2, "17:00"))
    assert (len(status.requests), status.needed, status.enough) == (5, 6, False)


def test_dual__a_sent_off_sheriff_names_no_successor(dual):
    """角色因罚下而离开游戏不触发相应出局技能 — no 【殉职】: the badge stays vacant and no
    successor is asked for."""
    dual.enter(EventSpec("sheriff", player="饺子"), at(1, "21:30"))
    dual.enter(EventSpec("out", player="饺子", why="card", at=at(2, "12:00")), at(2, "12:00"))
    status = director.status(dual.rt, at(2, "12:30"))
    assert status.badge.vacancy is not None and status.badge.succession.value == "vacant"
    assert not [w for w in status.waiting_for if "警长" in w]


def test_dual__successor_is_not_the_sheriffs_own_second_identity(dual):
    """【殉职】警长当前第一身份死亡后，须选择一名未出局的角色来继任警长，不能选择自己的第二身份继任警长。"""
    dual.enter(EventSpec("sheriff", player="饺子"), at(1, "21:30"))
    dual.enter(EventSpec("night", day=2, players=("饺子",)), at(2, "08:00"))
    state = dual.state()
    assert state.lives("饺子") == 1 and state.sheriff is None and state.vacancy.previous == "饺子"
    with pytest.raises(DirectorError, match="不能选择自己的第二身份"):
        dual.enter(EventSpec("sheriff", player="饺子"), at(2, "08:10"))
    assert "饺子" not in director.successor_candidates(dual.rt, at(2, "08:10"))
    dual.enter(EventSpec("sheriff", player="包子"), at(2, "08:10"))
    # the successor takes the badge when it fell vacant (the start of day 2)
    assert dual.state().sheriff_at(at(2, "09:00")) == "包子"


# ------------------------------------------------------------------ S10 若愚


@pytest.mark.parametrize("idiot_first", [True, False], ids=["idiot-then-approve", "approve-then-idiot"])
def test_s10__an_idiot_voted_out_who_reveals_stays_in(s10, idiot_first):
    """【若愚】白痴可发动技能免于投票出局，若白痴发动此技能，则此后白痴投票不计入总票数。 After
    ``forumbot idiot 烧卖`` and the approved count that voted him out, 烧卖 stays in: his
    day-3 vote is valid with weight 0, a vote for him counts."""
    day2_votes_out(s10, "烧卖")
    if idiot_first:
        s10.enter(EventSpec("idiot", player="烧卖"), at(2, "21:40"))
        s10.approve_final(2, at(2, "22:00"))
    else:
        s10.approve_final(2, at(2, "21:40"))
        s10.enter(EventSpec("idiot", player="烧卖"), at(2, "22:00"))
    state = s10.state()
    assert not state.is_out("烧卖") and "烧卖" in state.idiots_revealed
    mine = s10.vote(3, "10:00", "烧卖", "月饼")
    theirs = s10.vote(3, "10:05", "包子", "烧卖")
    tally = s10.tally(3)
    assert (ruling(tally, mine)["valid"], ruling(tally, mine)["weight"]) == (True, 0)
    assert ruling(tally, theirs)["valid"] and tally["counts"] == {"烧卖": 1}
    assert "发动【若愚】" in tally_final_line(s10, 2)


def tally_final_line(g, day: int) -> str:
    from forumbot.game.state import count_day
    from forumbot.game.views import result_line

    return result_line(count_day(g.rt.config, g.rt.store, day).data["result"], day) or ""


def test_s10__a_revealed_idiot_is_no_successor(s10):
    """【殉职】…须选择一名未出局的角色（已发动【若愚】的白痴除外）来继任警长。"""
    day2_votes_out(s10, "烧卖")
    s10.enter(EventSpec("idiot", player="烧卖"), at(2, "21:40"))
    s10.approve_final(2, at(2, "22:00"))
    s10.enter(EventSpec("night", day=3, players=("饺子",)), at(3, "08:00"))
    with pytest.raises(DirectorError, match="若愚"):
        s10.enter(EventSpec("sheriff", player="烧卖"), at(3, "08:30"))
    with pytest.raises(DirectorError, match="已出局"):
        s10.enter(EventSpec("sheriff", player="饺子"), at(3, "08:30"))
    assert "烧卖" not in director.successor_candidates(s10.rt, at(3, "08:30"))


# ------------------------------------------------------------------ outs take effect in game time


def test_vote_out_takes_effect_at_the_deadline_however_late_approved(simple14):
    """A player voted out on day 2 whose final count is approved at noon on day 3 does not
    vote validly at 10:00 on day 3 (SPEC §9: a vote-out takes effect at its deadline)."""
    day2_votes_out(simple14, "月饼")
    early = simple14.vote(3, "10:00", "月饼", "包子")
    simple14.approve_final(2, at(3, "12:00"))
    (event,) = [e for e in simple14.rt.store.live_events() if e.payload.get("source") == "result"]
    assert event.game_at == at(2, "21:30") and event.at == at(3, "12:00")
    assert ruling(simple14.tally(3), early)["reason"] == "voter_out"


def test_night_death_entered_late_takes_effect_at_the_days_start(simple14):
    """A night victim entered at 12:00 does not vote validly at 10:00, and two votes for
    them do not make a false 2–2 tie."""
    simple14.vote(3, "09:30", "包子", "月饼")
    simple14.vote(3, "09:40", "小笼包", "月饼")
    simple14.vote(3, "09:50", "月饼", "汤圆")
    simple14.vote(3, "09:55", "烧卖", "汤圆")
    theirs = simple14.vote(3, "10:00", "汤圆", "包子")
    before = simple14.tally(3)["result"]
    assert (before["tie"], before["out"]) == (["汤圆", "月饼"], None)  # the false 2–2 tie, as typed too late
    applied = simple14.enter(EventSpec("night", day=3, players=("汤圆",)), at(3, "12:00"))
    assert applied.event.game_at == at(3, "09:00")
    tally = simple14.tally(3)
    assert ruling(tally, theirs)["reason"] == "voter_out"
    assert reasons(tally, "月饼") == ["target_out"] and reasons(tally, "烧卖") == ["target_out"]
    assert tally["counts"] == {"月饼": 2} and tally["result"]["out"] == "月饼" and tally["result"]["tie"] == []


def test_red_card_before_the_deadline_comes_before_the_vote_out(simple14):
    """白天红牌罚下在被投票出局之前. A player red-carded at 20:00 with the most votes is not
    "voted out"; their own standing vote is dropped; the votes on them count for no one and
    their voters are not non-voters."""
    for i, who in enumerate(("包子", "汤圆", "小笼包")):
        simple14.vote(2, f"1{i}:00", who, "月饼")
    simple14.vote(2, "13:00", "烧卖", "包子")
    own = simple14.vote(2, "14:00", "月饼", "包子")
    assert simple14.tally(2)["result"]["out"] == "月饼"
    simple14.at(at(2, "20:00"))
    director.give_card(simple14.rt, "月饼", "red", "恶意刷屏", at(2, "20:00"))
    tally = simple14.tally(2)
    assert tally["result"]["out"] == "包子" and tally["counts"] == {"包子": 1}
    assert (ruling(tally, own)["valid"], ruling(tally, own)["counted"], ruling(tally, own)["dropped"]) == (
        True, False, "voter_out")
    dropped = [v for v in tally["votes"] if v["dropped"] == "target_out"]
    assert sorted(v["voter"] for v in dropped) == ["包子", "小笼包", "汤圆"]
    assert all(v["valid"] and not v["counted"] for v in dropped)
    assert not {"包子", "汤圆", "小笼包"} & set(tally["non_voters"])


def test_a_badge_drawn_mid_day_weighs_at_the_deadline(simple14):
    """红牌罚下的警长警徽随机移交 (recorded seed); SPEC §9: the sheriff at the deadline weighs 2."""
    simple14.vote(2, "10:00", "包子", "月饼")
    simple14.vote(2, "10:10", "汤圆", "烧卖")
    simple14.at(at(2, "20:00"))
    outcome = director.give_card(simple14.rt, "饺子", "red", "恶意刷屏", at(2, "20:00"), seed=7)
    assert outcome.badge_to in ("包子", "汤圆", "月饼", "小笼包", "烧卖") and outcome.seed == 7
    tally = simple14.tally(2)
    assert tally["sheriff_at_deadline"] == outcome.badge_to
    assert all(v["weight"] == (2 if v["voter"] == outcome.badge_to else 1) for v in tally["votes"] if v["valid"])


def test_a_red_card_taken_back_undoes_the_send_off_and_the_badge_draw(simple14):
    """Issue 12: every destructive action is undoable. A red card given to the wrong
    sheriff: taking it back restores the ledger, the player, the badge and the count."""
    simple14.vote(2, "10:00", "包子", "月饼")
    simple14.vote(2, "10:10", "饺子", "月饼")
    before = simple14.tally(2)
    simple14.at(at(2, "20:00"))
    outcome = director.give_card(simple14.rt, "饺子", "red", "恶意刷屏", at(2, "20:00"), seed=7)
    (entry,) = simple14.rt.store.cards()
    assert simple14.state().is_out("饺子") and len(entry.events) == 2
    preview = director.preview_take_back_card(simple14.rt, entry.id, at(2, "20:05"))
    text = "\n".join(preview.lines())
    assert "红牌" in text and "已罚下 → 蓝牌 0，黄牌 0" in text and preview.impact is not None
    assert simple14.rt.store.cards() == [entry]  # a preview writes nothing
    _, notice = director.take_back_card(simple14.rt, entry.id, "记错了人", at(2, "20:06"))
    assert simple14.rt.store.cards() == [] and not simple14.rt.store.card(entry.id).standing
    assert not simple14.state().is_out("饺子")
    assert director.badge(simple14.rt, at(2, "20:07")).sheriff == "饺子" != outcome.badge_to
    assert simple14.tally(2)["counts"] == before["counts"]
    assert notice is not None and "【撤销判罚】饺子：红牌" in notice.body and "记错了人" in notice.body
    with pytest.raises(DirectorError, match="已于"):
        director.take_back_card(simple14.rt, entry.id, "再撤一次", at(2, "20:08"))


# ------------------------------------------------------------------ the badge


def test_a_sheriff_killed_at_night_leaves_the_badge_vacant(simple14):
    """A dead sheriff is no sheriff: counts and the announcement say 警长：空缺 and no
    vote weighs 2 until the successor is named; an out player cannot be the successor."""
    simple14.enter(EventSpec("night", day=2, players=("饺子",)), at(2, "12:00"))
    simple14.vote(2, "12:30", "包子", "月饼")
    tally = simple14.tally(2)
    assert tally["sheriff_at_deadline"] is None and tally["badge_vacant"] and tally["vacated_by"] == "饺子"
    assert [v["weight"] for v in tally["votes"]] == [1]
    text = announce.announcement_text(simple14.rt, simple14.state(), 2, at(2, "12:00"))
    assert "现任警长" not in text and "警长：空缺（等待原警长 饺子 指定继任者）" in text
    from forumbot.game.drafting import count_body

    body = count_body(simple14.rt.env, tally, state=simple14.state(), rules=simple14.rt.config.rules,
                      now=at(2, "12:30"), final=False, hide_voters=False)
    assert "警长：空缺（原警长 饺子，等待继任）" in body
    with pytest.raises(DirectorError, match="已出局"):
        simple14.enter(EventSpec("sheriff", player="饺子"), at(2, "12:40"))
    status = director.status(simple14.rt, at(2, "12:40"))
    assert any("等待 饺子（出局）指定继任者" in w for w in status.waiting_for)
    simple14.enter(EventSpec("sheriff", player="包子"), at(2, "12:40"))
    assert simple14.tally(2)["sheriff_at_deadline"] == "包子"


def test_simple14__draw_offered_30_minutes_after_a_voted_out_sheriff(simple14):
    """警长被投票出局，关门三十分钟后仍未与导演取得联系，警长随机移交给在场的一名未出局角色。"""
    day2_votes_out(simple14, "饺子", voters=("包子", "汤圆", "月饼", "小笼包"))
    simple14.approve_final(2, at(2, "21:40"))
    with pytest.raises(DirectorError, match="22:00 起"):
        gamelog.draw_sheriff(simple14.rt, at(2, "21:50"), seed=3)
    applied = gamelog.draw_sheriff(simple14.rt, simple14.at(at(2, "22:00")), seed=3)
    drawn = applied.event.payload
    assert drawn["seed"] == 3 and "饺子" not in drawn["candidates"]
    import random

    assert drawn["player"] == random.Random(3).choice(drawn["candidates"])
    (notice,) = applied.notices
    assert "随机移交" in notice.body and "随机种子 3" in notice.body


# ------------------------------------------------------------------ announcements


def test_announcement_lists_daytime_outs_then_the_vote_then_the_night(simple14):
    """公示出局名单时按角色出局的顺序排序: a lover following and a hunter's shot on day 2, then
    the vote-out, then the night."""
    day2_votes_out(simple14, "月饼", voters=("包子", "小笼包", "烧卖", "饺子"))
    simple14.enter(EventSpec("out", player="汤圆", why="hunter", at=at(2, "15:00")), at(2, "15:05"))
    simple14.enter(EventSpec("out", player="烧卖", why="lover", at=at(2, "15:00")), at(2, "15:06"))
    simple14.approve_final(2, at(2, "21:45"))
    simple14.enter(EventSpec("night", day=3, players=("小笼包",)), at(2, "23:00"))
    draft = director.announcement_draft(simple14.rt, 3, at(2, "23:00"))
    assert ("1. 汤圆：出局（猎人开枪，12-02 15:00）\n2. 烧卖：出局（殉情，12-02 15:00）\n"
            "3. 月饼：出局（投票）\n4. 小笼包：出局（夜晚）") in draft.body


# ------------------------------------------------------------------ corrections


def test_correction_shows_what_changes_then_redrafts_the_waiting_final_count(simple14):
    """Wrong player: the night victim was 包子, not 汤圆. The preview names the rulings and
    the result that change; applying replaces the waiting final count."""
    wrong = simple14.enter(EventSpec("night", day=2, players=("汤圆",)), at(2, "08:00")).event
    simple14.vote(2, "10:00", "饺子", "月饼")  # ×2
    simple14.vote(2, "10:10", "包子", "小笼包")
    simple14.vote(2, "10:20", "月饼", "小笼包")
    simple14.vote(2, "10:30", "烧卖", "小笼包")
    first = simple14.final(2, at(2, "21:40"))
    assert "结果：小笼包 出局" in first.body
    spec = EventSpec("night", day=2, players=("包子",))
    impact = gamelog.preview_correct(simple14.rt, wrong.id, spec, at(2, "21:50"))
    (day,) = impact.days
    assert (day.result_before, day.result_after) == ("小笼包 出局", "月饼 出局（平票：月饼、小笼包；警长投票对象出局）")
    assert (day.counts_before, day.counts_after) == ({"小笼包": 3, "月饼": 2}, {"月饼": 2, "小笼包": 2})
    assert any(c.voter == "包子" and c.after.startswith("废票：已出局角色投票") for c in day.rulings)
    assert [d.draft.id for d in impact.drafts if not d.published] == [first.id]
    applied = gamelog.correct(simple14.rt, wrong.id, spec, "录错了人", at(2, "21:50"))
    assert simple14.rt.outbox.get(first.id).state.value == "rejected"
    (redrafted,) = [d for d in applied.redrafted if d.kind.value == "final_count"]
    assert "结果：月饼 出局（平票：月饼、小笼包；警长投票对象出局）" in redrafted.body
    state = simple14.state()
    assert state.is_out("包子") and not state.is_out("汤圆")
    # the history keeps both rows; undoing the correction brings the old entry back
    undone = gamelog.retract(simple14.rt, applied.event.id, "更正错了", at(2, "21:55"))
    assert simple14.state().is_out("汤圆") and undone.event.payload["event"] == applied.event.id


def test_correction_after_publication_is_reported_never_edited(simple14):
    day2_votes_out(simple14, "月饼")
    draft = simple14.final(2, at(2, "21:40"))
    simple14.rt.outbox.approve(draft.id, "director", now=at(2, "21:41"))
    with simple14.rt.store.write():  # as the outbox does after the forum took it
        simple14.rt.store.db.conn.execute("UPDATE outbox SET state = 'published', pid = 777 WHERE id = ?",
                                          (draft.id,))
    gamelog.settle_result(simple14.rt, 2, at(2, "21:42"))
    applied = simple14.enter(EventSpec("void", pid=simple14.tally(2)["votes"][0]["pid"], note="串号"), at(2, "22:00"))
    (stale,) = applied.impact.stale_published
    assert stale.draft.id == draft.id and "不会被改动" in stale.what
    assert simple14.rt.outbox.get(draft.id).state.value == "published"
    assert director.status(simple14.rt, at(2, "22:01")).stale_published
    corrected = gamelog.redraft_final(simple14.rt, 2, at(2, "22:05"))
    assert "【更正·最终计票】第2日" in corrected.body


def test_undo_that_restores_the_published_count_makes_it_right_again(simple14):
    day2_votes_out(simple14, "月饼")
    draft = simple14.final(2, at(2, "21:40"))
    simple14.rt.outbox.approve(draft.id, "director", now=at(2, "21:41"))
    with simple14.rt.store.write():  # as the outbox does after the forum took it
        simple14.rt.store.db.conn.execute("UPDATE outbox SET state = 'published', pid = 777 WHERE id = ?",
                                          (draft.id,))
    gamelog.settle_result(simple14.rt, 2, at(2, "21:42"))
    voided = simple14.enter(EventSpec("void", pid=simple14.tally(2)["votes"][0]["pid"], note="串号"),
                            at(2, "22:00"))
    assert director.status(simple14.rt, at(2, "22:01")).stale_published
    preview = gamelog.preview_retract(simple14.rt, voided.event.id, at(2, "22:02"))
    assert not [d for d in preview.drafts if d.published]  # the undo makes nothing wrong…
    gamelog.retract(simple14.rt, voided.event.id, "判废错了", at(2, "22:03"))
    assert not director.status(simple14.rt, at(2, "22:04")).stale_published  # …and the post is right again


def test_result_follows_the_final_count_that_stands(simple14):
    """A correction that changes the approved (not yet published) count takes back the
    result recorded from it; approving the new count records the new result."""
    day2_votes_out(simple14, "月饼", voters=("包子", "汤圆"))
    simple14.vote(2, "16:00", "饺子", "小笼包")  # ×2: 小笼包 2, 月饼 2 → the sheriff's target
    simple14.approve_final(2, at(2, "21:40"))
    assert simple14.state().is_out("小笼包")
    sheriff_vote = [v for v in simple14.tally(2)["votes"] if v["voter"] == "饺子"][0]["pid"]
    applied = simple14.enter(EventSpec("void", pid=sheriff_vote, note="串号"), at(2, "21:50"))
    assert any("撤销" in line for line in applied.settled)
    assert not simple14.state().is_out("小笼包")
    simple14.approve_final(2, at(2, "21:55"))
    assert simple14.state().is_out("月饼", at(2, "21:30"))


def test_director_commands_refuse_nonsense_with_a_message(simple14):
    """Issue 12 item 9: alias 饺子 包子 (an existing player as alias) and substitute 饺子 饺子
    are refused, saying why."""
    with pytest.raises(DirectorError, match="就是玩家 包子"):
        director.add_alias(simple14.rt, "饺子", "包子", at(1, "10:00"))
    with pytest.raises(DirectorError, match="就是玩家 饺子"):
        director.substitute(simple14.rt, "饺子", "饺子", at(1, "10:00"))
    with pytest.raises(DirectorError, match="就是玩家 包子"):
        director.substitute(simple14.rt, "饺子", "ＢＡＯ子".replace("ＢＡＯ", "包"), at(1, "10:00"))
    assert simple14.rt.store.events() == []


def test_events_list_game_time_and_who_entered_it_when(simple14):
    simple14.enter(EventSpec("night", day=2, players=("汤圆",)), at(2, "12:00"))
    (view,) = gamelog.list_events(simple14.rt)
    assert (view.game_at, view.entered_at, view.actor, view.live) == (at(2, "09:00"), at(2, "12:00"), "director",
                                                                       True)
    (audit,) = simple14.rt.store.audit_log(action_prefix="event.")
    assert audit.detail["game_at"] == at(2, "09:00").isoformat()
    assert audit.detail["entered_at"] == at(2, "12:00").isoformat()


def test_a_store_from_before_game_times_keeps_working(tmp_path):
    """Schema v4 adds each event's game time; rows written before it get SPEC §9's default:
    the bot's vote-out (recorded at the approval time) at the deadline, a night at its
    day's start — so an old game's next tally is right without a hand correction."""
    import sqlite_utils

    from forumbot.store import SCHEMA_VERSION, migrate, schema_version
    from tests.forumbot.game_support import config_text

    db_path = tmp_path / "old.sqlite"
    db = sqlite_utils.Database(db_path)
    migrate(db, target=3)
    rows = [
        (2, "out", {"player": "月饼", "why": "vote", "at": at(3, "12:00").isoformat()}, "bot", at(3, "12:00")),
        (3, "night", {"out": ["汤圆"]}, "director", at(3, "12:30")),
        (1, "sheriff", {"player": "饺子", "why": "第1日警长竞选", "at": at(2, "08:00").isoformat()}, "bot",
         at(2, "08:00")),
    ]
    for day, kind, payload, actor, when in rows:
        db["events"].insert({"day": day, "kind": kind, "payload": json.dumps(payload, ensure_ascii=False),
                             "actor": actor, "at": when.isoformat()})
    db.close()
    (tmp_path / "game.toml").write_text(config_text("simple14", database=str(db_path)), encoding="utf-8")
    from forumbot.game.runtime import open_runtime
    from forumbot.simulator import SimClock

    rt = open_runtime(tmp_path / "game.toml", clock=SimClock(start=at(3, "13:00")))
    try:
        assert schema_version(rt.store.db) == SCHEMA_VERSION
        state = director._state(rt)
        assert state.out_record("月饼").at == at(2, "21:30")
        assert state.out_record("汤圆").at == at(3, "09:00")
        assert state.sheriff_at(at(1, "21:30")) == "饺子" and state.sheriff_at(at(1, "21:29")) is None
        assert [e.game_at for e in rt.store.events()] == [None, None, None]
    finally:
        rt.close()


def test_status_knows_a_day_accelerated_by_an_event(simple14):
    simple14.enter(EventSpec("accelerated", day=2), at(2, "15:00"))
    status = director.status(simple14.rt, at(2, "15:01"))
    assert status.day is not None and status.day.number == 2 and status.day.accelerated
    assert status.acceleration is None  # requests are no longer counted on an accelerated day
