"""Is the file at the database's path still the game's database?

A game's database truncated while the agent runs (``: > game.sqlite``, a copy of an empty
file over it) is not noticed by SQLite: the agent's connection keeps working on its WAL
and page cache, writing a state nobody else can read. Every other process then opens a
0-byte file, which SQLite takes for a new database in rollback-journal mode: it reads no
tables, and every write or switch to WAL waits for an exclusive lock the agent's WAL
connection never gives up (it holds a shared lock on the file as long as it is open) —
``forumbot status`` ended after its 30-second busy timeout with 「database is locked」.

So the file is looked at directly: by ``Store`` before it connects (a one-line refusal
saying what happened, at once), and by the agent at the start of every pass (it stops
acting and says so, see ``forumbot.agent.loop``). Only ``stat`` is used, never ``open``:
closing any descriptor of the file drops every POSIX lock the process holds on it,
SQLite's included (a test of ``forumbot serve`` slowed to a crawl when this module read
the header). Only what cannot be a whole database is called damaged: an empty file
beside its ``-wal``/``-shm`` (an empty file alone is a new database, as SQLite sees it —
and WAL mode writes the header before the ``-wal`` exists), or a file shorter than
SQLite's 100-byte header. A file overwritten with other bytes is SQLite's own 「not a
database」 when opened; a truncation that keeps the header is reported as malformed when
SQLite reads a lost page.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FileIdentity", "damage", "damaged_text", "identity", "identity_change"]

HEADER_SIZE = 100


def _companions(path: Path) -> list[Path]:
    return [p for p in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")) if p.exists()]


def damage(path: Path) -> str | None:
    """What makes the file at ``path`` not a database (Chinese, a clause), or None when
    it may be one or does not exist yet."""
    try:
        st = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None  # a folder and the like: Store's own refusal says it
    if st.st_size == 0:
        return "被截断为 0 字节" if _companions(path) else None
    if st.st_size < HEADER_SIZE:
        return f"被截断，只剩 {st.st_size} 字节"
    return None


@dataclass(frozen=True)
class FileIdentity:
    device: int
    inode: int


def identity(path: Path) -> FileIdentity | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return FileIdentity(st.st_dev, st.st_ino)


def identity_change(path: Path, opened: FileIdentity | None) -> str | None:
    """The file at ``path`` is no longer the one opened as ``opened`` (Chinese), or None."""
    if opened is None:
        return None
    now = identity(path)
    if now is None:
        return "被删除了" if not path.exists() else None
    if now != opened:
        return "被换成了另一个文件（被移走、拷回或覆盖）"
    return None


def damaged_text(path: Path, what: str, *, running: bool) -> str:
    """The director's sentence: what happened to the file, and what to do."""
    name = path.name
    if running:
        return (f"游戏状态 {path} 在机器人运行时{what}：机器人已停止读帖、起草和发帖（否则记下的票和发过的帖子"
                f"会丢失或重发），等你处理。请停止机器人，从备份恢复 {name}（同时删掉旁边的 {name}-wal 和 "
                f"{name}-shm），再启动")
    return (f"游戏状态 {path} 已损坏：文件{what}（多半是机器人运行时被截断或覆盖）。请先停止正在运行的机器人"
            f"（forumbot run 或 forumbot serve），再从备份恢复 {name}，同时删掉旁边的 {name}-wal 和 {name}-shm；"
            f"若这是新开的一局，删掉这三个文件即可")
