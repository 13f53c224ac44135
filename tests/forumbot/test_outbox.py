from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from forumbot.discuz import ReplyResult
from forumbot.store.marker import find_marker_in_text
from forumbot.wording import draft_state_zh
from forumbot.store.outbox import (
    DraftKind,
    DraftState,
    InvalidTransitionError,
    Outbox,
    OutboxError,
    PublishHow,
    UnknownDraftError,
)
from forumbot.store import Store
from tests.forumbot.outbox_fakes import (
    FLOOD,
    RAISE_BEFORE_STORE,
    REFUSE,
    STORE_THEN_RAISE,
    FakeForum,
)

CST = timezone(timedelta(hours=8))
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=CST)
COUNT = "[b]计票[/b]\n包子 3票：饺子、汤圆、烧卖\n"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "game.db")
    s.set_meta("game", "测试局")
    yield s
    s.close()


@pytest.fixture
def outbox(store: Store) -> Outbox:
    return Outbox(store)


@pytest.fixture
def forum() -> FakeForum:
    f = FakeForum()
    yield f
    f.close()


@pytest.mark.parametrize(
    ("kind", "state", "approved_by"),
    [
        pytest.param(DraftKind.RUNNING_COUNT, DraftState.APPROVED, "bot", id="running-count-auto"),
        pytest.param(DraftKind.COUNT_REPLY, DraftState.APPROVED, "bot", id="count-reply-auto"),
        pytest.param(DraftKind.FINAL_COUNT, DraftState.DRAFT, None, id="final-count-manual"),
        pytest.param(DraftKind.ANNOUNCEMENT, DraftState.DRAFT, None, id="announcement-manual"),
        pytest.param(DraftKind.CARD_NOTICE, DraftState.DRAFT, None, id="card-notice-manual"),
    ],
)
def test_outbox__default_policies(outbox: Outbox, kind: DraftKind, state: DraftState,
                                  approved_by: str | None) -> None:
    draft = outbox.create_draft(kind, 12, COUNT, now=T0)
    assert (draft.state, draft.approved_by) == (state, approved_by)


def test_outbox__configured_policy_overrides_default(store: Store) -> None:
    outbox = Outbox(store, {"running_count": "manual", "final_count": "auto"})
    assert outbox.create_draft("running_count", 12, COUNT, now=T0).state is DraftState.DRAFT
    assert outbox.create_draft("final_count", 12, COUNT, now=T0).state is DraftState.APPROVED


def test_outbox__marker_is_committed_with_the_draft_and_unique(outbox: Outbox) -> None:
    a = outbox.create_draft("final_count", 12, COUNT, now=T0)
    b = outbox.create_draft("announcement", 11, "公示", now=T0)
    assert a.marker != b.marker
    assert a.marker.split("-")[2] == str(a.id)
    assert find_marker_in_text(a.message) == a.marker
    assert a.body == COUNT  # the marker is added when sending, never to the stored body


def test_outbox__dedupe_key_never_drafts_twice(outbox: Outbox) -> None:
    first = outbox.create_draft("final_count", 12, COUNT, now=T0, dedupe_key="final_count:day2")
    outbox.reject(first.id, "director", "wrong", now=T0)
    again = outbox.create_draft("final_count", 12, "other", now=T0, dedupe_key="final_count:day2")
    assert again.id == first.id
    assert again.state is DraftState.REJECTED
    assert len(outbox.drafts()) == 1


def test_outbox__new_running_count_supersedes_unpublished_ones(outbox: Outbox) -> None:
    old = outbox.create_draft("running_count", 12, "旧", now=T0)
    other_thread = outbox.create_draft("running_count", 13, "别的帖", now=T0)
    final = outbox.create_draft("final_count", 12, "终", now=T0)
    new = outbox.create_draft("running_count", 12, "新", now=T0 + timedelta(minutes=1))
    assert outbox.get(old.id).state is DraftState.SUPERSEDED
    assert outbox.get(old.id).superseded_by == new.id
    assert outbox.get(other_thread.id).state is DraftState.APPROVED
    assert outbox.get(final.id).state is DraftState.DRAFT
    assert [d.id for d in outbox.pending()] == [other_thread.id, final.id, new.id]


def test_outbox__manual_draft_waits_for_approval(outbox: Outbox, forum: FakeForum) -> None:
    draft = outbox.create_draft("final_count", 12, COUNT, now=T0)
    assert outbox.publish_pending(forum, T0) == []
    assert forum.posts() == []
    outbox.approve(draft.id, "director", now=T0)
    [outcome] = outbox.publish_pending(forum, T0)
    assert (outcome.how, outcome.state) == (PublishHow.SENT, DraftState.PUBLISHED)
    [(pid, tid, message)] = forum.posts()
    assert (outcome.pid, tid) == (pid, 12)
    assert message.startswith(COUNT.rstrip())
    assert outbox.get(draft.id).pid == pid


def test_outbox__director_edit_keeps_the_original(outbox: Outbox, forum: FakeForum) -> None:
    draft = outbox.create_draft("announcement", 11, "第二天公示\n出局：包子", now=T0)
    approved = outbox.approve(draft.id, "director", "第二天公示\n出局：包子（猎人）", now=T0)
    assert approved.edited
    assert approved.original_body == "第二天公示\n出局：包子"
    outbox.publish_pending(forum, T0)
    assert "出局：包子（猎人）" in forum.posts()[0][2]
    history = outbox.history(draft.id)
    assert [h.to_state for h in history] == [
        DraftState.DRAFT, DraftState.APPROVED, DraftState.PUBLISHING, DraftState.PUBLISHED
    ]
    assert history[1].actor == "director" and history[1].detail == {"edited": True}


def test_outbox__diff_against_last_published_of_same_kind_and_thread(
    outbox: Outbox, forum: FakeForum
) -> None:
    first = outbox.create_draft("final_count", 12, "包子 3票\n汤圆 1票", now=T0, day=1)
    assert "（此前未发布过）" in outbox.diff_against_last_published(first.id)
    outbox.approve(first.id, "director", now=T0)
    outbox.publish_pending(forum, T0)
    outbox.create_draft("final_count", 99, "另一帖", now=T0)  # other thread: not compared
    second = outbox.create_draft("final_count", 12, "包子 3票\n汤圆 2票", now=T0, day=2)
    diff = outbox.diff_against_last_published(second.id).splitlines()
    assert diff[0] == f"--- 已发布的 #{first.id}（pid {outbox.get(first.id).pid}）"
    assert "-汤圆 1票" in diff and "+汤圆 2票" in diff and " 包子 3票" in diff


@pytest.mark.parametrize(
    ("action", "state"),
    [
        pytest.param("approve", DraftState.PUBLISHED, id="approve-published"),
        pytest.param("reject", DraftState.PUBLISHED, id="reject-published"),
        pytest.param("approve", DraftState.REJECTED, id="approve-rejected"),
        pytest.param("retry", DraftState.APPROVED, id="retry-not-failed"),
    ],
)
def test_outbox__invalid_transitions_are_refused(
    outbox: Outbox, forum: FakeForum, action: str, state: DraftState
) -> None:
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    if state is DraftState.PUBLISHED:
        outbox.publish_pending(forum, T0)
    elif state is DraftState.REJECTED:
        outbox.reject(draft.id, "director", "no", now=T0)
    with pytest.raises(InvalidTransitionError, match=f"#{draft.id} 现在是「{draft_state_zh(state)}」"):
        if action == "retry":
            outbox.retry(draft.id, "director", now=T0)
        elif action == "approve":
            outbox.approve(draft.id, "director", "new", now=T0)
        else:
            outbox.reject(draft.id, "director", "late", now=T0)
    assert outbox.get(draft.id).state is state


def test_outbox__unknown_draft_and_empty_body_are_named(outbox: Outbox) -> None:
    with pytest.raises(UnknownDraftError, match="#77"):
        outbox.get(77)
    with pytest.raises(OutboxError, match="帖子内容不能为空"):
        outbox.create_draft("final_count", 12, "  \n", now=T0)


def test_outbox__refusal_fails_the_draft_until_retried(outbox: Outbox) -> None:
    forum = FakeForum(faults=[REFUSE])
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    [outcome] = outbox.publish_pending(forum, T0)
    assert (outcome.how, outcome.state) == (PublishHow.FAILED, DraftState.FAILED)
    failed = outbox.get(draft.id)
    assert "ThreadClosed" in failed.last_error and "本主题已关闭" in failed.last_error
    assert outbox.publish_pending(forum, T0) == []  # never silently retried or dropped
    assert draft.id in [d.id for d in outbox.pending()]
    outbox.retry(draft.id, "director", now=T0)
    [outcome] = outbox.publish_pending(forum, T0)
    assert outcome.how is PublishHow.SENT
    assert forum.calls == [("reply", 12), ("find_marker", 12), ("reply", 12)]
    assert len(forum.posts()) == 1


def test_outbox__flood_control_defers_without_failing(outbox: Outbox) -> None:
    forum = FakeForum(faults=[FLOOD])
    a = outbox.create_draft("count_reply", 12, "甲", now=T0)
    b = outbox.create_draft("count_reply", 12, "乙", now=T0)
    [outcome] = outbox.publish_pending(forum, T0)  # the round stops at the refusal
    assert (outcome.draft_id, outcome.how, outcome.state) == (a.id, PublishHow.DEFERRED,
                                                              DraftState.APPROVED)
    assert outbox.get(b.id).attempts == 0
    outcomes = outbox.publish_pending(forum, T0 + timedelta(seconds=20))
    assert [o.how for o in outcomes] == [PublishHow.SENT, PublishHow.SENT]
    assert len(forum.posts()) == 2


def test_outbox__dropped_after_store_is_found_by_marker_not_resent(outbox: Outbox) -> None:
    forum = FakeForum(faults=[STORE_THEN_RAISE])
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    [outcome] = outbox.publish_pending(forum, T0)
    assert (outcome.how, outcome.state) == (PublishHow.UNRESOLVED, DraftState.PUBLISHING)
    assert "connection dropped" in outbox.get(draft.id).last_error
    [outcome] = outbox.publish_pending(forum, T0 + timedelta(minutes=1))
    assert outcome.how is PublishHow.FOUND
    [(pid, _tid, _msg)] = forum.posts()
    assert outbox.get(draft.id).pid == pid
    assert [c[0] for c in forum.calls] == ["reply", "find_marker"]


def test_outbox__timeout_before_store_is_sent_again_after_looking(outbox: Outbox) -> None:
    forum = FakeForum(faults=[RAISE_BEFORE_STORE])
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    outbox.publish_pending(forum, T0)
    assert outbox.get(draft.id).state is DraftState.PUBLISHING
    [outcome] = outbox.recover(forum, T0)
    assert outcome.how is PublishHow.SENT
    assert [c[0] for c in forum.calls] == ["reply", "find_marker", "reply"]
    assert len(forum.posts_with_marker(draft.marker)) == 1
    assert outbox.get(draft.id).attempts == 2


def test_outbox__failed_lookup_never_sends(outbox: Outbox) -> None:
    forum = FakeForum(faults=[RAISE_BEFORE_STORE], find_fails=1)
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    outbox.publish_pending(forum, T0)
    [outcome] = outbox.publish_pending(forum, T0)
    assert outcome.how is PublishHow.UNRESOLVED
    assert [c[0] for c in forum.calls] == ["reply", "find_marker"]
    assert "looking for marker" in outbox.get(draft.id).last_error


def test_outbox__edit_in_place_edits_the_given_post(outbox: Outbox, forum: FakeForum) -> None:
    pid = forum.seed_post(12, "计票（随时更新）")
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0, edit_pid=pid)
    [outcome] = outbox.publish_pending(forum, T0)
    assert outcome.pid == pid
    [(_pid, _tid, message)] = forum.posts()
    assert find_marker_in_text(message) == draft.marker
    assert [c[0] for c in forum.calls] == ["edit"]


def test_outbox__moderated_reply_without_pid_waits_for_a_moderator(outbox: Outbox) -> None:
    class Moderated(FakeForum):
        def reply(self, tid: int, message: str, *, quote_pid: int | None = None) -> ReplyResult:
            super().reply(tid, message, quote_pid=quote_pid)
            return ReplyResult(None, moderated=True)

    forum = Moderated()
    draft = outbox.create_draft("count_reply", 12, COUNT, now=T0, quote_pid=150)
    [outcome] = outbox.publish_pending(forum, T0)
    # Issue 10 #3: held, not published — and never sent again.
    assert (outcome.state, outcome.pid, outcome.moderated) == (DraftState.PENDING_MODERATION, None, True)
    assert outbox.history(draft.id)[-1].detail == {"moderated": True, "pid": None, "since_pid": 0}
    assert outbox.publish_pending(forum, T0) == [] and len(forum.calls) == 1


def test_outbox__moderated_reply_with_pid_is_recorded_as_moderated(outbox: Outbox) -> None:
    # X3.5 names the pid of a held reply: {'pid':'24','reply_mod':'1'}. It is not visible.
    class ModeratedX35(FakeForum):
        def reply(self, tid: int, message: str, *, quote_pid: int | None = None) -> ReplyResult:
            return ReplyResult(super().reply(tid, message, quote_pid=quote_pid).pid, moderated=True)

    forum = ModeratedX35()
    draft = outbox.create_draft("count_reply", 12, COUNT, now=T0, quote_pid=150)
    [outcome] = outbox.publish_pending(forum, T0)
    assert outcome.moderated and outcome.pid is not None
    assert outcome.state is DraftState.PENDING_MODERATION
    assert outbox.history(draft.id)[-1].detail == {"moderated": True, "pid": outcome.pid, "since_pid": 0}


def test_outbox__every_transition_is_audited(outbox: Outbox, forum: FakeForum) -> None:
    draft = outbox.create_draft("final_count", 12, COUNT, now=T0)
    outbox.approve(draft.id, "director", now=T0)
    outbox.publish_pending(forum, T0)
    actions = [(a.actor, a.action) for a in outbox.store.audit_log(action_prefix="outbox.")]
    assert actions == [("bot", "outbox.draft"), ("director", "outbox.approved"),
                       ("bot", "outbox.publishing"), ("bot", "outbox.published")]


def test_outbox__failed_draft_may_be_edited_and_approved_again(outbox: Outbox) -> None:
    forum = FakeForum(faults=[REFUSE])
    draft = outbox.create_draft("card_notice", 12, "黄牌：汤圆", now=T0)
    outbox.approve(draft.id, "director", now=T0)
    outbox.publish_pending(forum, T0)
    assert outbox.get(draft.id).state is DraftState.FAILED
    outbox.approve(draft.id, "director", "黄牌：汤圆（第2天未投票）", now=T0)
    [outcome] = outbox.publish_pending(forum, T0)
    assert outcome.how is PublishHow.SENT
    assert forum.posts()[0][2].startswith("黄牌：汤圆（第2天未投票）")


def test_outbox__supersede_leaves_a_draft_being_published_alone(outbox: Outbox) -> None:
    forum = FakeForum(faults=[RAISE_BEFORE_STORE])
    old = outbox.create_draft("running_count", 12, "旧", now=T0)
    outbox.publish_pending(forum, T0)  # old is now "publishing": it may be on the forum
    new = outbox.create_draft("running_count", 12, "新", now=T0)
    assert outbox.get(old.id).state is DraftState.PUBLISHING
    outcomes = outbox.publish_pending(forum, T0)
    assert [(o.draft_id, o.how) for o in outcomes] == [(old.id, PublishHow.SENT),
                                                        (new.id, PublishHow.SENT)]
