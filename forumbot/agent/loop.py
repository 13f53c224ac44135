"""The agent: poll the game's threads, keep every post, rule and tally, draft, publish.

One ``tick`` is one pass: read what is new in each active thread (one request per
thread when nothing changed), store it, re-rule and re-tally the days being played,
draft what is due (running counts, final counts, morning announcements, answers to 计票
requests, card proposals) and publish what is approved through the outbox — which
guarantees a post is never published twice. ``run`` repeats ticks at the configured
interval with jitter until asked to stop. Time comes from an injected clock, so the demo
and the tests can play days in seconds.
"""

from __future__ import annotations

import logging
import random
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable, Collection, Protocol

from engine.activity import propose_cards
from engine.rules import CardPolicy
from engine.state import DayWindow, GameState
from engine.tally import TallyResult
from forumbot.game.alarms import AlarmKind, AlarmWatch, moderation_text
from forumbot.discuz import DiscuzClient, NewThreadResult, ReplyResult, ThreadCursor as ClientCursor
from forumbot.discuz.client import DEFAULT_FLOODCTRL
from forumbot.game.clock import wait
from forumbot.game.drafting import count_body, counts_only
from forumbot.discuz.errors import (FloodControl, ForumError, ForumRefused, ForumUnavailable, PostNotFound,
                             ThreadNotFound)
from forumbot.game.state import ballots_for, count_day, current_state, state_for_day
from forumbot.agent.days import DayDuties
from forumbot.agent.health import DATABASE, STATE, Health, storage_problem
from forumbot.store.outbox import (Draft, DraftKind, DraftState, Outbox, PublishHow, PublishOutcome, Refresh,
                             hand_edited)
from forumbot.game.runtime import Runtime
from forumbot.store.integrity import damage, damaged_text, identity, identity_change
from forumbot.store.records import ThreadCursor
from forumbot.game.views import tally_digest
from forumbot.wording import draft_place_zh, draft_state_zh, forum_error_zh
from parsers.models import ContentNotice, Post, TimePrecision

log = logging.getLogger("forumbot.agent")

# After the deadline the day's threads are still read for a while: late posts must be
# seen (and ruled late), and the director's closing posts recorded.
GRACE_AFTER_DEADLINE = timedelta(hours=6)

# How many pages (from the last, backwards) a marker lookup may read before concluding
# an interrupted post never reached the forum.
MARKER_SEARCH_PAGES = 10_000
# Board pages searched for a new thread whose answer was lost (newest activity first): a
# day's thread is not pushed further than this by other threads in the minutes between.
THREAD_SEARCH_PAGES = 3

# The longest flood-control wait a pass sits out before reading again and posting
# (Discuz's default interval is 15 s); a longer one is left to a later pass.
MAX_FLOOD_WAIT = 60.0

# Store meta key: when ``forumbot login`` last logged the bot in (and saved its session).
OPERATOR_LOGIN = "operator_login"


NEVER = datetime.max.replace(tzinfo=timezone.utc)
# Running counts that hold back the next one for the interval (not rejected or replaced).
RUNNING_COUNT_LIVE = tuple(s for s in DraftState if s not in (DraftState.REJECTED, DraftState.SUPERSEDED))


def day_basis(store, day: DayWindow) -> tuple:
    """What deciding ``day`` depends on, cheaply: the posts of its threads (how many, the
    newest pid, their floors), the newest post version (an edit), event, outbox change,
    draft, stored tally, card and card proposal, and SQLite's ``data_version`` (it
    changes when another connection — the desk, a director's command — commits). Equal
    bases mean the day's rulings, tally and drafts would come out the same."""
    tids = sorted(day.threads())
    marks = ", ".join("?" * len(tids)) or "NULL"
    row = store.db.execute(
        "SELECT (SELECT COUNT(*) || ':' || IFNULL(MAX(pid), 0) || ':' || TOTAL(floor)"
        f"         FROM posts WHERE tid IN ({marks})),"
        " (SELECT MAX(id) FROM post_versions), (SELECT MAX(id) || ':' || COUNT(*) FROM events),"
        " (SELECT MAX(id) FROM outbox_history), (SELECT MAX(id) FROM outbox),"
        " (SELECT MAX(id) FROM snapshots), (SELECT MAX(id) FROM cards),"
        " (SELECT MAX(id) FROM card_proposals)", tids).fetchone()
    version = store.db.execute("PRAGMA data_version").fetchone()[0]
    return (day, *row, version)


def final_drafts(outbox: Outbox, day: int) -> list[Draft]:
    """Every final count drafted for ``day``, oldest first (dedupe keys final_count:dayN,
    then final_count:dayN:2, :3… after rejections: one indexed lookup each)."""
    from forumbot.game.announce import final_drafts as drafts

    return drafts(outbox, day)


def final_draft(outbox: Outbox, day: int) -> Draft | None:
    """The day's final count that stands: the newest one not rejected (or superseded)."""
    from forumbot.game.announce import final_draft as standing

    return standing(outbox, day)


class ClientPublisher:
    """The outbox's ``Publisher`` over a ``DiscuzClient``.

    The client does not wait out flood control here: the message was rendered for the
    moment it is sent (a running count: the tally and the time left then), so after the
    wait it is rendered again, from a fresh read (``Agent.publish``), not sent as it was."""

    def __init__(self, client: DiscuzClient) -> None:
        self.client = client

    def reply(self, tid: int, message: str, *, quote_pid: int | None = None) -> ReplyResult:
        return self.client.reply(tid, message, quote_pid=quote_pid, wait_for_flood=False)

    def edit(self, tid: int, pid: int, message: str) -> ReplyResult:
        return self.client.edit(tid, pid, message, wait_for_flood=False)

    def find_marker(self, tid: int, marker: str) -> int | None:
        # Search back as far as it takes: the default (last 3 pages) misses a post that
        # 30+ replies followed while the agent was down, and it would be sent twice.
        # Found posts end the search early; only a post that never arrived costs a full read.
        # A post a moderator has not released yet is not taken (it is not published); once
        # released it is found wherever it landed.
        post = self.client.find_post_by_marker(tid, marker, max_pages=MARKER_SEARCH_PAGES)
        return post.pid if post is not None else None

    def new_thread(self, fid: int, subject: str, message: str) -> NewThreadResult:
        result = self.client.new_thread(fid, subject, message, wait_for_flood=False)
        if result.tid is not None and result.pid is None and not result.moderated:
            # 7.2's answer names no pid: the first post's, from the page (the thread is
            # stored either way: a failed read here only leaves the pid unknown).
            try:
                page = self.client.fetch_page(result.tid, 1)
            except ForumError:
                return result
            first = next((p for p in page.posts if p.floor == 1), None)
            if first is not None:
                return NewThreadResult(tid=result.tid, pid=first.pid)
        return result

    def find_thread_marker(self, fid: int, marker: str, *,
                           skip: Collection[int] = ()) -> tuple[int, int | None] | None:
        # The newest pages of the board: the thread went in moments before the answer was lost.
        found = self.client.find_thread_by_marker(fid, marker, max_pages=THREAD_SEARCH_PAGES, skip=skip)
        return (found.tid, found.pid) if found is not None and found.tid is not None else None


@dataclass
class TickReport:
    at: datetime
    new_posts: int = 0
    edited_posts: int = 0
    drafts: list[Draft] = field(default_factory=list)
    published: list[PublishOutcome] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unreachable: bool = False  # some request found the forum unavailable (down, 5xx, timeout)
    unsaved: bool = False  # the game's state could not be saved this pass (see Agent.tick)
    missing_threads: list[int] = field(default_factory=list)  # configured tids the forum says do not exist


ProgressFactory = Callable[[int, int], Callable[[int], None]]


class PassHook(Protocol):
    """Work done at the end of each pass, after the thread posts went out: the director by
    forum PM (``forumbot.notify.Notifier``) — a layer above the agent, so it is handed in
    (``notifier=Notifier.for_agent``) rather than imported here."""

    def tick(self, now: datetime, report: TickReport) -> object: ...


class NoNotifier:
    """No director by PM: an agent built without one (a test's bare agent)."""

    def tick(self, now: datetime, report: TickReport) -> None:
        return None


class Agent:
    def __init__(
        self,
        rt: Runtime,
        client: DiscuzClient,
        *,
        rng: random.Random | None = None,
        progress: ProgressFactory | None = None,
        health: Health | None = None,
        notifier: Callable[["Agent"], PassHook] | None = None,
    ) -> None:
        self.rt = rt
        self.client = client
        self.publisher = ClientPublisher(client)
        self.rng = rng or random.Random()
        self.progress = progress
        self.health = health or Health()
        self._recovered = False
        # The database file this agent opened, and what became of it (tick): a file
        # emptied or replaced under a running agent is noticed, not written on.
        self._db_identity = identity(rt.store.path) if rt.store.path is not None else None
        self._db_lost: str | None = None
        # day → (day_basis, recheck_at) of the last time the day was decided (process_day)
        self._settled: dict[int, tuple[tuple, datetime]] = {}
        self._identity_basis: tuple | None = None  # identity.basis at the last check_identity
        self.watch = AlarmWatch(
            rt.store, rt.outbox, username=rt.settings.bot.username, config=str(rt.config.path),
            outage_after=timedelta(minutes=rt.settings.agent.outage_alarm_minutes))
        # ``forumbot login`` (the operator fixed the account) leaves its time here; the
        # client then takes the session it saved instead of trying the old password.
        self._operator_login = rt.store.get_meta(OPERATOR_LOGIN)
        # the director by forum PM ([notify]), built by the caller's factory
        self.notifier = notifier(self) if notifier is not None else NoNotifier()
        # The calendar's moments: open, remind, close and lock each day (SPEC §11)
        self.days = DayDuties(self)
        # When the game ended (a faction won, or the director ended it): read at the start
        # of each pass (``game_end``); no day that starts at or after it is played.
        self.ended: datetime | None = None

    # ------------------------------------------------------------------ the loop

    def start(self) -> None:
        """Log in (or reuse the saved session) and settle how threads are read.
        Failures here are logged; the loop retries them at its own pace."""
        try:
            self.client.ensure_logged_in()
            self.choose_source()
        except ForumError as exc:
            log.warning("启动：%s", exc)

    def choose_source(self) -> str:
        """Thread pages or the mobile API, decided once per game and kept in the store:
        switching mid-game would make every post look edited (the two render a message
        differently). Pages carry the edit stamps (本帖最后由…编辑) the API strips, and
        seconds in their time titles; the API is chosen only when the config asks for it,
        or when the pages show minutes only (dateconvert off) and module=check says the
        API is on."""
        store = self.rt.store
        source = store.get_meta("read_source")
        if source is None:
            wanted = self.rt.settings.bot.use_api
            if wanted is not None:
                source = "api" if wanted else "html"
            else:
                source = self._probe_source()
            if source is None:
                # No thread yet (the bot opens the days' threads itself): decided once one
                # exists — pages until then.
                self.client.use_api = False
                return "html"
            store.set_meta("read_source", source)
            log.info("读帖方式：%s", "论坛的手机版接口" if source == "api" else "帖子页面")
        self.client.use_api = source == "api"
        return source

    def _probe_source(self) -> str | None:
        tids = sorted(tid for day in self.rt.config.days for tid in day.threads())
        if not tids:
            return None
        self.client.use_api = False
        page = self.client.fetch_page(tids[0], 1)
        minutes_only = any(p.time_precision is TimePrecision.MINUTE for p in page.posts)
        if minutes_only and self.client.check_api():
            return "api"
        return "html"

    def run(self, stop: threading.Event, *, max_ticks: int | None = None) -> TickReport | None:
        """Tick until ``stop`` is set. Errors back off exponentially (with jitter) and
        are logged; they never end the run. Returns the last pass's report."""
        failures = 0
        ticks = 0
        report = None
        while not stop.is_set():
            report = self.tick()
            ticks += 1
            # A full disk is not the forum's fault: keep polling at the usual pace, so
            # the agent catches up as soon as it can write again.
            failures = failures + 1 if report.errors and not report.unsaved else 0
            if max_ticks is not None and ticks >= max_ticks:
                return report
            # A calendar's moment (a deadline: the closing post must fall in its minute)
            # is not slept through.
            self._wait(stop, self.days.wait_at_most(self.rt.clock.now(), self._interval(failures)))
        return report

    def _interval(self, failures: int) -> float:
        a = self.rt.settings.agent
        base = a.poll_interval_seconds
        if failures:
            base = min(base * (2 ** min(failures, 6)), max(base, 600.0))
        jitter = a.poll_jitter_seconds
        return max(1.0, base + self.rng.uniform(-jitter, jitter))

    def _wait(self, stop: threading.Event, seconds: float) -> None:
        """Wait ``seconds`` of game time, returning at once when asked to stop."""
        clock = self.rt.clock
        end = clock.now() + timedelta(seconds=seconds)
        while not stop.is_set():
            left = (end - clock.now()).total_seconds()
            if left <= 0 or wait(clock, stop, min(left, 60.0)):
                return

    def tick(self) -> TickReport:
        """One pass. When the game's state cannot be saved (disk full, folder read-only),
        the pass ends where the first write failed: nothing is drafted or published
        without its record on disk (exactly-once depends on it), the forum was still
        read, and the next pass reads again from the last saved cursor — so nothing is
        lost. Said once (``health``), not on every pass."""
        now = self.rt.clock.now()
        report = TickReport(at=now)
        lost = self.database_lost()
        if lost is not None:
            # Nothing read, drafted or published: the state on disk is gone, what this
            # connection would write nobody else can read, and a post sent now could be
            # sent again by the agent that starts on a restored file.
            self.health.fail(DATABASE, lost, "数据库文件在机器人运行时被改动", now=now)
            report.errors.append(lost)
            report.unsaved = True
            self.health.beat(now)
            return report
        try:
            self._pass(now, report)
        except Exception as exc:
            problem = storage_problem(exc, self.rt.store.path)
            if problem is None:
                raise
            self.health.fail(STATE, problem.message, problem.detail, now=now)
            report.errors.append(f"保存状态：出错：{problem.message}（{problem.detail}）")
            report.unsaved = True
        else:
            self.health.ok(STATE, now=now)
        finally:
            # A forum found unreachable in this pass sent nothing more in it (one
            # request's retries, not every request's); the next pass tries it afresh.
            self.client.forget_unreachable()
        self.health.beat(now)
        return report

    def database_lost(self) -> str | None:
        """Why the game's database file is no longer the one this agent opened — emptied,
        cut short, overwritten, deleted or replaced (``forumbot.store.integrity``) — or
        None. Once lost, lost until a restart: the file may be restored meanwhile, but
        this connection's caches and WAL belong to the old one."""
        path = self.rt.store.path
        if self._db_lost is None and path is not None:
            what = identity_change(path, self._db_identity) or damage(path)
            if what is not None:
                self._db_lost = damaged_text(path, what, running=True)
                log.error("%s", self._db_lost)
        return self._db_lost

    def _pass(self, now: datetime, report: TickReport) -> None:
        self.watch.begin()
        self.ended = self.game_end()
        requests_before = self.client.request_count
        self.adopt_operator_login()
        self._learn_generation()
        if self.rt.store.get_meta("read_source") is None:
            try:
                self.choose_source()
            except ForumError as exc:
                self._note(report, "选择读帖方式", exc)
        if not self._recovered:
            self._recover(now, report)
        try:
            self.poll(now, report)
        except ForumError as exc:
            self._note(report, "读帖", exc)
        self.check_identity(now)
        # The first read tells a "discuz = auto" forum's generation: learnt before anything
        # is drafted, so the first pass's posts link in its scheme already.
        self._learn_generation()
        # The calendar first: a day's closing post is drafted before its final count, which
        # waits for it (on 7.2 it settles the deadline's minute).
        self.days.draft_due(now, report)
        self.decide_days(now, report)
        self.seal_and_end(now, report)
        self.check_moderated(now, report)
        self.publish(now, report)
        self.days.settle(now, report)
        self.notifier.tick(now, report)  # after the thread posts: PMs never delay them
        self.settle_results(now)
        self._alarms(now, report, reached=self.client.request_count > requests_before
                     and not report.unreachable)

    def decide_days(self, now: datetime, report: TickReport) -> None:
        """Rule, tally and draft every active day (``process_day``); one day's trouble
        does not stop the others."""
        state = current_state(self.rt.config, self.rt.store)
        for day in self.active_days(state, now):
            try:
                self.process_day(day, now, report)
            except ForumError as exc:
                self._note(report, f"第{day.number}日", exc)
            except Exception as exc:  # noqa: BLE001 - an unattended agent logs and goes on
                if storage_problem(exc, self.rt.store.path) is not None:
                    raise  # the whole pass stops: see tick
                log.exception("第%d日：意外的错误", day.number)
                report.errors.append(f"第{day.number}日：意外的错误：{type(exc).__name__}: {exc}")
        if self.ended is not None and self.rt.store.game_blocked() is None:
            # The night that ended the game is still announced (who died, their last
            # words) the morning after, though that day is never played.
            after = [d for d in state.days if self.after_end(d.start)]
            night_of = [d for d in state.days if d.deadline <= self.ended]
            if after and night_of and max(d.number for d in night_of) + 1 == min(d.number for d in after):
                self.draft_announcement(state, min(d.number for d in after), now, report)

    def seal_and_end(self, now: datetime, report: TickReport) -> None:
        """The sealed deal (SPEC §10.1, §10.5): the commitment drafted at the start, the
        end post — winner, rule, reveal text — once a faction has won or the director
        ended the game. Nothing without identities; nothing while another state of this
        game posts in its threads."""
        from forumbot.game import sealing

        if self.rt.config.identities is None or self.rt.store.game_blocked() is not None:
            return
        try:
            report.drafts.extend(sealing.tick(self.rt, current_state(self.rt.config, self.rt.store), now))
        except Exception as exc:  # noqa: BLE001 - an unattended agent logs and goes on
            if storage_problem(exc, self.rt.store.path) is not None:
                raise
            # The type only: the message could name the sheet's contents.
            log.error("身份封存或结束帖：意外的错误（%s）", type(exc).__name__)
            report.errors.append(f"身份封存或结束帖：意外的错误：{type(exc).__name__}")

    # ------------------------------------------------------------------ whose posts

    def check_identity(self, now: datetime) -> None:
        """After reading: are the bot's posts in the game's threads all this state's (or
        taken over)? Another state's of this game stop the game posting and drafting,
        another game's stop posting in that thread, each with its alarm, until the
        director decides (``forumbot.game.provenance``). When that changes, every day is decided
        again (what was held back is drafted, or nothing more is)."""
        from forumbot.game.provenance import basis, settle_alarms
        from forumbot.game.takeover import absorb

        seen = basis(self.rt.store)
        if seen == self._identity_basis:
            return  # nothing new was read, decided or entered: an idle pass costs one lookup
        self._identity_basis = seen
        before = self._blocks()
        found = settle_alarms(self.rt, now)
        if absorb(self.rt, found, now):
            self._settled.clear()
        after = self._blocks()
        if after != before:
            self._settled.clear()
            if after[0]:
                log.warning("论坛上有本局另一份状态发的帖子：本局暂停发帖，等导演决定（forumbot adopt 接管，"
                            "或 forumbot mark-copy 确认是副本）")
            elif before[0]:
                log.info("本局恢复发帖：论坛上本局的帖子都已属于这份状态")
            for key in sorted(set(after[1]) - set(before[1])):
                log.warning("主题 %s 里有另一局的机器人帖子：不在那里发帖（请改正配置里的帖子号）", key.partition(":")[2])

    def _blocks(self) -> tuple[bool, tuple[str, ...]]:
        from forumbot.store import FOREIGN_GAME

        store = self.rt.store
        return (store.game_blocked() is not None, tuple(a.key for a in store.alarms(kind=FOREIGN_GAME)))

    # ------------------------------------------------------------------ alarms

    def _learn_generation(self) -> None:
        """Which Discuz the client found: kept in the store (the director's commands draft
        posts too) for the links the bot's posts carry, and for the alarms' admin paths."""
        generation = self.client.generation
        if generation is None:
            return
        self.watch.generation = generation.value
        if self.rt.store.get_meta("discuz") != generation.value:
            from forumbot.game.render import use_generation

            self.rt.store.set_meta("discuz", generation.value)
            use_generation(self.rt.env, generation.value)

    def _alarms(self, now: datetime, report: TickReport, *, reached: bool) -> None:
        """Raise and clear the alarms for what this pass saw (``forumbot.game.alarms``)."""
        self._learn_generation()
        self.watch.finish(self.rt.clock.now(), reached=reached, login_blocked=self.client.login_blocked,
                          logged_in=self.client.logged_in, began=now)

    def adopt_operator_login(self) -> bool:
        """After a failed login the client tries no more; ``forumbot login`` (run by the
        operator with the fixed account) logs in and saves the session. Noticed here, each
        pass: the client takes that session — no restart, and no login with a password
        this process may still hold wrong."""
        stamp = self.rt.store.get_meta(OPERATOR_LOGIN)
        if not stamp or stamp == self._operator_login:
            return False
        self._operator_login = stamp
        if self.client.adopt_saved_session():
            log.info("运维人员已让机器人登录（forumbot login，%s）：改用那次的登录", stamp)
            return True
        log.warning("forumbot login 在 %s 运行过，但没有找到保存的登录"
                    "（设置了 [bot].cookie_file 吗？）；允许机器人再次自己登录", stamp)
        return False

    def _recover(self, now: datetime, report: TickReport) -> None:
        """At start: settle drafts a killed process left half-published, before anything
        new is sent."""
        try:
            report.published += self.rt.outbox.recover(self.publisher, now)
            self._recovered = True
        except ForumError as exc:
            self._note(report, "恢复未发完的帖子", exc)

    def _note(self, report: TickReport, what: str, exc: Exception) -> None:
        self.watch.saw(exc)
        # 「读帖子 12：论坛拒绝：抱歉，指定的主题不存在…」: what was being done, what kind of
        # trouble, the words; the service's game list reads the first two (service.game).
        kind = "论坛无法访问" if isinstance(exc, ForumUnavailable) else (
            "论坛拒绝" if isinstance(exc, ForumRefused) else "出错")
        report.unreachable = report.unreachable or isinstance(exc, ForumUnavailable)
        message = f"{what}：{kind}：{exc}"
        log.warning(message)
        report.errors.append(message)

    # ------------------------------------------------------------------ reading

    def active_days(self, state: GameState, now: datetime) -> list[DayWindow]:
        return [d for d in state.days if d.start <= now and not self.after_end(d.start) and (
            now < d.deadline + GRACE_AFTER_DEADLINE or not self._final_published(d.number))]

    def game_end(self) -> datetime | None:
        """When the game ended (SPEC §10.4–10.5: the win on the game as recorded, or the
        director's 游戏结束), None while it goes on. A day that starts at or after it is
        not played: no threads opened, read, counted or posted in (宣布阵营获得胜利会立即
        终止一切结算); the day in which it ended stops drafting counts from that moment."""
        from forumbot.game.nightrun import ended_at

        try:
            return ended_at(self.rt)
        except Exception as exc:  # noqa: BLE001 - an unattended agent goes on counting
            if storage_problem(exc, self.rt.store.path) is not None:
                raise
            log.error("判断游戏是否结束：意外的错误（%s）", type(exc).__name__)  # the type only: secrets
            return None

    def after_end(self, moment: datetime) -> bool:
        """``moment`` is at or after the game's end (as read at this pass's start)."""
        return self.ended is not None and moment >= self.ended

    def _final_published(self, day: int) -> bool:
        draft = final_draft(self.rt.outbox, day)
        return draft is not None and draft.state is DraftState.PUBLISHED

    def poll(self, now: datetime, report: TickReport) -> None:
        self.watch.configured = {tid for day in self.rt.config.days for tid in day.threads()}
        for tid in self.threads_to_poll(now):
            try:
                self.poll_thread(tid, now, report)
            except ThreadNotFound as exc:  # a thread gone (or a wrong tid): an alarm, the others are read
                self._note(report, f"读帖子 {tid}", exc)
                roles = [(d.number, role) for d in self.rt.config.days for t, role in d.threads().items() if t == tid]
                self.watch.thread_missing(tid, roles, exc)
                report.missing_threads.append(tid)
            except ForumUnavailable as exc:
                self._note(report, f"读帖子 {tid}", exc)
            else:
                self.watch.thread_read(tid)

    def threads_to_poll(self, now: datetime) -> list[int]:
        """What a pass reads: every thread of the active days, once each. (The service's
        scheduler narrows it to the threads due now: ``forumbot.service``.)"""
        state = current_state(self.rt.config, self.rt.store)
        tids: dict[int, str] = {}
        for day in self.active_days(state, now):
            for tid, role in day.threads().items():
                tids.setdefault(tid, role)
        return sorted(tids)

    def poll_thread(self, tid: int, now: datetime, report: TickReport, *, rescan: bool = False) -> None:
        store = self.rt.store
        saved = None if rescan else store.cursor(tid)
        began = self.rt.clock.now()
        if saved is None:
            posts, cursor = self.backfill(tid)
            store.set_meta(f"read_whole:{tid}", now.isoformat())
        else:
            old = ClientCursor(tid, saved.last_page, saved.last_pid or 0, saved.total_pages, saved.ppp)
            posts, cursor = self.client.read_new(old)
        with store.write():  # the posts and the read that carried them (forumbot evidence)
            result = store.record_posts(posts, now)
            store.record_fetch(tid, kind="rescan" if rescan else "poll" if saved else "backfill",
                               first_page=saved.last_page if saved else 1, last_page=cursor.last_page,
                               total_pages=cursor.total_pages, pids=[p.pid for p in posts], result=result,
                               started_at=began, ended_at=self.rt.clock.now())
            # In the same transaction: one commit (one fsync) per read, not two.
            store.save_cursor(ThreadCursor(cursor.tid, cursor.last_page, cursor.last_pid,
                                           cursor.total_pages, cursor.ppp, now))
        report.new_posts += len(result.new)
        report.edited_posts += len(result.edited)
        if result.new or result.edited:
            log.info("帖子 %d：新帖 %d 篇，编辑 %d 篇", tid, len(result.new), len(result.edited))
        self.thread_read(tid, posts, began)

    def thread_read(self, tid: int, posts: list[Post], began: datetime) -> None:
        """After a read of ``tid`` that began at ``began`` (the service's board watch
        learns what the thread's listing row should show from the posts of its last page)."""

    def backfill(self, tid: int) -> tuple[list[Post], ClientCursor]:
        """A whole thread, page by page (first start, or a rescan at the deadline), with
        a progress bar when it has more than one page."""
        bar: Callable[[int], None] | None = None

        def on_page(page: int, total: int) -> None:
            nonlocal bar
            if bar is None and self.progress is not None and total > 1:
                bar = self.progress(tid, total)
            if bar is not None:
                bar(page)

        return self.client.read_new(ClientCursor(tid), on_page=on_page)

    # ------------------------------------------------------------------ deciding

    def process_day(self, day: DayWindow, now: datetime, report: TickReport) -> None:
        """Rule, tally, draft and settle one day — unless nothing it depends on changed
        since it last ran: the day's posts, the events, the outbox, the stored tallies and
        cards, any other process's write (``day_basis``), and no moment that matters
        passed (``recheck_at``). An idle pass then costs its poll requests and a few
        indexed queries, not a re-tally of every post of the day."""
        basis = day_basis(self.rt.store, day)
        settled = self._settled.get(day.number)
        if settled is not None and settled[0] == basis and now < settled[1]:
            return
        errors = len(report.errors)
        self.decide_day(day, now, report)
        # The basis from before this run: what the run itself wrote (a tally, a draft, a
        # result) makes the next pass run once more, and that one finds nothing to do. A
        # run cut short by the forum (the deadline's re-read) is not remembered at all.
        if len(report.errors) == errors:
            self._settled[day.number] = (basis, self.recheck_at(day, now))

    def recheck_at(self, day: DayWindow, now: datetime) -> datetime:
        """The next moment that changes what ``decide_day`` does with unchanged data: the
        deadline (the re-read, then the final count once the settle delay is over), and
        before it the end of the running-count interval of the day's newest count (a
        changed tally waits for it)."""
        a = self.rt.settings.agent
        settle = day.deadline + timedelta(minutes=a.final_count_delay_minutes)
        if now >= settle:
            return NEVER
        if now >= day.deadline:
            return settle
        moments = [day.deadline]
        if day.vote_thread is not None:
            interval = timedelta(minutes=a.running_count_interval_minutes)
            moments += [d.created_at + interval for d in self.rt.outbox.drafts(*RUNNING_COUNT_LIVE)
                        if d.kind is DraftKind.RUNNING_COUNT and d.day == day.number
                        and d.created_at + interval > now]
        return min(moments)

    def decide_day(self, day: DayWindow, now: datetime, report: TickReport) -> None:
        rt = self.rt
        if now >= day.deadline and not rt.store.get_meta(f"rescanned:day{day.number}"):
            # Edits on earlier pages are only seen by reading them again: once, at the
            # deadline, before the final count.
            for tid in day.threads():
                whole = rt.store.get_meta(f"read_whole:{tid}")
                if whole and datetime.fromisoformat(whole) >= day.deadline:
                    continue  # already read from page 1 since the deadline (a first start)
                try:
                    self.poll_thread(tid, now, report, rescan=True)
                except ForumUnavailable as exc:
                    self._note(report, f"截止后重读帖子 {tid}", exc)
                    return
            rt.store.set_meta(f"rescanned:day{day.number}", now.isoformat())
        counted = count_day(rt.config, rt.store, day.number)
        state, ballots, result, tally = counted.state, counted.ballots, counted.result, counted.data
        changed = rt.store.save_tally(day.number, tally, at=now)
        if changed:
            log.info("第%d日计票：%s；弃权 %s，未投票 %d 人", day.number,
                     "，".join(f"{k} {v}票" for k, v in tally["counts"].items()) or "无有效票",
                     tally["abstain"], len(tally["non_voters"]))
        if day.vote_thread is None:
            return
        if rt.store.game_blocked() is not None:
            # Another state of this game posted here and the director has not said what it
            # is: nothing is drafted (it might be what that state posted already).
            return
        # This day's own morning announcement. It is drafted with the day before's final
        # count as a rule, but the day before leaves the active days 6 h after its
        # deadline: an agent that was down (or, on a loaded machine, slow) until then
        # would otherwise never draft the announcement of a night entered meanwhile.
        self.draft_announcement(state, day.number, now, report)
        if self.ended is not None and self.ended < day.deadline and now >= self.ended:
            return  # the game ended during the day: its votes decide nothing any more
        if now < day.deadline:
            self.answer_count_requests(state, day, tally, ballots, now, report)
            self.draft_running_count(state, day, tally, now, report)
            return
        settle = timedelta(minutes=rt.settings.agent.final_count_delay_minutes)
        if now < day.deadline + settle:
            return  # posts from the deadline's last seconds may still be on their way
        if self.days.holds_final(day, now):
            return  # the closing post settles the deadline's minute (7.2): it goes first
        self.draft_final_count(state, day, tally, now, report)
        self.apply_result(day, tally, now)
        self.propose(state, day, result, now)
        self.draft_announcement(current_state(rt.config, rt.store), day.number + 1, now, report)

    def _hide_voters(self) -> bool:
        return counts_only(self.rt.config.rules, self.rt.settings.agent.counts_only)

    def draft_running_count(self, state: GameState, day: DayWindow, tally: dict, now: datetime,
                            report: TickReport, *, force: bool = False) -> Draft | None:
        """A running count when the tally differs from the one last counted (kept with the
        draft, so a kill between tallying and drafting loses nothing), at most one per
        configured interval."""
        if not any(v.get("valid") for v in tally["votes"]) and not force:
            return None
        digest = tally_digest(tally)
        key = f"running_count_tally:day{day.number}"
        if not force and self.rt.store.get_meta(key) == digest:
            return None
        outbox = self.rt.outbox
        tid = day.vote_thread
        assert tid is not None
        mine = [d for d in outbox.drafts() if d.kind is DraftKind.RUNNING_COUNT and d.tid == tid
                and d.day == day.number and d.state not in (DraftState.REJECTED,)]
        interval = timedelta(minutes=self.rt.settings.agent.running_count_interval_minutes)
        if not force and any(d.created_at > now - interval for d in mine
                             if d.state is not DraftState.SUPERSEDED):
            return None
        # The body shown to the director now; what is posted is rendered again when it is
        # published (render_at_publish), and so is the choice of the post it edits.
        body = count_body(self.rt.env, tally, state=state, rules=self.rt.config.rules, now=now,
                          final=False, hide_voters=self._hide_voters())
        with self.rt.store.write():
            draft = outbox.create_draft(DraftKind.RUNNING_COUNT, tid, body, now=now, day=day.number,
                                        edit_pid=self._count_post(tid, day.number))
            self.rt.store.set_meta(key, digest)
        report.drafts.append(draft)
        log.info("已起草第%d日计票 #%d", day.number, draft.id)
        return draft

    def draft_final_count(self, state: GameState, day: DayWindow, tally: dict, now: datetime,
                          report: TickReport) -> None:
        """The day's final count, once. If the director rejected it, a new one is drafted
        only when the tally has changed since (an alias added, a post voided): rejecting
        says "not this count", not "draft the same again"."""
        from forumbot.game.announce import draft_final
        from forumbot.game.takeover import posted_elsewhere

        store = self.rt.store
        # One on the forum that this state did not send (a lost database's, taken over):
        # recorded as this state's, never drafted again.
        if not any(d.state not in (DraftState.REJECTED, DraftState.SUPERSEDED)
                   for d in final_drafts(self.rt.outbox, day.number)) \
                and posted_elsewhere(self.rt, DraftKind.FINAL_COUNT.value, day.number, now):
            return
        earlier = final_drafts(self.rt.outbox, day.number)
        if any(d.state not in (DraftState.REJECTED, DraftState.SUPERSEDED) for d in earlier):
            return
        if earlier and store.get_meta(f"final_count_tally:day{day.number}") == tally_digest(tally):
            return
        draft = draft_final(self.rt, state, day, tally, now)
        report.drafts.append(draft)
        log.info("已起草第%d日最终计票 #%d（%s）", day.number, draft.id, draft_state_zh(draft.state))

    def apply_result(self, day: DayWindow, tally: dict, now: datetime) -> None:
        """Once the director has approved the final count, its result becomes game state
        AT THE DEADLINE (SPEC §9): the player voted out (双身份: an identity lost; S10: an
        idiot who reveals stays in), or day 1's sheriff. The approval is the decision;
        publishing may lag behind it without holding the game. A result recorded from a
        count that no longer stands is taken back (``gamelog.settle_result``)."""
        from forumbot.game.gamelog import settle_result

        for line in settle_result(self.rt, day.number, now):
            log.info("%s", line if line.startswith(f"第{day.number}日") else f"第{day.number}日：{line}")

    def settle_results(self, now: datetime) -> None:
        """At the end of every pass: a final count approved after the days were processed
        — a 批准 by PM is read at the end of the pass and published at once — becomes game
        state now. No later pass would look at its day again: a day whose count is out
        leaves ``active_days`` six hours after its deadline, and once the last day's count
        is out the game is over (``serve`` passes it no more). The last day's vote-out
        was lost that way (issue 18)."""
        from forumbot.game.gamelog import settle_result, unsettled_days

        for number in unsettled_days(self.rt):
            for line in settle_result(self.rt, number, now):
                log.info("第%d日：%s", number, line)

    def propose(self, state: GameState, day: DayWindow, result: TallyResult, now: datetime) -> None:
        """Card proposals at the day's end; the director decides (``forumbot card``)."""
        key = f"proposed:day{day.number}"
        if self.rt.store.get_meta(key):
            return
        # Lurking over several days counts the earlier days' threads too (only those).
        span = self.rt.config.rules.lurk_span_days
        tids: dict[int, str] = {}
        for d in state.days:
            if day.number - span < d.number <= day.number:
                for tid, role in d.threads().items():
                    tids.setdefault(tid, role)
        ballots = ballots_for(self.rt.store, tids.items())
        rules = self.rt.config.rules
        for proposal in propose_cards(ballots, state, day.number, rules, result):
            # The rules name a card only for some offences (no vote → yellow); for the
            # others the proposal suggests the mildest, and the director decides. Under
            # the points rules (双身份) it is a deduction, its number the director's.
            colour = "points" if rules.card_policy is CardPolicy.POINTS else proposal.card or "blue"
            floors = "、".join(f"{f}楼" for f in proposal.floors if f)
            self.rt.store.propose_card(
                proposal.player, colour, proposal.kind.value,
                key=f"{proposal.kind.value}:{proposal.player}:day{day.number}", at=now,
                day=day.number,
                detail=proposal.detail + (f"；楼层：{floors}" if floors else ""),
            )
        self.rt.store.set_meta(key, now.isoformat())

    def draft_announcement(self, state: GameState, day: int, now: datetime, report: TickReport) -> Draft | None:
        """The morning announcement of ``day``, once the director entered the night."""
        from forumbot.game.announce import draft_announcement

        if self.rt.store.night_result(day) is None:
            return None
        draft = draft_announcement(self.rt, day, now, state=state)
        if draft is not None and draft.created_at == now and draft.id not in {d.id for d in report.drafts}:
            report.drafts.append(draft)
        return draft

    # ------------------------------------------------------------------ 计票 requests

    def answer_count_requests(self, state: GameState, day: DayWindow, tally: dict, ballots,
                              now: datetime, report: TickReport) -> None:
        """Answer players who posted the request word in the voting thread. Looked for
        among all recent posts each pass (not only the new ones), and settled per pid —
        answered (dedupe key) or skipped (recorded) — so a restart loses none and repeats
        none."""
        a = self.rt.settings.agent
        oldest = now - timedelta(minutes=a.count_request_max_age_minutes)
        for ballot in ballots:
            post = ballot.post
            if (post.tid != day.vote_thread or post.posted_at < oldest
                    or a.count_request_word not in post.text or state.seat_of(post.author) is None):
                continue  # the bot's own counts say 计票 too: only players ask
            if (self.rt.outbox.by_dedupe_key(f"count_reply:{post.pid}") is not None
                    or self.rt.store.get_meta(f"count_request_skipped:{post.pid}")):
                continue
            self.answer_count_request(state, day, tally, post, now, report)

    def answer_count_request(self, state: GameState, day: DayWindow, tally: dict, post: Post,
                             now: datetime, report: TickReport) -> None:
        a = self.rt.settings.agent
        outbox = self.rt.outbox
        interval = timedelta(minutes=a.count_request_interval_minutes)
        recent = [d for d in outbox.drafts() if d.kind is DraftKind.COUNT_REPLY and d.tid == post.tid
                  and d.created_at > now - interval and d.state is not DraftState.REJECTED]
        if recent:
            why = f"距上一次回复计票请求不到 {a.count_request_interval_minutes:g} 分钟"
            with self.rt.store.write():
                self.rt.store.audit("bot", "count_request_skipped",
                                    {"pid": post.pid, "player": post.author, "why": why}, at=now)
                self.rt.store.set_meta(f"count_request_skipped:{post.pid}", now.isoformat())
            return
        body = count_body(self.rt.env, tally, state=state, rules=self.rt.config.rules, now=now,
                          final=False, hide_voters=self._hide_voters(), request_by=post.author)
        draft = outbox.create_draft(DraftKind.COUNT_REPLY, post.tid, body, now=now, day=day.number,
                                    quote_pid=post.pid, dedupe_key=f"count_reply:{post.pid}")
        report.drafts.append(draft)
        log.info("已起草给 %s 的计票回复 #%d（pid %d）", post.author, draft.id, post.pid)

    # ------------------------------------------------------------------ publishing

    def _count_post(self, tid: int, day: int) -> int | None:
        """The post a running count of ``day`` edits in place: the day's newest published
        running count (a refused edit posts anew, and later counts edit that one); None
        for a new post (the first of the day, or edit-in-place off)."""
        if not self.rt.settings.agent.running_count_edit_in_place:
            return None
        published = [d for d in self.rt.outbox.drafts(DraftState.PUBLISHED)
                     if d.kind is DraftKind.RUNNING_COUNT and d.tid == tid and d.day == day and d.pid]
        return max(published, key=lambda d: (d.published_at or d.created_at, d.id)).pid if published else None

    def _held_count(self, tid: int, day: int) -> Draft | None:
        """The day's running count held for moderation in ``tid``, if any."""
        return next((d for d in self.rt.outbox.drafts(DraftState.PENDING_MODERATION)
                     if d.kind is DraftKind.RUNNING_COUNT and d.tid == tid and d.day == day), None)

    def render_at_publish(self, draft: Draft, now: datetime) -> Refresh | None:
        """A running count (or a 计票 answer) says what is true when it is posted: the
        tally saved by this pass and the time left now, not those of its drafting. After
        the deadline it is not sent at all (superseded): the final count, which the
        director approves, speaks for the day. The outbox keeps a body the director
        edited by hand as edited, and the draft's marker either way."""
        if draft.kind is DraftKind.REMINDER:
            return self.days.render_reminder(draft, now)
        if draft.kind is DraftKind.CLOSING:
            return self.days.render_closing(draft, now)
        if draft.kind not in (DraftKind.RUNNING_COUNT, DraftKind.COUNT_REPLY) or draft.day is None:
            return None
        rt = self.rt
        edit_pid = self._count_post(draft.tid, draft.day) if draft.kind is DraftKind.RUNNING_COUNT \
            else draft.edit_pid
        try:
            state = state_for_day(rt.config, rt.store, draft.day)
            window = state.day(draft.day)
        except ValueError:
            state = window = None
        if window is not None and now >= window.deadline and not hand_edited(draft):
            # Before any wait: a count held back past the deadline is dropped, not kept
            # waiting to go out after the final count.
            return Refresh(edit_pid=edit_pid, drop="截止时间已过：进行中的计票不再发出，由最终计票代替")
        if draft.kind is DraftKind.RUNNING_COUNT and (held := self._held_count(draft.tid, draft.day)):
            # The count post waits for a moderator: another post would be held too. The
            # next count edits that one once it is released.
            return Refresh(wait=f"计票帖 #{held.id} 正等待论坛审核：通过后再更新计票")
        if hand_edited(draft) or state is None or window is None:
            return Refresh(edit_pid=edit_pid)  # the director's words go out as written
        snapshot = rt.store.tally(draft.day)
        if snapshot is None:
            return Refresh(edit_pid=edit_pid)
        request_by = None
        if draft.kind is DraftKind.COUNT_REPLY and draft.quote_pid is not None:
            if not rt.store.has_post(draft.quote_pid):
                return Refresh(edit_pid=edit_pid)
            request_by = rt.store.first_seen(draft.quote_pid).author
        body = count_body(rt.env, snapshot.data, state=state, rules=rt.config.rules, now=now,
                          final=False, hide_voters=self._hide_voters(), request_by=request_by)
        if draft.kind is DraftKind.RUNNING_COUNT:
            # What the thread will show is this tally: the next running count is due when
            # the tally differs from it, not from the one of the drafting.
            rt.store.set_meta(f"running_count_tally:day{draft.day}", tally_digest(snapshot.data))
        return Refresh(body=body, edit_pid=edit_pid)

    def check_moderated(self, now: datetime, report: TickReport) -> None:
        """Posts the forum holds for moderation are never sent again: each pass looks
        whether a moderator released them (by pid when the forum named it, else by the
        marker, searching back no further than the thread stood when it was sent). A
        released post is published; one still held keeps its alarm."""
        outbox = self.rt.outbox
        for draft in outbox.drafts(DraftState.PENDING_MODERATION):
            try:
                if draft.is_new_thread:
                    pid = self._released_thread(draft, now)
                    if pid is not None:
                        self.rt.store.clear_alarm(f"moderation:{draft.id}", at=now, detail={"pid": pid})
                        log.info("新帖 #%d 已由版主审核通过", draft.id)
                        report.published.append(PublishOutcome(draft.id, PublishHow.RELEASED,
                                                               DraftState.PUBLISHED, pid=pid or None))
                        continue
                else:
                    pid = self._released_pid(draft)
            except ForumUnavailable as exc:
                self._note(report, f"查看 #{draft.id} 是否已审核", exc)
                return
            except ForumError as exc:
                self._note(report, f"查看 #{draft.id} 是否已审核", exc)
                continue
            if pid is None:
                self.rt.store.raise_alarm(
                    AlarmKind.MODERATION.value, f"moderation:{draft.id}",
                    moderation_text(draft_id=draft.id, tid=draft.tid, kind=draft.kind.value,
                                    generation=self.watch.generation,
                                    place=draft_place_zh(draft) if draft.is_new_thread else None),
                    at=now, detail={"draft": draft.id, "tid": draft.tid, "pid": draft.pid})
                continue
            outbox.released(draft.id, pid, now=now)
            self.rt.store.clear_alarm(f"moderation:{draft.id}", at=now, detail={"pid": pid})
            log.info("#%d 已由版主审核通过，已发布（pid %d）", draft.id, pid)
            report.published.append(PublishOutcome(draft.id, PublishHow.RELEASED, DraftState.PUBLISHED, pid=pid))

    def _released_thread(self, draft: Draft, now: datetime) -> int | None:
        """A new thread held for moderation: the board lists it once a moderator released
        it (by its marker); then it is published with the tid the forum gives it."""
        found = self.client.find_thread_by_marker(draft.fid or 0, draft.marker, max_pages=THREAD_SEARCH_PAGES)
        if found is None or found.tid is None:
            return None
        self.rt.outbox.released_thread(draft.id, found.tid, found.pid, now=now)
        return found.pid or 0

    def _released_pid(self, draft: Draft) -> int | None:
        if draft.pid is not None:
            try:
                post = self.client.find_post(draft.tid, draft.pid)
            except PostNotFound:
                return None  # still invisible (or deleted by the moderator)
            if post.notice is ContentNotice.MODERATION_PENDING:
                return None
            return post.pid
        since = self.rt.outbox.moderation(draft.id).get("since_pid")
        found = self.client.find_post_by_marker(draft.tid, draft.marker, max_pages=MARKER_SEARCH_PAGES,
                                                since_pid=since if isinstance(since, int) and since else None)
        return found.pid if found is not None else None

    def publish(self, now: datetime, report: TickReport) -> None:
        """Publish what is approved. Refused for flood control (nothing stored, the draft
        back to approved): wait the forum's interval, read the threads again, decide the
        days again, and publish once more — so the count that goes out is rendered after
        the wait, with the votes that came during it. Once per call: a second refusal
        leaves the draft for the next pass."""
        outcomes = self._publish_once(now, report)
        flood = next((o for o in outcomes if o.how is PublishHow.DEFERRED
                      and isinstance(o.refusal, FloodControl)), None)
        if flood is None or not self.wait_out_flood(flood, report):
            return
        later = self.rt.clock.now()
        try:
            self.poll(later, report)
        except ForumError as exc:
            self._note(report, "poll", exc)
        self.decide_days(later, report)
        self._publish_once(later, report)

    def wait_out_flood(self, refused: PublishOutcome, report: TickReport) -> bool:
        """Wait the interval the forum named for ``refused`` (False: not waited — asked to
        stop). One second more than it names: 7.2 refuses until ``floodctrl`` seconds
        have passed, inclusive."""
        refusal = refused.refusal
        named = refusal.seconds if isinstance(refusal, FloodControl) else None
        seconds = (named or DEFAULT_FLOODCTRL) + 1
        if seconds > MAX_FLOOD_WAIT:
            # A forum that wants minutes between posts: the pass does not stand still that
            # long (reads, alarms, PMs); the draft stays approved for a later pass.
            log.warning("帖子 #%d 被论坛的灌水预防拒绝：论坛要求两次发帖间隔 %.0f 秒，留到之后的一轮再发",
                        refused.draft_id, seconds)
            return False
        log.warning("帖子 #%d 被论坛的灌水预防拒绝：等待 %.0f 秒，然后重新读帖，按那时的票型再发",
                    refused.draft_id, seconds)
        try:
            self.client.transport.pause(seconds)
        except ForumError as exc:  # Interrupted: the run is ending
            self._note(report, "flood control wait", exc)
            return False
        return True

    def _publish_once(self, now: datetime, report: TickReport) -> list[PublishOutcome]:
        try:
            outcomes = self.rt.outbox.publish_pending(self.publisher, now, render=self.render_at_publish)
        except ForumError as exc:
            self._note(report, "发帖", exc)
            return []
        self.watch.published(outcomes)
        waiting = [o for o in outcomes if o.how is PublishHow.WAITING]
        outcomes = [o for o in outcomes if o.how is not PublishHow.WAITING]
        for outcome in waiting:
            log.debug("#%d 等待：%s", outcome.draft_id, outcome.error)
        for outcome in outcomes:
            log.info("#%d %s%s%s", outcome.draft_id, _HOW_ZH.get(outcome.how.value, outcome.how.value),
                     f"（pid {outcome.pid}）" if outcome.pid else
                     (f"：{forum_error_zh(outcome.error)}" if outcome.error else ""),
                     "，等待论坛审核（版主放行之前别人看不到）" if outcome.moderated else "")
        report.published += outcomes
        return outcomes


# How a send went, for the log line of each draft sent (PublishHow's values).
_HOW_ZH = {"sent": "已发出", "found": "已在论坛上找到（上次已发出，不再重发）", "failed": "发送失败",
           "deferred": "稍后再发", "unresolved": "不确定是否已发出（再发之前会先在论坛上查找）",
           "superseded": "不再发出", "released": "已由版主审核通过"}


__all__ = ["Agent", "ClientPublisher", "OPERATOR_LOGIN", "TickReport"]
