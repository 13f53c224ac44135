"""New threads through the outbox: drafted with a board and a subject, approved (the
director may edit both), opened exactly once, and the forum's tid recorded in the store.

The crash tests SIGKILL a real child process — at the moment the forum stored the thread
and before the outbox recorded its tid, and at random SQL statements and forum steps —
and the next life must find the thread by its marker on the board, never open a second.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import signal
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from forumbot.discuz.errors import NewbiePeriod
from forumbot.store import Store
from forumbot.store.marker import read_marker
from forumbot.store.outbox import DraftKind, DraftState, Outbox, OutboxError, PublishHow
from tests.forumbot.outbox_fakes import FLOOD, OK, RAISE_BEFORE_STORE, STORE_THEN_RAISE, FakeForum

CST = timezone(timedelta(hours=8))
T0 = datetime(2026, 12, 2, 9, 30, tzinfo=CST)
FID = 3
FORK = multiprocessing.get_context("fork")
DAYS = [(2, "【饺子村】第二日 投票帖", "第二日白天开始，请在本帖投票。\n投票对象：玩家名"),
        (2, "【饺子村】第二日 讨论帖", "第二日讨论在本帖进行。"),
        (3, "【饺子村】第三日 投票帖", "第三日白天开始，请在本帖投票。\n投票对象：玩家名")]


@pytest.fixture
def store() -> Store:
    with Store(":memory:") as s:
        yield s


def approved_thread(outbox: Outbox, day: int = 2, subject: str = DAYS[0][1], body: str = DAYS[0][2],
                    key: str | None = None):
    draft = outbox.create_new_thread(FID, subject, body, now=T0, day=day,
                                     dedupe_key=key or f"new_thread:day{day}:{subject}")
    return outbox.approve(draft.id, "director", now=T0)


def test_new_thread__published_once_with_its_tid_recorded(store):
    outbox, forum = Outbox(store), FakeForum()
    draft = outbox.create_new_thread(FID, "【饺子村】第二日  投票帖", DAYS[0][2], now=T0, day=2,
                                     dedupe_key="new_thread:day2:vote")
    assert draft.kind is DraftKind.NEW_THREAD and draft.state is DraftState.DRAFT  # the director approves
    assert draft.tid == 0 and draft.fid == FID and draft.subject == "【饺子村】第二日 投票帖"
    assert outbox.thread_of(draft.id) is None
    assert outbox.publish_pending(forum, T0) == []  # not approved: nothing sent
    outbox.approve(draft.id, "director", now=T0)
    [outcome] = outbox.publish_pending(forum, T0)
    assert outcome.how is PublishHow.SENT and outcome.state is DraftState.PUBLISHED
    [(tid, fid, subject, first_pid)] = forum.threads()
    assert (fid, subject) == (FID, "【饺子村】第二日 投票帖") and tid >= 1000
    done = outbox.get(draft.id)
    assert (done.tid, done.pid, outcome.tid) == (tid, first_pid, tid)
    assert outbox.thread_of(draft.id) == tid
    message = forum.message(first_pid)
    assert message.startswith(DAYS[0][2]) and read_marker(message).kind == "new_thread"
    assert read_marker(message).day == 2
    assert outbox.publish_pending(forum, T0) == []  # never again
    assert len(forum.threads()) == 1


def test_new_thread__the_same_day_thread_is_drafted_once(store):
    outbox = Outbox(store)
    first = outbox.create_new_thread(FID, DAYS[0][1], DAYS[0][2], now=T0, day=2, dedupe_key="nt:day2:vote")
    again = outbox.create_new_thread(FID, DAYS[0][1], "另一种写法", now=T0, day=2, dedupe_key="nt:day2:vote")
    assert again.id == first.id and again.body == DAYS[0][2]


def test_new_thread__the_directors_subject_and_body_go_out(store):
    outbox, forum = Outbox(store), FakeForum()
    draft = outbox.create_new_thread(FID, DAYS[0][1], DAYS[0][2], now=T0, day=2)
    approved = outbox.approve(draft.id, "director", "导演改过的开帖内容", subject="【饺子村】D2 投票", now=T0)
    assert approved.edited and approved.original_subject == DAYS[0][1]
    outbox.publish_pending(forum, T0)
    [(_tid, _fid, subject, pid)] = forum.threads()
    assert subject == "【饺子村】D2 投票" and forum.message(pid).startswith("导演改过的开帖内容")
    with pytest.raises(OutboxError):
        outbox.approve(outbox.create_draft("announcement", 12, "公示", now=T0).id, "director",
                       subject="公示不是新帖", now=T0)


def test_new_thread__bad_drafts_are_refused_in_chinese(store):
    outbox = Outbox(store)
    for fid, subject, body in [(FID, "  ", "内容"), (FID, "标题", "\n"), (0, "标题", "内容")]:
        with pytest.raises(OutboxError) as info:
            outbox.create_new_thread(fid, subject, body, now=T0)
        assert "新帖" in str(info.value)


@pytest.mark.parametrize("fault", [STORE_THEN_RAISE, RAISE_BEFORE_STORE])
def test_new_thread__an_answer_lost_is_looked_up_on_the_board_before_any_resend(store, fault):
    outbox, forum = Outbox(store), FakeForum(faults=[OK, fault])
    other = approved_thread(outbox, 2, *DAYS[1][1:])  # opened first: a known thread, skipped in the search
    draft = approved_thread(outbox)
    sent, lost = outbox.publish_pending(forum, T0)
    assert sent.how is PublishHow.SENT and lost.how is PublishHow.UNRESOLVED
    assert outbox.get(draft.id).state is DraftState.PUBLISHING and outbox.thread_of(draft.id) is None
    [again] = outbox.publish_pending(forum, T0 + timedelta(minutes=1))
    assert again.how is (PublishHow.FOUND if fault == STORE_THEN_RAISE else PublishHow.SENT)
    assert [c for c in forum.calls if c[0] == "find_thread_marker"] == [("find_thread_marker", FID)]
    for d in (other, draft):
        done = outbox.get(d.id)
        assert done.state is DraftState.PUBLISHED
        assert forum.threads_with_marker(done.marker) == [done.tid] and outbox.thread_of(d.id) == done.tid
    assert len(forum.threads()) == 2


def test_new_thread__refusals_fail_or_wait_like_replies(store):
    outbox = Outbox(store)
    draft = approved_thread(outbox)

    class Newbie(FakeForum):
        def new_thread(self, fid, subject, message):
            raise NewbiePeriod("抱歉，您目前处于见习期间", key="post_newbie_span")

    [outcome] = outbox.publish_pending(Newbie(), T0)
    assert outcome.how is PublishHow.FAILED and isinstance(outcome.refusal, NewbiePeriod)
    outbox.retry(draft.id, "director", now=T0)
    forum = FakeForum(faults=[FLOOD])
    [deferred] = outbox.publish_pending(forum, T0)
    assert deferred.how is PublishHow.DEFERRED and outbox.get(draft.id).state is DraftState.APPROVED
    [sent] = outbox.publish_pending(forum, T0 + timedelta(seconds=20))
    assert sent.state is DraftState.PUBLISHED and len(forum.threads()) == 1


def test_new_thread__held_for_moderation_is_never_sent_again(store):
    outbox = Outbox(store)
    draft = approved_thread(outbox)

    class Held(FakeForum):
        def new_thread(self, fid, subject, message):
            result = super().new_thread(fid, subject, message)
            return type(result)(tid=None, pid=None, moderated=True)  # 7.2 names no tid

    forum = Held()
    [outcome] = outbox.publish_pending(forum, T0)
    assert outcome.state is DraftState.PENDING_MODERATION and outcome.moderated
    assert outbox.thread_of(draft.id) is None
    assert outbox.publish_pending(forum, T0) == []
    [(tid, _fid, _subject, pid)] = forum.threads()
    released = outbox.released_thread(draft.id, tid, pid, now=T0)
    assert released.state is DraftState.PUBLISHED and outbox.thread_of(draft.id) == tid


# ------------------------------------------------------------------ kill -9


def _worker(workdir: str, kill_at: int | str | None, fault_seed: int) -> None:
    """One life of the publishing process. Never returns normally when killed."""
    ticks = 0

    def tick(name: str) -> None:
        nonlocal ticks
        ticks += 1
        if kill_at == ticks or kill_at == name:
            os.kill(os.getpid(), signal.SIGKILL)

    store = Store(Path(workdir) / "game.db")
    store.db.conn.set_trace_callback(tick)
    rng = random.Random(fault_seed)
    faults = [rng.choice([OK, OK, OK, RAISE_BEFORE_STORE, STORE_THEN_RAISE]) for _ in range(40)]
    forum = FakeForum(Path(workdir) / "forum.db", faults=faults, on_event=tick)
    forum.conn.set_trace_callback(tick)
    outbox = Outbox(store)
    outbox.recover(forum, T0)
    for round_ in range(40):
        outbox.publish_pending(forum, T0 + timedelta(seconds=round_))
        if not outbox.drafts(DraftState.APPROVED, DraftState.PUBLISHING):
            break
    store.db.conn.set_trace_callback(None)
    forum.conn.set_trace_callback(None)
    (Path(workdir) / "ticks").write_text(str(ticks))


def run_life(workdir: Path, kill_at: int | str | None, fault_seed: int) -> int:
    process = FORK.Process(target=_worker, args=(str(workdir), kill_at, fault_seed))
    process.start()
    process.join(60)
    assert process.exitcode is not None, "publisher process hung"
    return process.exitcode


def set_up(workdir: Path) -> list[int]:
    FakeForum(workdir / "forum.db").close()
    with Store(workdir / "game.db") as store:
        outbox = Outbox(store)
        ids = [approved_thread(outbox, day, subject, body).id for day, subject, body in DAYS]
        ids.append(outbox.create_draft("running_count", 1000, "计票 第二日", now=T0).id)  # a reply beside them
    return ids


def assert_each_thread_opened_once(workdir: Path, ids: list[int]) -> None:
    forum = FakeForum(workdir / "forum.db")
    with Store(workdir / "game.db") as store:
        outbox = Outbox(store)
        for draft_id in ids[:-1]:
            draft = outbox.get(draft_id)
            assert draft.state is DraftState.PUBLISHED, (draft.id, draft.state, draft.last_error)
            assert forum.threads_with_marker(draft.marker) == [draft.tid], draft
            assert outbox.thread_of(draft.id) == draft.tid
            tid, _fid, subject, pid = next(t for t in forum.threads() if t[0] == draft.tid)
            assert (subject, pid) == (draft.subject, draft.pid)
            assert forum.message(pid).startswith(draft.body)
        count = outbox.get(ids[-1])
        assert count.state is DraftState.PUBLISHED and forum.posts_with_marker(count.marker) == [count.pid]
    assert len(forum.threads()) == len(DAYS)
    forum.close()


@pytest.mark.parametrize("kill_at", ["thread:stored", "thread:before", "findthread:before"])
def test_new_thread_crash__killed_at_a_named_moment(tmp_path: Path, kill_at: str) -> None:
    ids = set_up(tmp_path)
    fault_seed = 1 if kill_at == "findthread:before" else 0
    if kill_at == "findthread:before":  # a lookup happens only after an attempt went astray
        assert run_life(tmp_path, "thread:stored", 0) == -signal.SIGKILL
    assert run_life(tmp_path, kill_at, fault_seed) == -signal.SIGKILL
    assert run_life(tmp_path, None, 2) == 0
    assert_each_thread_opened_once(tmp_path, ids)


def test_new_thread_crash__killed_after_the_forum_stored_it_finds_it_by_marker(tmp_path: Path) -> None:
    ids = set_up(tmp_path)
    assert run_life(tmp_path, "thread:stored", 0) == -signal.SIGKILL
    forum = FakeForum(tmp_path / "forum.db")
    [(tid, _fid, _subject, _pid)] = forum.threads()  # on the forum, not in the store
    forum.close()
    with Store(tmp_path / "game.db") as store:
        draft = Outbox(store).get(ids[0])
        assert draft.state is DraftState.PUBLISHING and draft.tid == 0
    assert run_life(tmp_path, None, 0) == 0
    with Store(tmp_path / "game.db") as store:
        outbox = Outbox(store)
        assert outbox.get(ids[0]).tid == tid
        assert any(h.detail.get("found_by_marker") for h in outbox.history(ids[0]))
    assert_each_thread_opened_once(tmp_path, ids)


def test_new_thread_crash__random_kills(tmp_path: Path) -> None:
    rng = random.Random(20261202)
    for scenario in range(6):
        workdir = tmp_path / f"game{scenario}"
        workdir.mkdir()
        ids = set_up(workdir)
        for _life in range(2):
            fault_seed = rng.randrange(1000)
            scratch = tmp_path / "scratch"
            if scratch.exists():
                shutil.rmtree(scratch)
            shutil.copytree(workdir, scratch)
            assert run_life(scratch, None, fault_seed) == 0
            total = int((scratch / "ticks").read_text())
            kill_at = rng.randint(1, total)
            assert run_life(workdir, kill_at, fault_seed) == -signal.SIGKILL, kill_at
        assert run_life(workdir, None, rng.randrange(1000)) == 0
        assert_each_thread_opened_once(workdir, ids)


def test_new_thread__screens_and_alarms_say_the_board_and_subject_not_thread_0(store):
    from forumbot.discuz.errors import NoPermission
    from forumbot.game.alarms import moderation_text, posting_text
    from forumbot.wording import draft_place_zh

    outbox = Outbox(store)
    draft = approved_thread(outbox)
    place = draft_place_zh(draft)
    assert place == f"版块 {FID} 的新帖「{DAYS[0][1]}」" and "主题 0" not in place
    refusal = NoPermission("抱歉，本版块只有特定用户组可以发新主题", key="post_forum_newthread_nopermission")
    kind, key, text = posting_text(refusal, draft_id=draft.id, tid=0, kind="new_thread", generation="x3",
                                   place=place)
    assert "发新帖的权限" in text and place in text and "主题 0" not in text and key.endswith(str(draft.id))
    held = moderation_text(draft_id=draft.id, tid=0, kind="new_thread", generation="7.2", place=place)
    assert place in held and "主题 0" not in held
    outbox.publish_pending(FakeForum(), T0)
    assert draft_place_zh(outbox.get(draft.id)).endswith(f"，主题 {outbox.get(draft.id).tid}")
