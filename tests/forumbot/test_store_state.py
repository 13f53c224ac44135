from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from forumbot.store import (
    CardColor,
    EventKind,
    ProposalDecidedError,
    ProposalState,
    Store,
    ThreadCursor,
)

CST = timezone(timedelta(hours=8))
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=CST)


@pytest.fixture
def store() -> Store:
    s = Store(":memory:")
    yield s
    s.close()


def test_store_state__cursor_is_saved_and_replaced(store: Store) -> None:
    assert store.cursor(12) is None
    store.save_cursor(ThreadCursor(12, 3, 345, 3, 10, T0))
    store.save_cursor(ThreadCursor(12, 4, 360, 4, 10, T0 + timedelta(minutes=2)))
    assert store.cursor(12) == ThreadCursor(12, 4, 360, 4, 10, T0 + timedelta(minutes=2))


def test_store_state__events_replay_in_order_and_are_audited(store: Store) -> None:
    store.append_event(1, EventKind.OUT, {"player": "汤圆", "why": "vote"}, actor="bot", at=T0)
    store.append_event(2, "sheriff", {"player": "饺子"}, actor="director", at=T0)
    store.append_event(1, EventKind.ALIAS, {"name": "饺子", "alias": "饺"}, actor="director", at=T0)
    assert [(e.day, e.kind) for e in store.events()] == [
        (1, EventKind.OUT), (2, EventKind.SHERIFF), (1, EventKind.ALIAS)
    ]
    assert [e.payload["player"] for e in store.events(day=1, kind="out")] == ["汤圆"]
    actions = [(a.actor, a.action) for a in store.audit_log(action_prefix="event.")]
    assert actions == [("bot", "event.out"), ("director", "event.sheriff"),
                       ("director", "event.alias")]


def test_store_state__unknown_event_kind_is_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="resurrect"):
        store.append_event(1, "resurrect", {}, actor="director", at=T0)


def test_store_state__night_result_latest_entry_stands(store: Store) -> None:
    assert store.night_result(2) is None
    store.record_night(2, ["包子", "汤圆"], actor="director", at=T0)
    store.record_night(2, ["汤圆", "包子"], actor="director", at=T0 + timedelta(minutes=1))
    assert store.night_result(2).out == ("汤圆", "包子")
    assert len(store.events(kind=EventKind.NIGHT)) == 2  # both entries kept


@pytest.mark.parametrize(
    ("second", "changed"),
    [
        pytest.param({"counts": {"包子": 3, "汤圆": 1}}, False, id="same"),
        pytest.param('{"counts":{"汤圆":1,"包子":3}}', False, id="same-as-json-other-key-order"),
        pytest.param({"counts": {"包子": 3, "汤圆": 2}}, True, id="changed"),
    ],
)
def test_store_state__save_tally_reports_change(store: Store, second: object, changed: bool) -> None:
    assert store.save_tally(2, {"counts": {"包子": 3, "汤圆": 1}}, at=T0) is True
    assert store.save_tally(2, second, at=T0 + timedelta(minutes=1)) is changed
    latest = store.tally(2)
    assert latest.version == (2 if changed else 1)
    assert store.tally(2, version=1).data == {"counts": {"包子": 3, "汤圆": 1}}
    assert store.tally(3) is None


def test_store_state__rulings_are_versioned_apart_from_tallies(store: Store) -> None:
    store.save_tally(2, {"a": 1}, at=T0)
    assert store.save_rulings(2, [{"pid": 5, "valid": False}], at=T0) is True
    assert store.rulings(2).data == [{"pid": 5, "valid": False}]
    assert store.tally(2).data == {"a": 1}


def test_store_state__card_proposal_accepted_enters_the_ledger(store: Store) -> None:
    proposal, created = store.propose_card("汤圆", "yellow", "no_vote", key="no_vote:2:汤圆",
                                           day=2, detail="第2天未投票", at=T0)
    again, created_again = store.propose_card("汤圆", "yellow", "no_vote", key="no_vote:2:汤圆",
                                              day=2, at=T0)
    assert (created, created_again, again.id) == (True, False, proposal.id)
    entry = store.accept_proposal(proposal.id, actor="director", at=T0)
    assert (entry.player, entry.color, entry.proposal_id) == ("汤圆", CardColor.YELLOW, proposal.id)
    assert store.proposal(proposal.id).state is ProposalState.ACCEPTED
    assert store.proposal(proposal.id).entry_id == entry.id
    assert store.cards(player="汤圆") == [entry]
    with pytest.raises(ProposalDecidedError):
        store.dismiss_proposal(proposal.id, actor="director", at=T0)


def test_store_state__dismissed_proposal_gives_no_card(store: Store) -> None:
    proposal, _ = store.propose_card("包子", "blue", "lurking", key="lurk:2:包子", at=T0)
    store.dismiss_proposal(proposal.id, actor="director", at=T0, why="请假")
    assert store.cards() == []
    assert store.proposals(state="dismissed")[0].why == "请假"
    with pytest.raises(ProposalDecidedError):
        store.accept_proposal(proposal.id, actor="director", at=T0)
    assert store.cards() == []


def test_store_state__meta_round_trips(store: Store) -> None:
    store.set_meta("game", "S10 第三局")
    store.set_meta("game", "S10 第四局")
    assert store.get_meta("game") == "S10 第四局"
    assert store.game_key == "S10 第四局"
