"""The director's desk with Flask's test client: every page renders, every form changes
the game through ``forumbot.game.director`` and lands in the audit log, CSRF and login guard
the forms, and player-written text is escaped in every page."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main as cli
from forumbot.desk import DeskSecurityError, bbcode_to_html, create_app, is_loopback
from forumbot.game.state import current_state
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.game.runtime import Runtime, open_runtime
from forumbot.simulator import SimClock
from forumbot.store.records import ProposalState
from parsers.models import Post, Quote, TimePrecision

from zoneinfo import ZoneInfo

TZ = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 12, 1, 9, 0, tzinfo=TZ)
EVIL = "<script>alert(1)</script>"
PLAYERS = ("饺子", "包子", EVIL, "汤圆")
VOTE_TID, TALK_TID, PROGRESS_TID = 12, 11, 10
BASE = "http://127.0.0.1:9/"


def _config(tmp: Path) -> Path:
    players = ", ".join(f'"{p}"' for p in PLAYERS)
    days = "".join(
        f'[[days]]\nnumber = {n}\nvote_thread = {VOTE_TID + 10 * (n - 1)}\n'
        f'discussion_thread = {TALK_TID + 10 * (n - 1)}\nprogress_thread = {PROGRESS_TID}\n'
        f'start = "{(START + timedelta(days=n - 1)).isoformat()}"\n'
        f'deadline = "{(START + timedelta(days=n - 1, hours=12, minutes=30)).isoformat()}"\n\n'
        for n in (1, 2)
    )
    path = tmp / "game.toml"
    path.write_text(
        f'[forum]\nbase_url = "{BASE}"\ntimezone = "Asia/Shanghai"\n\n'
        f'[game]\nruleset = "simple14"\ndirector = "导演"\nbot = "计票机器人"\nplayers = [{players}]\n\n'
        f'{days}[bot]\nusername = "计票机器人"\n\n[agent]\ndatabase = "{tmp / "game.sqlite"}"\n',
        encoding="utf-8",
    )
    return path


def _post(pid: int, floor: int, author: str, text: str, minutes: int, *, tid: int = VOTE_TID,
          quote: int | None = None) -> Post:
    quotes = (Quote(pid=quote, tid=tid, author=author, quoted_at=None, text="…"),) if quote else ()
    return Post(tid=tid, pid=pid, floor=floor, author=author, author_uid=pid, posted_at=START + timedelta(minutes=minutes),
                time_precision=TimePrecision.SECOND, html=html.escape(text), text=text, quotes=quotes)


def _seed(rt: Runtime, now: datetime) -> None:
    """Day 1 under way: valid votes, a void one, a lurker proposal, a final count waiting."""
    rt.store.record_posts([
        _post(101, 2, "饺子", "投票对象：包子\n投票理由：很可疑", 60),
        _post(102, 3, EVIL, f"投票对象：饺子\n投票理由：{EVIL}", 70),
        _post(103, 4, "包子", "投票对象：谁都不是\n投票理由：随便", 80),
        _post(104, 5, "汤圆", "投票对象：包子\n投票理由：跟票", 90),
        _post(201, 2, EVIL, f"我是{EVIL}，大家好", 30, tid=TALK_TID),
    ], seen_at=now)
    rt.store.propose_card(EVIL, "blue", "lurking_day", key="lurk:1", at=now, day=1,
                          detail=f"1 discussion posts (< 5); {EVIL}")
    rt.outbox.create_draft(DraftKind.FINAL_COUNT, VOTE_TID,
                           f"[b]【最终计票】第1日[/b]\n[table=98%]\n[tr][td]包子[/td][td]2[/td][/tr]\n[/table]\n"
                           f"[url=forum.php?mod=redirect&goto=findpost&ptid={VOTE_TID}&pid=101]饺子[/url]\n"
                           f"{EVIL.replace('[', '&#091;')}", now=now, day=1, dedupe_key="final:1")


@dataclass
class Desk:
    config: Path
    clock: SimClock
    client: object

    def runtime(self) -> Runtime:
        return open_runtime(self.config, clock=self.clock)

    def token(self, page: str = "/actions") -> str:
        text = self.client.get(page).get_data(as_text=True)
        return re.search(r'name="csrf_token" value="([^"]+)"', text).group(1)

    def post(self, path: str, form: dict[str, str], *, token: bool = True):
        data = dict(form)
        if token:
            data["csrf_token"] = self.token()
        return self.client.post(path, data=data)


@pytest.fixture
def desk(tmp_path, monkeypatch) -> Desk:
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    config = _config(tmp_path)
    clock = SimClock(start=START + timedelta(hours=3))
    rt = open_runtime(config, clock=clock)
    try:
        _seed(rt, clock.now())
    finally:
        rt.close()
    app = create_app(config, clock=clock, secret_key=b"k" * 32)
    app.testing = True
    return Desk(config, clock, app.test_client())


def _audit(desk: Desk):
    rt = desk.runtime()
    try:
        return rt.store.audit_log()
    finally:
        rt.close()


# ---------------------------------------------------------------- pages

PAGES = [
    ("/", "第1日"),
    ("/tally", "第1日计票"),
    ("/tally?day=2", "第2日计票"),
    ("/activity", "每日发帖数"),
    ("/cards", "判罚提议"),
    ("/drafts", "待审批"),
    ("/actions", "夜晚结果"),
    ("/events", "事件"),
    ("/log", "审计日志"),
]


@pytest.mark.parametrize("path,heading", PAGES, ids=[p for p, _ in PAGES])
def test_desk__page_renders(desk, path, heading):
    response = desk.client.get(path)
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    assert heading in text
    assert 'name="viewport"' in text and "desk.js" in text


@pytest.mark.parametrize("path", [p for p, _ in PAGES], ids=[p for p, _ in PAGES])
def test_desk__player_text_is_escaped(desk, path):
    text = desk.client.get(path).get_data(as_text=True)
    assert "<script>alert" not in text
    if path not in ("/tally?day=2", "/events"):  # no event names a player yet
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_desk__unknown_day_is_404(desk):
    assert desk.client.get("/tally?day=9").status_code == 404


def test_desk__tally_links_every_vote_to_its_floor(desk):
    text = desk.client.get("/tally?day=1").get_data(as_text=True)
    for pid in (101, 102, 103, 104):
        link = f"{BASE}forum.php?mod=redirect&amp;goto=findpost&amp;ptid={VOTE_TID}&amp;pid={pid}"
        assert link in text, pid
    assert "废票</strong>：投票对象不是玩家" in text  # 包子's vote for nobody, with its reason
    assert re.search(r"<td>包子</td><td class=\"num\">2</td>", text)


def test_desk__tally_tie_goes_to_who_first_reached_and_a_changed_vote_says_so(desk):
    """SPEC §3.7 (issue 18): 包子 reaches 2 at 汤圆's vote (5楼), 3 with its own vote, and
    drops back to 2 when 汤圆 changes to 饺子 — which is when 饺子 reaches 2. 包子 reached
    first whatever the seat order (饺子 sits first). 汤圆's changed vote is 「有效，后被改票」,
    as the evidence recount says, not 「不计入（截止前出局）」: nobody left the game."""
    rt = desk.runtime()
    rt.store.record_posts([
        _post(105, 6, "包子", "投票对象：包子\n投票理由：我自己", 100),
        _post(106, 7, EVIL, "投票对象：饺子\n投票理由：重投一次", 105),
        _post(107, 8, "汤圆", "改票对象：饺子\n改票理由：想了想", 110, quote=104),
    ], seen_at=desk.clock.now())
    rt.close()
    page = desk.client.get("/tally?day=1").get_data(as_text=True)
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))
    assert "结果：包子 当选警长 （平票：饺子、包子）" in text
    assert "包子 最先达到2票（5楼 汤圆 投票起一直保持）；饺子 于8楼 汤圆 改票时才达到" in text

    def row(table: str, pid: int) -> str:
        rows = page.split(f'id="{table}"')[1].split("</table>")[0].split("<tr")
        return next(r for r in rows if f"pid={pid}\"" in r)
    assert "有效，后被改票" in row("votes", 104) and "不计入" not in row("votes", 104)
    assert "包子 达到2票，此后一直保持" in row("timeline", 104)  # not at 107, where it dropped to 2
    assert "饺子 达到2票，此后一直保持" in row("timeline", 107)
    assert "达到" not in row("timeline", 105)


def test_desk__tally_links_to_a_72_forum_in_its_own_scheme(desk):
    rt = desk.runtime()
    try:
        rt.store.set_meta("discuz", "7.2")  # as the agent found the forum
    finally:
        rt.close()
    text = desk.client.get("/tally?day=1").get_data(as_text=True)
    for pid in (101, 102, 103, 104):
        assert f"{BASE}redirect.php?goto=findpost&amp;pid={pid}&amp;ptid={VOTE_TID}" in text, pid
    assert f"{BASE}viewthread.php?tid={VOTE_TID}" in text
    assert "forum.php" not in text  # 7.2 has none


def test_desk__game_now_shows_countdown_and_waiting_work(desk):
    text = desk.client.get("/").get_data(as_text=True)
    assert 'class="countdown" data-deadline="2026-12-01T21:30:00+08:00"' in text
    assert "9小时30分" in text  # 12:00 now, 21:30 deadline
    assert "1 篇帖子待审批" in text and "1 条判罚提议" in text


def test_desk__activity_counts_posts_per_player(desk):
    text = desk.client.get("/activity").get_data(as_text=True)
    day1 = text.split("第1日")[1].split("第2日")[0] if "第2日" in text.split("第1日")[1] else text.split("第1日")[1]
    row = re.search(r"<td>&lt;script&gt;alert\(1\)&lt;/script&gt;</td>\s*<td class=\"num low\">(\d+)</td>\s*"
                    r"<td class=\"num\">(\d+)</td>", day1)
    assert row and row.groups() == ("1", "1")


def test_desk__draft_preview_renders_bbcode_and_escapes(desk):
    text = desk.client.get("/drafts").get_data(as_text=True)
    preview = text.split('<div class="preview">')[1].split("</div>")[0]
    assert "<strong>【最终计票】第1日</strong>" in preview
    assert '<table class="bb-table" style="width:98%"><tr><td>包子</td><td>2</td></tr></table>' in preview
    assert f'href="{BASE}forum.php?mod=redirect&amp;goto=findpost&amp;ptid={VOTE_TID}&amp;pid=101"' in preview
    assert "&lt;script&gt;" in preview and "<script>" not in preview
    assert "（还没有发布过同类帖子）" in text and "nothing published" not in text  # the diff, in Chinese


def test_desk__security_headers(desk):
    response = desk.client.get("/actions")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    cookie = response.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


# ---------------------------------------------------------------- forms


def _draft_id(desk: Desk) -> int:
    rt = desk.runtime()
    try:
        return rt.outbox.awaiting_approval()[0].id
    finally:
        rt.close()


def _check_draft(state: DraftState, body: str | None = None):
    def check(rt: Runtime):
        (d,) = [d for d in rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT]
        assert d.state is state
        if body is not None:
            assert d.body == body
    return check


def _check_state(test):
    return lambda rt: test(current_state(rt.config, rt.store))


def _proposal_state(state: ProposalState):
    def check(rt: Runtime):
        assert rt.store.proposal(1).state is state
    return check


def _ledger(rt: Runtime):
    (entry,) = rt.store.cards()
    assert (entry.player, entry.color.value, entry.proposal_id) == (EVIL, "blue", 1)


# One step: approving what the director has just read, counting again, ignoring a proposal.
FORMS = [
    ("approve", "/drafts/{draft}/approve", {}, "outbox.approved", _check_draft(DraftState.APPROVED)),
    ("edit", "/drafts/{draft}/approve", {"body": "改过的计票\r\n第二行"}, "outbox.approved",
     _check_draft(DraftState.APPROVED, "改过的计票\n第二行")),
    ("reject", "/drafts/{draft}/reject", {"why": "重复"}, "outbox.rejected", _check_draft(DraftState.REJECTED)),
    ("dismiss", "/cards/1/dismiss", {"why": "已提醒"}, "card.dismissed", _proposal_state(ProposalState.DISMISSED)),
    ("retally", "/retally", {"day": "1"}, "retally", lambda rt: rt.store.tally(1) or pytest.fail("no tally")),
    ("count-now", "/count-now", {}, "outbox.", lambda rt: [d for d in rt.outbox.drafts()
                                                          if d.kind is DraftKind.RUNNING_COUNT] or pytest.fail()),
]


@pytest.mark.parametrize("name,path,form,action,check", FORMS, ids=[f[0] for f in FORMS])
def test_desk__form_changes_the_game_and_is_audited(desk, name, path, form, action, check):
    before = len(_audit(desk))
    response = desk.post(path.format(draft=_draft_id(desk)), form)
    assert response.status_code == 302
    page = desk.client.get(response.headers["Location"]).get_data(as_text=True)
    assert 'class="flash ok"' in page, page.split('id="flashes"')[1][:400]
    new = _audit(desk)[before:]
    # a draft decided on the desk says so (not the CLI, not a PM)
    actor = "director(desk)" if action.startswith(("outbox.approved", "outbox.rejected")) else "director"
    mine = [e for e in new if e.action.startswith(action) and e.actor == actor]
    assert mine, [(e.actor, e.action) for e in new]
    rt = desk.runtime()
    try:
        check(rt)
    finally:
        rt.close()


def _hidden(page: str, form_id: str = "confirm-form") -> tuple[str, dict[str, list[str]]]:
    """The confirm form's action and hidden fields (what the second POST sends)."""
    form = page.split(f'id="{form_id}"')[1].split("</form>")[0]
    action = re.search(r'action="([^"]+)"', page.split(f'id="{form_id}"')[0].rsplit("<form", 1)[1]).group(1)
    fields: dict[str, list[str]] = {}
    for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form):
        fields.setdefault(name, []).append(html.unescape(value))
    return action, fields


def _confirm(desk: Desk, path: str, form: dict) -> tuple[str, str, dict[str, list[str]]]:
    response = desk.post(path, form)
    assert response.status_code == 200, response.headers.get("Location")
    page = response.get_data(as_text=True)
    assert 'id="confirm-form"' in page, page
    action, fields = _hidden(page)
    return page, action, fields


# Two steps: every change to the game shows its effect, and only the confirmation applies it.
CHANGES = [
    ("night", "/event", {"kind": "night", "day": "2", "players": "汤圆"}, "event.night", "第2日前夜",
     lambda rt: rt.store.night_result(2).out == ("汤圆",) and rt.outbox.by_dedupe_key("announcement:day2")
     or pytest.fail("no night")),
    ("out", "/event", {"kind": "out", "player": "包子", "why": "hunter"}, "event.out", "被猎人带走",
     _check_state(lambda s: s.is_out("包子") or pytest.fail("not out"))),
    ("sheriff", "/event", {"kind": "sheriff", "player": "饺子"}, "event.sheriff", "警长：饺子",
     _check_state(lambda s: s.sheriff == "饺子" or pytest.fail(s.sheriff))),
    ("accelerate", "/event", {"kind": "accelerated", "day": "1"}, "event.accelerate", "第1日加速",
     _check_state(lambda s: s.day(1).accelerated or pytest.fail("not accelerated"))),
    ("substitute", "/event", {"kind": "substitute", "player": "包子", "name": "替补甲"}, "event.substitute",
     "替补甲 接替 包子", _check_state(lambda s: s.seat_of("替补甲") == "包子" or pytest.fail("no substitute"))),
    ("alias", "/event", {"kind": "alias", "name": "饺饺", "player": "饺子"}, "event.alias", "别名“饺饺”",
     lambda rt: None),
    ("void", "/event", {"kind": "void", "pid": "104", "note": "串号嫌疑"}, "event.void", "pid 104 判为废票",
     lambda rt: (rt.store.tally(1).data["counts"].get("包子") == 1
                 and [v["reason"] for v in rt.store.tally(1).data["votes"] if v["pid"] == 104] == ["director_void"])
     or pytest.fail(rt.store.tally(1).data["counts"])),
    ("accept", "/cards/1/accept", {"why": "第1日潜水"}, "card.given", f"给 {EVIL} 蓝牌", _ledger),
    ("give", "/cards/give", {"player": "汤圆", "color": "blue", "why": "字体"}, "card.given", "给 汤圆 蓝牌",
     lambda rt: [c.player for c in rt.store.cards()] == ["汤圆"] or pytest.fail("no card")),
]


@pytest.mark.parametrize("name,path,form,action,said,check", CHANGES, ids=[c[0] for c in CHANGES])
def test_desk__change_is_confirmed_before_it_is_applied(desk, name, path, form, action, said, check):
    before = len(_audit(desk))
    page, apply_to, fields = _confirm(desk, path, form)
    assert said in html.unescape(page)
    assert len(_audit(desk)) == before  # the first POST only shows the effect
    response = desk.client.post(apply_to, data=fields)
    assert response.status_code == 302
    page = desk.client.get(response.headers["Location"]).get_data(as_text=True)
    assert 'class="flash ok"' in page, page.split('id="flashes"')[1][:400]
    new = _audit(desk)[before:]
    assert [e for e in new if e.action.startswith(action) and e.actor == "director"], [e.action for e in new]
    rt = desk.runtime()
    try:
        check(rt)
    finally:
        rt.close()


def test_desk__confirm_page_names_the_result_and_rulings_that_change(desk):
    page, _, fields = _confirm(desk, "/event", {"kind": "out", "player": "包子", "why": "hunter"})
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))
    # 3楼 (the player named <script>…) votes 饺子 with a reason that is all angle brackets: valid
    assert "结果改变：包子 当选警长 → 饺子 当选警长" in text
    assert "2楼 饺子：有效，计入 → 有效，不计入（投票对象截止前已出局）" in text
    assert "生效时间：2026-12-01 12:00:00（白天出局默认为现在）" in text
    assert fields["at"] == ["2026-12-01T12:00:00+08:00"]  # the time previewed is the time applied


def test_desk__confirm_page_says_which_drafts_are_redrafted(desk):
    """The seeded final count waits; a change of day 1's result makes it stale."""
    rt = desk.runtime()
    try:
        from forumbot.game import announce

        rt.outbox.reject(_draft_id(desk), "director", "换成机器人的", now=desk.clock.now())
        desk.clock.set(START + timedelta(hours=13))
        from forumbot.game.state import current_state as cs

        state = cs(rt.config, rt.store)
        tally = director_count(rt, 1)
        final = announce.draft_final(rt, state, state.day(1), tally, desk.clock.now())
    finally:
        rt.close()
    page, _, _ = _confirm(desk, "/event", {"kind": "out", "player": "包子", "why": "hunter",
                                           "at": "2026-12-01T12:00"})
    assert f"待发的最终计票（第1日） #{final.id} 已过时：确认后作废并重新起草" in html.unescape(page)


def director_count(rt, day):
    from forumbot.game.state import count_day

    return count_day(rt.config, rt.store, day).data


def test_desk__a_change_whose_effect_moved_is_shown_again_not_applied(desk):
    _, apply_to, fields = _confirm(desk, "/event", {"kind": "out", "player": "包子", "why": "hunter"})
    # Meanwhile the agent reads another vote for 包子: the preview no longer holds.
    rt = desk.runtime()
    rt.store.record_posts([_post(106, 7, "饺子", "改票对象：汤圆\n改票理由：x", 120, quote=101)],
                          seen_at=desk.clock.now())
    rt.close()
    before = len(_audit(desk))
    response = desk.client.post(apply_to, data=fields)
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert 'id="changed"' in page and "请再看一遍" in page
    assert len(_audit(desk)) == before
    apply_to, fields = _hidden(page)
    assert desk.client.post(apply_to, data=fields).status_code == 302
    assert [e.action for e in _audit(desk)[before:]][:1] == ["event.out"]


def test_desk__apply_without_the_preview_fingerprint_is_not_applied(desk):
    before = len(_audit(desk))
    response = desk.post("/event/apply", {"kind": "out", "player": "包子", "why": "hunter",
                                          "at": "2026-12-01T12:00:00+08:00"})
    assert response.status_code == 200 and 'id="confirm-form"' in response.get_data(as_text=True)
    assert len(_audit(desk)) == before


def test_desk__alias_counts_after_retally(desk):
    rt = desk.runtime()
    rt.store.record_posts([_post(105, 6, "饺子", "改票对象：谁都不是\n改票理由：x", 100)], seen_at=desk.clock.now())
    rt.close()
    _, action, fields = _confirm(desk, "/event", {"kind": "alias", "name": "谁都不是", "player": "汤圆"})
    desk.client.post(action, data=fields)
    text = desk.client.get("/tally?day=1").get_data(as_text=True)
    assert re.search(r"<td>汤圆</td><td class=\"num\">1</td>", text)  # 包子's vote now names 汤圆


def test_desk__domain_error_is_a_message_not_a_traceback(desk):
    before = len(_audit(desk))
    response = desk.post("/event", {"kind": "sheriff", "player": "不存在"})
    page = desk.client.get(response.headers["Location"]).get_data(as_text=True)
    assert 'class="flash error"' in page and "未执行" in page and "不是玩家" in page
    assert len(_audit(desk)) == before


def test_desk__approving_twice_is_refused_in_chinese(desk):
    draft = _draft_id(desk)
    desk.post(f"/drafts/{draft}/reject", {"why": "不要"})
    response = desk.post(f"/drafts/{draft}/approve", {})
    page = desk.client.get(response.headers["Location"]).get_data(as_text=True)
    flash = page.split('class="flash error"')[1].split("</p>")[0]
    assert f"#{draft} 现在是「已驳回」" in flash and "rejected" not in flash
    # issue 18: the outbox itself says it in Chinese; there is no English original to fold away
    assert "data-raw" not in page


# ---------------------------------------------------------------- CSRF and login


@pytest.mark.parametrize("token", [None, "wrong-token"], ids=["missing", "wrong"])
def test_desk__csrf_rejects_a_form_without_the_token(desk, token):
    desk.client.get("/actions")  # a session exists
    before = len(_audit(desk))
    form = {"kind": "sheriff", "player": "饺子"} | ({"csrf_token": token} if token else {})
    response = desk.client.post("/event", data=form)
    assert response.status_code == 400
    assert "安全令牌" in response.get_data(as_text=True)
    assert len(_audit(desk)) == before


def test_desk__loopback_refuses_a_foreign_host_header(desk):
    assert desk.client.get("/", headers={"Host": "evil.example:8765"}).status_code == 400
    assert desk.client.get("/", headers={"Host": "127.0.0.1:8765"}).status_code == 200


@pytest.mark.parametrize("host,expected", [("127.0.0.1", True), ("localhost", True), ("::1", True),
                                           ("127.0.0.2", True), ("0.0.0.0", False), ("192.168.1.5", False),
                                           ("desk.example", False)])
def test_desk__is_loopback(host, expected):
    assert is_loopback(host) is expected


def test_desk__elsewhere_without_a_token_refuses_to_start(tmp_path, monkeypatch):
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    with pytest.raises(DeskSecurityError, match="FORUMBOT_DESK_TOKEN"):
        create_app(_config(tmp_path), host="0.0.0.0")


def test_desk__elsewhere_requires_login(tmp_path, monkeypatch):
    monkeypatch.setenv("FORUMBOT_DESK_TOKEN", "correct-horse-battery")
    clock = SimClock(start=START)
    app = create_app(_config(tmp_path), host="0.0.0.0", clock=clock)
    client = app.test_client()
    response = client.get("/drafts")
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    assert client.post("/event", data={"kind": "sheriff", "player": "饺子"}).status_code == 302  # to login
    page = client.get("/login?next=/drafts").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    wrong = client.post("/login", data={"csrf_token": token, "token": "guess", "next": "/drafts"})
    assert wrong.status_code == 200 and "令牌不对" in wrong.get_data(as_text=True)
    assert client.get("/drafts").status_code == 302
    right = client.post("/login", data={"csrf_token": token, "token": "correct-horse-battery", "next": "/drafts"})
    assert right.status_code == 302 and right.headers["Location"].endswith("/drafts")
    assert client.get("/drafts").status_code == 200


def test_desk__after_a_form_only_local_paths_are_followed(desk):
    response = desk.post("/retally", {"day": "1", "next": "https://evil.example/"})
    assert response.headers["Location"] == "/tally"
    response = desk.post("/event", {"kind": "sheriff", "player": "不存在", "next": "//evil.example/"})
    assert response.headers["Location"] == "/actions"


# ---------------------------------------------------------------- BBCode preview

BBCODE = [
    ("bold", "[b]粗[/b]", "<strong>粗</strong>"),
    ("newlines", "一\n二", "一<br>\n二"),
    ("html is text", "<b onclick=x>&amp;</b>", "&lt;b onclick=x&gt;&amp;amp;&lt;/b&gt;"),
    ("entity bracket", "&#091;size=7&#093;饺子", "[size=7]饺子"),
    ("relative url", "[url=forum.php?a=1&b=2]楼[/url]",
     '<a href="http://f/forum.php?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">楼</a>'),
    ("javascript url", "[url=javascript:alert(1)]x[/url]", "[url=javascript:alert(1)]x[/url]"),
    ("quoted url attr", '[url=http://a/"onmouseover=x]y[/url]',
     '<a href="http://a/&quot;onmouseover=x" target="_blank" rel="noopener noreferrer">y</a>'),
    ("size and color", "[size=5][color=Red]大[/color][/size]",
     '<span style="font-size:1.5em"><span style="color:Red">大</span></span>'),
    ("bad color", "[color=red;background:url(x)]a[/color]", "[color=red;background:url(x)]a[/color]"),
    ("quote", "[quote]引用[/quote]", '<blockquote class="bb-quote">引用</blockquote>'),
    ("table layout", "[table]\n[tr][td]a[/td]\n[/tr]\n[/table]", '<table class="bb-table"><tr><td>a</td></tr></table>'),
    ("unclosed", "[b]x", "<strong>x</strong>"),
    ("stray close", "x[/b]", "x[/b]"),
    ("unknown tag", "[img]http://a/b.png[/img]", "[img]http://a/b.png[/img]"),
]


@pytest.mark.parametrize("source,expected", [(s, e) for _, s, e in BBCODE], ids=[n for n, _, _ in BBCODE])
def test_desk__bbcode_preview(source, expected):
    assert str(bbcode_to_html(source, base_url="http://f/")) == expected


# ---------------------------------------------------------------- CLI


def test_desk__command_is_documented():
    result = CliRunner().invoke(cli, ["desk", "--help"])
    assert result.exit_code == 0 and "例：forumbot desk" in result.output


def test_desk__command_refuses_elsewhere_without_token(tmp_path, monkeypatch):
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    result = CliRunner().invoke(cli, ["desk", "--config", str(_config(tmp_path)), "--host", "0.0.0.0"])
    assert result.exit_code == 1 and "FORUMBOT_DESK_TOKEN" in result.output
    assert "Traceback" not in result.output


def test_desk__run_can_serve_it_beside_the_agent(desk):
    import httpx

    import forumbot.cli  # noqa: F401 - hands the desk to the CLI
    from forumbot.commands.desk import start_desk_for_run

    server = start_desk_for_run(str(desk.config), "127.0.0.1", 0, clock=desk.clock)
    try:
        assert server.url.startswith("http://127.0.0.1:")
        response = httpx.get(server.url + "drafts", timeout=10)
        assert response.status_code == 200 and "【最终计票】第1日" in response.text
    finally:
        server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url, timeout=2)


def test_desk__a_new_thread_draft_shows_its_board_and_subject_and_takes_an_edited_subject(desk):
    rt = desk.runtime()
    try:
        draft = rt.outbox.create_new_thread(3, "【饺子村】第二日 投票帖", "第二日白天开始，请在本帖投票。",
                                            now=desk.clock.now(), day=2, dedupe_key="new_thread:day2:vote")
    finally:
        rt.close()
    text = desk.client.get("/drafts").get_data(as_text=True)
    assert "版块 3 的新帖「【饺子村】第二日 投票帖」" in text and "帖子 0" not in text
    assert 'name="subject"' in text
    response = desk.post(f"/drafts/{draft.id}/approve", {"subject": "【饺子村】D2 投票帖", "body": "导演改过的开帖"})
    assert response.status_code in (200, 302, 303)
    rt = desk.runtime()
    try:
        done = rt.outbox.get(draft.id)
    finally:
        rt.close()
    assert (done.state, done.subject, done.body) == (DraftState.APPROVED, "【饺子村】D2 投票帖", "导演改过的开帖")
    assert done.original_subject == "【饺子村】第二日 投票帖"
