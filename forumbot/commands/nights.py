"""``forumbot deal`` (the identity file from the rule set's composition) and ``forumbot
resolve`` (a night offline, SPEC §10.6). Both print secrets: they are the director's own
commands, on the director's own terminal."""

from __future__ import annotations

import json

import click
from rich.table import Table

from forumbot.commands._console import terminal
from engine.night import SheetError
from forumbot.config.gamefile import ConfigError, GameConfig, SecretConfigError, load_config
from forumbot.game.dealing import (
    DealError, deal_sheet, identity_file_text, sealed, sealed_commitment, write_identity_file,
)
from forumbot.game.nights import NightsError, resolve_night

__all__ = ["commands", "deal", "resolve"]


def _load(path: str, *, undealt: bool = False) -> GameConfig:
    try:
        return load_config(path, undealt=undealt)
    except SecretConfigError as exc:
        # The director's own screen: the full list (it names identities).
        lines = [str(exc), *(f"  · {p}" for p in exc.detail)]
        raise click.ClickException("\n".join(lines)) from None
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


@click.command("deal")
@click.option("--config", "config_path", envvar="FORUMBOT_CONFIG", default="config.toml", show_default=True,
              type=click.Path(dir_okay=False), help="本局的配置文件（写有 [identities].file）。")
@click.option("--force", is_flag=True, help="身份文件已存在时重新发牌，覆盖它（已公布承诺的局不要这样做）。")
@click.option("--show", is_flag=True, help="打印身份文件（发牌后，或已有的）。只在你自己的终端上用。")
@click.option("--check", "check_only", is_flag=True, help="不发牌，只检查已有的身份文件，列出每一处问题。")
@click.option("--first", "firsts", multiple=True, metavar="玩家=身份",
              help="双身份：替玩家把他的一个身份排为第一身份（第1日开始前；可重复），例：--first 饺子=女巫。")
def deal(config_path: str, force: bool, show: bool, check_only: bool, firsts: tuple[str, ...]) -> None:
    """按规则集的身份配置随机发牌，写入 [identities].file（权限 600，只有你可读）。

    14人简易：狼人×4、预言家、女巫、长老、村民×7；双身份：14个身份两两一组，先发的为第一
    身份（玩家开局前可以调整顺序）；S10 按 [game].version 查身份分配表。已分出胜负的牌
    会重发。同时给出「封存」用的承诺（哈希值），游戏开始时发在进程帖里，结束时公布原文。

    例：forumbot deal --config game.toml
    """
    config = _load(config_path, undealt=True)
    if config.identities_file is None:
        if config.identities is not None:
            raise click.ClickException("身份写在 [identities.table] 里（只用于测试）：发牌要用 [identities].file")
        raise click.ClickException(f"{config.path}: [identities].file: 缺少：写上身份文件的路径再发牌"
                                   "（例：[identities] 下写 file = \"身份.toml\"）")
    path = config.identities_file
    mode = config.night_mode
    assert mode is not None
    if firsts:
        _order(config_path, firsts)
        return
    if check_only or (show and not force and path.exists()):
        config = _load(config_path)
        assert config.identities is not None
        if check_only:
            click.echo(f"身份文件 {path} 无误：{mode.title}，{len(config.identities.players)} 名玩家。")
        if show:
            click.echo(identity_file_text(mode, config.identities, config.salt), nl=False)
        return
    if path.exists():
        try:
            seal = sealed_commitment(config)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None
        if seal is not None:
            # The players may have the commitment already: a new sheet would never match it.
            raise click.ClickException(f"本局的身份已经封存（承诺 {seal[:16]}…）：重新发牌后，结束时公布的原文"
                                       "将对不上开局的承诺。不能重新发牌")
    try:
        sheet, salt = deal_sheet(config)
        write_identity_file(path, identity_file_text(mode, sheet, salt), force=force)
    except DealError as exc:
        raise click.ClickException(str(exc)) from None
    seal = sealed(mode, sheet, salt)
    click.echo(f"已发牌：{mode.title}，{len(sheet.players)} 名玩家，身份写入 {path}（权限 600，只有你可读）。")
    click.echo(f"承诺（哈希值）：{seal.commitment}")
    click.echo("机器人会把承诺起草为进程帖的一篇帖子（待你批准）；游戏结束时公布原文，任何人都能核对。")
    if show:
        click.echo(path.read_text(encoding="utf-8"), nl=False)


def _order(config_path: str, firsts: tuple[str, ...]) -> None:
    """双身份 through the director: each player's chosen first identity, written into the
    identity file before day 1 (the salt kept: the seal is of the pairs as dealt, and the
    end post finds the order that was sealed)."""
    import os

    from forumbot.game.runtime import CLOCK_ENV, clock_from_env
    from forumbot.game.clock import SystemClock
    from parsers.text import normalise_name

    config = _load(config_path)
    mode, sheet, path = config.night_mode, config.identities, config.identities_file
    assert mode is not None and sheet is not None and path is not None
    if mode.layers < 2:
        raise click.ClickException(f"{mode.title}每人只有一个身份，没有顺序可排（--first 只用于双身份）")
    clock = clock_from_env(os.environ.get(CLOCK_ENV), config.forum.tz) or SystemClock(config.forum.tz)
    first_day = min(config.days, key=lambda d: d.number, default=None)
    if first_day is not None and clock.now() >= first_day.start:
        raise click.ClickException(f"第{first_day.number}日已经开始（{first_day.start:%m-%d %H:%M}）：身份顺序已定，"
                                   "未排序的按发牌顺序")
    seats = {normalise_name(p): p for p in sheet.players}
    told = []
    for item in firsts:
        who, sep, word = item.partition("=")
        player = seats.get(normalise_name(who))
        if not sep or player is None:
            raise click.ClickException(f"--first {item}：应写成 玩家=身份，玩家是本局的玩家（例：--first 饺子=女巫）")
        try:
            sheet = sheet.ordered(player, mode.identity(word.strip()))
        except SheetError as exc:
            raise click.ClickException(f"--first {item}：{exc}") from None
        told.append(player)
    try:
        write_identity_file(path, identity_file_text(mode, sheet, config.salt), force=True)
    except DealError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"已记下 {'、'.join(told)} 的身份顺序（写入 {path}）。用 --show 查看。")


@click.command("resolve")
@click.option("--config", "config_path", envvar="FORUMBOT_CONFIG", default="config.toml", show_default=True,
              type=click.Path(dir_okay=False), help="本局的配置文件（身份、[[events]] 和 [[actions]]）。")
@click.option("--night", type=click.IntRange(min=0), required=True, help="要结算的一晚（第N日截止之后是第N晚）。")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON 对象（格式见规格说明第 10.6 节）。")
def resolve(config_path: str, night: int, as_json: bool) -> None:
    """按配置离线结算一晚：每个行动是否计入、谁死亡（按顺序）、标记、失去的技能、反馈和胜负。

    与机器人运行时的结算完全相同。输出含身份，只在你自己的终端上用。

    例：forumbot resolve --config game.toml --night 2 --json
    """
    config = _load(config_path)
    try:
        result = resolve_night(config, night)
    except NightsError as exc:
        raise click.ClickException(str(exc)) from None
    report = result.to_json()
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    _print_night(report)


def _print_night(report: dict) -> None:
    console = terminal()
    table = Table(title=f"第{report['night']}晚的行动")
    for label in ("时间", "行动者", "身份", "技能", "目标", "判定"):
        table.add_column(label)
    reasons = _reason_words()
    for a in report["actions"]:
        target = "、".join(a["target"]) if isinstance(a["target"], list) else (a["target"] or "")
        ruling = "计入" if a["counted"] else f"未计入：{reasons.get(a['reason'], a['reason'] or '')}"
        table.add_row((a["at"] or "")[5:16].replace("T", " "), a["actor"], a["identity"] or "", a["skill"], target,
                      ruling)
    if report["actions"]:
        console.print(table)
    else:
        console.print(f"第{report['night']}晚没有记录任何行动。")
    if report["deaths"]:
        for d in report["deaths"]:
            effect = "出局" if d["effect"] == "out" else "身份死亡"
            console.print(f"{d['order']}. {d['player']} {effect}（{d['identity']}，{d['cause']}）")
    else:
        console.print("今晚无人死亡。")
    if report["marks"]:
        console.print("标记（被有效指杀一次）：" + "、".join(report["marks"]))
    for s in report["skills_lost"]:
        console.print(f"失去技能：{s['player']}（{s['identity']}）")
    for line in report["announcements"]:
        console.print(f"须公示：{line}")
    for f in report["feedback"]:
        result = "、".join(f["result"]) if isinstance(f["result"], list) else f["result"]
        about = f"{f['about']} —— " if f.get("about") else ""
        console.print(f"反馈给 {f['to']}：{f['skill']}：{about}{result or '无人'}")
    for line in report["pending"]:
        console.print(f"等待：{line}")
    for line in report["warnings"]:
        console.print(f"⚠ {line}")
    win = report["win"]
    console.print(f"胜负：{win['faction']}获胜（{win['rule']}）" if win else "胜负：尚未分出")


def _reason_words() -> dict[str, str]:
    from engine.night import REASON_ZH

    return {k.value: v for k, v in REASON_ZH.items()}


commands = [deal, resolve]
