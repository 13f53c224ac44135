"""Which games the service runs: the game configs in its folder, looked at on every scan.

A game is ``DIR/<name>.toml``, or ``DIR/<name>/game.toml`` (a folder per game, with its
database beside it: moved or archived as one). Files whose name starts with ``.`` or
``_`` are not games (editors' backups, a disabled game: rename ``第三局.toml`` to
``_第三局.toml``). A config whose modification time or size changed is read again.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

from forumbot.config.gamefile import GAME_FILE, name_for

@dataclass(frozen=True)
class GameFile:
    name: str  # the file's stem (or the folder's name): what the desk and --game call it
    path: Path
    signature: tuple[int, int] | None  # (mtime_ns, size); None when it could not be read

    @property
    def url_name(self) -> str:
        return self.name


def _skipped(name: str) -> bool:
    return name.startswith((".", "_")) or name.endswith("~")


def scan(folder: Path) -> dict[str, GameFile]:
    """Every game config in ``folder`` by name. A folder that cannot be read gives none
    (the caller says so once)."""
    found: dict[str, GameFile] = {}
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if _skipped(entry.name):
            continue
        if entry.is_dir():
            path, name = entry / GAME_FILE, entry.name
            if not path.is_file():
                continue
        elif entry.suffix == ".toml" and entry.is_file():
            path, name = entry, entry.stem
        else:
            continue
        name = unicodedata.normalize("NFC", name)
        if name in found:  # 第三局.toml and 第三局/game.toml: the folder's is taken
            continue
        found[name] = GameFile(name, path, signature(path))
    return found


def signature(path: Path) -> tuple[int, int] | None:
    """A config file's (mtime, size): it changed when this did; None when it is gone."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def find_game(folder: Path, name: str) -> GameFile | None:
    """The game called ``name`` in ``folder`` (NFC, as the scan names it)."""
    return scan(folder).get(unicodedata.normalize("NFC", name.strip()))


__all__ = ["GAME_FILE", "GameFile", "find_game", "name_for", "scan"]
