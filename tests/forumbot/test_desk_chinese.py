"""No English on the desk (issue 12 item 8): every page, every confirm page, every
message after a change and every error page of a game mid-play, crawled with Flask's
test client under each rule set with its own forms (14人简易, S10 with 若愚, 双身份 with
lost identities, the scapegoat and 冤死), fails on an English word outside the
allow-list (player names, BBCode, links, pid/tid codes).

Also the mid-play games the other desk tests use (``mid_game``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import lxml.html
import pytest

from forumbot.game import director
from forumbot.game import gamelog
from forumbot.desk import create_app
from forumbot.game.gamelog import EventSpec
from forumbot.store.outbox import DraftKind
from tests.forumbot.game_support import PROGRESS, StoreGame, at, store_game, talk_tid, vote_tid
from tests.forumbot.outbox_fakes import REFUSE, FakeForum

PLAYERS = ("饺子", "包子", "汤圆", "月饼", "小笼包", "烧卖", "Alice")
# Words a director may see that are not English prose: codes and names.
ALLOWED = {"pid", "tid"}


# ---------------------------------------------------------------- games mid-play


@dataclass
class MidGame:
    game: StoreGame
    ruleset: str
    pids: dict[str, int]

    @property
    def rt(self):
        return self.game.rt

    def close(self) -> None:
        self.game.close()


def _publish(g: StoreGame, *faults: str) -> None:
    forum = FakeForum(faults=faults)
    try:
        g.rt.outbox.publish_pending(forum, g.clock.now())
    finally:
        forum.close()


def mid_game(tmp_path: Path, ruleset: str) -> MidGame:
    """Day 2 under way (14:00) after a day-1 election whose published final count a later
    correction made wrong, a night death entered late (the sheriff: the badge is vacant),
    a card, a failed post, an event taken back, a request to accelerate; 双身份 and S10
    add what only they have."""
    g = store_game(tmp_path, ruleset, players=PLAYERS)
    pids: dict[str, int] = {}
    # Day 1: the sheriff election.
    pids["d1_baozi"] = g.vote(1, "09:30", "饺子", "包子")
    pids["d1_jiaozi_a"] = g.vote(1, "10:00", "包子", "饺子")
    pids["d1_jiaozi_b"] = g.vote(1, "10:05", "汤圆", "饺子")
    pids["d1_bad"] = g.post(vote_tid(1), "月饼", "投票对象：谁都不是\n投票理由：随便", at(1, "10:10"))
    g.post(vote_tid(1), "小笼包", "投票对象：7*7\n投票理由：[color=red]大红色[/color]", at(1, "10:20"))
    g.talk(1, "11:00", "Alice", "我是预言家 http://example.com/x.png")
    g.talk(1, "11:05", "烧卖")
    g.approve_final(1, at(1, "22:00"))
    _publish(g)
    # A correction after the count was published: 包子's vote for 饺子 was a 串号.
    g.enter(EventSpec("void", pid=pids["d1_jiaozi_a"], note="串号，导演判废"), at(1, "23:00"))
    # Day 2: the night's death (the sheriff) entered late; votes; a zombie post.
    if ruleset == "dual":
        g.enter(EventSpec("scapegoat", player="烧卖"), at(1, "23:10"))
    g.enter(EventSpec("night", day=2, players=("饺子",)), at(2, "10:00"))
    g.vote(2, "10:30", "包子", "汤圆")
    g.vote(2, "10:40", "汤圆", "包子")
    g.vote(2, "10:50", "Alice", "包子")
    g.post(vote_tid(2), "月饼", "改票对象：汤圆\n改票理由：想了想", at(2, "11:00"))
    g.talk(2, "11:10", "饺子", "我还有话说")
    g.progress(2, "11:20", "汤圆", "申请加速")
    g.progress(2, "11:25", "包子", "我不想加速")
    # An out taken back (entered by mistake).
    wrong = g.enter(EventSpec("out", player="月饼", why="hunter"), at(2, "12:00"))
    gamelog.retract(g.rt, wrong.event.id, "手误：不是月饼", at(2, "12:05"))
    # A card: its notice approved, and the forum refuses it (a failed post).
    g.at(at(2, "12:30"))
    outcome = director.give_card(g.rt, "小笼包", "blue" if ruleset != "dual" else "points", "字体违规", at(2, "12:30"),
                                 points=3 if ruleset == "dual" else None)
    director.approve(g.rt, outcome.draft.id, at(2, "12:31"))
    _publish(g, REFUSE)
    if ruleset == "dual":  # 双身份 punishes no lurking: its one proposal is 诈尸, a deduction
        g.rt.store.propose_card("烧卖", "points", "zombie", key="zombie:test", at=at(2, "12:40"), day=1,
                                detail="讨论帖3楼：已出局角色发言")
    else:
        g.rt.store.propose_card("烧卖", "blue", "lurking_day", key="lurk:test", at=at(2, "12:40"), day=1,
                                detail="第1日讨论帖发帖 1 帖（少于 5 帖）；楼层：3楼")
    if ruleset == "dual":
        g.enter(EventSpec("identity_lost", player="汤圆", why="hunter"), at(2, "13:00"))
        g.enter(EventSpec("voters", day=3, players=("包子", "汤圆")), at(2, "13:10"))
    if ruleset == "s10":
        g.enter(EventSpec("alias", player="小笼包", name="包包"), at(2, "13:00"))
    g.at(at(2, "14:00"))
    return MidGame(g, ruleset, pids)


# ---------------------------------------------------------------- reading a page as a director


def visible_text(page: str) -> str:
    """What a director reads: text and the attributes a browser shows (placeholders,
    labels, button values, the title) — not scripts, styles, code, or the raw data kept
    collapsed for an operator."""
    doc = lxml.html.fromstring(page)
    for bad in doc.xpath("//script | //style | //code | //*[@data-raw]"):
        bad.drop_tree()
    parts = [doc.text_content()]
    for el in doc.xpath("//*[@placeholder or @title or @aria-label or @alt]"):
        parts += [el.get(a, "") for a in ("placeholder", "title", "aria-label", "alt")]
    parts += [el.get("value", "") for el in doc.xpath("//input[@type='submit' or @type='button']")]
    return "\n".join(parts)


_BBCODE = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]", re.I)
_URL = re.compile(r"(https?://|forum\.php\?|/)[^\s<>\"'）)]*")


def english(page: str, names: tuple[str, ...] = PLAYERS) -> list[str]:
    text = visible_text(page)
    text = _BBCODE.sub(" ", text)
    text = _URL.sub(" ", text)
    for name in names:
        text = text.replace(name, " ")
    return sorted({w for w in re.findall(r"[A-Za-z]{2,}", text) if w.lower() not in ALLOWED})


# ---------------------------------------------------------------- the crawl


@dataclass
class Crawl:
    pages: dict[str, list[str]]  # what was seen → English found

    def bad(self) -> dict[str, list[str]]:
        return {where: words for where, words in self.pages.items() if words}


def _client(mid: MidGame):
    app = create_app(mid.rt.config.path, clock=mid.game.clock, secret_key=b"k" * 32)
    app.testing = True
    return app, app.test_client()


def _links(page: str, base: str) -> list[str]:
    doc = lxml.html.fromstring(page)
    out = []
    for a in doc.xpath("//a[@href]"):
        if a.get("target") == "_blank":
            continue  # the forum's own pages
        href = urljoin(base, a.get("href"))
        parts = urlsplit(href)
        if parts.netloc not in ("", "localhost") or parts.path.startswith("/static"):
            continue
        out.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return out


PREVIEWS = re.compile(r"^/(event|events/\d+/(undo|correct)|cards/(give|\d+/accept)|sheriff/draw|game/over)$")


def _fill(form, pids: dict[str, int]) -> dict[str, list[str]]:
    """A plausible submission of a desk form: the first real choice of each list."""
    data: dict[str, list[str]] = {}
    chose_player = False
    for el in form.xpath(".//input | .//select | .//textarea"):
        name, kind = el.get("name"), (el.get("type") or "").lower()
        if not name:
            continue
        if el.tag == "select":
            options = [o.get("value") for o in el.xpath(".//option")]
            preset = [o.get("value") for o in el.xpath(".//option[@selected]")]
            real = [v for v in options if v and not v.startswith("__")]
            if preset and preset[0]:
                value = preset[0]
                chose_player |= name == "players"
            elif name == "players" and chose_player:
                value = ""
            else:
                value = real[0] if real else ""
                chose_player |= name == "players" and bool(value)
            data.setdefault(name, []).append(value)
        elif kind == "checkbox":
            if name == "players" and not chose_player:
                data.setdefault(name, []).append(el.get("value"))
                chose_player = True
        elif kind in ("hidden", "number", "datetime-local") or el.tag == "textarea":
            value = el.get("value") or (el.text or "")
            data.setdefault(name, []).append(value)
        elif el.get("required") is not None:
            data.setdefault(name, []).append(str(pids["d1_bad"]) if name == "pid" else "测试理由")
    return data


def crawl(mid: MidGame, *, apply: bool = True) -> Crawl:
    app, client = _client(mid)
    seen: dict[str, list[str]] = {}
    queue = ["/"]
    forms: list[tuple[str, str, dict]] = []
    names = PLAYERS + ("包包",)
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        page = response.get_data(as_text=True)
        seen[path] = english(page, names)
        queue += [p for p in _links(page, "http://localhost" + path) if p not in seen]
        for form in lxml.html.fromstring(page).xpath("//form[@method='post']"):
            action = form.get("action")
            if PREVIEWS.match(action or ""):
                forms.append((path, action, _fill(form, mid.pids)))
    for number, (path, action, data) in enumerate(forms):
        response = client.post(action, data=data)
        kind = data.get("kind", [""])[0]
        where = f"{action} {kind} #{number} (from {path})"
        if response.status_code == 302:  # refused with a message
            page = client.get(response.headers["Location"]).get_data(as_text=True)
            seen[where + " → refused"] = english(page, names)
            continue
        assert response.status_code == 200, (where, response.status_code)
        page = response.get_data(as_text=True)
        seen[where] = english(page, names)
        if not apply:
            continue
        confirm = lxml.html.fromstring(page).xpath("//form[@id='confirm-form']")
        assert confirm, where
        fields: dict[str, list[str]] = {}
        for el in confirm[0].xpath(".//input[@type='hidden']"):
            fields.setdefault(el.get("name"), []).append(el.get("value"))
        applied = client.post(confirm[0].get("action"), data=fields)
        after = applied.get_data(as_text=True) if applied.status_code == 200 else \
            client.get(applied.headers["Location"]).get_data(as_text=True)
        seen[where + " → applied"] = english(after, names)
    return Crawl(seen)


@pytest.fixture(params=["simple14", "s10", "dual"])
def mid(request, tmp_path, monkeypatch):
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    game = mid_game(tmp_path, request.param)
    yield game
    game.close()


def test_desk_chinese__english_is_found_by_the_check():
    """The check itself: English prose fails, names, BBCode, links and codes do not."""
    page = ("<html><body><main><p>投票对象：Alice [b]粗[/b] http://a.example/forum.php?mod=x pid 12</p>"
            "<input placeholder='reason'><code>forumbot run</code>"
            "<details data-raw><summary>原始</summary>key=value</details></main></body></html>")
    assert english(page) == ["reason"]
    assert english("<p>已撤销 (nothing published yet)</p>") == ["nothing", "published", "yet"]


def test_desk_chinese__every_page_and_confirm_page_mid_play(mid):
    result = crawl(mid)
    visited = set(result.pages)
    for page in ("/", "/tally", "/drafts", "/cards", "/actions", "/events", "/log", "/activity"):
        assert page in visited, sorted(visited)
    # every event form of the rule set was sent (each later one to a game the earlier changed)
    sent = {p.split()[1] for p in visited if p.startswith("/event ")}
    own = {"s10": {"idiot"}, "dual": {"identity_lost", "scapegoat", "voters"}}.get(mid.ruleset, set())
    assert sent >= {"night", "out", "sheriff", "accelerated", "substitute", "alias", "void"} | own, sent
    assert len([p for p in visited if p.startswith("/event ") and "applied" in p]) >= 6
    assert any("/undo" in p for p in visited) and any("/correct" in p for p in visited)
    assert result.bad() == {}


def test_desk_chinese__error_pages(mid):
    app, client = _client(mid)
    pages = {
        "404": client.get("/nope"),
        "404 day": client.get("/tally?day=99"),
        "405": client.get("/event"),
        "400 csrf": client.post("/event", data={"kind": "out"}),
        "400 host": client.get("/", headers={"Host": "evil.example"}),
    }
    client.get("/")  # a session with a CSRF token

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    app.testing = False  # let the 500 handler answer, as in production
    from forumbot.desk import data

    original = data.game_now
    data.game_now = broken
    try:
        pages["500"] = client.get("/")
    finally:
        data.game_now = original
    for name, response in pages.items():
        code = int(name.split()[0])
        assert response.status_code == code, name
        text = response.get_data(as_text=True)
        assert english(text) == [], (name, english(text))
        assert "Traceback" not in text and "boom" not in text


def test_desk_chinese__login_and_lockout_pages(tmp_path, monkeypatch):
    monkeypatch.setenv("FORUMBOT_DESK_TOKEN", "correct-horse-battery")
    g = store_game(tmp_path, "simple14", players=PLAYERS)
    try:
        app = create_app(g.rt.config.path, host="0.0.0.0", clock=g.clock)
        client = app.test_client()
        page = client.get("/login").get_data(as_text=True)
        assert english(page) == []
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        for _ in range(6):
            last = client.post("/login", data={"csrf_token": token, "token": "guess"})
        assert last.status_code == 429
        assert english(last.get_data(as_text=True)) == []
    finally:
        g.close()


def test_desk_chinese__the_mid_game_has_what_the_pages_must_say(mid):
    """The crawl is only as good as the game: it has every kind of thing to show."""
    rt = mid.rt
    status = director.status(rt, rt.clock.now())
    assert status.waiting_for and status.failed and status.proposals and status.stale_published
    assert [d for d in rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT]
    kinds = {v.kind for v in director.list_events(rt)}
    assert {"void", "night", "out", "retract"} <= kinds
    if mid.ruleset == "dual":
        assert {"identity_lost", "voters", "scapegoat"} <= kinds
    assert talk_tid(1) and PROGRESS


# ---------------------------------------------------------------- the words themselves


@pytest.mark.parametrize("raw,said", [
    ("第3日前夜的结果尚未录入（forumbot night --day 3）", "第3日前夜的结果尚未录入"),
    ("警长：空缺 —— 饺子（出局）；可随机移交（forumbot draw-sheriff）", "警长：空缺 —— 饺子（出局）；可以随机移交"),
    ("还没有任何一天开始：请用 --day 指定", "还没有任何一天开始：请指定是第几日"),
    ("双身份：出局会去掉该角色全部身份；只失去一层身份请用 identity-lost", "双身份：出局会去掉该角色全部身份；只失去一层身份请用「身份死亡」"),
    ("字体 (badge draw seed=42)", "字体（警徽随机移交，随机种子 42）"),
])
def test_desk_chinese__library_lines_lose_their_command_hints(raw, said):
    from forumbot.wording import clean

    assert clean(raw) == said


def test_desk_chinese__english_refusals_are_translated_and_kept_raw():
    from forumbot.wording import error_zh, forum_error
    from forumbot.store.outbox import InvalidTransitionError

    said = error_zh(InvalidTransitionError("draft #5 is published; cannot move it to approved"))
    assert said.text == "#5 现在是「已发布」，不能再改为「已批准，等待发出」" and "published" in said.raw
    unknown = error_zh(ValueError("something odd happened"))
    assert unknown.text == "操作未能完成（原因见原始信息）" and unknown.raw == "something odd happened"
    assert error_zh(ValueError("“Alice”不是玩家")).text == "“Alice”不是玩家"
    refused = forum_error("ThreadClosed: 本主题已关闭，您不能回复")
    assert refused.text == "帖子已关闭：本主题已关闭，您不能回复" and refused.raw.startswith("ThreadClosed")
    timeout = forum_error("ForumUnavailable: read timeout")
    assert timeout.text == "论坛没有响应" and "read timeout" in timeout.raw


@pytest.mark.parametrize("action,detail,said", [
    ("outbox.draft", {"draft": 3, "kind": "final_count", "day": 2}, "起草 #3 最终计票（第2日）"),
    ("outbox.approved", {"draft": 3, "edited": True}, "批准 #3 最终计票（第2日）（按修改稿）"),
    ("outbox.approved", {"draft": 3, "policy": "auto"}, "自动批准 #3 最终计票（第2日）（此类帖子无需审批）"),
    ("outbox.publishing", {"draft": 3, "attempt": 2, "rendered_at_publish": True},
     "开始发送 #3 最终计票（第2日）（第 2 次），已按发出时的票数重新生成"),
    ("outbox.published", {"draft": 3, "pid": 77}, "#3 最终计票（第2日） 已发布（pid 77）"),
    ("outbox.published", {"draft": 3, "pid": None, "moderated": True}, "#3 最终计票（第2日） 已提交，论坛审核中"),
    ("outbox.pending_moderation", {"draft": 3}, "#3 最终计票（第2日） 已提交，论坛审核中"),
    ("outbox.failed", {"draft": 3, "error": "FloodControl: 您两次发表间隔少于 15 秒"},
     "#3 最终计票（第2日） 发送失败：发帖太快（论坛的灌水限制）：您两次发表间隔少于 15 秒"),
    ("outbox.superseded", {"draft": 3, "by": 4}, "#3 最终计票（第2日） 被新的 #4 取代，不再发送"),
    ("card.given", {"player": "包子", "color": "yellow", "day": 2, "reason": "字体 (badge draw seed=7)"},
     "给 包子 黄牌（第2日）：字体（警徽随机移交，随机种子 7）"),
    ("retally", {"day": 2, "changed": True}, "重新计票第2日：有变化"),
    ("config.changed", {"hash": "abc123"}, "游戏配置有变化（已保存新的配置快照）"),
    ("evidence.exported", {"day": 2, "file": "/tmp/day2.json"}, "导出第2日的证据文件（文件位置和校验和见原始数据）"),
    ("event.retract", {"event": 5, "why": "手误"}, "撤销了事件 #5：手误"),
    ("event.out", {"event": 6, "player": "包子", "why": "hunter", "game_at": "2026-12-02T20:00:00+08:00"},
     "记录事件 #6：包子 被猎人带走，生效时间 12-02 20:00"),
    ("something.new", {"x": 1}, "其他操作（见原始数据）"),
])
def test_desk_chinese__audit_actions_as_sentences(action, detail, said):
    from types import SimpleNamespace

    from forumbot.wording import LogContext, audit_sentence

    draft = SimpleNamespace(kind=SimpleNamespace(value="final_count"), day=2)
    assert audit_sentence(action, detail, LogContext(events={}, drafts={3: draft})) == said


# ---------------------------------------------------------------- the raw data (issue 18 item 11)

# Codes the audit stores that a director must not meet as such in the 原始数据 column.
_RAW_CODES = {"True", "False", "None", "draft", "approved", "publishing", "published", "failed", "rejected",
              "superseded", "pending_moderation", "final_count", "running_count", "card_notice", "announcement",
              "manual", "auto", "blue", "yellow", "red", "lurking_day", "lurking_span", "no_vote", "vote", "night",
              "hunter", "lover", "other", "result", "new post"}


def _raw_blocks(page: str) -> list[str]:
    doc = lxml.html.fromstring(page)
    return [el.text_content() for el in doc.xpath("//*[@data-raw]//code")]


def test_desk_chinese__the_log_s_raw_data_names_its_fields_in_chinese(mid):
    """The log's 原始数据: each field under its Chinese name, codes in words (草稿=3；按修改稿=是),
    only the action's own code (outbox.approved) and the stored values left as they are."""
    _, client = _client(mid)
    blocks = _raw_blocks(client.get("/log").get_data(as_text=True))
    assert len(blocks) > 10
    for block in blocks:
        action, _, fields = block.partition("  ")
        assert re.fullmatch(r"[a-z_.]+", action), block
        for field in filter(None, fields.split("；")):
            key, _, value = field.partition("=")
            assert not re.search(r"[A-Za-z]", key.replace("pid", "").replace("tid", "").replace("uid", "")), block
            assert value not in _RAW_CODES, (key, value, block)


def test_desk_chinese__raw_data_on_every_page_has_no_english_sentence(mid):
    """The collapsed raw data of every page (the log's entries, a refusal's original
    text): no English sentence a director would read (names and codes may stay)."""
    from tests.forumbot.chinese_support import english_sentences

    result = crawl(mid, apply=False)
    _, client = _client(mid)
    found = {}
    for path in (p for p in result.pages if p.startswith("/") and " " not in p):
        for block in _raw_blocks(client.get(path).get_data(as_text=True)):
            if sentences := english_sentences(block, PLAYERS + ("包包",)):
                found[path] = (block, sentences)
    assert found == {}
