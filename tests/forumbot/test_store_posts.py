from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.store import NaiveDatetimeError, Store, UnknownPostError
from parsers.models import ContentNotice, Font, Post, Quote, TimePrecision

CST = timezone(timedelta(hours=8))
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=CST)


def make_post(pid: int, text: str = "投票对象：包子\n投票理由：划水", *, floor: int | None = None,
              tid: int = 12, **kw: object) -> Post:
    base = Post(
        tid=tid,
        pid=pid,
        floor=floor if floor is not None else pid - 100,
        author="饺子",
        author_uid=7,
        posted_at=T0,
        time_precision=TimePrecision.SECOND,
        html=f"<div>{text}</div>",
        text=text,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "game.db")
    yield s
    s.close()


def test_store_posts__new_posts_are_reported_new(store: Store) -> None:
    result = store.record_posts([make_post(101), make_post(102)], seen_at=T0)
    assert result.new == [101, 102]
    assert result.edited == []


def test_store_posts__same_content_again_changes_nothing(store: Store) -> None:
    store.record_posts([make_post(101)], seen_at=T0)
    before = store.db.conn.total_changes
    result = store.record_posts([make_post(101)], seen_at=T0 + timedelta(minutes=5))
    assert (result.new, result.edited) == ([], [])
    assert store.db.conn.total_changes == before
    assert len(store.versions(101)) == 1


def test_store_posts__edit_keeps_first_text_and_adds_a_version(store: Store) -> None:
    store.record_posts([make_post(101)], seen_at=T0)
    edited = make_post(101, "投票对象：汤圆\n投票理由：划水", edited_by="饺子",
                       edited_at=T0 + timedelta(minutes=3))
    result = store.record_posts([edited], seen_at=T0 + timedelta(minutes=5))
    assert result.edited == [101]
    assert store.first_seen(101).text == "投票对象：包子\n投票理由：划水"
    assert store.latest(101) == edited
    versions = store.versions(101)
    assert [v.post.text for v in versions] == [make_post(101).text, edited.text]
    assert versions[1].seen_at == T0 + timedelta(minutes=5)
    row = next(store.db.query("SELECT * FROM post_versions WHERE pid = 101"))
    assert (row["edited_by"], row["edited_at"]) == ("饺子", "2026-11-30T20:03:00+08:00")
    assert store.edited_pids(12) == [101]


def test_store_posts__shifted_floor_is_not_an_edit(store: Store) -> None:
    store.record_posts([make_post(101, floor=5)], seen_at=T0)
    result = store.record_posts([make_post(101, floor=4)], seen_at=T0 + timedelta(hours=1))
    assert result.edited == []
    assert store.latest(101).floor == 4
    assert store.first_seen(101).floor == 5
    assert len(store.versions(101)) == 1


def test_store_posts__full_record_round_trips(store: Store) -> None:
    post = make_post(
        150,
        "改票对象：汤圆",
        quotes=(Quote(pid=120, tid=12, author="包子", quoted_at=T0 - timedelta(minutes=9),
                      text="投票对象：饺子"),
                Quote(pid=None, tid=None, author=None, quoted_at=None, text="手打引用")),
        fonts=(Font(color="red", size="6"), Font(size="24px")),
        links=("http://127.0.0.1/forum.php?mod=viewthread&tid=3",),
        images=("data/attachment/forum/a.jpg",),
        attachments=("证据.png",),
        notice=ContentNotice.MODERATION_PENDING,
        edited_by="管理员",
        edited_at=T0 + timedelta(seconds=1),
        time_precision=TimePrecision.MINUTE,
        source="api",
        author=None,
        author_uid=None,
    )
    store.record_posts([post], seen_at=T0)
    assert store.first_seen(150) == post
    assert store.latest(150) == post


def test_store_posts__thread_listing_is_in_floor_order_with_latest_versions(store: Store) -> None:
    store.record_posts(
        [make_post(103, floor=3), make_post(101, floor=1), make_post(102, floor=2),
         make_post(900, tid=99, floor=1)],
        seen_at=T0,
    )
    store.record_posts([make_post(102, "改过了", floor=2)], seen_at=T0 + timedelta(minutes=1))
    posts = store.posts_in_thread(12)
    assert [p.pid for p in posts] == [101, 102, 103]
    assert posts[1].text == "改过了"


def test_store_posts__unknown_pid_is_named(store: Store) -> None:
    with pytest.raises(UnknownPostError, match="pid 4242"):
        store.latest(4242)


def test_store_posts__naive_times_are_refused(store: Store) -> None:
    with pytest.raises(NaiveDatetimeError):
        store.record_posts([make_post(101)], seen_at=datetime(2026, 11, 30, 20, 0))
    assert not store.has_post(101)  # the transaction rolled back


def test_store_posts__survive_reopening(tmp_path: Path) -> None:
    with Store(tmp_path / "g.db") as s:
        s.record_posts([make_post(101)], seen_at=T0)
    with Store(tmp_path / "g.db") as s:
        assert s.first_seen(101) == make_post(101)


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(st.sampled_from(["投票对象：包子", "投票对象：汤圆", "弃权", "路过"]),
                      min_size=1, max_size=8))
def test_store_posts__versions_are_the_distinct_consecutive_sightings(texts: list[str]) -> None:
    with Store(":memory:") as s:
        for i, text in enumerate(texts):
            s.record_posts([make_post(101, text)], seen_at=T0 + timedelta(minutes=i))
        expected = [t for i, t in enumerate(texts) if i == 0 or texts[i - 1] != t]
        assert [v.post.text for v in s.versions(101)] == expected
        assert s.first_seen(101).text == texts[0]
        assert s.latest(101).text == texts[-1]
