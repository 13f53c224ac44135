"""The game's state itself: create it (``init``), and say what the forum's posts of
another state are (``adopt``: the old database is lost, this one takes over; ``mark-copy``:
this config is a copy) — ``forumbot.game.provenance``."""

from __future__ import annotations

import click

from forumbot.commands._common import config_option, friendly, runtime


@click.command("init")
@config_option
@friendly
def init(config_path: str) -> None:
    """新建本局的状态数据库（[agent].database），不连论坛。

    一般不用单独运行：forumbot run 第一次运行时会自动新建。其他命令（status、approve……）
    只用已有的状态，找不到时报错而不新建。已经存在时什么也不改。

    例：forumbot init --config game.toml
    """
    from pathlib import Path

    from forumbot.config.gamefile import load_config
    from forumbot.config.settings import load_settings

    database = Path(load_settings(load_config(config_path)).agent.database)
    existed = database.exists()
    with runtime(config_path, create=True) as rt:
        if existed:
            click.echo(f"状态数据库已经存在：{database}（状态 {rt.store.state_id}），没有改动。")
        else:
            click.echo(f"已新建状态数据库：{database}（本局标识 {rt.outbox.game}，状态 {rt.store.state_id}）。")


@click.command("adopt")
@config_option
@friendly
def adopt(config_path: str) -> None:
    """接管：论坛上本局另一份状态发的帖子，算作这份状态的历史。

    机器人在本局的帖子里发现了另一份状态（另一个数据库）发的帖子时会暂停发帖并报警。
    若原来的数据库确已丢失（被删、损坏、换了机器），由这份接着主持，就运行这个命令：
    论坛上已有的最终计票、公示和计票回复不会再起草，机器人下一轮接着发帖。导演录入过
    的事件（夜晚结果、判废、别名、判罚……）在旧数据库里，请重新录入（forumbot status
    会列出缺的夜晚结果）。若这份配置是副本，不要接管：用 forumbot mark-copy。

    例：forumbot adopt --config game.toml
    """
    from forumbot.game.takeover import adopt as take

    with runtime(config_path) as rt:
        done = take(rt, rt.clock.now(), actor="director")
        states = "、".join(s.removeprefix("old:") for s in done.states)
        click.echo(f"已接管状态 {states} 的 {done.posts} 篇帖子（记为已发布：{len(done.drafts)} 篇），警报已解除。")
        if done.notable:
            click.echo(f"论坛上已有、不会再起草：{'、'.join(done.notable)}。")
        for warning in done.warnings:
            click.echo(f"注意：{warning}")
        if done.renewed:
            click.echo(f"论坛上有这份状态自己的旧帖（数据库曾被换成旧备份）：这份状态改用新的标识 {done.renewed}，"
                       "以后的帖子不会与它们混淆。")
        click.echo("导演录入过的事件（夜晚结果、判废、别名、判罚等）若在旧数据库里，请重新录入；"
                   "运行中的机器人下一轮接着发帖（forumbot status 查看）。")


@click.command("mark-copy")
@config_option
@friendly
def mark_copy(config_path: str) -> None:
    """确认这份配置是副本：论坛上本局另一份状态的帖子属于另一个正在运行的机器人。

    不接管任何帖子；警报保留（改为说明这是副本），本局继续不发帖，直到配置改正——
    把 [agent].database 改回原来的数据库，或把各日的帖子号改成这局自己的，然后重启。
    若其实原来的数据库已经丢失，改用 forumbot adopt。

    例：forumbot mark-copy --config game.toml
    """
    from forumbot.game.takeover import mark_copy as mark

    with runtime(config_path) as rt:
        states = mark(rt, rt.clock.now(), actor="director")
        click.echo(f"已记下：状态 {'、'.join(s.removeprefix('old:') for s in states)} 是另一个机器人的，这份配置是副本。"
                   f"本局继续不发帖；请改正 {rt.config.path} 的 [agent].database 或各日的帖子号后重启机器人。")


commands = [init, adopt, mark_copy]
