"""The desk's side of the game over time (issue 11 items 1–7, issue 12 item 5), with
Flask's test client on games kept in a store (``game_support``):

* each rule set shows only its own forms; no list preselects a player; default game
  times as SPEC §9 gives them;
* the successor sheriff only from the candidates, the random draw only when the rules
  offer it; acceleration per rule set; 冤死's list; cards that send off;
* every event undone and corrected from the events page, each with its preview;
* the banners: what waits for the director, the game's end, the agent's health;
* the drafts page says how counts are rendered; the audit log in sentences.
"""

from __future__ import annotations

import html
import json
import os
import re
import lxml.html
import pytest
from click.testing import CliRunner

from forumbot.game import director
from forumbot.cli import main
from forumbot.game.clock import AcceleratedClock
from forumbot.desk import create_app
from forumbot.wording import state_zh
from forumbot.game.gamelog import EventSpec
from forumbot.agent.instance import InstanceLock, lock_path
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.game.runtime import CLOCK_ENV, clock_to_env
from tests.forumbot.game_support import at, store_game, vote_tid
from tests.forumbot.test_desk_chinese import PLAYERS, _publish, english, mid_game
from tests.forumbot.outbox_fakes import FakeForum


class Desk:
    """A desk on a store game: GET pages, POST forms (with the CSRF token), confirm."""

    def __init__(self, game):
        self.game = game
        app = create_app(game.rt.config.path, clock=game.clock, secret_key=b"k" * 32)
        app.testing = True
        self.client = app.test_client()
        self.client.get("/")

    @property
    def rt(self):
        return self.game.rt

    def get(self, path: str) -> str:
        response = self.client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        return response.get_data(as_text=True)

    def token(self) -> str:
        return re.search(r'name="csrf_token" value="([^"]+)"', self.get("/actions")).group(1)

    def post(self, path: str, form: dict):
        return self.client.post(path, data={**form, "csrf_token": self.token()})

    def preview(self, path: str, form: dict) -> str:
        response = self.post(path, form)
        if response.status_code == 302:
            flashed = self.get(response.headers["Location"])
            pytest.fail("refused: " + " ".join(re.findall(r'class="flash error"[^>]*>([^<]*)', flashed)))
        page = response.get_data(as_text=True)
        assert 'id="confirm-form"' in page
        return page

    def confirm(self, page: str) -> str:
        """Press the confirm page's button; the flash it leads to."""
        form = lxml.html.fromstring(page).xpath("//form[@id='confirm-form']")[0]
        data: dict[str, list[str]] = {}
        for el in form.xpath(".//input[@type='hidden']"):
            data.setdefault(el.get("name"), []).append(el.get("value"))
        response = self.client.post(form.get("action"), data=data)
        assert response.status_code == 302, response.get_data(as_text=True)[:2000]
        landed = self.get(response.headers["Location"])
        return " ".join(re.findall(r'class="flash (?:ok|error)"[^>]*>([^<]*)', landed))

    def refused(self, path: str, form: dict) -> str:
        response = self.post(path, form)
        assert response.status_code == 302
        return " ".join(re.findall(r'class="flash error"[^>]*>([^<]*)', self.get(response.headers["Location"])))


def text_of(page: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def section(page: str, anchor: str) -> str:
    match = re.search(rf'<section class="card" id="{anchor}">(.*?)</section>', page, re.S)
    return match.group(1) if match else ""


@pytest.fixture
def game(tmp_path, monkeypatch):
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    games = []

    def make(ruleset: str, **config):
        config.setdefault("players", PLAYERS)
        (tmp_path / ruleset).mkdir(exist_ok=True)
        g = store_game(tmp_path / ruleset, ruleset, **config)
        games.append(g)
        return g

    yield make
    for g in games:
        g.close()


@pytest.fixture
def mid(tmp_path, monkeypatch):
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    made = []

    def make(ruleset: str):
        (tmp_path / ruleset).mkdir(exist_ok=True)
        m = mid_game(tmp_path / ruleset, ruleset)
        made.append(m)
        return m

    yield make
    for m in made:
        m.close()


# ---------------------------------------------------------------- the forms a rule set has


SECTIONS = {"night", "out", "identity", "idiot", "sheriff", "scapegoat", "voters", "accelerate", "substitute", "alias",
            "void"}
OWN = {"simple14": set(), "s09": set(), "s10": {"idiot"}, "dual": {"identity", "scapegoat", "voters"}}


@pytest.mark.parametrize("ruleset", ["simple14", "s09", "s10", "dual"])
def test_desk_events__each_rule_set_shows_only_its_own_forms(game, ruleset):
    g = game(ruleset)
    g.at(at(1, "12:00"))
    page = Desk(g).get("/actions")
    shown = {s for s in SECTIONS if f'<section class="card" id="{s}">' in page}
    assert shown == SECTIONS - {"identity", "idiot", "scapegoat", "voters"} | OWN[ruleset]


@pytest.mark.parametrize("ruleset,kind,field", [("simple14", "identity_lost", {"player": "包子", "why": "night"}),
                                                ("s10", "voters", {"day": "2", "players": "包子"}),
                                                ("dual", "idiot", {"player": "包子"}),
                                                ("simple14", "scapegoat", {"player": "包子"})])
def test_desk_events__a_kind_the_rule_set_lacks_is_refused(game, ruleset, kind, field):
    g = game(ruleset)
    g.at(at(1, "12:00"))
    said = Desk(g).refused("/event", {"kind": kind, **field})
    assert "本局规则没有" in said
    assert director.list_events(g.rt) == []


@pytest.mark.parametrize("ruleset", ["simple14", "s10", "dual"])
def test_desk_events__no_list_preselects_a_player(mid, ruleset):
    m = mid(ruleset)
    desk = Desk(m.game)
    checked = 0
    for path in ("/actions", "/cards"):
        doc = lxml.html.fromstring(desk.get(path))
        for select in doc.xpath("//select[@name='player' or @name='players' or @name='old']"):
            options = select.xpath("./option")
            chosen = [o for o in options if o.get("selected") is not None] or options[:1]
            assert chosen[0].get("value") == "", (path, lxml.html.tostring(select, encoding=str)[:300])
            assert select.get("required") is not None or select.get("name") == "players"
            checked += 1
        for box in doc.xpath("//input[@type='checkbox']"):
            assert box.get("checked") is None  # 冤死's list, 平安夜: nothing ticked for the director
    assert checked >= 8


def test_desk_events__no_player_is_entered_by_a_bare_submit(game):
    """A form sent with its first (empty) choice — one tap on a phone — changes nothing."""
    g = game("simple14")
    g.at(at(1, "12:00"))
    desk = Desk(g)
    assert "请先选择玩家" in desk.refused("/event", {"kind": "out", "player": "", "why": "hunter"})
    assert "请选择原因" in desk.refused("/event", {"kind": "out", "player": "包子", "why": ""})
    assert "请先选择玩家" in desk.refused("/event", {"kind": "sheriff", "player": ""})
    assert "请选择出局的玩家，或勾选「平安夜」" in desk.refused("/event", {"kind": "night", "day": "2"})
    assert "请选择牌色" in desk.refused("/cards/give", {"player": "包子", "color": "", "why": "x"})
    assert "请先选择玩家" in desk.refused("/cards/give", {"player": "", "color": "red", "why": "x"})
    assert director.list_events(g.rt) == [] and g.rt.store.cards() == []


# ---------------------------------------------------------------- game times


def test_desk_events__default_times_follow_spec_9(game):
    g = game("simple14")
    g.at(at(1, "22:00"))  # day 1's vote is over: the coming night is before day 2's morning
    desk = Desk(g)
    page = desk.get("/actions")
    defaults = lxml.html.fromstring(page).xpath("//script[@id='time-defaults']")[0].text
    assert '"night_day": 2' in defaults and '"vote_day": 1' in defaults
    assert '"now": "2026-12-01T22:00:00"' in defaults
    assert '"2": {"deadline": "2026-12-02T21:30:00", "start": "2026-12-02T09:00:00"}' in defaults
    night = section(page, "night")
    assert re.search(r'<option value="2"\s+selected>', night)
    # Left empty, the confirm page says which default applies, and the confirmation records it.
    vote = desk.preview("/event", {"kind": "out", "player": "包子", "why": "vote", "day": "1"})
    assert "生效时间：2026-12-01 21:30:00（投票出局默认在当日截止时生效）" in text_of(vote)
    night_out = desk.preview("/event", {"kind": "out", "player": "包子", "why": "night", "day": "2"})
    assert "生效时间：2026-12-02 09:00:00（夜晚出局默认在次日开始时生效）" in text_of(night_out)
    daytime = desk.preview("/event", {"kind": "out", "player": "包子", "why": "lover"})
    assert "生效时间：2026-12-01 22:00:00（白天出局默认为现在）" in text_of(daytime)
    typed = desk.preview("/event", {"kind": "out", "player": "包子", "why": "hunter", "at": "2026-12-01T20:15"})
    assert "生效时间：2026-12-01 20:15:00（你填写的时间）" in text_of(typed)
    desk.confirm(typed)
    (event,) = director.list_events(g.rt)
    assert event.game_at.isoformat() == "2026-12-01T20:15:00+08:00"


# ---------------------------------------------------------------- the badge


def test_desk_events__successor_only_from_the_candidates(mid):
    m = mid("simple14")  # 饺子, the sheriff, died in the night before day 2
    desk = Desk(m.game)
    sheriff = section(desk.get("/actions"), "sheriff")
    options = re.findall(r'<option value="([^"]*)"', sheriff)
    candidates = director.successor_candidates(m.rt, m.game.clock.now())
    assert options == ["", *candidates] and "饺子" not in options
    assert "等待 饺子（出局）指定继任者" in html.unescape(sheriff)
    assert "不能继任警长" in desk.refused("/event", {"kind": "sheriff", "player": "饺子"})
    page = desk.preview("/event", {"kind": "sheriff", "player": "包子"})
    assert "警长：包子（接替 饺子）" in text_of(page)
    assert "2026-12-02 09:00:00（继任警长默认从警徽空缺时起生效）" in text_of(page)
    said = desk.confirm(page)
    assert "警长通知草稿" in said
    assert director.badge(m.rt, m.game.clock.now()).sheriff == "包子"


def _elect(g, sheriff: str = "饺子") -> None:
    """Day 1 is the sheriff's election."""
    for who in ("包子", "汤圆"):
        g.vote(1, "10:00", who, sheriff)
    g.approve_final(1, at(1, "21:40"))


def _voted_out_sheriff(game, ruleset: str):
    g = game(ruleset)
    _elect(g)
    for who in ("包子", "汤圆", "月饼"):
        g.vote(2, "10:00", who, "饺子")
    g.vote(2, "10:30", "饺子", "包子")
    g.approve_final(2, at(2, "21:40"))
    return g


def test_desk_events__the_draw_is_offered_thirty_minutes_after_a_voted_out_sheriff(game):
    g = _voted_out_sheriff(game, "simple14")
    desk = Desk(g)
    g.at(at(2, "21:50"))
    sheriff = section(desk.get("/actions"), "sheriff")
    assert 'id="form-draw"' not in sheriff and "12-02 22:00 起可随机移交警徽" in html.unescape(sheriff)
    g.at(at(2, "22:01"))
    sheriff = section(desk.get("/actions"), "sheriff")
    assert 'id="form-draw"' in sheriff
    page = desk.preview("/sheriff/draw", {})
    candidates = director.successor_candidates(g.rt, g.clock.now())
    assert "候选：" + "、".join(candidates) in text_of(page)
    said = desk.confirm(page)
    badge = director.badge(g.rt, g.clock.now())
    assert badge.sheriff in candidates and f"警长：{badge.sheriff}" in said
    (drawn,) = [e for e in director.list_events(g.rt) if e.kind == "sheriff" and e.payload.get("seed") is not None]
    assert drawn.payload["candidates"] == list(candidates)


@pytest.mark.parametrize("ruleset", ["s10", "dual"])
def test_desk_events__no_draw_where_the_rules_have_none(game, ruleset):
    g = _voted_out_sheriff(game, ruleset)
    g.at(at(3, "08:00"))
    desk = Desk(g)
    sheriff = section(desk.get("/actions"), "sheriff")
    assert 'id="form-draw"' not in sheriff and "随机移交" not in sheriff
    said = desk.refused("/sheriff/draw", {})
    assert "本规则不随机移交警徽" in said


def test_desk_events__dual_send_off_leaves_the_badge_vacant_without_a_successor_form(game):
    g = game("dual")
    _elect(g)
    g.at(at(2, "12:00"))
    desk = Desk(g)
    # 双身份 has no red card: 累计扣满12分者将予以罚下
    page = desk.preview("/cards/give", {"player": "饺子", "color": "points", "points": "12", "why": "辱骂"})
    assert "饺子 累计扣满12分，将被罚下（无遗言），从现在起出局" in text_of(page)
    desk.confirm(page)
    sheriff = section(desk.get("/actions"), "sheriff")
    assert "被罚下，不触发【殉职】" in html.unescape(sheriff) and "<select" not in sheriff


def test_desk_events__a_red_card_for_the_sheriff_draws_the_badge_in_simple14(game):
    g = game("simple14")
    _elect(g)
    g.at(at(2, "12:00"))
    desk = Desk(g)
    page = desk.preview("/cards/give", {"player": "饺子", "color": "red", "why": "辱骂"})
    text = text_of(page)
    assert "饺子 将被罚下" in text and "警徽将随机移交（确认时抽签，随机种子会记录）" in text
    said = desk.confirm(page)
    assert "罚下" in said and "警徽随机移交给" in said and "随机种子" in said
    assert director.badge(g.rt, g.clock.now()).sheriff not in (None, "饺子")


def test_desk_events__a_card_taken_back_from_the_ledger_with_its_send_off_and_draw(game):
    g = game("simple14")
    _elect(g)
    g.at(at(2, "12:00"))
    desk = Desk(g)
    desk.confirm(desk.preview("/cards/give", {"player": "饺子", "color": "red", "why": "辱骂"}))
    drawn = director.badge(g.rt, g.clock.now()).sheriff
    (entry,) = g.rt.store.cards()
    cards = desk.get("/cards")
    assert f'action="/cards/{entry.id}/undo"' in cards
    assert "请填写撤销判罚的理由" in desk.refused(f"/cards/{entry.id}/undo", {"why": ""})
    g.at(at(2, "12:10"))
    page = desk.preview(f"/cards/{entry.id}/undo", {"why": "记错了人"})
    text = text_of(page)
    assert f"撤销判罚 #{entry.id}：饺子 的红牌（辱骂" in text and "会生成一篇【撤销判罚】通知草稿" in text
    assert "警长：饺子" in text and "警长：警长" not in text
    assert "一并撤销这张牌造成的事件" in text and "理由：记错了人" in text
    assert g.rt.store.card(entry.id).standing  # the preview changed nothing
    said = desk.confirm(page)
    assert f"已撤销判罚 #{entry.id}：饺子 的红牌" in said and "通知草稿" in said
    assert not g.rt.store.card(entry.id).standing
    assert not g.state().is_out("饺子", g.clock.now()) and drawn != "饺子"
    assert director.badge(g.rt, g.clock.now()).sheriff == "饺子"  # the draw is taken back too
    ledger = html.unescape(desk.get("/cards"))
    row = re.search(rf'<tr id="card-{entry.id}"[^>]*>(.*?)</tr>', ledger, re.S).group(1)
    assert "已于" in row and "撤销：记错了人" in row and "<form" not in row
    assert f"判罚 #{entry.id} 已于" in desk.refused(f"/cards/{entry.id}/undo", {"why": "再撤一次"})


# ---------------------------------------------------------------- acceleration


@pytest.mark.parametrize("ruleset,rule", [("simple14", "超过存活玩家的一半"), ("dual", "所有存活角色均同意"),
                                          ("s10", "是否加速由你决定")])
def test_desk_events__acceleration_per_rule_set(game, ruleset, rule):
    g = game(ruleset)
    g.progress(1, "10:00", "包子", "申请加速")
    g.at(at(1, "12:00"))
    desk = Desk(g)
    part = html.unescape(section(desk.get("/actions"), "accelerate"))
    assert rule in part and "加速申请 1" in part and "确认第1日加速" in part
    assert ("所有改票作废" in part) is (ruleset == "simple14")
    page = desk.preview("/event", {"kind": "accelerated", "day": "1"})
    desk.confirm(page)
    assert g.state().day(1).accelerated
    assert "现在没有可以加速的一天" in html.unescape(section(desk.get("/actions"), "accelerate"))


def test_desk_events__enough_requests_are_in_the_banner(game):
    g = game("simple14")
    for who in ("包子", "汤圆", "月饼", "Alice"):
        g.progress(1, "10:00", who, "申请加速")
    g.at(at(1, "12:00"))
    assert "第1日的加速申请已达到人数：请决定是否确认加速" in html.unescape(Desk(g).get("/"))


# ---------------------------------------------------------------- 双身份 and S10


def test_desk_events__dual_identity_and_wrongful_death_list(game):
    g = game("dual")
    g.at(at(1, "12:00"))
    desk = Desk(g)
    page = desk.preview("/event", {"kind": "identity_lost", "player": "包子", "why": "hunter"})
    assert "包子 身份死亡" in text_of(page)
    desk.confirm(page)
    assert g.state().lives("包子") == 1 and not g.state().is_out("包子")
    assert "只剩一层身份：包子" in html.unescape(desk.get("/"))
    said = desk.refused("/event", {"kind": "voters", "day": "2"})
    assert "请勾选可以投票的玩家，或勾选「无人可投票」" in said
    page = desk.preview("/event", {"kind": "voters", "day": "2", "nobody": "1"})
    assert "冤死：第2日无人可以投票，无人出局" in text_of(page)
    desk.confirm(page)
    page = desk.preview("/event", {"kind": "scapegoat", "player": "__none__"})
    assert "替罪羊：无" in text_of(page)


def test_desk_events__s10_ruoyu_keeps_the_idiot_in(game):
    g = game("s10")
    _elect(g)
    for who in ("包子", "汤圆", "月饼"):
        g.vote(2, "10:00", who, "烧卖")
    g.approve_final(2, at(2, "21:40"))
    g.at(at(2, "21:45"))
    desk = Desk(g)
    idiot = section(desk.get("/actions"), "idiot")
    assert '<option value="烧卖">' in idiot  # voted out, so listed for 若愚
    page = desk.preview("/event", {"kind": "idiot", "player": "烧卖"})
    assert "免于投票出局" in text_of(page) and "2026-12-02 21:30:00" in text_of(page)
    desk.confirm(page)
    assert not g.state().is_out("烧卖")


# ---------------------------------------------------------------- undo and correct


def _tally_counts(desk: Desk, day: int) -> str:
    return re.search(r'<table class="grid" id="counts">(.*?)</table>', desk.get(f"/tally?day={day}"), re.S).group(1)


def test_desk_events__undo_from_the_events_page_brings_the_tally_back(game):
    g = game("simple14")
    g.vote(1, "10:00", "包子", "汤圆")
    g.vote(1, "10:10", "月饼", "汤圆")
    g.vote(1, "10:20", "汤圆", "包子")
    g.at(at(1, "12:00"))
    desk = Desk(g)
    before = _tally_counts(desk, 1)
    page = desk.preview("/event", {"kind": "out", "player": "汤圆", "why": "hunter", "at": "2026-12-01T11:00"})
    # The votes standing on 汤圆 count for no one, and so does 汤圆's own.
    assert "汤圆 2 0" in text_of(page) and "包子 1 0" in text_of(page)
    desk.confirm(page)
    assert _tally_counts(desk, 1) != before
    events = desk.get("/events")
    (event,) = director.list_events(g.rt)
    row = re.search(rf'<tr id="event-{event.id}".*?</tr>', events, re.S).group(0)
    assert "12-01 11:00" in row and "12-01 12:00" in row and "导演" in row and "生效" in row
    assert "被猎人带走" in html.unescape(row)
    undo = desk.preview(f"/events/{event.id}/undo", {"why": "手误"})
    assert f"确认：撤销事件 #{event.id}" in text_of(undo) and "理由：手误" in text_of(undo)
    said = desk.confirm(undo)
    assert f"已撤销事件 #{event.id}" in said
    assert _tally_counts(desk, 1) == before
    assert not g.state().is_out("汤圆")
    # The undo is itself an event: undoing it brings the out back.
    retraction = director.list_events(g.rt)[-1]
    assert "恢复 #" in desk.get("/events")
    said = desk.confirm(desk.preview(f"/events/{retraction.id}/undo", {"why": "其实没错"}))
    assert f"已恢复事件 #{event.id}" in said and g.state().is_out("汤圆")


def test_desk_events__undo_needs_a_reason(game):
    g = game("simple14")
    g.at(at(1, "12:00"))
    applied = g.enter(EventSpec("out", player="汤圆", why="hunter"), at(1, "12:00"))
    assert "请填写撤销的理由" in Desk(g).refused(f"/events/{applied.event.id}/undo", {"why": " "})


def test_desk_events__correct_the_wrong_player_and_time(game):
    g = game("simple14")
    g.at(at(1, "12:00"))
    desk = Desk(g)
    desk.confirm(desk.preview("/event", {"kind": "out", "player": "汤圆", "why": "hunter"}))
    (event,) = director.list_events(g.rt)
    form = desk.get(f"/events/{event.id}/correct")
    assert "（不变：汤圆）" in form
    player = lxml.html.fromstring(form).xpath("//select[@name='player']")[0]
    assert player.xpath("./option[@selected]")[0].get("value") == ""
    page = desk.preview(f"/events/{event.id}/correct", {"player": "月饼", "at": "2026-12-01T11:30",
                                                        "because": "录错了人"})
    assert f"更正事件 #{event.id}" in text_of(page) and "月饼 被猎人带走" in text_of(page)
    desk.confirm(page)
    state = g.state()
    assert state.is_out("月饼") and not state.is_out("汤圆")
    assert state.out_record("月饼").at.isoformat() == "2026-12-01T11:30:00+08:00"
    rows = desk.get("/events")
    assert f"已撤销（见 #{event.id + 1}）" in rows and f"更正了 #{event.id}" in rows


def test_desk_events__events_page_escapes_names(game):
    g = game("simple14", players=PLAYERS + ("<b>x</b>",))
    g.at(at(1, "12:00"))
    g.enter(EventSpec("out", player="<b>x</b>", why="hunter"), at(1, "12:00"))
    page = Desk(g).get("/events")
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page


def test_desk_events__night_results_and_the_announcement(game):
    g = game("simple14")
    g.at(at(2, "08:00"))
    desk = Desk(g)
    page = desk.preview("/event", {"kind": "night", "day": "2", "players": ["", "汤圆", "包子"]})
    assert "第2日前夜（12-02 09:00 生效）：汤圆、包子" in text_of(page)
    said = desk.confirm(page)
    assert "第2日前夜：汤圆、包子" in said and "公示草稿 #" in said
    assert g.rt.store.night_result(2).out == ("汤圆", "包子")
    said = desk.refused("/event", {"kind": "night", "day": "3", "players": "汤圆", "nobody": "1"})
    assert "请只选一种" in said
    desk.confirm(desk.preview("/event", {"kind": "night", "day": "3", "nobody": "1"}))
    assert g.rt.store.night_result(3).out == ()


# ---------------------------------------------------------------- banners


def test_desk_events__banner_says_what_waits_for_the_director(mid):
    m = mid("simple14")
    desk = Desk(m.game)
    for path in ("/", "/tally", "/drafts", "/cards", "/actions", "/events", "/log", "/activity"):
        waiting = re.search(r'<section class="card attention" id="waiting">(.*?)</section>', desk.get(path), re.S)
        assert waiting, path
        text = html.unescape(waiting.group(1))
        assert "警长：空缺 —— 等待 饺子（出局）指定继任者" in text, text
        assert "1 篇帖子发送失败" in text and "1 条判罚提议" in text
        assert "已发布的最终计票（第1日） #1（pid 1）已不正确" in text
        assert "forumbot" not in text
    # After day 2's deadline: the night before day 3 is awaited.
    m.game.at(at(2, "22:00"))
    text = html.unescape(desk.get("/"))
    assert "第3日前夜的结果尚未录入" in text and 'href="/actions#night"' in text


def test_desk_events__stale_final_count_can_be_redrafted(mid):
    m = mid("simple14")
    desk = Desk(m.game)
    drafts = desk.get("/drafts")
    assert '<section class="card attention" id="stale">' in drafts and "起草第1日更正的最终计票" in drafts
    response = desk.post("/redraft", {"day": "1"})
    page = desk.get(response.headers["Location"])
    assert "已起草第1日更正的最终计票" in page
    (fresh,) = [d for d in m.rt.outbox.awaiting_approval() if d.kind is DraftKind.FINAL_COUNT]
    assert "更正" in fresh.body


def test_desk_events__game_over_when_the_director_says_so_and_undone(mid):
    m = mid("simple14")
    desk = Desk(m.game)
    assert 'id="game-over"' not in desk.get("/")
    assert "请选择结局" in desk.refused("/game/over", {"winner": ""})
    page = desk.preview("/game/over", {"winner": "good", "note": "狼人全部出局"})
    assert "结局：好人阵营胜利（狼人全部出局）" in text_of(page)
    assert 'id="game-over"' not in desk.get("/")  # the preview changed nothing
    desk.confirm(page)
    m.game.at(at(2, "22:00"))
    now = html.unescape(desk.get("/"))
    assert "游戏已结束：好人阵营胜利（狼人全部出局）" in now
    waiting = now.split('id="waiting"')[1].split("</section>")[0]
    assert "前夜的结果尚未录入" not in waiting and "指定继任者" not in waiting
    assert "1 篇帖子发送失败" in waiting  # what is still undone is still said
    # forumbot status says it too, and stops asking for the next night
    said = director.status(m.rt, m.game.clock.now())
    assert said.over and said.over.startswith("游戏已结束：好人阵营胜利（狼人全部出局）")
    assert not [line for line in said.waiting_for if "前夜" in line or "继任" in line]
    os.environ[CLOCK_ENV] = clock_to_env(AcceleratedClock(origin=m.game.clock.now(), factor=1.0))
    try:
        shown = CliRunner().invoke(main, ["status", "--config", str(m.rt.config.path)], catch_exceptions=False)
        as_json = CliRunner().invoke(main, ["status", "--json", "--config", str(m.rt.config.path)],
                                     catch_exceptions=False)
    finally:
        os.environ.pop(CLOCK_ENV, None)
    assert "游戏已结束：好人阵营胜利" in shown.output and "前夜的结果尚未录入" not in shown.output
    assert json.loads(as_json.output)["game_over"].startswith("游戏已结束：好人阵营胜利")
    response = desk.post("/game/resume", {"why": "宣布错了"})
    assert "已撤销游戏结束" in desk.get(response.headers["Location"])
    assert 'id="game-over"' not in desk.get("/")
    assert director.status(m.rt, m.game.clock.now()).over is None
    actions = [e.action for e in m.rt.store.audit_log()]
    assert actions[-2:] == ["game.over", "game.resumed"]


def test_desk_events__game_over_when_the_last_day_is_counted(game):
    g = game("simple14", days=1)
    g.vote(1, "10:00", "包子", "汤圆")
    g.approve_final(1, at(1, "21:40"))
    assert 'id="game-over"' not in Desk(g).get("/")
    _publish(g)
    page = html.unescape(Desk(g).get("/"))
    assert "游戏已结束：配置的最后一天（第1日）的最终计票已发布" in page


def test_desk_events__agent_health(game):
    g = game("simple14")
    g.at(at(1, "12:00"))
    desk = Desk(g)
    page = html.unescape(desk.get("/"))
    assert "代理程序从未在这局游戏上运行过" in page and 'id="agent-alarm"' in page
    path = lock_path(g.rt.settings.agent.database)
    with InstanceLock.acquire(path, since=at(1, "09:00")) as lock:
        lock.update(beat=at(1, "11:59").isoformat())
        page = html.unescape(desk.get("/"))
        assert "代理程序运行中" in page and "最后一轮 12-01 11:59" in page and 'id="agent-alarm"' not in page
        lock.update(problems={"state": {"since": at(1, "11:50").isoformat(),
                                        "message": "状态无法保存：磁盘已满（/x/game.sqlite）"}},
                    desk={"error": "导演台无法使用 127.0.0.1:8765：端口 8765 已被占用"})
        page = html.unescape(desk.get("/tally"))  # every page: the banner
        assert "状态无法保存：磁盘已满（/x/game.sqlite）（自 12-01 11:50 起）" in page
        assert "代理程序自己的导演台未开启：导演台无法使用 127.0.0.1:8765" in page
        g.at(at(1, "13:00"))
        lock.update(problems={}, desk={"url": "http://127.0.0.1:8765/"})
        page = html.unescape(desk.get("/"))
        assert "但最后一轮已是 61 分钟前" in page and 'id="agent-alarm"' in page
        assert "代理程序的导演台：http://127.0.0.1:8765/" in page
    page = html.unescape(desk.get("/"))
    assert "代理程序没有在运行（上一轮在 12-01 11:59）" in page


# ---------------------------------------------------------------- drafts and the log


def test_desk_events__drafts_say_how_counts_are_rendered(game):
    g = game("simple14", extra='[policies]\nrunning_count = "manual"')  # running counts wait for the director
    g.vote(1, "10:00", "包子", "汤圆")
    g.at(at(1, "12:00"))
    waiting = g.rt.outbox.create_draft(DraftKind.RUNNING_COUNT, vote_tid(1), "计票：汤圆 1", now=g.clock.now(), day=1,
                                       dedupe_key="test-running")
    desk = Desk(g)
    article = desk.get("/drafts").split(f'id="draft-{waiting.id}"')[1].split("</article>")[0]
    assert "不修改直接批准，机器人会在发出的那一刻按当时的票数和剩余时间重新生成" in article
    assert "修改后这篇计票会原样发出：发出时不再按最新票数重新生成" in article
    desk.post(f"/drafts/{waiting.id}/approve", {"body": "导演改过的计票"})
    flight = desk.get("/drafts").split('id="in-flight"')[1].split("</ul>")[0]
    assert "导演修改过，将原样发出" in flight
    final = g.rt.outbox.create_draft(DraftKind.FINAL_COUNT, vote_tid(1), "最终计票", now=g.clock.now(), day=1,
                                     dedupe_key="test-final")
    article = desk.get("/drafts").split(f'id="draft-{final.id}"')[1].split("</article>")[0]
    assert "重新生成" not in article  # a final count is published as approved


class ModeratedForum(FakeForum):
    def reply(self, tid, message, *, quote_pid=None):
        from forumbot.discuz import ReplyResult

        super().reply(tid, message, quote_pid=quote_pid)
        return ReplyResult(None, moderated=True)


def test_desk_events__a_post_held_for_moderation_is_said(game):
    g = game("simple14")
    g.at(at(1, "12:00"))
    draft = g.rt.outbox.create_draft(DraftKind.ANNOUNCEMENT, 1, "公示", now=g.clock.now(), day=1)
    g.rt.outbox.approve(draft.id, "director", now=g.clock.now())
    forum = ModeratedForum()
    g.rt.outbox.publish_pending(forum, g.clock.now())
    forum.close()
    assert g.rt.outbox.get(draft.id).state is DraftState.PENDING_MODERATION
    desk = Desk(g)
    assert "已提交，论坛审核中" in desk.get("/drafts")
    assert "1 篇帖子在论坛审核中（版主通过后才可见）" in desk.get("/")
    assert state_zh("pending_moderation") == "论坛审核中"  # the state another part adds


def test_desk_events__failed_post_says_the_forum_refusal_in_chinese(mid):
    m = mid("simple14")
    flight = Desk(m.game).get("/drafts").split('id="in-flight"')[1].split("</ul>")[0]
    assert "帖子已关闭：本主题已关闭，您不能回复" in flight
    visible = flight.split("<details")[0]
    assert "ThreadClosed" not in visible and "ThreadClosed" in flight  # the raw error, folded away


def test_desk_events__audit_log_in_sentences(mid):
    m = mid("dual")
    page = Desk(m.game).get("/log")
    rows = lxml.html.fromstring(page).xpath("//table[contains(@class,'log')]//tr[td]")
    sentences = []
    for row in rows:
        cell = row.xpath("./td[4]")[0]
        raw = cell.xpath(".//details[@data-raw]")
        assert raw and "=" in raw[0].text_content()
        for d in raw:
            d.drop_tree()
        sentences.append(re.sub(r"\s+", " ", cell.text_content()).strip())
    assert not [s for s in sentences if "=" in s or "其他操作" in s], sentences
    joined = "\n".join(sentences)
    for said in ("判为废票（串号，导演判废）", "撤销了事件 #", "被猎人带走一层身份", "第3日可投票：包子、汤圆",
                 "给 小笼包 扣3分", "发送失败：帖子已关闭", "批准 #", "提议给 烧卖 扣分"):
        assert said in joined, (said, joined)
    assert english(page) == []


def test_desk_events__a_refusal_naming_a_latin_named_player_is_said_as_is(game):
    g = game("simple14")
    g.at(at(1, "12:00"))
    g.enter(EventSpec("out", player="Alice", why="hunter"), at(1, "12:00"))
    said = Desk(g).refused("/event", {"kind": "sheriff", "player": "Alice"})
    assert "Alice 已出局，不能继任警长" in said
