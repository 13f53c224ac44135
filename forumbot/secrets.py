"""Where the bot's forum password comes from: the environment or a private file.

Never from the config file, never stored in the database, never logged. The value is
resolved only when a login needs it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

PASSWORD_ENV = "FORUMBOT_PASSWORD"


class SecretError(Exception):
    """The password could not be found or its file is unsafe."""


@dataclass(frozen=True)
class PasswordSource:
    """Resolves the password on demand. ``repr`` never shows it (it is never held)."""

    env_var: str = PASSWORD_ENV
    password_file: Path | None = None
    environ: Callable[[], dict[str, str]] = lambda: dict(os.environ)

    def __call__(self) -> str:
        value = self.environ().get(self.env_var)
        if value:
            return value
        if self.password_file is None:
            raise SecretError(
                f"no password: set {self.env_var} or [bot].password_file in the config"
            )
        return read_password_file(self.password_file)

    def describe(self) -> str:
        where = f"${self.env_var}"
        if self.password_file is not None:
            where += f" or {self.password_file}"
        return where


def read_password_file(path: Path) -> str:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise SecretError(f"password file {path} does not exist") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SecretError(
            f"password file {path} is readable by others; run: chmod 600 {path}"
        )
    value = path.read_text(encoding="utf-8").strip()
    if not value:
        raise SecretError(f"password file {path} is empty")
    return value
