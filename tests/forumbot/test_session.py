"""The cookie jar file: 0600, reloaded after restart, never the password."""

from __future__ import annotations

import stat

import httpx

from forumbot.session import CookieStore, auth_cookie


def jar_with_login() -> httpx.Cookies:
    jar = httpx.Cookies()
    jar.set("yu57_2132_saltkey", "TZ4HuC44", domain="127.0.0.1", path="/")
    jar.set("yu57_2132_auth", "643ewGeAwfk%2BmJPL0", domain="127.0.0.1", path="/")
    return jar


def test_session__file_is_created_private(tmp_path):
    store = CookieStore(tmp_path / "sub" / "cookies.json")
    store.save(jar_with_login())
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [p.name for p in store.path.parent.iterdir()] == ["cookies.json"]  # no temp left


def test_session__reload_restores_auth_and_saltkey(tmp_path):
    store = CookieStore(tmp_path / "cookies.json")
    store.save(jar_with_login())
    fresh = httpx.Cookies()
    assert store.load(fresh) == 2
    assert auth_cookie(fresh) == "643ewGeAwfk%2BmJPL0"
    assert fresh.get("yu57_2132_saltkey") == "TZ4HuC44"


def test_session__missing_or_damaged_file_means_no_session(tmp_path):
    store = CookieStore(tmp_path / "cookies.json")
    assert store.load(httpx.Cookies()) == 0
    store.path.write_text("{not json")
    jar = httpx.Cookies()
    assert store.load(jar) == 0 and auth_cookie(jar) is None


def test_session__deleted_auth_cookie_is_not_a_session():
    jar = httpx.Cookies()
    jar.set("yu57_2132_auth", "deleted", domain="127.0.0.1")
    assert auth_cookie(jar) is None


def test_session__overwrite_keeps_mode(tmp_path):
    store = CookieStore(tmp_path / "cookies.json")
    store.save(jar_with_login())
    store.path.chmod(0o600)
    store.save(httpx.Cookies())
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.load(httpx.Cookies()) == 0
