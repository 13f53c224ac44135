"""``forumbot check``: the preflight before a game (``forumbot.preflight``)."""

from __future__ import annotations

import json

import click

from forumbot.commands._common import config_option, friendly, runtime


@click.command("check")
@config_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@friendly
def check(config_path: str, as_json: bool) -> None:
    """Before a game: log in (one attempt) and read every configured thread, posting
    nothing, and say for each prerequisite whether it holds — the forum reachable, its
    Discuz generation and charset, the login (no captcha), ordinary pages rather than
    spider pages, the threads existing, open and in one board, the reply form without
    captcha, the mobile API, time precision. Exits 0 only when everything needed passes.

    Example: FORUMBOT_PASSWORD=… forumbot check --config game.toml
    """
    from forumbot.preflight import OUTCOME_ZH, Outcome, preflight
    from forumbot.runtime import make_client

    with runtime(config_path) as rt:
        client = make_client(rt)
        result = preflight(rt, client, rt.clock.now())
        if as_json:
            click.echo(json.dumps({"ok": result.ok, "checks": [
                {"name": c.name, "outcome": c.outcome.value, "detail": c.detail} for c in result.checks]},
                ensure_ascii=False, indent=2))
        else:
            marks = {Outcome.PASS: "✓", Outcome.FAIL: "✗", Outcome.WARN: "!", Outcome.INFO: "·"}
            for c in result.checks:
                click.echo(f"{marks[c.outcome]} {c.name}：{OUTCOME_ZH[c.outcome]} —— {c.detail}")
            failed = [c.name for c in result.checks if c.outcome is Outcome.FAIL]
            click.echo("全部必需项通过：可以开始游戏（forumbot run）。" if result.ok else
                       f"有 {len(failed)} 项不通过（{'、'.join(failed)}）：请按上面的说明处理后再运行 forumbot check。")
        if not result.ok:
            raise SystemExit(1)


commands = [check]
