"""Issue 18 #5, the rules (``forumbot.game.provenance``) on a store without a forum: whose is each
marked post of the bot in the game's threads, what each origin stops, and what adopting
and marking a copy do. The same over HTTP with whole games: test_agent_lost_state.py."""

from __future__ import annotations

from datetime import datetime

import pytest

from forumbot.game import announce
from forumbot.game.director import DirectorError
from forumbot.config.gamefile import game_key
from forumbot.game.provenance import Origin, settle_alarms, survey
from forumbot.game.takeover import adopt, mark_copy, posted_elsewhere
from forumbot.store.marker import add_marker, game_hash, make_marker
from forumbot.store.outbox import DraftKind, DraftState, Outbox, PublishHow
from forumbot.store import FOREIGN_GAME, STATE_CONFLICT
from tests.forumbot.game_support import PROGRESS, at, store_game, talk_tid, vote_tid
from tests.forumbot.outbox_fakes import FakeForum

BOT = "计票机器人"
T = at(1, "22:00")


@pytest.fixture
def game(tmp_path):
    g = store_game(tmp_path, "simple14")
    yield g
    g.close()


def marker(game, *, state: str | None = None, gm: str | None = None, draft: int = 40, kind="final_count",
           day: int | None = 1) -> str:
    return make_marker(game=gm or game.rt.outbox.game, state=state or game.rt.store.state_id, draft_id=draft,
                       kind=kind, day=day)


def bot_post(game, tid: int, mark: str, body: str = "【最终计票】第1日\n结果：饺子 当选警长", *,
             author: str = BOT, when: datetime = T) -> int:
    return game.post(tid, author, add_marker(body, mark).replace("[size=1][color=#999999]", "")
                     .replace("[/color][/size]", ""), when)


def origin_of(game, pid: int) -> Origin:
    return next(f.origin for f in survey(game.rt).found if f.pid == pid)


def test_identity__the_game_is_named_by_its_first_days_threads(game) -> None:
    assert game_key(game.rt.config) == f"threads:{PROGRESS},{vote_tid(1)},{talk_tid(1)}"
    assert game.rt.outbox.game == game_hash(game_key(game.rt.config))


def test_identity__each_post_has_its_origin(game) -> None:
    rt = game.rt
    sent = rt.outbox.create_draft(DraftKind.RUNNING_COUNT, vote_tid(1), "【计票】第1日", now=T, day=1)
    never_sent = rt.outbox.create_draft(DraftKind.FINAL_COUNT, vote_tid(1), "【最终计票】第1日", now=T, day=1)
    own = bot_post(game, vote_tid(1), sent.marker, "【计票】第1日")
    rt.store.db.execute("UPDATE outbox SET state = 'published', pid = ?, attempts = 1 WHERE id = ?", (own, sent.id))
    rows = {
        "own": own,
        "restored-unknown-draft": bot_post(game, vote_tid(1), marker(game, draft=99)),
        "restored-never-sent": bot_post(game, vote_tid(1), never_sent.marker),
        "other-state": bot_post(game, vote_tid(1), marker(game, state="abcdef")),
        "other-game": bot_post(game, talk_tid(1), marker(game, gm="000000", state="abcdef")),
        "legacy-unknown": bot_post(game, vote_tid(1), "fb-123456-3-0b5e2d"),
    }
    player = bot_post(game, vote_tid(1), marker(game, state="fedcba"), author="包子")  # anyone can type one
    elsewhere = bot_post(game, 999, marker(game, state="fedcba"))  # not one of the game's threads
    expected = {"own": Origin.OWN, "restored-unknown-draft": Origin.OTHER_STATE,
                "restored-never-sent": Origin.OTHER_STATE, "other-state": Origin.OTHER_STATE,
                "other-game": Origin.OTHER_GAME, "legacy-unknown": Origin.OTHER_STATE}
    assert {name: origin_of(game, pid) for name, pid in rows.items()} == expected
    assert {f.pid for f in survey(rt).found}.isdisjoint({player, elsewhere})
    assert survey(rt).writers(Origin.OTHER_STATE) == sorted({rt.store.state_id, "abcdef", "old:123456"})


def test_identity__a_game_upgraded_mid_way_knows_its_legacy_posts(game) -> None:
    rt = game.rt
    draft = rt.outbox.create_draft(DraftKind.FINAL_COUNT, vote_tid(1), "【最终计票】第1日", now=T, day=1)
    legacy = f"fb-{game_hash(rt.store.game_key)}-{draft.id}-0b5e2d"
    rt.store.db.execute("UPDATE outbox SET marker = ? WHERE id = ?", (legacy, draft.id))
    pid = game.post(vote_tid(1), BOT, f"【最终计票】第1日\nforumbot:{legacy}", T)
    rt.store.db.execute("UPDATE outbox SET state = 'published', pid = ?, attempts = 1 WHERE id = ?", (pid, draft.id))
    [found] = survey(rt).found
    assert (found.origin, found.kind, found.day) == (Origin.OWN, "final_count", 1)
    settle_alarms(rt, T)
    assert rt.store.alarms() == []


def test_identity__another_state_stops_the_game_another_game_stops_its_thread(game) -> None:
    rt = game.rt
    bot_post(game, vote_tid(1), marker(game, state="abcdef"))
    bot_post(game, talk_tid(1), marker(game, gm="000000", state="abcdef"))
    settle_alarms(rt, T)
    assert rt.store.alarm(STATE_CONFLICT) is not None
    assert rt.store.alarm(f"{FOREIGN_GAME}:{talk_tid(1)}") is not None
    # the outbox sends nothing while the game is stopped
    forum = FakeForum()
    rt.outbox.create_draft(DraftKind.RUNNING_COUNT, vote_tid(2), "【计票】第2日", now=T, day=2)
    [outcome] = rt.outbox.publish_pending(forum, T)
    assert (outcome.how, outcome.state) == (PublishHow.WAITING, DraftState.APPROVED)
    assert "暂停发帖" in (outcome.error or "") and forum.calls == []


def test_identity__another_games_posts_stop_only_their_thread(game) -> None:
    rt = game.rt
    bot_post(game, talk_tid(1), marker(game, gm="000000", state="abcdef"))
    settle_alarms(rt, T)
    assert rt.store.alarm(STATE_CONFLICT) is None
    forum = FakeForum()
    there = rt.outbox.create_draft(DraftKind.RUNNING_COUNT, talk_tid(1), "计票", now=T, day=1)
    elsewhere = rt.outbox.create_draft(DraftKind.COUNT_REPLY, vote_tid(1), "计票", now=T, day=1)
    outcomes = {o.draft_id: o.how for o in rt.outbox.publish_pending(forum, T)}
    assert outcomes == {there.id: PublishHow.WAITING, elsewhere.id: PublishHow.SENT}


def test_identity__the_alarm_clears_when_the_config_no_longer_points_there(tmp_path) -> None:
    g = store_game(tmp_path, "simple14")
    try:
        bot_post(g, vote_tid(2), marker(g, state="abcdef", day=2))
        settle_alarms(g.rt, T)
        assert g.rt.store.alarm(STATE_CONFLICT) is not None
    finally:
        g.close()
    fixed = store_game(tmp_path, "simple14", days=1)  # same database, day 2 no longer configured
    try:
        settle_alarms(fixed.rt, T)
        assert fixed.rt.store.alarm(STATE_CONFLICT) is None
    finally:
        fixed.close()


def test_identity__adopting_takes_the_posts_over_and_never_drafts_them_again(game) -> None:
    rt = game.rt
    for hhmm, who, target in (("10:00", "饺子", "包子"), ("10:10", "包子", "饺子"), ("10:20", "汤圆", "饺子")):
        game.vote(1, hhmm, who, target)
    rt.store.save_tally(1, game.tally(1), at=T)
    request = game.vote(1, "11:00", "月饼", "饺子")
    final = bot_post(game, vote_tid(1), marker(game, state="abcdef", draft=7), "【最终计票】第1日\n结果：饺子 当选警长")
    notice = bot_post(game, PROGRESS, marker(game, state="abcdef", draft=8, kind="announcement", day=2), "【公示】第2日")
    reply = game.post(vote_tid(1), BOT, f"@月饼 计票如下\n机器人标记 {marker(game, state='abcdef', draft=5, kind='count_reply')}",
                      T, quote=None)
    rt.store.db.execute("UPDATE posts SET latest_json = json_set(latest_json, '$.quotes',"
                        " json_array(json_object('pid', ?))) WHERE pid = ?", (request, reply))
    settle_alarms(rt, T)
    done = adopt(rt, T, actor="director")
    assert done.states == ("abcdef",) and done.posts == 3 and done.warnings == ()
    assert set(done.notable) == {"第1日最终计票", "第2日公示"}
    assert rt.store.alarm(STATE_CONFLICT) is None
    assert {f.origin for f in survey(rt).found} == {Origin.OWN}  # recorded as this state's now
    [taken_final] = announce.final_drafts(rt.outbox, 1)
    assert (taken_final.state, taken_final.pid, taken_final.dedupe_key) == (DraftState.PUBLISHED, final, "final_count:day1")
    assert announce.standing(rt.outbox, "announcement", 2).pid == notice
    assert rt.outbox.by_dedupe_key(f"count_reply:{request}").pid == reply
    # its result is the game's: 饺子 the sheriff at the deadline
    assert game.state().moment(at(1, "21:31")).sheriff == "饺子"
    # the announcement is not drafted again when the director enters the night again
    rt.store.record_night(2, ["汤圆"], actor="director", at=at(1, "23:00"))
    assert announce.draft_announcement(rt, 2, at(1, "23:01")).pid == notice
    assert len(announce.numbered_drafts(rt.outbox, "announcement", 2)) == 1
    with pytest.raises(DirectorError, match="没有需要接管"):
        adopt(rt, T, actor="director")


def test_identity__a_final_taken_over_that_says_another_result_is_told(game) -> None:
    rt = game.rt
    game.vote(1, "10:00", "饺子", "包子")
    rt.store.save_tally(1, game.tally(1), at=T)
    bot_post(game, vote_tid(1), marker(game, state="abcdef", draft=7), "【最终计票】第1日\n结果：汤圆 当选警长")
    settle_alarms(rt, T)
    done = adopt(rt, T, actor="director")
    [warning] = done.warnings
    assert "汤圆 当选警长" in warning and "包子 当选警长" in warning and "forumbot redraft --day 1" in warning


def test_identity__undecided_posts_stop_drafting_what_they_posted(game) -> None:
    rt = game.rt
    bot_post(game, PROGRESS, marker(game, state="abcdef", draft=8, kind="announcement", day=2), "【公示】第2日")
    rt.store.record_night(2, ["汤圆"], actor="director", at=at(1, "23:00"))
    assert posted_elsewhere(rt, "announcement", 2, T) is True
    assert announce.draft_announcement(rt, 2, at(1, "23:01")) is None
    assert announce.numbered_drafts(rt.outbox, "announcement", 2) == []
    assert posted_elsewhere(rt, "announcement", 3, T) is False


def test_identity__adopting_a_restored_copy_of_this_state_gives_it_a_new_id(game) -> None:
    rt = game.rt
    old = rt.store.state_id
    waiting = rt.outbox.create_draft(DraftKind.FINAL_COUNT, vote_tid(1), "【最终计票】第1日", now=T, day=1)
    bot_post(game, vote_tid(1), marker(game, draft=waiting.id))  # the same marker, posted by the older copy
    settle_alarms(rt, T)
    assert rt.store.alarm(STATE_CONFLICT) is not None
    done = adopt(rt, T, actor="director")
    assert done.renewed == rt.store.state_id != old
    assert f"-{rt.store.state_id}-" in rt.outbox.get(waiting.id).marker  # never sent: marked anew
    assert old in rt.store.adopted_states()


def test_identity__marking_a_copy_keeps_the_alarm_saying_so(game) -> None:
    rt = game.rt
    bot_post(game, vote_tid(1), marker(game, state="abcdef"))
    settle_alarms(rt, T)
    assert mark_copy(rt, T, actor="director") == ("abcdef",)
    alarm = rt.store.alarm(STATE_CONFLICT)
    assert alarm is not None and alarm.detail["copy"] is True and "副本" in alarm.text
    assert {f.origin for f in survey(rt).found} == {Origin.COPY}
    with pytest.raises(DirectorError, match="已经确认过"):
        mark_copy(rt, T, actor="director")
    adopt(rt, T, actor="director")  # the director may still change their mind
    assert rt.store.alarm(STATE_CONFLICT) is None


def test_identity__a_bare_outbox_keeps_marking_by_the_stores_key(tmp_path) -> None:
    from forumbot.store import Store

    with Store(tmp_path / "x.sqlite") as store:
        draft = Outbox(store).create_draft(DraftKind.CARD_NOTICE, 5, "判罚", now=T)
        assert draft.marker == f"{game_hash(store.game_key)}-{store.state_id}-{draft.id}-c"
