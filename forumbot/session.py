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

__all__ = ["CookieStore", "auth_cookie"]

log = logging.getLogger("forumbot.client")

# errno → what the operator can do about it.
_ADVICE = {
    errno.ENOSPC: "free some disk space",
    errno.EDQUOT: "free some disk space (quota exceeded)",
    errno.EACCES: "make the folder writable, or set [bot].cookie_file to a writable place",
    errno.EPERM: "make the folder writable, or set [bot].cookie_file to a writable place",
    errno.EROFS: "the disk is read-only: set [bot].cookie_file to a writable place",
    errno.EISDIR: "it is a folder: remove it or set [bot].cookie_file to a file path",
    errno.ENOTDIR: "a part of the path is a file, not a folder: fix [bot].cookie_file",
}


def _advice(exc: OSError) -> str:
    return _ADVICE.get(exc.errno or 0, "check the path in [bot].cookie_file")


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
            self._warn("load", f"cannot read the saved forum session {self.path}: "
                               f"{exc.strerror or exc}; logging in afresh ({_advice(exc)})")
            return 0
        try:
            records = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._warn("load", f"the saved forum session {self.path} is not a cookie file "
                               "(damaged or foreign content); ignoring it and logging in afresh "
                               "(it is replaced at the next login)")
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
            self._warn("save", f"cannot save the forum session to {self.path}: "
                               f"{exc.strerror or exc}; going on without saving it ({_advice(exc)})")
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
            self._warn("clear", f"cannot remove the saved forum session {self.path}: "
                                f"{exc.strerror or exc} ({_advice(exc)})")

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
