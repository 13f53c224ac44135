"""Vote rulings (SPEC §3.2–3.5): one reason per void post, in issue 3's precedence order."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from engine.reasons import PRECEDENCE, Reason, describe, describe_en
from engine.rules import PRESETS
from engine.rulings import rule_votes
from engine.state import GameState, StateError
from tests.engine.builders import DAY1, DAY2, TALK_TID, Thread, at, change, game, vote

RULES = PRESETS["simple14"]


def rulings_of(thread: Thread, state: GameState | None = None, rules=RULES, day: int = 2):
    return rule_votes(thread.ballots, state or game(), day, rules)


def reasons_of(thread: Thread, state: GameState | None = None, rules=RULES) -> list[str]:
    return [r.reason.value for r in rulings_of(thread, state, rules)]


# Each case: posts as (author, text, index of the quoted earlier post or None) → reasons.
SEQUENCE_CASES = {
    "vote then change quoting it": (
        [("饺子", vote("包子"), None), ("饺子", change("汤圆"), 0)],
        ["valid", "valid"],
    ),
    "abstain is a vote": ([("饺子", vote("弃权", "搞不清楚"), None)], ["valid"]),
    "second vote instead of a change": (
        [("饺子", vote("包子"), None), ("饺子", vote("汤圆"), None)],
        ["valid", "vote_after_vote"],
    ),
    "change without any vote": ([("饺子", change("汤圆"), None)], ["change_without_vote"]),
    "change without a quote": (
        [("饺子", vote("包子"), None), ("饺子", change("汤圆"), None)],
        ["valid", "change_without_quote"],
    ),
    "change quoting someone else's vote": (
        [("饺子", vote("包子"), None), ("包子", vote("饺子"), None), ("饺子", change("汤圆"), 1)],
        ["valid", "valid", "change_quotes_other_post"],
    ),
    "second change quoting the vote again": (
        [("饺子", vote("包子"), None), ("饺子", change("汤圆"), 0), ("饺子", change("月饼"), 0)],
        ["valid", "valid", "second_change"],
    ),
    "second change quoting the first change": (
        [("饺子", vote("包子"), None), ("饺子", change("汤圆"), 0), ("饺子", change("月饼"), 1)],
        ["valid", "valid", "second_change"],
    ),
    "a void vote uses nothing up": (
        [("饺子", vote("路人"), None), ("饺子", vote("包子"), None)],
        ["unknown_target", "valid"],
    ),
    "a void change leaves the one change available": (
        [("饺子", vote("包子"), None), ("饺子", change("汤圆"), None), ("饺子", change("月饼"), 0)],
        ["valid", "change_without_quote", "valid"],
    ),
    "a change after a void vote has no vote to change": (
        [("饺子", vote("路人"), None), ("饺子", change("包子"), 0)],
        ["unknown_target", "change_without_vote"],
    ),
    "no reason line": ([("饺子", "投票对象：包子", None)], ["no_reason"]),
    "two targets": ([("饺子", "投票对象：包子\n投票对象：汤圆\n投票理由：都行", None)], ["two_targets"]),
    "no target": ([("饺子", "投票对象：\n投票理由：还没想好", None)], ["no_target"]),
    "bad format 投票: X": ([("饺子", "投票: 包子 理由不多说了", None)], ["bad_format"]),
    "director's template is not a vote": ([("导演", vote("玩家名"), None)], ["voter_not_player"]),
    "bot is not a voter": ([("计票机器人", vote("包子"), None)], ["voter_not_player"]),
    "stranger is not a voter": ([("路人甲", vote("包子"), None)], ["voter_not_player"]),
    "unknown target": ([("饺子", vote("路人甲"), None)], ["unknown_target"]),
    "ambiguous target": ([("饺子", vote("包"), None)], ["ambiguous_target"]),
    "chat is ignored": ([("饺子", "今天谁是狼？", None), ("饺子", vote("包子"), None)], ["valid"]),
}


@pytest.mark.parametrize("posts, expected", SEQUENCE_CASES.values(), ids=SEQUENCE_CASES.keys())
def test_rule_votes__sequence(posts, expected):
    thread = Thread()
    made = []
    for author, text, quoted in posts:
        made.append(thread.post(author, text, quotes=() if quoted is None else (made[quoted].pid,)))
    assert reasons_of(thread) == expected


def test_rule_votes__target_out():
    thread = Thread()
    thread.post("饺子", vote("汤圆"))
    state = game().put_out("汤圆", at(30, 9, 0), "夜晚出局")
    assert reasons_of(thread, state) == ["target_out"]


def test_rule_votes__target_out_only_from_the_moment_out():
    thread = Thread(start=at(30, 10, 0))
    thread.post("饺子", vote("汤圆"))  # 10:01
    state = game().put_out("汤圆", at(30, 12, 0), "红牌罚下")
    assert reasons_of(thread, state) == ["valid"]


def test_rule_votes__voter_out():
    thread = Thread()
    thread.post("汤圆", vote("包子"))
    state = game().put_out("汤圆", None, "夜晚出局")
    ruling = rulings_of(thread, state)[0]
    assert (ruling.reason, ruling.valid) == (Reason.VOTER_OUT, False)


def test_rule_votes__alias_matches():
    thread = Thread()
    thread.post("包子", vote("饺"))
    state = game().alias("饺", "饺子")
    ruling = rulings_of(thread, state)[0]
    assert (ruling.reason, ruling.target) == (Reason.VALID, "饺子")


def test_rule_votes__full_width_and_case_match():
    thread = Thread()
    thread.post("饺子", vote("ＡＬＩＣＥ"))
    state = game(players=("饺子", "Alice"))
    assert rulings_of(thread, state)[0].target == "Alice"


def test_rule_votes__ambiguous_lists_candidates():
    thread = Thread()
    thread.post("饺子", vote("包"))
    ruling = rulings_of(thread)[0]
    assert ruling.candidates == ("包子", "小笼包")


def test_rule_votes__require_reason_off_accepts_bare_target():
    thread = Thread()
    thread.post("饺子", "投票对象：包子")
    assert reasons_of(thread, rules=RULES.with_overrides(require_reason=False)) == ["valid"]


# --- time -----------------------------------------------------------------------------

TIME_CASES = {
    # (kind, post time, minute-precise) → reason
    "vote a second before the deadline": ("vote", at(30, 21, 29, 59), False, "valid"),
    "vote at the deadline is late": ("vote", at(30, 21, 30, 0), False, "late"),
    "vote after the deadline": ("vote", at(30, 21, 31), False, "late"),
    "minute-precise 21:30 against a 21:30 deadline is late": ("vote", at(30, 21, 30), True, "late"),
    "minute-precise 21:29 is not late": ("vote", at(30, 21, 29), True, "valid"),
    "vote before voting opens": ("vote", at(29, 9, 29), False, "before_start"),
    "first vote in the last hour is fine": ("vote", at(30, 21, 0), False, "valid"),
    "change exactly an hour before is in the window": ("change", at(30, 20, 30), False, "change_in_window"),
    "change a second before the window": ("change", at(30, 20, 29, 59), False, "valid"),
    "minute-precise change at 20:29 is outside the window": ("change", at(30, 20, 29), True, "valid"),
    "late change is late, not in window": ("change", at(30, 21, 45), False, "late"),
}


@pytest.mark.parametrize("kind, when, minute, expected", TIME_CASES.values(), ids=TIME_CASES.keys())
def test_rule_votes__time(kind, when, minute, expected):
    thread = Thread()
    first = thread.post("饺子", vote("包子"), when=at(30, 10, 0))
    if kind == "vote":
        thread.ballots.remove(first)
        thread.post("饺子", vote("包子"), when=when, minute=minute)
    else:
        thread.post("饺子", change("汤圆"), when=when, minute=minute, quotes=(first.pid,))
    assert reasons_of(thread)[-1] == expected


def test_rule_votes__minute_precision_is_noted():
    thread = Thread()
    thread.post("饺子", vote("包子"), when=at(30, 21, 30), minute=True)
    assert "发帖时间只精确到分钟" in rulings_of(thread)[0].detail


def test_rule_votes__deadline_post_orders_the_same_second():
    """The director's closing post marks the deadline: in its own second, posts before it
    count and posts after it are late."""
    thread = Thread()
    same = at(30, 21, 30, 0)
    thread.post("饺子", vote("包子"), when=same)
    closing = thread.post("导演", "投票截止，之后的投票无效。", when=same)
    thread.post("包子", vote("饺子"), when=same)
    day = replace(DAY2, deadline=same, deadline_pid=closing.pid)
    state = game(days=(DAY1, day))
    assert reasons_of(thread, state) == ["valid", "late"]


def test_rule_votes__acceleration_voids_every_change():
    """14人简易: 进程加速后不允许改票，所有改票作废。"""
    thread = Thread()
    first = thread.post("饺子", vote("包子"), when=at(30, 10, 0))
    thread.post("饺子", change("汤圆"), when=at(30, 11, 0), quotes=(first.pid,))
    state = game(days=(DAY1, replace(DAY2, accelerated=True)))
    assert reasons_of(thread, state) == ["valid", "change_voided_by_acceleration"]


def test_rule_votes__only_the_days_vote_thread():
    talk = Thread(tid=TALK_TID, role="discussion")
    talk.post("饺子", vote("包子"))
    other = Thread(tid=99)
    other.post("包子", vote("饺子"))
    assert rule_votes(talk.ballots + other.ballots, game(), 2, RULES) == []


def test_rule_votes__a_shared_thread_gives_each_day_its_posts():
    shared = 12
    day1 = replace(DAY1, vote_thread=shared)
    thread = Thread(tid=shared)
    thread.post("饺子", vote("包子"), when=at(28, 10, 0))  # day 1
    thread.post("饺子", vote("汤圆"), when=at(30, 10, 0))  # day 2
    state = game(days=(day1, DAY2))
    day2 = rule_votes(thread.ballots, state, 2, RULES)
    assert [(r.target, r.reason.value) for r in day2] == [("汤圆", "valid")]


# --- precedence -----------------------------------------------------------------------

def test_rule_votes__who_before_when_before_format():
    thread = Thread()
    thread.post("路人甲", "投票对象：", when=at(30, 22, 0))  # not a player, late, no target
    thread.post("饺子", "投票对象：", when=at(30, 22, 0))  # late and no target
    thread.post("包子", "投票对象：路人", when=at(30, 22, 1))  # late, no reason and unknown
    thread.post("月饼", "投票对象：路人", when=at(30, 12, 0))  # no reason and unknown
    assert reasons_of(thread) == ["no_reason", "voter_not_player", "late", "late"]


def test_rule_votes__sequence_before_target():
    thread = Thread()
    thread.post("饺子", vote("包子"))
    thread.post("饺子", vote("路人"))
    assert reasons_of(thread) == ["valid", "vote_after_vote"]


def test_precedence__is_the_issue_order():
    """The issue's order, after the director's own ruling on a post (which overrides all)."""
    groups = [
        ["director_void"],
        ["voter_not_player", "voter_out", "voter_not_allowed"],
        ["before_start", "late"],
        ["no_target", "bad_format", "two_targets", "mixed_kinds", "no_reason"],
        ["vote_after_vote", "change_without_vote", "change_without_quote",
         "change_quotes_other_post", "second_change", "change_voided_by_acceleration",
         "change_in_window"],
        ["unknown_target", "ambiguous_target", "target_out"],
    ]
    assert [r.value for r in PRECEDENCE] == [code for group in groups for code in group]


@pytest.mark.parametrize("reason", list(Reason), ids=[r.value for r in Reason])
def test_describe__every_reason_in_chinese_for_readers_english_for_logs(reason):
    """Directors and players read Chinese only; operators' logs may say it in English."""
    text = describe(reason)
    assert any("\u4e00" <= c <= "\u9fff" for c in text) and not any(c.isascii() and c.isalpha() for c in text)
    assert any(c.isascii() and c.isalpha() for c in describe_en(reason))


@pytest.mark.parametrize("minutes, text", [
    (60, "截止前一小时内不得改票"), (10, "截止前10分钟内不得改票"), (120, "截止前2小时内不得改票"),
    (90, "截止前90分钟内不得改票")])
def test_describe__the_change_window_says_the_configured_minutes(minutes, text):
    """Issue 12 item 11: with a 10-minute window the ruling must not say 截止前一小时内不得改票."""
    assert describe(Reason.CHANGE_IN_WINDOW, change_window_minutes=minutes) == text
    thread = Thread()
    first = thread.post("饺子", vote("包子"))
    thread.post("饺子", change("汤圆"), quotes=(first.pid,), when=DAY2.deadline - timedelta(minutes=minutes) + timedelta(seconds=30))
    rules = replace(RULES, change_window_minutes=minutes)
    ruling = rule_votes(thread.ballots, game(), 2, rules)[1]
    assert ruling.reason is Reason.CHANGE_IN_WINDOW and text in ruling.detail


# --- edits and substitutes ---------------------------------------------------------------

def test_rule_votes__first_seen_target_stands_after_edit():
    """SPEC §3.3: 修改错别字不算做改票 — the first-seen target stands."""
    thread = Thread()
    ballot = thread.post("饺子", vote("包子"))
    thread.edit(ballot, vote("汤圆"), at(30, 12, 0))
    ruling = rulings_of(thread)[0]
    assert (ruling.target, ruling.valid) == ("包子", True)


def test_rule_votes__substitute_votes_for_the_seat():
    thread = Thread()
    thread.post("替补甲", vote("饺子"))
    thread.post("包子", vote("饺子"))
    state = game().substitute("包子", "替补甲")
    rulings = rulings_of(thread, state)
    assert [(r.voter, r.account, r.reason.value) for r in rulings] == [
        ("包子", "替补甲", "valid"),
        ("包子", "包子", "vote_after_vote"),
    ]


def test_rule_votes__vote_for_a_substitute_account_is_for_the_seat():
    thread = Thread()
    thread.post("饺子", vote("替补甲"))
    state = game().substitute("包子", "替补甲")
    assert rulings_of(thread, state)[0].target == "包子"


def test_rule_votes__sheriff_and_idiot_weights():
    thread = Thread()
    thread.post("饺子", vote("包子"))
    thread.post("汤圆", vote("包子"))
    thread.post("月饼", vote("包子"))
    state = game(sheriff="饺子").reveal_idiot("汤圆")
    assert [r.weight for r in rulings_of(thread, state, PRESETS["s10"])] == [2, 0, 1]


def test_rule_votes__quoted_text_is_not_the_voters_line():
    """SPEC §3.1: quoted text never counts — the parser gives the post's own text only,
    so a quote of someone's vote plus chat is not a vote."""
    thread = Thread()
    first = thread.post("包子", vote("饺子"))
    thread.post("饺子", "哈哈哈你投我？", quotes=(first.pid,))
    assert len(rulings_of(thread)) == 1


def test_day_window__day1_is_separate():
    thread = Thread(tid=10, start=at(28, 10, 0))
    thread.post("饺子", vote("包子"))
    assert [r.reason.value for r in rule_votes(thread.ballots, game(), 1, RULES)] == ["valid"]
    assert DAY1.deadline - DAY1.start > timedelta(hours=1)


def test_rule_votes__director_void_counts_for_nothing_and_uses_nothing_up():
    """The director rules a post void (e.g. 串号): it is void whatever else it is, and the
    player may still vote, as after any void post."""
    thread = Thread()
    first = thread.post("饺子", vote("包子"))
    thread.post("饺子", vote("汤圆"))
    state = game().void_post(first.pid, "串号嫌疑，导演判废")
    rulings = rule_votes(thread.ballots, state, 2, RULES)
    assert [(r.reason.value, r.target, r.valid) for r in rulings] == [
        ("director_void", "包子", False), ("valid", "汤圆", True)]
    assert rulings[0].detail == "串号嫌疑，导演判废"
    with pytest.raises(StateError):
        state.void_post(first.pid, "again")
