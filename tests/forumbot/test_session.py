"""The cookie jar file: 0600, reloaded after restart, never the password."""

from __future__ import annotations

import errno
import json
import logging
import os
import stat

import httpx
import pytest

from forumbot.discuz import DiscuzClient
from forumbot.discuz.session import CookieStore, auth_cookie


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


# ---------------------------------------------------------------- files a director can break



def _one_warning(caplog, path) -> str:
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1, lines
    assert str(path) in lines[0]
    return lines[0]


def test_session__random_bytes_are_ignored_with_one_line(tmp_path, caplog):
    path = tmp_path / "cookies.json"
    path.write_bytes(os.urandom(512) + b"\xff\xfe")
    jar = httpx.Cookies()
    assert CookieStore(path).load(jar) == 0 and auth_cookie(jar) is None
    assert "不是 cookie 文件" in _one_warning(caplog, path)


def test_session__a_folder_where_the_file_should_be(tmp_path, caplog):
    path = tmp_path / "cookies.json"
    path.mkdir()
    store = CookieStore(path)
    assert store.load(httpx.Cookies()) == 0
    assert store.save(jar_with_login()) is False
    assert store.save(jar_with_login()) is False  # said once, not at every save
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 2 and all(str(path) in line and "文件夹" in line for line in lines)
    assert path.is_dir() and list(path.iterdir()) == []


def test_session__full_disk_is_one_line_and_no_temp_file_left(tmp_path, caplog, monkeypatch):
    path = tmp_path / "cookies.json"
    real_dump = json.dump

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(json, "dump", full)
    store = CookieStore(path)
    assert store.save(jar_with_login()) is False
    assert store.save(jar_with_login()) is False
    line = _one_warning(caplog, path)
    assert "磁盘已满" in line and "请腾出磁盘空间" in line
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(json, "dump", real_dump)
    assert store.save(jar_with_login()) is True  # space again: saved


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere: no permission error to see")
def test_session__unwritable_folder(tmp_path, caplog):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        assert CookieStore(folder / "cookies.json").save(jar_with_login()) is False
        assert "可写" in _one_warning(caplog, folder / "cookies.json")
    finally:
        folder.chmod(0o700)


def test_session__read_only_folder_is_reported_like_a_full_disk(tmp_path, caplog, monkeypatch):
    # Runs as root too: the kernel's answer for a read-only disk, as mkstemp would raise it.
    import tempfile

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    assert CookieStore(tmp_path / "cookies.json").save(jar_with_login()) is False
    assert "只读" in _one_warning(caplog, tmp_path / "cookies.json")


def test_session__client_goes_on_without_a_usable_cookie_file(tmp_path, caplog):
    """A folder in the cookie file's place: the client logs in, says so once, and reads."""
    from tests.forumbot.captured import Router

    path = tmp_path / "cookies.json"
    path.mkdir()
    router = (Router().on("GET", "action=login", "login_page").on("POST", "loginsubmit=yes", "login_post_success_inajax")
              .on("GET", "/forum.php", "viewthread_tid2_page1_loggedin"))
    client = DiscuzClient(httpx.Client(transport=httpx.MockTransport(router)), "http://127.0.0.1:8080/",
                          username="计票机器人", password_source=lambda: "pw", cookie_path=path,
                          generation="x3", min_interval=0)
    assert client.login() == 3 and client.logged_in
    client.save_session()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings and all(str(path) in w for w in warnings)
