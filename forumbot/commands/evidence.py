"""``forumbot evidence``: one day as the bot saw it, in a file for a dispute."""

from __future__ import annotations

import os
from pathlib import Path

import click

from forumbot.commands._common import config_option, friendly, runtime
from forumbot.evidence import export_day, write
from forumbot.evidence.export import not_yet_public
from forumbot.store.records import Actor
from forumbot.wording import os_error_zh

__all__ = ["commands", "evidence"]


@click.command("evidence")
@config_option
@click.option("--day", required=True, type=click.IntRange(min=1), help="要导出的一日（第1日是警长竞选）。")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, writable=True),
              help="写入的文件（UTF-8 编码的 JSON），例如 day2-evidence.json。")
@friendly
def evidence(config_path: str, day: int, out: str) -> None:
    """导出机器人眼中的一日，供争议时复核。

    文件里有当日各帖每个帖子的每个版本（计票用的是机器人最先看到的那个）、机器人
    何时看到每个版本、何时读的页面、本局的事件、规则集，以及运行时保存的实时计票。

    谁都可以读这个文件；forumbot tally --evidence 文件 不需要论坛、数据库和配置就能
    按它重新计票，并说明结果是否与实时计票一致。

    例：forumbot evidence --config game.toml --day 2 --out day2-evidence.json
    """
    with runtime(config_path) as rt:
        now = rt.clock.now()
        data = export_day(rt.config, rt.store, day, now=now)
        digest = _write(data, Path(out))
        rt.store.audit(Actor.DIRECTOR, "evidence.exported", {
            "day": day, "file": str(Path(out).resolve()), "checksum": digest,
            "live_version": data["live_tally"]["version"] if data["live_tally"] else None,
        }, at=now)
    posts = data["posts"]
    edited = sum(1 for p in posts if p["versions_seen"] > 1 or p["edited_before_first_seen"])
    click.echo(f"已导出第{day}日的证据：{out}")
    click.echo(f"  帖子 {len(posts)} 个（其中 {edited} 个被编辑过），事件 {len(data['events'])} 条，"
               f"校验和 {digest}")
    live = data["live_tally"]
    if live is None:
        click.echo("  数据库中没有这一天的实时计票：文件只能复核，无法比对。")
    else:
        click.echo(f"  实时计票：第 {live['version']} 版，保存于 {live['saved_at']}")
        check = data["export_check"]
        if check["recount_equals_live"]:
            click.echo("  按文件复核的结果与实时计票一致。")
        else:
            click.echo("  注意：按文件复核的结果与数据库中最新的实时计票不一致（实时计票可能尚未按最新的帖子或事件更新，"
                       f"可先运行 forumbot retally --day {day} 再导出）：", err=True)
            for line in check["differences"]:
                click.echo(f"    {line}", err=True)
    click.echo(f"  复核：forumbot tally --evidence {out}")
    secrets = not_yet_public(data)
    if secrets:
        click.echo("  注意：文件包含整局的事件记录（复核需要），其中有这一天截止后才生效的事件或身份信息，"
                   "交给玩家之前请确认它们都已公开：", err=True)
        for line in secrets:
            click.echo(f"    {line}", err=True)


def _write(data: dict, path: Path) -> str:
    """Write beside the target, then rename: a file that exists is always whole."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        digest = write(data, temp)
        os.replace(temp, path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise click.ClickException(f"无法写入证据文件 {path}：{os_error_zh(exc)}") from None
    return digest


commands = [evidence]
