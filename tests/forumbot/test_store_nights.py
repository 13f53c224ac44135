"""The nights' tables (forumbot.store.nights): actions filed once per PM, in game order by
their own id, retracted not deleted; PMs handled once; told exactly once; proposals
versioned by content and confirmed once; and nothing secret in the audit log."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from forumbot.store import ProposalStateError, Store

T = datetime(2026, 12, 1, 21, 40, tzinfo=timezone(timedelta(hours=8)))


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "g.sqlite")
    yield s
    s.close()


def test_nights__a_pm_action_is_filed_once_and_kept_in_order(store):
    a = store.add_night_action(1, "饺子", "kill", ["包子"], at=T, source="pm", entered_by="player(pm)",
                               now=T, pmid=41, text="杀人 包子")
    again = store.add_night_action(1, "饺子", "kill", ["包子"], at=T, source="pm", entered_by="player(pm)",
                                   now=T + timedelta(minutes=10), pmid=41, text="杀人 包子")
    b = store.add_night_action(1, "导演", "divine", ["汤圆"], at=T, source="director", entered_by="director",
                               now=T)
    assert again == a and [x.id for x in store.night_actions(1)] == [a.id, b.id]
    assert (a.targets, a.at, a.by_director, b.by_director) == (("包子",), T, False, True)
    store.retract_night_action(b.id, "录错了", actor="director", now=T)
    assert [x.id for x in store.night_actions(1)] == [a.id]
    assert store.night_actions(1, include_retracted=True)[1].retract_why == "录错了"
    with pytest.raises(ValueError):
        store.add_night_action(1, "饺子", "kill", [], at=T, source="qq", entered_by="x", now=T)


def test_nights__the_audit_log_says_an_action_came_not_what(store):
    store.add_night_action(1, "饺子", "kill", ["包子"], at=T, source="pm", entered_by="player(pm)", now=T, pmid=7,
                           text="杀人 包子")
    store.record_night_message(7, from_uid=3, player="饺子", at=T, text="杀人 包子", effect={"action": 1}, now=T)
    store.save_night_proposal(1, {"deaths": [{"player": "包子"}]}, now=T)
    text = repr([(e.actor, e.action, e.detail) for e in store.audit_log()])
    for word in ("包子", "kill", "杀人", "饺子"):
        assert word not in text


def test_nights__messages_and_told_keys_are_once(store):
    assert store.record_night_message(9, from_uid=3, player="饺子", at=T, text="杀人 包子", effect={}, now=T)
    assert not store.record_night_message(9, from_uid=3, player="饺子", at=T, text="x", effect={}, now=T)
    assert store.night_message_handled(9) and not store.night_message_handled(10)
    assert store.mark_night_told("answer:9", kind="answer", to="饺子", pm_id=5, now=T)
    assert not store.mark_night_told("answer:9", kind="answer", to="饺子", pm_id=6, now=T)
    assert store.night_told("answer:9") == 5 and store.night_told("answer:10") is None


def test_nights__proposals_are_versioned_by_content_and_confirmed_once(store):
    p1, new = store.save_night_proposal(1, {"deaths": ["包子"]}, now=T)
    assert new and p1.version == 1 and p1.state == "proposed"
    same, new = store.save_night_proposal(1, {"deaths": ["包子"]}, now=T + timedelta(minutes=10))
    assert not new and same.id == p1.id
    p2, new = store.save_night_proposal(1, {"deaths": []}, now=T + timedelta(minutes=20))
    assert new and p2.version == 2 and store.night_proposal(1, 1).state == "superseded"
    with pytest.raises(ProposalStateError, match="第2版"):
        store.decide_night_proposal(1, "confirmed", by="director", now=T, version=1)
    done = store.decide_night_proposal(1, "confirmed", by="director", now=T, version=2, events=[4, 5])
    assert (done.state, done.events) == ("confirmed", (4, 5))
    with pytest.raises(ProposalStateError, match="已经确认"):
        store.decide_night_proposal(1, "confirmed", by="director", now=T)
    kept, new = store.save_night_proposal(1, {"deaths": ["汤圆"]}, now=T + timedelta(hours=1))
    assert not new and kept.state == "confirmed"  # a decided night is not proposed again
    with pytest.raises(ProposalStateError, match="还没有"):
        store.decide_night_proposal(2, "confirmed", by="director", now=T)
    assert [p.night for p in store.night_proposals()] == [1]


def test_nights__it_survives_reopening(tmp_path):
    with Store(tmp_path / "g.sqlite") as s:
        s.add_night_action(2, "饺子", "kill", ["包子"], at=T, source="pm", entered_by="player(pm)", now=T, pmid=3)
    with Store(tmp_path / "g.sqlite") as s:
        assert [(a.night, a.actor, a.pmid) for a in s.night_actions()] == [(2, "饺子", 3)]


def test_nights__extensions_are_an_append_only_log_with_an_audit_and_survive_reopening(tmp_path):
    with Store(tmp_path / "g.sqlite") as s:
        a = s.add_night_extension(1, "witch", 30, at=T, actor="director", why="女巫说要晚点")
        b = s.add_night_extension(1, "witch", 15, at=T + timedelta(minutes=5), actor="director(pm)")
        assert (a.id, b.id) == (1, 2)
        audit = [(e.action, e.detail) for e in s.audit_log() if e.action == "night.extend"]
        assert audit == [("night.extend", {"extension": 1, "night": 1, "phase": "witch", "minutes": 30,
                                           "why": "女巫说要晚点"}),
                         ("night.extend", {"extension": 2, "night": 1, "phase": "witch", "minutes": 15, "why": ""})]
    with Store(tmp_path / "g.sqlite") as s:
        assert [(e.night, e.phase, e.minutes, e.at, e.actor) for e in s.night_extensions()] == [
            (1, "witch", 30, T, "director"), (1, "witch", 15, T + timedelta(minutes=5), "director(pm)")]


def test_nights__an_old_file_gains_the_extensions_table(tmp_path):
    from forumbot.store import SCHEMA_VERSION, migrate, schema_version
    import sqlite_utils

    db = sqlite_utils.Database(tmp_path / "old.sqlite")
    migrate(db, target=SCHEMA_VERSION - 1)
    assert "night_extensions" not in db.table_names()
    db.close()
    with Store(tmp_path / "old.sqlite") as s:
        assert schema_version(s.db) == SCHEMA_VERSION and s.night_extensions() == ()
