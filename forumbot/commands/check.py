"""``forumbot check``: the preflight before a game (``forumbot.agent.preflight``)."""

from __future__ import annotations

import json

import click

from forumbot.commands._common import config_option, friendly, runtime


@click.command("check")
@config_option
@click.option("--json", "as_json", is_flag=True, help="输出 JSON（给脚本读）。")
@friendly
def check(config_path: str, as_json: bool) -> None:
    """开局前的检查：登录一次，读一遍配置里的每个帖子，什么都不发。

    逐项说明每个前提是否满足：论坛能否访问、Discuz 版本和编码、能否登录（没有验证码）、
    看到的是普通页面而不是给搜索引擎的简化页面、帖子是否存在、是否开放、是否在同一个
    版块、回帖是否不需要验证码、机器人是不是版主（能否在截止时锁帖）、手机版接口、时间精度。
    只有必需项全部通过时退出码才是 0。

    密码来自环境变量 FORUMBOT_PASSWORD 或配置里的 [bot].password_file。

    例：FORUMBOT_PASSWORD=… forumbot check --config game.toml
    """
    from forumbot.agent.preflight import OUTCOME_ZH, Outcome, preflight
    from forumbot.game.runtime import make_client

    with runtime(config_path, scratch=True) as rt:
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
