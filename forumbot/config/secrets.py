"""Where the bot's forum password comes from: the environment, a private file, or a
systemd credential.

In order: ``FORUMBOT_PASSWORD``; ``[bot].password_file`` (or ``forumbot serve``'s
``[service].password_file``); the credential ``forum-password`` that a unit loads with
``LoadCredential=forum-password:/etc/forumbot/forum-password`` — systemd puts it in
``$CREDENTIALS_DIRECTORY``, a read-only directory only the service's user can read (the
file carries an ACL for that user, so its group bits show the ACL mask: the "only you can
read it" check of a plain password file does not apply there).

Never from the config file, never stored in the database, never logged. The value is
resolved only when a login needs it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

PASSWORD_ENV = "FORUMBOT_PASSWORD"
CREDENTIALS_ENV = "CREDENTIALS_DIRECTORY"  # systemd.exec(5): LoadCredential=, SetCredential=
PASSWORD_CREDENTIAL = "forum-password"
DESK_TOKEN_CREDENTIAL = "desk-token"


class SecretError(Exception):
    """The password could not be found or its file is unsafe."""


@dataclass(frozen=True)
class PasswordSource:
    """Resolves the password on demand. ``repr`` never shows it (it is never held)."""

    env_var: str = PASSWORD_ENV
    password_file: Path | None = None
    environ: Callable[[], dict[str, str]] = lambda: dict(os.environ)

    def __call__(self) -> str:
        environ = self.environ()
        value = environ.get(self.env_var)
        if value:
            return value
        if self.password_file is not None:
            return read_password_file(self.password_file, environ)
        credential = credential_file(PASSWORD_CREDENTIAL, environ)
        if credential is not None:
            return read_password_file(credential, environ)
        raise SecretError(
            f"没有密码：请设置环境变量 {self.env_var}，或在配置里设置 [bot].password_file"
            f"（在 systemd 下也可以用 LoadCredential={PASSWORD_CREDENTIAL}:文件）"
        )

    def describe(self) -> str:
        where = f"${self.env_var}"
        if self.password_file is not None:
            where += f" 或 {self.password_file}"
        else:
            where += f" 或 systemd 凭据 {PASSWORD_CREDENTIAL}"
        return where


def credential_file(name: str, environ: Mapping[str, str] | None = None) -> Path | None:
    """``$CREDENTIALS_DIRECTORY/name`` when the service manager passed that credential."""
    directory = (os.environ if environ is None else environ).get(CREDENTIALS_ENV)
    if not directory:
        return None
    path = Path(directory) / name
    return path if path.is_file() else None


def _in_credentials(path: Path, environ: Mapping[str, str] | None) -> bool:
    directory = (os.environ if environ is None else environ).get(CREDENTIALS_ENV)
    if not directory:
        return False
    try:
        return path.resolve().is_relative_to(Path(directory).resolve())
    except OSError:
        return False


def read_password_file(path: Path, environ: Mapping[str, str] | None = None) -> str:
    """The secret in ``path``: a file only its owner can read — or a credential in
    ``$CREDENTIALS_DIRECTORY``, which systemd keeps private to the service's user."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise SecretError(f"密码文件 {path} 不存在") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO) and not _in_credentials(path, environ):
        raise SecretError(
            f"密码文件 {path} 别人也能读：请运行 chmod 600 {path}"
        )
    value = path.read_text(encoding="utf-8").strip()
    if not value:
        raise SecretError(f"密码文件 {path} 是空的")
    return value
