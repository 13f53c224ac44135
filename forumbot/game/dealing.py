"""``forumbot deal``'s work: a fresh sheet from the rule set's composition, written to the
identity file private to the user (0600), and the sealed deal's reveal text and
commitment for a sheet (SPEC §10.1).

The deal draws from the operating system's randomness (``random.SystemRandom``): a seed a
player could guess would let them recompute the sheet. The salt is drawn the same way and
kept in the identity file (``盐``), so the commitment published at the start and the
reveal text posted at the end are the same bytes whoever computes them.
"""

from __future__ import annotations

import os
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

from engine.night import Mode, Sheet, SheetError, commitment, new_salt, reveal_text
from forumbot.config.gamefile import SALT_KEY, GameConfig

__all__ = ["DealError", "Sealed", "deal_sheet", "identity_file_text", "sealed", "sealed_commitment",
           "write_identity_file"]


class DealError(ValueError):
    """A deal that cannot be made or written (Chinese, names the thing)."""


@dataclass(frozen=True)
class Sealed:
    """The sealed deal: the text posted at the end and the hash posted at the start."""

    reveal: str
    commitment: str
    salt: str


def sealed(mode: Mode, sheet: Sheet, salt: str) -> Sealed:
    text = reveal_text(mode, sheet, salt)
    return Sealed(text, commitment(text), salt)


def deal_sheet(config: GameConfig, rng: random.Random | None = None) -> tuple[Sheet, str]:
    """A sheet for the config's players (seat order) and a salt, from ``rng`` (default:
    the system's randomness)."""
    mode = config.night_mode
    if mode is None:
        raise DealError(f"{config.rules.name} 没有身份")
    rng = rng or random.SystemRandom()
    try:
        sheet = mode.deal(config.state.players, rng)
    except SheetError as exc:
        raise DealError(str(exc)) from None
    return sheet, new_salt(rng)


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def identity_file_text(mode: Mode, sheet: Sheet, salt: str | None) -> str:
    """The identity file as ``[identities].file`` reads it: ``"玩家" = "身份"`` (双身份:
    a list, first identity first) in seat order, and the salt."""
    lines = [
        "# 本局身份（保密）：forumbot deal 生成。只有导演可读（chmod 600），不要发给任何人。",
        f"# {mode.title}，{len(sheet.players)} 名玩家，按座位顺序。",
        f"{_toml(SALT_KEY)} = {_toml(salt)}" if salt else "# （没有盐：封存时机器人会另取一个）",
    ]
    for player, hand in sheet.hands:
        names = [mode.name(i) for i in hand]
        value = _toml(names[0]) if len(names) == 1 else "[" + ", ".join(_toml(n) for n in names) + "]"
        lines.append(f"{_toml(player)} = {value}")
    return "\n".join(lines) + "\n"


def write_identity_file(path: Path, text: str, *, force: bool) -> None:
    """Write the file 0600 from its first byte (never readable by others, not even for a
    moment), replacing an old one only with ``force``."""
    if path.exists() and not force:
        raise DealError(f"身份文件 {path} 已存在：要重新发牌请加 --force（旧的身份会被覆盖；"
                        "已公布承诺的局不要重新发牌）")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".deal-", dir=folder)  # mkstemp creates it 0600
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            with _quiet():
                os.unlink(tmp)
            raise
    except OSError as exc:
        from forumbot.wording import os_error_zh

        raise DealError(f"无法写入身份文件 {path}：{os_error_zh(exc)}") from None


class _quiet:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return exc[0] is not None and issubclass(exc[0], OSError)  # type: ignore[arg-type]


def sealed_commitment(config: GameConfig) -> str | None:
    """The commitment the game's database holds, if the bot has sealed this game's deal
    already (a new deal would then never match what the players were shown)."""
    import json

    from forumbot.config.settings import load_settings
    from forumbot.store import Store

    database = Path(load_settings(config).agent.database)
    if not database.exists():
        return None
    store = Store(database)
    try:
        raw = store.get_meta("sealed_deal")  # forumbot.game.sealing.META_KEY
    finally:
        store.close()
    return json.loads(raw)["commitment"] if raw else None
