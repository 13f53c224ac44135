"""``forumbot tally``: recount a day from saved thread pages (SPEC §7)."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from engine.reasons import describe_zh
from forumbot.config import ConfigError
from forumbot.offline import OfflineTallyError, offline_tally

__all__ = ["commands", "tally"]


def _time(iso: str | None) -> str:
    return (iso or "")[5:19].replace("T", " ")


def _votes_table(report: dict[str, Any]) -> Table:
    table = Table(title=f"第 {report['day']} 日投票（{report['ruleset']}，截止 {report['deadline']}）")
    for name, label in (("floor", "楼层"), ("pid", "pid"), ("time", "时间"), ("voter", "投票人"), ("kind", "类型"),
                        ("target", "对象"), ("weight", "权重"), ("ruling", "判定")):
        table.add_column(label, justify="right" if name in ("floor", "pid", "weight") else "left",
                         no_wrap=name in ("time", "floor", "pid", "kind", "weight"))
    for v in report["votes"]:
        voter = v["voter"] + (f"（{v['account']}）" if v["account"] and v["account"] != v["voter"] else "")
        if v["valid"]:
            ruling = ("有效" if v["final"] else "有效，后被改票")
            if v["final"] and v.get("counted") is False:
                ruling = "有效，不计入（" + ("投票人" if v.get("dropped") == "voter_out" else "投票对象") + "截止前已出局）"
        else:
            ruling = f"废票 {v['reason']}：{v.get('reason_text') or describe_zh(v['reason'])}" + (
                f" —— {v['detail']}" if v["detail"] else "")
        table.add_row(
            str(v["floor"] or ""), str(v["pid"]), _time(v["time"]), voter,
            "改票" if v["kind"] == "change" else "投票",
            str(v["target"] if v["target"] is not None else f"({v['written']})"), str(v["weight"]), ruling,
        )
    return table


def _summary(report: dict[str, Any]) -> Table:
    table = Table(title="计票", show_header=False)
    table.add_column("项目")
    table.add_column("内容")
    counts = "，".join(f"{name} {n}" for name, n in report["counts"].items()) or "（无）"
    table.add_row("票数", counts)
    if report["abstain"]:
        table.add_row("弃权", f"{report['abstain']}（{'、'.join(report['abstainers'])}）")
    table.add_row("未投票", "、".join(report["non_voters"]) or "（无）")
    sheriff = report.get("sheriff_at_deadline")
    table.add_row("警长", sheriff or ("空缺" if report.get("badge_vacant") else "无"))
    result = report["result"]
    decided = (f"警长：{result['sheriff']}" if result["sheriff"]
               else f"出局：{result['out']}" if result["out"] else "无人")
    if result.get("effect") == "identity_lost":
        decided = f"身份死亡：{result['out']}"
    elif result.get("effect") == "idiot":
        decided += "（发动【若愚】，免于出局）"
    if result["tie"]:
        decided += f" —— 平票 {'、'.join(result['tie'])}"
    table.add_row("结果", f"{decided} [{result['rule']}] {result['detail']}")
    for flag in report["flags"]:
        table.add_row(f"提示 {flag['kind']}", f"{flag['floor']}楼 {flag['player']}：{flag['detail']}")
    return table


@click.command("tally")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False),
              help="The game config (TOML), e.g. config.toml.")
@click.option("--day", required=True, type=click.IntRange(min=1), help="The day to tally (1 = sheriff election).")
@click.option("--pages", "pages", required=True, multiple=True, type=click.Path(dir_okay=False),
              help="Saved thread page (HTML or mobile-API JSON). Repeat, or list several after one --pages.")
@click.argument("more", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the SPEC §7 JSON object instead of a table.")
def tally(config_path: str, day: int, pages: tuple[str, ...], more: tuple[str, ...], as_json: bool) -> None:
    """Recount a day from saved thread pages: every vote's ruling, the counts and the result.

    Only posts in the day's vote thread count as votes. Posts are read from the pages
    the forum served (no network).

    Example:

        forumbot tally --config game.toml --day 2 --pages tid12-page1.html tid12-page2.html --json
    """
    try:
        outcome = offline_tally(config_path, day, [*pages, *more])
    except (ConfigError, OfflineTallyError) as exc:
        raise click.ClickException(str(exc)) from None
    report = outcome.as_json()
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    console = Console()
    console.print(_votes_table(report))
    console.print(_summary(report))


commands = [tally]
