"""Game configs with identities for the forumbot-side tests (config, deal, resolve, the
sealed deal, the secrecy crawl): a 14人简易 game and a 双身份 game at the seeds' hours,
their sheets written inline or as a 0600 file next to the config."""

from __future__ import annotations

import os
from pathlib import Path

from tests.engine.night_builders import DUAL, DUAL_TABLE, SIMPLE, SIMPLE_TABLE


def toml_name(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def table_lines(table: dict[str, object]) -> str:
    lines = []
    for player, value in table.items():
        if isinstance(value, str):
            lines.append(f"{toml_name(player)} = {toml_name(value)}")
        else:
            lines.append(f"{toml_name(player)} = [{', '.join(toml_name(v) for v in value)}]")  # type: ignore[union-attr]
    return "\n".join(lines) + "\n"


def game_toml(ruleset: str = "simple14", players: tuple[str, ...] = SIMPLE, *, days: int = 3,
              identities: str = "", extra: str = "", base_url: str = "http://127.0.0.1:8080/",
              version: str | None = None, progress_thread: int | None = None, game_extra: str = "") -> str:
    """A game at the seeds' hours: day k from 12-(2k-1) 09:30 to 12-(2k) 21:30 (+08:00)."""
    names = ", ".join(toml_name(p) for p in players)
    text = f"""[forum]
base_url = "{base_url}"
timezone = "Asia/Shanghai"

[game]
ruleset = "{ruleset}"
director = "导演"
bot = "计票机器人"
players = [{names}]
"""
    if version:
        text += f'version = "{version}"\n'
    text += game_extra
    for k in range(1, days + 1):
        text += f"""
[[days]]
number = {k}
vote_thread = {100 + k}
start = "2026-12-{2 * k - 1:02d}T09:30:00+08:00"
deadline = "2026-12-{2 * k:02d}T21:30:00+08:00"
"""
        if progress_thread:
            text += f"progress_thread = {progress_thread}\n"
    return text + "\n" + identities + "\n" + extra


def inline(table: dict[str, object]) -> str:
    return "[identities.table]\n" + table_lines(table)


def write_sheet(path: Path, table: dict[str, object], mode: int = 0o600, salt: str | None = None) -> Path:
    text = table_lines(table)
    if salt:
        text = f'"盐" = "{salt}"\n' + text
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)
    return path


def simple_game(tmp: Path, *, extra: str = "", days: int = 3, mode: int = 0o600, **kw) -> Path:
    """A 14人简易 config in ``tmp`` with its sheet in ``身份.toml`` (0600)."""
    write_sheet(tmp / "身份.toml", SIMPLE_TABLE, mode)
    config = tmp / "game.toml"
    config.write_text(game_toml(identities='[identities]\nfile = "身份.toml"\n', extra=extra, days=days, **kw),
                      encoding="utf-8")
    return config


def dual_game(tmp: Path, *, extra: str = "", days: int = 3, **kw) -> Path:
    write_sheet(tmp / "身份.toml", DUAL_TABLE)
    config = tmp / "game.toml"
    config.write_text(game_toml("dual", DUAL, identities='[identities]\nfile = "身份.toml"\n', extra=extra, days=days,
                                **kw), encoding="utf-8")
    return config


__all__ = ["DUAL", "DUAL_TABLE", "SIMPLE", "SIMPLE_TABLE", "dual_game", "game_toml", "inline", "simple_game",
           "table_lines", "toml_name", "write_sheet"]


def actions_toml(actions) -> str:
    """``[[actions]]`` for engine ``Action`` records (the skill by its canonical word)."""
    from engine.night.identities import SKILL_ZH

    out = []
    for a in actions:
        target = ""
        if len(a.targets) == 1:
            target = f"target = {toml_name(a.targets[0])}\n"
        elif a.targets:
            target = f"target = [{', '.join(toml_name(t) for t in a.targets)}]\n"
        out.append(f"[[actions]]\nnight = {a.night}\nactor = {toml_name(a.actor)}\nskill = {toml_name(SKILL_ZH[a.skill])}\n"
                   f"{target}at = \"{a.at.isoformat()}\"\n")
    return "\n".join(out)


def events_toml(events) -> str:
    out = []
    for e in events:
        text = f"[[events]]\nkind = \"{e.kind.value}\"\nplayer = {toml_name(e.player)}\nat = \"{e.at.isoformat()}\"\n"
        if e.why is not None:
            text += f"why = \"{e.why.value}\"\n"
        if e.cause:
            text += f"cause = {toml_name(e.cause)}\n"
        out.append(text)
    return "\n".join(out)
