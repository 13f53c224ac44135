"""What the running agent cannot do right now, said once and kept where status sees it.

An unattended agent meets failures a director causes or can fix — the disk fills up, the
state folder turns read-only, the desk's port is taken. Each is a *kind*: logged once
when it starts (not on every pass), once more when it ends, and kept meanwhile in the
instance lock's record (``forumbot.agent.instance``) so ``forumbot status`` can say it.

``storage_problem`` tells a failure to save the game's state (SQLite or the file system
saying no) from a bug: only the former is carried on from.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger("forumbot.health")

STATE = "state"  # the kind: the game's state cannot be saved
DATABASE = "database"  # the kind: the database file was emptied or replaced under the agent


@dataclass(frozen=True)
class StorageProblem:
    kind: str  # disk_full | read_only | io_error | locked
    message: str  # Chinese, one line, naming the path and what to do
    detail: str  # the error as SQLite or the OS said it (for the log)


_DISK_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


def storage_problem(exc: BaseException, path: Path | None) -> StorageProblem | None:
    """The problem ``exc`` means for saving the game's state at ``path``, or None when it
    is not a storage failure (a bug: let it surface)."""
    where = str(path) if path is not None else "（内存数据库）"
    folder = str(path.parent) if path is not None else where
    kind: str | None = None
    if isinstance(exc, sqlite3.OperationalError) or (
            isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.ProgrammingError)):
        text = str(exc).lower()
        if "full" in text:
            kind = "disk_full"
        elif "readonly" in text or "read-only" in text or "unable to open" in text:
            kind = "read_only"
        elif "locked" in text or "busy" in text:
            kind = "locked"
        elif "i/o" in text or "malformed" in text or "not a database" in text:
            kind = "io_error"
    elif isinstance(exc, OSError):
        if exc.errno in _DISK_FULL:
            kind = "disk_full"
        elif exc.errno in _READ_ONLY:
            kind = "read_only"
        elif exc.errno == errno.EIO:
            kind = "io_error"
    if kind is None:
        return None
    messages = {
        "disk_full": f"状态无法保存：磁盘已满（{where}）。请在该磁盘上腾出空间；"
                     "代理程序仍在读帖，空间够了会自动补上，期间不发任何帖子",
        "read_only": f"状态无法保存：文件夹 {folder} 不可写。请恢复它的写权限；"
                     "代理程序仍在读帖，能写入后会自动补上，期间不发任何帖子",
        "locked": f"状态无法保存：{where} 被另一个程序锁住超过 30 秒。"
                  "请关掉正在长时间读写它的程序（例如打开着它的数据库工具）",
        "io_error": f"状态无法保存：读写 {where} 时磁盘出错。请检查磁盘（dmesg）；"
                    "代理程序仍在读帖，期间不发任何帖子",
    }
    return StorageProblem(kind, messages[kind], f"{type(exc).__name__}: {exc}")


_KIND_ZH = {"state": "保存状态", "pass": "这一轮"}  # Health kinds (STATE, forumbot.service.game's PASS_PROBLEM)


class Record(Protocol):
    def update(self, **fields: Any) -> bool: ...


class Health:
    """Problems by kind; each logged once when it starts and once when it ends, and
    written to ``record`` (the instance lock) whenever the set changes."""

    def __init__(self, record: Record | None = None) -> None:
        self.record = record
        self.problems: dict[str, dict[str, str]] = {}
        self._record_failed = False

    def fail(self, kind: str, message: str, detail: str, *, now: datetime) -> bool:
        """Note a problem; True (and one log line) only when this kind was not already on."""
        current = self.problems.get(kind)
        if current is not None and current["message"] == message:
            log.debug("%s：仍然出错：%s", _KIND_ZH.get(kind, kind), detail)
            return False
        self.problems[kind] = {"since": current["since"] if current else now.isoformat(timespec="seconds"),
                               "message": message, "detail": detail}
        # The technical detail (SQLite's or the OS's own words) when it adds to the message;
        # a pass's detail is the agent's own Chinese lines, already in the log above.
        extra = f"（{detail}）" if detail and not any("\u4e00" <= ch <= "\u9fff" for ch in detail) else ""
        log.warning("%s：%s%s（只报告一次，照常继续）", _KIND_ZH.get(kind, kind), message, extra)
        self._save()
        return current is None

    def ok(self, kind: str, *, now: datetime) -> None:
        problem = self.problems.pop(kind, None)
        if problem is not None:
            log.info("%s：恢复正常（自 %s 起出错）", _KIND_ZH.get(kind, kind), problem["since"])
            self._save()

    def beat(self, now: datetime) -> None:
        """The end of a pass, for status's 'last pass'."""
        self._update(beat=now.isoformat(timespec="seconds"))

    def _save(self) -> None:
        self._update(problems={k: {"since": v["since"], "message": v["message"]}
                               for k, v in self.problems.items()})

    def _update(self, **fields: Any) -> None:
        if self.record is None:
            return
        if self.record.update(**fields):
            self._record_failed = False
        elif not self._record_failed:
            self._record_failed = True
            log.warning("无法更新代理程序的锁记录：forumbot status 显示的可能是旧消息")


__all__ = ["DATABASE", "Health", "STATE", "StorageProblem", "storage_problem"]
