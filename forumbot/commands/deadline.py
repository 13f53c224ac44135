"""``forumbot deadline`` (move a deadline, lengthen a day, close it now) and ``forumbot
reopen`` (open a day's locked voting thread again): SPEC §11, over
``forumbot.game.daychanges``."""

from __future__ import annotations


import click

from forumbot.commands._common import config_option, confirm, show_preview, friendly, runtime
from forumbot.game import director

__all__ = ["commands", "deadline", "reopen"]


@click.command("deadline")
@config_option
@click.option("--day", type=click.IntRange(1, 366), default=None, help="哪一日（默认：正在进行的那一日）。")
@click.option("--at", "at_text", default=None, metavar="时间",
              help="新的截止时间，按论坛时区：2026-12-05T22:00、'12-05 22:00' 或 '22:00'（今天）。")
@click.option("--extend", "extend_text", default=None, metavar="多久",
              help="把这一日延长多久：1天、2小时、30分钟（或 1d、2h、30m）。")
@click.option("--now", "close_now", is_flag=True, help="现在截止（加速的一日由导演宣布截止）。")
@click.option("--why", default="", help="为什么改（记在日志里）。")
@click.option("--yes", "-y", "assume_yes", is_flag=True, help="不再确认：列出变化后直接执行。")
@click.option("--json", "as_json", is_flag=True, help="只预览，输出 JSON（不改任何东西）。")
@friendly
def deadline(config_path: str, day: int | None, at_text: str | None, extend_text: str | None, close_now: bool,
             why: str, assume_yes: bool, as_json: bool) -> None:
    """改一日的截止时间、延长一日，或现在截止。

    先列出它改变的时间（这一日的截止和改票截止，以及之后顺延的日子），确认后记下；机器人
    下一轮按新的时间提醒、发截止帖。已经截止的一日不能再改。

    例：

        forumbot deadline --config game.toml --day 2 --at '12-05 22:00'

        forumbot deadline --config game.toml --extend 1天 --why 周末人少

        forumbot deadline --config game.toml --day 3 --now
    """
    with runtime(config_path) as rt:
        now = rt.clock.now()
        request = director.DeadlineRequest(
            day=day, at=director.parse_when(at_text, now) if at_text else None,
            extend=director.parse_span(extend_text) if extend_text else None, close_now=close_now, why=why)
        shown = director.preview_deadline(rt, request, now)
        if show_preview(shown, as_json):
            return
        if not shown.shifts:
            click.echo("没有任何时间改变。")
            return
        if not assume_yes and not confirm("确认执行？"):
            click.echo("未执行。")
            raise SystemExit(1)
        director.change_deadline(rt, request, now)
        click.echo(f"已记下：{shown.change.describe_zh()}。机器人下一轮按新的时间提醒和截止。")


@click.command("reopen")
@config_option
@click.option("--day", type=click.IntRange(1, 366), default=None, help="哪一日（默认：最近被关闭的那一日）。")
@friendly
def reopen(config_path: str, day: int | None) -> None:
    """重新打开机器人在截止时关闭的投票帖。

    机器人下一轮打开它，之后这一日不再自动关闭。截止时间不变：要让玩家继续投票，
    先用 forumbot deadline 改截止时间（截止之前）。

    例：forumbot reopen --config game.toml --day 2
    """
    with runtime(config_path) as rt:
        click.echo(director.ask_reopen(rt, day, rt.clock.now()))


commands = [deadline, reopen]
