"""The password (and the service desk's token) from a systemd credential: a unit with
``LoadCredential=forum-password:FILE`` gets the file in ``$CREDENTIALS_DIRECTORY``, mode
0400 with an ACL entry for the service's user — so ``stat`` shows the ACL mask in the
group bits (0440). It is read there without ``FORUMBOT_PASSWORD`` or a password file;
a plain password file with the same bits elsewhere is still refused."""

from __future__ import annotations

import os

import pytest

from forumbot.config.gamefile import ConfigError
from forumbot.config.secrets import PasswordSource, SecretError
from forumbot.service import ServiceSettings


def _credentials(tmp_path, **files: str):
    directory = tmp_path / "credentials"
    directory.mkdir()
    for name, value in files.items():
        path = directory / name.replace("_", "-")
        path.write_text(value + "\n", encoding="utf-8")
        os.chmod(path, 0o440)  # what an ACL mask r-- shows in the group bits
    os.chmod(directory, 0o550)
    return directory


def test_credentials__the_password_comes_from_the_credentials_directory(tmp_path):
    directory = _credentials(tmp_path, forum_password="秘密-pass")
    source = PasswordSource(environ=lambda: {"CREDENTIALS_DIRECTORY": str(directory)})
    assert source() == "秘密-pass"
    assert "forum-password" in source.describe()


def test_credentials__the_environment_and_a_named_file_come_first(tmp_path):
    directory = _credentials(tmp_path, forum_password="from-credential")
    env = {"CREDENTIALS_DIRECTORY": str(directory)}
    assert PasswordSource(environ=lambda: {**env, "FORUMBOT_PASSWORD": "from-env"})() == "from-env"
    own = tmp_path / "own"
    own.write_text("from-file", encoding="utf-8")
    os.chmod(own, 0o600)
    assert PasswordSource(password_file=own, environ=lambda: env)() == "from-file"


def test_credentials__a_password_file_named_inside_the_directory_is_read(tmp_path):
    """``[service].password_file = "/run/credentials/forumbot.service/forum-password"``."""
    directory = _credentials(tmp_path, forum_password="named")
    source = PasswordSource(password_file=directory / "forum-password",
                            environ=lambda: {"CREDENTIALS_DIRECTORY": str(directory)})
    assert source() == "named"


def test_credentials__a_group_readable_file_elsewhere_is_still_refused(tmp_path):
    directory = _credentials(tmp_path)
    loose = tmp_path / "loose"
    loose.write_text("x", encoding="utf-8")
    os.chmod(loose, 0o440)
    with pytest.raises(SecretError, match="别人也能读"):
        PasswordSource(password_file=loose, environ=lambda: {"CREDENTIALS_DIRECTORY": str(directory)})()


def test_credentials__none_anywhere_says_where_to_put_it(tmp_path):
    with pytest.raises(SecretError, match="LoadCredential=forum-password"):
        PasswordSource(environ=lambda: {"CREDENTIALS_DIRECTORY": str(_credentials(tmp_path))})()


def test_credentials__the_service_desk_token_from_the_credential(tmp_path, monkeypatch):
    directory = _credentials(tmp_path, desk_token="token-12345678")
    monkeypatch.delenv("FORUMBOT_DESK_TOKEN", raising=False)
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(directory))
    assert ServiceSettings(games=tmp_path).desk_token() == "token-12345678"
    monkeypatch.setenv("FORUMBOT_DESK_TOKEN", "env-token-123")
    assert ServiceSettings(games=tmp_path).desk_token() is None  # the desk takes the env's own
    monkeypatch.delenv("CREDENTIALS_DIRECTORY")
    loose = tmp_path / "token"
    loose.write_text("t" * 12, encoding="utf-8")
    os.chmod(loose, 0o644)
    with pytest.raises(ConfigError, match="desk_token_file"):
        ServiceSettings(games=tmp_path, desk_token_file=loose).desk_token()
