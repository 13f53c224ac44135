"""``forumbot serve`` as an operator runs it (real subprocesses): one service per folder,
one agent per game (a ``forumbot run`` on a game the service holds refuses, and the
service waits for a game a ``forumbot run`` holds), ``--game NAME`` for the director's
commands, the service file read with errors naming the key, a log line per game event
with the game's name, and a clean stop on SIGTERM."""

from __future__ import annotations

import re
import signal

import httpx
import pytest

from forumbot.config.gamefile import ConfigError
from forumbot.service.scanner import scan
from forumbot.service.settings import load_service
from tests.forumbot.service_support import served, wait_for


def _port(proc) -> str:
    line = proc.stderr.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert match, line
    return match.group(1)


def test_service_cli__one_service_per_folder_one_agent_per_game(tmp_path):
    s = served(tmp_path, 2, names=["第三局", "第四局"])
    service_file = tmp_path / "service.toml"
    service_file.write_text(f'[service]\ngames = "{s.folder}"\ndesk_port = 0\nscan_seconds = 2\n', encoding="utf-8")
    env = {**s.env(), "FORUMBOT_SERVICE": str(service_file)}
    proc = s.forumbot("serve", env=env)
    try:
        port = _port(proc)
        wait_for(lambda: all(g.bot_posts() for g in s.many.games), timeout=60)
        # a second service on the folder refuses, naming the first
        second = s.cli("serve", "--games", str(s.folder), "--no-desk", env=env)
        assert second.returncode != 0 and "已有一个 forumbot serve 在运行" in second.stderr
        assert f"pid {proc.pid}" in second.stderr
        # the folder from FORUMBOT_GAMES, as the systemd unit's environment file gives it
        by_env = s.cli("serve", "--no-desk", env={**s.env(), "FORUMBOT_GAMES": str(s.folder)})
        assert by_env.returncode != 0 and "已有一个 forumbot serve 在运行" in by_env.stderr
        # forumbot run on a game the service holds refuses and says it is the service
        run = s.cli("run", "--once", "--game", "第三局", env=env)
        assert run.returncode != 0 and "forumbot serve" in run.stderr and f"pid {proc.pid}" in run.stderr
        # --game NAME for the director's commands (FORUMBOT_SERVICE names the folder)
        status = s.cli("status", "--game", "第三局", env=env)
        assert status.returncode == 0, status.stderr
        assert "运行中" in status.stdout and "第1日" in status.stdout
        missing = s.cli("status", "--game", "第九局", env=env)
        assert missing.returncode != 0 and "第三局、第四局" in missing.stderr
        everything = s.cli("status", "--all", env=env)
        assert everything.returncode == 0, everything.stdout + everything.stderr
        assert [line.split()[0] for line in everything.stdout.splitlines()] == ["第三局", "第四局"]
        health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()
        assert health["pid"] == proc.pid and health["trouble"] == []
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        s.sim.stop()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    # every line of a game's work names the game
    assert re.search(r"\[第三局\] 第1日计票 #\d+ 已发布 \(pid \d+\)", err), err[-2000:]
    assert "已干净地停止" in err


def test_service_cli__a_game_held_by_forumbot_run_waits_for_it(tmp_path):
    s = served(tmp_path, 2, names=["甲", "乙"])
    agent = s.forumbot("run", "--config", str(s.game("乙").config))
    try:
        wait_for(lambda: s.game("乙").bot_posts(), timeout=60)
        s.start(desk=False)
        wait_for(lambda: (g := s.summary("乙")) is not None and g.state == "busy", timeout=30)
        assert "另一个 forumbot 进程" in s.summary("乙").problems[0]
        wait_for(lambda: s.game("甲").bot_posts(), timeout=60)
        agent.send_signal(signal.SIGTERM)
        agent.communicate(timeout=30)
        wait_for(lambda: s.summary("乙").state == "running", timeout=30)
    finally:
        if agent.poll() is None:
            agent.kill()
        s.stop()


def test_service_file__errors_name_the_key(tmp_path):
    path = tmp_path / "service.toml"
    for text, key in (("[service]\n", "[service].games"),
                      ('[service]\ngames = "g"\nport = 1\n', "[service].port"),
                      ('[service]\ngames = "g"\ndesk_port = "x"\n', "[service].desk_port"),
                      ('[service]\ngames = "g"\npassword = "x"\n', "[service].password"),
                      ('[service]\ngames = "g"\n[agent]\n', "[agent]"),
                      ('[service]\ngames = "g"\nscan_seconds = 0\n', "[service].scan_seconds")):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ConfigError) as err:
            load_service(path)
        assert str(err.value).startswith(f"{path}: {key}:"), err.value
    path.write_text('[service]\ngames = "games"\ndesk_host = "0.0.0.0"\n', encoding="utf-8")
    settings = load_service(path)
    assert settings.games == tmp_path / "games" and settings.desk_host == "0.0.0.0"


def test_service_scan__which_files_are_games(tmp_path):
    for name in ("第三局.toml", "_停办.toml", ".隐藏.toml", "说明.txt", "第三局.toml~"):
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "第五局").mkdir()
    (tmp_path / "第五局" / "game.toml").write_text("", encoding="utf-8")
    (tmp_path / "空文件夹").mkdir()
    found = scan(tmp_path)
    assert sorted(found) == ["第三局", "第五局"]
    assert found["第五局"].path == tmp_path / "第五局" / "game.toml"


def test_service_cli__the_password_from_a_systemd_credential(tmp_path):
    """As the unit in docs/forumbot.service runs it: no FORUMBOT_PASSWORD, the folder from
    FORUMBOT_GAMES, the password in $CREDENTIALS_DIRECTORY/forum-password (0440: the ACL
    mask systemd's credential files show) — the service logs in once and posts."""
    import os

    from forumbot.demo.scenario import PASSWORD

    s = served(tmp_path, 2, names=["甲", "乙"])
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "forum-password").write_text(PASSWORD + "\n", encoding="utf-8")
    os.chmod(credentials / "forum-password", 0o440)
    env = {k: v for k, v in s.env().items() if k != "FORUMBOT_PASSWORD"}
    env.update(FORUMBOT_GAMES=str(s.folder), CREDENTIALS_DIRECTORY=str(credentials))
    proc = s.forumbot("serve", "--no-desk", env=env)
    try:
        wait_for(lambda: all(g.bot_posts() for g in s.many.games) or proc.poll() is not None, timeout=60)
        assert proc.poll() is None, proc.stderr.read()
        assert s.many.login_posts() == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        s.sim.stop()
    assert PASSWORD not in err
