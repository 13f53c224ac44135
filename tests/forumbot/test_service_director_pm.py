"""``forumbot serve`` with two games on one bot account and ONE director, over real HTTP on
the simulator (issue 18, finding 4): the director's conversation is read once per poll
for both games, each command goes to the game it names and changes only that game, a
command that could mean either is answered with the question (and changes neither),
every PM names its game, and a reload answers no old message again."""

from __future__ import annotations

import re

from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import BOT
from tests.forumbot.notify_support import body, head
from tests.forumbot.service_support import AGENT, served, wait_for

DIRECTOR = "导演"
GAMES = ["甲局", "乙局"]


def _pms(s) -> list:
    bot = s.sim.data.user(BOT).uid
    return [m for m in s.sim.pms_between(BOT, DIRECTOR) if m.fromuid == bot]


def _from(s, game: str, after: int = 0) -> list[str]:
    """The bodies of the bot's PMs to the director about ``game`` (its head names it alone)."""
    return [body(m.text) for m in _pms(s) if m.pmid > after and head(m.text) == game]


def _code(texts: list[str], draft_id: int) -> str | None:
    for text in reversed(texts):
        found = re.search(rf"#{draft_id}(?!\d)[^\n]*\n　回复「批准 ([A-Z0-9]{{4}})」", text)
        if found:
            return found.group(1)
    return None


def _newest(s) -> int:
    return max((m.pmid for m in _pms(s)), default=0)


def _query(s, game: str, sql: str) -> list:
    rt = s.open(game)
    try:
        return list(rt.store.db.query(sql))
    finally:
        rt.close()


def _conversation_reads(s) -> list:
    uid = s.sim.data.user(DIRECTOR).uid
    return [r.at for r in s.sim.requests if r.method == "GET" and r.user == BOT and r.query.get("subop") == "view"
            and r.query.get("touid") == str(uid)]


def test_service_director_pm__two_games_one_director_each_command_to_its_game(tmp_path):
    s = served(tmp_path, 2, names=GAMES, notify={"enabled": True}, director=DIRECTOR, days=2).start(desk=False)
    try:
        drafts = {}
        for name in GAMES:  # a card notice waits in each game
            rt = s.open(name)
            try:
                drafts[name] = rt.outbox.create_draft(DraftKind.CARD_NOTICE, s.game(name).tids["progress"],
                                                      f"{name}：判罚通知", now=rt.clock.now()).id
            finally:
                rt.close()
        codes = {name: wait_for(lambda n=name: _code(_from(s, n), drafts[n]), timeout=90) for name in GAMES}
        assert codes["甲局"] != codes["乙局"]  # unique across the account: a code names its game
        assert all(head(m.text) for m in _pms(s))  # every PM names its game

        # A code names its game by itself: only 乙局's draft is approved and published.
        mark = _newest(s)
        s.sim.send_pm(DIRECTOR, BOT, f"批准 {codes['乙局']}")
        wait_for(lambda: any(p.author == BOT and "乙局：判罚通知" in p.message
                             for p in s.sim.posts(s.game("乙局").tids["progress"])), timeout=90)
        wait_for(lambda: any(t.startswith(f"已批准 #{drafts['乙局']}") for t in _from(s, "乙局", mark)), timeout=90)
        rt = s.open("甲局")
        try:
            assert rt.outbox.get(drafts["甲局"]).state is DraftState.DRAFT
        finally:
            rt.close()
        assert not any("已批准" in t or "没有" in t for t in _from(s, "甲局", mark))  # 甲局 said nothing

        # Without a code or a game's name: the question, listing both, and nothing done.
        mark = _newest(s)
        s.sim.send_pm(DIRECTOR, BOT, "平安夜 第2日")
        [question] = wait_for(lambda: [m for m in _pms(s) if m.pmid > mark and "没有执行" in m.text], timeout=90)
        assert set(head(question.text).split("、")) == set(GAMES) and "你是 2 局游戏的导演" in question.text
        assert "乙局 平安夜 第2日" in question.text or "甲局 平安夜 第2日" in question.text
        for name in GAMES:  # no preview, no confirmation code, in either game
            assert _query(s, name, "SELECT * FROM notify_codes WHERE kind = 'event'") == []

        # With the game's name: that game previews it and, confirmed, enters it — the other
        # game is untouched.
        mark = _newest(s)
        s.sim.send_pm(DIRECTOR, BOT, "乙局 平安夜 第2日")
        preview = wait_for(lambda: [t for t in _from(s, "乙局", mark) if "确认 " in t], timeout=90)[0]
        [confirm] = re.findall(r"「确认 ([A-Z0-9]{4})」", preview)
        s.sim.send_pm(DIRECTOR, BOT, f"确认 {confirm}")
        wait_for(lambda: _query(s, "乙局", "SELECT * FROM events WHERE kind = 'night'"), timeout=90)
        assert _query(s, "甲局", "SELECT * FROM events WHERE kind = 'night'") == []
        assert _query(s, "甲局", "SELECT * FROM notify_codes WHERE kind = 'event'") == []
        assert not [t for t in _from(s, "甲局", mark) if "确认" in t or "平安夜" in t]

        # 状态 needs a game too; with the name, only that game answers.
        mark = _newest(s)
        s.sim.send_pm(DIRECTOR, BOT, "甲局 状态")
        wait_for(lambda: any("【状态】" in t for t in _from(s, "甲局", mark)), timeout=90)
        assert not any("【状态】" in t for t in _from(s, "乙局", mark))

        assert s.errors == [] and s.sim.data.pm_flood_refusals == 0
        # The conversation is read once per poll interval for both games, not once per game.
        reads = _conversation_reads(s)
        span = (reads[-1] - reads[0]).total_seconds()
        assert len(reads) <= span / AGENT["poll_interval_seconds"] + 3, (len(reads), span)
        assert s.service is not None
        board = s.service.pool.sessions[next(iter(s.service.pool.sessions))].board
        assert len(board.reads) == len(reads)  # every read of it went through the one board
    finally:
        s.stop()


def test_service_director_pm__a_reload_answers_no_old_message_again(tmp_path):
    s = served(tmp_path, 2, names=GAMES, notify={"enabled": True}, director=DIRECTOR).start(desk=False)
    try:
        rt = s.open("甲局")
        try:
            draft = rt.outbox.create_draft(DraftKind.CARD_NOTICE, s.game("甲局").tids["progress"], "甲局：判罚通知",
                                           now=rt.clock.now()).id
        finally:
            rt.close()
        code = wait_for(lambda: _code(_from(s, "甲局"), draft), timeout=90)
        s.sim.send_pm(DIRECTOR, BOT, f"批准 {code}")
        s.sim.send_pm(DIRECTOR, BOT, "状态")  # the question, once
        wait_for(lambda: any(t.startswith(f"已批准 #{draft}") for t in _from(s, "甲局")), timeout=90)
        wait_for(lambda: any("没有执行" in m.text for m in _pms(s)), timeout=90)
        assert s.service is not None
        board = s.service.pool.sessions[next(iter(s.service.pool.sessions))].board
        wait_for(lambda: not any(_query(s, n, "SELECT * FROM notify_pms WHERE state IN ('queued', 'sending')")
                                 for n in GAMES), timeout=90)
        before = [m.pmid for m in _pms(s)]
        commands = {n: len(_query(s, n, "SELECT * FROM audit WHERE action = 'notify.command'")) for n in GAMES}
        old = {n: s.service.slots[n] for n in GAMES}
        for game in s.many.games:  # both configs changed: the service reloads both games
            assert game.config is not None
            game.config.write_text(game.config.read_text(encoding="utf-8") + "\n# 改过\n", encoding="utf-8")
        wait_for(lambda: all(s.service.slots.get(n) is not old[n] and s.service.slots[n].state == "running"
                             for n in GAMES), timeout=90)
        reads = len(board.reads)
        wait_for(lambda: len(board.reads) >= reads + 3, timeout=90)  # three reads of the conversation since
        assert [m.pmid for m in _pms(s)] == before  # nothing answered again
        assert {n: len(_query(s, n, "SELECT * FROM audit WHERE action = 'notify.command'")) for n in GAMES} == commands
        approvals = _query(s, "甲局", "SELECT * FROM audit WHERE action = 'outbox.approved' AND actor = 'director(pm)'")
        assert len(approvals) == 1
        assert s.errors == []
    finally:
        s.stop()


def test_service_director_pm__the_answer_to_the_pm_that_ends_the_game_is_sent(tmp_path):
    """The director approves the last day's final count by PM: it is published in that
    pass, the game is over — and the answer, queued behind the flood clock the final count
    just started, still goes out (the game keeps its passes until its PMs are sent)."""
    from datetime import timedelta

    s = served(tmp_path, 1, names=["甲局"], notify={"enabled": True}, director=DIRECTOR,
               deadline=timedelta(hours=2, minutes=3)).start(desk=False)
    try:
        def final():
            rt = s.open("甲局")
            try:
                return next((d for d in rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT), None)
            finally:
                rt.close()

        draft = wait_for(final, timeout=90)
        code = wait_for(lambda: _code(_from(s, "甲局"), draft.id), timeout=90)
        s.sim.send_pm(DIRECTOR, BOT, f"批准 {code}")
        wait_for(lambda: s.summary("甲局") is not None and s.summary("甲局").state == "finished", timeout=90)
        [answer] = wait_for(lambda: [t for t in _from(s, "甲局") if t.startswith(f"已批准 #{draft.id}")], timeout=90)
        assert "已发布" in answer
        assert _query(s, "甲局", "SELECT * FROM notify_pms WHERE state IN ('queued', 'sending')") == []
        assert s.errors == []
    finally:
        s.stop()
