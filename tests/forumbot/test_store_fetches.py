"""The store's record of page reads (schema v5) and the history queries the evidence
export reads: what page of which thread was read when, with which pids."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
import sqlite_utils

from forumbot.store import SCHEMA_VERSION, Store, migrate, schema_version
from forumbot.store.records import RecordResult
from tests.forumbot.test_store_posts import T0, make_post


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "game.db")
    yield s
    s.close()


def _read(store: Store, posts, when, *, first_page=1, last_page=1, total=1, kind="poll") -> int:
    result = store.record_posts(posts, when)
    return store.record_fetch(12, kind=kind, first_page=first_page, last_page=last_page, total_pages=total,
                              pids=[p.pid for p in posts], result=result, started_at=when,
                              ended_at=when + timedelta(seconds=2))


def test_store_fetches__each_read_with_its_pages_times_and_pids(store):
    a, b = make_post(101), make_post(102)
    first = _read(store, [a], T0, kind="backfill")
    second = _read(store, [a, b], T0 + timedelta(minutes=10))
    rows = store.fetches(12)
    assert [r.id for r in rows] == [first, second]
    assert rows[0].kind == "backfill" and rows[0].pids == (101,) and rows[0].new_pids == (101,)
    assert rows[1].pids == (101, 102) and rows[1].new_pids == (102,) and rows[1].edited_pids == ()
    assert rows[1].started_at == T0 + timedelta(minutes=10) and rows[1].ended_at == rows[1].started_at + timedelta(seconds=2)
    assert rows[1].times == 1 and rows[1].repeat_until is None
    assert store.fetches(99) == []


def test_store_fetches__identical_idle_reads_extend_one_row(store):
    a = make_post(101)
    row = _read(store, [a], T0)
    for minutes in (10, 20, 30):
        assert _read(store, [a], T0 + timedelta(minutes=minutes)) == row
    (only,) = store.fetches(12)
    assert only.times == 4 and only.repeat_until == T0 + timedelta(minutes=30, seconds=2)
    assert only.started_at == T0 and only.new_pids == (101,)  # of the run's first read


def test_store_fetches__an_edit_a_new_page_or_another_kind_is_a_new_row(store):
    a = make_post(101)
    _read(store, [a], T0)
    _read(store, [replace(a, text="投票对象：月饼\n投票理由：改了")], T0 + timedelta(minutes=10))  # edited
    _read(store, [replace(a, text="投票对象：月饼\n投票理由：改了")], T0 + timedelta(minutes=20),
          first_page=1, last_page=2, total=2)  # the thread grew a page
    _read(store, [replace(a, text="投票对象：月饼\n投票理由：改了")], T0 + timedelta(minutes=30),
          first_page=1, last_page=2, total=2, kind="rescan")
    rows = store.fetches(12)
    assert len(rows) == 4
    assert rows[1].edited_pids == (101,) and rows[1].new_pids == ()
    assert [r.kind for r in rows] == ["poll", "poll", "poll", "rescan"]
    assert (rows[2].first_page, rows[2].last_page, rows[2].total_pages) == (1, 2, 2)


def test_store_fetches__record_result_default_is_not_shared(store):
    # a RecordResult with nothing new: the row says so (JSON lists, not NULL)
    store.record_fetch(12, kind="poll", first_page=1, last_page=1, total_pages=1, pids=[], result=RecordResult(),
                       started_at=T0, ended_at=T0)
    (row,) = store.fetches(12)
    assert row.pids == () and row.new_pids == () and row.edited_pids == ()


def test_store_history__every_version_with_when_it_was_first_seen(store):
    a = make_post(101)
    store.record_posts([a, make_post(102)], T0)
    store.record_posts([replace(a, text="投票对象：月饼\n投票理由：改了")], T0 + timedelta(minutes=10))
    store.record_posts([replace(a, text="投票对象：汤圆\n投票理由：又改了")], T0 + timedelta(minutes=20))
    store.record_posts([replace(a, text="投票对象：汤圆\n投票理由：又改了", floor=5)], T0 + timedelta(minutes=30))
    history = {h.pid: h for h in store.thread_history(12)}
    edited = history[101]
    assert edited.first["text"].startswith("投票对象：包子") and edited.first_seen_at == T0
    assert [(at - T0, v["text"][:7]) for at, v in edited.later] == [
        (timedelta(minutes=10), "投票对象：月饼"), (timedelta(minutes=20), "投票对象：汤圆")]
    # the latest record moved to floor 5 without a new version
    assert edited.latest["floor"] == 5 and edited.later[-1][1]["floor"] == 1
    assert edited.latest_seen_at == T0 + timedelta(minutes=20)
    assert history[102].later == () and history[102].latest == history[102].first
    # the same order as the live count's thread_versions
    assert [h.pid for h in store.thread_history(12)] == [f.pid for f, _ in store.thread_versions(12)]


def test_store_schema__a_v4_file_gets_the_reads_table(tmp_path: Path):
    path = tmp_path / "old.db"
    db = sqlite_utils.Database(path)
    assert migrate(db, target=4) == 4
    assert "page_fetches" not in db.table_names()
    db.close()
    with Store(path) as s:
        assert schema_version(s.db) == SCHEMA_VERSION >= 5
        assert s.fetches(12) == []
        s.record_posts([make_post(101)], T0)
        assert s.thread_history(12)[0].pid == 101
