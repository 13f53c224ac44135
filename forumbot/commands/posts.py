"""``forumbot posts``: show what the parsers read from saved thread pages."""

from __future__ import annotations

import json

import click
from rich.table import Table

from forumbot.commands._common import Refusal
from forumbot.commands._console import terminal
from forumbot.wording import os_error_zh
from forumbot.commands._time import zone_and_now

from parsers.errors import PageParseError
from parsers.models import Post, VoteDeclaration
from parsers.pages import incomplete, read_page_files
from parsers.votes import parse_vote

__all__ = ["commands", "post_record", "posts"]


def _vote_record(vote: VoteDeclaration | None) -> dict[str, object] | None:
    if vote is None:
        return None
    return {
        "kind": str(vote.kind),
        "target": vote.target,
        "reason": vote.reason,
        "problem": str(vote.problem) if vote.problem else None,
    }


def post_record(post: Post) -> dict[str, object]:
    """One post as ``--json`` prints it. Scripts depend on these field names."""
    return {
        "pid": post.pid,
        "floor": post.floor,
        "author": post.author,
        "author_uid": post.author_uid,
        "posted_at": post.posted_at.isoformat(),
        "edited_at": post.edited_at.isoformat() if post.edited_at else None,
        "quotes": [{"pid": q.pid, "author": q.author} for q in post.quotes],
        "text": post.text,
        "vote": _vote_record(parse_vote(post.text, plain=True)),
        # extras (added fields; the ones above are fixed)
        "tid": post.tid,
        "edited_by": post.edited_by,
        "notice": str(post.notice) if post.notice else None,
        "time_precision": str(post.time_precision),
    }


def _declaration(vote: dict[str, object] | None) -> str:
    if vote is None:
        return ""
    word = "投票" if vote["kind"] == "vote" else "改票"
    text = f"{word} → {vote['target'] or '?'}"
    if vote["problem"]:
        text += f" [{vote['problem']}]"
    return text


_LACKS_ZH = {"no author": "没有作者", "no floor": "没有楼层", "no author and no floor": "没有作者和楼层"}


def _short_time(iso: object) -> str:
    """``2026-11-30T00:24:47+08:00`` → ``11-30 00:24:47`` (the zone is the --tz one)."""
    if not iso:
        return ""
    return str(iso)[5:19].replace("T", " ")


def _table(records: list[dict[str, object]]) -> Table:
    table = Table(title=f"共 {len(records)} 个帖子")
    for name in ("楼层", "pid", "作者", "发帖时间", "编辑时间", "引用（pid）", "投票声明"):
        table.add_column(name, justify="right" if name in ("楼层", "pid") else "left")
    for r in records:
        quotes = ", ".join(str(q["pid"]) if q["pid"] is not None else "?" for q in r["quotes"])
        table.add_row(
            "" if r["floor"] is None else str(r["floor"]),
            str(r["pid"]),
            str(r["author"] or "（匿名）") + (f" [{r['notice']}]" if r["notice"] else ""),
            _short_time(r["posted_at"]),
            _short_time(r["edited_at"]),
            quotes,
            _declaration(r["vote"]),  # type: ignore[arg-type]
        )
    return table


@click.command("posts")
@click.option("--pages", "pages", required=True, multiple=True,
              type=click.Path(exists=True, dir_okay=False),
              help="保存下来的帖子页面（HTML 或手机版接口的 JSON）。可以重复 --pages，"
                   "也可以在一个 --pages 后列出多个文件。")
@click.argument("more", nargs=-1, type=click.Path(exists=True, dir_okay=False), metavar="[更多文件]...")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON 列表，每个帖子一个对象。")
@click.option("--tz", default="Asia/Shanghai", show_default=True,
              help="论坛的时区（页面上不写时区）。")
@click.option("--now", default=None,
              help="页面抓取的时间（ISO 格式）；只有「3 分钟前」这样没有完整时间提示的相对时间才需要。")
def posts(pages: tuple[str, ...], more: tuple[str, ...], as_json: bool, tz: str,
          now: str | None) -> None:
    """列出保存下来的帖子页面里的每个帖子，按 pid 去重。

    显示楼层、pid、作者、发帖时间、编辑时间、引用的帖子（pid），以及在帖子本身文字
    里读到的投票声明。

    例：

        forumbot posts --pages viewthread-tid2-page1.html viewthread-tid2-page2.html --json
    """
    zone, moment = zone_and_now(tz, now)
    try:
        found = read_page_files([*pages, *more], tz=zone, now=moment, complete=False)
    except PageParseError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise Refusal(f"无法读取 {exc.filename}：{os_error_zh(exc)}") from exc
    records = [post_record(p) for p in found]
    if as_json:
        click.echo(json.dumps(records, ensure_ascii=False, indent=2))
    else:
        terminal().print(_table(records))
    lacking = [f"pid {p.pid}（{_LACKS_ZH.get(why, why)}）" for p in found if (why := incomplete(p)) is not None]
    if lacking:  # shown above, but not a page to count from: say so in the exit code
        raise Refusal(f"{len(lacking)} 个帖子没有读全（不能据此计票）：{'、'.join(lacking[:10])}")


commands = [posts]
