"""Issue 18 #5, over real HTTP on the simulator: a game's state database is lost, or its
config is copied with another database, or points at another game's thread.

* the database deleted after day 1's final count: a new state reads the game's threads,
  finds the old state's posts, posts nothing (no second 【最终计票】) and raises the alarm;
  after the director's ``forumbot adopt`` the game goes on — day 1's final is never drafted
  again, day 2 is counted with day 1's sheriff — and a 公示 already posted is not posted
  again when the director re-enters the night;
* a copied config (another ``[agent].database``) posts nothing into the first game's
  thread and raises the alarm; ``forumbot mark-copy`` keeps it;
* a config whose first day names other threads (another game) but keeps one of the first
  game's threads does not post there;
* ``forumbot status`` on a missing database says so and creates nothing.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from forumbot.game import director
from forumbot.agent.loop import Agent
from forumbot.notify import Notifier
from forumbot.demo.play import Game, play
from forumbot.game.provenance import survey
from forumbot.store.marker import read_marker
from forumbot.store.outbox import DraftKind, DraftState
from forumbot.game.runtime import make_client, open_runtime
from forumbot.demo.scenario import BOT, at
from forumbot.store import FOREIGN_GAME, STATE_CONFLICT
from tests.forumbot.alarm_support import cli, game_on

FINAL_1 = "【最终计票】第1日"


def bot_posts(game: Game) -> list[tuple[str, int, str]]:
    return game.world.bot_posts(BOT)


def titled(game: Game, title: str) -> list[int]:
    return [pid for _, pid, message in bot_posts(game) if title in message]


def running_counts(game: Game, day: int) -> int:
    """The day's running-count posts (not the answers to 计票 requests, which say whom)."""
    return sum(1 for _, _, m in bot_posts(game) if f"【计票】第{day}日" in m and "计票如下" not in m)


def lose_database(game: Game) -> None:
    database = Path(game.rt.settings.agent.database)
    game.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    assert not database.exists()


def fresh_state(game: Game, config: Path | None = None) -> Game:
    """A new agent on the game's config (or ``config``), its database made anew."""
    rt = open_runtime(config or game.rt.config.path, clock=game.clock)
    agent = Agent(rt, make_client(rt), notifier=Notifier.for_agent)
    game.driver.on_night = lambda action: director.record_night(rt, action.day, list(action.out), game.clock.now())
    return replace(game, rt=rt, agent=agent, approved=[], errors=[])


def test_lost_state__a_new_database_posts_no_second_final_count_and_goes_on_after_adopt(tmp_path):
    game = game_on(tmp_path)
    try:
        play(game, until=at(1, "22:00"))
        [first_final] = titled(game, FINAL_1)
        before = len(bot_posts(game))
        lose_database(game)

        # status on the missing database: said in Chinese, non-zero, nothing created
        config = game.rt.config.path
        result = cli(game, "status")
        assert result.exit_code != 0
        assert "状态数据库不存在" in result.output and "forumbot run" in result.output
        assert not Path(game.rt.settings.agent.database).exists()

        game = fresh_state(game)
        play(game, until=at(1, "23:40"))  # the night (23:00) is entered into the new state
        assert titled(game, FINAL_1) == [first_final]
        assert len(bot_posts(game)) == before  # nothing at all: the state does not know what was posted
        alarm = game.rt.store.alarm(STATE_CONFLICT)
        assert alarm is not None and "forumbot adopt" in alarm.text and "mark-copy" in alarm.text
        assert "第1日最终计票" in alarm.text  # it names what the forum holds
        assert game.rt.outbox.drafts() == []  # nothing drafted either
        status = cli(game, "status")
        assert "另一份状态" in status.output

        adopted = cli(game, "adopt")
        assert adopted.exit_code == 0, adopted.output
        assert "第1日最终计票" in adopted.output and "不会再起草" in adopted.output
        assert game.rt.store.alarm(STATE_CONFLICT) is None

        play(game, until=at(2, "22:00"))
        assert titled(game, FINAL_1) == [first_final]  # never drafted again
        finals_1 = [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT and d.day == 1]
        assert [(d.state, d.pid) for d in finals_1] == [(DraftState.PUBLISHED, first_final)]
        # the game went on: day 1's sheriff (饺子 ×2) settles day 2's tie, 包子 out
        [final_2] = [m for _, _, m in bot_posts(game) if "【最终计票】第2日" in m]
        assert "包子 出局" in final_2
        assert any("【公示】第2日" in m for _, _, m in bot_posts(game))
        # the new posts carry the new state's id
        new_marker = read_marker(final_2)
        assert new_marker is not None and new_marker.state == game.rt.store.state_id
        assert not game.errors, game.errors
    finally:
        game.close()
        game.sim.stop()


def test_lost_state__an_announcement_on_the_forum_is_not_posted_again_when_the_night_is_re_entered(tmp_path):
    game = game_on(tmp_path)
    try:
        # lost before 烧卖 edits his vote (10:30): the new state sees it as first written
        play(game, until=at(2, "10:20"))
        [announced] = titled(game, "【公示】第2日")
        counts = running_counts(game, 2)
        assert counts >= 1
        lose_database(game)
        game = fresh_state(game)
        play(game, until=at(2, "10:30"))
        assert game.rt.store.alarm(STATE_CONFLICT) is not None
        assert cli(game, "adopt").exit_code == 0
        # as the alarm says: the director enters again what the lost database held
        director.record_night(game.rt, 2, ["汤圆"], game.clock.now())
        play(game, until=at(2, "22:00"))
        assert titled(game, "【公示】第2日") == [announced]
        assert len(titled(game, FINAL_1)) == 1
        [final_2] = [m for _, _, m in bot_posts(game) if "【最终计票】第2日" in m]
        assert "包子 出局" in final_2
        # the running count taken over is edited in place, not posted again
        assert running_counts(game, 2) == counts
    finally:
        game.close()
        game.sim.stop()


def copy_config(game: Game, tmp_path: Path, name: str, change=None) -> Path:
    text = game.rt.config.path.read_text(encoding="utf-8")
    database = str(game.rt.settings.agent.database)
    text = text.replace(database, str(tmp_path / f"{name}.sqlite"))
    if change is not None:
        text = change(text)
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_lost_state__a_copied_config_with_another_database_posts_nothing_into_the_first_games_thread(tmp_path):
    game = game_on(tmp_path)
    copy = None
    try:
        play(game, until=at(1, "12:30"))
        assert titled(game, "【计票】第1日")
        copy = fresh_state(game, copy_config(game, tmp_path, "copy"))
        copy.agent.start()
        posted = len(bot_posts(game))
        for _ in range(3):
            game.driver.apply_due(game.clock.now())
            copy.agent.tick()
            game.agent.tick()
            for draft in director.waiting(game.rt):
                director.approve(game.rt, draft.id, game.clock.now())
            game.clock.advance(minutes=40)
        mine = {m.state for _, _, text in bot_posts(game) if (m := read_marker(text)) is not None}
        assert copy.rt.store.state_id not in mine  # not one post by the copy
        assert len(bot_posts(game)) >= posted  # the first game goes on posting
        assert copy.rt.store.alarm(STATE_CONFLICT) is not None
        assert game.rt.store.alarm(STATE_CONFLICT) is None  # the first game saw nothing foreign

        marked = cli(copy, "mark-copy")
        assert marked.exit_code == 0, marked.output
        copy.agent.tick()
        alarm = copy.rt.store.alarm(STATE_CONFLICT)
        assert alarm is not None and "副本" in alarm.text and alarm.detail["copy"] is True
        assert copy.rt.store.state_id not in {m.state for _, _, t in bot_posts(game) if (m := read_marker(t))}
    finally:
        if copy is not None:
            copy.close()
        game.close()
        game.sim.stop()


def test_lost_state__a_config_pointing_at_another_games_thread_does_not_post_there(tmp_path):
    game = game_on(tmp_path)
    other = None
    try:
        play(game, until=at(1, "12:30"))
        vote1 = game.world.tids["vote1"]
        talk1 = game.world.tids["talk1"]
        fid = game.sim.add_forum("第二局")
        mine = game.sim.add_thread(fid, "【第二局】第1日 讨论帖", "导演", "讨论")

        def own_discussion(text: str) -> str:  # another game: its first day's threads differ
            changed = re.sub(rf'("?discussion_thread"? = ){talk1}\b', rf"\g<1>{mine}", text, count=1)
            assert changed != text
            return changed

        other = fresh_state(game, copy_config(game, tmp_path, "other", own_discussion))
        assert other.rt.outbox.game != game.rt.outbox.game
        other.agent.start()
        before = len(bot_posts(game))
        for _ in range(3):
            other.agent.tick()
            game.clock.advance(minutes=40)
        assert len(bot_posts(game)) == before
        alarm = other.rt.store.alarm(f"{FOREIGN_GAME}:{vote1}")
        assert alarm is not None and f"主题 {vote1}" in alarm.text and "另一局" in alarm.text
        assert other.rt.store.alarm(STATE_CONFLICT) is None  # not this game's posts
        waiting = [d for d in other.rt.outbox.drafts(DraftState.APPROVED) if d.tid == vote1]
        assert waiting, "its running count waits, unsent"
        assert {f.origin.value for f in survey(other.rt).found} == {"other_game"}
    finally:
        if other is not None:
            other.close()
        game.close()
        game.sim.stop()


def test_lost_state__a_final_of_the_lost_state_appearing_late_is_taken_over_not_posted_twice(tmp_path):
    """The lost state's day-2 final count shows up after the director adopted (a moderator
    released it late): the new state's own draft for day 2, still waiting, is not sent."""
    game = game_on(tmp_path)
    try:
        play(game, until=at(2, "10:20"))
        lose_database(game)
        game = fresh_state(game)
        play(game, until=at(2, "10:30"))
        [old_state] = game.rt.store.alarm(STATE_CONFLICT).detail["states"]
        assert cli(game, "adopt").exit_code == 0
        director.record_night(game.rt, 2, ["汤圆"], game.clock.now())
        play(game, until=at(2, "21:30"))
        play(game, until=at(2, "22:00"), approve=False)  # the day's final count waits for the director
        [waiting] = [d for d in game.rt.outbox.drafts() if d.kind is DraftKind.FINAL_COUNT and d.day == 2]
        assert waiting.state is DraftState.DRAFT
        late = game.sim.add_post(game.world.tids["vote2"], BOT, "[b]【最终计票】第2日[/b]\n[b]结果：包子 出局[/b]\n"
                                 f"[size=1][color=#999999]机器人标记 {game.rt.outbox.game}-{old_state}-30-f2"
                                 "[/color][/size]")
        play(game, until=at(2, "22:20"))
        assert game.rt.outbox.get(waiting.id).state is DraftState.REJECTED
        assert titled(game, "【最终计票】第2日") == [late]
        [taken] = [d for d in game.rt.outbox.drafts(DraftState.PUBLISHED)
                   if d.kind is DraftKind.FINAL_COUNT and d.day == 2]
        assert taken.pid == late
    finally:
        game.close()
        game.sim.stop()
