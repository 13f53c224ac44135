"""The User-Agent: a desktop browser's by default, never one Discuz takes for a robot
(spider pages without floors) or a phone (touch pages without pids); a configured one
with such a word is refused at load time, naming the key and the word."""

from __future__ import annotations

import httpx
import pytest

from forumbot.config.gamefile import ConfigError, parse_config
from forumbot.discuz import DEFAULT_USER_AGENT, DiscuzClient, user_agent_problem
from forumbot.discuz.useragent import MOBILE_WORDS, ROBOT_WORDS
from forumbot.config.settings import load_settings

GAME = """
[forum]
base_url = "http://127.0.0.1:8080/"

[game]
ruleset = "s10"
director = "导演"
bot = "计票机器人"
players = ["饺子", "包子", "汤圆"]

[[days]]
number = 1
vote_thread = 3
start = "2026-12-01T09:00:00+08:00"
deadline = "2026-12-02T21:30:00+08:00"
"""

# checkrobot()/checkmobile() of X3.5 source/function/function_core.php, spelled out here
# so a change to the module's lists cannot quietly weaken the check.
DISCUZ_ROBOT_WORDS = ["bot", "crawl", "spider", "slurp", "sohu-search", "lycos", "robozilla"]
DISCUZ_TOUCH_WORDS = ["iphone", "android", "phone", "mobile", "wap", "netfront", "java", "opera mobi",
                      "opera mini", "ucweb", "windows ce", "symbian", "series", "webos", "sony",
                      "blackberry", "nokia", "samsung", "huawei", "smartphone", "iemobile",
                      "windows phone"]


def settings_for(bot_table: str):
    return load_settings(parse_config(GAME + "\n[bot]\n" + bot_table, "game.toml"))


def test_discuz_useragent__default_has_no_robot_or_phone_word():
    agent = DEFAULT_USER_AGENT.lower()
    assert agent.startswith("mozilla/5.0") and "forumbot" not in agent
    for word in (*ROBOT_WORDS, *MOBILE_WORDS, *DISCUZ_ROBOT_WORDS, *DISCUZ_TOUCH_WORDS):
        assert word not in agent, word
    assert user_agent_problem(DEFAULT_USER_AGENT) is None


def test_discuz_useragent__module_lists_hold_discuzs_words():
    assert set(DISCUZ_ROBOT_WORDS) <= set(ROBOT_WORDS)
    assert set(DISCUZ_TOUCH_WORDS) <= set(MOBILE_WORDS)


def test_discuz_useragent__every_request_carries_it():
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["user-agent"])
        return httpx.Response(503, request=request)

    client = DiscuzClient(httpx.Client(transport=httpx.MockTransport(answer)), "http://127.0.0.1:8080/",
                          generation="x3", min_interval=0, sleep=lambda s: None)
    with pytest.raises(Exception):
        client.fetch_page(2)
    assert seen and set(seen) == {DEFAULT_USER_AGENT}


@pytest.mark.parametrize(
    ("agent", "word"),
    [
        ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) forumbot/0.1", "bot"),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "bot"),
        ("MyCrawler/1.0", "crawl"),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36",
         "android"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15", "iphone"),
        ("Opera/9.80 (J2ME/MIDP; Opera Mini/9.80) Presto/2.5", "opera mini"),
    ],
)
def test_discuz_useragent__configured_robot_or_phone_agent_is_refused(agent, word):
    with pytest.raises(ConfigError) as info:
        settings_for(f'username = "计票机器人"\nuser_agent = "{agent}"\n')
    message = str(info.value)
    assert "[bot].user_agent" in message and repr(word) in message and "game.toml" in message


def test_discuz_useragent__configured_browser_agent_is_used():
    firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
    assert settings_for(f'user_agent = "{firefox}"\n').bot.user_agent == firefox
    assert settings_for("").bot.user_agent == DEFAULT_USER_AGENT


@pytest.mark.parametrize("value", ['""', "12", '"   "'])
def test_discuz_useragent__empty_or_not_text_is_refused(value):
    with pytest.raises(ConfigError, match=r"\[bot\]\.user_agent"):
        settings_for(f"user_agent = {value}\n")


def test_discuz_useragent__runtime_client_sends_the_configured_agent(tmp_path):
    from forumbot.game.runtime import make_client, open_runtime

    firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
    config = tmp_path / "game.toml"
    config.write_text(GAME + f'\n[bot]\nuser_agent = "{firefox}"\n\n[agent]\ndatabase = "game.sqlite"\n',
                      encoding="utf-8")
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["user-agent"])
        return httpx.Response(503, request=request)

    rt = open_runtime(config)
    try:
        client = make_client(rt, http=httpx.Client(transport=httpx.MockTransport(answer)))
        client.transport.retry_policy = client.transport.retry_policy.__class__(max_attempts=1)
        with pytest.raises(Exception):
            client.dialect()
    finally:
        rt.close()
    assert seen == [firefox]
