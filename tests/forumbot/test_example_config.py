"""The project's config.toml is a complete example: it loads, and it is the demo game."""

from __future__ import annotations

import tomllib

from forumbot.config.gamefile import load_config, parse_config
from forumbot.demo.play import EXAMPLE_CONFIG
from forumbot.demo.scenario import DAYS, PLAYERS, THREADS, build_world, config_from, dump_toml, write_config
from forumbot.config.settings import load_settings
from forumbot.simulator import Simulator


def test_example_config__loads_with_every_section():
    config = load_config(EXAMPLE_CONFIG)
    settings = load_settings(config)
    assert settings.bot.username == config.state.bot == "计票机器人"
    assert settings.agent.database.name == "forumbot-game.sqlite"
    assert {k.value: v.value for k, v in settings.policies.items()} == {
        "running_count": "auto", "count_reply": "auto", "final_count": "manual",
        "announcement": "manual", "card_notice": "manual", "acceleration_notice": "manual",
        "badge_notice": "manual", "sealed_deal": "manual", "game_end": "manual"}


def test_example_config__is_the_scripted_demo_game(tmp_path):
    sim = Simulator()
    world = build_world(sim)  # threads are created in a fixed order: the tids are known
    generated = load_config(write_config(tmp_path / "g.toml", world, "http://127.0.0.1:1/", tmp_path / "db"))
    example = load_config(EXAMPLE_CONFIG)
    assert example.state.players == generated.state.players == PLAYERS
    assert example.days == generated.days
    assert example.rules == generated.rules
    assert len(THREADS) == 7 and [d.number for d in example.days] == [d.number for d in DAYS]


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
