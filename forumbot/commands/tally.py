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
    table = Table(title=f"第 {report['day']} 日 votes ({report['ruleset']}, deadline {report['deadline']})")
    for name in ("floor", "pid", "time", "voter", "kind", "target", "weight", "ruling"):
        table.add_column(name, justify="right" if name in ("floor", "pid", "weight") else "left",
                         no_wrap=name in ("time", "floor", "pid", "kind", "weight"))
    for v in report["votes"]:
        voter = v["voter"] + (f" ({v['account']})" if v["account"] and v["account"] != v["voter"] else "")
        if v["valid"]:
            ruling = "valid" if v["final"] else "valid, changed later"
        else:
            ruling = f"VOID {v['reason']}: {describe_zh(v['reason'])}" + (f" — {v['detail']}" if v["detail"] else "")
        table.add_row(
            str(v["floor"] or ""), str(v["pid"]), _time(v["time"]), voter,
            "改票" if v["kind"] == "change" else "投票",
            str(v["target"] if v["target"] is not None else f"({v['written']})"), str(v["weight"]), ruling,
        )
    return table


def _summary(report: dict[str, Any]) -> Table:
    table = Table(title="tally", show_header=False)
    table.add_column("what")
    table.add_column("value")
    counts = "，".join(f"{name} {n}" for name, n in report["counts"].items()) or "(none)"
    table.add_row("counts 票数", counts)
    if report["abstain"]:
        table.add_row("abstain 弃权", f"{report['abstain']} ({'、'.join(report['abstainers'])})")
    table.add_row("non-voters 未投票", "、".join(report["non_voters"]) or "(none)")
    result = report["result"]
    decided = (f"sheriff 警长: {result['sheriff']}" if result["sheriff"]
               else f"out 出局: {result['out']}" if result["out"] else "no one 无人")
    if result["tie"]:
        decided += f" — tie 平票 {'、'.join(result['tie'])}"
    table.add_row("result 结果", f"{decided} [{result['rule']}] {result['detail']}")
    for flag in report["flags"]:
        table.add_row(f"flag {flag['kind']}", f"floor {flag['floor']} {flag['player']}: {flag['detail']}")
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
