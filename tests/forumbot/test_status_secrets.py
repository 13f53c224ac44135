"""``forumbot status`` shows identities, night actions and the win only with --secrets
(SPEC §10.1); a game without identities says so."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.game.clock import AcceleratedClock
from forumbot.game.runtime import CLOCK_ENV, clock_to_env, open_runtime
from tests.engine.night_builders import SIMPLE, SIMPLE_TABLE
from tests.forumbot.game_support import at, config_text
from tests.forumbot.identity_support import inline

WORDS = ("狼人", "预言家", "女巫", "长老", "村民", "杀人", "预言", "救药")
ACTION = '''
[[actions]]
night = 1
actor = "饺子"
skill = "杀人"
target = "元宵"
at = "{at}"
'''


@pytest.fixture
def game(tmp_path):
    config = tmp_path / "game.toml"
    config.write_text(config_text("simple14", SIMPLE, database=str(tmp_path / "g.sqlite"),
                                  extra=inline(SIMPLE_TABLE) + ACTION.format(at=at(1, "21:45").isoformat())),
                      encoding="utf-8")
    open_runtime(config, create=True).close()
    os.environ[CLOCK_ENV] = clock_to_env(AcceleratedClock(origin=at(2, "12:00"), factor=1.0))
    yield config
    os.environ.pop(CLOCK_ENV, None)


def status(config, *args):
    result = CliRunner().invoke(main, ["status", "--config", str(config), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_status__no_identity_without_secrets(game):
    for out in (status(game), status(game, "--json")):
        assert not any(w in out for w in WORDS), out
    assert "secrets" not in json.loads(status(game, "--json"))


def test_status__secrets_shows_the_sheet_and_the_actions(game):
    text = status(game, "--secrets")
    assert "身份（保密）" in text and "馄饨：长老" in text and "第1晚的行动" in text and "杀人 元宵" in text
    data = json.loads(status(game, "--json", "--secrets"))
    by_player = {p["player"]: p for p in data["secrets"]["identities"]}
    assert by_player["烧卖"]["identities"] == ["女巫"]
    assert data["secrets"]["nights"][0]["actions"][0]["counted"] is True


def test_status__secrets_without_identities(tmp_path):
    config = tmp_path / "game.toml"
    config.write_text(config_text("simple14", database=str(tmp_path / "g.sqlite")), encoding="utf-8")
    open_runtime(config, create=True).close()
    assert "本局没有身份表" in status(config, "--secrets")
