"""Issue 13's "done when": the demo game run from forum PMs alone, on Discuz! X3.5 and 7.2
(GBK), over real HTTP — ``python -m forumbot.demo --director-by-pm``. The director is a
forum user who only reads the bot's PMs and answers them: every manual post approved by
PM (one looked at with 查看 first, one rejected and its redraft approved), both nights
entered by PM and confirmed with the code the bot gave; the same results as the demo
played at the desk, every post once, no alarm, nothing left waiting."""

from __future__ import annotations

import io
import re
import os
from contextlib import redirect_stdout
from datetime import timedelta

import pytest

from forumbot.demo import play as demo
from forumbot.demo.play import PmDirector, bot_posts, play_by_pm, pm_director, setup_game
from forumbot.store.marker import find_marker_in_text
from forumbot.store.outbox import DraftKind, DraftState, Policy
from forumbot.demo.scenario import classic_config, demo_plan, BOT, DIRECTOR, GAME_START, PASSWORD
from forumbot.simulator import SimClock, Simulator
from forumbot.store import EventKind
from tests.forumbot.notify_support import body

FORUMS = [("x3", "utf-8"), ("7.2", "gbk")]


@pytest.fixture(scope="module", params=FORUMS, ids=lambda f: "-".join(f))
def played(request, tmp_path_factory):
    discuz, charset = request.param
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    clock = SimClock(start=GAME_START - timedelta(minutes=20))
    sim = Simulator(clock=clock, discuz=discuz, charset=charset)
    game = setup_game(tmp_path_factory.mktemp(f"pm-demo-{discuz}-{charset}"), clock=clock, sim=sim,
                      config_source=classic_config(demo.EXAMPLE_CONFIG, tmp_path_factory.mktemp("cfg") / "classic.toml"),
                      plan=demo_plan(), notify={"enabled": True})
    by_pm = pm_director(game)
    try:
        play_by_pm(game, by_pm)
        yield game, by_pm
    finally:
        game.close()
        sim.stop()


def test_notify_demo__every_manual_post_went_out_once_approved_by_pm(played):
    game, _ = played
    assert game.errors == []
    assert game.rt.store.alarms(active=None) == []
    assert game.rt.outbox.pending() == []
    published = game.rt.outbox.drafts(DraftState.PUBLISHED)
    manual = [d for d in published if game.rt.outbox.policies[d.kind] is Policy.MANUAL]
    # config.toml's [calendar]: each day's two threads, opened by the bot, approved by PM too
    assert sorted((d.kind.value, d.day) for d in manual) == [
        ("announcement", 2), ("announcement", 3), ("final_count", 1), ("final_count", 2), ("final_count", 3),
        *[("new_thread", n) for n in (1, 1, 2, 2, 3, 3)]]
    assert {d.approved_by for d in manual} == {"director(pm)"}
    markers = [find_marker_in_text(m) for _, _, m in bot_posts(game)]
    assert None not in markers and len(markers) == len(set(markers))
    assert {d.pid for d in published} == {pid for _, pid, _ in bot_posts(game)}


def test_notify_demo__the_director_did_everything_by_pm(played):
    game, by_pm = played
    nights = game.rt.store.events(kind=EventKind.NIGHT)
    assert [(e.day, e.payload["out"], e.actor) for e in nights] == [
        (2, ["汤圆"], "director(pm)"), (3, ["Alice"], "director(pm)")]
    # Nothing from the desk or the command line: every director's action came by PM.
    assert not [e for e in game.rt.store.audit_log() if e.actor == "director"]
    sent = "\n".join(by_pm.sent)
    assert sent.count("查看 ") == 1 and sent.count("驳回 ") == 1 and sent.count("确认 ") == 2
    assert sent.count("夜晚 第") == 2
    rejected = [d for d in game.rt.outbox.drafts(DraftState.REJECTED) if d.kind is DraftKind.ANNOUNCEMENT]
    assert len(rejected) == 1 and rejected[0].day == 2
    assert any(body(t).startswith("【全文】") for t in by_pm.received)
    pms = game.sim.pms_between(BOT, DIRECTOR)
    assert len(pms) == len(by_pm.sent) + len(by_pm.received)


def test_notify_demo__the_same_results_as_at_the_desk(played):
    game, _ = played
    finals = {d.day: game.sim.post(d.pid).message for d in game.rt.outbox.drafts(DraftState.PUBLISHED)
              if d.kind is DraftKind.FINAL_COUNT}
    assert "[b]结果：饺子 当选警长[/b]" in finals[1]
    assert "结果：包子 出局（平票：包子、月饼；警长投票对象出局）" in finals[2]
    assert "[b]结果：月饼 出局[/b]" in finals[3]


def test_notify_demo__python_m_forumbot_demo_director_by_pm_discuz_72():
    out = io.StringIO()
    with redirect_stdout(out):
        assert demo.main(["--director-by-pm", "--discuz", "7.2", "--keep-serving", "0"]) == 0
    text = out.getvalue()
    assert "只用论坛站内信操作" in text and "仍待处理的草稿：0 篇" in text
    assert "导演 → 机器人：批准 " in text
    assert re.search(r"机器人 → 导演：［[^］]+］【待你处理】", text)  # each PM names its game
    # the 14-player game to the wolves' win: 6 threads, 6 reminders, 3 closing posts, the
    # seal, 3 final counts, 3 announcements, 4 running counts and answers, the end post
    assert "机器人发帖 27 篇" in text and "游戏结束帖" in text
    assert text.count("导演 → 机器人：确认 ") == 3  # the three nights the bot resolved, confirmed by PM


def test_notify_demo__desk_and_pm_together_are_refused(capsys):
    with pytest.raises(SystemExit):
        demo.main(["--desk", "--director-by-pm"])
    assert "choose one" in capsys.readouterr().err


def test_notify_demo__the_scripted_director_reads_offers_by_kind():
    class G:  # what _decide needs: nothing of the game
        pass

    d = PmDirector(G())  # type: ignore[arg-type]
    notice = "【待你处理】第1日已截止，最终计票 #9 待审批\n　回复「批准 K7G6」发出，「查看 K7G6」看全文"
    assert d._decide("K7G6", notice, notice.index("「批准")) == ["查看 K7G6"]
    full = "【全文】#9 第1日最终计票（待审批）\n[b]【最终计票】[/b]\n——\n回复「批准 K7G6」发出"
    assert d._decide("K7G6", full, full.index("「批准")) == ["批准 K7G6"]
    assert d._decide("K7G6", full, full.index("「批准")) == []
