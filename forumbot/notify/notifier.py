"""The director by forum PM, once per pass of the agent (``Agent._pass`` calls ``tick``).

One pass, in this order:

1. read the conversation with the director (one request: the newest page on X3.5, pages
   or the mobile API as the client decides; today's window on 7.2) — through the account's
   ``Switchboard``, which reads it once for every game of that director and hands each
   game its commands (``forumbot serve``; under ``forumbot run`` the board is the game's
   own) — every pass, not the
   inbox's unread list first: that costs the same one request, and opening a conversation
   clears its unread mark even for a message of the current second that the read cannot
   list yet, so the unread list would hide it for good;
2. every ``others_check_minutes``: the inbox's unread list (one request), for commands
   from anyone else (refused, audited, answered once an hour at most);
3. in ONE transaction per game: the director's new messages carried out (each message
   recorded with what it did, by its pmid: a message read twice is applied once) and the
   PM that answers them; then the matters due to be told join that PM while it is still
   queued — one PM, not one per matter;
4. if the director approved or re-sent something: those posts are published now, BEFORE
   any PM (see below);
5. the PMs sent (exactly once: ``pmbox``).

Order of sends. On X3.5 a PM and a thread reply share the sender's flood clock: a PM is
refused within 15 s of any post or PM (the client waits 16 s before one), while a reply
right after a PM is accepted (checked on a real X3.5). So thread posts go first in every
pass — the agent publishes before calling ``tick``, and ``tick`` publishes what the
director's PM just approved before sending its own PMs — and PMs go last, where waiting
for the flood clock delays nothing but themselves. The next pass is a poll interval
later, past the clock. 7.2 keeps no shared clock.

Reading. The director's messages are read with ``since_id`` one read behind the newest
id seen: a message of the current second is not listed, and a slow request of the same
second can be listed with a higher id first; re-reading one pass's messages costs
nothing (they are recorded by pmid) and loses none. The first read of a game only sets
where reading starts: older messages (another game's commands) are never carried out.

Nothing here runs while the forum is unreachable this pass (a PM goes through the same
forum); errors talking to the forum are noted in the pass's report like the agent's own.
"""

from __future__ import annotations

import json
import logging
import unicodedata
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from forumbot.discuz import errors
from forumbot.agent.health import storage_problem
from forumbot.wording import forum_error_zh
from forumbot.notify.codes import Codes
from parsers.commands import parse
from forumbot.notify.handle import ACTOR, Handler, state_line
from forumbot.notify.nightpm import NightPm
from forumbot.notify.reminders import queue_player_reminders
from forumbot.notify.passes import PassResult
from forumbot.notify.pmbox import PmBox, PmRow, SendOutcome
from forumbot.notify.switchboard import Item, Switchboard
from forumbot.notify.tell import (HELP, NOTIFY_ALARM_KEY, NOTIFY_ALARM_KIND, Matter, current_matters,
                                  in_quiet_hours, notice_text)
from forumbot.store.outbox import PublisherBusyError
from forumbot.game.runtime import Runtime
from forumbot.store.codec import iso
from parsers.pm import PrivateMessage

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from forumbot.agent.loop import Agent, TickReport
    from forumbot.discuz import DiscuzClient

__all__ = ["ACTOR", "FOREIGN_ACTOR", "Notifier", "PassResult", "game_name"]

log = logging.getLogger("forumbot.notify")

FOREIGN_ACTOR = "forum_user"  # the audit's actor for a command from someone else
HELP_EVERY = timedelta(hours=1)  # the help for a message without a command, at most this often
FOREIGN_ANSWER_EVERY = timedelta(hours=1)  # the refusal to one other user, at most this often
_PM_REFUSED_ZH = {
    "UnknownRecipient": "论坛说收件人不存在",
    "PmNotAccepted": "对方不接收机器人的短消息（黑名单、只接收好友的消息，或 uid 不存在）",
    "PmDailyLimit": "超过了论坛每日短消息的数量限制",
    "RobotForbidden": "论坛把机器人当成了搜索引擎（请把 `[bot].user_agent` 改成普通浏览器的）",
    "NoPermission": "机器人账号没有发短消息的权限",
    "NewbiePeriod": "机器人账号在新手见习期，不能发短消息",
}


def game_name(config: Path) -> str:
    """The game's name as ``forumbot serve`` gives it (its file's stem, or its folder's name
    for ``game.toml``), under ``forumbot run`` too: the same game has the same name."""
    from forumbot.config.gamefile import name_for

    return name_for(config)


class Notifier:
    def __init__(self, rt: Runtime, client: DiscuzClient | None, *,
                 publish: Callable[[datetime, TickReport], None] | None = None,
                 note: Callable[[TickReport, str, Exception], None] | None = None,
                 name: str | None = None) -> None:
        self.rt = rt
        self.client = client
        self.publish = publish
        self.note = note
        # The game's name, at the head of every PM and what the director types before a
        # command: the service's name for it (its file or folder), under `run` alike.
        self.name = name or game_name(rt.config.path)
        self.aliases: tuple[str, ...] = tuple(rt.settings.notify.short_names)
        self.board = Switchboard()  # its own, until the service joins it to the account's
        self.board.join(self)
        self.codes = Codes(rt.store, taken=lambda code: self.board.code_taken(code, self))
        self.pmbox = PmBox(rt.store, game=self.name)
        self.known_uid: int | None = None  # the director's uid, once known
        # Whether a PM may go now (None: always; the client waits for the flood clock).
        # ``forumbot serve`` sets it: PMs wait for the shared account's clock in the queue.
        self.may_send: Callable[[], bool] | None = None
        self._changed = False  # the director approved or re-sent something: publish, then say how it went
        self._unsaid: list[int] = []  # answers to 批准 / 重发 that will say how the post went
        self.nights = NightPm(self)  # the role accounts' night actions by PM (games with identities)

    def use_board(self, board: Switchboard) -> None:
        """Share the account's board (``forumbot serve``)."""
        self.board.leave(self)
        board.join(self)

    @classmethod
    def for_agent(cls, agent: Agent) -> Notifier:
        return cls(agent.rt, agent.client, publish=agent.publish, note=agent._note)

    @property
    def settings(self):
        return self.rt.settings.notify

    @property
    def reads_commands(self) -> bool:
        return bool(self.settings.enabled and self.settings.commands and self.client is not None)

    # ------------------------------------------------------------------ the pass

    def tick(self, now: datetime, report: TickReport) -> PassResult | None:
        nights = self.nights.active and self.client is not None and not report.unreachable
        if nights:
            self._night_pass(now, report)
        if not self.settings.enabled or self.client is None or report.unreachable:
            if nights:  # the players' answers go out even when the director is not told by PM
                self._guarded(lambda: self.send_pending(now), now, report)
            return None
        result = PassResult()
        uid = self.director_uid(now)
        if uid is None:
            if nights:
                self._guarded(lambda: self.send_pending(now), now, report)
            return result
        self._guarded(lambda: self._pass(uid, now, report, result), now, report)
        return result

    def _night_pass(self, now: datetime, report: TickReport) -> None:
        """The role accounts' PMs (``forumbot.notify.nightpm``), before the director's."""
        self._guarded(lambda: self.nights.tick(now), now, report, what="夜晚的站内信")

    def _guarded(self, work: Callable[[], object], now: datetime, report: TickReport, *,
                 what: str = "导演的站内信") -> None:
        try:
            work()
        except errors.ForumUnavailable as exc:  # the forum is down: the pass says so (outage, backoff)
            if self.note is not None:
                self.note(report, what, exc)
            else:
                log.warning("%s：%s", what, exc)
        except errors.ForumError as exc:
            # A refusal of the PM pages is no reason to slow the game's polling down: it is
            # logged, and one the director must know of is an alarm (on the desk, in status).
            log.warning("%s：%s", what, forum_error_zh(f"{type(exc).__name__}: {exc}"))
            if type(exc).__name__ in _PM_REFUSED_ZH:
                self._cannot_reach(exc, now)
        except Exception as exc:  # noqa: BLE001 - the PMs never stop the game's counting
            if storage_problem(exc, self.rt.store.path) is not None:
                raise
            log.exception("%s：意外的错误", what)
            report.errors.append(f"{what}：意外的错误：{type(exc).__name__}: {exc}")

    def _pass(self, uid: int, now: datetime, report: TickReport, result: PassResult) -> None:
        if self.settings.commands:
            self.board.read(self, uid, now, result)
        self._tell(uid, now, result)
        if self._changed and self.publish is not None:
            self._changed = False
            self.publish(now, report)  # what the director just approved goes before any PM
            self._say_what_went_out(now)
        self._drop_stale(now)
        queue_player_reminders(self.rt, self.pmbox, now)  # [calendar].remind_by_pm (SPEC §11)
        result.sent = self.send_pending(now)

    def _say_what_went_out(self, now: datetime) -> None:
        """The answer to 批准 / 重发 was written before the post went out: it gains a line
        saying where that post stands now (published with its pid, held by the forum,
        waiting for the flood clock, refused) — while it is still queued."""
        unsaid, self._unsaid = self._unsaid, []
        for row_id in unsaid:
            row = self.pmbox.get(row_id)
            drafts = row.detail.get("sent_drafts") or []
            if row.purpose != "reply" or row.part != row.parts or not drafts:
                continue
            lines = [f"现在：{state_line(self.rt, self.rt.outbox.get(d))}" for d in drafts]
            self.pmbox.amend(row_id, row.body + "\n" + "\n".join(lines), now=now, charset=self._charset())

    # ------------------------------------------------------------------ who the director is

    def director_uid(self, now: datetime) -> int | None:
        """``[notify].director_uid``, or the uid of the director's posts in the game's
        threads (the director opens them). Kept in the store; a config change (another
        director) looks again."""
        if self.known_uid is None:
            self.known_uid = self._director_uid(now)
        return self.known_uid

    def _director_uid(self, now: datetime) -> int | None:
        s = self.settings
        if s.director_uid is not None:
            return s.director_uid
        name = s.director
        if not name:
            return None
        cached = json.loads(self.rt.store.get_meta("notify:director") or "{}")
        if cached.get("name") == name and isinstance(cached.get("uid"), int):
            return cached["uid"]
        uid = self._uid_from_posts(name)
        if uid is None:
            if self.rt.store._one("SELECT 1 AS x FROM posts LIMIT 1") is not None:
                self.rt.store.raise_alarm(
                    NOTIFY_ALARM_KIND, NOTIFY_ALARM_KEY,
                    f"找不到导演“{name}”的论坛 uid（游戏的帖子里没有导演发的帖），机器人无法给导演发站内信。"
                    "请在配置的 `[notify]` 里写上 `director_uid = 导演的uid`（导演个人空间地址里 uid= 后面的数字），"
                    "然后重启机器人", at=now, detail={"director": name})
            return None
        self.rt.store.set_meta("notify:director", json.dumps({"name": name, "uid": uid}, ensure_ascii=False))
        log.info("导演 %s 的 uid 是 %d（从其发帖得知）", name, uid)
        return uid

    def _uid_from_posts(self, name: str) -> int | None:
        rows = self.rt.store.db.query("SELECT DISTINCT author, author_uid FROM posts WHERE author_uid IS NOT NULL")
        wanted = unicodedata.normalize("NFKC", name).casefold()
        exact = [r["author_uid"] for r in rows if r["author"] == name]
        if exact:
            return int(exact[0])
        folded = {int(r["author_uid"]) for r in self.rt.store.db.query(
            "SELECT DISTINCT author, author_uid FROM posts WHERE author_uid IS NOT NULL")
                  if unicodedata.normalize("NFKC", r["author"] or "").casefold() == wanted}
        return folded.pop() if len(folded) == 1 else None

    # ------------------------------------------------------------------ reading

    def meta_int(self, key: str) -> int | None:
        value = self.rt.store.get_meta(key)
        return int(value) if value and value.lstrip("-").isdigit() else None

    def conversation_top(self, uid: int) -> int | None:
        """The newest pmid seen in the conversation with ``uid`` (None: never read)."""
        return self.meta_int(f"notify:top:{uid}")

    def listens_since(self, uid: int) -> int:
        """The director's messages above this pmid are this game's to consider: the newest
        one when the game first read the conversation (0 for a game that began reading
        before this was kept: it has recorded what it handled)."""
        return self.meta_int(f"notify:from:{uid}") or 0

    def handled(self, pmid: int) -> bool:
        return self.rt.store._one("SELECT 1 AS x FROM notify_handled WHERE pmid = ?", (pmid,)) is not None

    _handled = handled

    def read_others(self, exclude: set[int], now: datetime, *, client: DiscuzClient | None = None
                    ) -> list[PrivateMessage]:
        """Unread conversations with anyone but the directors (``exclude``) and the bot,
        every ``others_check_minutes``."""
        client = client or self.client
        assert client is not None
        last = self.rt.store.get_meta("notify:others_at")
        every = timedelta(minutes=self.settings.others_check_minutes)
        if last and now - datetime.fromisoformat(last) < every:
            return []
        self.rt.store.set_meta("notify:others_at", now.isoformat())
        found: list[PrivateMessage] = []
        for conversation in client.unread_conversations():
            if conversation.uid in exclude or conversation.uid == client.uid:
                continue
            since = self.conversation_top(conversation.uid)
            messages = client.read_conversation(conversation.uid, since_id=since)
            newest = max([m.id for m in messages] + [since or 0])
            self.rt.store.set_meta(f"notify:top:{conversation.uid}", str(newest))
            found += [m for m in messages if not m.own and not self.handled(m.id)]
        return found

    # ------------------------------------------------------------------ deciding

    def take(self, items: list[Item], uid: int, now: datetime, result: PassResult | None) -> bool:
        """The director's messages as the board hands them to this game, in ONE transaction:
        its commands carried out, each message recorded (by pmid: never taken again), and
        one PM answering them all. True when there is something to send or publish."""
        store = self.rt.store
        result = result if result is not None else PassResult()
        with store.write():
            answers: list[str] = []
            sent_drafts: list[int] = []  # approved or sent again now: the answer says how it went
            games: list[str] = [self.name]
            answering: list[int] = []
            changed = False
            for item in items:
                message = item.message
                if self.handled(message.id):
                    continue
                handler = Handler(self.rt, self.codes, now, message.id, prefix=self.board.prefix(self, uid))
                handler.run(item.commands)
                said = list(handler.answers)
                effects = list(handler.effects)
                for note in item.notes:
                    record = {**note.effect, "pmid": message.id}
                    store.audit(ACTOR, "notify.command", record, at=now)
                    said.append(note.text)
                    effects.append(record)
                if item.bare and self._due("notify:help_at", HELP_EVERY, now):
                    said = ["没有在你的消息里看到指令。" + (item.help or HELP)]
                    store.set_meta("notify:help_at", now.isoformat())
                if not effects:  # its commands were for another game: recorded, never taken here
                    effects = [{"result": "elsewhere", "pmid": message.id}]
                answers += said
                if said:
                    games += [g for g in item.games if g not in games]
                    answering.append(message.id)
                sent_drafts += [one["draft"] for e in handler.effects if e.get("verb") in ("approve", "retry")
                                for one in e.get("each", ()) if one.get("result") == "done"
                                and isinstance(one.get("draft"), int)]
                changed = changed or handler.changed
                result.commands += len(item.commands)
                self._record(message, uid, effects, now)
                result.read.append(message)
            if answers:
                rows = self.pmbox.queue(uid, "\n\n".join(answers), purpose="reply", now=now,
                                        charset=self._charset(), games=games,
                                        detail={"answering": answering, "sent_drafts": sent_drafts})
                result.queued += [r.id for r in rows]
                if sent_drafts:
                    self._unsaid.append(rows[-1].id)
        self._changed = self._changed or changed
        return bool(answers) or changed

    def _tell(self, uid: int, now: datetime, result: PassResult) -> None:
        """The matters due to be told: in the answer still queued (one PM), or a notice."""
        store = self.rt.store
        with store.write():
            reply = self._open_reply(uid)
            matters = self._due_matters(now, answering=reply is not None)
            if not matters:
                return
            issued: dict[int, str] = {}
            text = notice_text(matters, self._code_for(now, issued), prefix=self.board.prefix(self, uid),
                               draft_code=self._draft_code(now, issued))
            if reply is not None and self.pmbox.amend(reply.id, reply.body + "\n\n" + text, now=now,
                                                      charset=self._charset()):
                row_id = reply.id
            else:
                rows = self.pmbox.queue(uid, text, purpose="notice", now=now, charset=self._charset(),
                                        detail={"matters": [m.matter for m in matters]})
                result.queued += [r.id for r in rows]
                row_id = rows[0].id
            for m in matters:
                store.db.conn.execute(
                    "INSERT OR REPLACE INTO notify_told (matter, key, kind, summary, told_at, pm_id)"
                    " VALUES (?, ?, ?, ?, ?, ?)", (m.matter, m.key, m.kind, m.summary, iso(now), row_id))
            store.set_meta("notify:last_told_at", now.isoformat())
            store.audit("bot", "notify.told", {"matters": [m.key for m in matters], "pm": row_id}, at=now)
            result.told += [m.matter for m in matters]

    def _open_reply(self, uid: int) -> PmRow | None:
        """The newest answer to the director still queued and never tried (what is told
        joins it), if any."""
        rows = [r for r in self.pmbox.rows("queued", purpose="reply") if r.attempts == 0 and r.to_uid == uid
                and r.part == r.parts]
        return rows[-1] if rows else None

    def _record(self, message: PrivateMessage, from_uid: int, effects: list[dict[str, Any]], now: datetime) -> None:
        self.rt.store.db.conn.execute(
            "INSERT INTO notify_handled (pmid, from_uid, at, text, effect, handled_at) VALUES (?, ?, ?, ?, ?, ?)",
            (message.id, from_uid, iso(message.time), self.rt.store.scrub(message.text),
             json.dumps(effects, ensure_ascii=False, sort_keys=True), iso(now)))

    def _due(self, key: str, every: timedelta, now: datetime) -> bool:
        last = self.rt.store.get_meta(key)
        return not last or now - datetime.fromisoformat(last) >= every

    def refuse_others(self, messages: list[PrivateMessage], now: datetime, result: PassResult | None, *,
                      games: list[str]) -> bool:
        """Commands from anyone but a director: not carried out, audited, answered (at most
        once an hour per user, so nobody can make the bot write PMs at will). ``games``: the
        account's games (the refusal names them). True when a refusal was queued."""
        result = result if result is not None else PassResult()
        queued = False
        for message in messages:
            commands = parse(message.text)
            if not commands or message.uid is None:
                continue
            result.foreign += len(commands)
            detail = {"uid": message.uid, "name": message.author, "pmid": message.id,
                      "commands": [c.text for c in commands]}
            self.rt.store.audit(FOREIGN_ACTOR, "notify.foreign", detail, at=now)
            log.warning("%s（uid %s）发来站内信指令 %s：不是导演，不执行", message.author,
                        message.uid, [c.text for c in commands])
            answer = self.settings.answer_others and self._due(f"notify:answered:{message.uid}",
                                                                FOREIGN_ANSWER_EVERY, now)
            self._record(message, message.uid, [{**detail, "result": "ignored", "answered": answer}], now)
            if answer:
                self.rt.store.set_meta(f"notify:answered:{message.uid}", now.isoformat())
                whose = "本局" if len(games) <= 1 else "这些游戏中任何一局"
                rows = self.pmbox.queue(message.uid, f"你不是{whose}的导演，机器人不执行你的指令（已记录）。"
                                                     "如有需要，请直接联系导演。", purpose="foreign", now=now,
                                        charset=self._charset(), detail={"answering": [message.id]}, games=games)
                result.queued += [r.id for r in rows]
                queued = True
        return queued

    def _due_matters(self, now: datetime, *, answering: bool) -> list[Matter]:
        """The matters to tell now: not told yet, of a wanted kind; held back in quiet hours
        and within ``min_interval_seconds`` of the last notice — unless a PM goes anyway."""
        s = self.settings
        untold = [m for m in current_matters(self.rt, now, s.kinds)
                  if self.rt.store._one("SELECT 1 AS x FROM notify_told WHERE matter = ?", (m.matter,)) is None]
        if not untold or answering:
            return untold
        if in_quiet_hours(now, s.quiet_hours):
            return []
        if not self._due("notify:last_told_at", timedelta(seconds=s.min_interval_seconds), now):
            return []
        return untold

    def _code_for(self, now: datetime, issued: dict[int, str] | None = None) -> Callable[[Matter], str | None]:
        """The code a matter's draft is told with. ``issued``: the codes already given in
        the same PM (a draft named twice — its alarm and its failure — has one code)."""
        issued = issued if issued is not None else {}

        def code_for(matter: Matter) -> str | None:
            if matter.draft_id is None:
                return None
            if matter.draft_id in issued:
                return issued[matter.draft_id]
            # A failed draft that fails again is a new matter: a new code (the old one was
            # spent by 重发, or is stale with the retry).
            told_before = self.rt.store._one("SELECT 1 AS x FROM notify_told WHERE key = ? AND matter != ?",
                                             (matter.key, matter.matter)) is not None
            issued[matter.draft_id] = self.codes.draft_code(matter.draft_id, at=now, fresh=told_before)
            return issued[matter.draft_id]
        return code_for

    def _draft_code(self, now: datetime, issued: dict[int, str] | None = None) -> Callable[[int], str | None]:
        """The code of a draft a library text names (``forumbot retry 12``), for a draft the
        director can still act on."""
        from forumbot.store.outbox import DraftState, UnknownDraftError

        issued = issued if issued is not None else {}

        def draft_code(draft_id: int) -> str | None:
            if draft_id in issued:
                return issued[draft_id]
            try:
                draft = self.rt.outbox.get(draft_id)
            except UnknownDraftError:
                return None
            if draft.state not in (DraftState.DRAFT, DraftState.FAILED, DraftState.PENDING_MODERATION):
                return None
            issued[draft_id] = self.codes.draft_code(draft_id, at=now)
            return issued[draft_id]
        return draft_code

    def _charset(self) -> str:
        return self.client.charset if self.client is not None and self.client.charset else "utf-8"

    def _drop_stale(self, now: datetime) -> None:
        """A notice still queued from an earlier pass (the forum refused it for now) whose
        matters all ended is not sent after all."""
        current = {m.matter for m in current_matters(self.rt, now)}
        for row in self.pmbox.rows("queued", purpose="notice"):
            told = row.detail.get("matters") or []
            if told and not any(m in current for m in told):
                self.pmbox.drop(row.id, "every matter it told has ended", now=now)

    # ------------------------------------------------------------------ sending

    def send_pending(self, now: datetime) -> list[SendOutcome]:
        """Send what is queued (exactly once, under the outbox's publish lock). A forum
        that cannot be reached raises ``ForumUnavailable`` after the outcome is kept."""
        if not self.pmbox.pending():
            return []
        assert self.client is not None
        try:
            with self.rt.outbox.exclusive():
                outcomes = self.pmbox.send_pending(self.client, self.rt.clock.now,
                                                   conversation_top=self.conversation_top,
                                                   pause=self.client.transport.pause,
                                                   may_send=self.may_send)
        except PublisherBusyError:
            log.info("另一个进程正在发送：导演的站内信等下一轮再发")
            return []
        for outcome in outcomes:
            row = self.pmbox.get(outcome.row)
            if outcome.how in ("sent", "found"):
                if outcome.pmid is not None:
                    top = self.conversation_top(row.to_uid) or 0
                    self.rt.store.set_meta(f"notify:top:{row.to_uid}", str(max(top, outcome.pmid)))
                if row.purpose != "foreign":
                    self.rt.store.clear_alarm(NOTIFY_ALARM_KEY, at=self.rt.clock.now())
            elif outcome.how == "failed" and row.purpose != "foreign" and outcome.error is not None:
                self._cannot_reach(outcome.error, now)
            elif outcome.error is not None and isinstance(outcome.error, errors.ForumUnavailable):
                raise outcome.error  # noted in the pass's report by ``tick``
        return outcomes

    def _cannot_reach(self, exc: errors.ForumError, now: datetime) -> None:
        why = _PM_REFUSED_ZH.get(type(exc).__name__)
        if why is None:
            from forumbot.wording import forum_error
            from forumbot.notify.handle import plain

            why = plain(forum_error(f"{type(exc).__name__}: {exc.message}").text) or "论坛拒绝"
        self.rt.store.raise_alarm(
            NOTIFY_ALARM_KIND, NOTIFY_ALARM_KEY,
            f"机器人无法给导演发站内信或读取站内信：{why}。待办只能在导演台或 `forumbot status` 查看；"
            "请检查 `[notify]` 的设置（导演的 uid）和机器人账号的短消息权限", at=now,
            detail={"error": f"{type(exc).__name__}: {exc.message}"})


