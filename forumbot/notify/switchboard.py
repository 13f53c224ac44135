"""The bot account's conversations with its directors, for every game on the account.

Under ``forumbot serve`` several games share one bot account, and one director may run
two of them. Each game reading the director's conversation itself read it once per game
and acted on every command in it — 「平安夜 第2日」 meant for 第二局 drew a confirmation
offer from 第一局 too (issue 18). So the games of one account (one forum session) share a
``Switchboard``:

* **one read per director per poll interval**, whichever game's pass it falls in (the
  shortest ``poll_interval_seconds`` of that director's games); the unread list (PMs from
  anyone else) once per ``others_check_minutes`` for the whole account;
* **each command to the game it names** (``forumbot.notify.routing``): a code names its
  game (codes are unique across the account: ``code_taken``); a game's name before the
  command names it; without either, the director's only game — with two or more, the
  question "which game?" is the answer, and nothing is done;
* each game carries out its part in its own database, in one transaction with the record
  of the message (by pmid) and the answer PM, exactly as a single game does; a message is
  recorded in every game that was listening when it came, with what it did there (or that
  it was for another game), so no game ever acts on it again — across reloads, restarts
  and the other games' passes. A game that gets something to do outside its own pass is
  woken (``wake``): the service runs its pass at once, which publishes what was approved
  and sends its PMs;
* every PM names its game (``PmBox``); an answer no single game gives (the question, an
  unknown code, the help for several games) comes from the director's first game by name
  and names the games it is about.

``forumbot run`` gives its one game a board of its own (``shared=False``): one game, the
conversation read on every pass, as before.

Where each game listens from: a game's first read sets where reading starts for it
(``notify:from:<uid>``): older messages — another game's commands — are never its own.
Reading position (``notify:floor`` / ``top``, one read behind: see ``notifier``) is kept
in every listening game's store alike, so any of them can go on after a restart.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from parsers.commands import game_key, parse
from forumbot.notify.routing import Choice, Note, help_text, route
from parsers.pm import PrivateMessage

if TYPE_CHECKING:  # pragma: no cover
    from forumbot.notify.notifier import Notifier
    from forumbot.notify.passes import PassResult

__all__ = ["Item", "Switchboard"]

log = logging.getLogger("forumbot.notify")


@dataclass
class Item:
    """One of the director's messages as one game is to take it."""

    message: PrivateMessage
    commands: list = field(default_factory=list)  # its commands for this game
    notes: list[Note] = field(default_factory=list)  # answers no single game gives (the lead's)
    bare: bool = False  # no command at all in it (the lead may answer with the help)
    help: str | None = None  # the help text for a bare message (several games: with their names)
    games: list[str] = field(default_factory=list)  # the games the answer is about (the PM's head)


class Switchboard:
    def __init__(self, *, shared: bool = False) -> None:
        self.shared = shared
        self.games: dict[str, Notifier] = {}
        self._read_at: dict[int, datetime] = {}
        # Set by the service: the log's game context, a game's pass run soon, and the names
        # of its games not on this board (not running: a command naming one is not guessed).
        self.context: Callable[[str], contextlib.AbstractContextManager[None]] = \
            lambda name: contextlib.nullcontext()
        self.wake: Callable[[str], None] = lambda name: None
        self.other_names: Callable[[], dict[str, str]] = dict
        self.reads: list[tuple[int, datetime]] = []  # (director uid, when): every conversation read

    # ------------------------------------------------------------------ members

    def join(self, notifier: Notifier) -> None:
        self.games[notifier.name] = notifier
        notifier.board = self

    def leave(self, notifier: Notifier) -> None:
        if self.games.get(notifier.name) is notifier:
            del self.games[notifier.name]

    def code_taken(self, code: str, asking: Notifier) -> bool:
        """Whether another game of the account holds ``code`` (codes are unique across it)."""
        return any(g.codes.owns(code) for g in self.games.values() if g is not asking)

    def games_of(self, uid: int) -> list[Notifier]:
        """The games whose director is ``uid`` and that read their director's answers, by name."""
        return sorted((g for g in self.games.values() if g.reads_commands and g.known_uid == uid),
                      key=lambda g: g.name)

    def prefix(self, notifier: Notifier, uid: int) -> str:
        """What a command without a code must start with: the game's name and a space when
        its director runs several games here, else nothing."""
        return f"{notifier.name} " if len(self.games_of(uid)) > 1 else ""

    def names(self) -> dict[str, str]:
        """What a director may type before a command → the game: every game's name and short
        names on the board and beyond it (``other_names``). A name two games answer to names
        neither: the command is then asked about, not guessed."""
        found: dict[str, set[str]] = {}
        for key, game in self.other_names().items():
            found.setdefault(game_key(key), set()).add(game)
        for g in self.games.values():
            for name in (g.name, *g.aliases):
                found.setdefault(game_key(name), set()).add(g.name)
        return {key: next(iter(games)) for key, games in found.items() if len(games) == 1 and key}

    # ------------------------------------------------------------------ reading

    def read(self, asking: Notifier, uid: int, now: datetime, result: PassResult) -> None:
        """The director's conversation read (when due) and every new message handed to the
        games it is for; the unread list of the account when due. Called in ``asking``'s pass."""
        games = self.games_of(uid) or [asking]
        if asking not in games:
            games = sorted([*games, asking], key=lambda g: g.name)
        if self.shared:
            every = timedelta(seconds=min(g.rt.settings.agent.poll_interval_seconds for g in games))
            last = self._read_at.get(uid)
            if last is not None and now < last + every:
                return
        self._read_at[uid] = now
        messages, listening, commit = self._read(asking, uid, games)
        for g in games:
            if g not in listening:
                commit(g)  # its first read: where it starts listening
        self._others(asking, now, result)
        items: dict[str, list[Item]] = {}
        names = self.names()
        for message in messages:
            candidates = [g for g in listening if g.listens_since(uid) < message.id]
            fresh = [g for g in candidates if not g.handled(message.id)]
            if not fresh:
                continue
            bot_lines = [line for g in candidates for text in g.pmbox.recent_texts() for line in text.split("\n")]
            commands = parse(message.text, bot_lines=bot_lines, games=names)
            routed = route(commands, [Choice(g.name, g.aliases, g.codes.owns) for g in candidates])
            lead = candidates[0]
            for g in fresh:
                item = Item(message, routed.commands.get(g.name, []), games=[g.name])
                if g is lead:
                    item.notes = routed.notes
                    item.bare = not commands
                    if routed.notes or (item.bare and len(candidates) > 1):
                        item.games = [c.name for c in candidates]
                    if item.bare and len(candidates) > 1:
                        item.help = help_text([Choice(c.name, c.aliases) for c in candidates])
                items.setdefault(g.name, []).append(item)
        for g in listening:
            mine = items.get(g.name)
            if not mine:
                commit(g)
                continue
            if g is asking:  # its own pass: a failure is the pass's, as for a single game
                g.take(mine, uid, now, result)
                commit(g)
                continue
            with self.context(g.name):
                try:
                    busy = g.take(mine, uid, now, None)
                except Exception:  # noqa: BLE001 - another game's trouble (its database) stays its own
                    # Its reading position is not moved on: the next read lists these
                    # messages again and it takes them then.
                    log.exception("导演给这一局的站内信：这次没有执行，下次读站内信时再试")
                    continue
            commit(g)
            if busy:
                self.wake(g.name)

    def _read(self, asking: Notifier, uid: int, games: list[Notifier]
              ) -> tuple[list[PrivateMessage], list[Notifier], Callable[[Notifier], None]]:
        """One read of the conversation for every game of the director. Returns the
        messages from the director (not the bot's own), the games that were listening
        before this read, and ``commit(game)``, which writes where that game stands now
        (once it has taken its messages: a game that could not keeps its old position, so
        the next read, which starts from the lowest, lists them again)."""
        assert asking.client is not None
        listening = [g for g in games if g.conversation_top(uid) is not None]
        floors = [f for g in listening if (f := g.meta_int(f"notify:floor:{uid}")) is not None]
        floor = min(floors) if floors else None
        floor_ats = [g.rt.store.get_meta(f"notify:floor_at:{uid}") for g in listening]
        floor_at = min(datetime.fromisoformat(a) for a in floor_ats) if floor_ats and all(floor_ats) else None
        tops = [g.conversation_top(uid) or 0 for g in listening]
        top_ats = [a for g in listening if (a := g.rt.store.get_meta(f"notify:top_at:{uid}"))]
        began = asking.rt.clock.now()
        messages = asking.client.read_conversation(uid, since_id=floor, seen_at=floor_at)
        self.reads.append((uid, began))
        newest = max([m.id for m in messages] + tops + [0])
        # One read behind: what this read listed is read again next time (see ``notifier``).
        next_floor = str(min(tops)) if listening else str(newest)
        next_floor_at = min(top_ats) if listening and len(top_ats) == len(listening) else began.isoformat()
        was_listening = list(listening)

        def commit(g: Notifier) -> None:
            store = g.rt.store
            with store.write():
                first = g not in was_listening
                if first:
                    store.set_meta(f"notify:from:{uid}", str(newest))
                    store.audit("bot", "notify.started", {"director_uid": uid, "from_pmid": newest}, at=began)
                store.set_meta(f"notify:floor:{uid}", str(newest) if first else next_floor)
                store.set_meta(f"notify:floor_at:{uid}", began.isoformat() if first else next_floor_at)
                store.set_meta(f"notify:top:{uid}", str(max(newest, g.conversation_top(uid) or 0)))
                store.set_meta(f"notify:top_at:{uid}", began.isoformat())

        return [m for m in messages if not m.own], listening, commit

    def _others(self, asking: Notifier, now: datetime, result: PassResult) -> None:
        """PMs from anyone but the account's directors: refused by the account's first game
        (by name), once per ``others_check_minutes``."""
        games = sorted((g for g in self.games.values() if g.reads_commands), key=lambda g: g.name) or [asking]
        lead = games[0]
        directors = {g.known_uid for g in self.games.values() if g.known_uid is not None}
        with self.context(lead.name):
            messages = lead.read_others(directors, now, client=asking.client)
            if not messages:
                return
            busy = lead.refuse_others(messages, now, result if lead is asking else None,
                                      games=[g.name for g in games])
        if busy and lead is not asking:
            self.wake(lead.name)
