"""The session pool: one client per (forum, bot account), one write clock, one retry
budget; each game keeps its own way of reading threads. No request is sent here: the
clients are built, not used (the HTTP tests are test_service_games.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from forumbot.config.gamefile import ConfigError
from forumbot.discuz.errors import FloodControl
from forumbot.game.runtime import make_client, open_runtime
from forumbot.service.pool import SessionPool
from forumbot.simulator import SimClock
from tests.forumbot.game_support import at, config_text


class Clock(SimClock):
    """A manual clock whose sleep moves it (the client's pause sleeps on it)."""

    def sleep(self, seconds: float) -> None:
        self.advance(seconds=seconds)


@pytest.fixture
def clock():
    return Clock(start=at(1, "10:00"))


def _rt(tmp_path, name, clock, *, base="http://127.0.0.1:9/", bot="计票机器人", interval=2):
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    database = folder / "game.sqlite"
    text = config_text("simple14", database=str(database))
    text = text.replace('base_url = "http://127.0.0.1:9/"', f'base_url = "{base}"')
    text = text.replace('username = "计票机器人"', f'username = "{bot}"')
    text = text.replace(f'database = "{database}"', f'database = "{database}"\nmin_request_interval_seconds = {interval}')
    path = folder / "game.toml"
    path.write_text(text, encoding="utf-8")
    return open_runtime(path, clock=clock)


@pytest.fixture
def pool():
    import threading

    pool = SessionPool(stop=threading.Event(), flood_seconds=16)
    yield pool
    pool.close()


def test_pool__one_session_per_forum_and_account(tmp_path, clock, pool):
    a = _rt(tmp_path, "a", clock)
    b = _rt(tmp_path, "b", clock, base="HTTP://127.0.0.1:9", interval=5)  # same forum, spelt otherwise
    c = _rt(tmp_path, "c", clock, bot="另一个机器人")
    d = _rt(tmp_path, "d", clock, base="http://127.0.0.1:10/")
    ca, cb, cc, cd = (pool.client_for(rt, name) for rt, name in ((a, "a"), (b, "b"), (c, "c"), (d, "d")))
    assert ca.session is cb.session
    assert ca.session is not cc.session and ca.session is not cd.session
    assert len(pool.sessions) == 3
    # one throttle: the politest interval of the games on it
    assert ca.session.min_interval == 5
    pool.release("b")
    assert ca.session.min_interval == 2
    # make_client's hook hands out the pool's client
    assert make_client(a, pool=pool).session is ca.session
    for rt in (a, b, c, d):
        rt.close()


def test_pool__each_game_reads_its_own_way(tmp_path, clock, pool):
    a, b = _rt(tmp_path, "a", clock), _rt(tmp_path, "b", clock)
    ca, cb = pool.client_for(a, "a"), pool.client_for(b, "b")
    ca.use_api = True
    assert ca.use_api is True and cb.use_api is False
    seen = []
    ca.session.client.save_session = lambda: seen.append(ca.session.client.use_api)  # any shared method
    cb.save_session()
    ca.save_session()
    assert seen == [False, True]
    a.close()
    b.close()


def test_pool__the_account_posts_at_most_once_per_flood_interval(tmp_path, clock, pool):
    rt = _rt(tmp_path, "a", clock)
    client = pool.client_for(rt, "a")
    session = client.session
    # a session opens as if it had just posted: a restarted process may have
    assert not session.write_free(clock.now())
    clock.advance(seconds=16)
    assert session.write_free(clock.now())
    sent = []
    session.client.reply = lambda tid, message, **kw: sent.append(clock.now())
    client.reply(1, "a")
    other = pool.client_for(_rt(tmp_path, "b", clock), "b")
    other.reply(2, "b")  # another game, same account: waits the interval
    assert (sent[1] - sent[0]).total_seconds() >= 16
    # the forum says its interval is longer: learnt
    def refused(tid, message, **kw):
        raise FloodControl("两次发表间隔少于 30 秒", key="post_flood_ctrl", values={"floodctrl": "30"})

    session.client.reply = refused
    with pytest.raises(FloodControl):
        client.reply(1, "c")
    assert session.flood_seconds == 31
    rt.close()


def test_pool__an_unreachable_forum_is_one_budget(tmp_path, clock, pool):
    session = pool.client_for(_rt(tmp_path, "a", clock), "a").session
    now = clock.now()
    session.mark_down(now)
    assert not session.available(now + timedelta(seconds=10))
    assert session.available(now + timedelta(seconds=30))
    session.mark_down(now + timedelta(seconds=30))  # the probe failed: twice as long
    assert not session.available(now + timedelta(seconds=80))
    assert session.available(now + timedelta(seconds=90))
    session.mark_up(now + timedelta(seconds=90))
    assert session.available(now) and session.down_since is None


def test_pool__a_game_with_another_time_zone_on_the_same_forum_is_refused(tmp_path, clock, pool):
    pool.client_for(_rt(tmp_path, "a", clock), "a")
    other = _rt(tmp_path, "b", clock)
    text = other.config.path.read_text(encoding="utf-8").replace('timezone = "Asia/Shanghai"',
                                                                'timezone = "Asia/Tokyo"')
    other.config.path.write_text(text, encoding="utf-8")
    other.close()
    other = open_runtime(other.config.path, clock=clock)
    with pytest.raises(ConfigError, match=r"\[forum\]\.timezone"):
        pool.client_for(other, "b")
    other.close()
