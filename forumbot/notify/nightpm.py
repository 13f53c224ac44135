"""The nights by forum PM (SPEC §10.1–10.3): the role accounts' actions read once per pass,
each answered once, the feedback sent once when known, the identities told once, and the
night's proposal sent to the director.

One pass (``NightPm.tick``, called by the ``Notifier`` before the director's PMs):

1. **Read.** The conversations with players: those the inbox lists as unread (one
   request), those that may act in a night still open (a read each — a message of the
   current second is not listed, and opening a conversation clears its unread mark, so
   the unread list alone would lose it), and those read last pass (read once more for the
   same reason). Reading starts one read behind the newest id seen; a message is handled
   once, by its pmid.
2. **Rule.** Each line of a player's message is an action (``杀人 包子``, ``预言 汤圆``,
   ``放弃`` …; names matched as votes are) or, in 双身份 before day 1, the order of the
   player's two identities (``第一身份 女巫``). The action is filed for the night it falls
   in and ruled as the night stood when it was sent — counted, or kept with its reason
   (§10.6) — and the sender is answered by PM: ``已收到：杀人 包子`` / ``未计入：…（why）``.
   The action, the message's record, the answer's PM row and the note that it was told are
   written in ONE transaction: a message read twice, or a pass killed halfway, is answered
   once.
3. **Tell.** Feedback to its owner as soon as the judge knows it (预言 at once, 通灵 when the
   pack's kill is final), exactly once by its key; each player's identity (and the pack)
   when ``[identities].tell_by_pm``, once; the night's proposal to the director when it is
   new or changed, with the code to confirm it (``确认 CODE``, or ``确认 夜N``).

The PMs go through the director's ``PmBox`` (exactly once, marker and settle). Who is
who: a player's uid from the game's posts, else from the inbox; a player the bot has no
uid for yet is told as soon as one is known.

Secret: what is read and sent here names identities and actions. It goes to its owner
and the director only; the log lines say how many, never who or what.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from engine.names import NameTable
from forumbot.agent.health import storage_problem
from forumbot.discuz import PM_SETTLE_SECONDS
from engine.night import Chronicle, ChronicleError, read_order
from engine.night.identities import read_identity
from forumbot.game import nightrun
from forumbot.notify import nightroute
from forumbot.game.state import current_state
from parsers.commands import clean
from parsers.pm import PrivateMessage

if TYPE_CHECKING:  # pragma: no cover
    from forumbot.discuz import DiscuzClient
    from forumbot.game.runtime import Runtime
    from forumbot.notify.codes import Codes
    from forumbot.notify.passes import PassResult
    from forumbot.notify.pmbox import PmBox

__all__ = ["NightHost", "NightPm", "ORDER_LINE"]


class NightHost(Protocol):
    """What the nights ask of the director-by-PM that runs them (the ``Notifier``): its
    game, forum client, PM box and codes, and what it knows of the director and of each
    conversation — not the notifier itself, which runs them (no circle of files)."""

    rt: Runtime
    name: str  # the game's name (every PM's head; what a player may type before an order)
    aliases: tuple[str, ...]
    board: Any  # the account's Switchboard: its games (a player of several: ``nightroute``)
    client: DiscuzClient | None
    pmbox: PmBox
    codes: Codes
    settings: Any
    known_uid: int | None

    def meta_int(self, key: str) -> int | None: ...

    def conversation_top(self, uid: int) -> int | None: ...

    def director_uid(self, now: datetime) -> int | None: ...

    def _charset(self) -> str: ...

log = logging.getLogger("forumbot.notify")

PURPOSE = "night"  # the PM rows this module queues (notify_pms.purpose)
# 双身份: a player orders their two identities (由演员决定身份的顺序) — 第一身份 女巫 / 顺序 女巫 狼人
ORDER_LINE = re.compile(r"^\s*(?:第一身份|身份顺序|顺序|排序)\s*[:：]?\s*(?P<first>[^\s,，、/]+)")
# 【殉职】: the outgoing sheriff names the successor — 继任 汤圆
SUCCESSOR_LINE = re.compile(r"^\s*(?:继任|移交|警徽(?:移交)?给?)\s*[:：]?\s*(?P<name>\S+)\s*$")
# 遗言: the whole message after 遗言 is the words (放弃遗言 / 遗言 放弃: none)
LAST_WORDS = re.compile(r"^\s*遗言\s*[:：]?\s*")
DECLINE = re.compile(r"^\s*(?:放弃遗言|遗言\s*[:：]?\s*放弃)\s*$")
# What the holder of a daytime trigger is asked, by the skill's value (SPEC §10.2: 若愚, the
# bot asks the idiot). Only the holder reads it: it may name their identity.
ASK_TRIGGER = {
    "fool": ("第{day}日：你被投票出局。你是白痴，可以发动【若愚】：免于投票出局（公示你发动了若愚，你留在游戏中），"
             "此后你的投票不计入总票数。发动请在 {until} 前回复一行「若愚」，不发动请回复「放弃」；"
             "到时没有回复视为不发动。"),
}
OPEN_AFTER_NIGHT = timedelta(minutes=30)
# Messages sent this long before day 1 are another game's (the deal and the orders of
# 双身份 come in the days before day 1): recorded, never answered.
BEFORE_GAME = timedelta(days=3)  # a night's conversations are read this long after its last phase


@dataclass
class NightPass:
    """What one pass did (for the notifier's report and tests)."""

    read: int = 0  # player messages handled
    queued: list[int] = field(default_factory=list)  # PM rows queued


class NightPm:
    def __init__(self, notifier: NightHost) -> None:
        self.notifier = notifier
        self.rt = notifier.rt
        self._deferred: set[int] = set()

    @property
    def active(self) -> bool:
        return nightrun.active(self.rt)

    # ------------------------------------------------------------------ the pass

    def tick(self, now: datetime, result: PassResult | None = None) -> NightPass:
        done = NightPass()
        if not self.active or self.notifier.client is None:
            return done
        uids = self.player_uids()
        self._deferred = set()  # nights with a message kept waiting this pass
        self._read(uids, now, done)
        ch = nightrun.chronicle(self.rt)
        self._feedback(ch, uids, now, done)
        self._identities(uids, now, done)
        self._ask_successor(uids, now, done)
        self._ask_last_words(uids, now, done)
        self._ask_triggers(ch, uids, now, done)
        self._proposals(ch, now, done)
        if result is not None:
            result.queued += done.queued
        if done.read or done.queued:
            log.info("夜晚站内信：处理玩家消息 %d 条，排队发出 %d 条", done.read, len(done.queued))
        return done

    # ------------------------------------------------------------------ who is who

    def player_uids(self) -> dict[str, int]:
        """Each player's forum uid, where known: from the game's posts (their own name),
        else as the inbox gave it (kept in the store)."""
        store = self.rt.store
        players = nightrun.sheet_of(self.rt).players
        known: dict[str, int] = json.loads(store.get_meta("nights:uids") or "{}")
        for row in store.db.query("SELECT DISTINCT author, author_uid FROM posts WHERE author_uid IS NOT NULL"):
            if row["author"] in players and row["author"] not in known:
                known[row["author"]] = int(row["author_uid"])
        return {p: known[p] for p in players if p in known}

    def _learn_uid(self, name: str | None, uid: int) -> None:
        store = self.rt.store
        known: dict[str, int] = json.loads(store.get_meta("nights:uids") or "{}")
        if name and known.get(name) != uid:
            known[name] = uid
            store.set_meta("nights:uids", json.dumps(known, ensure_ascii=False, sort_keys=True))

    # ------------------------------------------------------------------ reading

    def _watched(self, uids: dict[str, int], now: datetime) -> set[int]:
        """The players who may act in a night still open (or a triggered skill's window)."""
        mode = nightrun.mode_of(self.rt)
        state = current_state(self.rt.config, self.rt.store)
        try:
            ch = nightrun.chronicle(self.rt, state)
        except ChronicleError:
            return set()
        watched: set[int] = set()
        position = ch.position(now)
        for night in nightrun.nights_begun(state, now, nightrun.mode_of(self.rt)):
            proposal = self.rt.store.night_proposal(night)
            if proposal is not None and proposal.state in ("confirmed", "corrected"):
                continue
            if nightrun.night_after_end(self.rt, night, ch, state):
                continue
            try:
                plan = ch.night(night).plan
            except ChronicleError:
                continue
            if now > plan.end + OPEN_AFTER_NIGHT:
                continue
            for player in position.living:
                if player in uids and (mode.skills_now(position, player, night) or player in mode.pack(position)):
                    watched.add(uids[player])
        for words in self.rt.store.last_words():
            if words.text is None and words.player in uids and now - words.asked_at < timedelta(days=1):
                watched.add(uids[words.player])  # asked for 遗言, not answered yet
        vacancy = self._vacancy(now)
        if vacancy is not None and vacancy.vacancy.previous in uids:
            watched.add(uids[vacancy.vacancy.previous])  # asked to name a successor
        for day in state.days:
            try:
                report = ch.day(day.number, now)
            except ChronicleError:
                continue
            watched |= {uids[t.player] for t in report.awaiting if t.player in uids}
        return watched

    def _read(self, uids: dict[str, int], now: datetime, done: NightPass) -> None:
        client = self.notifier.client
        assert client is not None
        by_uid = {uid: player for player, uid in uids.items()}
        players = set(nightrun.sheet_of(self.rt).players)
        targets = set(self._watched(uids, now))
        targets |= set(json.loads(self.rt.store.get_meta("nights:reread") or "[]"))
        for conversation in client.unread_conversations():
            if conversation.uid == client.uid:
                continue
            if conversation.uid not in by_uid and conversation.name in players:
                self._learn_uid(conversation.name, conversation.uid)
                by_uid[conversation.uid] = conversation.name  # type: ignore[assignment]
            if conversation.uid in by_uid:
                targets.add(conversation.uid)
        director = self.notifier.known_uid
        reread: list[int] = []
        for uid in sorted(targets):
            if uid == director or uid not in by_uid:
                continue
            messages, previous = self._conversation(uid)
            fresh = [m for m in messages if not m.own and not self.rt.store.night_message_handled(m.id)]
            for message in fresh:
                try:
                    # A player of several games of the account: filed in the one it is for.
                    # False: kept waiting for the day's vote-out — left unhandled, read again.
                    nightroute.file(self, by_uid[uid], uid, message, now, done)
                except Exception as exc:  # noqa: BLE001 - one message never stops the others
                    if storage_problem(exc, self.rt.store.path) is not None:
                        raise
                    # Nothing of it was kept (one transaction): read again next pass. The log
                    # names the message by id only — its text is a night action.
                    log.error("夜晚站内信：处理第 %d 条消息时出错（%s），下一轮再试", message.id, type(exc).__name__)
            if fresh:
                reread.append(uid)
            self._read_from(uid, previous, [m.id for m in fresh if not self.rt.store.night_message_handled(m.id)])
        self.rt.store.set_meta("nights:reread", json.dumps(reread))

    def _read_from(self, uid: int, previous: int | None, unhandled: list[int]) -> None:
        """Where the next read of the conversation starts: one read behind (the newest id
        the pass before saw), and never past a message not handled yet — kept waiting, or
        failed. Moved only once this pass's messages were handled: a pass killed between
        reading a message and keeping it leaves the start where it was, so the restarted
        agent reads the message again (it used to move when read, and two lives killed
        there lost the message: a 放弃遗言 never kept nor answered)."""
        starts = ([previous] if previous is not None else []) + ([min(unhandled) - 1] if unhandled else [])
        if starts:
            self.rt.store.set_meta(f"nights:since:{uid}", str(min(starts)))

    def take(self, player: str, uid: int, message: PrivateMessage, now: datetime, done: NightPass, *,
             text: str | None = None) -> bool:
        """One of ``player``'s messages filed in this game (``text``: as it is to be read,
        the game's name taken off). False: kept waiting for the day's vote-out (read again)."""
        state = current_state(self.rt.config, self.rt.store)
        if self.before_game(message.time, state):
            # An old conversation (another game's): never read as this game's orders.
            self.rt.store.record_night_message(message.id, from_uid=uid, player=player, at=message.time,
                                               text="", effect={"result": "before_game"}, now=now)
            return True
        night = nightrun.night_for(state, message.time, nightrun.mode_of(self.rt))
        if night is not None and nightrun.waits_for_day(self.rt, night, now, state):
            self._deferred.add(night)
            return False
        self._handle(player, uid, message, now, done, text=text)
        return True

    def before_game(self, at: datetime, state=None) -> bool:
        """A message sent at ``at`` is days before the first day (the deal and the 双身份
        orders come in the days before it; older ones are another game's)."""
        state = state or current_state(self.rt.config, self.rt.store)
        first = min((d.start for d in state.days), default=None)
        return first is not None and at < first - BEFORE_GAME

    def within(self, at: datetime) -> bool:
        """A message sent at ``at`` may be this game's: not before it, not after it ended."""
        ended = nightrun.ended_at(self.rt)
        return not self.before_game(at) and not (ended is not None and at >= ended)

    def player_of(self, uid: int, author: str | None) -> str | None:
        """Who ``uid`` is in this game (known by uid, else by the name the forum gave)."""
        for player, known in self.player_uids().items():
            if known == uid:
                return player
        return author if author in nightrun.sheet_of(self.rt).players else None

    def may_act(self, player: str, uid: int, at: datetime) -> bool:
        """Whether ``player`` could act at ``at``: a night skill in a night begun and not
        over, living (or a 遗言, a successor, a day's trigger asked of them)."""
        return uid in self._watched({player: uid}, at)

    def _conversation(self, uid: int) -> tuple[list[PrivateMessage], int | None]:
        """The conversation from one read behind the newest id seen, and the newest id
        the pass before saw (where the next read starts once these are handled)."""
        client = self.notifier.client
        assert client is not None
        store = self.rt.store
        since = self.notifier.meta_int(f"nights:since:{uid}")
        messages = client.read_conversation(uid, since_id=since)
        top = max([m.id for m in messages] + [self.notifier.meta_int(f"nights:top:{uid}") or 0])
        previous = self.notifier.meta_int(f"nights:top:{uid}")
        store.set_meta(f"nights:top:{uid}", str(top))
        # The PM box looks for an interrupted send after the newest id known in the conversation.
        known = self.notifier.conversation_top(uid) or 0
        store.set_meta(f"notify:top:{uid}", str(max(known, top)))
        return messages, previous

    # ------------------------------------------------------------------ one message

    def _handle(self, player: str, uid: int, message: PrivateMessage, now: datetime, done: NightPass, *,
                text: str | None = None) -> None:
        rt = self.rt
        mode = nightrun.mode_of(rt)
        assert mode is not None
        text = clean(message.text if text is None else text, self.notifier.pmbox.recent_texts())
        lines = [line.strip() for line in text.split("\n") if line.strip()]
        answers: list[str] = []
        effects: list[dict[str, object]] = []
        with rt.store.write():
            if rt.store.night_message_handled(message.id):
                return
            state = current_state(rt.config, rt.store)
            names = NameTable(state)
            ended = nightrun.ended_at(rt)
            if lines and (LAST_WORDS.match(lines[0]) or DECLINE.match(lines[0])):
                said, effect = self._last_words_sent(player, message, text, state, now, done)
                answers.append(said)
                effects.append(effect)
                lines = []
            for line in lines or ([] if answers else [""]):
                successor = SUCCESSOR_LINE.match(line)
                if successor is not None:
                    said, effect = self._successor_named(player, successor.group("name"), names, now)
                    answers.append(said)
                    effects.append(effect)
                    continue
                order = ORDER_LINE.match(line)
                if order is not None and mode.layers > 1:
                    said, effect = self._order(player, order.group("first"), message, state, now)
                    answers.append(said)
                    effects.append(effect)
                    continue
                reading = read_order(line, mode, names)
                if not reading.ok:
                    answers.append(f"未读懂「{line}」：{reading.message}" if line else reading.message)
                    effects.append({"result": "not_understood", "problem": str(reading.problem)})
                    continue
                night = nightrun.night_for(state, message.time, nightrun.mode_of(rt))
                if night is None:
                    answers.append(f"未计入：{reading.message}（游戏还没有开始，没有可以行动的夜晚）")
                    effects.append({"result": "no_night"})
                    continue
                if ended is not None and message.time >= ended:
                    answers.append(f"未计入：{reading.message}（游戏已经结束）")
                    effects.append({"result": "game_over"})
                    continue
                assert reading.skill is not None
                filed = nightrun.file_action(rt, night, player, reading.skill, reading.targets, at=message.time,
                                             now=now, source="pm", entered_by=nightrun.PLAYER_PM,
                                             pmid=message.id if len(lines) <= 1 else None, text=line)
                answers.append(filed.answer(mode))
                effects.append({"result": "filed", "action": filed.record.id,
                                "counted": bool(filed.ruling and filed.ruling.counted)})
            rt.store.record_night_message(message.id, from_uid=uid, player=player, at=message.time, text=message.text,
                                          effect={"lines": effects}, now=now)
            key = f"answer:{message.id}"
            if rt.store.night_told(key) is None:
                rows = self._queue(uid, "\n".join(answers), now, {"answering": [message.id]})
                rt.store.mark_night_told(key, kind="answer", to=player, pm_id=rows[0], now=now)
                done.queued += rows
        done.read += 1

    def _order(self, player: str, word: str, message: PrivateMessage, state, now: datetime
               ) -> tuple[str, dict[str, object]]:
        """双身份: ``player`` puts ``word`` first — before day 1 starts, one of their own two."""
        rt = self.rt
        mode = nightrun.mode_of(rt)
        assert mode is not None
        sheet = rt.config.identities  # type: ignore[attr-defined]
        hand = sheet.hand(player)
        first = read_identity(word)
        day_one = min((d.start for d in state.days), default=None)
        if day_one is not None and message.time >= day_one:
            return (f"未计入：第一身份 {word}（第一日已经开始，身份顺序不能再改）", {"result": "order_late"})
        if first is None or first not in hand:
            names = " / ".join(mode.name(i) for i in hand)
            return (f"未计入：第一身份 {word}（你的身份是 {names}）", {"result": "order_not_yours"})
        rt.store.set_identity_order(player, first.value, at=message.time, entered_by=nightrun.PLAYER_PM, now=now,
                                    pmid=message.id)
        rest = [mode.name(i) for i in hand if i is not first] or [mode.name(first)]
        return (f"已收到：第一身份 {mode.name(first)}（第二身份：{rest[0]}）", {"result": "ordered"})

    # ------------------------------------------------------------------ 遗言

    def _last_words_sent(self, player: str, message: PrivateMessage, text: str, state, now: datetime,
                         done: NightPass) -> tuple[str, dict[str, object]]:
        """A holder's 遗言 (the whole message): kept once, for the announcement that lists
        the out; after it went out, kept but never posted, and the director told."""
        from engine.night import clean_last_words
        from forumbot.game import lastwords
        from forumbot.game.announce import SENT, standing

        rt = self.rt
        mine = [d for d in lastwords.due(rt, state) if d.player == player]
        asked = {w.player: w for w in rt.store.last_words(mine[0].night)} if mine else {}
        if not mine or player not in asked:
            return ("未计入：遗言（你现在没有可以留的遗言）", {"result": "no_last_words"})
        d, w = mine[0], asked[player]
        if w.text is not None:
            return ("未计入：遗言（遗言已经收到，不能修改）", {"result": "last_words_again"})
        raw = text if not DECLINE.match(text.strip().split("\n")[0]) else ""
        words = clean_last_words(LAST_WORDS.sub("", raw.strip(), count=1)) if raw else ""
        if raw and not words:
            return ("未计入：遗言（去掉Discuz!代码后没有内容，请重发）", {"result": "last_words_empty"})
        gone = standing(rt.outbox, "announcement", d.day)
        late = gone is not None and gone.state in SENT
        rt.store.keep_last_words(d.night, player, words, pmid=message.id, now=now, late=late)
        if late:
            director = self.notifier.director_uid(now) if self.notifier.settings.enabled else None
            if director is not None and words:
                body = (f"{player} 的遗言在第{d.day}日公示发出后才到，没有公布（公示发出后不再修改）：\n{words}")
                key = f"last_words_late:{d.night}:{player}"
                if rt.store.night_told(key) is None:
                    rows = self._queue(director, body, now, {"night_told": key})
                    rt.store.mark_night_told(key, kind="last_words", to="director", pm_id=rows[0], now=now)
                    done.queued += rows
            return (f"未公布：遗言（第{d.day}日公示已经发出，遗言没能公布，已告知导演）", {"result": "last_words_late"})
        if not words:
            return ("已收到：放弃遗言", {"result": "last_words_declined"})
        return (f"已收到：遗言，将在第{d.day}日公示中公布（不能修改）", {"result": "last_words"})

    def _ask_last_words(self, uids: dict[str, int], now: datetime, done: NightPass) -> None:
        """Each holder is asked once, when the out is recorded — unless the announcement
        that would carry the words is out already."""
        from forumbot.game import lastwords
        from forumbot.game.announce import SENT, standing

        rt = self.rt
        state = current_state(rt.config, rt.store)
        for d in lastwords.due(rt, state):
            if d.player not in uids:
                continue
            gone = standing(rt.outbox, "announcement", d.day)
            if gone is not None and gone.state in SENT:
                continue
            body = (f"你已出局，可以留下遗言：请回复一条以「遗言」开头的站内信（例如「遗言 我是好人」），"
                    f"它会以纯文本公布在第{d.day}日的公示中（Discuz!代码会被去掉），只收一次、不能修改；"
                    f"不留请回复「放弃遗言」。最晚等到 "
                    f"{max(state.day(d.day).start, now + lastwords.WAIT):%m-%d %H:%M}，之后公示不再等。")
            with rt.store.write():
                if any(w.player == d.player for w in rt.store.last_words(d.night)):
                    continue
                rows = self._queue(uids[d.player], body, now, {"night_told": f"last_words:{d.night}:{d.player}"})
                rt.store.ask_last_words(d.night, d.player, now=now, pm_id=rows[0])
                rt.store.mark_night_told(f"last_words:{d.night}:{d.player}", kind="last_words", to=d.player,
                                         pm_id=rows[0], now=now)
                done.queued += rows

    def _vacancy(self, now: datetime):
        """The badge waiting for its outgoing sheriff to name a successor (【殉职】), or None."""
        from engine.badge import Succession
        from forumbot.game.gamelog import badge

        status = badge(self.rt, now)
        if status.vacancy is None or status.succession is not Succession.SUCCESSOR:
            return None
        return status

    def _successor_named(self, player: str, name: str, names: NameTable, now: datetime
                         ) -> tuple[str, dict[str, object]]:
        """继任 名字 from the sheriff who left: the badge passes (the game log's sheriff entry,
        at the moment the badge fell vacant), or why not."""
        from engine.names import Match
        from forumbot.game.gamelog import DirectorError, EventSpec, enter

        status = self._vacancy(now)
        if status is None or status.vacancy.previous != player:
            return (f"未计入：继任 {name}（现在没有需要你移交的警徽）", {"result": "no_vacancy"})
        found = names.match(name)
        if found.outcome is not Match.PLAYER:
            return (f"未计入：继任 {name}（“{name}”不是玩家）", {"result": "unknown_player"})
        if found.player not in status.candidates:
            return (f"未计入：继任 {found.player}（可以继任的：{'、'.join(status.candidates)}）",
                    {"result": "not_a_candidate"})
        try:
            enter(self.rt, EventSpec("sheriff", player=found.player), now, actor="sheriff(pm)")
        except DirectorError as exc:
            return (f"未计入：继任 {found.player}（{exc}）", {"result": "refused"})
        return (f"已收到：继任 {found.player}（警徽移交给 {found.player}）", {"result": "successor"})

    def _ask_successor(self, uids: dict[str, int], now: datetime, done: NightPass) -> None:
        """The outgoing sheriff is asked once, by PM, to name the successor."""
        status = self._vacancy(now)
        if status is None:
            return
        previous = status.vacancy.previous
        if previous not in uids:
            return
        since = status.vacancy.since.isoformat() if status.vacancy.since else ""
        body = (f"你的警徽需要移交（【殉职】）：请回复一行「继任 名字」指定继任警长。"
                f"可以继任的：{'、'.join(status.candidates)}。")
        if status.draw_from is not None:
            body += f"{status.draw_from:%m-%d %H:%M} 前没有指定的话，由导演随机移交。"
        self._tell_once(f"successor:{previous}:{since}", "successor", previous, uids[previous], body, now, done)

    # ------------------------------------------------------------------ telling

    def _queue(self, uid: int, body: str, now: datetime, detail: dict[str, object]) -> list[int]:
        rows = self.notifier.pmbox.queue(uid, body, purpose=PURPOSE, now=now, charset=self.notifier._charset(),
                                         detail=detail)
        return [r.id for r in rows]

    def _tell_once(self, key: str, kind: str, player: str, uid: int, body: str, now: datetime,
                   done: NightPass) -> None:
        store = self.rt.store
        with store.write():
            if store.night_told(key) is not None:
                return
            rows = self._queue(uid, body, now, {"night_told": key})
            store.mark_night_told(key, kind=kind, to=player, pm_id=rows[0], now=now)
            done.queued += rows

    def _feedback(self, ch: Chronicle, uids: dict[str, int], now: datetime, done: NightPass) -> None:
        mode = nightrun.mode_of(self.rt)
        assert mode is not None
        state = current_state(self.rt.config, self.rt.store)
        for night in sorted(ch.nights):
            # Feedback is told from the actions sent before it: none of them may still be
            # unread or kept waiting (a 通灵 told before the wolves' orders were filed would
            # say 无人 — and could never be taken back).
            if night in self._deferred or nightrun.waits_for_day(self.rt, night, now, state):
                continue
            if nightrun.night_after_end(self.rt, night, ch, state):
                continue  # the game was over before this night: nothing is told
            try:
                judgement = ch.judge(night, now)
            except ChronicleError:
                continue
            for feedback in judgement.feedback:
                if feedback.to not in uids:
                    continue
                if feedback.at is not None and feedback.at > now - timedelta(seconds=PM_SETTLE_SECONDS):
                    continue  # a PM of the last seconds may not be listed yet: next pass
                key = f"feedback:{night}:{feedback.skill.value}:{feedback.to}:{feedback.about or ''}"
                body = f"{nightrun.night_zh(night)} {feedback.text(mode.skill_name)}"
                self._tell_once(key, "feedback", feedback.to, uids[feedback.to], body, now, done)

    def _identities(self, uids: dict[str, int], now: datetime, done: NightPass) -> None:
        rt = self.rt
        if not getattr(rt.config, "tell_by_pm", False):
            return
        mode = nightrun.mode_of(rt)
        assert mode is not None
        sheet = rt.config.identities  # type: ignore[attr-defined]
        for player in sheet.players:
            if player not in uids:
                continue
            briefing = mode.briefing(sheet, player, ordering=mode.layers > 1)
            body = briefing.text()
            if briefing.ordering:
                body += f"（排序请回复「第一身份 {briefing.identities[0]}」这样的一行。）"
            body += "夜晚行动请发站内信给机器人，一行一个，例如「杀人 名字」「预言 名字」「放弃」。"
            self._tell_once(f"identity:{player}", "identity", player, uids[player], body, now, done)

    def _ask_triggers(self, ch: Chronicle, uids: dict[str, int], now: datetime, done: NightPass) -> None:
        """The holder of a daytime trigger the bot asks about (若愚: the bot asks the idiot)
        is asked once, by PM, while its window is open — the ask goes to them only."""
        for day, trigger in nightrun.open_day_triggers(self.rt, now, ch):
            ask = ASK_TRIGGER.get(trigger.skill.value)
            if ask is None or trigger.player not in uids:
                continue
            body = ask.format(day=day, until=f"{trigger.until:%m-%d %H:%M}")
            self._tell_once(f"ask:{trigger.skill.value}:{trigger.player}:{trigger.since.isoformat()}", "ask",
                            trigger.player, uids[trigger.player], body, now, done)

    def _day_shots(self, ch: Chronicle, now: datetime, done: NightPass) -> bool:
        """A triggered skill after a vote-out, counted. A hunter's 最后一枪: the director
        enters its out. 若愚 (it changes nothing but the idiot's own standing): the bot
        enters it, and tells the director, in one transaction. Returns whether the game's
        events changed (the chronicle must be read again)."""
        notifier = self.notifier
        director = notifier.director_uid(now) if notifier.settings.enabled else None
        entered = False
        for shot in nightrun.day_shots(self.rt, ch):
            key = f"shot:{shot.day}:{shot.player}:{shot.at.isoformat()}"
            if shot.effect == "idiot":
                body = (f"第{shot.day}日：{shot.player} 在 {shot.at:%m-%d %H:%M} 发动【若愚】（已计入，已录入）："
                        f"免于投票出局，此后其投票不计入总票数。如需撤销请在导演台或用 forumbot retract 撤销该事件")
                with self.rt.store.write():
                    try:
                        nightrun.enter_fool(self.rt, shot, now)
                    except nightrun.DirectorError as exc:
                        body = (f"第{shot.day}日：{shot.player} 在 {shot.at:%m-%d %H:%M} 发动【若愚】（已计入），"
                                f"但没能录入（{exc}）：请用 {shot.command()} 录入")
                    else:
                        entered = True
                    if director is not None:
                        self._tell_once(key, "shot", "director", director, body, now, done)
                continue
            if director is None:
                continue
            body = (f"第{shot.day}日：{shot.player} 在 {shot.at:%m-%d %H:%M} 发动{shot.skill} {shot.target}（已计入）。"
                    f"请录入它的结果：{shot.command()}（或在导演台录入）")
            self._tell_once(key, "shot", "director", director, body, now, done)
        return entered

    def _proposals(self, ch: Chronicle, now: datetime, done: NightPass) -> None:
        rt = self.rt
        notifier = self.notifier
        if self._day_shots(ch, now, done):
            ch = nightrun.chronicle(rt)
        state = current_state(rt.config, rt.store)
        for night in nightrun.nights_begun(state, now, nightrun.mode_of(self.rt)):
            proposal, _, _ = nightrun.propose(rt, night, now, ch=ch)
            if proposal is None or proposal.state != "proposed":
                continue
            director = notifier.director_uid(now) if notifier.settings.enabled else None
            if director is None:
                continue
            key = f"proposal:{night}:{proposal.version}"
            with rt.store.write():
                if rt.store.night_told(key) is not None:
                    continue
                code = notifier.codes.event_code({"kind": "night_proposal", "night": night,
                                                  "version": proposal.version, "command": f"确认 夜{night}"},
                                                 at=now)
                lines = nightrun.proposal_lines(proposal.data, night=night, state=proposal.state,
                                                version=proposal.version)
                lines.append(f"确认请回复「确认 {code}」（或「确认 夜{night}」）；要改就直接录入这晚的结果"
                             f"（夜晚 第{night + 1}日 出局：……），以你录入的为准")
                self._tell_once(key, "proposal", "director", director, "\n".join(lines), now, done)
