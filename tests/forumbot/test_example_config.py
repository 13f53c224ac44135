"""The project's config.toml is a complete example: it loads, and it is the demo game."""

from __future__ import annotations

import tomllib

from forumbot.config.gamefile import load_config, parse_config
from forumbot.demo.play import EXAMPLE_CONFIG
from forumbot.demo.nights import PLAYERS14, village_plan
from forumbot.demo.scenario import config_from, dump_toml
from forumbot.config.settings import load_settings


def test_example_config__loads_with_every_section():
    config = load_config(EXAMPLE_CONFIG)
    settings = load_settings(config)
    assert settings.bot.username == config.state.bot == "计票机器人"
    assert settings.agent.database.name == "forumbot-game.sqlite"
    assert {k.value: v.value for k, v in settings.policies.items()} == {
        "running_count": "auto", "count_reply": "auto", "final_count": "manual",
        "announcement": "manual", "card_notice": "manual", "acceleration_notice": "manual",
        "badge_notice": "manual", "new_thread": "manual", "reminder": "auto", "closing": "auto",
        "sealed_deal": "manual", "game_end": "manual"}


def test_example_config__is_the_scripted_demo_game(tmp_path):
    """config.toml is the default demo's game (forumbot.demo.nights.village_plan): its
    players in seat order, the days the script plays, 14人简易's rules — and no identity
    sheet (never in a repository): the demo deals the script's into its copy."""
    plan = village_plan()
    example = load_config(EXAMPLE_CONFIG)
    assert example.state.players == plan.players == PLAYERS14
    # the days the script plays; the example names no thread: the bot opens them ([calendar], SPEC §11)
    assert [(d.number, d.start, d.deadline) for d in example.days[:len(plan.days)]] == \
        [(d.number, d.start, d.deadline) for d in plan.days]
    assert all(d.vote_thread is None for d in example.days) and example.calendar is not None
    assert example.rules.name == plan.ruleset and example.identities is None
    copy = load_config(config_from(EXAMPLE_CONFIG, tmp_path / "g.toml", "http://127.0.0.1:1/", tmp_path / "db",
                                   plan=plan))
    assert copy.identities is not None and copy.tell_by_pm
    assert (tmp_path / "身份.toml").stat().st_mode & 0o777 == 0o600


def test_config_from__points_a_copy_at_another_forum(tmp_path):
    path = config_from(EXAMPLE_CONFIG, tmp_path / "copy.toml", "http://127.0.0.1:9/", tmp_path / "x.sqlite",
                       poll_interval_seconds=600)
    copy = load_config(path)
    assert copy.forum.base_url == "http://127.0.0.1:9/"
    assert load_settings(copy).agent.poll_interval_seconds == 600
    assert copy.days == load_config(EXAMPLE_CONFIG).days


def test_dump_toml__round_trips_a_config_document():
    doc = tomllib.loads(EXAMPLE_CONFIG.read_text(encoding="utf-8"))
    assert tomllib.loads(dump_toml(doc)) == doc
    parse_config(dump_toml(doc))
