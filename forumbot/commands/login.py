"""``forumbot login``: log the bot in once, now, after the operator fixed the account."""

from __future__ import annotations

import secrets
from datetime import timedelta

import click

from forumbot.commands._common import config_option, friendly, runtime


@click.command("login")
@config_option
@friendly
def login(config_path: str) -> None:
    """让机器人现在登录一次，并保存会话。

    只试一次，用当前的密码（环境变量 FORUMBOT_PASSWORD 或配置里的 [bot].password_file）。
    登录失败后机器人不会自己再试（Discuz 在同一 IP 输错五次密码后会锁住这个 IP 上的
    所有账号）：改好密码（或关掉验证码、改好安全提问）后运行这个命令。运行中的机器人
    下一轮就用保存的会话，不用重启。

    例：FORUMBOT_PASSWORD=… forumbot login --config game.toml
    """
    from forumbot.agent.loop import OPERATOR_LOGIN
    from forumbot.game.alarms import LOGIN_KEY, AlarmKind, clear_login, raise_login
    from forumbot.discuz.errors import ForumRefused, ForumUnavailable
    from forumbot.agent.preflight import password_problem
    from forumbot.game.runtime import make_client
    from forumbot.config.secrets import SecretError

    with runtime(config_path, scratch=True) as rt:
        locked = rt.store.alarm(LOGIN_KEY)
        if locked is not None and locked.kind == AlarmKind.LOGIN_LOCKED.value:
            until = locked.raised_at + timedelta(minutes=15)
            if rt.clock.now() < until:  # each try now would only extend the forum's lock
                raise click.ClickException(f"论坛对本机的登录锁定到 {until:%H:%M} 左右才解除：请到时再运行 forumbot login"
                                           "（提前试只会让锁定延长）")
        client = make_client(rt)
        client.http.cookies.clear()  # a real login with the current password, not the saved session
        username = rt.settings.bot.username
        try:
            uid = client.login()
        except SecretError as exc:
            raise click.ClickException(password_problem(exc, rt)) from None
        except ForumUnavailable as exc:
            raise click.ClickException(f"论坛无法访问（{exc.cause_name}）：{client.base_url}，请稍后再试") from None
        except ForumRefused as exc:
            now = rt.clock.now()
            alarm = raise_login(rt.store, exc, now, username=username, config=str(rt.config.path),
                                generation=client.generation.value if client.generation else None)
            rt.store.audit("operator", "login.failed", {"username": username, "forum": exc.message}, at=now)
            raise click.ClickException(f"登录失败。{alarm.text}") from None
        now = rt.clock.now()
        cookie_file = rt.settings.bot.cookie_file
        with rt.store.write():
            clear_login(rt.store, now, actor="operator")
            rt.store.set_meta(OPERATOR_LOGIN, f"{now.isoformat()} {secrets.token_hex(3)}")
            rt.store.audit("operator", "login", {"username": username, "uid": uid}, at=now)
        click.echo(f"已登录：机器人账号“{username}”（uid {uid}）。")
        if cookie_file is not None and cookie_file.exists():
            click.echo(f"会话已保存到 {cookie_file}；运行中的机器人会在下一轮改用这个登录，不用重启。")
        else:
            click.echo("配置里没有 [bot].cookie_file（或无法写入），会话没有保存：运行中的机器人下一轮会用它自己"
                       "拿到的密码再登录一次；若它的密码也是旧的，请重启它（forumbot run）。")


commands = [login]
