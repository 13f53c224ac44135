"""One game of the service: its config, database, instance lock, agent and what the
scheduler knows of it, from the moment its file appears until it goes away.

A game keeps everything of its own — its SQLite file, outbox and audit log — exactly as
under ``forumbot run``; the service only holds its instance lock (so a ``forumbot run``
on it refuses, naming the service) and lends it the forum session of its account.

Whatever goes wrong stays with the game: a config that cannot be read (``ConfigError``
naming the file and key), a database that cannot be opened, a lock another process
holds, an exception in a pass, a forum that refuses — each is this game's ``error`` or
``problems``, logged with the game's name, shown on the desk and in ``/healthz``; the
other games go on.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from engine.state import GameState
from forumbot.agent.days import milestones_after
from forumbot.agent.loop import TickReport
from forumbot.game.state import current_state
from forumbot.game.clock import Clock
from forumbot.agent.health import Health
from forumbot.agent.instance import InstanceBusy, InstanceLock, lock_path
from forumbot.store.outbox import DraftState
from forumbot.game.runtime import Runtime, open_runtime
from forumbot.service.agent import ServiceAgent
from forumbot.service.pool import SessionPool, session_key
from forumbot.service.scanner import GameFile
from forumbot.service.schedule import HOT_BEFORE_DEADLINE, MOVED, QUIET, GamePlan, Job, ThreadState
from forumbot.service.summary import GameSummary, facts
from forumbot.wording import RULESET_ZH

log = logging.getLogger("forumbot.service")

PASS_PROBLEM = "pass"  # the Health kind for errors of the game's last pass
LOG_PROBLEM = "log_file"  # the Health kind for a game's [agent].log_file that cannot be written
CRASH_FIRST = 60.0  # after a pass raised: wait this long (game seconds), doubling
CRASH_MAX = 600.0
# SQLite's page cache per connection (KiB): the default 2 MB each adds up over fifty
# games; a pass touches a few hundred rows.
CACHE_KIB = 512
# An idle game's line on the list is computed afresh at least this often (the alarms and
# drafts another process may have changed are noticed sooner: ``notice_changes``).
SUMMARY_EVERY = timedelta(minutes=5)


class GameSlot:
    def __init__(self, file: GameFile, *, clock: Clock, pool: SessionPool) -> None:
        self.file = file
        self.name = file.name
        self.clock = clock
        self.pool = pool
        self.state = "starting"  # starting | running | finished | error | busy
        self.error: str | None = None  # why it is not running (Chinese)
        self.detail: str | None = None  # the same as the library said it (for the operator)
        self.rt: Runtime | None = None
        self.agent: ServiceAgent | None = None
        self.lock: InstanceLock | None = None
        self.plan: GamePlan | None = None
        self.summary = GameSummary(self.name, str(file.path), "starting")
        self.crashes = 0
        self.last_report: TickReport | None = None
        self.pass_errors: tuple[str, ...] = ()
        self._data_version: int | None = None
        self._summarized_at: datetime | None = None
        self.log_handler: logging.Handler | None = None  # the game's own [agent].log_file

    # ------------------------------------------------------------------ lifecycle

    @property
    def database(self) -> Path | None:
        return self.rt.settings.agent.database if self.rt is not None else None

    def open(self, *, taken: dict[Path, str], desk_url: str | None = None) -> None:
        """Read the config, open the database, take the game's lock, build its agent.
        Never raises: a failure is the game's ``error`` (``taken``: databases of the
        other games, so two configs never share one)."""
        from forumbot.agent.refusals import domain_errors

        try:
            rt = open_runtime(self.file.path, clock=self.clock)
        except domain_errors() as exc:
            self._fail("配置或数据库有误，这局游戏没有运行（改好配置文件后自动重试）", str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - one game's surprise must not stop the service
            log.exception("无法打开这局游戏")
            self._fail("无法打开这局游戏（详情见日志）", f"{type(exc).__name__}: {exc}")
            return
        database = rt.settings.agent.database.resolve()
        other = taken.get(database)
        if other is not None and other != self.name:
            rt.close()
            self._fail(f"与游戏「{other}」使用同一个数据库文件：每局游戏要有自己的数据库（[agent].database）",
                       f"{self.file.path}: [agent].database: {database} is game {other}'s too")
            return
        self.rt = rt
        self.acquire(desk_url=desk_url)

    def acquire(self, *, desk_url: str | None = None) -> bool:
        """Take the game's lock (again, when another process held it): True when running."""
        assert self.rt is not None
        rt = self.rt
        try:
            lock = InstanceLock.acquire(lock_path(rt.settings.agent.database), role="service",
                                        since=rt.clock.now(), wait_seconds=0.2)
        except InstanceBusy as exc:
            holder = exc.holder
            who = holder.who() if holder else "另一个进程"
            self.state, self.error = "busy", f"这局游戏已由另一个 forumbot 进程运行（{who}）：服务不读帖、不发帖，直到它停止"
            self.detail = str(exc)
            self._summarize()
            return False
        except Exception as exc:  # noqa: BLE001 - InstanceError and the unexpected alike
            self._fail("无法取得这局游戏的锁文件（详情见原始信息）", str(exc))
            return False
        try:
            client = self.pool.client_for(rt, self.name)
        except Exception as exc:  # noqa: BLE001 - a config the session refuses (another time zone…)
            lock.release()
            self._fail("配置与同一论坛账号的其他游戏冲突（详情见原始信息）", str(exc))
            return False
        if desk_url:
            lock.update(desk={"url": desk_url})
        self.lock = lock
        rt.store.db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        self.agent = ServiceAgent(rt, client, health=Health(lock), name=self.name)
        self._open_log_file(rt)
        self.plan = GamePlan(self.name, session_key(rt), rt.settings.agent.poll_interval_seconds)
        self.state, self.error, self.detail = "running", None, None
        self._data_version = self._version()
        self.update_plan(rt.clock.now(), polled=(), before={})
        self._summarize()
        log.info("开始运行 %s（%s），数据库 %s", self.file.path, RULESET_ZH.get(rt.config.rules.name, rt.config.rules.name),
                 rt.settings.agent.database)
        return True

    def _open_log_file(self, rt: Runtime) -> None:
        """The game's ``[agent].log_file`` is written under the service as under ``forumbot
        run`` (each line of this game, and only those); one that cannot be opened is
        this game's problem, not the service's."""
        from forumbot.service.logs import game_log_file

        path = rt.settings.agent.log_file
        if path is None or self.agent is None:
            return
        try:
            self.log_handler = game_log_file(self.name, path, clock=self.clock)
        except OSError as exc:
            self.agent.health.fail(LOG_PROBLEM, f"无法写入日志文件 {path}（{exc.strerror or exc}）：请检查 "
                                                "[agent].log_file 及其所在文件夹是否存在、可写；这局的日志只在服务的日志里",
                                   str(exc), now=rt.clock.now())

    def close(self) -> None:
        if self.agent is not None:
            self.agent.notifier.board.leave(self.agent.notifier)
        from forumbot.service.logs import drop_handler

        drop_handler(self.log_handler)
        self.log_handler = None
        self._unwatch()
        if self.lock is not None:
            self.pool.release(self.name)
            self.lock.release()
            self.lock = None
        if self.rt is not None:
            self.rt.close()
            self.rt = None
        self.agent = None
        self.plan = None

    def _fail(self, message: str, detail: str) -> None:
        self.state, self.error, self.detail = "error", message, detail
        log.warning("%s：%s", message, detail)
        self._summarize()

    @property
    def schedulable(self) -> bool:
        return self.state == "running" and self.plan is not None

    # ------------------------------------------------------------------ a pass

    def run(self, job: Job, turn: int) -> TickReport | None:
        """The pass the scheduler chose. An exception is this game's problem: logged,
        shown, and the game waits a while before its next pass."""
        assert self.agent is not None and self.rt is not None and self.plan is not None
        agent, rt, plan = self.agent, self.rt, self.plan
        started = rt.clock.now()
        plan.served = turn
        client = agent.client
        client.page_budget = job.budget
        before = {tid: rt.store.cursor(tid) for tid in job.threads}
        pms_waiting = bool(agent.notifier.pmbox.pending())
        try:
            if not plan.started:
                agent.start()
                plan.started = True
            report = agent.pass_over(job.threads, job.sweeps)
        except Exception as exc:  # noqa: BLE001 - one game's crash never stops the others
            self.crashes += 1
            wait = min(CRASH_FIRST * 2 ** (self.crashes - 1), CRASH_MAX)
            plan.not_before = started + timedelta(seconds=wait)
            plan.last_pass = started
            log.exception("这一轮出错；%.0f 秒后重试", wait)
            self.pass_errors = (f"上一轮出错（{type(exc).__name__}），{int(wait)} 秒后重试；详情见日志",)
            agent.health.fail(PASS_PROBLEM, self.pass_errors[0], f"{type(exc).__name__}: {exc}", now=started)
            self._summarize()
            return None
        finally:
            client.page_budget = None
        self.crashes = 0
        plan.not_before = None
        self.last_report = report
        now = rt.clock.now()
        state = current_state(rt.config, rt.store)
        crossing = plan.crossing
        self.update_plan(started, polled=job.threads, before=before, report=report, state=state)
        errors = tuple(error_zh(e) for e in report.errors)
        # What the game list shows changes with what the pass did (or a moment passed):
        # an idle pass only moves its "last pass" (the list costs nothing then).
        eventful = bool(report.new_posts or report.edited_posts or report.drafts or report.published
                        or errors or self.pass_errors or plan.crossing != crossing
                        or (pms_waiting and not agent.notifier.pmbox.pending()))  # a game over may finish now
        self.pass_errors = errors
        if errors:
            agent.health.fail(PASS_PROBLEM, "上一轮：" + "；".join(errors[:3]), "; ".join(report.errors[:3]), now=now)
        else:
            agent.health.ok(PASS_PROBLEM, now=now)
        self._data_version = self._version()
        if eventful or self._summarized_at is None or now >= self._summarized_at + SUMMARY_EVERY:
            self.check_finished(now, state)
            self._summarize(state)
        else:
            self.summary = replace(self.summary, last_pass=plan.last_pass)
        return report

    def update_plan(self, now: datetime, *, polled, before: dict, report: TickReport | None = None,
                    state: GameState | None = None) -> None:
        """What the scheduler knows after a pass: the active threads (the voting thread of
        a day in its last hour is hot), what each read found, the next moment."""
        assert self.agent is not None and self.rt is not None and self.plan is not None
        plan, store = self.plan, self.rt.store
        state = state or current_state(self.rt.config, store)
        active = self.agent.active_threads(now, state)
        settle = timedelta(minutes=self.rt.settings.agent.final_count_delay_minutes)
        threads: dict[int, ThreadState] = {}
        for tid, (role, day) in active.items():
            thread = plan.threads.get(tid) or ThreadState(tid, role)
            thread.role = role
            thread.hot = role == "vote" and day.deadline - HOT_BEFORE_DEADLINE <= now < day.deadline + settle
            threads[tid] = thread
        for tid in polled:
            if tid not in threads:
                continue
            old, new = before.get(tid), store.cursor(tid)
            if new is None:
                continue
            if old is not None and new.updated_at == old.updated_at:
                continue  # not read this pass (the forum refused, or it was not active)
            grew = old is None or (new.last_pid or 0) > (old.last_pid or 0)
            threads[tid].note_read(now, new=grew, behind=new.last_page < new.total_pages)
        self._watch(now, threads, active)
        plan.threads = threads
        plan.last_pass = now if report is not None else plan.last_pass
        plan.changed = False
        plan.waiting_write = bool(report is not None and self.agent.waiting_write)
        plan.crossing = self._next_crossing(now, state)

    def _watch(self, now: datetime, threads: dict[int, ThreadState], active: dict) -> None:
        """Tell the account's board watch which threads this game follows, on which
        board, and what this pass's reads found; take back what the watch says of each,
        and when each voting thread of a day being played is next swept for edits."""
        assert self.agent is not None and self.rt is not None
        agent, settings = self.agent, self.rt.settings.agent
        session = self.pool.session_of(self.name)
        watch = getattr(session, "watch", None)
        reads, agent.reads = agent.reads, {}
        if watch is None or not settings.board_listing:
            for thread in threads.values():
                thread.watch = thread.sweep_at = None
            return
        # Due a poll early: a sweep waits its turn behind listings and changed threads, and
        # the setting promises a read at least every edit_sweep_minutes.
        sweep = timedelta(minutes=settings.edit_sweep_minutes)
        sweep -= min(timedelta(seconds=settings.poll_interval_seconds), sweep / 4)
        fid_for = getattr(agent.client, "fid_for", None)
        # A listing every poll interval less one request: with a request in flight when it
        # is due, the listing and the moved thread's read still come within the poll
        # interval plus one request of the post.
        beat = max(settings.poll_interval_seconds - settings.min_request_interval_seconds,
                   settings.poll_interval_seconds / 2)
        for tid, thread in threads.items():
            watch.follow(self.name, tid, fid_for(tid) if fid_for else None, beat)
            if tid in reads:
                watch.thread_read(tid, *reads[tid])
            status = watch.status(tid)
            thread.watch = status if status in (QUIET, MOVED) else None
            role, day = active[tid]
            thread.sweep_at = None
            if role == "vote" and day.start <= now < day.deadline:
                whole = self.rt.store.get_meta(f"read_whole:{tid}")
                thread.sweep_at = (datetime.fromisoformat(whole) + sweep) if whole else now
        watch.unfollow(self.name, set(threads))

    def _unwatch(self) -> None:
        """This game follows no thread any more (it stopped or is over)."""
        session = self.pool.session_of(self.name)
        if session is not None and getattr(session, "watch", None) is not None:
            session.watch.unfollow(self.name, set())

    def _next_crossing(self, now: datetime, state: GameState) -> datetime | None:
        assert self.rt is not None
        settle = timedelta(minutes=self.rt.settings.agent.final_count_delay_minutes)
        moments = []
        for day in state.days:
            moments += [day.start, day.deadline, day.deadline + settle]
        # the calendar's reminders (SPEC §11): their posts are due at their moment
        moments += milestones_after(self.rt.config, now)
        later = [m for m in moments if m > now]
        return min(later) if later else None

    def check_finished(self, now: datetime, state: GameState | None = None) -> None:
        """Over (the director said so, or the last configured day's final count is out)
        and nothing approved left to send or held by a moderator: no more passes; the game
        stays listed."""
        from forumbot.game.ending import game_over

        assert self.rt is not None
        over = game_over(self.rt, state or current_state(self.rt.config, self.rt.store))
        # A post a moderator still holds is waited for: passes look whether it was released.
        sending = self.rt.outbox.drafts(DraftState.APPROVED, DraftState.PUBLISHING, DraftState.PENDING_MODERATION)
        # The director's PMs too: the answer to the PM that ended the game (its final count
        # approved by PM) is queued in that very pass, often behind the flood clock the
        # final count just started — it needs the passes that send it.
        pms = self.agent.notifier.pmbox.pending() if self.agent is not None else []
        # With identities the end post (the reveal) is drafted by a pass and waits for the director.
        from forumbot.game.sealing import end_post_pending

        ending = over is not None and end_post_pending(self.rt)
        if over is not None and not sending and not pms and not ending:
            if self.state != "finished":
                how = {"recorded": "导演宣布", "win": "胜负已分"}.get(over.how, "最后一日已计票")
                log.info("游戏已结束（%s）；不再读帖", how)
            self.state = "finished"
            self._unwatch()
        elif self.state == "finished":
            log.info("游戏继续进行")
            self.state = "running"

    def wake(self, now: datetime) -> None:
        """Something was given to this game outside its pass (a director's command the
        account's board read in another game's pass): its pass comes soon, even when the
        game is over (the answer must go out)."""
        if self.plan is not None:
            self.plan.changed = True
        if self.state == "finished":
            self.state = "running"
            self.check_finished(now)

    # ------------------------------------------------------------------ outside changes

    def _version(self) -> int | None:
        try:
            return self.rt.store.db.execute("PRAGMA data_version").fetchone()[0] if self.rt else None
        except sqlite3.Error:
            return None

    def notice_changes(self, now: datetime) -> bool:
        """Whether another connection (the desk, a director's command) wrote to the game
        since last looked: the next pass comes soon (an approval goes out at once) and
        the summary is refreshed. A finished game that is resumed runs again."""
        if self.rt is None or self.state not in ("running", "finished"):
            return False
        version = self._version()
        if version == self._data_version:
            return False
        self._data_version = version
        if self.plan is not None:
            self.plan.changed = True
        self.check_finished(now)
        self._summarize()
        return True

    # ------------------------------------------------------------------ what the list shows

    def _summarize(self, state: GameState | None = None) -> None:
        """The game's line on the list (computed here, in the scheduler's thread: the desk
        only reads it)."""
        base = GameSummary(self.name, str(self.file.path), self.state)
        if self.error:
            base = replace(base, problems=(self.error,), detail=(self.detail,) if self.detail else ())
        if self.rt is None:
            self.summary = base
            return
        now = self.rt.clock.now()
        self._summarized_at = now
        try:
            found = facts(self.rt, now, state)
        except Exception as exc:  # noqa: BLE001 - a summary is a courtesy
            log.warning("无法汇总这局游戏的情况：%s", exc)
            found = {}
        problems = base.problems + self.pass_errors
        if self.agent is not None:
            problems += tuple(p["message"] for k, p in self.agent.health.problems.items() if k != PASS_PROBLEM)
        plan = self.plan
        self.summary = replace(base, **found, problems=problems, last_pass=plan.last_pass if plan else None,
                               agent="forumbot serve" if self.lock is not None else "")


_KIND = ("论坛无法访问", "论坛拒绝", "出错")


def error_zh(line: str) -> str:
    """A pass's error line (the agent's log line, ``读帖子 12：论坛拒绝：抱歉，…``) said
    for the game list: what was being done, the kind of trouble, and the forum's own
    words when it gave any (an unexpected error's details stay in the log)."""
    what, _, rest = line.partition("：")
    kind, _, message = rest.partition("：")
    if kind not in _KIND or kind == "出错":
        return f"{what or '本轮'}出错（详情见日志）"
    # The forum's refusal in its own words; an outage's details (the request) stay in the log.
    chinese = message if kind == "论坛拒绝" and any("\u4e00" <= ch <= "\u9fff" for ch in message) else ""
    return f"{what}：{kind}" + (f"（{chinese}）" if chinese else "")


__all__ = ["GameSlot", "error_zh"]
