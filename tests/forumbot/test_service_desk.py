"""The one desk of ``forumbot serve``: the game list, each game's desk below /g/<name>/,
/healthz — with the single desk's security: one login for every game, one count of
wrong tokens, CSRF on every form, the CSP, loopback host names only on loopback."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import httpx
import pytest
from werkzeug.test import Client

from forumbot.desk.service import ServiceDesk
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.service.runner import ServiceView
from forumbot.service.summary import GameSummary
from forumbot.simulator import SimClock
from tests.forumbot.game_support import at, config_text
from tests.forumbot.service_support import served, wait_for

TOKEN = "correct-horse-battery"


class FakeService:
    """What the desk reads of a service: its view and its clock."""

    def __init__(self, games, clock, seen: datetime | None = None) -> None:
        now = clock.now()
        self.clock = clock
        self.view = ServiceView(tuple(games), now, seen or now, "/games", None, 4242, ())


@pytest.fixture
def games(tmp_path):
    made = []
    for name in ("甲局", "乙局"):
        folder = tmp_path / name
        folder.mkdir()
        path = folder / "game.toml"
        path.write_text(config_text("simple14", database=str(folder / "game.sqlite")), encoding="utf-8")
        made.append(GameSummary(name, str(path), "running", ruleset="14人简易规则", day=1, drafts_waiting=2))
    made.append(GameSummary("丙局", str(tmp_path / "丙局.toml"), "error", problems=("配置或数据库有误",),
                            detail=("丙局.toml: [game].ruleset: unknown rule set 's11'",)))
    return made


def _csrf(page: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def _login(client: Client, path: str, token: str, address: str = "192.0.2.7"):
    page = client.get(path, environ_base={"REMOTE_ADDR": address}).get_data(as_text=True)
    return client.post(path, data={"csrf_token": _csrf(page), "token": token, "next": "/"},
                       environ_base={"REMOTE_ADDR": address})


def test_service_desk__one_login_for_the_list_and_every_game(games):
    clock = SimClock(start=at(1, "10:00"))
    desk = ServiceDesk(FakeService(games, clock), host="0.0.0.0", clock=clock, token=TOKEN)
    client = Client(desk)
    where = {"REMOTE_ADDR": "192.0.2.7"}
    assert client.get("/", environ_base=where).status_code == 302
    assert client.get("/g/甲局/drafts", environ_base=where).status_code == 302
    assert _login(client, "/login", TOKEN).status_code == 302
    listing = client.get("/", environ_base=where)
    assert listing.status_code == 200
    text = listing.get_data(as_text=True)
    assert "甲局" in text and "乙局" in text and "配置或数据库有误" in text
    assert "default-src 'self'" in listing.headers["Content-Security-Policy"]
    # the same session opens each game's own desk
    for name in ("甲局", "乙局"):
        page = client.get(f"/g/{name}/drafts", environ_base=where)
        assert page.status_code == 200, page.get_data(as_text=True)[:300]
        assert "全部游戏" in page.get_data(as_text=True)
    # a game in error has no desk of its own: its problem, with the raw detail
    broken = client.get("/g/丙局/", environ_base=where)
    assert broken.status_code == 503 and "unknown rule set" in broken.get_data(as_text=True)
    # every form still needs this session's CSRF token
    refused = client.post("/g/甲局/retally", data={"day": "1"}, environ_base=where)
    assert refused.status_code == 400
    desk.close()


def test_service_desk__the_game_list_and_a_broken_game_speak_chinese(games):
    """What a director sees of the service — the list (with a game in error, an alarm, a
    deadline and its countdown), the login and a broken game's page — has no English
    outside the raw detail kept for the operator."""
    from dataclasses import replace

    from tests.forumbot.test_desk_chinese import english

    clock = SimClock(start=at(1, "10:00"))
    games = [replace(games[0], deadline=at(1, "23:00"), alarms=("机器人账号被论坛禁言",), failed=1,
                     last_pass=at(1, "09:59")), *games[1:]]
    desk = ServiceDesk(FakeService(games, clock), host="0.0.0.0", clock=clock, token=TOKEN)
    client = Client(desk)
    where = {"REMOTE_ADDR": "192.0.2.7"}
    assert english(client.get("/login", environ_base=where).get_data(as_text=True)) == []
    _login(client, "/login", TOKEN)
    listing = client.get("/", environ_base=where).get_data(as_text=True)
    assert "第1日" in listing and "23:00" in listing and "13小时" in listing  # the time left, as served
    assert english(listing, names=()) == []
    assert english(client.get("/g/丙局/", environ_base=where).get_data(as_text=True), names=()) == []
    desk.close()


def test_service_desk__wrong_tokens_on_any_game_count_for_the_whole_desk(games):
    clock = SimClock(start=at(1, "10:00"))
    desk = ServiceDesk(FakeService(games, clock), host="0.0.0.0", clock=clock, token=TOKEN)
    client = Client(desk)
    for name in ("甲局", "乙局", "甲局", "乙局", "甲局"):
        assert _login(client, f"/g/{name}/login", "guess").status_code == 200
    locked = _login(client, "/login", TOKEN)
    assert locked.status_code == 429 and "登录失败次数过多" in locked.get_data(as_text=True)
    assert _login(client, "/login", TOKEN, address="192.0.2.8").status_code == 302
    desk.close()


def test_service_desk__off_loopback_needs_a_token_to_start(games):
    from forumbot.desk import DeskSecurityError

    clock = SimClock(start=at(1, "10:00"))
    with pytest.raises(DeskSecurityError):
        ServiceDesk(FakeService(games, clock), host="0.0.0.0", clock=clock, token="")


def test_service_desk__loopback_refuses_a_foreign_host_name(games):
    clock = SimClock(start=at(1, "10:00"))
    desk = ServiceDesk(FakeService(games, clock), host="127.0.0.1", clock=clock, token="")
    client = Client(desk)
    assert client.get("/", headers={"Host": "127.0.0.1:8765"}).status_code == 200
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/g/甲局/", headers={"Host": "evil.example"}).status_code == 400
    desk.close()


def test_service_desk__healthz(games):
    clock = SimClock(start=at(1, "10:00"))
    service = FakeService(games, clock)
    desk = ServiceDesk(service, host="0.0.0.0", clock=clock, token=TOKEN)
    client = Client(desk)
    local = client.get("/healthz", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert local.status_code == 200
    body = local.get_json()
    assert body["alive"] is True and body["games_total"] == 3 and body["trouble"] == ["丙局"]
    assert body["games"]["甲局"]["drafts_waiting"] == 2 and body["games"]["丙局"]["state"] == "error"
    assert "丙局" in local.get_data(as_text=True)  # readable UTF-8, not \\u escapes
    away = {"REMOTE_ADDR": "192.0.2.9"}
    assert client.get("/healthz", environ_base=away).status_code == 401
    bearer = client.get("/healthz", environ_base=away, headers={"Authorization": f"Bearer {TOKEN}"})
    assert bearer.status_code == 200
    # a scheduler that has not gone round for a while: 503, alive false
    service.view = ServiceView(service.view.games, service.view.started, clock.now() - timedelta(minutes=10),
                               "/games", None, 4242, ())
    stuck = client.get("/healthz", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert stuck.status_code == 503 and stuck.get_json()["alive"] is False
    desk.close()


def test_service_desk__approving_on_a_games_desk_is_published_at_once(tmp_path):
    """Over HTTP: the final count drafted by the service, approved on the game's page,
    goes out without waiting for the next interval (the desk's write is noticed)."""
    s = served(tmp_path, 2, names=["东局", "西局"], deadline=timedelta(hours=2, minutes=1),
               poll_interval_seconds=600)
    s.start()
    try:
        def final():
            rt = s.open("东局")
            try:
                return next((d for d in rt.outbox.drafts(DraftState.DRAFT) if d.kind is DraftKind.FINAL_COUNT), None)
            finally:
                rt.close()

        draft = wait_for(final, timeout=60)
        with httpx.Client(base_url=s.base, timeout=10) as http:
            page = http.get("/g/%E4%B8%9C%E5%B1%80/drafts")
            assert page.status_code == 200 and f"#{draft.id}" in page.text
            done = http.post(f"/g/%E4%B8%9C%E5%B1%80/drafts/{draft.id}/approve", data={"csrf_token": _csrf(page.text)})
            assert done.status_code == 302
            approved = s.clock.now()
        wait_for(lambda: _state(s, "东局", draft.id) is DraftState.PUBLISHED, timeout=30)
        assert _state(s, "东局", draft.id) is DraftState.PUBLISHED
        # far sooner than the 600 s poll interval (game time)
        rt = s.open("东局")
        try:
            published = rt.outbox.get(draft.id).published_at
        finally:
            rt.close()
        assert (published - approved).total_seconds() < 120
        assert s.sim.data.flood_refusals == 0
    finally:
        s.stop()


def _state(s, name, draft_id):
    rt = s.open(name)
    try:
        return rt.outbox.get(draft_id).state
    finally:
        rt.close()
