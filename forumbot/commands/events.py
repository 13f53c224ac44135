"""The director's commands that change the game: what happened, in game time (SPEC §9).

Every one shows what it will change — the rulings and result of each day it touches,
the drafts it makes stale, the published posts it makes wrong — and asks before doing
it (``--yes`` skips the question). Every one can be undone: ``forumbot undo EVENT_ID
--why …`` (``forumbot events`` lists the ids), or corrected: ``forumbot correct``.
Each is a thin layer over ``forumbot.game.gamelog``.
"""

from __future__ import annotations

import json
import re
from typing import Callable

import click

from forumbot.game import gamelog
from forumbot.commands._common import config_option, confirm, show_preview, friendly, runtime
from forumbot.game.gamelog import EventSpec
from forumbot.game.entry import correction_spec, parse_at
from forumbot.game.runtime import Runtime
from forumbot.wording import draft_state_zh

WHY_CHOICES = ["vote", "night", "card", "red", "lover", "hunter", "other"]

yes_option = click.option("--yes", "-y", "assume_yes", is_flag=True,
                          help="不再确认：列出它带来的变化后直接执行。")
at_option = click.option("--at", "at_text", default=None, metavar="时间",
                          help="生效的游戏时间，按论坛时区：2026-12-02T20:00、'12-02 20:00' 或 '20:00'"
                               "（只写时刻指最近一次的这个时刻）。默认：这类事件通常的生效时间。")


def _show(impact: gamelog.Impact) -> None:
    for line in impact.lines():
        click.echo(line)


def carry_out(rt: Runtime, preview: Callable[[], gamelog.Impact], apply: Callable[[], gamelog.Applied],
              assume_yes: bool) -> gamelog.Applied:
    """Show what the change does, ask, then do it (and say what was done)."""
    _show(preview())
    if not assume_yes and not confirm("确认执行？"):
        click.echo("未执行。")
        raise SystemExit(1)
    applied = apply()
    for line in applied.lines():
        click.echo(line)
    return applied


def _enter(config_path: str, spec_of: Callable[[Runtime], EventSpec], assume_yes: bool) -> gamelog.Applied:
    with runtime(config_path) as rt:
        now = rt.clock.now()
        spec = spec_of(rt)
        return carry_out(rt, lambda: gamelog.preview(rt, spec, now), lambda: gamelog.enter(rt, spec, now),
                         assume_yes)


def _names(value: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in re.split(r"[,，、\s]+", value or "") if n.strip())


@click.command("out")
@config_option
@click.argument("name", metavar="玩家名")
@click.option("--why", type=click.Choice(WHY_CHOICES), required=True,
              help="出局原因：vote 投票放逐、night 夜晚死亡、card 或 red 红牌罚下、lover 殉情、"
                   "hunter 猎人带走、other 其他。")
@click.option("--day", type=int, default=None, help="算在哪一日（夜晚死亡：这一夜之后的那一日）。")
@at_option
@click.option("--note", default="", help="你的备注，和事件一起保存。")
@yes_option
@friendly
def out(config_path: str, name: str, why: str, day: int | None, at_text: str | None, note: str,
        assume_yes: bool) -> None:
    """登记一名玩家在某个游戏时间出局。

    夜晚死亡在这一夜之后那一日开始时生效，投票放逐在当日截止时生效，白天出局（红牌、
    殉情、猎人带走）在 --at 的时间生效（默认现在），排在当天放逐之前。双身份局只失去
    一个身份时用 forumbot identity-lost。

    例：forumbot out 包子 --why hunter --at "12-02 20:00"
    """
    _enter(config_path, lambda rt: EventSpec("out", player=name, why=why, day=day, at=parse_at(rt, at_text),
                                             note=note), assume_yes)


@click.command("identity-lost")
@config_option
@click.argument("name", metavar="玩家名")
@click.option("--why", type=click.Choice(WHY_CHOICES), required=True,
              help="失去身份的原因（写法同 forumbot out 的 --why）。")
@click.option("--day", type=int, default=None, help="算在哪一日（夜晚：这一夜之后的那一日）。")
@at_option
@yes_option
@friendly
def identity_lost(config_path: str, name: str, why: str, day: int | None, at_text: str | None,
                  assume_yes: bool) -> None:
    """双身份：一名玩家失去一个身份（身份死亡）；失去第二个身份即出局。

    例：forumbot identity-lost 饺子 --why night --day 3
    """
    _enter(config_path, lambda rt: EventSpec("identity_lost", player=name, why=why, day=day,
                                             at=parse_at(rt, at_text)), assume_yes)


@click.command("night")
@config_option
@click.option("--day", type=int, default=None, help="公布这一夜结果的那一日。")
@click.option("--out", "out_", default="", help="这一夜出局的玩家（双身份：身份死亡的角色，已失去过一层身份的即出局），"
                                                 "按顺序用逗号分开：甲,乙（不写：平安夜）。")
@click.option("--confirm", "confirm_night", type=click.IntRange(min=0), default=None, metavar="N",
              help="有身份表的局：确认机器人对第N晚（第N日截止之后）的结算建议，按建议录入第N+1日的夜晚结果。")
@click.option("--version", "version", type=int, default=None,
              help="与 --confirm 一起用：你看过的建议版本（建议已更新时不确认）。")
@click.option("--extend", "extend_night", type=click.IntRange(min=0), default=None, metavar="N",
              help="有身份表的局：延长第N晚的一个阶段（与 --phase 和 --minutes 或 --until 一起用）。")
@click.option("--phase", default=None, metavar="阶段", help="与 --extend 一起用：哪个阶段（女巫、狼人、守卫……）。")
@click.option("--minutes", type=click.IntRange(min=1), default=None, help="与 --extend 一起用：延长多少分钟。")
@click.option("--until", "until_text", default=None, metavar="时间",
              help="与 --extend 一起用：延长到什么时候，按论坛时区：08:30 或 '12-03 08:30'。")
@click.option("--why", default="", help="与 --extend 一起用：为什么延长（记在日志里）。")
@click.option("--json", "as_json", is_flag=True, help="与 --extend 一起用：只预览，输出 JSON（不改任何东西）。")
@at_option
@yes_option
@friendly
def night(config_path: str, day: int | None, out_: str, confirm_night: int | None, version: int | None,
          extend_night: int | None, phase: str | None, minutes: int | None, until_text: str | None, why: str,
          as_json: bool, at_text: str | None, assume_yes: bool) -> None:
    """录入一夜的结果（双身份：谁失去了一个身份），确认机器人的结算建议，或延长一晚的一个阶段。

    无论录入得多晚，结果都在 --day 那一日开始时生效。同时起草当日早上的公示，等你批准。
    有身份表的局，机器人收集夜晚行动并结算：用 --confirm N 确认第N晚的建议（forumbot status
    --secrets 可看建议的全文）；直接用 --day/--out 录入则以你录入的为准。--extend N 延长第N晚
    的一个阶段（之后依次进行的阶段随之顺延），先列出变化，确认后记下。

    \b
    例：forumbot night --day 3 --out 汤圆,饺子
    例：forumbot night --confirm 2
    例：forumbot night --extend 2 --phase 女巫 --minutes 30
    """
    if extend_night is not None:
        _extend_night(config_path, extend_night, phase, minutes, until_text, why, as_json, assume_yes)
        return
    if confirm_night is not None:
        _confirm_night(config_path, confirm_night, version, assume_yes)
        return
    with runtime(config_path) as rt:  # the config first: a broken one is said before a missing option
        if day is None:
            raise click.UsageError("要写 --day（公布这一夜结果的那一日），或用 --confirm N 确认机器人的结算建议")
        now = rt.clock.now()
        spec = EventSpec("night", day=day, players=_names(out_), at=parse_at(rt, at_text))
        carry_out(rt, lambda: gamelog.preview(rt, spec, now), lambda: gamelog.enter(rt, spec, now), assume_yes)
        from forumbot.game.director import announcement_draft

        draft = announcement_draft(rt, day, now)
        if draft is not None:
            click.echo(f"第{day}日公示草稿 #{draft.id}（{draft_state_zh(draft.state)}）：forumbot show {draft.id}")
        else:
            _words_wait(rt, day, now)


def _extend_night(config_path: str, night_number: int, phase: str | None, minutes: int | None,
                  until_text: str | None, why: str, as_json: bool, assume_yes: bool) -> None:
    """The deadline command's shape: preview (``--json``: only that), ask, keep."""
    from forumbot.game import nightplan

    with runtime(config_path) as rt:
        if not phase:
            raise gamelog.DirectorError("要写 --phase：延长哪个阶段（例：--phase 女巫）")
        now = rt.clock.now()
        request = nightplan.ExtendRequest(night_number, phase, span=f"{minutes}分钟" if minutes else None,
                                          until=until_text, why=why)
        shown = nightplan.preview_extension(rt, request, now)
        if show_preview(shown, as_json):
            return
        if not assume_yes and not confirm("确认执行？"):
            click.echo("未执行。")
            raise SystemExit(1)
        nightplan.extend_phase(rt, request, now)
        click.echo(f"已记下：{shown.describe_zh()}。机器人下一轮按新的时间裁定行动和结算。")


def _confirm_night(config_path: str, night_number: int, version: int | None, assume_yes: bool) -> None:
    from forumbot.game import nightrun
    from forumbot.game.director import announcement_draft

    with runtime(config_path) as rt:
        now = rt.clock.now()
        proposal, _, _ = nightrun.propose(rt, night_number, now)
        if proposal is None:
            raise gamelog.DirectorError(f"第{night_number}晚还没有结算建议（夜晚还没结束，或还在等行动）")
        # The proposal names identities: the director's own terminal shows it before asking.
        for line in nightrun.proposal_lines(proposal.data, night=night_number, state=proposal.state,
                                            version=proposal.version):
            click.echo(line)
        if not assume_yes and not confirm("确认按这个建议录入？"):
            click.echo("未执行。")
            raise SystemExit(1)
        done = nightrun.confirm(rt, night_number, now, actor=gamelog.DIRECTOR,
                                version=version if version is not None else proposal.version)
        out = "、".join(done.data.get("out") or ()) or "无人（平安夜）"
        click.echo(f"已确认第{night_number}晚（第{done.version}版）：{out}，第{night_number + 1}日开始时生效")
        draft = announcement_draft(rt, night_number + 1, now)
        if draft is not None:
            click.echo(f"第{night_number + 1}日公示草稿 #{draft.id}（{draft_state_zh(draft.state)}）：forumbot show {draft.id}")
        else:
            _words_wait(rt, night_number + 1, now)


@click.command("action")
@config_option
@click.argument("words", nargs=-1, required=True, metavar="玩家 技能 [目标…]")
@click.option("--night", "night_number", type=click.IntRange(min=0), default=None,
              help="算在第几晚（默认：--at 的时间所在的那一晚）。")
@at_option
@friendly
def action(config_path: str, words: tuple[str, ...], night_number: int | None, at_text: str | None) -> None:
    """有身份表的局：替玩家录入一个夜晚行动（玩家没法发站内信时）。

    和玩家发给机器人的站内信一样裁定（计入，或不计入并写明原因）。--at 是行动发出的游戏时间
    （默认现在）。

    \b
    例：forumbot action 饺子 杀人 包子
    例：forumbot action 烧卖 毒药 月饼 --at "12-02 23:10"
    """
    from forumbot.game import nightrun

    with runtime(config_path) as rt:
        now = rt.clock.now()
        filed = nightrun.director_action(rt, " ".join(words), now, at=parse_at(rt, at_text), night=night_number,
                                         actor=gamelog.DIRECTOR)
        mode = nightrun.mode_of(rt)
        assert mode is not None
        click.echo(f"已录入第{filed.record.night}晚 {filed.record.actor} 的行动（#{filed.record.id}）：{filed.answer(mode)}")


@click.command("sheriff")
@config_option
@click.argument("name", required=False, metavar="[玩家名]")
@click.option("--none", "nobody", is_flag=True, help="从现在起没有警长。")
@at_option
@yes_option
@friendly
def sheriff(config_path: str, name: str | None, nobody: bool, at_text: str | None, assume_yes: bool) -> None:
    """登记警长（或【殉职】后的继任警长）。

    继任者须是存活玩家（S10 不能是已翻牌的白痴，双身份不能是离场的警长本人）。
    继任从警徽空出的时刻起生效，除非用 --at 另给时间。

    例：forumbot sheriff 饺子
    """
    if not name and not nobody:
        raise click.UsageError("请给出玩家名，或用 --none 表示没有警长")
    _enter(config_path, lambda rt: EventSpec("sheriff", player=None if nobody else name, at=parse_at(rt, at_text)),
           assume_yes)


@click.command("draw-sheriff")
@config_option
@click.option("--seed", type=int, default=None, help="随机种子（默认：新取一个，记录在案）。")
@click.option("--force", is_flag=True, help="规则集（此时）不该抽取时也照样抽取。")
@yes_option
@friendly
def draw_sheriff(config_path: str, seed: int | None, force: bool, assume_yes: bool) -> None:
    """为空出的警徽随机抽取继任警长，随机种子记录在案。

    14人简易：警长被罚下，或被放逐的警长在截止后 30 分钟内没有指定继任者时抽取。
    抽取前先列出候选人并请你确认。

    例：forumbot draw-sheriff
    """
    with runtime(config_path) as rt:
        now = rt.clock.now()
        status = gamelog.badge(rt, now)
        click.echo(status.describe(now))
        click.echo("候选：" + ("、".join(status.candidates) or "无"))
        if not assume_yes and not confirm("随机抽取继任警长？"):
            click.echo("未执行。")
            raise SystemExit(1)
        applied = gamelog.draw_sheriff(rt, now, seed=seed, force=force)
        for line in applied.lines():
            click.echo(line)


@click.command("scapegoat")
@config_option
@click.argument("name", required=False, metavar="[玩家名]")
@click.option("--none", "nobody", is_flag=True, help="现在没有人的第一身份是替罪羊。")
@at_option
@yes_option
@friendly
def scapegoat(config_path: str, name: str | None, nobody: bool, at_text: str | None, assume_yes: bool) -> None:
    """双身份：登记谁的第一身份是替罪羊（平票时由它代替出局）。

    例：forumbot scapegoat 烧卖
    """
    if not name and not nobody:
        raise click.UsageError("请给出玩家名，或用 --none 表示没有替罪羊")
    _enter(config_path, lambda rt: EventSpec("scapegoat", player=None if nobody else name, at=parse_at(rt, at_text)),
           assume_yes)


@click.command("voters")
@config_option
@click.option("--day", type=int, required=True, help="替罪羊指定的是哪一日的投票。")
@click.argument("names", required=False, default="", metavar="[玩家名单]")
@click.option("--none", "nobody", is_flag=True, help="那一日谁都不能投票（也就无人出局）。")
@yes_option
@friendly
def voters(config_path: str, day: int, names: str, nobody: bool, assume_yes: bool) -> None:
    """双身份【冤死】：登记替罪羊指定的、在 --day 那一日可以投票的玩家。

    名单用逗号分开；--none 表示谁都不能投（那一日无人出局）。那一日其他人的票都是废票。

    例：forumbot voters --day 3 饺子,包子,汤圆
    """
    if not names and not nobody:
        raise click.UsageError("请给出玩家名单（甲,乙,…），或用 --none 表示谁都不能投票")
    _enter(config_path, lambda rt: EventSpec("voters", day=day, players=() if nobody else _names(names)),
           assume_yes)


@click.command("idiot")
@config_option
@click.argument("name", metavar="玩家名")
@at_option
@yes_option
@friendly
def idiot(config_path: str, name: str, at_text: str | None, assume_yes: bool) -> None:
    """S10：白痴发动【若愚】——被放逐时翻牌留在场上。

    从那一刻起他的票计 0 票；他仍可以被投，但不能当继任警长。默认时间：放逐他的那次
    投票的截止时间。

    例：forumbot idiot 烧卖
    """
    _enter(config_path, lambda rt: EventSpec("idiot", player=name, at=parse_at(rt, at_text)), assume_yes)


@click.command("accelerate")
@config_option
@click.option("--day", type=int, required=True, help="加速的那一日。")
@yes_option
@friendly
def accelerate(config_path: str, day: int, assume_yes: bool) -> None:
    """确认某一日加速（规则集这样规定时，那一日的改票全部作废）。

    同时起草一篇加速通知，等你批准。forumbot status 会列出申请加速的玩家和是否够数。

    例：forumbot accelerate --day 2
    """
    _enter(config_path, lambda rt: EventSpec("accelerated", day=day), assume_yes)


@click.command("substitute")
@config_option
@click.argument("old", metavar="原玩家")
@click.argument("new", metavar="替补账号")
@yes_option
@friendly
def substitute(config_path: str, old: str, new: str, assume_yes: bool) -> None:
    """登记替补：一个替补账号接替某名玩家的位置（它的票和发帖都算这名玩家的）。

    例：forumbot substitute 包子 替补甲
    """
    _enter(config_path, lambda rt: EventSpec("substitute", player=old, name=new), assume_yes)


@click.command("alias")
@config_option
@click.argument("name", metavar="玩家名")
@click.argument("alias", metavar="别名")
@yes_option
@friendly
def alias(config_path: str, name: str, alias: str, assume_yes: bool) -> None:
    """登记别名：投票里写的「别名」算作投给这名玩家（别的玩家的名字不能当别名）。

    例：forumbot alias 饺子 饺饺
    """
    _enter(config_path, lambda rt: EventSpec("alias", player=name, name=alias), assume_yes)


@click.command("void")
@config_option
@click.argument("pid", type=int, metavar="pid")
@click.option("--why", required=True, help="判废的理由，和这张废票一起显示。")
@yes_option
@friendly
def void(config_path: str, pid: int, why: str, assume_yes: bool) -> None:
    """把一个帖子判为废票（按帖子的 pid，即帖子链接里 pid= 后面的数字）。

    例：forumbot void 345 --why "串号，导演判废"
    """
    _enter(config_path, lambda rt: EventSpec("void", pid=pid, note=why), assume_yes)


@click.command("undo")
@config_option
@click.argument("event_id", type=int, metavar="事件编号")
@click.option("--why", required=True, help="撤销的理由（记入审计日志）。")
@yes_option
@friendly
def undo(config_path: str, event_id: int, why: str, assume_yes: bool) -> None:
    """撤销一条事件。

    事件编号见 forumbot events。撤销「撤销」会让原事件恢复。什么都不会删除：历史里两条都保留。

    例：forumbot undo 12 --why "手误，出局的是包子"
    """
    with runtime(config_path) as rt:
        now = rt.clock.now()
        carry_out(rt, lambda: gamelog.preview_retract(rt, event_id, now),
                  lambda: gamelog.retract(rt, event_id, why, now), assume_yes)


@click.command("correct")
@config_option
@click.argument("event_id", type=int, metavar="事件编号")
@click.option("--player", default=None, help="正确的玩家。")
@click.option("--players", default=None, help="正确的名单（一夜的出局者、【冤死】的投票人）：甲,乙。")
@at_option
@click.option("--cause", type=click.Choice(WHY_CHOICES), default=None, help="正确的出局原因。")
@click.option("--day", type=int, default=None, help="正确的日。")
@click.option("--because", required=True, help="更正的理由（记入审计日志）。")
@yes_option
@friendly
def correct(config_path: str, event_id: int, player: str | None, players: str | None, at_text: str | None,
            cause: str | None, day: int | None, because: str, assume_yes: bool) -> None:
    """更正一条事件：录错的玩家、时间、原因或日。

    事件编号见 forumbot events。没有给出的部分保持原样。

    例：forumbot correct 12 --player 包子 --because "录错了人"
    """
    with runtime(config_path) as rt:
        now = rt.clock.now()
        spec = correction_spec(rt, event_id, player=player, at=parse_at(rt, at_text), why=cause, day=day,
                               players=None if players is None else _names(players))
        carry_out(rt, lambda: gamelog.preview_correct(rt, event_id, spec, now),
                  lambda: gamelog.correct(rt, event_id, spec, because, now), assume_yes)


@click.command("events")
@config_option
@click.option("--json", "as_json", is_flag=True, help="输出 JSON（给脚本读）。")
@friendly
def events(config_path: str, as_json: bool) -> None:
    """列出本局的事件：游戏时间、内容、谁在何时录入、是否已撤销。

    例：forumbot events
    """
    with runtime(config_path) as rt:
        views = gamelog.list_events(rt)
        if as_json:
            click.echo(json.dumps([{
                "id": v.id, "kind": v.kind, "day": v.day,
                "game_at": v.game_at.isoformat() if v.game_at else None,
                "entered_at": v.entered_at.isoformat(), "actor": v.actor, "summary": v.summary,
                "live": v.live, "taken_by": v.taken_by, "corrects": v.corrects, "payload": v.payload,
            } for v in views], ensure_ascii=False, indent=2))
            return
        if not views:
            click.echo("还没有事件。")
        actors = {"director": "导演", "bot": "机器人"}
        for v in views:
            when = f"{v.game_at:%m-%d %H:%M}" if v.game_at else "全局"
            state = "" if v.live else f"  [已撤销{f'，见 #{v.taken_by}' if v.taken_by else ''}]"
            click.echo(f"#{v.id:<4} 第{v.day}日 {when}  {v.summary}  "
                       f"（{actors.get(v.actor, v.actor)} 于 {v.entered_at:%m-%d %H:%M} 录入）{state}")


@click.command("redraft")
@config_option
@click.option("--day", type=int, required=True, help="要重新起草最终计票的那一日。")
@friendly
def redraft(config_path: str, day: int) -> None:
    """重新起草一日的最终计票（更正事件使已发布的那篇不再正确时）。

    新帖标明「更正」，等你批准；已发布的那篇不会被改动。

    例：forumbot redraft --day 2
    """
    with runtime(config_path) as rt:
        draft = gamelog.redraft_final(rt, day, rt.clock.now())
        click.echo(f"已起草第{day}日{'更正' if '更正' in draft.body else ''}最终计票 #{draft.id}："
                   f"forumbot show {draft.id}")


commands = [out, identity_lost, night, action, sheriff, draw_sheriff, scapegoat, voters, idiot, accelerate, substitute,
            alias, void, undo, correct, events, redraft]


def _words_wait(rt, day: int, now) -> None:
    """Why no announcement was drafted: it waits for 遗言 (said in Chinese, if so)."""
    from forumbot.game.lastwords import wait_note
    from forumbot.game.state import current_state

    note = wait_note(rt, current_state(rt.config, rt.store), day, now)
    if note:
        click.echo(note)
