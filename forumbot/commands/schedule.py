"""``forumbot schedule``: every day's start, change freeze, reminders and deadline (SPEC §11)."""

from __future__ import annotations

import json
from datetime import timedelta

import click

from engine.calendar import CalendarError, DeadlineBy, ScheduledDay, StartBy, day_zh, when_zh
from forumbot.commands._common import Refusal, config_option, friendly
from forumbot.commands._help import text_width
from forumbot.agent.offline import with_game_days
from forumbot.config.gamefile import GameConfig, load_config

__all__ = ["commands", "schedule"]

_DEADLINE_NOTE = {
    DeadlineBy.CONFIG: "截止按 [[days]]",
    DeadlineBy.MOVED: "截止已由导演改动",
    DeadlineBy.EXTENDED: "已由导演延长",
    DeadlineBy.CLOSED_EARLY: "已提前截止",
}
_START_NOTE = {StartBy.CONFIG: "开始按 [[days]]", StartBy.MOVED: "开始已由导演改动"}


def _notes(config: GameConfig, day: ScheduledDay) -> str:
    if config.calendar is None:
        return ""  # every day is as [[days]] writes it: nothing to explain
    notes = [_START_NOTE[day.start_by]] if day.start_by in _START_NOTE else []
    if day.deadline_by is DeadlineBy.WEEKEND and day.rest_day is not None:
        notes.append(f"逢周末延长一天（{day_zh(day.rest_day)}）")
    elif day.deadline_by is DeadlineBy.HOLIDAY and day.rest_day is not None:
        notes.append(f"逢节假日延长一天（{day_zh(day.rest_day)}）")
    elif day.deadline_by in _DEADLINE_NOTE:
        notes.append(_DEADLINE_NOTE[day.deadline_by])
    cal = config.calendar
    if cal is not None and day.number == 1 and day.deadline_by is DeadlineBy.RULE and not cal.rule.extend_first_day:
        opened = day.start.date()
        span = range(cal.rule.close_after_days + 1)
        if any(cal.is_rest_day(opened + timedelta(days=i)) for i in span):
            notes.append("第1日不因周末延长")  # 例外的，第一天讨论日不因周末而延长
    return "；".join(notes)


def _reminders(day: ScheduledDay) -> str:
    same = day.deadline.date()
    return "、".join(f"{r.at:%H:%M}" if r.at.date() == same else f"{r.at:%m-%d %H:%M}" for r in day.reminders) or "—"


def _thread(config: GameConfig, number: int) -> str:
    window = next((d for d in config.days if d.number == number), None)
    return str(window.vote_thread) if window is not None and window.vote_thread is not None else "—"


def _table(rows: list[list[str]]) -> str:
    widths = [max(text_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell + " " * (widths[i] - text_width(cell)) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


@click.command("schedule")
@config_option
@click.option("--days", type=click.IntRange(1, 366), default=None,
              help="排到第几日（默认：配置里的日子；有 [calendar] 时是 [calendar].days）。")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON 对象（格式见规格说明第 11 节），而不是表格。")
@friendly
def schedule(config_path: str, days: int | None, as_json: bool) -> None:
    """列出每一日的开始、改票截止、提醒和截止时间。

    有 [calendar] 时按它和规则集算出（14人简易：上午开帖，次日 21:30 截止，逢周末延长一天，
    第1日除外；双身份：09:30 到次日 21:30，逢节假日延长），[[days]] 里写了时间的那一日按
    [[days]]，之后的日子随之顺延。没有 [calendar] 时列出 [[days]] 里写的日子。改票截止是
    截止前的改票时间窗（[game].change_window_minutes，默认 60 分钟）开始的时刻。只读配置，
    不联网，不改数据库。

    例：

        forumbot schedule --config game.toml --days 5

        forumbot schedule --config game.toml --days 5 --json
    """
    # The days as the game's store keeps them when it has one (the director's changes).
    config = with_game_days(load_config(config_path))
    try:
        laid = config.schedule(days)
    except CalendarError as exc:
        raise Refusal(f"{config_path}: {exc}") from None
    if as_json:
        click.echo(json.dumps(laid.as_json(), ensure_ascii=False, indent=2))
        return
    source = "按 [calendar] 和规则集" if config.calendar is not None else "配置里没有 [calendar]：按 [[days]]"
    click.echo(f"日程：{config.rules.title}，时区 {config.forum.timezone}（{source}）")
    if not laid.days:
        click.echo("没有配置任何一日。")
        return
    rows = [["日", "开始", "改票截止", "截止", "提醒", "投票帖", "说明"]]
    for day in laid.days:
        rows.append([f"第{day.number}日", when_zh(day.start), when_zh(day.freeze) if day.freeze else "—",
                     when_zh(day.deadline), _reminders(day), _thread(config, day.number), _notes(config, day)])
    click.echo(_table(rows))
    if days is not None and len(laid.days) < days:
        click.echo(f"第{len(laid.days) + 1}日起没有配置（加上 [calendar] 可以按规则集排出之后的日子）。")


commands = [schedule]
