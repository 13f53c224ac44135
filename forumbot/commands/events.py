"""The director's commands that change the game: what happened, in game time (SPEC §9).

Every one shows what it will change — the rulings and result of each day it touches,
the drafts it makes stale, the published posts it makes wrong — and asks before doing
it (``--yes`` skips the question). Every one can be undone: ``forumbot undo EVENT_ID
--why …`` (``forumbot events`` lists the ids), or corrected: ``forumbot correct``.
Each is a thin layer over ``forumbot.gamelog``.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Callable

import click

from forumbot import gamelog
from forumbot.commands._common import config_option, friendly, runtime
from forumbot.gamelog import DirectorError, EventSpec
from forumbot.runtime import Runtime

WHY_CHOICES = ["vote", "night", "card", "red", "lover", "hunter", "other"]

yes_option = click.option("--yes", "-y", "assume_yes", is_flag=True,
                          help="Do not ask: carry it out after showing what it changes.")
at_option = click.option("--at", "at_text", default=None, metavar="TIME",
                          help="Game time it took effect: 2026-12-02T20:00, '12-02 20:00' or '20:00' "
                               "(forum time zone). Default: SPEC §9's for the kind.")


def parse_at(rt: Runtime, text: str | None) -> datetime | None:
    """A game time as a director types it, in the forum's time zone."""
    if text is None or not text.strip():
        return None
    tz = rt.config.forum.tz
    now = rt.clock.now().astimezone(tz)
    value = text.strip().replace("/", "-")
    try:
        parsed = datetime.fromisoformat(value)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)
    except ValueError:
        pass
    m = re.fullmatch(r"(?:(\d{1,2})-(\d{1,2})\s+)?(\d{1,2}):(\d{2})(?::(\d{2}))?", value)
    if m is None:
        raise DirectorError(f"看不懂的时间“{text}”（例：2026-12-02T20:00、12-02 20:00 或 20:00）")
    month, day, hour, minute, second = m.groups()
    moment = now.replace(hour=int(hour), minute=int(minute), second=int(second or 0), microsecond=0)
    if month:
        moment = moment.replace(month=int(month), day=int(day))
    elif moment > now + timedelta(minutes=1):
        moment -= timedelta(days=1)  # "20:00" typed at 09:00 means yesterday evening
    return moment


def _show(impact: gamelog.Impact) -> None:
    for line in impact.lines():
        click.echo(line)


def carry_out(rt: Runtime, preview: Callable[[], gamelog.Impact], apply: Callable[[], gamelog.Applied],
              assume_yes: bool) -> gamelog.Applied:
    """Show what the change does, ask, then do it (and say what was done)."""
    _show(preview())
    if not assume_yes and not click.confirm("确认执行？", default=False):
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
@click.argument("name")
@click.option("--why", type=click.Choice(WHY_CHOICES), required=True,
              help="vote 投票, night 夜晚, card 罚下, lover 殉情, hunter 猎人, other 其他.")
@click.option("--day", type=int, default=None, help="The day it belongs to (night: the morning after it).")
@at_option
@click.option("--note", default="", help="Your words, kept with the event.")
@yes_option
@friendly
def out(config_path: str, name: str, why: str, day: int | None, at_text: str | None, note: str,
        assume_yes: bool) -> None:
    """A player leaves the game (出局) at a game time.

    A night death takes effect at the start of the day after that night, a vote-out at its
    deadline, a daytime out (red card, a lover following, a hunter's shot) at --at (default
    now) and before that day's vote-out. 双身份: use identity-lost for one identity.

    Example: forumbot out 包子 --why hunter --at "12-02 20:00"
    """
    _enter(config_path, lambda rt: EventSpec("out", player=name, why=why, day=day, at=parse_at(rt, at_text),
                                             note=note), assume_yes)


@click.command("identity-lost")
@config_option
@click.argument("name")
@click.option("--why", type=click.Choice(WHY_CHOICES), required=True)
@click.option("--day", type=int, default=None)
@at_option
@yes_option
@friendly
def identity_lost(config_path: str, name: str, why: str, day: int | None, at_text: str | None,
                  assume_yes: bool) -> None:
    """双身份: one identity dies (身份死亡); the second one lost is 出局.

    Example: forumbot identity-lost 饺子 --why night --day 3
    """
    _enter(config_path, lambda rt: EventSpec("identity_lost", player=name, why=why, day=day,
                                             at=parse_at(rt, at_text)), assume_yes)


@click.command("night")
@config_option
@click.option("--day", type=int, required=True, help="The day whose morning announces this night.")
@click.option("--out", "out_", default="", help="Players out during the night, in order: A,B (empty: 平安夜).")
@at_option
@yes_option
@friendly
def night(config_path: str, day: int, out_: str, at_text: str | None, assume_yes: bool) -> None:
    """Enter the night's results (双身份: who lost an identity); they take effect at the
    start of --day, however late they are typed. The morning announcement is drafted.

    Example: forumbot night --day 3 --out 汤圆,Alice
    """
    with runtime(config_path) as rt:
        now = rt.clock.now()
        spec = EventSpec("night", day=day, players=_names(out_), at=parse_at(rt, at_text))
        carry_out(rt, lambda: gamelog.preview(rt, spec, now), lambda: gamelog.enter(rt, spec, now), assume_yes)
        from forumbot.director import announcement_draft

        draft = announcement_draft(rt, day, now)
        if draft is not None:
            click.echo(f"第{day}日公示草稿 #{draft.id}（{draft.state.value}）：forumbot show {draft.id}")


@click.command("sheriff")
@config_option
@click.argument("name", required=False)
@click.option("--none", "nobody", is_flag=True, help="No sheriff from now on.")
@at_option
@yes_option
@friendly
def sheriff(config_path: str, name: str | None, nobody: bool, at_text: str | None, assume_yes: bool) -> None:
    """Name the sheriff (the successor after 【殉职】: a living player, S10 not a revealed
    idiot, 双身份 not the sheriff who left). The successor takes effect when the badge fell
    vacant, unless --at says otherwise.

    Example: forumbot sheriff 饺子
    """
    if not name and not nobody:
        raise click.UsageError("give a player's name, or --none")
    _enter(config_path, lambda rt: EventSpec("sheriff", player=None if nobody else name, at=parse_at(rt, at_text)),
           assume_yes)


@click.command("draw-sheriff")
@config_option
@click.option("--seed", type=int, default=None, help="The random seed (default: a fresh one, recorded).")
@click.option("--force", is_flag=True, help="Draw even where the rule set offers no draw (yet).")
@yes_option
@friendly
def draw_sheriff(config_path: str, seed: int | None, force: bool, assume_yes: bool) -> None:
    """The random draw for a vacant badge (14人简易: a sent-off sheriff, or a voted-out one
    who named no successor 30 minutes after the deadline). The seed is recorded.

    Example: forumbot draw-sheriff
    """
    with runtime(config_path) as rt:
        now = rt.clock.now()
        status = gamelog.badge(rt, now)
        click.echo(status.describe(now))
        click.echo("候选：" + ("、".join(status.candidates) or "无"))
        if not assume_yes and not click.confirm("随机抽取继任警长？", default=False):
            click.echo("未执行。")
            raise SystemExit(1)
        applied = gamelog.draw_sheriff(rt, now, seed=seed, force=force)
        for line in applied.lines():
            click.echo(line)


@click.command("scapegoat")
@config_option
@click.argument("name", required=False)
@click.option("--none", "nobody", is_flag=True, help="No one's first identity is 替罪羊 now.")
@at_option
@yes_option
@friendly
def scapegoat(config_path: str, name: str | None, nobody: bool, at_text: str | None, assume_yes: bool) -> None:
    """双身份: whose first identity is 替罪羊 (it goes instead on a tie).

    Example: forumbot scapegoat 烧卖
    """
    if not name and not nobody:
        raise click.UsageError("give a player's name, or --none")
    _enter(config_path, lambda rt: EventSpec("scapegoat", player=None if nobody else name, at=parse_at(rt, at_text)),
           assume_yes)


@click.command("voters")
@config_option
@click.option("--day", type=int, required=True, help="The day the scapegoat's choice is for.")
@click.argument("names", required=False, default="")
@click.option("--none", "nobody", is_flag=True, help="No one may vote that day (no one is out).")
@yes_option
@friendly
def voters(config_path: str, day: int, names: str, nobody: bool, assume_yes: bool) -> None:
    """双身份 【冤死】: the scapegoat names who may vote on --day (--none: no one, so no one
    is out that day). Votes by anyone else that day are void.

    Example: forumbot voters --day 3 饺子,包子,Alice
    """
    if not names and not nobody:
        raise click.UsageError("give the names (A,B,…), or --none")
    _enter(config_path, lambda rt: EventSpec("voters", day=day, players=() if nobody else _names(names)),
           assume_yes)


@click.command("idiot")
@config_option
@click.argument("name")
@at_option
@yes_option
@friendly
def idiot(config_path: str, name: str, at_text: str | None, assume_yes: bool) -> None:
    """The idiot (白痴) used 【若愚】 (S10): voted out at that moment, they stay in; their
    votes weigh 0 from then on; they may still be voted for, never be the successor.
    Default time: the deadline of the vote that put them out.

    Example: forumbot idiot 烧卖
    """
    _enter(config_path, lambda rt: EventSpec("idiot", player=name, at=parse_at(rt, at_text)), assume_yes)


@click.command("accelerate")
@config_option
@click.option("--day", type=int, required=True)
@yes_option
@friendly
def accelerate(config_path: str, day: int, assume_yes: bool) -> None:
    """Confirm 加速 for a day (where the rule set says so, all that day's changes are void);
    an acceleration notice is drafted.

    Example: forumbot accelerate --day 2
    """
    _enter(config_path, lambda rt: EventSpec("accelerated", day=day), assume_yes)


@click.command("substitute")
@config_option
@click.argument("old")
@click.argument("new")
@yes_option
@friendly
def substitute(config_path: str, old: str, new: str, assume_yes: bool) -> None:
    """A substitute account takes over a seat (its votes and posts are the seat's).

    Example: forumbot substitute 包子 替补甲
    """
    _enter(config_path, lambda rt: EventSpec("substitute", player=old, name=new), assume_yes)


@click.command("alias")
@config_option
@click.argument("name")
@click.argument("alias")
@yes_option
@friendly
def alias(config_path: str, name: str, alias: str, assume_yes: bool) -> None:
    """Let ALIAS as written in a vote mean player NAME (a player's own name cannot be an alias).

    Example: forumbot alias 饺子 饺饺
    """
    _enter(config_path, lambda rt: EventSpec("alias", player=name, name=alias), assume_yes)


@click.command("void")
@config_option
@click.argument("pid", type=int)
@click.option("--why", required=True, help="The reason, shown with the void vote.")
@yes_option
@friendly
def void(config_path: str, pid: int, why: str, assume_yes: bool) -> None:
    """Rule one post void (by its pid, the number in its findpost link).

    Example: forumbot void 345 --why "串号，导演判废"
    """
    _enter(config_path, lambda rt: EventSpec("void", pid=pid, note=why), assume_yes)


@click.command("undo")
@config_option
@click.argument("event_id", type=int)
@click.option("--why", required=True, help="Why (kept in the audit log).")
@yes_option
@friendly
def undo(config_path: str, event_id: int, why: str, assume_yes: bool) -> None:
    """Take an event back (see forumbot events for the ids). Undoing an undo brings the
    event back. Nothing is deleted: the history keeps both.

    Example: forumbot undo 12 --why "手误，出局的是包子"
    """
    with runtime(config_path) as rt:
        now = rt.clock.now()
        carry_out(rt, lambda: gamelog.preview_retract(rt, event_id, now),
                  lambda: gamelog.retract(rt, event_id, why, now), assume_yes)


@click.command("correct")
@config_option
@click.argument("event_id", type=int)
@click.option("--player", default=None, help="The right player.")
@click.option("--players", default=None, help="The right list (a night's outs, 冤死's voters): A,B.")
@at_option
@click.option("--cause", type=click.Choice(WHY_CHOICES), default=None, help="The right cause of an out.")
@click.option("--day", type=int, default=None)
@click.option("--because", required=True, help="Why it is corrected (kept in the audit log).")
@yes_option
@friendly
def correct(config_path: str, event_id: int, player: str | None, players: str | None, at_text: str | None,
            cause: str | None, day: int | None, because: str, assume_yes: bool) -> None:
    """Correct an event: the wrong player or the wrong time. What is not given is kept.

    Example: forumbot correct 12 --player 包子 --because "录错了人"
    """
    with runtime(config_path) as rt:
        now = rt.clock.now()
        spec = correction_spec(rt, event_id, player=player, at=parse_at(rt, at_text), why=cause, day=day,
                               players=None if players is None else _names(players))
        carry_out(rt, lambda: gamelog.preview_correct(rt, event_id, spec, now),
                  lambda: gamelog.correct(rt, event_id, spec, because, now), assume_yes)


def correction_spec(rt: Runtime, event_id: int, *, player: str | None = None, at: datetime | None = None,
                    why: str | None = None, day: int | None = None,
                    players: tuple[str, ...] | None = None) -> EventSpec:
    """An event as stored, with the given fields replaced (for ``correct``)."""
    try:
        old = rt.store.event(event_id)
    except LookupError as exc:
        raise DirectorError(str(exc)) from None
    p = old.payload
    kind = {"accelerate": "accelerated"}.get(old.kind.value, old.kind.value)
    if kind == "retract":
        raise DirectorError("撤销记录不能更正")
    listed = tuple(p.get("players") or p.get("out") or ())
    if players is None and player and kind in ("night", "voters"):
        if len(listed) > 1:
            raise DirectorError("这条事件有多名玩家：请用 --players 给出正确的名单")
        players = (player,)
    return EventSpec(
        kind=kind,
        player=player or p.get("player") or p.get("old"),
        why=why or p.get("why"),
        at=at or old.game_at,
        day=day or (p.get("day") if kind == "voters" else old.day),
        players=listed if players is None else players,
        name=p.get("name") or p.get("new"),
        pid=p.get("pid"),
        note=p.get("note", "") if kind != "void" else p.get("why", ""),
    )


@click.command("events")
@config_option
@click.option("--json", "as_json", is_flag=True)
@friendly
def events(config_path: str, as_json: bool) -> None:
    """The game's events: game time, what, who entered it and when, whether it stands.

    Example: forumbot events
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
@click.option("--day", type=int, required=True)
@friendly
def redraft(config_path: str, day: int) -> None:
    """Draft the day's final count again (after a correction made a published one wrong):
    a new post marked 更正 for you to approve; the published one is never edited.

    Example: forumbot redraft --day 2
    """
    with runtime(config_path) as rt:
        draft = gamelog.redraft_final(rt, day, rt.clock.now())
        click.echo(f"已起草第{day}日{'更正' if '更正' in draft.body else ''}最终计票 #{draft.id}："
                   f"forumbot show {draft.id}")


commands = [out, identity_lost, night, sheriff, draw_sheriff, scapegoat, voters, idiot, accelerate, substitute,
            alias, void, undo, correct, events, redraft]
