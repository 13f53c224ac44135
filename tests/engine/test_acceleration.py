"""加速 requests, from the 14人简易 rule: 如果在进程帖中申请加速的玩家超过所有存活玩家的二分之一则游戏进程加速。"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.acceleration import acceleration_requests, is_request
from engine.rules import PRESETS, Quorum
from tests.engine.builders import DAY1, DAY2, PLAYERS, Thread, at, game

PROGRESS = 8
DAY2P = replace(DAY2, progress_thread=PROGRESS)


REQUESTS = [  # what players write in the progress thread to ask
    "申请加速", "加速加速", "同意加快进程", "[b]加速[/b]", "加\u200b速", "申请加速，今天没什么好聊的了",
    "+1 申请加速", "加速吧，早点出结果", "我也申请加速", "支持加速！", "同意加速", "求加速～", "加速加速加速",
    "申请加速。票已经投完了", "附议加速", "赞成加速", "请求加快进程", "不加速不行了，大家都投完了",
    "申請加速", "同意缩短游戏日", "没意见，加速", "[quote]我不想加速[/quote]\n我想加速",
]
NOT_REQUESTS = [  # negations, questions, talk about it, someone else's request
    "不加速", "反对加速，还没聊完", "今天天气不错", "我不想加速", "没必要加速", "不用加速", "谁申请加速了？",
    "要不要加速？", "加速吗", "先别加速，我还有话说", "别急着加速", "不同意加速", "有人申请加速了",
    "加速就算了吧", "为什么要加速？", "暂时不加速", "重力加速度是多少", "现在加速还太早了吧",
    "加速？我觉得还可以再聊聊", "拒绝加速", "无需加速", "楼上说要加速，我觉得不行", "不赞成加速",
    "能不能加速", "今天可以加速了吗？", "加速个头，还没聊完", "[quote]申请加速[/quote]\n你申请得太早了",
]


@pytest.mark.parametrize("text", REQUESTS)
def test_is_request__real_requests(text):
    assert is_request(text) is True


@pytest.mark.parametrize("text", NOT_REQUESTS)
def test_is_request__negations_questions_and_talk_are_not_requests(text):
    """Issue 11: 「我不想加速」「没必要加速」「不用加速」「谁申请加速了？」 are not requests."""
    assert is_request(text) is False


def test_is_request__the_table_is_big_enough():
    assert len(REQUESTS) + len(NOT_REQUESTS) >= 30


def test_acceleration__more_than_half_of_the_living_is_needed():
    """超过所有存活玩家的二分之一: with 6 living, 3 is half, so 4 are needed."""
    state = game(days=(DAY1, DAY2P))
    thread = Thread(PROGRESS, start=at(30, 10, 0), role="progress")
    for who in PLAYERS[:3]:
        thread.post(who, "申请加速")
    status = acceleration_requests(thread.ballots, state, 2)
    assert (len(status.requests), status.needed, status.enough) == (3, 4, False)
    thread.post(PLAYERS[3], "加速")
    assert acceleration_requests(thread.ballots, state, 2).enough


def test_acceleration__out_players_directors_and_repeats_do_not_count():
    state = game(days=(DAY1, DAY2P)).put_out("烧卖", at(29, 0, 0), "night")
    thread = Thread(PROGRESS, start=at(30, 10, 0), role="progress")
    thread.post("烧卖", "加速")  # out: 诈尸, not a request
    thread.post("导演", "大家要加速吗")
    thread.post("饺子", "加速")
    thread.post("饺子", "加速！！")
    status = acceleration_requests(thread.ballots, state, 2)
    assert [p for p, _, _ in status.requests] == ["饺子"]
    assert status.living == 5 and status.needed == 3


def test_acceleration__only_the_progress_thread_and_the_days_window():
    state = game(days=(DAY1, DAY2P))
    talk = Thread(DAY2.discussion_thread, start=at(30, 10, 0), role="discussion")
    talk.post("饺子", "加速")
    early = Thread(PROGRESS, start=at(29, 8, 0), role="progress")  # before day 2 starts
    early.post("包子", "加速")
    assert acceleration_requests(talk.ballots + early.ballots, state, 2).requests == ()


@pytest.mark.parametrize("ruleset, quorum, asked, needed, enough", [
    ("simple14", Quorum.MAJORITY, 4, 4, True),   # 超过所有存活玩家的二分之一: 4 of 6
    ("simple14", Quorum.MAJORITY, 3, 4, False),  # exactly half is not more than half
    ("dual", Quorum.ALL, 5, 6, False),           # 如所有角色均同意缩短游戏日: all 6
    ("dual", Quorum.ALL, 6, 6, True),
    ("s10", Quorum.DIRECTOR, 6, None, False),    # the seed says nothing: the director decides
    ("s09", Quorum.DIRECTOR, 6, None, False),
])
def test_acceleration__quorum_per_rule_set(ruleset, quorum, asked, needed, enough):
    state = game(days=(DAY1, DAY2P))
    thread = Thread(PROGRESS, start=at(30, 10, 0), role="progress")
    for who in PLAYERS[:asked]:
        thread.post(who, "申请加速")
    status = acceleration_requests(thread.ballots, state, 2, PRESETS[ruleset])
    assert (status.quorum, len(status.requests), status.needed, status.enough) == (quorum, asked, needed, enough)
    assert "加速申请" in status.describe()


def test_acceleration__a_requester_out_since_counts_no_more():
    """Counted against the living at the moment asked about: a requester killed later (a
    hunter's shot) no longer counts, and the living are fewer."""
    thread = Thread(PROGRESS, start=at(30, 10, 0), role="progress")
    for who in PLAYERS[:3]:
        thread.post(who, "申请加速")
    state = game(days=(DAY1, DAY2P)).put_out(PLAYERS[0], at(30, 15, 0), "hunter")
    status = acceleration_requests(thread.ballots, state, 2, PRESETS["simple14"], at(30, 16, 0))
    assert ([p for p, _, _ in status.requests], status.living, status.needed) == (list(PLAYERS[1:3]), 5, 3)


@pytest.mark.parametrize("ruleset, voids", [("simple14", True), ("dual", False), ("s10", False), ("s09", False)])
def test_acceleration__voiding_changes_is_a_rule_set_field(ruleset, voids):
    """14人简易: 进程加速后不允许改票，所有改票作废。 The other seeds say nothing: changes stand
    unless the game's config says ``acceleration_voids_changes = true``."""
    from engine.rulings import rule_votes
    from tests.engine.builders import change, vote

    rules = PRESETS[ruleset]
    assert rules.acceleration_voids_changes is voids
    thread = Thread()
    first = thread.post("饺子", vote("包子"))
    thread.post("饺子", change("汤圆"), quotes=(first.pid,))
    state = game().accelerate(2, at(30, 12, 0))
    reasons = [r.reason.value for r in rule_votes(thread.ballots, state, 2, rules)]
    assert reasons == ["valid", "change_voided_by_acceleration" if voids else "valid"]
    forced = rules.with_overrides(acceleration_voids_changes=True)
    assert [r.reason.value for r in rule_votes(thread.ballots, state, 2, forced)][1] == "change_voided_by_acceleration"
