"""``forumbot simulate``: serve a Discuz!-compatible forum on 127.0.0.1."""

from __future__ import annotations

import threading

import click

from forumbot.commands._common import Refusal
from forumbot.wording import os_error_zh
from forumbot.simulator.script import ScriptError
from forumbot.simulator.serve import prepare_forum


@click.command("simulate")
@click.option("--port", type=int, default=8080, show_default=True,
              help="127.0.0.1 上的端口（0：随便找一个空闲的）。")
@click.option("--discuz", type=click.Choice(["x3", "7.2"]), default=None,
              help="Discuz! 版本：x3（X3.5，默认）或 7.2。")
@click.option("--gbk", is_flag=True, help="模拟 GBK 编码的论坛（页面和表单都用 GBK）。")
@click.option("--script", "script", type=click.Path(dir_okay=False), default=None,
              help="模拟器脚本（TOML 或 JSON，格式见下）；默认：演示用的一局游戏。")
@click.option("--ppp", type=click.IntRange(min=1), default=None,
              help="每页帖子数（默认 10，或脚本里设的值）。")
def simulate(port: int, discuz: str | None, gbk: bool, script: str | None,
             ppp: int | None) -> None:
    """在本机运行一个模拟的 Discuz! 论坛（X3.5 或 7.2），可以用浏览器打开。

    不给 --script 时放一局演示游戏：版块「版杀区」里一个讨论帖和一个投票帖，用户有
    导演、计票机器人和 8 名玩家（密码都是 "demo-password"）。两代论坛放的是同一局。

    例：

        forumbot simulate --port 8080 --script game.toml --ppp 10

        forumbot simulate --discuz 7.2 --gbk

    脚本描述的是论坛，不是游戏（带 [game] 的游戏配置会被拒绝）：文件名以 .toml 结尾
    的按 TOML 读，其他按 JSON 读；每个表都可以省略；时间写 ISO 格式，或相对
    [site].start 的偏移，如 "-2h"、"+90s"、"-1h30m"。

    \b
    [site]
    start = "2026-11-30T09:00:00+08:00"
    discuz = "x3"            # 或 "7.2"
    charset = "utf-8"        # 或 "gbk"
    posts_per_page = 10
    [site.settings]          # 论坛开关（都可省略），例如：
    floodctrl = 15           # 两次发帖至少间隔的秒数
    moderate_replies = false # 新回复要版主审核
    captcha_login = false    # 登录要验证码
    captcha_post = false     # 发帖要验证码
    newbiespan = 2           # 新注册多久内不能发帖（X3 分钟，7.2 小时）
    [[users]]
    name = "导演"
    password = "pw"
    banned = false           # 可选，还有 uid = 2、registered = "-1m"
    [[forums]]
    name = "版杀区"
    [[threads]]
    key = "vote"
    forum = "版杀区"
    subject = "【饺子村】第一日 投票帖"
    author = "导演"
    message = "投票格式：投票对象：玩家名"
    at = "-2h"
    [[posts]]
    key = "v1"               # 后面的帖子可以引用它
    thread = "vote"
    author = "导演"
    message = "投票对象：饺子"
    at = "-1h"               # 可选：quote = "v1"、blocked = true
    [[edits]]
    post = "v1"
    message = "投票对象：包子"
    at = "-50m"
    """
    try:
        forum = prepare_forum(port=port, gbk=gbk, script=script, ppp=ppp, discuz=discuz)
        base = forum.sim.start()
    except ScriptError as exc:
        raise click.ClickException(str(exc)) from exc
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise Refusal(f"无法监听 127.0.0.1:{port}：{os_error_zh(exc)}") from exc
    name = "Discuz! 7.2" if forum.sim.discuz == "7.2" else "Discuz! X3.5"
    where = "示例论坛" if forum.source == "demo" else f"脚本 {forum.source}"
    click.echo(f"模拟的 {name} 论坛（{forum.sim.charset.upper()}，{where}）：{base}")
    click.echo(f"  cookie 前缀 {forum.sim.cookiepre}；按 Ctrl-C 结束")
    for name, password in forum.accounts:
        click.echo(f"  账号 {name} / 密码 {password}")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        click.echo("已停止")
    finally:
        forum.sim.stop()


commands = [simulate]
