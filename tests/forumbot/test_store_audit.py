from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from forumbot.store.outbox import Outbox
from forumbot.store import REDACTED, SecretKeyError, Store, is_secret_key

CST = timezone(timedelta(hours=8))
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=CST)
PASSWORD = "hunter2-密码-Zq9"


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("password", True), ("FORUMBOT_PASSWORD", True), ("password_file", True),
        ("client_secret", True), ("auth", True), ("auth_token", True), ("cookie", True),
        ("saltkey", True), ("author", False), ("passage", False), ("tid", False),
        ("reason", False), ("author_uid", False),
    ],
)
def test_store_audit__secret_key_names(key: str, secret: bool) -> None:
    assert is_secret_key(key) is secret


def raw_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_store_audit__password_never_reaches_the_file(tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    store = Store(path)
    store.register_secret(PASSWORD)
    store.audit("director", "login", {"user": "计票机器人", "password": PASSWORD}, at=T0)
    store.audit("bot", "http", {"form": {"username": "bot", "pw": [PASSWORD]},
                                "request": f"POST password={PASSWORD}&x=1"}, at=T0)
    store.save_config_snapshot(
        {"forum": {"base_url": "http://127.0.0.1:8080/"},
         "bot": {"user": "计票机器人", "password": PASSWORD, "secret_answer": PASSWORD}},
        at=T0,
    )
    with pytest.raises(SecretKeyError):
        store.set_meta("password", PASSWORD)
    store.set_meta("note", f"logged in with {PASSWORD}")
    outbox = Outbox(store)
    draft = outbox.create_draft("announcement", 12, "公示", now=T0)
    outbox.reject(draft.id, "director", f"oops {PASSWORD}", now=T0)
    encoded = [PASSWORD.encode(), PASSWORD.encode("utf-16-le"), b"hunter2"]
    assert not any(e in raw_bytes(path) for e in encoded)
    store.close()
    assert not any(e in raw_bytes(path) for e in encoded)
    # and what was written still says what happened
    with Store(path) as again:
        log = again.audit_log()
        assert log[0].detail == {"user": "计票机器人", "password": REDACTED}
        assert log[1].detail["request"] == f"POST password={REDACTED}&x=1"
        assert again.get_meta("note") == f"logged in with {REDACTED}"


def test_store_audit__secret_named_keys_are_redacted_without_being_told(tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    with Store(path) as store:  # no register_secret: the key names alone must suffice
        store.audit("director", "login", {"bot": {"password": PASSWORD, "cookie": PASSWORD}},
                    at=T0)
        store.save_config_snapshot({"bot": {"password": PASSWORD}}, at=T0)
        assert store.audit_log()[0].detail == {"bot": {"password": REDACTED, "cookie": REDACTED}}
        assert PASSWORD not in store.get_meta("config_json")
    assert b"hunter2" not in raw_bytes(path)


def test_store_audit__is_append_only_and_ordered(tmp_path: Path) -> None:
    with Store(tmp_path / "g.db") as store:
        first = store.audit("director", "out", {"player": "汤圆"}, at=T0)
        second = store.audit("bot", "tally", {"day": 2}, at=T0 + timedelta(seconds=1))
        assert second > first
        assert [a.action for a in store.audit_log()] == ["out", "tally"]
        assert [a.action for a in store.audit_log(since_id=first)] == ["tally"]


def test_store_audit__config_hash_changes_only_with_the_config() -> None:
    with Store(":memory:") as store:
        h1 = store.save_config_snapshot({"game": {"ruleset": "s10"}}, at=T0)
        h2 = store.save_config_snapshot({"game": {"ruleset": "s10"}}, at=T0)
        h3 = store.save_config_snapshot({"game": {"ruleset": "s09"}}, at=T0)
        assert h1 == h2 != h3
        assert store.get_meta("config_hash") == h3
        assert len(store.audit_log(action_prefix="config.")) == 2
