"""``forumbot serve`` over real HTTP on the simulator: many games, one bot account.

Two and then ten games publish at once through one login without a single flood-control
refusal (the simulator counts them), their posts at least the forum's interval apart; a
game whose config is broken or whose thread is gone says so (desk, status, /healthz)
while the others go on; games come and go while the service runs."""

from __future__ import annotations

import json
import shutil

import pytest

from forumbot.store.outbox import DraftKind, DraftState
from tests.forumbot.service_support import AGENT, bot_times, gaps, served, wait_for


def _published(s, kind=DraftKind.RUNNING_COUNT) -> bool:
    for game in s.many.games:
        rt = s.open(game.name)
        try:
            if not any(d.kind is kind for d in rt.outbox.drafts(DraftState.PUBLISHED)):
                return False
        finally:
            rt.close()
    return True


@pytest.mark.parametrize("count", [2, 10])
def test_service__games_publish_at_once_one_login_no_flood_refusal(tmp_path, count):
    s = served(tmp_path, count).start(desk=False)
    try:
        wait_for(lambda: len(s.many.bot_posts()) >= count, timeout=90)
        wait_for(lambda: _published(s), timeout=30)
        assert s.errors == []
        assert s.sim.data.flood_refusals == 0
        assert s.many.login_posts() == 1
        posts = s.many.bot_posts()
        assert len(posts) == count  # one running count per game, each in its own thread
        assert {p.tid for p in posts} == {g.tids["vote1"] for g in s.many.games}
        assert min(gaps(bot_times(s.many))) >= s.sim.settings.floodctrl
    finally:
        s.stop()


def test_service__broken_config_and_a_gone_thread_are_that_games_problem(tmp_path):
    s = served(tmp_path, 3, names=["甲局", "乙局", "丙局"])
    (s.folder / "乙局.toml").write_text("[game]\nruleset = \"s11\"\n", encoding="utf-8")
    gone = s.game("丙局").tids["talk1"]
    with s.sim.data.lock:
        del s.sim.data.threads[gone]
    s.start()
    try:
        wait_for(lambda: s.game("甲局").bot_posts(), timeout=60)
        wait_for(lambda: (g := s.summary("丙局")) is not None and g.problems, timeout=60)
        assert s.summary("甲局").state == "running" and not s.summary("甲局").problems
        broken = s.summary("乙局")
        assert broken.state == "error"
        assert "[game].ruleset" in broken.detail[0] and "乙局.toml" in broken.detail[0]
        gone_text = "；".join(s.summary("丙局").problems)
        assert f"读帖子 {gone}" in gone_text and "论坛拒绝" in gone_text
        # the game with the gone thread still reads its other threads and counts
        wait_for(lambda: s.game("丙局").bot_posts(), timeout=60)
        # the desk's list says it, in Chinese, for each game
        page = s.get("/").text
        assert "乙局" in page and "配置或数据库有误" in page and "论坛拒绝" in page
        assert s.get("/g/乙局/").status_code == 503
        assert "ruleset" in s.get("/g/乙局/").text  # the raw detail, for the operator
        # /healthz: alive, and the two games in trouble named
        health = s.get("/healthz")
        assert health.status_code == 200
        body = health.json()
        assert body["alive"] is True and body["games_total"] == 3
        assert set(body["trouble"]) == {"乙局", "丙局"}
        assert body["games"]["甲局"]["trouble"] is False
        # forumbot status --all (another process): one line each, exit 3 (a game needs a person)
        done = s.cli("status", "--all", "--games", str(s.folder))
        assert done.returncode == 3, done.stderr
        lines = done.stdout.splitlines()
        assert any(l.startswith("甲局  运行中") for l in lines), done.stdout
        assert any(l.startswith("乙局  出错") for l in lines), done.stdout
        assert any(l.startswith("丙局") and "论坛拒绝" in l for l in lines), done.stdout
        as_json = json.loads(s.cli("status", "--all", "--json", "--games", str(s.folder)).stdout)
        assert set(as_json["trouble"]) == {"乙局", "丙局"}
        # fixing the config brings the game in without a restart
        s.game("乙局").config.write_text(_config_for(s, "乙局"), encoding="utf-8")
        wait_for(lambda: s.summary("乙局").state == "running", timeout=30)
        wait_for(lambda: s.game("乙局").bot_posts(), timeout=60)
        assert s.errors == []
    finally:
        s.stop()


def _config_for(s, name: str) -> str:
    """The game's good config (written aside, then read: the folder sees one change)."""
    from forumbot.demo.scenario import write_config
    from tests.forumbot.service_support import AGENT

    game = s.game(name)
    path = s.folder / f".{name}.tmp"
    write_config(path, game.world, s.sim.base_url, game.database, plan=game.plan, **AGENT)
    text = path.read_text(encoding="utf-8")
    path.unlink()
    return text


def test_service__games_added_and_removed_while_it_runs(tmp_path):
    s = served(tmp_path, 3, names=["一", "二", "三"])
    parked = tmp_path / "parked"
    parked.mkdir()
    shutil.move(str(s.folder / "三.toml"), parked / "三.toml")
    s.start()
    try:
        wait_for(lambda: s.game("一").bot_posts() and s.game("二").bot_posts(), timeout=60)
        assert s.summary("三") is None and not s.game("三").bot_posts()
        # added: picked up at the next scan, counted, listed
        shutil.move(str(parked / "三.toml"), s.folder / "三.toml")
        wait_for(lambda: s.game("三").bot_posts(), timeout=60)
        assert s.summary("三").state == "running"
        # removed: no longer run or listed; its database stays and its lock is let go
        (s.folder / "二.toml").unlink()
        wait_for(lambda: s.summary("二") is None, timeout=30)
        from forumbot.agent.instance import lock_path, probe

        assert probe(lock_path(s.game("二").database)).running is False
        before = len(s.sim.requests)
        wait_for(lambda: len(s.sim.requests) > before + 5, timeout=30)
        tids = set(s.game("二").tids.values())
        later = [r for r in s.sim.requests[before + 1:] if r.query.get("tid") and int(r.query["tid"]) in tids]
        assert later == []
        assert s.game("二").database.exists()
        assert s.errors == []
    finally:
        s.stop()


def test_service__idle_passes_do_not_retally(tmp_path, monkeypatch):
    """Once every game is read and counted, passes over unchanged threads cost their
    requests and no tally; a new vote is tallied in its game only."""
    import forumbot.agent.loop as agent_module

    calls: list[str] = []
    real = agent_module.count_day

    def count_day(config, store, number):
        calls.append(config.path.stem)
        return real(config, store, number)

    monkeypatch.setattr(agent_module, "count_day", count_day)
    s = served(tmp_path, 3, names=["一", "二", "三"]).start(desk=False)
    try:
        wait_for(lambda: len(s.many.bot_posts()) == 3, timeout=60)
        passes = s.service.passes
        wait_for(lambda: s.service.passes > passes + 12, timeout=60)  # the agents' own writes settle
        calls.clear()
        passes, requests = s.service.passes, len(s.sim.requests)
        wait_for(lambda: s.service.passes > passes + 9, timeout=60)
        assert len(s.sim.requests) > requests  # the threads were read
        assert calls == []
        game = s.game("二")
        game.vote(game.plan.players[5], game.plan.players[0])
        wait_for(lambda: calls, timeout=30)
        wait_for(lambda: s.service.passes > passes + 20, timeout=60)
        assert set(calls) == {"二"}
    finally:
        s.stop()


def _bot_pms(s, game) -> list:
    from forumbot.demo.scenario import BOT

    bot = s.sim.data.user(BOT).uid
    return [m for m in s.sim.pms_between(BOT, game.director) if m.fromuid == bot]


def _code(pms, draft_id: int) -> str | None:
    """The code the bot gave for the draft (as ``notify_support.NotifyGame.code_of``)."""
    import re

    for m in reversed(pms):
        for line in m.text.split("\n"):
            if re.search(rf"#{draft_id}(?!\d)", line):
                found = re.search(r"「(?:批准|重发) ([A-Z0-9]{4})」", m.text[m.text.index(line):])
                if found:
                    return found.group(1)
    return None


def test_service__director_by_pm_in_two_games_one_session_no_flood_refusal(tmp_path, monkeypatch):
    """Two games with the director by forum PM ([notify]) on one account: each game's
    notifier tells its own director and carries out the approval, its PMs go through the
    shared session (one login) and keep the flood clock with the posts — on X3.5 a PM
    within 15 s of a post is refused (两次发送短消息太快): the forum refuses none. Nor does
    a PM hold the scheduler (every game) while the clock runs: it waits in its queue."""
    from forumbot.demo.scenario import BOT
    from forumbot.service.pool import Session

    held: list[float] = []
    real_await = Session.await_write

    def await_write(session) -> None:
        if session.last_write is not None:
            left = session.last_write + session.flood_seconds - session._now_seconds()
            if left > 1:
                held.append(left)
        real_await(session)

    monkeypatch.setattr(Session, "await_write", await_write)
    s = served(tmp_path, 2, names=["甲局", "乙局"], notify={"enabled": True}).start(desk=False)
    try:
        wait_for(lambda: len(s.many.bot_posts()) >= 2, timeout=90)  # both running counts, at once
        drafts = {}
        for game in s.many.games:  # a card notice waits in each game (as the director's commands leave it)
            rt = s.open(game.name)
            try:
                drafts[game.name] = rt.outbox.create_draft(DraftKind.CARD_NOTICE, game.tids["progress"],
                                                           f"{game.name}：判罚通知", now=rt.clock.now()).id
            finally:
                rt.close()
        codes = {}
        for game in s.many.games:
            codes[game.name] = wait_for(lambda g=game: _code(_bot_pms(s, g), drafts[g.name]), timeout=90)
        for game in s.many.games:  # both directors approve at once, by PM
            s.sim.send_pm(game.director, BOT, f"批准 {codes[game.name]}")
        for game in s.many.games:
            wait_for(lambda g=game: any(p.author == BOT and f"{g.name}：判罚通知" in p.message
                                        for p in s.sim.posts(g.tids["progress"])), timeout=90)
        wait_for(lambda: all(len(_bot_pms(s, g)) >= 2 for g in s.many.games), timeout=90)  # "done" answers
        assert s.errors == []
        assert s.sim.data.flood_refusals == 0
        assert s.sim.data.pm_flood_refusals == 0
        assert s.many.login_posts() == 1
        for game in s.many.games:  # published once, in its own game only
            notices = [p for t in s.many.games for p in s.sim.posts(t.tids["progress"])
                       if p.author == BOT and f"{game.name}：判罚通知" in p.message]
            assert [p.tid for p in notices] == [game.tids["progress"]]
            assert all(game.name not in m.text for other in s.many.games if other is not game
                       for m in _bot_pms(s, other))
        writes = sorted([p.dateline for p in s.many.bot_posts()]
                        + [m.at for g in s.many.games for m in _bot_pms(s, g)])
        assert min(gaps(writes)) >= s.sim.settings.floodctrl
        assert held == []  # nothing sent had to wait for the clock in the scheduler's thread
        # Each game reads its director's PMs once per poll interval, not on every
        # per-thread pass (a PM read takes the shared account's throttle like a thread read).
        for game in s.many.games:
            uid = s.sim.data.user(game.director).uid
            reads = [r.at for r in s.sim.requests if r.method == "GET" and r.query.get("subop") == "view"
                     and r.query.get("touid") == str(uid)]
            span = (reads[-1] - reads[0]).total_seconds()
            assert len(reads) <= span / AGENT["poll_interval_seconds"] + 4, (len(reads), span)
    finally:
        s.stop()
