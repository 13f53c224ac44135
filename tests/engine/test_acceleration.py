"""加速 requests, from the 14人简易 rule: 如果在进程帖中申请加速的玩家超过所有存活玩家的二分之一则游戏进程加速。"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.acceleration import acceleration_requests, is_request
from tests.engine.builders import DAY1, DAY2, PLAYERS, Thread, at, game

PROGRESS = 8
DAY2P = replace(DAY2, progress_thread=PROGRESS)


@pytest.mark.parametrize("text, expected", [
    ("申请加速", True), ("加速加速", True), ("同意加快进程", True), ("[b]加速[/b]", True),
    ("加\u200b速", True), ("不加速", False), ("反对加速，还没聊完", False), ("今天天气不错", False),
])
def test_is_request__what_players_write(text, expected):
    assert is_request(text) is expected


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
