"""``[identities]``, ``[game].version`` and ``[[actions]]`` (SPEC §10.1, §10.6): the sheet
from a private file or an inline table, the night actions the director entered, every
mistake a Chinese error naming the key — and a game without identities as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.night import Identity, Skill
from forumbot.config.gamefile import ConfigError, SecretConfigError, load_config, parse_config
from tests.forumbot.identity_support import (
    DUAL, DUAL_TABLE, SIMPLE, SIMPLE_TABLE, dual_game, game_toml, inline, simple_game, write_sheet,
)

SALT = "0123456789abcdef0123456789abcdef"


def test_no_identities__counted_as_before():
    config = parse_config(game_toml())
    assert config.identities is None and config.actions == () and not config.tell_by_pm
    assert not config.has_identities and not config.has_secrets
    assert config.night_mode is not None and config.night_mode.code == "simple14"


def test_inline_table__a_sheet_in_seat_order():
    config = parse_config(game_toml(identities=inline(SIMPLE_TABLE)))
    sheet = config.identities
    assert sheet is not None and sheet.players == SIMPLE
    assert sheet.first("馄饨") is Identity.ELDER and sheet.first("饺子") is Identity.WOLF
    assert config.has_identities and config.identities_file is None


def test_identity_file__0600_read_next_to_the_config(tmp_path: Path):
    config = load_config(simple_game(tmp_path))
    assert config.identities is not None and config.identities.first("烧卖") is Identity.WITCH
    assert config.identities_file == tmp_path / "身份.toml"
    assert config.salt is None


def test_identity_file__salt_read(tmp_path: Path):
    write_sheet(tmp_path / "s.toml", SIMPLE_TABLE, salt=SALT)
    (tmp_path / "g.toml").write_text(game_toml(identities='[identities]\nfile = "s.toml"\n'), encoding="utf-8")
    assert load_config(tmp_path / "g.toml").salt == SALT


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_identity_file__readable_by_others_refused(tmp_path: Path, mode: int):
    with pytest.raises(ConfigError) as err:
        load_config(simple_game(tmp_path, mode=mode))
    text = str(err.value)
    assert "[identities].file" in text and f"{mode:04o}" in text and "chmod 600" in text


def test_identity_file__missing_refused_unless_dealing(tmp_path: Path):
    config = tmp_path / "game.toml"
    config.write_text(game_toml(identities='[identities]\nfile = "身份.toml"\n'), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[identities\]\.file.*不存在.*forumbot deal"):
        load_config(config)
    undealt = load_config(config, undealt=True)
    assert undealt.identities is None and undealt.identities_file == tmp_path / "身份.toml"
    assert undealt.has_secrets


def test_dual_pairs__first_identity_first(tmp_path: Path):
    config = load_config(dual_game(tmp_path))
    assert config.identities is not None
    assert config.identities.hand("乙") == (Identity.SEER, Identity.WOLF)
    assert config.state.identities == 2


def test_s10_version__its_row_and_option_digits():
    players = tuple(f"玩家{k}" for k in range(1, 15))
    config = parse_config(game_toml("s10", players, version="46D"))
    assert config.version == "46D" and config.night_mode is not None
    assert dict(config.night_mode.options)["版本"]  # the row's options are the mode's


@pytest.mark.parametrize("text, key, words", [
    (game_toml(version="46D"), "[game].version", "S10"),
    (game_toml("s10", tuple(f"玩家{k}" for k in range(1, 11)), version="99Q"), "[game].version", ""),
    (game_toml("s10", tuple(f"玩家{k}" for k in range(1, 11)), version="46D"), "[game].version", "14人"),
    (game_toml(identities='[identities]\ntell_by_pm = true\n'), "[identities]", "file"),
    (game_toml(identities='[identities]\nfile = "a"\n[identities.table]\n"饺子" = "狼人"\n'), "[identities]", "只能写一个"),
    (game_toml(identities='[identities]\nfiel = "a"\n'), "[identities].fiel", "未知的键"),
])
def test_config_errors__name_the_key(text: str, key: str, words: str):
    with pytest.raises(ConfigError) as err:
        parse_config(text)
    assert key in str(err.value) and words in str(err.value)


def test_tell_by_pm__boolean():
    config = parse_config(game_toml(identities="[identities]\ntell_by_pm = true\n" + inline(SIMPLE_TABLE)))
    assert config.tell_by_pm
    with pytest.raises(ConfigError, match=r"\[identities\]\.tell_by_pm.*true 或 false"):
        parse_config(game_toml(identities="[identities]\ntell_by_pm = 1\n" + inline(SIMPLE_TABLE)))


@pytest.mark.parametrize("table, count", [
    ({**SIMPLE_TABLE, "馄饨": "村民"}, 2),  # no elder, one villager too many
    ({k: v for k, v in SIMPLE_TABLE.items() if k != "年糕"}, 2),  # a player missing, a villager short
    ({**SIMPLE_TABLE, "路人": "村民"}, 2),
    ({**SIMPLE_TABLE, "馄饨": "先知X"}, 2),
])
def test_bad_sheet__secret_error_names_the_key_not_the_identities(table: dict, count: int):
    with pytest.raises(SecretConfigError) as err:
        parse_config(game_toml(identities=inline(table)))
    text = str(err.value)
    assert "[identities.table]" in text and "处问题" in text and "forumbot deal" in text
    # The message may be logged: it says no identity word and no player of the sheet.
    for word in ("狼人", "预言家", "女巫", "长老", "村民", "先知", "馄饨", "年糕"):
        assert word not in text
    assert err.value.detail  # the director's own screen gets the list


def test_sheet_already_decided__refused_with_the_reason():
    five_wolves = {**SIMPLE_TABLE}
    with pytest.raises(SecretConfigError) as err:
        parse_config(game_toml(identities=inline({**five_wolves, "馄饨": "狼人", "粽子": "长老"})))
    assert err.value.detail


def test_identity_file__bad_toml_says_where_not_what(tmp_path: Path):
    sheet = tmp_path / "s.toml"
    sheet.write_text('"饺子" = 狼人\n', encoding="utf-8")
    os.chmod(sheet, 0o600)
    (tmp_path / "g.toml").write_text(game_toml(identities='[identities]\nfile = "s.toml"\n'), encoding="utf-8")
    with pytest.raises(SecretConfigError) as err:
        load_config(tmp_path / "g.toml")
    assert "第1行" in str(err.value) and "狼人" not in str(err.value)


def test_bad_salt_refused(tmp_path: Path):
    write_sheet(tmp_path / "s.toml", SIMPLE_TABLE, salt="xyz")
    (tmp_path / "g.toml").write_text(game_toml(identities='[identities]\nfile = "s.toml"\n'), encoding="utf-8")
    with pytest.raises(SecretConfigError, match="盐"):
        load_config(tmp_path / "g.toml")


ACTIONS = """
[[actions]]
night = 1
actor = "饺子"
skill = "杀人"
target = "馄饨"
at = "2026-12-02T21:50:00+08:00"

[[actions]]
night = 1
actor = "小笼包"
skill = "预言"
target = "饺"
at = "2026-12-02T21:40:00+08:00"

[[actions]]
night = 1
actor = "烧卖"
skill = "放弃"
at = "2026-12-03T07:00:00"
"""


def test_actions__names_matched_as_votes():
    config = parse_config(game_toml(identities=inline(SIMPLE_TABLE), extra=ACTIONS,
                                    game_extra='[game.aliases]\n"饺" = "饺子"\n'))
    assert [(a.actor, a.skill, a.targets) for a in config.actions][0] == ("小笼包", Skill.DIVINE, ("饺子",))


def test_actions__read():
    text = game_toml(identities=inline(SIMPLE_TABLE), extra=ACTIONS.replace('target = "饺"', 'target = "饺子"'))
    config = parse_config(text)
    assert [(a.actor, a.skill, a.targets) for a in config.actions] == [
        ("小笼包", Skill.DIVINE, ("饺子",)), ("饺子", Skill.KILL, ("馄饨",)), ("烧卖", Skill.PASS, ())]
    assert all(a.by_director for a in config.actions)
    assert config.actions[2].at.utcoffset().total_seconds() == 8 * 3600  # the forum's zone
    # Secrets stay out of what prints a config.
    assert not any(w in repr(config) for w in ("狼人", "长老", "杀人", "预言")) and "actions" not in config.raw
    assert "table" not in config.raw.get("identities", {})


@pytest.mark.parametrize("change, key, words", [
    (('skill = "杀人"', 'skill = "飞刀"'), "[[actions]] #1.skill", "没有技能"),
    (('target = "馄饨"', 'target = "路人甲"'), "[[actions]] #1.target", "不是玩家"),
    (('actor = "饺子"', 'actor = "谁"'), "[[actions]] #1.actor", "不是玩家"),
    (('night = 1\nactor = "饺子"', 'night = 0\nactor = "饺子"'), "[[actions]] #1.night", "第1晚开始"),
    (('at = "2026-12-02T21:50:00+08:00"', 'at = "昨晚"'), "[[actions]] #1.at", "不是日期时间"),
    (('target = "馄饨"', 'target = ["馄饨", "饺子"]'), "[[actions]] #1.target", "1 个目标"),
    (('target = "馄饨"', 'targte = "馄饨"'), "[[actions]] #1.targte", "未知的键"),
    (('night = 1\nactor = "饺子"', 'night = 9\nactor = "饺子"'), "[[actions]] #1.night", "没有配置第9日"),
])
def test_action_errors__name_the_entry(change, key, words):
    text = game_toml(identities=inline(SIMPLE_TABLE), extra=ACTIONS.replace('target = "饺"', 'target = "饺子"'))
    with pytest.raises(ConfigError) as err:
        parse_config(text.replace(*change, 1))
    assert key in str(err.value) and words in str(err.value)


def test_actions_without_identities_refused():
    with pytest.raises(ConfigError, match=r"\[\[actions\]\].*没有身份表"):
        parse_config(game_toml(extra=ACTIONS.replace('"饺"', '"饺子"')))


def test_event_cause_accepted_and_checked():
    extra = '[[events]]\nkind = "out"\nplayer = "馄饨"\nwhy = "night"\nday = 2\ncause = "毒药"\n'
    config = parse_config(game_toml(identities=inline(SIMPLE_TABLE), extra=extra))
    assert [e.cause for e in config.state.events] == ["毒药"]
    with pytest.raises(ConfigError, match=r"\[\[events\]\] #1\.cause"):
        parse_config(game_toml(extra='[[events]]\nkind = "accelerated"\nday = 2\ncause = "毒药"\n'))


def test_dual_inline_pairs():
    config = parse_config(game_toml("dual", DUAL, identities=inline(DUAL_TABLE)))
    assert config.identities is not None and config.identities.hand("戊") == (Identity.ELDER, Identity.HUNTER)


def test_s09_sheet_entered_with_the_thiefs_cards(tmp_path: Path):
    """S09: the director enters the deal (24 cards, 21 players); the thief's two cards are
    a key of the file, not a player."""
    from tests.engine.night_builders import S09_PLAYERS, S09_TABLE

    write_sheet(tmp_path / "s.toml", S09_TABLE)
    (tmp_path / "g.toml").write_text(game_toml("s09", S09_PLAYERS, identities='[identities]\nfile = "s.toml"\n'),
                                     encoding="utf-8")
    config = load_config(tmp_path / "g.toml")
    assert config.identities is not None and config.identities.first("春卷") is Identity.THIEF
    assert dict(config.identities.options)["盗贼底牌"]
