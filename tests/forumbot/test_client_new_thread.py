"""New threads and thread moderation (close/open, may_moderate) over real HTTP against the
simulator, on both Discuz generations in UTF-8 and GBK.

What a director relies on: the day's thread is opened once with its subject and text as
written (GBK too); every refusal a reply can meet (flood control, captcha, newbie period,
moderation queue, a subject too long) comes back typed and nothing is stored twice; the
bot's account closes the voting thread at the deadline only where it moderates the board,
and a closed thread refuses players' replies until it is opened again. The simulator's
clock is the client's: waits advance it, nothing sleeps."""

from __future__ import annotations

from collections.abc import Iterator
import httpx
import pytest

from forumbot.discuz import DiscuzClient, NewThreadResult
from forumbot.discuz.errors import (
    CaptchaRequired,
    ModerationNotAllowed,
    NewbiePeriod,
    SubjectTooLong,
    ThreadClosed,
)
from tests.forumbot.simulator_support import Forum, make_forum

BOT = "计票机器人"
SUBJECT = "【饺子村】第二日 投票帖"
BODY = "第二日白天开始，请在本帖投票。\n投票对象：玩家名\n投票理由：……\n截止：明晚 21:30"


@pytest.fixture(params=[("x3", "utf-8"), ("x3", "gbk"), ("7.2", "utf-8"), ("7.2", "gbk")],
                ids=["x3", "x3-gbk", "d72", "d72-gbk"])
def forum(request) -> Iterator[Forum]:
    with make_forum(*request.param) as f:
        yield f


class Clients:
    def __init__(self, forum: Forum) -> None:
        self.forum = forum
        self.sleeps: list[float] = []
        self.https: list[httpx.Client] = []

    def __call__(self, name: str = BOT, min_interval: float = 0) -> DiscuzClient:
        http = httpx.Client(timeout=10)
        self.https.append(http)

        def sleep(seconds: float) -> None:
            self.sleeps.append(seconds)
            self.forum.clock.sleep(seconds)

        return DiscuzClient(http, self.forum.base, username=name, password_source=lambda: "pw",
                            clock=lambda: self.forum.clock.now().timestamp(), sleep=sleep,
                            min_interval=min_interval)


@pytest.fixture
def clients(forum) -> Iterator[Clients]:
    made = Clients(forum)
    yield made
    for http in made.https:
        http.close()


def threads_of(forum: Forum, author: str = BOT) -> list[int]:
    with forum.sim.data.lock:
        return sorted(t.tid for t in forum.sim.data.threads.values() if t.author == author)


def test_new_thread__opens_the_thread_once_with_subject_and_text_as_written(forum, clients):
    client = clients()
    result = client.new_thread(forum.fid, SUBJECT, BODY)
    assert isinstance(result, NewThreadResult) and not result.moderated
    assert threads_of(forum) == [result.tid]
    thread = forum.sim.data.thread(result.tid)
    assert thread.fid == forum.fid and thread.subject == SUBJECT
    first = forum.sim.posts(result.tid)[0]
    assert first.first and first.author == BOT
    assert first.message.replace("\r\n", "\n") == BODY
    if forum.discuz == "x3":  # the ajax answer names the first post; 7.2's 302 does not
        assert result.pid == first.pid
    # The bot reads its own thread back like any other.
    page = client.fetch_page(result.tid, 1)
    assert page.posts[0].author == BOT and page.posts[0].floor == 1
    assert "投票对象：玩家名" in page.posts[0].text


def test_new_thread__waits_out_flood_control_once_and_stores_one_thread(forum, clients):
    # The bot's default spacing of requests: 7.2 refuses at exactly the interval (<=).
    client = clients(min_interval=2.0)
    client.reply(forum.tid, "投票对象：包子\n投票理由：机器人的第一条回复")
    result = client.new_thread(forum.fid, SUBJECT, BODY)
    assert forum.sim.data.flood_refusals == 1
    assert clients.sleeps and max(clients.sleeps) >= 15
    assert threads_of(forum) == [result.tid]


def test_new_thread__captcha_is_reported_and_nothing_is_posted(forum, clients):
    forum.sim.settings.captcha_post = True
    with pytest.raises(CaptchaRequired):
        clients().new_thread(forum.fid, SUBJECT, BODY)
    assert threads_of(forum) == []
    posts = [r for r in forum.sim.requests if r.method == "POST" and r.query.get("topicsubmit")]
    assert posts == []  # refused from the form, before anything was sent


def test_new_thread__newbie_period_is_its_own_refusal(forum, clients):
    forum.sim.add_user("新机器人", password="pw", registered_at=forum.clock.now())
    forum.sim.settings.newbiespan = 2 if forum.discuz == "x3" else 1
    with pytest.raises(NewbiePeriod):
        clients("新机器人").new_thread(forum.fid, SUBJECT, BODY)
    assert threads_of(forum, "新机器人") == []


def test_new_thread__a_subject_too_long_is_refused(forum, clients):
    # 7.2: 80 bytes in the forum's charset; X3.5: 255 by dstrlen (a CJK character counts 2).
    subject = "投" * (130 if forum.discuz == "x3" else 41)
    with pytest.raises(SubjectTooLong):
        clients().new_thread(forum.fid, subject, BODY)
    assert threads_of(forum) == []


def test_new_thread__held_for_moderation_is_stored_once_and_says_so(forum, clients):
    forum.sim.settings.moderate_threads = True
    result = clients().new_thread(forum.fid, SUBJECT, BODY)
    assert result.moderated
    held = threads_of(forum)
    assert len(held) == 1 and forum.sim.data.thread(held[0]).held
    # X3.5's answer names the held thread; 7.2's names none (found by marker once released).
    assert result.tid == (held[0] if forum.discuz == "x3" else None)


def test_moderation__the_bots_account_closes_and_opens_where_it_moderates(forum, clients):
    forum.sim.set_moderator(forum.fid, BOT)
    bot, player = clients(), clients("饺子")
    assert bot.may_moderate(forum.fid) is True
    assert player.may_moderate(forum.fid) is False
    tid = bot.new_thread(forum.fid, SUBJECT, BODY).tid
    assert tid is not None
    bot.close_thread(tid)
    assert forum.sim.data.thread(tid).closed
    if forum.discuz == "x3":  # the X3 page parser reads the lock; 7.2's page says it elsewhere
        assert bot.fetch_page(tid, 1).closed
    bot.close_thread(tid)  # closing a closed thread is no error
    forum.clock.advance(seconds=30)
    with pytest.raises(ThreadClosed):
        player.reply(tid, "投票对象：包子\n投票理由：截止之后才来")
    assert [p.author for p in forum.sim.posts(tid)] == [BOT]
    bot.open_thread(tid)
    assert not forum.sim.data.thread(tid).closed
    forum.clock.advance(seconds=30)
    assert player.reply(tid, "投票对象：包子\n投票理由：重新打开之后").pid is not None


def test_moderation__a_board_the_account_does_not_moderate_refuses_and_changes_nothing(forum, clients):
    other = forum.sim.add_forum("闲聊灌水")
    forum.sim.set_moderator(other, BOT)  # a moderator elsewhere, not of the game's board
    bot = clients()
    assert bot.may_moderate(forum.fid) is False
    assert bot.may_moderate(other) is True
    with pytest.raises(ModerationNotAllowed):
        bot.close_thread(forum.tid)
    assert not forum.sim.data.thread(forum.tid).closed


def test_moderation__may_moderate_asks_without_changing_anything(forum, clients):
    forum.sim.set_moderator(forum.fid, BOT)
    before = {t.tid: t.closed for t in forum.sim.data.threads.values()}
    assert clients().may_moderate(forum.fid)
    assert {t.tid: t.closed for t in forum.sim.data.threads.values()} == before
    assert not any(r.method == "POST" and "topicadmin" in r.path for r in forum.sim.requests)


def test_new_thread__no_subject_or_no_text_is_refused_before_asking(forum, clients):
    client = clients()
    with pytest.raises(ValueError):
        client.new_thread(forum.fid, "  ", BODY)
    with pytest.raises(ValueError):
        client.new_thread(forum.fid, SUBJECT, "\n")
    assert not any(r.method == "POST" for r in forum.sim.requests)


def test_new_thread__a_second_thread_after_the_flood_interval_gets_its_own_tid(forum, clients):
    client = clients()
    first = client.new_thread(forum.fid, SUBJECT, BODY)
    forum.clock.advance(seconds=20)
    second = client.new_thread(forum.fid, "【饺子村】第二日 讨论帖", "讨论在本帖进行。")
    assert first.tid != second.tid and threads_of(forum) == sorted([first.tid, second.tid])


# ------------------------------------------------------------------ finding a thread by marker

MARKER_LINE = "\n[size=1][color=#999999]机器人标记 3fa9c1-7e21d0-17-t2[/color][/size]"
MARKER = "3fa9c1-7e21d0-17-t2"


def test_find_thread_by_marker__finds_the_bots_own_thread_and_no_impostor(forum, clients):
    bot = clients()
    # A player copies the marker into a thread of their own: not the bot's, never taken.
    forum.sim.add_thread(forum.fid, "抄来的标记", author="饺子", message=BODY + MARKER_LINE)
    opened = bot.new_thread(forum.fid, SUBJECT, BODY + MARKER_LINE)
    forum.clock.advance(seconds=30)
    newer = bot.new_thread(forum.fid, "【饺子村】第二日 讨论帖", "讨论在本帖进行。")  # the bot's, no marker
    found = bot.find_thread_by_marker(forum.fid, MARKER)
    first = forum.sim.posts(opened.tid)[0]
    assert found is not None and (found.tid, found.pid) == (opened.tid, first.pid)
    assert bot.find_thread_by_marker(forum.fid, MARKER, skip={opened.tid}) is None
    assert bot.find_thread_by_marker(forum.fid, "3fa9c1-7e21d0-18-t2") is None
    assert newer.tid != opened.tid


def test_find_thread_by_marker__reads_only_the_threads_the_bot_started(forum, clients):
    bot = clients()
    opened = bot.new_thread(forum.fid, SUBJECT, BODY + MARKER_LINE)
    for i in range(3):
        forum.sim.add_post(forum.tid, "包子", f"投票对象：饺子\n投票理由：顶帖 {i}")
    forum.sim.requests.clear()
    found = bot.find_thread_by_marker(forum.fid, MARKER)
    assert found is not None and found.tid == opened.tid
    read = [r for r in forum.sim.requests if "viewthread" in r.path or r.query.get("mod") == "viewthread"]
    assert {int(r.query["tid"]) for r in read} == {opened.tid}  # the players' thread is not opened


def test_find_thread_by_marker__a_held_thread_is_found_once_released(forum, clients):
    forum.sim.settings.moderate_threads = True
    bot = clients()
    assert bot.new_thread(forum.fid, SUBJECT, BODY + MARKER_LINE).moderated
    assert bot.find_thread_by_marker(forum.fid, MARKER) is None
    [held] = [t.tid for t in forum.sim.data.threads.values() if t.held]
    forum.sim.release_thread(held)
    found = bot.find_thread_by_marker(forum.fid, MARKER)
    assert found is not None and found.tid == held


def test_simulator__answers_as_the_real_lab_forums_did(forum, clients):
    """What the real X3.5 and 7.2 GBK answered on the lab (docs/decisions.md, 2026-12-02):
    X3.5's topicadmin is ajax (200) with 管理操作成功, 7.2's a 302 back to the board; a
    new thread is a 302 on 7.2 and an ajax answer naming tid and pid on X3.5."""
    forum.sim.set_moderator(forum.fid, BOT)
    bot = clients()
    bot.new_thread(forum.fid, SUBJECT, BODY)
    bot.close_thread(forum.tid)
    posts = [(r.path, r.status) for r in forum.sim.requests if r.method == "POST" and "login" not in str(r.query)]
    if forum.discuz == "x3":
        assert posts == [("/forum.php", 200), ("/forum.php", 200)]
    else:
        assert posts == [("/post.php", 302), ("/topicadmin.php", 302)]


def test_find_thread_by_marker__a_fresh_process_logs_in_first_on_a_board_barred_to_guests(forum, clients):
    forum.sim.data.boards[forum.fid].guests_barred = True
    opened = clients().new_thread(forum.fid, SUBJECT, BODY + MARKER_LINE)
    restarted = clients()  # a new process after a kill: no session yet
    found = restarted.find_thread_by_marker(forum.fid, MARKER)
    assert found is not None and found.tid == opened.tid
