"""One game in one line: what the service's game list, ``/healthz`` and ``forumbot
status --all`` show for each game.

Cheap on purpose — a few indexed queries, no tally (the list of fifty games refreshes
every few seconds): the game's day and deadline, drafts waiting for the director, posts
that failed, active alarms, whether the game is over, and who runs it (the instance
lock's record: pid, last pass, what it cannot do).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from forumbot.game.runtime import Runtime
from forumbot.wording import os_error_zh

# A running game whose last pass is older than this many poll intervals (at least five
# minutes) is in trouble: its agent hangs or the service cannot keep up.
STALE_PASSES = 3


@dataclass(frozen=True)
class GameSummary:
    name: str
    config: str
    state: str  # running | finished | error | busy | stopped | starting
    ruleset: str | None = None  # the rule set's Chinese name
    day: int | None = None
    deadline: datetime | None = None
    time_left: str | None = None  # "3小时05分" | "已截止"
    drafts_waiting: int = 0
    failed: int = 0
    alarms: tuple[str, ...] = ()  # active alarms (Chinese, one line each)
    over: str | None = None  # the game is over (Chinese), or None
    agent: str = ""  # who runs the game (Chinese)
    last_pass: datetime | None = None
    problems: tuple[str, ...] = ()  # what goes wrong (Chinese): the config, the last pass, the disk
    detail: tuple[str, ...] = ()  # the same for an operator (as the library said it)
    urls: dict[str, str] = field(default_factory=dict)

    @property
    def trouble(self) -> bool:
        """Something a person must look at: an alarm, an error, a stopped agent. A finished
        game gets no more passes: its alarms can no longer clear and its agent no longer
        beats, so only a post that did not go out is still the director's to settle."""
        if self.state == "finished":
            return bool(self.failed)
        return bool(self.alarms or self.problems or self.failed) or self.state in ("error", "busy", "stopped")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("deadline", "last_pass"):
            value = data[key]
            data[key] = value.isoformat() if value else None
        data["alarms"], data["problems"], data["detail"] = list(self.alarms), list(self.problems), list(self.detail)
        data["trouble"] = self.trouble
        return data

    def line(self) -> str:
        """``forumbot status --all``: one line (Chinese)."""
        state = {"running": "运行中", "finished": "已结束", "error": "出错", "busy": "由其他进程运行",
                 "stopped": "未运行", "starting": "启动中"}.get(self.state, self.state)
        parts = [f"{self.name}", state]
        if self.ruleset:
            parts.append(self.ruleset)
        if self.day is not None:
            left = f"（{self.time_left}）" if self.time_left else ""
            parts.append(f"第{self.day}日 截止 {self.deadline:%m-%d %H:%M}{left}" if self.deadline else f"第{self.day}日")
        if self.drafts_waiting:
            parts.append(f"{self.drafts_waiting} 篇待审批")
        if self.failed:
            parts.append(f"{self.failed} 篇发送失败")
        if self.alarms:
            parts.append(f"{len(self.alarms)} 个警报")
        if self.last_pass:
            parts.append(f"最后一轮 {self.last_pass:%m-%d %H:%M}")
        if self.over:
            parts.append("游戏已结束")
        line = "  ".join(parts)
        if self.problems:
            line += "  ⚠ " + "；".join(self.problems)
        return line


def _alarms(rt: Runtime) -> tuple[str, ...]:
    alarms = getattr(rt.store, "alarms", None)  # the alarms table (forumbot.game.alarms), when there is one
    if alarms is None:
        return ()
    try:
        return tuple(a.text for a in alarms())
    except Exception:  # noqa: BLE001 - an older file without the table: no alarms
        return ()


def facts(rt: Runtime, now: datetime, state: Any = None) -> dict[str, Any]:
    """The game's own facts for its summary (no forum, no tally); ``state``: the game's
    current state when the caller has it already."""
    from forumbot.game.ending import game_over
    from forumbot.wording import ruleset_zh
    from forumbot.game.state import current_state, day_at
    from forumbot.store.outbox import DraftState
    from forumbot.game.views import format_left

    state = state or current_state(rt.config, rt.store)
    day = day_at(state, now)
    over = game_over(rt, state)
    return {
        "ruleset": ruleset_zh(rt.config.rules),
        "day": day.number if day else None,
        "deadline": day.deadline if day else None,
        "time_left": format_left(day.deadline - now) if day else None,
        "drafts_waiting": len(rt.outbox.awaiting_approval()),
        "failed": len(rt.outbox.drafts(DraftState.FAILED)),
        "alarms": _alarms(rt),
        "over": over.text if over else None,
    }


def agent_facts(rt: Runtime, now: datetime, *, over: bool = False) -> dict[str, Any]:
    """Who runs the game, from its instance lock (another process's, or this one's). An
    ``over`` game has no more passes: an old last pass is not a hanging agent."""
    from forumbot.agent.instance import lock_path, probe

    holder = probe(lock_path(rt.settings.agent.database))
    if holder is None or not holder.running:
        return {"state": "stopped", "agent": "没有代理程序在运行这局游戏",
                "last_pass": _parse(holder.beat) if holder else None}
    who = "forumbot serve" if holder.role == "service" else "forumbot run"
    last = _parse(holder.beat)
    problems = tuple(p.get("message", "") for p in holder.problems.values() if p.get("message"))
    interval = max(rt.settings.agent.poll_interval_seconds * STALE_PASSES, 300)
    if not over and last is not None and now - last > timedelta(seconds=interval):
        problems += (f"最后一轮已是 {int((now - last).total_seconds() // 60)} 分钟前",)
    return {"state": "running", "agent": f"{who}（pid {holder.pid}，主机 {holder.host}）", "last_pass": last,
            "problems": problems}


def _parse(iso: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(iso) if iso else None
    except ValueError:
        return None


def summarize_config(name: str, path) -> GameSummary:
    """A game as ``forumbot status --all`` sees it from the outside: its config read, its
    database opened, its lock probed. A config that cannot be read is its error."""
    from forumbot.agent.refusals import domain_errors
    from forumbot.game.runtime import StateMissingError, open_runtime

    try:
        rt = open_runtime(path, create=False)  # looking creates nothing
    except StateMissingError as exc:
        return GameSummary(name, str(path), "error", problems=("状态数据库不存在：这局还没运行过，或数据库丢失了",),
                           detail=(str(exc),))
    except domain_errors() as exc:
        return GameSummary(name, str(path), "error", problems=("配置或数据库有误，游戏没有运行",), detail=(str(exc),))
    try:
        now = rt.clock.now()
        found = facts(rt, now)
        agent = agent_facts(rt, now, over=found["over"] is not None)
        state = "finished" if found["over"] else agent["state"]
        return GameSummary(name, str(path), state, agent=agent["agent"], last_pass=agent["last_pass"],
                           problems=agent.get("problems", ()), **found)
    finally:
        rt.close()





def status_all(folder: str | None, *, as_json: bool) -> int:
    """``forumbot status --all``: every game of the folder, one line each (or JSON);
    returns the exit code: 3 when a game needs a person (``trouble``), else 0."""
    import json
    from pathlib import Path

    import click

    from forumbot.service.settings import games_folder
    from forumbot.service.scanner import scan

    where = Path(folder) if folder else games_folder()
    if where is None:
        raise click.UsageError("--all 要知道各局配置所在的文件夹：请用 --games 文件夹，或设置 "
                               "FORUMBOT_SERVICE=service.toml 或 FORUMBOT_GAMES=文件夹")
    try:
        found = scan(where)
    except OSError as exc:
        raise click.ClickException(f"无法读取游戏文件夹 {where}：{os_error_zh(exc)}") from None
    games = [summarize_config(name, file.path) for name, file in found.items()]
    trouble = [g.name for g in games if g.trouble]
    if as_json:
        click.echo(json.dumps({"folder": str(where), "games": [g.to_json() for g in games], "trouble": trouble},
                              ensure_ascii=False, indent=2))
    else:
        if not games:
            click.echo(f"游戏文件夹 {where} 里没有游戏配置")
        for game in games:
            click.echo(game.line())
        if trouble:
            click.echo(f"需要处理：{'、'.join(trouble)}")
    return 3 if trouble else 0

__all__ = ["GameSummary", "agent_facts", "facts", "status_all", "summarize_config"]
