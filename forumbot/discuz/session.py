"""The forum session (cookie jar) kept in a file only the user can read.

Discuz's login state is the ``{cookiepre}auth`` cookie, which only works together with
``{cookiepre}saltkey``; the whole jar is persisted (DISCUZ.md §4). The file is created
0600 before anything is written into it, replaced atomically, and holds cookies only:
never the password.

The saved session is a convenience, never a reason to stop: a cookie file of random
bytes, a folder where the file should be, an unwritable folder or a full disk each give
one log line naming the path and what to do, and the agent goes on (it logs in afresh
and keeps the session in memory). The same line is not repeated for every save.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import tempfile
from pathlib import Path

import httpx

from forumbot.wording import os_error_zh

__all__ = ["CookieStore", "auth_cookie"]

log = logging.getLogger("forumbot.client")

# errno → what the operator can do about it.
_ADVICE = {
    errno.ENOSPC: "请腾出磁盘空间",
    errno.EDQUOT: "请腾出磁盘空间（超出配额）",
    errno.EACCES: "请让文件夹可写，或把 [bot].cookie_file 设到可写的地方",
    errno.EPERM: "请让文件夹可写，或把 [bot].cookie_file 设到可写的地方",
    errno.EROFS: "磁盘是只读的：请把 [bot].cookie_file 设到可写的地方",
    errno.EISDIR: "这是一个文件夹：请删掉它，或把 [bot].cookie_file 设为文件路径",
    errno.ENOTDIR: "路径中有一段是文件而不是文件夹：请改正 [bot].cookie_file",
}


def _advice(exc: OSError) -> str:
    return _ADVICE.get(exc.errno or 0, "请检查 [bot].cookie_file 的路径")


class CookieStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._warned: set[str] = set()

    def load(self, jar: httpx.Cookies) -> int:
        """Put the saved cookies into ``jar``; returns how many (0 when there is no usable
        file: missing, unreadable or damaged — each but the first logged once)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return 0
        except OSError as exc:
            self._warn("load", f"无法读取保存的论坛登录 {self.path}："
                               f"{os_error_zh(exc)}；重新登录（{_advice(exc)}）")
            return 0
        try:
            records = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._warn("load", f"保存的论坛登录 {self.path} 不是 cookie 文件"
                               "（已损坏或是别的内容）；不用它，重新登录"
                               "（下次登录时会替换它）")
            return 0
        count = 0
        for rec in records if isinstance(records, list) else []:
            try:
                jar.set(rec["name"], rec["value"], domain=rec.get("domain", ""), path=rec.get("path", "/"))
            except (KeyError, TypeError, AttributeError):
                continue
            count += 1
        return count

    def save(self, jar: httpx.Cookies) -> bool:
        """Write the jar; False (and one log line) when it cannot be written."""
        records = [
            {"name": c.name, "value": c.value, "domain": c.domain, "path": c.path, "expires": c.expires}
            for c in jar.jar
        ]
        try:
            self._write(records)
        except OSError as exc:
            self._warn("save", f"无法把论坛登录保存到 {self.path}："
                               f"{os_error_zh(exc)}；不保存，照常继续（{_advice(exc)}）")
            return False
        self._warned.discard("save")
        return True

    def _write(self, records: list[dict]) -> None:
        if self.path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(self.path))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".cookies-", dir=self.path.parent)  # mkstemp: 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                os.fchmod(fh.fileno(), 0o600)
                json.dump(records, fh, ensure_ascii=False, indent=1)
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def clear(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            self._warn("clear", f"无法删除保存的论坛登录 {self.path}："
                                f"{os_error_zh(exc)}（{_advice(exc)}）")

    def _warn(self, what: str, line: str) -> None:
        if what not in self._warned:
            self._warned.add(what)
            log.warning(line)


def auth_cookie(jar: httpx.Cookies) -> str | None:
    """The value of the ``…_auth`` cookie (present = logged in), whatever the prefix."""
    for c in jar.jar:
        if c.name.endswith("_auth") and c.value and c.value != "deleted":
            return c.value
    return None
