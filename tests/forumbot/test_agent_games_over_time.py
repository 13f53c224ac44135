"""Two three-day games end to end over real HTTP on the simulator (SPEC §9): the scripted
players post, the director enters what happens — some of it late — the agent reads,
rules, tallies and drafts, the director approves, and every post the bot made is checked
on the simulator's side.

* S10 (``scenario.s10_plan``): 若愚, a red card before the deadline, a night death
  entered at noon the next day, a badge succession.
* 双身份 (``scenario.dual_plan``): lost identities, the scapegoat and 【冤死】, the badge
  after the sheriff's first identity dies, acceleration by every living player.
"""

from __future__ import annotations

import os
import re

import pytest

from forumbot.demo.harness import play_in_process
from forumbot.demo.harness.checks import audit_posts
from forumbot.store.marker import strip_marker
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.demo.scenario import BOT, PASSWORD, PLAYERS, at, dual_plan, s10_plan


def _play(plan, tmp_path_factory, name):
    os.environ["FORUMBOT_PASSWORD"] = PASSWORD
    played = play_in_process(plan, tmp_path_factory.mktemp(name))
    return played


@pytest.fixture(scope="module")
def s10(tmp_path_factory):
    played = _play(s10_plan(), tmp_path_factory, "s10")
    yield played
    played.close()


@pytest.fixture(scope="module")
def dual(tmp_path_factory):
    played = _play(dual_plan(), tmp_path_factory, "dual")
    yield played
    played.close()


def posts(played, thread: str) -> list[str]:
    world = played.game.world
    return [strip_marker(p.message) for p in world.sim.posts(world.tids[thread]) if p.author == BOT]


def finals(played, day: int) -> list[str]:
    return [m for m in posts(played, f"vote{day}") if "最终计票】" in m]


def only_chinese(message: str) -> bool:
    """No English in a bot post: BBCode, links, numbers and the players' own names aside."""
    text = re.sub(r"\[/?[a-z]+(=[^\]]*)?\]", "", message)
    for name in PLAYERS:
        text = text.replace(name, "")
    return not re.search(r"[A-Za-z]", text)


def check_every_post(played) -> None:
    audit = audit_posts(played.game.world, played.rt.outbox)
    assert audit.ok, audit
    world = played.game.world
    for key in world.tids:
        for message in posts(played, key):
            assert only_chinese(message), message


# ------------------------------------------------------------------ S10


def test_s10_game__ran_clean_and_every_post_once(s10):
    assert s10.errors == []
    check_every_post(s10)
    assert not s10.rt.outbox.pending()


def test_s10_game__day2_red_card_before_the_vote_and_ruoyu(s10):
    (final,) = finals(s10, 2)
    # 月饼 had 4 votes but was sent off at 20:00: before the vote-out, those count for no one
    assert "[tr][td]烧卖[/td][td]3[/td]" in final and "[td]月饼[/td]" not in final
    assert "不计入（截止前出局，先于投票结果）" in final
    assert final.count("投票对象 月饼 已于截止前出局") == 4 and "月饼：本人已于截止前出局" in final
    assert "[b]结果：烧卖 得票最多，发动【若愚】，免于出局[/b]" in final
    assert "警长：饺子（票数按 2 计）" in final
    notices = [m for m in posts(s10, "progress") if "【违规判定】月饼：红牌" in m]
    assert len(notices) == 1 and "月饼 被罚下，无遗言" in notices[0]


def test_s10_game__day3_late_night_entry_and_the_successor(s10):
    (final,) = finals(s10, 3)
    assert "饺子：已出局角色投票（诈尸）" in final  # his 10:00 vote: the night was entered at 12:00
    assert "[tr][td]bob_2[/td][td]3[/td]" in final and "[tr][td]Alice[/td][td]2[/td]" in final
    assert re.search(r"\]包子\[/url\]\(\d+楼·×2\)", final)  # the successor's vote, from the badge's passing
    assert re.search(r"\]烧卖\[/url\]\(\d+楼·×0\)", final)  # 若愚: 此后白痴投票不计入总票数
    assert "警长：包子（票数按 2 计）" in final and "[b]结果：bob_2 出局[/b]" in final
    state = s10.rt.store.tally(3).data
    assert state["sheriff_at_deadline"] == "包子" and state["non_voters"] == []


def test_s10_game__announcements(s10):
    announcements = [m for m in posts(s10, "progress") if "【公示】" in m]
    assert len(announcements) == 2
    day2, day3 = announcements
    assert "第1日投票结果：[b]饺子 当选警长[/b]" in day2 and "1. 汤圆：出局（夜晚）" in day2
    assert "现任警长：饺子" in day2
    assert "第2日投票结果：[b]烧卖 得票最多，发动【若愚】，免于出局[/b]" in day3
    # the red card when the director gave it (the pass after 20:00), then the night
    assert re.search(r"1\. 月饼：出局（罚下，12-02 20:0\d）\n2\. 饺子：出局（夜晚）", day3)
    assert "现任警长：包子" in day3 and "烧卖" in day3.split("存活玩家")[1]
    badge = [m for m in posts(s10, "progress") if "【警长】" in m]
    assert len(badge) == 1 and "饺子 指定 包子 继任警长" in badge[0]


def test_s10_game__state_and_results_in_game_time(s10):
    from forumbot.game.state import current_state

    state = current_state(s10.rt.config, s10.rt.store)
    assert not state.is_out("烧卖") and state.idiots_revealed == {"烧卖"}
    assert state.out_record("饺子").at == at(3, "09:00")  # entered at 12:00, took effect at the morning
    assert state.out_record("bob_2").at == at(3, "21:30")  # the vote-out: at its deadline
    assert state.sheriff == "包子"


# ------------------------------------------------------------------ 双身份


def test_dual_game__ran_clean_and_every_post_once(dual):
    assert dual.errors == []
    check_every_post(dual)
    assert not dual.rt.outbox.pending()


def test_dual_game__day2_the_scapegoat_goes_instead(dual):
    (final,) = finals(dual, 2)
    assert "[tr][td]包子[/td][td]3[/td]" in final and "[tr][td]月饼[/td][td]3[/td]" in final
    assert "[b]结果：烧卖 身份死亡（平票：包子、月饼；替罪羊代为出局）[/b]" in final
    # 汤圆 lost one identity in the night and still votes and is voted for
    assert "汤圆" not in final.split("废票")[-1] if "废票" in final else True
    assert "[tr][td]汤圆[/td][td]2[/td]" in final


def test_dual_game__day3_wrongful_death_list_badge_and_acceleration(dual):
    (final,) = finals(dual, 3)
    assert "bob_2：替罪羊未指定该角色今日投票（冤死）" in final
    assert "警长：Alice（票数按 2 计）" in final
    assert "[tr][td]月饼[/td][td]3[/td]" in final and "[b]结果：月饼 身份死亡[/b]" in final
    assert "未投票（0）：无" in final
    (notice,) = [m for m in posts(dual, "progress") if "【加速】" in m]
    assert "第3日进程加速" in notice and "7/7 人" in notice and "改票作废" not in notice


def test_dual_game__announcements_say_identity_death_and_out(dual):
    announcements = [m for m in posts(dual, "progress") if "【公示】" in m]
    assert len(announcements) == 2
    day2, day3 = announcements
    assert "身份死亡/出局（按时间顺序）：\n1. 汤圆：身份死亡（夜晚）" in day2
    assert "第2日投票结果：[b]烧卖 身份死亡（平票：包子、月饼；替罪羊代为出局）[/b]" in day3
    assert "1. 烧卖：身份死亡（投票）\n2. 汤圆：出局（夜晚）\n3. 饺子：身份死亡（夜晚）" in day3
    assert "现任警长：Alice" in day3
    (badge,) = [m for m in posts(dual, "progress") if "【警长】" in m]
    assert "饺子 指定 Alice 继任警长" in badge


def test_dual_game__state(dual):
    from forumbot.game.state import current_state

    state = current_state(dual.rt.config, dual.rt.store)
    assert [p for p in PLAYERS if state.is_out(p)] == ["汤圆"]
    assert {p: state.lives(p) for p in ("饺子", "烧卖", "月饼", "包子")} == {"饺子": 1, "烧卖": 1, "月饼": 1, "包子": 2}
    assert state.scapegoat is None and state.sheriff == "Alice"
    published = dual.rt.outbox.drafts(DraftState.PUBLISHED)
    kinds = {d.kind for d in published}
    assert {DraftKind.ACCELERATION_NOTICE, DraftKind.BADGE_NOTICE, DraftKind.ANNOUNCEMENT} <= kinds


def test_dual_game__cards_follow_the_points_rules(dual):
    """双身份 003_…: 角色因违反游戏规则，累计扣满12分者将予以罚下 — no colours, no lurking rule, no
    duty to vote. Day 1's lurker (烧卖, one post) and its three non-voters are proposed
    nothing; 汤圆's post after going out (已出局的角色不能继续参与讨论) is proposed as a deduction."""
    proposals = dual.rt.store.proposals()
    assert [(p.day, p.player, p.reason_code, p.color.value) for p in proposals] == [(3, "汤圆", "zombie", "points")]
    audit = [e for e in dual.rt.store.audit_log() if e.action == "card.proposed"]
    assert len(audit) == 1


def test_dual_game__a_deduction_is_announced_in_points(dual):
    (notice,) = [m for m in posts(dual, "progress") if "【违规判定】" in m]
    assert "[b]【违规判定】小笼包：扣3分[/b]" in notice and "原因：在讨论帖贴出私聊截图" in notice
    assert "累计扣分：3/12（累计扣满12分罚下）" in notice
    assert not any(word in notice for word in ("蓝牌", "黄牌", "红牌", "积分"))
    (entry,) = dual.rt.store.cards()
    assert (entry.player, entry.color.value, entry.points) == ("小笼包", "points", 3)
    day3 = [m for m in posts(dual, "progress") if "【公示】第3日" in m][0]
    assert "小笼包：扣3分（在讨论帖贴出私聊截图）" in day3
