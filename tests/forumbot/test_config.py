"""Game config (TOML) → engine objects; every mistake names the file and the key."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.rules import Visibility
from forumbot.config.gamefile import ConfigError, load_config, parse_config
from tests.support import REPO

SPEC_EXAMPLE = """
[forum]
base_url = "http://127.0.0.1:8080/"   # the forum root (where forum.php lives)
timezone = "Asia/Shanghai"

[game]
ruleset = "s10"                        # s09 | s10 | simple14 | dual
director = "导演"                       # forum user names
bot = "计票机器人"
players = ["饺子", "包子", "汤圆"]       # role accounts, in seat order
sheriff = "饺子"                        # optional: the sheriff going into the day
out = ["汤圆"]                          # optional: players already out
idiot_revealed = []                    # optional: S10 idiots whose votes count 0
change_window_minutes = 60             # optional

[game.aliases]                         # optional
"饺" = "饺子"

[[days]]
number = 2
vote_thread = 12                       # tid
discussion_thread = 11                 # optional
start = "2026-11-29T09:30:00+08:00"
deadline = "2026-11-30T21:30:00+08:00"
accelerated = false                    # optional
"""

CN = timezone(timedelta(hours=8))


def test_parse_config__spec_section_8_keys():
    config = parse_config(SPEC_EXAMPLE)
    state = config.state
    assert config.rules.name == "s10" and config.rules.change_window_minutes == 60
    assert (state.players, state.sheriff, state.director, state.bot) == (("饺子", "包子", "汤圆"), "饺子", "导演", "计票机器人")
    assert state.is_out("汤圆") and not state.is_out("包子")
    assert state.aliases == (("饺", "饺子"),)
    day = config.day(2)
    assert (day.vote_thread, day.discussion_thread, day.accelerated) == (12, 11, False)
    assert day.deadline == datetime(2026, 11, 30, 21, 30, tzinfo=CN)
    assert config.forum.base_url == "http://127.0.0.1:8080/"


def test_load_config__the_projects_example_loads():
    config = load_config(REPO / "config.toml")
    assert config.rules.name in ("s09", "s10", "simple14", "dual") and config.days


def test_parse_config__rules_overrides_and_extras():
    text = SPEC_EXAMPLE.replace("[game.aliases]", 'scapegoat = "包子"\n[game.rules]\nvisibility = "counts_only"\n'
                                "require_reason = false\n[game.substitutes]\n\"替补\" = \"包子\"\n[game.aliases]")
    text += "deadline_pid = 345\nprogress_thread = 10\n"
    config = parse_config(text)
    assert (config.rules.visibility, config.rules.require_reason) == (Visibility.COUNTS_ONLY, False)
    assert config.state.scapegoat == "包子" and config.state.seat_of("替补") == "包子"
    assert (config.day(2).deadline_pid, config.day(2).progress_thread) == (345, 10)


def test_parse_config__naive_times_are_in_the_forum_zone():
    config = parse_config(SPEC_EXAMPLE.replace('"2026-11-30T21:30:00+08:00"', "2026-11-30T21:30:00"))
    assert config.day(2).deadline == datetime(2026, 11, 30, 21, 30, tzinfo=CN)


def test_parse_config__unknown_top_level_tables_are_left_for_others():
    config = parse_config(SPEC_EXAMPLE + '\n[agent]\npoll_seconds = 30\n[policies]\nrunning = "auto"\n')
    assert config.raw["agent"] == {"poll_seconds": 30}


BAD = {
    "unknown rule set": (('ruleset = "s10"', 'ruleset = "s11"'),
                         "config.toml: [game].ruleset: 未知的规则集 's11'（可选：s09、s10、simple14、dual）"),
    "typo in [game]": (("sheriff =", "sherif ="), "config.toml: [game].sherif: 未知的键（可用的键：aliases、bot、"),
    "typo in [forum]": (("timezone =", "time_zone ="), "config.toml: [forum].time_zone: 未知的键"),
    "typo in [[days]]": (("accelerated =", "accelarated ="), "config.toml: [[days]] #1.accelarated: 未知的键"),
    "typo in [game.rules]": (("[game.aliases]", "[game.rules]\nrequire_reasons = false\n[game.aliases]"),
                             "config.toml: [game.rules].require_reasons: 规则集没有这个字段：require_reasons"),
    "sheriff not a player": (('sheriff = "饺子"', 'sheriff = "路人"'), "config.toml: [game].sheriff: '路人' 不在 [game].players 里"),
    "alias to a stranger": (('"饺" = "饺子"', '"饺" = "饺皮"'), "config.toml: [game.aliases].饺: '饺皮' 不在 [game].players 里"),
    "missing deadline": (('deadline = "2026-11-30T21:30:00+08:00"', ""), "config.toml: [[days]] #1（第2日）.deadline: 缺少"),
    "bad time": (('deadline = "2026-11-30T21:30:00+08:00"', 'deadline = "tomorrow"'),
                 "config.toml: [[days]] #1（第2日）.deadline: 不是日期时间：'tomorrow'"),
    "deadline before start": (('deadline = "2026-11-30T21:30:00+08:00"', 'deadline = "2026-11-28T21:30:00+08:00"'),
                              "config.toml: [[days]] #1（第2日）.deadline: 必须晚于 start"),
    "thread not a number": (("vote_thread = 12", 'vote_thread = "12"'),
                            "config.toml: [[days]] #1（第2日）.vote_thread: 应为 ≥ 1 的整数，实际是 '12'"),
    # issue 18: the key is named once, not "[game].change_window_minutes: change_window_minutes: …"
    "bad window": (("change_window_minutes = 60", "change_window_minutes = -5"),
                   "config.toml: [game].change_window_minutes: 应为 ≥ 0 的整数，实际是 -5"),
    "bad rule value": (("[game.aliases]", "[game.rules]\nsheriff_weight = \"two\"\n[game.aliases]"),
                       "config.toml: [game.rules].sheriff_weight: 应为 ≥ 0 的整数，实际是 'two'"),
    "bad time zone": (('timezone = "Asia/Shanghai"', 'timezone = "Mars/Olympus"'),
                      "config.toml: [forum].timezone: 未知的时区 'Mars/Olympus'"),
    "missing players": (('players = ["饺子", "包子", "汤圆"]', ""), "config.toml: [game].players: 缺少"),
    "not TOML": (("[game]", "[game"), "config.toml: 不是有效的 TOML（第6行第6列）：表名后缺少「]」"),
}


@pytest.mark.parametrize("edit, message", BAD.values(), ids=BAD.keys())
def test_parse_config__errors_name_file_and_key(edit, message):
    old, new = edit
    assert old in SPEC_EXAMPLE
    with pytest.raises(ConfigError) as info:
        parse_config(SPEC_EXAMPLE.replace(old, new, 1), "config.toml")
    assert str(info.value).startswith(message)


def test_load_config__missing_file(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"nope\.toml: 无法读取：文件或文件夹不存在"):
        load_config(tmp_path / "nope.toml")


def test_parse_config__missing_game_table():
    with pytest.raises(ConfigError, match=r"config.toml: \[game\]: 缺少这个表"):
        parse_config('[forum]\ntimezone = "Asia/Shanghai"\n')


def test_parse_config__events_in_game_time():
    """SPEC §8/§9: [[events]] with game time; ``day`` gives §9's default time."""
    text = SPEC_EXAMPLE.replace('out = ["汤圆"]', "out = []") + """
[[events]]
at = "2026-11-30T09:30:00+08:00"
kind = "out"
player = "汤圆"
why = "night"

[[events]]
kind = "out"
player = "包子"
why = "vote"
day = 2

[[events]]
kind = "sheriff"
player = "饺子"
at = "2026-11-30T21:30:00+08:00"
"""
    state = parse_config(text).state
    assert state.is_out("汤圆", datetime(2026, 11, 30, 9, 30, tzinfo=CN))
    assert not state.is_out("汤圆", datetime(2026, 11, 30, 9, 29, tzinfo=CN))
    assert state.out_record("包子").at == datetime(2026, 11, 30, 21, 30, tzinfo=CN)


EVENT_ERRORS = {
    "unknown kind": ('kind = "resurrect"\nplayer = "汤圆"\nat = "2026-11-30T10:00:00"',
                     "[[events]] #1.kind: 未知的事件类型 'resurrect'"),
    "unknown key": ('kind = "out"\nplayer = "汤圆"\nwhy = "night"\nday = 2\nwhen = 1',
                    "[[events]] #1.when: 未知的键"),
    "bad why": ('kind = "out"\nplayer = "汤圆"\nwhy = "struck"\nat = "2026-11-30T10:00:00"',
                "[[events]] #1.why: 'struck' 不是可用的值（可用：vote、night、card、lover、hunter、other）"),
    "no time": ('kind = "out"\nplayer = "汤圆"\nwhy = "hunter"', "[[events]] #1.at: 缺少"),
    "stranger": ('kind = "out"\nplayer = "路人"\nwhy = "night"\nday = 2', "[[events]] #1.player: '路人' 不在"),
    "out twice": ('kind = "out"\nplayer = "汤圆"\nwhy = "night"\nday = 2', "[[events]] #1: 汤圆 已"),
    "identity in s10": ('kind = "identity_lost"\nplayer = "包子"\nwhy = "night"\nday = 2',
                        "[[events]] #1: 只有双身份规则"),
}


@pytest.mark.parametrize("body, message", EVENT_ERRORS.values(), ids=EVENT_ERRORS.keys())
def test_parse_config__bad_events_name_the_entry(body, message):
    with pytest.raises(ConfigError) as info:
        parse_config(SPEC_EXAMPLE + "\n[[events]]\n" + body + "\n", "config.toml")
    assert message in str(info.value)


def test_parse_config__an_unknown_top_level_table_is_an_error_naming_it():
    with pytest.raises(ConfigError, match=r"config.toml: \[agnet\]: 未知的表"):
        parse_config(SPEC_EXAMPLE + '\n[agnet]\npoll_interval_seconds = 30\n', "config.toml")


def test_register_table__lets_another_part_add_its_own_table():
    from forumbot.config import gamefile as module

    with pytest.raises(ConfigError, match=r"\[webhook\]"):
        parse_config(SPEC_EXAMPLE + '\n[webhook]\nurl = "x"\n')
    module.register_table("webhook")
    try:
        assert parse_config(SPEC_EXAMPLE + '\n[webhook]\nurl = "x"\n').raw["webhook"] == {"url": "x"}
    finally:
        module.TOP_LEVEL_TABLES.discard("webhook")


def test_register_table__notify_is_registered_by_the_settings():
    import forumbot.config.settings  # noqa: F401 - registers [notify]

    assert parse_config(SPEC_EXAMPLE + '\n[notify]\nenabled = false\n').raw["notify"] == {"enabled": False}


@pytest.mark.parametrize("players", [["Alice", "ALICE"], ["Alice", "Ａｌｉｃｅ"], ["饺子", " 饺子 "]])
def test_parse_config__names_that_fold_together_are_an_error(players):
    """Issue 12 item 9: NFKC + case folding makes them one name to the tally."""
    import json

    text = SPEC_EXAMPLE.replace('players = ["饺子", "包子", "汤圆"]',
                                f'players = ["饺子", "包子", "汤圆", {json.dumps(players[0])}, {json.dumps(players[1])}]'
                                if players[0] != "饺子" else
                                f'players = ["饺子", "包子", "汤圆", {json.dumps(players[1])}]')
    with pytest.raises(ConfigError, match=r"\[game\].players: .*是同一个名字"):
        parse_config(text, "config.toml")


def test_parse_config__an_alias_that_is_a_players_name_is_an_error():
    text = SPEC_EXAMPLE.replace('"饺" = "饺子"', '"包子" = "饺子"')
    with pytest.raises(ConfigError, match=r"\[game.aliases\].包子: “包子”就是玩家 包子"):
        parse_config(text, "config.toml")


# -- the days: at least one, and no two at once (issue 18, finding 10) ------------------------

DAY_BLOCK = """
[[days]]
number = {number}
vote_thread = {tid}
start = "{start}"
deadline = "{deadline}"
"""
SPEC_GAME = SPEC_EXAMPLE.split("[[days]]")[0]


def _days(*days: tuple[int, str, str]) -> str:
    """The spec example with these days instead of its one: (number, start, deadline)."""
    return SPEC_GAME + "".join(DAY_BLOCK.format(number=n, tid=10 + n, start=f"2026-12-{s}:00+08:00",
                                                deadline=f"2026-12-{d}:00+08:00") for n, s, d in days)


DAY_LAYOUTS = {  # (days, the error's start, or None: accepted)
    "no days at all": ((), "config.toml: [[days]]: 没有配置任何一日"),
    "one day": (((1, "01T09:00", "02T21:30"),), None),
    "consecutive days": (((1, "01T09:00", "02T21:30"), (2, "03T09:00", "04T21:30")), None),
    "the next day opens at the deadline": (((1, "01T09:00", "02T21:30"), (2, "02T21:30", "04T21:30")), None),
    "listed out of order": (((2, "03T09:00", "04T21:30"), (1, "01T09:00", "02T21:30")), None),
    "a gap in the numbers": (((2, "03T09:00", "04T21:30"), (4, "07T09:00", "08T21:30")), None),
    "overlapping": (((1, "01T09:00", "02T21:30"), (2, "02T09:00", "03T21:30")),
                    "config.toml: [[days]] #2 (day 2).start: 第2日的开始 2026-12-02 09:00 早于第1日的截止 "
                    "2026-12-02 21:30：两日的时间重叠"),
    "a later day dated before": (((1, "05T09:00", "06T21:30"), (2, "01T09:00", "02T21:30")),
                                 "config.toml: [[days]] #2 (day 2).start: 第2日的开始 2026-12-01 09:00 早于第1日的截止"),
    "overlap found across listed order": (((3, "04T09:00", "05T21:30"), (2, "03T09:00", "04T21:30")),
                                          "config.toml: [[days]] #1 (day 3).start: 第3日的开始 2026-12-04 09:00 早于第2日"),
}


@pytest.mark.parametrize(("days", "error"), DAY_LAYOUTS.values(), ids=DAY_LAYOUTS.keys())
def test_parse_config__days_at_least_one_and_never_two_at_once(days, error):
    text = _days(*days)
    if error is None:
        assert [d.number for d in parse_config(text, "config.toml").days] == sorted(n for n, _, _ in days)
        return
    with pytest.raises(ConfigError) as info:
        parse_config(text, "config.toml")
    assert str(info.value).startswith(error), str(info.value)


def test_cli__a_config_without_days_is_one_chinese_line(tmp_path: Path):
    from click.testing import CliRunner

    from forumbot.cli import main

    path = tmp_path / "game.toml"
    path.write_text(_days(), encoding="utf-8")
    result = CliRunner().invoke(main, ["status", "--config", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1].startswith(f"错误：{path}: [[days]]: 没有配置任何一日"), result.output


def test_config__notify_table_is_known_without_the_settings_module():
    """A config with [notify] loads in a process that never imported config.settings (an
    offline tally or resolve imports only the game file's reader); it used to be refused
    as an unknown table, depending on import order."""
    import subprocess
    import sys

    code = ("import sys; from forumbot.config.gamefile import load_config; "
            "load_config(sys.argv[1]); assert 'forumbot.config.settings' not in sys.modules; print('ok')")
    config = Path(__file__).resolve().parents[2] / "config.toml"
    assert "[notify]" in config.read_text(encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", code, str(config)], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
