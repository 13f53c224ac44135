"""The director's commands: look at the game, decide, approve what the bot posts.

Each is a thin layer over ``forumbot.game.director``; every change is written to the store's
audit log with the director as the actor. None of them talks to the forum: the running
agent publishes what is approved.
"""

from __future__ import annotations

import contextlib
import json

import click
from rich.table import Table

from forumbot.commands._common import config_option, confirm, friendly, runtime
from forumbot.game.runtime import open_runtime
from forumbot.commands._console import line as styled, terminal
from forumbot.game import director as lib
from forumbot.game.alarms import forum_words
from forumbot.game.nights import game_actions, secrets_lines, secrets_view
from forumbot.game.state import current_state
from forumbot.store.marker import strip_marker
from forumbot.game.views import format_time
from forumbot.wording import CARD_ZH, DRAFT_KIND_ZH, DRAFT_STATE_ZH, FLAG_ZH, PROPOSAL_ZH, card_said  # noqa: F401

console = terminal()  # every string as written: player text is never markup


def _now(rt):
    return rt.clock.now()


KIND_ZH, STATE_ZH = DRAFT_KIND_ZH, DRAFT_STATE_ZH


def _counts(tally: dict) -> str:
    return "，".join(f"{k} {v}票" for k, v in tally["counts"].items()) or "无有效票"


def _draft_line(d) -> str:
    day = f"第{d.day}日" if d.day else "—"
    return (f"#{d.id} {KIND_ZH.get(d.kind.value, d.kind.value)}（帖子 {d.tid}，{day}）"
            f"[{STATE_ZH.get(d.state.value, d.state.value)}]")


@click.command("status")
@config_option
@click.option("--json", "as_json", is_flag=True, help="输出 JSON（给脚本读）。")
@click.option("--all", "every", is_flag=True,
              help="forumbot serve 的每一局各一行（有一局需要人处理时退出码为 3）。")
@click.option("--games", "games_dir", type=click.Path(file_okay=False), default=None,
              help="与 --all 一起用：各局配置所在的文件夹（默认取 FORUMBOT_SERVICE 的设置，或 FORUMBOT_GAMES）。")
@click.option("--secrets", is_flag=True,
              help="有身份表时，同时列出每名玩家的身份、夜晚行动、结算建议的全文和胜负（保密：只在你自己的终端上用）。")
@friendly
def status(config_path: str, as_json: bool, every: bool, games_dir: str | None, secrets: bool = False) -> None:
    """现在的局面：第几日、剩余时间、计票、提示、警徽，以及等你处理的事。

    先列出警报和机器人自己处理不了的事，再列出计票、待审批的草稿、发送失败的帖子、
    判罚提议和已给的判罚，每条后面写着处理它的命令。服务（forumbot serve）里的一局用
    --game 局名 指定；--all 列出服务里的每一局。

    例：forumbot status --config game.toml
    """
    from forumbot.agent.instance import lock_path, probe, status_lines

    if every:
        from forumbot.service.summary import status_all

        raise SystemExit(status_all(games_dir, as_json=as_json))
    from forumbot.store.base import StoreOpenError

    try:
        rt = open_runtime(config_path, create=False)
    except StoreOpenError:
        # The state cannot be read (an emptied file…): what the agent says about it —
        # whether it runs, and that it stopped acting — comes from its lock file.
        if not as_json:
            from forumbot.config.gamefile import load_config
            from forumbot.config.settings import load_settings

            for line in status_lines(load_settings(load_config(config_path)).agent.database):
                click.echo(line)
        raise
    with contextlib.closing(rt):
        s = lib.status(rt, _now(rt))
        window = rt.config.rules.change_window_minutes
        if as_json:
            holder = probe(lock_path(rt.settings.agent.database))
            click.echo(json.dumps({
                "agent": None if holder is None else {
                    "running": holder.running, "pid": holder.pid, "host": holder.host, "since": holder.since,
                    "last_pass": holder.beat, "problems": list(holder.problems.values()), "desk": holder.desk},
                "now": s.now.isoformat(), "day": s.day.number if s.day else None,
                "deadline": s.day.deadline.isoformat() if s.day else None, "time_left": s.time_left,
                "voting_over": s.voting_over, "game_over": s.over,
                "sheriff": s.sheriff, "out": [{"player": p, "why": w} for p, w in s.out],
                "badge_vacant": bool(s.badge and s.badge.vacancy),
                "successor_candidates": list(s.badge.candidates) if s.badge and s.badge.vacancy else [],
                "lives": {p: n for p, n in s.lives},
                "tally": s.tally, "drafts_waiting": [d.id for d in s.drafts_waiting],
                "failed": [d.id for d in s.failed], "proposals": [p.id for p in s.proposals],
                "cards": [{"id": c.id, "player": c.player, "card": c.color.value, "points": c.points,
                           "day": c.day, "reason": c.reason, "at": c.at.isoformat()} for c in rt.store.cards()],
                "waiting_for": list(s.waiting_for), "stale_published": list(s.stale_published),
                "ignored_events": list(s.ignored),
                "sealed_deal": _sealed(rt),
                "acceleration": None if s.acceleration is None else {
                    "requests": [{"player": p, "pid": pid, "floor": f} for p, pid, f in s.acceleration.requests],
                    "needed": s.acceleration.needed, "enough": s.acceleration.enough,
                    "quorum": s.acceleration.quorum.value},
                **_alarms_json(rt, s),
                **_nights_json(rt, s.now, secrets),
                **({"secrets": _secrets(rt)} if secrets else {}),
            }, ensure_ascii=False, indent=2))
            return
        for line in status_lines(rt.settings.agent.database):  # the agent, and what it cannot do
            click.echo(line)
        _print_alarms(rt, s)
        if s.over:
            console.print(styled((s.over, "bold")))
        if s.day is None:
            console.print("还没有任何一天开始。")
        else:
            left = f"（剩余 {s.time_left}）" if s.time_left else "（投票已截止）"
            console.print(styled((f"第{s.day.number}日", "bold"), f"  截止 {format_time(s.day.deadline)}{left}"
                                 f"{'  已加速' if s.day.accelerated else ''}"))
        badge = s.badge.describe(s.now) if s.badge else f"警长：{s.sheriff or '无'}"
        console.print(f"{badge}   出局：" + ("、".join(f"{p}（{w}）" for p, w in s.out) or "无"))
        seal = _sealed(rt)
        if seal is not None:
            console.print(f"身份已封存：承诺 {seal['commitment'][:16]}…（{seal['post']}）")
        if s.lives:
            console.print("只剩一层身份：" + "、".join(p for p, _ in s.lives))
        if s.tally:
            table = Table(title="计票")
            table.add_column("对象")
            table.add_column("票数", justify="right")
            for name, n in s.tally["counts"].items():
                table.add_row(name, str(n))
            table.add_row("弃权", str(s.tally["abstain"]))
            console.print(table)
            console.print("未投票：" + ("、".join(s.tally["non_voters"]) or "无"))
            void = [v for v in s.tally["votes"] if not v["valid"] and v["reason"] != "voter_not_player"]
            for v in void:
                console.print(f"  废票 {v['floor']}楼 {v['voter']}：{lib.describe_vote(v, window)}")
            for v in s.tally["votes"]:
                if v.get("final") and v.get("counted") is False:
                    console.print(f"  不计入 {v['floor']}楼 {v['voter']}：{lib.describe_vote(v, window)}")
            for f in s.tally["flags"]:
                console.print(f"  提示[{FLAG_ZH.get(f['kind'], f['kind'])}] {f['floor']}楼 {f['player']}：{f['detail']}")
        if s.acceleration is not None and s.acceleration.requests:
            a = s.acceleration
            console.print(styled(a.describe(), (f" —— 可确认：forumbot accelerate --day {a.day}", "bold")
                                 if a.enough else ""))
        for line in s.waiting_for:
            console.print(styled(("等待导演", "bold"), "：", line))
        for line in s.stale_published:
            console.print(styled(("已发布的帖子已过时", "red"), "：", line))
        for line in s.ignored:
            console.print(styled(("未生效的事件", "yellow"), "：", line))
        for d in s.drafts_waiting:
            console.print(f"待审批：{_draft_line(d)} —— forumbot show {d.id}")
        for d in s.failed:
            console.print(styled(("发送失败", "red"), f"：{_draft_line(d)}：{forum_words(d.last_error)}"
                                 f" —— forumbot retry {d.id}"))
        for p in s.proposals:
            console.print(f"判罚提议 #{p.id}：{p.player} {CARD_ZH.get(p.color.value, p.color.value)}"
                          f"（{PROPOSAL_ZH.get(p.reason_code, p.reason_code)}）{p.detail}")
        for c in rt.store.cards():  # given, with the number `forumbot card-undo` takes
            console.print(f"已给判罚 #{c.id}：{c.player} {card_said(c.color, c.points)}"
                          f"（{format_time(c.at)}，{c.reason}）")
        for line in _night_lines(rt, s.now, secrets):
            console.print(line, markup=False)
        if secrets:
            view = _secrets(rt)
            for text in secrets_lines(view) if view else ["本局没有身份表（[identities]）。"]:
                console.print(text)


def _night_lines(rt, now, secrets: bool) -> list[str]:
    from forumbot.game import nightrun

    return nightrun.night_lines(rt, now, secrets=secrets)


def _nights_json(rt, now, secrets: bool) -> dict:
    from forumbot.game import nightrun

    if not nightrun.active(rt):
        return {}
    return {"nights": nightrun.nights_json(rt, now, secrets=secrets)}


def _sealed(rt) -> dict | None:
    """The sealed deal as anyone may know it: the commitment and where its post stands
    (no identity, no salt)."""
    from forumbot.game.sealing import SEAL_KEY, stored_seal

    record = stored_seal(rt)
    if record is None:
        return None
    draft = rt.outbox.by_dedupe_key(SEAL_KEY)
    post = "封存帖尚未起草" if draft is None else f"封存帖 #{draft.id} {STATE_ZH.get(draft.state.value, draft.state.value)}"
    return {"commitment": record.commitment, "draft": draft.id if draft else None,
            "state": draft.state.value if draft else None, "post": post}


def _secrets(rt) -> dict | None:
    """The identities, the nights' actions and the win: only with --secrets (SPEC §10.1)."""
    return secrets_view(rt.config, current_state(rt.config, rt.store), game_actions(rt))


def _alarms_json(rt, s) -> dict:
    from forumbot.game.attention import attention, minute_precision_note

    return {
        "alarms": [{"kind": a.kind, "key": a.key, "text": a.text, "raised_at": a.raised_at.isoformat(),
                    "detail": a.detail} for a in s.alarms],
        "recovered": list(s.recovered),
        "attention": [{"key": a.key, "kind": a.kind.value, "summary": a.summary, "since": a.since.isoformat(),
                       "detail": a.detail, "command": a.command} for a in attention(rt, s.now)],
        "minute_precision": minute_precision_note(rt, s.now),
    }


def _print_alarms(rt, s) -> None:
    """The alarms first: what the bot cannot fix itself, and who must do what."""
    from forumbot.game.alarms import short_time
    from forumbot.game.attention import minute_precision_note

    for a in s.alarms:
        console.print(styled(("⚠ 警报", "bold red"), f"（自 {short_time(a.raised_at)} 起）：{a.text}"))
    for line in s.recovered:
        console.print(styled((f"✓ {line}", "green")))
    note = minute_precision_note(rt, s.now)
    if note:
        console.print(styled(("注意", "yellow"), f"：{note}"))


@click.command("drafts")
@config_option
@click.option("--all", "show_all", is_flag=True, help="列出全部草稿，不只是待审批的。")
@friendly
def drafts(config_path: str, show_all: bool) -> None:
    """列出待审批的草稿（加 --all 列出全部）。

    发送失败的帖子、在论坛上等版主审核的帖子也一并列出。

    例：forumbot drafts --all
    """
    from forumbot.store.outbox import DraftState

    with runtime(config_path) as rt:
        for a in rt.store.alarms():  # a refusal behind the drafts below is said first
            click.echo(f"⚠ 警报：{a.text}")
        items = rt.outbox.drafts() if show_all else lib.waiting(rt)
        if not items:
            click.echo("没有待审批的草稿。" if not show_all else "没有草稿。")
        for d in items:
            extra = f" pid {d.pid}" if d.pid else ""
            if d.state is DraftState.FAILED:
                extra += f"：{forum_words(d.last_error)} —— forumbot retry {d.id}"
            click.echo(_draft_line(d) + extra)
        if not show_all:  # what else is stuck: refused by the forum, or held by a moderator
            for d in rt.outbox.drafts(DraftState.FAILED, DraftState.PENDING_MODERATION):
                extra = (f"：{forum_words(d.last_error)} —— forumbot retry {d.id}"
                         if d.state is DraftState.FAILED else (f" pid {d.pid}" if d.pid else ""))
                click.echo(_draft_line(d) + extra)


@click.command("show")
@config_option
@click.argument("draft_id", type=int, metavar="草稿编号")
@friendly
def show(config_path: str, draft_id: int) -> None:
    """显示一篇草稿的全文（BBCode），以及它和上一篇已发布的同类帖子的差异。

    草稿编号见 forumbot drafts 或 forumbot status。

    例：forumbot show 7
    """
    with runtime(config_path) as rt:
        d = rt.outbox.get(draft_id)
        click.echo(_draft_line(d))
        click.echo(d.body)
        diff = rt.outbox.diff_against_last_published(draft_id)
        if diff:
            click.echo("--- 与上一篇已发布的同类帖子的差异 ---")
            click.echo(diff)


@click.command("approve")
@config_option
@click.argument("draft_id", type=int, metavar="草稿编号")
@friendly
def approve(config_path: str, draft_id: int) -> None:
    """批准一篇草稿：运行中的机器人会把它发出去（只发一次）。

    草稿编号见 forumbot drafts 或 forumbot status；发出之前可以先用 forumbot show
    看全文。

    例：forumbot approve 7
    """
    with runtime(config_path) as rt:
        d = lib.approve(rt, draft_id, _now(rt), actor=lib.DIRECTOR_CLI)
        click.echo(f"已批准 {_draft_line(d)}：运行中的机器人会发出它（只发一次）")


@click.command("edit")
@config_option
@click.argument("draft_id", type=int, metavar="草稿编号")
@friendly
def edit(config_path: str, draft_id: int) -> None:
    """在编辑器里修改一篇草稿，保存后按修改稿批准。

    用环境变量 $EDITOR 指定的编辑器打开；不保存或清空内容则不批准。

    例：EDITOR=nano forumbot edit 7
    """
    with runtime(config_path) as rt:
        d = rt.outbox.get(draft_id)
        text = click.edit(strip_marker(d.body), extension=".bbcode.txt", require_save=True)
        if text is None or not text.strip():
            raise click.ClickException("没有修改：未批准")
        d = lib.approve(rt, draft_id, _now(rt), body=text, actor=lib.DIRECTOR_CLI)
        click.echo(f"已按修改稿批准 {_draft_line(d)}")


@click.command("reject")
@config_option
@click.argument("draft_id", type=int, metavar="草稿编号")
@click.option("--why", required=True, help="驳回的理由（记入审计日志）。")
@friendly
def reject(config_path: str, draft_id: int, why: str) -> None:
    """驳回一篇草稿：它不会发出。

    例：forumbot reject 7 --why "重复"
    """
    with runtime(config_path) as rt:
        d = lib.reject(rt, draft_id, why, _now(rt), actor=lib.DIRECTOR_CLI)
        click.echo(f"已驳回 {_draft_line(d)}：不会发出")


@click.command("card")
@config_option
@click.argument("name", metavar="玩家名")
@click.argument("color", type=click.Choice(["blue", "yellow", "red"]), metavar="[颜色]", required=False)
@click.option("--why", required=True, help="判罚理由，会原样写进判罚通知。")
@click.option("--points", type=click.IntRange(min=1), default=None,
              help="扣的分数：双身份规则按扣分判罚（累计扣满12分罚下），这时不写颜色。")
@click.option("--proposal", "proposal_id", type=int, default=None,
              help="采纳这条判罚提议（提议编号见 forumbot status）。")
@click.option("--yes", "-y", "assume_yes", is_flag=True, help="给红牌前不再确认。")
@friendly
def card(config_path: str, name: str, color: str | None, why: str, points: int | None, proposal_id: int | None,
         assume_yes: bool) -> None:
    """给一名玩家判罚：蓝牌、黄牌或红牌；双身份规则下扣分。

    颜色写 blue（蓝牌）、yellow（黄牌）或 red（红牌）。三张蓝牌合一张黄牌，三张黄牌合一张红牌；红牌立即罚下（在当天放逐之前生效）。
    双身份规则没有牌色，按扣分判罚：不写颜色，用 --points 给出扣分，累计扣满12分罚下。
    被罚下的是警长时，警徽按规则集处理（14人简易：随机抽取，随机种子记录在案）。
    同时起草一篇判罚通知，等你批准。罚下前会先列出它带来的变化并请你确认。

    例：forumbot card 月饼 yellow --why "第2日未投票"

    例（双身份）：forumbot card 月饼 --points 3 --why "出局后在讨论帖发言"
    """
    with runtime(config_path) as rt:
        now = _now(rt)
        color = lib.card_choice(rt.config.rules, color, points)
        if color == "points":
            state = lib._state(rt)
            book, _ = lib.ledger(rt, state)
            sends_off = book.standing(lib._player(state, name)).points + (points or 0) >= rt.config.rules.sendoff_points
        else:
            sends_off = color == "red"
        if sends_off and not assume_yes:
            from forumbot.game.gamelog import EventSpec, preview

            for line in preview(rt, EventSpec("out", player=name, why="card", at=now, note=why), now).lines():
                click.echo(line)
            if not confirm("红牌罚下，确认？" if color == "red" else f"累计扣满{rt.config.rules.sendoff_points}分罚下，确认？"):
                click.echo("未执行。")
                raise SystemExit(1)
        result = lib.give_card(rt, name, color, why, now, points=points, proposal_id=proposal_id)
        click.echo(result.describe())


@click.command("card-undo")
@config_option
@click.argument("entry_id", type=int, metavar="判罚编号")
@click.option("--why", required=True, help="撤销的理由（写进撤销通知）。")
@click.option("--yes", "-y", "assume_yes", is_flag=True, help="不再确认，直接撤销。")
@friendly
def card_undo(config_path: str, entry_id: int, why: str, assume_yes: bool) -> None:
    """撤销一张给错的牌。

    判罚编号见 forumbot status 的「已给判罚 #…」。这张牌从判罚记录中撤下（历史里仍保留），它引起的罚下和警徽抽取一并撤销，
    并起草一篇撤销通知，等你批准。

    例：forumbot card-undo 3 --why "记错了人"
    """
    with runtime(config_path) as rt:
        now = _now(rt)
        change = lib.preview_take_back_card(rt, entry_id, now)
        if not assume_yes:
            for line in change.lines():
                click.echo(line)
            if not confirm("撤销这张牌，确认？"):
                click.echo("未执行。")
                raise SystemExit(1)
        _, draft = lib.take_back_card(rt, entry_id, why, now)
        text = f"已撤销判罚 #{entry_id}（{change.entry.player} 的{card_said(change.entry.color, change.entry.points)}）"
        if draft is not None:
            text += f"；撤销通知草稿 #{draft.id} 待审批"
        click.echo(text)


@click.command("dismiss")
@config_option
@click.argument("proposal_id", type=int, metavar="提议编号")
@click.option("--why", default="", help="理由（记入审计日志）。")
@friendly
def dismiss(config_path: str, proposal_id: int, why: str) -> None:
    """忽略一条判罚提议。

    提议编号见 forumbot status 的「判罚提议 #…」。

    例：forumbot dismiss 4 --why "已私下提醒"
    """
    with runtime(config_path) as rt:
        p = lib.dismiss_proposal(rt, proposal_id, why, _now(rt))
        click.echo(f"已忽略判罚提议 #{p.id}（{p.player}，{PROPOSAL_ZH.get(p.reason_code, p.reason_code)}）")


@click.command("retally")
@config_option
@click.option("--day", type=int, required=True, help="要重新计票的一日（第1日是警长竞选）。")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON（给脚本读）。")
@friendly
def retally(config_path: str, day: int, as_json: bool) -> None:
    """按已保存的帖子重新计一日的票（加了别名或更正了事件之后）。

    例：forumbot retally --day 2
    """
    with runtime(config_path) as rt:
        data, changed = lib.retally(rt, day, _now(rt))
        if as_json:
            click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        else:
            click.echo(f"第{day}日：{_counts(data)}；弃权 {data['abstain']}；{'有变化' if changed else '无变化'}")


@click.command("count-now")
@config_option
@click.option("--day", type=int, default=None, help="要计票的一日（默认：正在进行的那一日）。")
@friendly
def count_now(config_path: str, day: int | None) -> None:
    """立即起草一篇实时计票，不等发帖间隔。

    例：forumbot count-now --day 2
    """
    with runtime(config_path) as rt:
        d = lib.count_now(rt, _now(rt), day)
        click.echo(f"已起草 {_draft_line(d)}")


commands = [status, drafts, show, approve, edit, reject, card, card_undo, dismiss, retally, count_now]
