"""The bot's password never reaches a file: not the agent's stderr or log file, not the
database (nor its WAL), not the audit log; the saved session is readable by its owner only.
Checked on the crash run, where the agent logged in afresh or reused its cookies 21 times."""

from __future__ import annotations

import stat

import pytest

from forumbot.game.runtime import open_runtime
from forumbot.demo.scenario import PASSWORD
from tests.forumbot.kill_support import crash_run

SECRET = PASSWORD.encode()


@pytest.fixture(scope="module")
def run():
    return crash_run()


def test_agent_secrets__the_run_logged_in(run):
    text = run.log_file.read_text(encoding="utf-8")
    assert "已以 计票机器人 登录" in text or "读入保存的论坛登录" in text
    assert run.stderr_file.stat().st_size > 0  # the agent wrote to stderr: we did read something


@pytest.mark.parametrize("name", ["agent.log", "agent.stderr", "game.toml", "cookies.json"])
def test_agent_secrets__no_password_in(run, name):
    assert SECRET not in (run.workdir / name).read_bytes()


def test_agent_secrets__no_password_in_database_files(run):
    files = sorted(run.workdir.glob("game.sqlite*"))
    assert run.database in files
    for path in files:
        assert SECRET not in path.read_bytes(), path.name


def test_agent_secrets__no_password_in_audit_log(run):
    rt = open_runtime(run.game.config)
    try:
        entries = rt.store.audit_log()
        assert entries, "the audit log is empty: nothing was checked"
        assert all(PASSWORD not in repr(e) for e in entries)
    finally:
        rt.close()


def test_agent_secrets__cookie_file_is_private(run):
    mode = stat.S_IMODE(run.cookie_file.stat().st_mode)
    assert mode == 0o600, oct(mode)
    assert "_auth" in run.cookie_file.read_text(encoding="utf-8")
