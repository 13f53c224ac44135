"""The director's commands: look at the game, decide, approve what the bot posts.

Each is a thin layer over ``forumbot.director``; every change is written to the store's
audit log with the director as the actor. None of them talks to the forum: the running
agent publishes what is approved.
"""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from forumbot.commands._common import config_option, friendly, runtime
from forumbot import director as lib
from forumbot.marker import strip_marker
from forumbot.views import format_time

console = Console()


def _now(rt):
    return rt.clock.now()


def _counts(tally: dict) -> str:
    return "，".join(f"{k} {v}" for k, v in tally["counts"].items()) or "no votes"


def _draft_line(d) -> str:
    return f"#{d.id} {d.kind.value} thread {d.tid} day {d.day or '-'} [{d.state.value}]"


@click.command("status")
@config_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@friendly
def status(config_path: str, as_json: bool) -> None:
    """The game now: day, time left, tally, flags, drafts waiting for approval.

    Example: forumbot status --config game.toml
    """
    from forumbot.instance import lock_path, probe, status_lines

    with runtime(config_path) as rt:
        s = lib.status(rt, _now(rt))
        if as_json:
            holder = probe(lock_path(rt.settings.agent.database))
            click.echo(json.dumps({
                "agent": None if holder is None else {
                    "running": holder.running, "pid": holder.pid, "host": holder.host, "since": holder.since,
                    "last_pass": holder.beat, "problems": list(holder.problems.values()), "desk": holder.desk},
                "now": s.now.isoformat(), "day": s.day.number if s.day else None,
                "deadline": s.day.deadline.isoformat() if s.day else None, "time_left": s.time_left,
                "sheriff": s.sheriff, "out": [{"player": p, "why": w} for p, w in s.out],
                "tally": s.tally, "drafts_waiting": [d.id for d in s.drafts_waiting],
                "failed": [d.id for d in s.failed], "proposals": [p.id for p in s.proposals],
                "acceleration": None if s.acceleration is None else {
                    "requests": [{"player": p, "pid": pid, "floor": f} for p, pid, f in s.acceleration.requests],
                    "needed": s.acceleration.needed, "enough": s.acceleration.enough},
            }, ensure_ascii=False, indent=2))
            return
        for line in status_lines(rt.settings.agent.database):  # the agent, and what it cannot do
            click.echo(line)
        if s.day is None:
            console.print("No day has started yet.")
        else:
            console.print(f"[bold]第{s.day.number}日[/bold]  deadline {format_time(s.day.deadline)}"
                          f"  ({s.time_left} left){'  加速' if s.day.accelerated else ''}")
        console.print(f"sheriff 警长: {s.sheriff or '—'}   out 出局: "
                      + ("、".join(f"{p}({w})" for p, w in s.out) or "—"))
        if s.tally:
            table = Table(title="tally 计票")
            table.add_column("target")
            table.add_column("votes", justify="right")
            for name, n in s.tally["counts"].items():
                table.add_row(name, str(n))
            table.add_row("弃权", str(s.tally["abstain"]))
            console.print(table)
            console.print("non-voters 未投票: " + ("、".join(s.tally["non_voters"]) or "—"))
            void = [v for v in s.tally["votes"] if not v["valid"] and v["reason"] != "voter_not_player"]
            for v in void:
                console.print(f"  void {v['floor']}楼 {v['voter']}: {lib.describe_vote(v)}")
            for f in s.tally["flags"]:
                console.print(f"  flag {f['kind']} {f['floor']}楼 {f['player']}: {f['detail']}")
        if s.acceleration is not None and s.acceleration.requests:
            a = s.acceleration
            who = "、".join(f"{p}({f}楼)" for p, _, f in a.requests)
            console.print(f"加速 requests: {len(a.requests)}/{a.living} living, {a.needed} needed: {who}"
                          + (f" — [bold]enough: confirm with forumbot accelerate --day {a.day}[/bold]"
                             if a.enough else ""))
        for d in s.drafts_waiting:
            console.print(f"waiting: {_draft_line(d)} — forumbot show {d.id}")
        for d in s.failed:
            console.print(f"[red]failed[/red]: {_draft_line(d)}: {d.last_error}")
        for p in s.proposals:
            console.print(f"proposal #{p.id}: {p.player} {p.color.value} ({p.reason_code}) {p.detail}")


@click.command("drafts")
@config_option
@click.option("--all", "show_all", is_flag=True, help="Every draft, not only those waiting.")
@friendly
def drafts(config_path: str, show_all: bool) -> None:
    """List drafts waiting for approval (or all with --all).

    Example: forumbot drafts --all
    """
    with runtime(config_path) as rt:
        items = rt.outbox.drafts() if show_all else lib.waiting(rt)
        if not items:
            click.echo("No drafts waiting." if not show_all else "No drafts.")
        for d in items:
            extra = f" pid {d.pid}" if d.pid else ""
            click.echo(_draft_line(d) + extra)


@click.command("show")
@config_option
@click.argument("draft_id", type=int)
@friendly
def show(config_path: str, draft_id: int) -> None:
    """Show one draft's BBCode and its diff against the last published post of its kind.

    Example: forumbot show 7
    """
    with runtime(config_path) as rt:
        d = rt.outbox.get(draft_id)
        click.echo(_draft_line(d))
        click.echo(d.body)
        diff = rt.outbox.diff_against_last_published(draft_id)
        if diff:
            click.echo("--- diff against the last published post of this kind ---")
            click.echo(diff)


@click.command("approve")
@config_option
@click.argument("draft_id", type=int)
@friendly
def approve(config_path: str, draft_id: int) -> None:
    """Approve a draft; the running agent publishes it (exactly once).

    Example: forumbot approve 7
    """
    with runtime(config_path) as rt:
        d = lib.approve(rt, draft_id, _now(rt))
        click.echo(f"approved {_draft_line(d)}")


@click.command("edit")
@config_option
@click.argument("draft_id", type=int)
@friendly
def edit(config_path: str, draft_id: int) -> None:
    """Edit a draft in $EDITOR, then approve it as edited.

    Example: EDITOR=nano forumbot edit 7
    """
    with runtime(config_path) as rt:
        d = rt.outbox.get(draft_id)
        text = click.edit(strip_marker(d.body), extension=".bbcode.txt", require_save=True)
        if text is None or not text.strip():
            raise click.ClickException("not changed: nothing approved")
        d = lib.approve(rt, draft_id, _now(rt), body=text)
        click.echo(f"edited and approved {_draft_line(d)}")


@click.command("reject")
@config_option
@click.argument("draft_id", type=int)
@click.option("--why", required=True, help="Why (kept in the audit log).")
@friendly
def reject(config_path: str, draft_id: int, why: str) -> None:
    """Reject a draft: it is never published.

    Example: forumbot reject 7 --why "重复"
    """
    with runtime(config_path) as rt:
        d = lib.reject(rt, draft_id, why, _now(rt))
        click.echo(f"rejected {_draft_line(d)}")


def _names(value: str) -> list[str]:
    return [n.strip() for n in value.replace("，", ",").replace("、", ",").split(",") if n.strip()]


@click.command("night")
@config_option
@click.option("--day", type=int, required=True, help="The day whose morning announces this night.")
@click.option("--out", "out", default="", help="Players out during the night, in order: A,B (empty: 平安夜).")
@friendly
def night(config_path: str, day: int, out: str) -> None:
    """Enter the night's results; the agent drafts that morning's announcement.

    Example: forumbot night --day 3 --out 汤圆,Alice
    """
    with runtime(config_path) as rt:
        names = lib.record_night(rt, day, _names(out), _now(rt))
        draft = lib.announcement_draft(rt, day, _now(rt))
        click.echo(f"night before day {day}: " + ("、".join(names) or "平安夜")
                   + (f"; announcement draft #{draft.id}" if draft else ""))


@click.command("out")
@config_option
@click.argument("name")
@click.option("--why", type=click.Choice(["vote", "night", "red", "other"]), required=True)
@click.option("--day", type=int, default=None, help="Day to file it under (default: today).")
@friendly
def out(config_path: str, name: str, why: str, day: int | None) -> None:
    """Mark a player out (their later posts are 诈尸, their votes void).

    Example: forumbot out 包子 --why vote
    """
    with runtime(config_path) as rt:
        player = lib.put_out(rt, name, why, _now(rt), day)
        click.echo(f"{player} is out ({why})")


@click.command("sheriff")
@config_option
@click.argument("name")
@friendly
def sheriff(config_path: str, name: str) -> None:
    """Set the sheriff (their vote counts double).

    Example: forumbot sheriff 饺子
    """
    with runtime(config_path) as rt:
        player = lib.set_sheriff(rt, name, _now(rt))
        click.echo(f"sheriff: {player}")


@click.command("card")
@config_option
@click.argument("name")
@click.argument("color", type=click.Choice(["blue", "yellow", "red"]))
@click.option("--why", required=True, help="The reason, as it will be posted.")
@click.option("--points", type=int, default=None, help="Points deducted (双身份 points policy).")
@click.option("--proposal", "proposal_id", type=int, default=None, help="Accept this card proposal.")
@friendly
def card(config_path: str, name: str, color: str, why: str, points: int | None, proposal_id: int | None) -> None:
    """Give a card. Three blue make a yellow, three yellow a red; red sends off.

    A sent-off sheriff's badge passes by a random draw whose seed is recorded. A card
    notice is drafted for approval.

    Example: forumbot card 月饼 yellow --why "第2日未投票"
    """
    with runtime(config_path) as rt:
        result = lib.give_card(rt, name, color, why, _now(rt), points=points, proposal_id=proposal_id)
        click.echo(f"{result.player}: {color}" + ("; sent off" if result.sent_off else "")
                   + (f"; badge to {result.badge_to} (seed {result.seed})" if result.badge_to else "")
                   + (f"; notice draft #{result.draft.id}" if result.draft else ""))


@click.command("dismiss")
@config_option
@click.argument("proposal_id", type=int)
@click.option("--why", default="", help="Why (kept in the audit log).")
@friendly
def dismiss(config_path: str, proposal_id: int, why: str) -> None:
    """Dismiss a card proposal.

    Example: forumbot dismiss 4 --why "已私下提醒"
    """
    with runtime(config_path) as rt:
        p = lib.dismiss_proposal(rt, proposal_id, why, _now(rt))
        click.echo(f"dismissed proposal #{p.id} ({p.player} {p.reason_code})")


@click.command("accelerate")
@config_option
@click.option("--day", type=int, required=True)
@friendly
def accelerate(config_path: str, day: int) -> None:
    """Confirm 加速 for a day: from now no changes, and all that day's changes are void.

    Example: forumbot accelerate --day 2
    """
    with runtime(config_path) as rt:
        window = lib.accelerate(rt, day, _now(rt))
        click.echo(f"day {window.number} accelerated")


@click.command("substitute")
@config_option
@click.argument("old")
@click.argument("new")
@friendly
def substitute(config_path: str, old: str, new: str) -> None:
    """A substitute account takes over a seat (its votes and posts are the seat's).

    Example: forumbot substitute 包子 替补甲
    """
    with runtime(config_path) as rt:
        seat = lib.substitute(rt, old, new, _now(rt))
        click.echo(f"{new} now plays {seat}")


@click.command("void")
@config_option
@click.argument("pid", type=int)
@click.option("--why", required=True, help="The reason, shown with the void vote.")
@friendly
def void(config_path: str, pid: int, why: str) -> None:
    """Rule one post void (by its pid, the number in its findpost link), then retally.

    Example: forumbot void 345 --why "串号，导演判废"
    """
    with runtime(config_path) as rt:
        day = lib.void_post(rt, pid, why, _now(rt))
        data, _ = lib.retally(rt, day, _now(rt))
        click.echo(f"post {pid} void; day {day} recounted: {_counts(data)}")


@click.command("idiot")
@config_option
@click.argument("name")
@friendly
def idiot(config_path: str, name: str) -> None:
    """Record that the idiot (白痴) used 【若愚】: from now on their votes count 0 (S10).

    Example: forumbot idiot 烧卖
    """
    with runtime(config_path) as rt:
        player = lib.reveal_idiot(rt, name, _now(rt))
        click.echo(f"{player}: revealed idiot, votes count {rt.config.rules.idiot_weight}")


@click.command("alias")
@config_option
@click.argument("name")
@click.argument("alias")
@friendly
def alias(config_path: str, name: str, alias: str) -> None:
    """Let ALIAS as written in a vote mean player NAME (then run retally).

    Example: forumbot alias 饺子 饺饺
    """
    with runtime(config_path) as rt:
        player = lib.add_alias(rt, name, alias, _now(rt))
        click.echo(f"{alias!r} → {player}")


@click.command("retally")
@config_option
@click.option("--day", type=int, required=True)
@click.option("--json", "as_json", is_flag=True)
@friendly
def retally(config_path: str, day: int, as_json: bool) -> None:
    """Recount a day from the stored posts (after an alias or a correction).

    Example: forumbot retally --day 2
    """
    with runtime(config_path) as rt:
        data, changed = lib.retally(rt, day, _now(rt))
        if as_json:
            click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        else:
            click.echo(f"day {day}: {_counts(data)}; abstain {data['abstain']}; "
                       f"{'changed' if changed else 'unchanged'}")


@click.command("count-now")
@config_option
@friendly
def count_now(config_path: str) -> None:
    """Draft a running count now, whatever the rate limit.

    Example: forumbot count-now
    """
    with runtime(config_path) as rt:
        d = lib.count_now(rt, _now(rt))
        click.echo(f"drafted {_draft_line(d)}")


commands = [status, drafts, show, approve, edit, reject, night, out, sheriff, card, dismiss,
            accelerate, substitute, idiot, void, alias, retally, count_now]
