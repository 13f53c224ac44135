"""Post counts and card proposals (SPEC §5): proposals only, each with its floors."""

from __future__ import annotations

from dataclasses import replace

from parsers.models import Font

from engine.activity import ProposalKind, post_counts, propose_cards
from engine.rules import PRESETS
from tests.engine.builders import DAY1, DAY2, TALK_TID, Thread, at, game, vote

RULES = PRESETS["simple14"]


def talk_and_votes():
    talk = Thread(tid=TALK_TID, role="discussion", first_pid=500)
    for _ in range(5):
        talk.post("饺子", "我觉得包子是狼")
    talk.post("包子", "我是好人", fonts=(Font(color="#FF0000"),))
    talk.post("包子", "看这个 http://qq.com", links=("http://qq.com/x",))
    votes = Thread()
    votes.post("饺子", vote("包子"))
    return talk, votes


def test_post_counts__per_day_per_thread():
    talk, votes = talk_and_votes()
    counts = post_counts(talk.ballots + votes.ballots, game())
    assert (counts.count(2, "饺子"), counts.count(2, "饺子", "vote"), counts.count(2, "包子"), counts.count(2, "汤圆")) == (5, 1, 2, 0)


def test_propose_cards__lurking_no_vote_font_evidence():
    """14人简易 潜水: 在未加快进程的单个讨论日不足五帖 …; 在未加快进程的任一讨论日未投票. 字体: 禁止使用大红色字体."""
    talk, votes = talk_and_votes()
    proposals = propose_cards(talk.ballots + votes.ballots, game(), 2, RULES)
    got = {(p.kind, p.player) for p in proposals}
    assert (ProposalKind.LURKING_DAY, "饺子") not in got
    assert (ProposalKind.LURKING_DAY, "包子") in got
    assert (ProposalKind.NO_VOTE, "包子") in got and (ProposalKind.NO_VOTE, "饺子") not in got
    font = next(p for p in proposals if p.kind is ProposalKind.FONT)
    evidence = next(p for p in proposals if p.kind is ProposalKind.EVIDENCE)
    assert (font.player, font.floors) == ("包子", (7,))
    assert (evidence.player, evidence.floors) == ("包子", (8,))
    lurk = next(p for p in proposals if p.kind is ProposalKind.LURKING_DAY and p.player == "包子")
    assert lurk.floors == (7, 8)
    no_vote = next(p for p in proposals if p.kind is ProposalKind.NO_VOTE and p.player == "包子")
    assert no_vote.card == "yellow"


def test_propose_cards__accelerated_day_no_lurking_or_no_vote():
    talk, votes = talk_and_votes()
    state = game(days=(DAY1, replace(DAY2, accelerated=True)))
    kinds = {p.kind for p in propose_cards(talk.ballots + votes.ballots, state, 2, RULES)}
    assert ProposalKind.LURKING_DAY not in kinds and ProposalKind.NO_VOTE not in kinds


def test_propose_cards__zombie():
    """14人简易: 禁止已出局角色在讨论帖、投票帖、进程帖或规则帖中发言"""
    talk = Thread(tid=TALK_TID, role="discussion")
    talk.post("烧卖", "我死得好冤")
    state = game().put_out("烧卖", at(29, 9, 0), "夜晚出局")
    zombie = [p for p in propose_cards(talk.ballots, state, 2, RULES) if p.kind is ProposalKind.ZOMBIE]
    assert [(p.player, p.floors) for p in zombie] == [("烧卖", (2,))]


def test_propose_cards__lurking_over_three_days():
    """连续三个讨论日均不足十帖: fewer than ten on each of three consecutive days (ten or
    more on any one of them is enough)."""
    days = tuple(
        replace(DAY2, number=n, start=at(20 + 2 * n, 9, 30), deadline=at(21 + 2 * n, 21, 30),
                vote_thread=100 + n, discussion_thread=200 + n)
        for n in (1, 2, 3)
    )
    ballots = []
    for d in days:
        talk = Thread(tid=d.discussion_thread, role="discussion", start=d.start, first_pid=1000 * d.number)
        for _ in range(9):
            talk.post("饺子", "发言")
        for _ in range(12 if d.number == 2 else 5):
            talk.post("包子", "发言")
        ballots += talk.ballots
    proposals = propose_cards(ballots, game(days=days), 3, RULES)
    span = {p.player for p in proposals if p.kind is ProposalKind.LURKING_SPAN}
    assert "饺子" in span and "包子" not in span


def test_propose_cards__a_day_without_a_discussion_thread_proposes_no_lurking():
    """Issue 11: a day configured without a discussion thread proposed a lurking card for
    every living player. 在未加快进程的单个讨论日不足五帖: a day without a discussion thread is
    no 讨论日; its no-vote proposals stand."""
    votes = Thread()
    votes.post("饺子", vote("包子"))
    talk = Thread(tid=TALK_TID, role="discussion", first_pid=500)
    talk.post("包子", "在别的帖子里说话")
    state = game(days=(DAY1, replace(DAY2, discussion_thread=None)))
    proposals = propose_cards(talk.ballots + votes.ballots, state, 2, RULES)
    kinds = {p.kind for p in proposals}
    assert ProposalKind.LURKING_DAY not in kinds and ProposalKind.LURKING_SPAN not in kinds
    assert ProposalKind.NO_VOTE in kinds
    counts = post_counts(talk.ballots + votes.ballots, state)
    assert counts.count(2, "包子", "discussion") == 0  # only the threads the day has are counted


def test_propose_cards__lurking_threads_are_a_rule_set_field():
    """A director may count the voting thread too (``lurk_threads``): a day with only a
    voting thread then proposes lurking from its posts."""
    votes = Thread()
    for _ in range(5):
        votes.post("饺子", "讨论都在投票帖里")
    state = game(days=(DAY1, replace(DAY2, discussion_thread=None)))
    rules = RULES.with_overrides(lurk_threads=["discussion", "vote"])
    lurking = {p.player for p in propose_cards(votes.ballots, state, 2, rules) if p.kind is ProposalKind.LURKING_DAY}
    assert "饺子" not in lurking and "包子" in lurking
    detail = next(p.detail for p in propose_cards(votes.ballots, state, 2, rules) if p.player == "包子")
    assert detail == "第2日投票帖发帖 0 帖（少于 5 帖）"


def test_propose_cards__details_are_chinese():
    """Issue 12 item 8: proposal details a director reads are Chinese."""
    talk, votes = talk_and_votes()
    for p in propose_cards(talk.ballots + votes.ballots, game(), 2, RULES):
        assert not any(c.isascii() and c.isalpha() for c in p.detail.split("http")[0].replace("FF0000", "")), p.detail


def test_propose_cards__dual_proposes_only_what_its_rules_punish():
    """双身份 003_…: no lurking rule, no duty to vote (所有未出局角色均可参与投票), no font or
    evidence rule; 已出局的角色不能继续参与讨论、投票 and 累计扣满12分者将予以罚下. Only 诈尸 is
    proposed, and with no card: the rules count points, and name no number."""
    talk, votes = talk_and_votes()
    talk.post("烧卖", "我死得好冤")
    state = game().put_out("烧卖", at(29, 9, 0), "夜晚出局")
    proposals = propose_cards(talk.ballots + votes.ballots, state, 2, PRESETS["dual"])
    assert [(p.kind, p.player, p.card) for p in proposals] == [(ProposalKind.ZOMBIE, "烧卖", None)]
    everything = propose_cards(talk.ballots + votes.ballots, state, 2, RULES)
    assert {p.kind for p in everything} == set(ProposalKind) - {ProposalKind.LURKING_SPAN}


def test_propose_cards__a_points_rule_set_suggests_no_colour():
    """A director who adds 未投票 to a points game's proposals gets no colour suggested."""
    talk, votes = talk_and_votes()
    rules = PRESETS["dual"].with_overrides(card_proposals=["no_vote"])
    proposals = propose_cards(talk.ballots + votes.ballots, game(), 2, rules)
    assert proposals and {(p.kind, p.card) for p in proposals} == {(ProposalKind.NO_VOTE, None)}


def test_rules__card_proposals_names_a_bad_kind():
    import pytest

    from engine.rules import RuleSetError

    with pytest.raises(RuleSetError, match="card_proposals: 'lurk' 不是可用的值（可用：lurking_day"):
        RULES.with_overrides(card_proposals=["lurk"])
