"""The forum session (cookie jar) kept in a file only the user can read.

Discuz's login state is the ``{cookiepre}auth`` cookie, which only works together with
``{cookiepre}saltkey``; the whole jar is persisted (DISCUZ.md §4). The file is created
0600 before anything is written into it, replaced atomically, and holds cookies only:
never the password.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import httpx

__all__ = ["CookieStore", "auth_cookie"]


class CookieStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def load(self, jar: httpx.Cookies) -> int:
        """Put the saved cookies into ``jar``; returns how many (0 when no file yet)."""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return 0
        try:
            records = json.loads(raw)
        except ValueError:
            return 0  # a damaged jar is as good as none: we log in again
        count = 0
        for rec in records if isinstance(records, list) else []:
            try:
                jar.set(rec["name"], rec["value"], domain=rec.get("domain", ""), path=rec.get("path", "/"))
            except (KeyError, TypeError):
                continue
            count += 1
        return count

    def save(self, jar: httpx.Cookies) -> None:
        records = [
            {"name": c.name, "value": c.value, "domain": c.domain, "path": c.path, "expires": c.expires}
            for c in jar.jar
        ]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".cookies-", dir=self.path.parent)  # mkstemp: 0600
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(records, fh, ensure_ascii=False, indent=1)
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


def auth_cookie(jar: httpx.Cookies) -> str | None:
    """The value of the ``…_auth`` cookie (present = logged in), whatever the prefix."""
    for c in jar.jar:
        if c.name.endswith("_auth") and c.value and c.value != "deleted":
            return c.value
    return None
