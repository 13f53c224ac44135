"""Which game a player's night PM is for, when the player plays in several games of one
bot account (``forumbot serve``): every game reads its players' conversations, so without
this a player of two games had ``杀人 包子`` filed and answered by both.

A message from a player of one game only is that game's, as before. A player of several
(the games of the board with identities in which the sender is a player, at the time the
message was sent: not days before a game, not after it ended):

* the game the message names — its name or a ``[notify].short_name`` at the start of a
  line (``三局 杀人 包子``), read as the director's commands are (``parsers.commands``);
* unnamed, the one game where the sender may act then (a night skill in a night begun and
  not over, living; or a 遗言 / successor / day's trigger they were asked for);
* otherwise (none, several, or a name of a game they do not play in) the question, once,
  by PM from the first of those games: which game, with the names they may type and an
  example. Nothing is filed; a named resend files it.

The decision is made once: the game that files the message (or asks) records it first,
then every other game records it as another game's (without its text: one game's night
never lands in another's store). A game reading the message later finds the record and
only notes it: across passes, restarts and a kill between the two writes, the message is
filed and answered once. The question names neither game's state nor the player's
identity in either: only the games' names.
"""

from __future__ import annotations

import contextlib
import logging
from datetime import datetime
from typing import TYPE_CHECKING

from forumbot.notify.routing import Choice, which_game
from parsers.commands import clean, games_named
from parsers.pm import PrivateMessage

if TYPE_CHECKING:  # pragma: no cover
    from forumbot.notify.nightpm import NightPass, NightPm

__all__ = ["file", "question"]

log = logging.getLogger("forumbot.notify")

ELSEWHERE = "elsewhere"  # the effect recorded in the games a message was not for


def file(reader: NightPm, player: str, uid: int, message: PrivateMessage, now: datetime, done: NightPass) -> bool:
    """``message`` (from ``player``, read by ``reader``'s game) filed in the one game it is
    for, or asked about. False: kept waiting for a day's vote-out (read again later)."""
    games = _players_games(reader, player, uid, message)
    if len(games) <= 1:
        return reader.take(player, uid, message, now, done)
    owner = next((g for g, _ in games if _decided(g, message.id)), None)
    if owner is None:
        live = [(g, p) for g, p in games if g.within(message.time)]
        # Sent in none of them (before them all, after their end): the first says so, as alone.
        target, text = _choose(reader, live, uid, message) if live else (games[0][0], None)
        if target is None:
            owner = live[0][0]
            _ask(owner, [g for g, _ in live], uid, dict(games)[owner], message, text, now, reader, done)
        else:
            owner = target
            if not _in(reader, owner, lambda pass_: owner.take(dict(games)[owner], uid, message, now, pass_,
                                                               text=text), done):
                return False
    for g, p in games:
        if g is not owner and not g.rt.store.night_message_handled(message.id):
            with _context(reader, g):
                g.rt.store.record_night_message(message.id, from_uid=uid, player=p, at=message.time, text="",
                                                effect={"result": ELSEWHERE}, now=now)
    return True


def _players_games(reader: NightPm, player: str, uid: int, message: PrivateMessage) -> list[tuple[NightPm, str]]:
    """The account's games with nights in which the sender plays (by name), with their
    name there; ``reader``'s among them."""
    found: list[tuple[NightPm, str]] = []
    for notifier in sorted(reader.notifier.board.games.values(), key=lambda n: n.name):
        nights = notifier.nights
        if nights is reader:
            found.append((reader, player))
            continue
        if not nights.active or notifier.known_uid == uid or notifier.client is None:
            continue  # no nights there, or the sender directs it
        there = nights.player_of(uid, message.author)
        if there is not None:
            nights._learn_uid(there, uid)  # its answers go to this uid
            found.append((nights, there))
    return found


def _decided(game: NightPm, pmid: int) -> bool:
    """``game`` filed (or asked about) the message: the decision was made there."""
    effect = game.rt.store.night_message_effect(pmid)
    return effect is not None and effect.get("result") != ELSEWHERE


def _choose(reader: NightPm, live: list[tuple[NightPm, str]], uid: int, message: PrivateMessage
            ) -> tuple[NightPm | None, str | None]:
    """The game the message is for and its text as that game reads it; (None, text): ask."""
    bot_lines = [t for g, _ in live for t in g.notifier.pmbox.recent_texts()]
    cleaned = clean(message.text, bot_lines)
    named, text = games_named(cleaned, reader.notifier.board.names())
    by_name = {g.notifier.name: g for g, _ in live}
    if named:
        return (by_name[named[0]] if len(named) == 1 and named[0] in by_name else None), text
    acting = [g for g, p in live if g.may_act(p, uid, message.time)]
    return (acting[0] if len(acting) == 1 else None), cleaned


def question(games: list[Choice], text: str | None) -> str:
    """The question to a player of several games whose message named none we could file
    it in (Chinese): only the games' names, nothing of either game's state."""
    example = next((line.strip() for line in (text or "").split("\n") if line.strip()), "") or "杀人 名字"
    return (f"这条消息没有计入：你在 {len(games)} 局游戏里（{which_game([g.name for g in games])}），"
            f"机器人不知道它是哪一局的。请在前面写上游戏名再发一次，例如：{games[0].name} {example}\n"
            f"可以写的游戏名：{'；'.join(g.typed for g in games)}")


def _ask(lead: NightPm, games: list[NightPm], uid: int, player: str, message: PrivateMessage, text: str | None,
         now: datetime, reader: NightPm, done: NightPass) -> None:
    """The question, once, from ``lead`` (the first of the games), recorded there with the message."""
    body = question([Choice(g.notifier.name, g.notifier.aliases) for g in games], text)

    def ask(pass_: NightPass) -> bool:
        store = lead.rt.store
        with store.write():
            if store.night_message_handled(message.id):
                return True
            rows = lead.notifier.pmbox.queue(uid, body, purpose="night", now=now, charset=lead.notifier._charset(),
                                             games=[g.notifier.name for g in games],
                                             detail={"answering": [message.id]})
            store.record_night_message(message.id, from_uid=uid, player=player, at=message.time, text="",
                                       effect={"result": "which_game", "games": len(games)}, now=now)
            store.mark_night_told(f"answer:{message.id}", kind="answer", to=player, pm_id=rows[0].id, now=now)
            pass_.queued += [r.id for r in rows]
        pass_.read += 1
        return True

    _in(reader, lead, ask, done)


def _in(reader: NightPm, game: NightPm, work, done: NightPass) -> bool:
    """``work`` done in ``game`` from ``reader``'s pass: in the reader's pass it counts
    there; another game's is done under its name in the log and woken to send its PMs."""
    if game is reader:
        return work(done)
    pass_ = type(done)()  # a NightPass of its own
    with _context(reader, game):
        result = work(pass_)
    if pass_.queued:
        log.info("夜晚站内信：另一局的玩家消息 %d 条，排队发出 %d 条", pass_.read, len(pass_.queued))
        reader.notifier.board.wake(game.notifier.name)
    return result


def _context(reader: NightPm, game: NightPm) -> contextlib.AbstractContextManager[None]:
    return contextlib.nullcontext() if game is reader else reader.notifier.board.context(game.notifier.name)
