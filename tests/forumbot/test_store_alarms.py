"""The store's alarms table: one active alarm per key, raised again = refreshed (not
duplicated), cleared with a time (the row stays as history), every change audited,
secrets scrubbed, and an older store file migrates to it."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import sqlite_utils

from forumbot.store import SCHEMA_VERSION, Store, migrate, schema_version
from forumbot.store.schema import MIGRATIONS, _v6_alarms

T0 = datetime(2026, 12, 1, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "game.sqlite") as s:
        yield s


def test_store_alarms__raise_again_refreshes_the_one_active_alarm(store):
    first = store.raise_alarm("captcha_post", "captcha_post", "论坛要求验证码：…", at=T0, detail={"draft": 3})
    again = store.raise_alarm("captcha_post", "captcha_post", "论坛要求验证码：帖子 #4…",
                              at=T0 + timedelta(minutes=5), detail={"draft": 4})
    assert again.id == first.id and again.raised_at == T0  # the trouble started then
    assert again.text.endswith("#4…") and again.detail == {"draft": 4}
    assert again.updated_at == T0 + timedelta(minutes=5)
    assert [a.key for a in store.alarms()] == ["captcha_post"]
    assert store.alarm("captcha_post") == again


def test_store_alarms__cleared_alarms_are_history_and_a_new_one_is_new(store):
    raised = store.raise_alarm("forum_down", "forum_down", "论坛无法访问", at=T0,
                               detail={"down_since": T0.isoformat()})
    cleared = store.clear_alarm("forum_down", at=T0 + timedelta(minutes=20),
                                detail={"back_at": (T0 + timedelta(minutes=20)).isoformat()})
    assert cleared is not None and not cleared.active
    assert cleared.detail == {"down_since": T0.isoformat(), "back_at": (T0 + timedelta(minutes=20)).isoformat()}
    assert store.alarms() == [] and store.alarm("forum_down") is None
    assert store.clear_alarm("forum_down", at=T0) is None  # nothing active: nothing to clear
    again = store.raise_alarm("forum_down", "forum_down", "论坛无法访问", at=T0 + timedelta(hours=1))
    assert again.id != raised.id
    assert [a.id for a in store.alarms(active=None)] == [raised.id, again.id]
    assert [a.id for a in store.alarms(active=False)] == [raised.id]
    assert store.alarms(active=False, cleared_since=T0 + timedelta(minutes=21)) == []
    assert [a.kind for a in store.alarms(kind="forum_down")] == ["forum_down"]


def test_store_alarms__every_change_is_audited_and_secrets_scrubbed(store):
    store.register_secret("hunter2")
    store.raise_alarm("login_failed", "login", "登录失败：hunter2", at=T0, detail={"password": "hunter2"})
    store.raise_alarm("login_failed", "login", "登录失败（又一次）", at=T0)
    store.clear_alarm("login", at=T0, actor="operator")
    actions = [(e.actor, e.action) for e in store.audit_log(action_prefix="alarm.")]
    assert actions == [("bot", "alarm.raised"), ("bot", "alarm.updated"), ("operator", "alarm.cleared")]
    raw = "".join(str(r) for r in store.db.query("SELECT * FROM alarms"))
    assert "hunter2" not in raw and "hunter2" not in str([e.detail for e in store.audit_log()])


def test_store_alarms__one_active_row_per_key_even_in_sql(store):
    store.raise_alarm("site_closed", "site_closed", "论坛已关闭", at=T0)
    with pytest.raises(Exception):
        store.db.execute("INSERT INTO alarms (kind, key, text, raised_at, detail) VALUES "
                         "('site_closed', 'site_closed', 'x', ?, '{}')", [T0.isoformat()])


def test_store_alarms__a_file_from_before_alarms_migrates(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite_utils.Database(path)
    migrate(db, target=MIGRATIONS.index(_v6_alarms))  # the version just before alarms
    assert "alarms" not in db.table_names()
    db.close()
    with Store(path) as store:
        assert schema_version(store.db) == SCHEMA_VERSION
        store.raise_alarm("newbie", "newbie", "见习期", at=T0)
        assert [a.kind for a in store.alarms()] == ["newbie"]
