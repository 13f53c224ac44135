"""[forum]: base_url is checked when the config is loaded (not after minutes of retries),
and [forum].discuz chooses the Discuz generation or leaves it to detection."""

from __future__ import annotations

import pytest

from forumbot.config.gamefile import ConfigError, parse_config

GAME = """
[game]
ruleset = "s10"
players = ["饺子", "包子", "汤圆"]

[[days]]
number = 1
vote_thread = 3
start = "2026-12-01T09:00:00+08:00"
deadline = "2026-12-02T21:30:00+08:00"
"""


def forum(table: str):
    return parse_config("[forum]\n" + table + GAME, "game.toml").forum


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8080/", "http://127.0.0.1:8080", "https://bbs.example.com/", "http://example.com/bbs/",
     "http://[::1]:18080/bbs", "HTTP://Example.com/"],
)
def test_config_forum__good_base_urls(url):
    assert forum(f'base_url = "{url}"').base_url == url


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("htp:/127.0.0.1:18080", "http:// 或 https://"),
        ("127.0.0.1:18080", "http:// 或 https://"),
        ("localhost:8080", "http:// 或 https://"),
        ("ftp://127.0.0.1/", "http:// 或 https://"),
        ("http:/127.0.0.1:18080/", "没有主机名"),
        ("http://127.0.0.1:99999/", "端口超出范围"),
        ("http://127.0.0.1:0/", "端口 0"),
        ("http://127.0.0.1:80a/", "端口不是数字"),
        ("http://127.0.0.1:8080/forum.php?mod=viewthread&tid=2", "查询参数"),
        ("http://127.0.0.1:8080/?", "查询参数"),
        ("http://127.0.0.1:8080/#top", "#…"),
        ("http://127.0.0.1:8080/bbs/forum.php", "指向了一个页面（forum.php）"),
        ("http://127.0.0.1:8072/viewthread.php", "指向了一个页面（viewthread.php）"),
        ("http://bot:secret@127.0.0.1:8080/", "用户名或密码"),
    ],
)
def test_config_forum__bad_base_url_names_the_key_and_what_is_wrong(url, why):
    with pytest.raises(ConfigError) as info:
        forum(f'base_url = "{url}"')
    message = str(info.value)
    assert message.startswith("game.toml: [forum].base_url: ") and why in message
    assert "secret" not in message  # a password in the URL is never echoed


@pytest.mark.parametrize(("value", "expected"), [('"auto"', "auto"), ('"x3"', "x3"), ('"7.2"', "7.2"),
                                                 ("7.2", "7.2"), ('"X3"', "x3")])
def test_config_forum__discuz_generation(value, expected):
    assert forum(f"discuz = {value}").discuz == expected


def test_config_forum__discuz_defaults_to_detection():
    assert forum("").discuz == "auto"


@pytest.mark.parametrize("value", ['"x2"', '"6.0"', "7", "true", '""'])
def test_config_forum__bad_discuz_names_the_key(value):
    with pytest.raises(ConfigError) as info:
        forum(f"discuz = {value}")
    assert "game.toml: [forum].discuz: " in str(info.value) and '"auto"、"x3" 或 "7.2"' in str(info.value)
