"""Issue 18 #5 under ``forumbot serve``, over real HTTP on the simulator: a game's database
deleted while the service is stopped, and a copy of a game's config (another
``[agent].database``) dropped into the games folder. Neither posts into the game's
threads; each raises the alarm; the first game goes on undisturbed."""

from __future__ import annotations

from pathlib import Path

from forumbot.store.marker import read_marker
from forumbot.store import STATE_CONFLICT
from tests.forumbot.service_support import served, wait_for


def _alarm(s, config: Path):
    """The game's state-conflict alarm (None before the service created its state)."""
    from forumbot.game.runtime import open_runtime

    if not Path(_database(config)).exists():
        return None
    rt = open_runtime(config, clock=s.clock)
    try:
        return rt.store.alarm(STATE_CONFLICT)
    finally:
        rt.close()


def _database(config: Path) -> Path:
    from forumbot.config.gamefile import load_config
    from forumbot.config.settings import load_settings

    return load_settings(load_config(config)).agent.database


def _states(s) -> set[str]:
    return {m.state for p in s.many.bot_posts() if (m := read_marker(p.message)) is not None}


def _stop_service(s) -> None:
    s.service.stop.set()
    s.thread.join(30)
    assert not s.thread.is_alive()


def test_service_state__a_copied_config_and_a_lost_database_post_nothing_and_raise_the_alarm(tmp_path):
    s = served(tmp_path, 2, names=["甲局", "乙局"]).start(desk=False)
    try:
        wait_for(lambda: s.game("甲局").bot_posts() and s.game("乙局").bot_posts(), timeout=90)
        first = s.game("甲局")
        states_before = _states(s)
        assert len(states_before) == 2

        # a copy of 甲局's config, another database, dropped into the folder
        copy = s.folder / "甲局副本.toml"
        copy.write_text(first.config.read_text(encoding="utf-8").replace(
            str(first.database), str(s.folder / "甲局副本.sqlite")), encoding="utf-8")
        wait_for(lambda: _alarm(s, copy) is not None, timeout=90)
        assert _states(s) == states_before  # not one post by the copy
        assert _alarm(s, first.config) is None and _alarm(s, s.game("乙局").config) is None

        # 乙局's database is lost while the service is stopped; the service starts again
        _stop_service(s)
        lost = s.game("乙局")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{lost.database}{suffix}").unlink(missing_ok=True)
        posts = len(lost.bot_posts())
        s.start(desk=False)
        wait_for(lambda: _alarm(s, lost.config) is not None, timeout=90)
        assert len(lost.bot_posts()) == posts
        assert _states(s) == states_before
        assert s.errors == []
    finally:
        s.stop()
