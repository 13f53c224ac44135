"""One agent per game: an OS lock on a file beside the game's database.

Two agents on one game each draft and publish their own counts — the outbox's markers
cannot tell two honest drafts apart — so the second one must not start. The agent takes
an exclusive ``flock`` on ``<database>.agent.lock`` and holds it for its whole life; the
kernel drops it when the process ends in any way, SIGKILL and power loss included, so a
restarted agent never waits for a stale lock (a lease in SQLite would: it has to expire).
Director commands and the desk never take it: they work beside the running agent.

The lock file also says who holds it and how the holder is doing — pid, host, since,
the last pass, what it cannot do right now (the game's state cannot be saved, the desk is
not served) — for ``forumbot status``. The record is a fixed-size block rewritten in place
(``pwrite`` over bytes already on disk), so it can still be updated when the disk is
full, which is exactly when the director needs to read it.

``forumbot serve`` holds one ``InstanceLock`` per game (role ``service``: a ``forumbot run``
on such a game refuses and names the service) and one of its own in the games folder
(a second ``serve`` on the folder refuses): nothing here is specific to the agent.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

LOCK_SUFFIX = ".agent.lock"
RECORD_SIZE = 4096  # bytes written once at start; every update rewrites them in place
NAMING_GRACE = 5.0  # seconds a refused start waits for the holder to write who it is


class InstanceError(Exception):
    """The lock file cannot be made or read: one line naming the path and what to do."""


class InstanceBusy(InstanceError):
    """Another process holds the lock."""

    def __init__(self, message: str, holder: Holder | None) -> None:
        super().__init__(message)
        self.holder = holder


@dataclass(frozen=True)
class Holder:
    """What the lock file says about the process holding (or that last held) it."""

    pid: int | None = None
    host: str | None = None
    role: str = "agent"
    since: str | None = None  # ISO time in the forum's zone
    beat: str | None = None  # the end of its last pass
    problems: dict[str, dict[str, str]] = field(default_factory=dict)  # kind → since, message
    desk: dict[str, str] | None = None  # {"url": …} or {"error": …}
    running: bool = False  # the lock is held right now (probed), not just recorded

    @classmethod
    def from_record(cls, record: dict[str, Any], *, running: bool) -> Holder:
        pid = record.get("pid")
        return cls(
            pid=pid if isinstance(pid, int) else None,
            host=record.get("host") if isinstance(record.get("host"), str) else None,
            role=str(record.get("role") or "agent"),
            since=record.get("since"),
            beat=record.get("beat"),
            problems=dict(record.get("problems") or {}),
            desk=record.get("desk"),
            running=running,
        )

    def who(self) -> str:
        """'pid 1234，主机 box' (what a second agent's refusal names)."""
        parts = [f"pid {self.pid}" if self.pid else "pid 未知"]
        if self.host:
            parts.append(f"主机 {self.host}")
        return "，".join(parts)


def lock_path(database: str | Path) -> Path:
    """The game's lock file: beside its SQLite database."""
    database = Path(database)
    return database.with_name(database.name + LOCK_SUFFIX)


def _why(exc: OSError) -> str:
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "文件夹不可写"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "磁盘已满"
    if exc.errno == errno.ENOENT:
        return "文件夹不存在"
    if exc.errno == errno.EISDIR:
        return "这是一个文件夹"
    from forumbot.wording import os_error_zh

    return os_error_zh(exc)


def _names_a_live_holder(holder: Holder) -> bool:
    """The record names a process that may hold the lock: one on another host, or a live
    one here."""
    if holder.pid is None:
        return False
    if holder.host != socket.gethostname():
        return True
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _read_record(fd: int) -> dict[str, Any]:
    for _ in range(3):  # a writer may be halfway through its pwrite: read again
        raw = os.pread(fd, RECORD_SIZE, 0)
        text = raw.decode("utf-8", errors="replace").strip()
        if not text:
            return {}
        try:
            record = json.loads(text)
            return record if isinstance(record, dict) else {}
        except ValueError:
            time.sleep(0.01)
    return {}


class InstanceLock:
    """An exclusive lock held by this process until ``release`` (or its death)."""

    def __init__(self, path: Path, fd: int, record: dict[str, Any]) -> None:
        self.path = path
        self._fd: int | None = fd
        self.record = record

    @classmethod
    def acquire(cls, path: str | Path, *, role: str = "agent", since: datetime | None = None,
                wait_seconds: float = 2.0) -> InstanceLock:
        """Take the lock or raise ``InstanceBusy`` naming the holder. Waits up to
        ``wait_seconds`` first: ``probe`` (status) holds a shared lock for an instant."""
        path = Path(path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise InstanceError(
                f"无法创建锁文件 {path}（{_why(exc)}）：请让文件夹 {path.parent} 可写，"
                "或在 [agent].database 换一个可写的位置"
            ) from None
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = Holder.from_record(_read_record(fd), running=True)
                    if not _names_a_live_holder(holder) and time.monotonic() < deadline + NAMING_GRACE:
                        # The holder took the lock but has not written who it is yet (a
                        # loaded machine can pause it between the two; the file may still
                        # name the previous, ended holder): wait to name the right one.
                        time.sleep(0.05)
                        continue
                    os.close(fd)
                    since = f"，自 {_short(holder.since)} 起" if holder.since else ""
                    who = "forumbot serve（服务，运行文件夹里的每局游戏）" if holder.role == "service" \
                        else "forumbot 代理程序"
                    raise InstanceBusy(
                        f"这局游戏已有一个 {who}在运行（{holder.who()}{since}），"
                        f"同一局只能运行一个：锁文件 {path}。导演命令（status、approve 等）和导演台"
                        f"可照常使用；要换掉它，先停止那个进程（例如 kill {holder.pid or 'PID'}）",
                        holder,
                    ) from None
                time.sleep(0.05)
        record = {"pid": os.getpid(), "host": socket.gethostname(), "role": role,
                  "since": since.isoformat(timespec="seconds") if since else None,
                  "beat": None, "problems": {}, "desk": None}
        lock = cls(path, fd, record)
        try:
            lock._write()
        except OSError as exc:
            lock.release()
            raise InstanceError(f"无法写入锁文件 {path}（{_why(exc)}）：请检查文件夹 {path.parent}") from None
        return lock

    def _write(self) -> None:
        assert self._fd is not None
        data = json.dumps(self.record, ensure_ascii=False, sort_keys=True).encode("utf-8")
        if len(data) > RECORD_SIZE:  # long problem texts: keep who holds it, drop the detail
            slim = {**self.record, "problems": {k: {"since": v.get("since", ""), "message": ""}
                                                for k, v in self.record.get("problems", {}).items()}}
            data = json.dumps(slim, ensure_ascii=False, sort_keys=True).encode("utf-8")[:RECORD_SIZE]
        # Padded to the full size, over the same bytes every time: no new block is needed.
        os.pwrite(self._fd, data.ljust(RECORD_SIZE, b" "), 0)

    def update(self, **fields: Any) -> bool:
        """Merge ``fields`` into the record and rewrite it; False if that failed (the
        caller carries on: this record is a courtesy to ``status``, not state)."""
        if self._fd is None:
            return False
        self.record.update(fields)
        try:
            self._write()
            return True
        except OSError:
            return False

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the only descriptor releases the flock

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> InstanceLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def probe(path: str | Path) -> Holder | None:
    """The lock file's record, with ``running`` telling whether a process holds the lock
    now; None when there is no lock file (no agent has run here)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            running = False
        except BlockingIOError:
            running = True
        return Holder.from_record(_read_record(fd), running=running)
    finally:
        os.close(fd)


def _short(iso: str | None) -> str:
    if not iso:
        return "?"
    try:
        return datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def status_lines(database: str | Path) -> list[str]:
    """What ``forumbot status`` says about the agent (in Chinese, one line each)."""
    holder = probe(lock_path(database))
    if holder is None:
        return ["代理程序：未运行过（forumbot run 启动后才会读帖、计票、发帖）"]
    if not holder.running:
        last = f"，上一轮在 {_short(holder.beat)}" if holder.beat else ""
        return [f"代理程序：未在运行{last}（forumbot run 启动后才会读帖、计票、发帖）"]
    beat = f"，最后一轮 {_short(holder.beat)}" if holder.beat else "，正在进行第一轮"
    by = "由 forumbot serve " if holder.role == "service" else ""
    lines = [f"代理程序：{by}运行中（{holder.who()}，自 {_short(holder.since)} 起{beat}）"]
    for problem in holder.problems.values():
        lines.append(f"⚠ {problem.get('message', '')}（自 {_short(problem.get('since'))} 起）")
    desk = holder.desk or {}
    if desk.get("error"):
        lines.append(f"⚠ 导演台未开启：{desk['error']}")
    elif desk.get("url"):
        lines.append(f"导演台：{desk['url']}")
    return lines


__all__ = ["Holder", "InstanceBusy", "InstanceError", "InstanceLock", "LOCK_SUFFIX", "lock_path", "probe",
           "status_lines"]


def hold_game(rt):
    """The game's single-instance lock for an agent on ``rt`` (``InstanceBusy``, a
    one-line refusal naming the holder, when another agent runs this game). Here, not in
    the CLI, so the harness's agents take the lock as ``forumbot run`` does without
    importing the CLI."""
    return InstanceLock.acquire(lock_path(rt.settings.agent.database), role="agent", since=rt.clock.now())
