"""``forumbot tally``: recount a day from saved thread pages (SPEC §7), or from an evidence file."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.table import Table

from engine.reasons import describe_zh
from forumbot.commands._console import terminal
from forumbot.config.gamefile import ConfigError
from forumbot.agent.offline import OfflineTallyError, offline_tally
from forumbot.game.nights import NightsError, secrets_lines
from forumbot.game.views import rule_text
from forumbot.wording import FLAG_ZH, RULESET_ZH
from forumbot.wording import vote_ruling_zh

__all__ = ["commands", "tally"]


def _time(iso: str | None) -> str:
    return (iso or "")[5:19].replace("T", " ")


def _votes_table(report: dict[str, Any]) -> Table:
    ruleset = RULESET_ZH.get(report["ruleset"], report["ruleset"])
    table = Table(title=f"第 {report['day']} 日投票（{ruleset}，截止 {report['deadline']}）")
    for name, label in (("floor", "楼层"), ("pid", "pid"), ("time", "时间"), ("voter", "投票人"), ("kind", "类型"),
                        ("target", "对象"), ("weight", "权重"), ("ruling", "判定")):
        table.add_column(label, justify="right" if name in ("floor", "pid", "weight") else "left",
                         no_wrap=name in ("time", "floor", "pid", "kind", "weight"))
    for v in report["votes"]:
        voter = v["voter"] + (f"（{v['account']}）" if v["account"] and v["account"] != v["voter"] else "")
        if v["valid"]:
            ruling = vote_ruling_zh(v)
        else:
            # The reason in words; its code (no_reason, late…) is in --json.
            ruling = f"废票：{v.get('reason_text') or describe_zh(v['reason'])}" + (
                f" —— {v['detail']}" if v["detail"] else "")
        table.add_row(
            str(v["floor"] or ""), str(v["pid"]), _time(v["time"]), voter,
            "改票" if v["kind"] == "change" else "投票",
            _target(v), str(v["weight"]), ruling,
        )
    return table


def _target(vote: dict[str, Any]) -> str:
    """Who the vote is for; a target the vote does not name says what was written (or
    that nothing was), never 「(None)」."""
    if vote["target"] is not None:
        return str(vote["target"])
    written = vote.get("written")
    return f"（写的是「{written}」）" if written else "（没有写投票对象）"


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
    rule = rule_text(result["rule"])
    table.add_row("结果", f"{decided}" + (f"（{rule}）" if rule and rule != result["rule"] else "")
                  + (f" {result['detail']}" if result["detail"] else ""))
    if "win" in report:  # a game with identities: the win check after this day's result
        win = report["win"]
        table.add_row("胜负", f"{win['faction']}获胜（{win['rule']}）" if win else "尚未分出")
    for flag in report["flags"]:
        table.add_row(f"提示：{FLAG_ZH.get(flag['kind'], '提示')}", f"{flag['floor']}楼 {flag['player']}：{flag['detail']}")
    return table


@click.command("tally")
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="本局的配置文件（TOML），例如 config.toml。用 --evidence 时不需要。")
@click.option("--day", type=click.IntRange(min=1), help="要计票的一日（第1日是警长竞选）。")
@click.option("--pages", "pages", multiple=True, type=click.Path(dir_okay=False),
              help="保存下来的帖子页面（HTML 或手机版接口的 JSON）。可以重复 --pages，"
                   "也可以在一个 --pages 后列出多个文件。")
@click.argument("more", nargs=-1, type=click.Path(dir_okay=False), metavar="[更多文件]...")
@click.option("--evidence", "evidence_path", type=click.Path(dir_okay=False),
              help="按 forumbot evidence 导出的证据文件重新计票，而不是按保存的页面。")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON 对象（格式见规格说明第 7 节），而不是表格。")
@click.option("--secrets", is_flag=True, help="有身份表时，同时列出每名玩家的身份和夜晚行动（保密：只在你自己的终端上用）。")
def tally(config_path: str | None, day: int | None, pages: tuple[str, ...], more: tuple[str, ...],
          evidence_path: str | None, as_json: bool, secrets: bool) -> None:
    """按保存下来的帖子页面重新计一日的票：每一票的判定、票数和结果。

    只有当日投票帖里的帖子算作投票。帖子从论坛给出的页面里读（不联网）。事后保存的
    页面只有帖子最新的文字，而机器人计的是它最先看到的文字。要完全按机器人当时的
    计法复核，先用 forumbot evidence 导出这一日，再按那个文件计票：不需要论坛、数据库
    和配置；复核结果与文件里的实时计票不同（或文件导出后被改过）时退出码为 3。

    例：

        forumbot tally --config game.toml --day 2 --pages tid12-page1.html tid12-page2.html --json

        forumbot tally --evidence day2-evidence.json --json
    """
    # An exit status of 3 is DIFFERS below; SPEC §7 defines the --json object.
    if evidence_path is not None:
        if pages or more:
            raise click.UsageError("--evidence 和 --pages 不能同时使用：证据文件里已经有帖子")
        _tally_evidence(evidence_path, config_path, day, as_json)
        return
    for name, value in (("--config", config_path), ("--day", day)):
        if value is None:
            raise click.UsageError(f"缺少选项：{name}（不用 --evidence 时必须给出）")
    if not pages:
        raise click.UsageError("缺少选项：--pages（不用 --evidence 时必须给出）")
    try:
        outcome = offline_tally(config_path, day, [*pages, *more])  # type: ignore[arg-type]
        report = outcome.as_json(secrets=secrets)
    except (ConfigError, OfflineTallyError, NightsError) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    console = terminal()
    console.print(_votes_table(report))
    console.print(_summary(report))
    if report.get("secrets"):
        for line in secrets_lines(report["secrets"]):
            console.print(line)


# Exit status of a recount that does not reproduce what the file says the bot counted
# (1 stays "could not recount at all").
DIFFERS = 3


def _tally_evidence(path: str, config_path: str | None, day: int | None, as_json: bool) -> None:
    from forumbot.evidence import EvidenceError, load, verify

    try:
        evidence = load(path)
        if day is not None and day != evidence.day:
            raise click.ClickException(f"证据文件 {path} 是第{evidence.day}日的，不是第{day}日")
        check = verify(evidence)
    except EvidenceError as exc:
        raise click.ClickException(str(exc)) from None
    notes = _config_notes(config_path, evidence) if config_path else []
    if as_json:
        click.echo(json.dumps(check.recount, ensure_ascii=False, indent=2))
    else:
        console = terminal()
        console.print(_evidence_header(evidence))
        console.print(_votes_table(check.recount))
        console.print(_summary(check.recount))
        edited = _edited_table(evidence)
        if edited is not None:
            console.print(edited)
    for line in notes:
        click.echo(line, err=True)
    for line in _verdict(evidence, check):
        click.echo(line, err=as_json or not (check.equal and check.checksum_ok))
    if not check.equal and check.has_live or check.checksum_ok is not True:
        click.get_current_context().exit(DIFFERS)


def _evidence_header(evidence) -> str:
    data = evidence.data
    window = evidence.config.state.day(evidence.day)
    live = (f"实时计票第 {evidence.live_version} 版（保存于 {evidence.live_saved_at}）"
            if evidence.live is not None else "文件中没有实时计票")
    return (f"证据文件 {evidence.path}：第{evidence.day}日，{window.start:%m-%d %H:%M} 至 {window.deadline:%m-%d %H:%M}，"
            f"导出于 {str(data.get('exported_at', ''))[:19].replace('T', ' ')}；{live}；"
            f"帖子 {len(evidence.posts)} 个，事件 {len(evidence.events)} 条")


def _edited_table(evidence) -> Table | None:
    """The posts whose text changed while the bot watched, or that it first saw edited:
    what a dispute is usually about."""
    bot = evidence.config.state.bot
    rows = [p for p in evidence.posts if (p.versions > 1 or p.first.edited_at is not None)
            and p.latest.author != bot]  # the bot's running count is edited in place by design
    if not rows:
        return None
    table = Table(title="编辑过的帖子（计票以机器人首次所见的版本为准）")
    for label in ("楼层", "pid", "作者", "首次所见（计票所用）", "最新", "说明"):
        table.add_column(label)
    for p in rows:
        if p.versions > 1:
            note = f"看到 {p.versions} 个版本"
        else:
            note = "首次看到时已被编辑"
        if p.latest.edited_at is not None:
            note += f"；最后编辑 {p.latest.edited_at:%m-%d %H:%M}"
        table.add_row(str(p.latest.floor or ""), str(p.pid), p.latest.author or "",
                      _one_line(p.first.text), _one_line(p.latest.text) if p.versions > 1 else "（同左）", note)
    return table


def _one_line(text: str) -> str:
    return " / ".join(line.strip() for line in text.splitlines() if line.strip())


def _verdict(evidence, check) -> list[str]:
    lines = []
    if check.checksum_ok is None:
        lines.append("注意：证据文件没有校验和（checksum），无法确认导出后未被改动。")
    elif not check.checksum_ok:
        lines.append("注意：证据文件在导出后被改动过（校验和不符），复核结果不能作为机器人当时所见的证据。")
    if not check.has_live:
        lines.append("文件中没有实时计票，无法比对；以上是按文件复核的结果。")
    elif check.equal:
        lines.append(f"复核结果与实时计票（第 {evidence.live_version} 版）完全一致。")
    else:
        lines.append(f"复核结果与实时计票（第 {evidence.live_version} 版）不一致，共 {len(check.differences)} 处：")
        lines += [f"  {d.line()}" for d in check.differences]
    return lines


def _config_notes(config_path: str, evidence) -> list[str]:
    """A config given beside --evidence is only compared: the recount uses the file."""
    from forumbot.config.gamefile import load_config

    try:
        config = load_config(config_path)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    theirs, mine = evidence.config, config
    found = []
    if mine.rules.as_dict() != theirs.rules.as_dict():
        changed = sorted(k for k, v in mine.rules.as_dict().items() if theirs.rules.as_dict().get(k) != v)
        found.append(f"规则集不同（{'、'.join(changed)}）")
    if mine.state.players != theirs.state.players:
        found.append("玩家名单不同")
    try:
        if mine.state.day(evidence.day) != theirs.state.day(evidence.day):
            found.append(f"第{evidence.day}日的设置不同（时间、帖子或截止帖）")
    except ValueError:
        found.append(f"配置中没有第{evidence.day}日")
    if mine.state.events != theirs.state.events or mine.state.aliases != theirs.state.aliases \
            or mine.state.substitutes != theirs.state.substitutes:
        found.append("开局状态、别名、替补或 [[events]] 不同")
    if not found:
        return []
    return [f"注意：配置文件 {config_path} 与证据文件不同：{'；'.join(found)}。复核按证据文件进行。"]


commands = [tally]
