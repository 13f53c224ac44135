"""``forumbot inbox``: the messages in saved private-message pages — for tests and for a
director's dispute ("did the bot get my 批准?")."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import click
from rich.table import Table

from forumbot.commands._common import Refusal
from forumbot.commands._console import terminal
from forumbot.wording import os_error_zh
from forumbot.commands._time import zone_and_now

from parsers.errors import PageParseError
from parsers.models import TimePrecision
from parsers.pm import PrivateMessage, read_pm_page

__all__ = ["commands", "inbox", "message_record", "read_pm_files"]


def message_record(message: PrivateMessage) -> dict[str, object]:
    """One message as ``--json`` prints it: exactly these keys."""
    return {"id": message.id, "from": message.author, "uid": message.uid,
            "time": message.time.isoformat(), "text": message.text}


def read_pm_files(paths: list[Path], *, tz: ZoneInfo, now: datetime | None) -> list[PrivateMessage]:
    """Every message of the saved pages, once per pmid (per generation: pages of two
    forums do not merge), oldest first. A file that is not
    a conversation page raises ``PageParseError`` naming it. Relative times (X3.5's
    mobile API) are resolved against ``now``, else against the file's modification time
    (when the page was saved)."""
    found: dict[tuple[str, int], PrivateMessage] = {}
    for path in paths:
        data = path.read_bytes()
        moment = now or datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
        content_type = "application/json" if path.suffix.lower() == ".json" else None
        page = read_pm_page(data, content_type=content_type, source=str(path), tz=tz, now=moment)
        if not page.messages and page.conversations:
            raise PageParseError("这是收件箱列表，不是对话：请打开与那个用户的对话，"
                                 "保存那个页面", source=str(path))
        for message in page.messages:
            found.setdefault((page.generation, message.id), message)
    return [found[key] for key in sorted(found)]


def _shown_time(message: PrivateMessage) -> str:
    fmt = "%Y-%m-%d %H:%M:%S" if message.time_precision is TimePrecision.SECOND else "%Y-%m-%d %H:%M"
    return message.time.strftime(fmt)


def _table(messages: list[PrivateMessage]) -> Table:
    table = Table(title=f"共 {len(messages)} 条短消息")
    for name in ("编号", "发信人", "UID", "时间", "内容"):
        table.add_column(name, justify="right" if name in ("编号", "UID") else "left")
    for m in messages:
        table.add_row(str(m.id), m.author or "", "" if m.uid is None else str(m.uid),
                      _shown_time(m), m.text)
    return table


@click.command("inbox")
@click.option("--pages", "pages", required=True, multiple=True,
              type=click.Path(exists=True, dir_okay=False),
              help="保存下来的短消息对话页（X3.5 或 7.2 的 HTML，X3.5 手机版接口的 JSON）。"
                   "可以重复 --pages，也可以在一个 --pages 后列出多个文件。")
@click.argument("more", nargs=-1, type=click.Path(exists=True, dir_okay=False), metavar="[更多文件]...")
@click.option("--json", "as_json", is_flag=True,
              help='输出 JSON 列表，每条消息一个对象，字段是 "id"、"from"、"uid"、"time"、"text"。')
@click.option("--tz", default="Asia/Shanghai", show_default=True,
              help="论坛的时区（页面上不写时区）。")
@click.option("--now", default=None,
              help="页面保存的时间（ISO 格式），用来换算「3 分钟前」这样的相对时间"
                   "（默认：每个文件的修改时间）。")
def inbox(pages: tuple[str, ...], more: tuple[str, ...], as_json: bool, tz: str,
          now: str | None) -> None:
    """列出保存下来的短消息对话页里的每条站内信，按消息编号去重，从早到晚。

    两代 Discuz! 的页面都能读，自动识别。用于核对争议：「机器人收到我的批准了吗？」

    例：

        forumbot inbox --pages conversation-with-director.html --json
    """
    zone, moment = zone_and_now(tz, now)
    try:
        messages = read_pm_files([Path(p) for p in (*pages, *more)], tz=zone, now=moment)
    except PageParseError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise Refusal(f"无法读取 {exc.filename}：{os_error_zh(exc)}") from exc
    if as_json:
        click.echo(json.dumps([message_record(m) for m in messages], ensure_ascii=False, indent=2))
    else:
        terminal().print(_table(messages))


commands = [inbox]
