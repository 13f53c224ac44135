"""The service's own settings: ``forumbot serve --service service.toml`` (or ``--games DIR``
and options). A small file of its own, not a table in a game config: it names the folder
of game configs and says how the one desk and the log are served.

    [service]
    games = "games"                  # the folder of game configs, relative to this file
    desk_host = "127.0.0.1"          # the one desk for every game
    desk_port = 8765
    desk_token_file = "/run/credentials/forumbot.service/desk-token"  # or FORUMBOT_DESK_TOKEN
    password_file = "/run/credentials/forumbot.service/forum-password"  # games without [bot].password_file
    log_file = "/var/log/forumbot/serve.log"  # default: the console (the journal under systemd)
    scan_seconds = 10                # how often the folder is looked at
    flood_seconds = 16               # the least time between two posts of one account

Every problem is a ``ConfigError`` naming the file and the key.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from forumbot.config.gamefile import ConfigError, toml_error_zh
from forumbot.config.settings import KeyReader
from forumbot.wording import os_error_zh

SERVICE_ENV = "FORUMBOT_SERVICE"
KEYS = {"games", "desk", "desk_host", "desk_port", "desk_token_file", "password_file", "log_file",
        "scan_seconds", "flood_seconds", "verbose"}
# Discuz's default floodctrl is 15 s, compared with "<": a second more keeps clear of the
# forum's and the bot's clocks disagreeing by a little.
DEFAULT_FLOOD_SECONDS = 16.0


@dataclass(frozen=True)
class ServiceSettings:
    games: Path
    desk: bool = True
    desk_host: str = "127.0.0.1"
    desk_port: int = 8765
    desk_token_file: Path | None = None
    password_file: Path | None = None
    log_file: Path | None = None
    scan_seconds: float = 10.0
    flood_seconds: float = DEFAULT_FLOOD_SECONDS
    verbose: bool = False
    source: Path | None = None  # the service file, when there is one

    def with_options(self, **options: Any) -> ServiceSettings:
        """The command line's options over the file's (None: not given)."""
        return replace(self, **{k: v for k, v in options.items() if v is not None})

    def desk_token(self) -> str | None:
        """The desk's login token: ``desk_token_file`` (a file only the user can read),
        ``FORUMBOT_DESK_TOKEN``, or the systemd credential ``desk-token``; None when none
        is set (the desk then reads ``FORUMBOT_DESK_TOKEN`` itself)."""
        from forumbot.config.secrets import DESK_TOKEN_CREDENTIAL, SecretError, credential_file, read_password_file

        path = self.desk_token_file
        if path is None and not os.environ.get("FORUMBOT_DESK_TOKEN"):
            path = credential_file(DESK_TOKEN_CREDENTIAL)  # systemd: LoadCredential=desk-token:FILE
        if path is not None:
            try:
                return read_password_file(path)
            except SecretError as exc:
                where = self.source or "forumbot serve"
                raise ConfigError(f"{where}: [service].desk_token_file: "
                                  f"{str(exc).replace('密码文件', '令牌文件')}") from None
        return None


def load_service(path: str | Path) -> ServiceSettings:
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: 无法读取：{os_error_zh(exc)}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: 不是 UTF-8 编码的文本（请用 UTF-8 保存）") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {toml_error_zh(exc)}") from None
    return _Reader(path).read(doc)


def service_from_env() -> Path | None:
    value = os.environ.get(SERVICE_ENV)
    return Path(value) if value else None


class _Reader(KeyReader):
    def read(self, doc: dict[str, Any]) -> ServiceSettings:
        unknown = sorted(set(doc) - {"service"})
        if unknown:
            raise self.fail(f"[{unknown[0]}]", "未知的表（服务文件只有一个表：[service]）")
        table = doc.get("service")
        if not isinstance(table, dict):
            raise self.fail("[service]", "缺少这个表")
        for key in table:
            if key.lower() in ("password", "token", "desk_token", "secret"):
                raise self.fail(f"[service].{key}", "密码和令牌不能写在文件里：请指定一个只有你能读的文件"
                                                     "（password_file、desk_token_file），或用环境变量"
                                                     "（FORUMBOT_PASSWORD、FORUMBOT_DESK_TOKEN）")
        unknown = sorted(set(table) - KEYS)
        if unknown:
            raise self.fail(f"[service].{unknown[0]}", f"未知的键（可用的键：{'、'.join(sorted(KEYS))}）")
        games = self.path_value(table, "games", "[service]")
        if games is None:
            raise self.fail("[service].games", "缺少（存放各局配置的文件夹）")
        port = table.get("desk_port", 8765)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise self.fail("[service].desk_port", f"应为端口号（0–65535），实际是 {port!r}")
        host = table.get("desk_host", "127.0.0.1")
        if not isinstance(host, str) or not host.strip():
            raise self.fail("[service].desk_host", f"应为地址，例：127.0.0.1，实际是 {host!r}")
        return ServiceSettings(
            games=games,
            desk=bool(self.flag(table, "desk", "[service]", True)),
            desk_host=host.strip(),
            desk_port=port,
            desk_token_file=self.path_value(table, "desk_token_file", "[service]"),
            password_file=self.path_value(table, "password_file", "[service]"),
            log_file=self.path_value(table, "log_file", "[service]"),
            scan_seconds=self.number(table, "scan_seconds", "[service]", 10.0, minimum=0.1),
            flood_seconds=self.number(table, "flood_seconds", "[service]", DEFAULT_FLOOD_SECONDS, minimum=0),
            verbose=bool(self.flag(table, "verbose", "[service]", False)),
            source=self.path,
        )


def games_folder() -> Path | None:
    """The service's games folder: ``FORUMBOT_GAMES``, or ``[service].games`` of the file
    ``FORUMBOT_SERVICE`` names; None when neither is set."""
    if os.environ.get("FORUMBOT_GAMES"):
        return Path(os.environ["FORUMBOT_GAMES"])
    service = service_from_env()
    return load_service(service).games if service is not None else None


__all__ = ["DEFAULT_FLOOD_SECONDS", "SERVICE_ENV", "ServiceSettings", "games_folder", "load_service", "service_from_env"]
