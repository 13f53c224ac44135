"""``forumbot deal``: a fresh sheet from the rule set's composition into the identity file
(0600 from its first byte), refused over an existing one without --force, shown only when
asked; the sheet it writes is read back by the config as dealt."""

from __future__ import annotations

import os
import stat
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from engine.night import Identity, commitment
from forumbot.cli import main
from forumbot.config.gamefile import load_config
from forumbot.game.dealing import sealed
from tests.forumbot.identity_support import DUAL, DUAL_TABLE, SIMPLE, SIMPLE_TABLE, game_toml, inline, write_sheet

FILE = '[identities]\nfile = "身份.toml"\n'


def deal(config: Path, *args: str):
    return CliRunner().invoke(main, ["deal", "--config", str(config), *args])


def game(tmp_path: Path, ruleset: str = "simple14", players=SIMPLE, **kw) -> Path:
    config = tmp_path / "game.toml"
    config.write_text(game_toml(ruleset, players, identities=FILE, **kw), encoding="utf-8")
    return config


def test_deal__14_simple_composition_0600_and_the_commitment(tmp_path: Path):
    config = game(tmp_path)
    result = deal(config)
    assert result.exit_code == 0, result.output
    sheet_file = tmp_path / "身份.toml"
    assert stat.S_IMODE(sheet_file.stat().st_mode) == 0o600
    loaded = load_config(config)
    assert loaded.identities is not None and loaded.identities.players == SIMPLE and loaded.salt
    counts = Counter(i for _, hand in loaded.identities.hands for i in hand)
    assert counts == {Identity.WOLF: 4, Identity.SEER: 1, Identity.WITCH: 1, Identity.ELDER: 1, Identity.VILLAGER: 7}
    seal = sealed(loaded.night_mode, loaded.identities, loaded.salt)
    assert f"承诺（哈希值）：{seal.commitment}" in result.output and seal.commitment == commitment(seal.reveal)
    # Not shown unless asked: no identity on the screen.
    for word in ("狼人", "预言家", "女巫", "长老", "村民"):
        assert word not in result.output.replace("狼人×4", "")
    assert not any(p.name.startswith(".deal-") for p in tmp_path.iterdir())


def test_deal__refuses_to_overwrite_without_force(tmp_path: Path):
    config = game(tmp_path)
    assert deal(config).exit_code == 0
    before = (tmp_path / "身份.toml").read_text(encoding="utf-8")
    again = deal(config)
    assert again.exit_code == 1 and "已存在" in again.output and "--force" in again.output
    assert (tmp_path / "身份.toml").read_text(encoding="utf-8") == before
    forced = deal(config, "--force")
    assert forced.exit_code == 0
    assert (tmp_path / "身份.toml").read_text(encoding="utf-8") != before  # a new salt at least


def test_deal__show_prints_the_file(tmp_path: Path):
    config = game(tmp_path)
    result = deal(config, "--show")
    assert result.exit_code == 0 and "盐" in result.output and "\"饺子\" = " in result.output
    shown = deal(config, "--show")  # the existing file, not a new deal
    assert shown.exit_code == 0 and shown.output == (tmp_path / "身份.toml").read_text(encoding="utf-8")


def test_deal__dual_pairs(tmp_path: Path):
    config = game(tmp_path, "dual", DUAL)
    assert deal(config).exit_code == 0
    sheet = load_config(config).identities
    assert sheet is not None and all(len(hand) == 2 for _, hand in sheet.hands)
    counts = Counter(i for _, hand in sheet.hands for i in hand)
    assert counts[Identity.WOLF] == 3 and counts[Identity.VILLAGER] == 5 and sum(counts.values()) == 14


def test_deal__s10_by_version(tmp_path: Path):
    players = tuple(f"玩家{k}" for k in range(1, 15))
    config = game(tmp_path, "s10", players, version="46D")
    result = deal(config)
    assert result.exit_code == 0, result.output
    sheet = load_config(config).identities
    assert sheet is not None and dict(sheet.options)
    (tmp_path / "x").mkdir()
    result = deal(game(tmp_path / "x", "s10", players))
    assert result.exit_code == 1 and "version" in result.output and "Traceback" not in result.output


def test_deal__needs_the_file_key(tmp_path: Path):
    config = tmp_path / "game.toml"
    config.write_text(game_toml(), encoding="utf-8")
    result = deal(config)
    assert result.exit_code == 1 and "[identities].file" in result.output
    config.write_text(game_toml(identities=inline(SIMPLE_TABLE)), encoding="utf-8")
    assert "identities.table" in deal(config).output


def test_deal_check__lists_every_problem(tmp_path: Path):
    config = game(tmp_path)
    write_sheet(tmp_path / "身份.toml", {**SIMPLE_TABLE, "馄饨": "村民"})
    result = deal(config, "--check")
    assert result.exit_code == 1 and "长老应为 1 个" in result.output
    write_sheet(tmp_path / "身份.toml", SIMPLE_TABLE)
    ok = deal(config, "--check")
    assert ok.exit_code == 0 and "无误" in ok.output


def test_deal__the_files_folder_is_private_enough(tmp_path: Path):
    config = game(tmp_path)
    os.umask(0o022)
    assert deal(config).exit_code == 0
    assert stat.S_IMODE((tmp_path / "身份.toml").stat().st_mode) == 0o600


def test_deal__refused_once_the_bot_has_sealed(tmp_path: Path):
    config = game(tmp_path)
    with open(config, "a", encoding="utf-8") as fh:
        fh.write(f'\n[agent]\ndatabase = "{tmp_path / "g.sqlite"}"\n')
    assert deal(config).exit_code == 0
    from forumbot.game import sealing
    from forumbot.game.runtime import open_runtime
    from forumbot.simulator import SimClock
    from datetime import datetime, timezone

    rt = open_runtime(config)
    try:
        record = sealing.seal(rt, SimClock(start=datetime(2026, 12, 1, tzinfo=timezone.utc)).now())
    finally:
        rt.close()
    before = (tmp_path / "身份.toml").read_text(encoding="utf-8")
    again = deal(config, "--force")
    assert again.exit_code == 1 and "已经封存" in again.output and record.commitment[:16] in again.output
    assert (tmp_path / "身份.toml").read_text(encoding="utf-8") == before


def test_deal_first__dual_order_through_the_director(tmp_path: Path, monkeypatch):
    """双身份: the director writes a player's chosen first identity before day 1; the salt
    stays, the pairs stay, only the order changes; after day 1 has begun it is refused."""
    from datetime import datetime, timedelta, timezone

    from forumbot.game.clock import AcceleratedClock
    from forumbot.game.runtime import CLOCK_ENV, clock_to_env

    before_day1 = datetime(2026, 12, 1, 8, 0, tzinfo=timezone(timedelta(hours=8)))
    monkeypatch.setenv(CLOCK_ENV, clock_to_env(AcceleratedClock(origin=before_day1, factor=1.0)))
    config = game(tmp_path, "dual", DUAL)
    write_sheet(tmp_path / "身份.toml", DUAL_TABLE, salt="ab" * 16)
    result = deal(config, "--first", "戊=猎人", "--first", "乙=狼人")
    assert result.exit_code == 0, result.output
    assert "戊、乙" in result.output and "猎人" not in result.output
    loaded = load_config(config)
    assert loaded.identities.hand("戊") == (Identity.HUNTER, Identity.ELDER)
    assert loaded.identities.hand("乙") == (Identity.WOLF, Identity.SEER)
    assert loaded.salt == "ab" * 16 and stat.S_IMODE((tmp_path / "身份.toml").stat().st_mode) == 0o600
    bad = deal(config, "--first", "戊=女巫")
    assert bad.exit_code == 1 and "没有这个身份" in bad.output
    assert deal(config, "--first", "路人=女巫").exit_code == 1
    monkeypatch.setenv(CLOCK_ENV, clock_to_env(AcceleratedClock(origin=before_day1 + timedelta(hours=2),
                                                                factor=1.0)))
    late = deal(config, "--first", "戊=长老")
    assert late.exit_code == 1 and "已经开始" in late.output
    (tmp_path / "s").mkdir()
    simple = game(tmp_path / "s")
    write_sheet(tmp_path / "s" / "身份.toml", SIMPLE_TABLE)
    assert "只有一个身份" in deal(simple, "--first", "饺子=狼人").output
