"""Issue 18 #5 on the desk: the alarm for another state's posts offers 接管 (with the
director's confirmation that the old database is lost) and 这是副本."""

from __future__ import annotations

from datetime import timedelta

from forumbot.game.provenance import settle_alarms
from forumbot.store.marker import make_marker
from forumbot.store import STATE_CONFLICT
from tests.forumbot.test_desk import START, VOTE_TID, Desk, _post, desk  # noqa: F401 - the fixture

__all__ = ["desk"]


def _foreign_state(desk: Desk) -> None:
    rt = desk.runtime()
    try:
        marker = make_marker(game=rt.outbox.game, state="abcdef", draft_id=3, kind="running_count", day=1)
        post = _post(150, 9, "计票机器人", f"【计票】第1日\n机器人标记 {marker}", 100)
        rt.store.record_posts([post], seen_at=START + timedelta(hours=2))
        settle_alarms(rt, desk.clock.now())
        assert rt.store.alarm(STATE_CONFLICT) is not None
    finally:
        rt.close()


def _alarm(desk: Desk):
    rt = desk.runtime()
    try:
        return rt.store.alarm(STATE_CONFLICT)
    finally:
        rt.close()


def test_desk_identity__the_alarm_offers_both_answers(desk: Desk) -> None:
    _foreign_state(desk)
    page = desk.client.get("/").get_data(as_text=True)
    assert 'id="adopt-state"' in page and 'id="mark-copy"' in page
    assert "另一份状态" in page and "<code>forumbot adopt" in page


def test_desk_identity__adopt_asks_for_the_confirmation_then_takes_over(desk: Desk) -> None:
    _foreign_state(desk)
    refused = desk.post("/state/adopt", {})
    assert refused.status_code == 302
    assert "请先勾选" in desk.client.get("/").get_data(as_text=True)
    assert _alarm(desk) is not None
    desk.post("/state/adopt", {"lost": "yes"})
    page = desk.client.get("/").get_data(as_text=True)
    assert "已接管 1 篇帖子" in page
    assert _alarm(desk) is None
    rt = desk.runtime()
    try:
        assert [e.actor for e in rt.store.audit_log(action_prefix="identity.")] == ["director"]
    finally:
        rt.close()


def test_desk_identity__a_copy_keeps_the_alarm_and_stops_offering_it(desk: Desk) -> None:
    _foreign_state(desk)
    desk.post("/state/copy", {})
    alarm = _alarm(desk)
    assert alarm is not None and alarm.detail["copy"] is True
    page = desk.client.get("/").get_data(as_text=True)
    assert "已记下这份配置是副本" in page
    assert 'id="mark-copy"' not in page and 'id="adopt-state"' in page
