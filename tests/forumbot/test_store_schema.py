from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import sqlite_utils

from forumbot.store.outbox import Outbox
from forumbot.store import SCHEMA_VERSION, SchemaTooNewError, Store, migrate, schema_version

CST = timezone(timedelta(hours=8))
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=CST)

V1_POST = {
    "tid": 12, "pid": 101, "floor": 2, "author": "饺子", "author_uid": 7,
    "posted_at": "2026-11-30T20:00:00+08:00", "time_precision": "second",
    "html": "投票对象：包子", "text": "投票对象：包子", "edited_by": None, "edited_at": None,
    "quotes": [], "fonts": [], "links": [], "images": [], "attachments": [], "notice": None,
    "source": "html",
}


def make_v1_file(path: Path) -> str:
    """A file as the first release wrote it: v1 tables only, with a post and an event."""
    db = sqlite_utils.Database(path)
    assert migrate(db, target=1) == 1
    text = json.dumps(V1_POST, ensure_ascii=False)
    db["posts"].insert({
        "pid": 101, "tid": 12, "floor": 2, "author": "饺子", "author_uid": 7,
        "posted_at": V1_POST["posted_at"], "time_precision": "second",
        "first_text": "投票对象：包子", "first_html": "投票对象：包子",
        "first_seen_at": "2026-11-30T20:00:05+08:00", "first_json": text,
        "latest_json": text, "latest_hash": "x", "latest_seen_at": "2026-11-30T20:00:05+08:00",
    })
    db["events"].insert({"day": 1, "kind": "out", "payload": '{"player": "汤圆"}',
                         "actor": "director", "at": "2026-11-30T21:00:00+08:00"})
    store_id = db["meta"].get("store_id")["value"]
    db.close()
    return store_id


def test_store_schema__new_file_is_at_the_current_version_in_wal_mode(tmp_path: Path) -> None:
    with Store(tmp_path / "g.db") as s:
        assert schema_version(s.db) == SCHEMA_VERSION
        assert s.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert [r["version"] for r in s.db.query("SELECT version FROM schema_version")] == list(
            range(1, SCHEMA_VERSION + 1)
        )


def test_store_schema__v1_file_is_migrated_keeping_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store_id = make_v1_file(path)
    with Store(path) as s:
        assert schema_version(s.db) == SCHEMA_VERSION
        assert s.first_seen(101).text == "投票对象：包子"
        assert [e.payload for e in s.events()] == [{"player": "汤圆"}]
        assert s.get_meta("store_id") == store_id
        # the tables later migrations added work
        assert s.save_tally(1, {"包子": 3}, at=T0) is True
        draft = Outbox(s).create_draft("final_count", 12, "票数", now=T0, day=1)
        assert draft.marker.endswith("-1-f1")
        # the file got its state id on the way (schema 9), and the marker carries it
        assert len(s.state_id) == 6 and f"-{s.state_id}-" in draft.marker


def test_store_schema__opening_twice_does_not_migrate_again(tmp_path: Path) -> None:
    Store(tmp_path / "g.db").close()
    with Store(tmp_path / "g.db") as s:
        count = s.db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0]
        assert count == SCHEMA_VERSION


def test_store_schema__file_from_a_newer_forumbot_is_refused(tmp_path: Path) -> None:
    Store(tmp_path / "g.db").close()
    db = sqlite_utils.Database(tmp_path / "g.db")
    db["schema_version"].insert({"version": SCHEMA_VERSION + 1, "applied": "future"})
    db.close()
    with pytest.raises(SchemaTooNewError, match="新；请升级 forumbot"):
        Store(tmp_path / "g.db")


def test_store_schema__failed_migration_leaves_the_file_at_its_old_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from forumbot.store import schema

    make_v1_file(tmp_path / "old.db")

    def broken(db: sqlite_utils.Database) -> None:
        db["snapshots"].create({"id": int}, pk="id")
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(schema, "MIGRATIONS", (schema.MIGRATIONS[0], broken, *schema.MIGRATIONS[2:]))
    with pytest.raises(RuntimeError, match="disk on fire"):
        Store(tmp_path / "old.db")
    db = sqlite_utils.Database(tmp_path / "old.db")
    assert schema_version(db) == 1
    assert "snapshots" not in db.table_names()
