"""The outbox's publish-time rendering (``Refresh``) and the edit-in-place fallback, on
the fake forum: what is rendered is committed with the claim, the marker stays, a body
the director edited is never replaced, and a refused edit becomes a new post exactly once
even when the process dies between the refusal and the new post."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from forumbot.discuz.errors import EditNotAllowed, PostNotFound
from forumbot.store.marker import find_marker_in_text, strip_marker
from forumbot.store.outbox import DraftState, Outbox, PublishHow, Refresh
from forumbot.store import Store
from tests.forumbot.outbox_fakes import FakeForum

CST = timezone(timedelta(hours=8))
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=CST)
COUNT = "[b]计票[/b]\n包子 1票\n剩余 3小时\n"
FRESH = "[b]计票[/b]\n包子 3票\n剩余 1小时\n"


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "game.db")
    s.set_meta("game", "测试局")
    yield s
    s.close()


@pytest.fixture
def outbox(store: Store) -> Outbox:
    return Outbox(store)


@pytest.fixture
def forum():
    f = FakeForum()
    yield f
    f.close()


def test_outbox_render__the_body_rendered_at_publishing_is_sent_and_kept(outbox, forum):
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    [outcome] = outbox.publish_pending(forum, T0, render=lambda d, now: Refresh(body=FRESH))
    assert outcome.how is PublishHow.SENT
    [(_pid, _tid, message)] = forum.posts()
    assert strip_marker(message).strip() == FRESH.strip()
    assert find_marker_in_text(message) == draft.marker
    done = outbox.get(draft.id)
    assert done.body == FRESH and not done.edited
    assert any(h.detail.get("rendered_at_publish") for h in outbox.history(draft.id))


def test_outbox_render__a_hand_edited_body_is_sent_as_edited(outbox, forum):
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    outbox.approve(draft.id, "导演", body=COUNT.replace("计票", "导演计票"), now=T0)
    outbox.publish_pending(forum, T0, render=lambda d, now: Refresh(body=FRESH, drop="too late"))
    [(_pid, _tid, message)] = forum.posts()
    assert "导演计票" in message and "包子 1票" in message


def test_outbox_render__line_endings_alone_are_not_an_edit(outbox, forum):
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    outbox.approve(draft.id, "导演", body=COUNT.replace("\n", "\r\n") + "  \n", now=T0)
    outbox.publish_pending(forum, T0, render=lambda d, now: Refresh(body=FRESH))
    [(_pid, _tid, message)] = forum.posts()
    assert "包子 3票" in message


def test_outbox_render__drop_supersedes_without_sending(outbox, forum):
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    [outcome] = outbox.publish_pending(forum, T0, render=lambda d, now: Refresh(drop="截止时间已过"))
    assert (outcome.how, outcome.state) == (PublishHow.SUPERSEDED, DraftState.SUPERSEDED)
    assert forum.posts() == [] and forum.calls == []
    assert outbox.history(draft.id)[-1].detail == {"why": "截止时间已过"}


def test_outbox_render__the_edit_target_is_chosen_at_publishing(outbox, forum):
    pid = forum.seed_post(12, "计票")
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0)
    [outcome] = outbox.publish_pending(forum, T0, render=lambda d, now: Refresh(body=FRESH, edit_pid=pid))
    assert outcome.pid == pid and [c[0] for c in forum.calls] == ["edit"]
    assert outbox.get(draft.id).edit_pid == pid


@pytest.mark.parametrize("refusal", [EditNotAllowed("抱歉，您没有权限编辑此帖", key="post_edit_nopermission"),
                                     EditNotAllowed("抱歉，超过了编辑时限", key="post_edit_timelimit"),
                                     PostNotFound("抱歉，指定的帖子不存在或已被删除", key="post_nonexistence")],
                         ids=["nopermission", "timelimit", "deleted"])
def test_outbox_render__a_refused_edit_becomes_one_new_post(outbox, refusal):
    class Refusing(FakeForum):
        def edit(self, tid, pid, message):
            self.calls.append(("edit", tid))
            raise refusal

    forum = Refusing()
    old = forum.seed_post(12, "计票")
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0, edit_pid=old)
    [outcome] = outbox.publish_pending(forum, T0)
    assert outcome.how is PublishHow.SENT and outcome.pid != old
    assert [c[0] for c in forum.calls] == ["edit", "reply"]
    assert forum.posts_with_marker(draft.marker) == [outcome.pid]
    done = outbox.get(draft.id)
    assert (done.state, done.pid, done.edit_pid) == (DraftState.PUBLISHED, outcome.pid, None)


def test_outbox_render__killed_between_the_refused_edit_and_the_new_post(outbox, store, tmp_path):
    """The refusal is committed first (edit_pid cleared): after a restart the draft is
    looked up by its marker and sent as a new post, once."""

    class Killed(BaseException):  # not caught by the outbox, as a SIGKILL is not
        pass

    class Refusing(FakeForum):
        def edit(self, tid, pid, message):
            raise EditNotAllowed("抱歉，您没有权限编辑此帖", key="post_edit_nopermission")

        def reply(self, tid, message, *, quote_pid=None):
            if self.kill_next:
                self.kill_next = False
                raise Killed  # the process died: nothing sent, nothing recorded after this
            return super().reply(tid, message, quote_pid=quote_pid)

    forum = Refusing(tmp_path / "forum.db")
    forum.kill_next = True
    old = forum.seed_post(12, "计票")
    draft = outbox.create_draft("running_count", 12, COUNT, now=T0, edit_pid=old)
    with pytest.raises(Killed):
        outbox.publish_pending(forum, T0)
    assert outbox.get(draft.id).state is DraftState.PUBLISHING
    assert outbox.get(draft.id).edit_pid is None, "the refusal was committed before the new post"
    restarted = Outbox(Store(tmp_path / "game.db"))
    [outcome] = restarted.recover(forum, T0)
    assert outcome.how is PublishHow.SENT
    assert len(forum.posts_with_marker(draft.marker)) == 1
    restarted.store.close()
