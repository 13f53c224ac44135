"""DiscuzClient against the simulator's Discuz! 7.2, over real HTTP, in UTF-8 and in GBK:
log in, read incrementally, reply, quote (the author line after the excerpt, and the
engine takes the change as quoting the vote), edit, flood control, a wrong password, a
closed site. The simulator's clock is the client's: waits advance it, nothing sleeps."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest

from forumbot.config.gamefile import load_config
from forumbot.discuz import DiscuzClient, Generation, ThreadCursor
from forumbot.discuz.errors import LoginBlocked, LoginFailed, SiteClosed
from forumbot.game.state import count_day
from forumbot.store import Store
from tests.forumbot.simulator_support import START, Forum, make_forum

BOT = "计票机器人"


@pytest.fixture(params=["utf-8", "gbk"])
def forum(request) -> Iterator[Forum]:
    with make_forum("7.2", request.param) as f:
        yield f


class Clients:
    def __init__(self, forum: Forum) -> None:
        self.forum = forum
        self.sleeps: list[float] = []
        self.https: list[httpx.Client] = []

    def __call__(self, name: str = BOT, password: str = "pw", **kwargs) -> DiscuzClient:
        http = httpx.Client(timeout=5)
        self.https.append(http)

        def sleep(seconds: float) -> None:
            self.sleeps.append(seconds)
            self.forum.clock.sleep(seconds)

        return DiscuzClient(http, self.forum.base, username=name, password_source=lambda: password,
                            clock=lambda: self.forum.clock.now().timestamp(), sleep=sleep,
                            **{"min_interval": 0, **kwargs})


@pytest.fixture
def clients(forum) -> Iterator[Clients]:
    made = Clients(forum)
    yield made
    for http in made.https:
        http.close()


def login_posts(forum: Forum) -> int:
    return sum(1 for r in forum.sim.requests if r.method == "POST" and r.path.endswith("logging.php"))


def test_client_sim_d72__login_keeps_the_session_across_a_restart(forum, clients, tmp_path):
    jar = tmp_path / "cookies.json"
    client = clients(cookie_path=jar)
    uid = client.login()
    assert uid == forum.sim.data.user(BOT).uid and client.generation is Generation.D72
    assert client.charset == forum.sim.charset
    assert stat.S_IMODE(jar.stat().st_mode) == 0o600
    assert all(record["value"] != "pw" for record in json.loads(jar.read_text()))  # cookies only
    again = clients(cookie_path=jar)
    again.ensure_logged_in()
    assert again.fetch_page(forum.tid).viewer_uid == uid
    assert login_posts(forum) == 1


def test_client_sim_d72__a_wrong_password_is_tried_once(forum, clients):
    client = clients(password="wrong")
    with pytest.raises(LoginFailed) as info:
        client.login()
    assert info.value.attempts_left is not None and info.value.attempts_left < 5
    with pytest.raises(LoginBlocked):
        client.login()  # no second try by itself
    with pytest.raises(LoginBlocked):
        client.reply(forum.tid, "计票：包子 2 票，测试登录失败")
    assert login_posts(forum) == 1
    page = client.fetch_page(forum.tid)  # reading goes on as a guest
    assert page.viewer_uid == 0 and len(page.posts) == 5


def test_client_sim_d72__incremental_reading(forum, clients):
    client = clients()
    posts, cursor = client.read_new(ThreadCursor(forum.tid))
    assert [p.floor for p in posts] == [1, 2, 3, 4, 5] and cursor.last_pid == posts[-1].pid
    before = len(forum.sim.requests)
    again, same = client.read_new(cursor)
    assert len(forum.sim.requests) - before == 1 and same == cursor
    assert not [p for p in again if cursor.is_new(p)]
    for i in range(12):  # two more pages
        forum.sim.add_post(forum.tid, "包子", f"第 {i} 条新的讨论发言", at=forum.clock.now())
    new, moved = client.read_new(cursor)
    fresh = [p for p in new if cursor.is_new(p)]
    assert len(fresh) == 12 and moved.last_page == 2 and moved.total_pages == 2
    assert [p.floor for p in fresh] == list(range(6, 18))


def test_client_sim_d72__reply_quote_edit(forum, clients):
    client = clients()
    client.login()
    first = client.reply(forum.tid, "【计票】包子 3 票（测试）")
    assert first.pid is not None and not first.moderated
    stored = forum.sim.post(first.pid)
    assert stored.author == BOT and stored.message.endswith("【计票】包子 3 票（测试）")

    forum.clock.advance(seconds=90)
    edited = client.edit(forum.tid, first.pid, "【计票】包子 3 票，汤圆 1 票（更新）")
    assert edited.pid == first.pid and not edited.moderated
    message = forum.sim.post(first.pid).message
    assert "本帖最后由 计票机器人 于" in message and message.endswith("汤圆 1 票（更新）")

    quoted = forum.sim.posts(forum.tid)[1]  # 饺子's vote
    forum.clock.advance(seconds=20)
    reply = client.reply(forum.tid, "引用测试：机器人引用饺子的投票", quote_pid=quoted.pid)
    text = forum.sim.post(reply.pid).message
    block = text[text.index("[quote]"):text.index("[/quote]")]
    # 7.2's quote: the excerpt first, then the grey author line with the findpost arrow
    assert block.index("投票对象：包子") < block.index("饺子 发表于")
    assert f"redirect.php?goto=findpost&pid={quoted.pid}&ptid={forum.tid}" in block
    page = client.fetch_page(forum.tid, 1)
    mine = next(p for p in page.posts if p.pid == reply.pid)
    assert mine.quoted_pids == (quoted.pid,)


def test_client_sim_d72__the_engine_takes_a_quoted_change(forum, clients, tmp_path):
    vote = forum.sim.posts(forum.tid)[1]  # 饺子's vote (投票对象：包子)
    assert vote.author == "饺子"
    change = clients("饺子").reply(forum.tid, "改票对象：汤圆\n改票理由：想了想", quote_pid=vote.pid)
    forum.clock.advance(seconds=30)
    unquoted = clients("汤圆").reply(forum.tid, "改票对象：饺子\n改票理由：没引用")
    config = tmp_path / "game.toml"
    config.write_text(
        f'[forum]\nbase_url = "{forum.base}"\n[game]\nruleset = "simple14"\ndirector = "导演"\n'
        f'bot = "{BOT}"\nplayers = ["饺子", "包子", "汤圆"]\n'
        f'[[days]]\nnumber = 1\nvote_thread = {forum.tid}\nstart = "{START.isoformat()}"\n'
        f'deadline = "{(START + timedelta(hours=12)).isoformat()}"\n', encoding="utf-8")
    with Store(tmp_path / "game.sqlite") as store:
        posts, _ = clients().read_new(ThreadCursor(forum.tid))
        store.record_posts(posts, seen_at=forum.clock.now())
        votes = {v["pid"]: v for v in count_day(load_config(config), store, 1).data["votes"]}
    assert votes[change.pid]["valid"] and votes[change.pid]["kind"] == "change", {k: v for k, v in votes[change.pid].items() if k in ("reason", "detail", "valid")}
    assert votes[change.pid]["target"] == "汤圆"
    assert not votes[unquoted.pid]["valid"]  # a change that quotes nothing is void


def test_client_sim_d72__flood_control_waits_the_forums_interval(forum, clients):
    client = clients(min_interval=2.0)  # the bot's default spacing of requests
    client.reply(forum.tid, "第一条计票内容，测试灌水限制")
    clients.sleeps.clear()
    second = client.reply(forum.tid, "第二条计票内容，测试灌水限制")
    assert second.pid is not None and 15 in clients.sleeps
    assert len([p for p in forum.sim.posts(forum.tid) if p.author == BOT]) == 2


def test_client_sim_d72__a_closed_site_says_its_reason(forum, clients):
    client = clients()
    client.login()
    forum.sim.settings.site_closed = "论坛维护中，预计十分钟后恢复"
    with pytest.raises(SiteClosed) as info:
        client.fetch_page(forum.tid)
    assert info.value.reason == "论坛维护中，预计十分钟后恢复"
