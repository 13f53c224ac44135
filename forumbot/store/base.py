"""The connection, transactions, metadata and the audit log (with secret scrubbing).

One SQLite file per game, in WAL mode so the director's CLI can read while the agent
writes. Transactions are explicit: the connection runs in autocommit mode and every
state change happens inside ``BEGIN IMMEDIATE`` (``write()``), which takes the write lock
up front so two processes cannot both read a state and both act on it.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from forumbot.store.codec import canonical_json, iso, parse_time, sha256_hex
from forumbot.store.integrity import damage, damaged_text
from forumbot.store.records import AuditEntry
from forumbot.store.schema import migrate

REDACTED = "[redacted]"

# Keys whose values never reach the file, whatever they hold: any key containing
# "password" or "secret", or with one of these words as a part ("auth_token", "cookie").
# Whole parts only, so "author" or "passage" are kept.
_SECRET_PARTS = frozenset(
    {"pass", "passwd", "pw", "pwd", "token", "cookie", "cookies", "auth", "credential",
     "credentials", "seccode", "secanswer", "formhash", "saltkey"}
)


class StoreOpenError(Exception):
    """The game's database cannot be opened: one line naming the path and what to do."""


def _open_error(path: Path, exc: BaseException) -> StoreOpenError:
    """Why ``path`` could not be opened, said for a director (the things a director can
    cause: a folder given as the file, a missing or read-only folder, a full disk)."""
    folder = path.parent
    text = str(exc).lower()
    if path.is_dir():
        why = (f"[agent].database 指向的是一个文件夹，不是文件：{path}。"
               f"请在配置里写上文件名，例如 {path / 'forumbot-game.sqlite'}")
    elif not folder.is_dir():
        why = (f"存放游戏状态的文件夹不存在：{folder}。请先建好它（mkdir -p {folder}），"
               "或在 [agent].database 换一个位置")
    elif "full" in text or getattr(exc, "errno", None) in (28, 122):
        why = f"磁盘已满，无法写入游戏状态：{path}。请在该磁盘上腾出空间后再试"
    elif "readonly" in text or "read-only" in text or "unable to open" in text \
            or isinstance(exc, PermissionError):
        target = path if path.exists() and not os.access(path, os.W_OK) else folder
        why = (f"游戏状态无法写入：{target} 不可写（forumbot 要在文件夹 {folder} 里写 {path.name} "
               f"及其 -wal、-shm 文件）。请恢复写权限（例如 chmod u+w {target}），"
               "或在 [agent].database 换一个可写的位置")
    elif "locked" in text or "busy" in text:
        why = (f"游戏状态 {path} 被另一个程序锁住，30 秒内没有放开。请关掉长时间打开着它的程序（例如数据库工具）；"
               f"若刚刚动过这个文件（截断、覆盖、从备份拷回）而机器人还在运行，请先停止机器人再试")
    elif "not a database" in text or "malformed" in text:
        why = (f"{path} 不是 forumbot 的游戏数据库，或已损坏。请检查 [agent].database 是否指错了文件；"
               "若是损坏，请从备份恢复")
    else:
        why = f"无法打开游戏状态 {path}：{exc}"
    return StoreOpenError(why)


class SecretKeyError(ValueError):
    """A metadata key names a secret: such values are never stored."""


def is_secret_key(key: str) -> bool:
    low = key.lower()
    if "password" in low or "secret" in low:
        return True
    return any(part in _SECRET_PARTS for part in re.split(r"[^a-z0-9]+", low))


class StoreBase:
    """Owns the connection. The mixins in this package add the tables' operations.

    One ``Store`` per thread (or process): each has its own connection, and SQLite's
    locking keeps them consistent. A ``Store`` may be handed from one thread to another,
    but not used by two at once.
    """

    def __init__(self, path: str | Path, *, busy_timeout: float = 30.0) -> None:
        self.path = None if str(path) == ":memory:" else Path(path)
        if self.path is not None and (what := damage(self.path)) is not None:
            # Not opened at all: SQLite would take an emptied file for a new database and
            # wait 30 s for a lock a running agent holds (forumbot.store.integrity).
            raise StoreOpenError(damaged_text(self.path, what, running=False))
        try:
            conn = sqlite3.connect(
                str(path), timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
        except (sqlite3.Error, OSError) as exc:
            raise _open_error(Path(path), exc) from exc
        self.db = sqlite_utils.Database(conn)
        self._secret_values: set[str] = set()
        try:
            if self.path is not None:
                self.db.enable_wal()
            self.db.execute("PRAGMA foreign_keys=ON")
            migrate(self.db)
        except (sqlite3.OperationalError, sqlite3.DatabaseError, OSError) as exc:
            conn.close()
            if self.path is None or isinstance(exc, sqlite3.ProgrammingError):
                raise
            raise _open_error(self.path, exc) from exc
        except BaseException:
            conn.close()
            raise

    # -- lifecycle ---------------------------------------------------------------------

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> StoreBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions ------------------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction, committed on exit; nested calls join it."""
        conn = self.db.conn
        if conn.in_transaction:
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _one(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> dict[str, Any] | None:
        rows = list(self.db.query(sql, params))
        return rows[0] if rows else None

    # -- secrets -----------------------------------------------------------------------

    def register_secret(self, value: str) -> None:
        """Tell the store a secret value (e.g. the forum password) so that any audit or
        metadata text containing it is redacted before it is written."""
        if value:
            self._secret_values.add(value)

    def scrub(self, data: Any) -> Any:
        """``data`` with secret-named keys redacted and registered secret values masked."""
        if isinstance(data, Mapping):
            return {
                str(k): (REDACTED if is_secret_key(str(k)) else self.scrub(v))
                for k, v in data.items()
            }
        if isinstance(data, (list, tuple)):
            return [self.scrub(v) for v in data]
        if isinstance(data, str):
            for secret in self._secret_values:
                data = data.replace(secret, REDACTED)
            return data
        if isinstance(data, datetime):
            return iso(data)
        if data is None or isinstance(data, (bool, int, float)):
            return data
        return self.scrub(str(data))

    # -- metadata ----------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else row["value"]

    def set_meta(self, key: str, value: str) -> None:
        if is_secret_key(key):
            raise SecretKeyError(f"refusing to store meta key {key!r}: it names a secret")
        with self.write() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, self.scrub(value)),
            )

    @property
    def game_key(self) -> str:
        """Names this game in markers: the game name when set, else the file's random id."""
        return self.get_meta("game") or self.get_meta("store_id") or "unnamed"

    def save_config_snapshot(self, config: Mapping[str, Any], *, at: datetime) -> str:
        """Keep the (scrubbed) config the agent runs with; returns its hash.

        Secret-named keys are redacted, so a password that slipped into a config never
        reaches the file. The hash is of the scrubbed form.
        """
        text = canonical_json(self.scrub(config))
        digest = sha256_hex(text)
        with self.write():
            if self.get_meta("config_hash") != digest:
                self.set_meta("config_json", text)
                self.set_meta("config_hash", digest)
                self.audit("bot", "config.changed", {"hash": digest}, at=at)
        return digest

    # -- audit -------------------------------------------------------------------------

    def audit(
        self, actor: str, action: str, detail: Mapping[str, Any] | None = None, *, at: datetime
    ) -> int:
        """Append one decision to the audit log (append-only). Returns its id."""
        text = json.dumps(self.scrub(dict(detail or {})), ensure_ascii=False, sort_keys=True)
        with self.write() as conn:
            cur = conn.execute(
                "INSERT INTO audit (actor, action, detail, at) VALUES (?, ?, ?, ?)",
                (self.scrub(actor), action, text, iso(at)),
            )
            return int(cur.lastrowid or 0)

    def audit_log(
        self, *, since_id: int = 0, action_prefix: str | None = None
    ) -> list[AuditEntry]:
        sql = "SELECT * FROM audit WHERE id > ?"
        params: list[Any] = [since_id]
        if action_prefix:
            sql += " AND action LIKE ? ESCAPE '\\'"
            escaped = action_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.append(escaped + "%")
        return [
            AuditEntry(
                id=r["id"],
                actor=r["actor"],
                action=r["action"],
                detail=json.loads(r["detail"]),
                at=parse_time(r["at"]),
            )
            for r in self.db.query(sql + " ORDER BY id", params)
        ]
