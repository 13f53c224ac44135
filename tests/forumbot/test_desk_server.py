"""The desk's server side: login rate-limited per client address, the real addresses
printed when bound to every address, a taken port said in one line — and, beside the
agent (``run --desk``), a taken port does not stop the agent."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import httpx
import pytest
from click.testing import CliRunner

from forumbot.cli import main as cli
import forumbot.cli  # noqa: F401 - hands the desk to the CLI
from forumbot.commands.desk import start_desk_for_run
from forumbot.desk import create_app, start_desk
from forumbot.desk.security import LoginLimiter
from forumbot.desk.server import address_line, desk_urls, machine_addresses
from forumbot.simulator import SimClock
from tests.forumbot.agent_process import live_game, stop, wait_for
from tests.forumbot.test_desk import START, _config

TOKEN = "correct-horse-battery"


class Wall:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _login(client, token: str, address: str):
    page = client.get("/login", environ_base={"REMOTE_ADDR": address}).get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    return client.post("/login", data={"csrf_token": csrf, "token": token, "next": "/drafts"},
                       environ_base={"REMOTE_ADDR": address})


def test_desk_login__five_wrong_tokens_lock_that_address_out_for_fifteen_minutes(tmp_path, monkeypatch):
    monkeypatch.setenv("FORUMBOT_DESK_TOKEN", TOKEN)
    app = create_app(_config(tmp_path), host="0.0.0.0", clock=SimClock(start=START))
    wall = Wall()
    app.extensions["forumbot_login_limiter"].clock = wall
    guesser, director = app.test_client(), app.test_client()
    for _ in range(5):
        assert _login(guesser, "guess", "192.0.2.7").status_code == 200
    locked = _login(guesser, TOKEN, "192.0.2.7")  # even the right token, from that address
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) > 800
    text = locked.get_data(as_text=True)
    assert "登录失败次数过多" in text and "15 分钟后再试" in text
    assert guesser.get("/drafts", environ_base={"REMOTE_ADDR": "192.0.2.7"}).status_code == 302
    # Another address is not locked out.
    assert _login(director, TOKEN, "192.0.2.8").status_code == 302
    wall.t += 15 * 60 + 1
    assert _login(guesser, TOKEN, "192.0.2.7").status_code == 302


def test_desk_login__failures_spread_over_more_than_the_window_do_not_lock():
    wall = Wall()
    limiter = LoginLimiter(clock=wall)
    for _ in range(4):
        limiter.failed("a")
    wall.t += 16 * 60
    limiter.failed("a")
    assert limiter.locked_for("a") == 0
    for _ in range(4):
        limiter.failed("a")
    assert limiter.locked_for("a") > 0


def test_desk_login__a_success_forgets_the_failures():
    limiter = LoginLimiter(clock=Wall())
    for _ in range(4):
        limiter.failed("a")
    limiter.succeeded("a")
    limiter.failed("a")
    assert limiter.locked_for("a") == 0


def test_desk_login__a_flood_of_addresses_is_bounded():
    wall = Wall()
    limiter = LoginLimiter(clock=wall, max_addresses=100)
    for n in range(5):
        limiter.failed("locked")
    for n in range(1000):
        limiter.failed(f"10.0.{n // 256}.{n % 256}")
    assert len(limiter._tries) <= 101 and limiter.locked_for("locked") > 0


# ---------------------------------------------------------------- addresses


def test_desk_address__every_address_prints_usable_ones():
    urls = desk_urls("0.0.0.0", 8765)
    assert urls[0] == "http://127.0.0.1:8765/" and not any("0.0.0.0" in u for u in urls)
    assert urls[1:] == [f"http://{a}:8765/" for a in machine_addresses()]
    line = address_line("0.0.0.0", 8765)
    assert "0.0.0.0" not in line and "http://127.0.0.1:8765/" in line
    assert desk_urls("::", 8765)[0] == "http://[::1]:8765/"
    assert desk_urls("127.0.0.1", 8765) == ["http://127.0.0.1:8765/"]


def test_desk_command__a_missing_database_is_said_once_the_address_is_settled(tmp_path, monkeypatch):
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    config = _config(tmp_path)
    result = CliRunner().invoke(cli, ["desk", "--config", str(config), "--port", str(_free_port())])
    assert result.exit_code == 1 and "错误：本局的状态数据库不存在" in result.output, result.output
    assert not (tmp_path / "game.sqlite").exists()


def test_desk_address__bound_to_every_address_the_printed_one_works(tmp_path, monkeypatch):
    monkeypatch.setenv("FORUMBOT_DESK_TOKEN", TOKEN)
    server = start_desk(_config(tmp_path), host="0.0.0.0", port=0, clock=SimClock(start=START))
    try:
        assert "0.0.0.0" not in server.url and "0.0.0.0" not in server.address_line
        assert server.url.startswith("http://127.0.0.1:")
        response = httpx.get(server.url + "login", timeout=10)
        assert response.status_code == 200 and "登录导演台" in response.text
    finally:
        server.stop()


def test_desk_address__the_command_prints_it(tmp_path):
    env = {"FORUMBOT_DESK_TOKEN": TOKEN, "PATH": "/usr/bin:/bin"}
    config = _config(tmp_path)
    assert CliRunner().invoke(cli, ["init", "--config", str(config)]).exit_code == 0  # the desk creates none
    proc = subprocess.Popen([sys.executable, "-m", "forumbot", "desk", "--config", str(config),
                             "--host", "0.0.0.0", "--port", str(_free_port())],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("导演台：本机 http://127.0.0.1:") and "0.0.0.0" not in line, line
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


# ---------------------------------------------------------------- a taken port


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def taken_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_desk_port__taken_is_one_line_naming_it(tmp_path, taken_port):
    result = CliRunner().invoke(cli, ["desk", "--config", str(_config(tmp_path)), "--port", str(taken_port)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    (line,) = [x for x in result.output.splitlines() if x.strip()]
    assert f"端口 {taken_port} 已被占用" in line and f"--port {taken_port + 1}" in line


def test_desk_port__taken_beside_the_agent_returns_none_and_records_it(tmp_path, taken_port):
    class Record:
        fields: dict = {}

        def update(self, **fields):
            self.fields.update(fields)
            return True

    record = Record()
    assert start_desk_for_run(str(_config(tmp_path)), "127.0.0.1", taken_port, record=record) is None
    assert f"端口 {taken_port} 已被占用" in record.fields["desk"]["error"]


def test_desk_port__taken_does_not_stop_run_desk(tmp_path, taken_port):
    game = live_game(tmp_path)
    agent = game.forumbot("run", "--desk", "--desk-port", str(taken_port))
    try:
        wait_for(lambda: game.bot_posts() or agent.poll() is not None, timeout=30)
        assert agent.poll() is None, agent.stderr.read()
        status = game.cli("status")
        assert "代理程序：运行中" in status.stdout
        assert f"⚠ 导演台未开启：导演台无法使用 127.0.0.1:{taken_port}：端口 {taken_port} 已被占用" in status.stdout
        code, _, err = stop(agent)
        assert code == 0, err
        said = [line for line in err.splitlines() if "已被占用" in line]
        assert len(said) == 1 and "代理程序照常运行" in said[0] and "--desk-port" in said[0]
        assert "Traceback" not in err
    finally:
        if agent.poll() is None:
            agent.kill()
        game.sim.stop()
