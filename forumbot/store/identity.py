"""Which state this store is, which other states' posts it has taken over, and whether the
bot may post.

Every store has a random *state id* (``state_id``, six hex digits, created with the store:
schema 9), written into each post's marker beside the game's hash (``forumbot.store.marker``).
When the agent finds posts of its own game from another state in the game's threads — the
database was lost and this one replaced it, or this config is a copy of one another agent
runs — the game stops posting (an alarm of kind ``state_conflict``) until the director
says which it is (``forumbot.game.provenance``):

* *adopted* (``adopt_states``): the other state's posts are this game's history; the bot
  goes on, and what they posted (a final count, an announcement) is never drafted again;
* *a copy* (``mark_copy``): the alarm stays, saying the config must be fixed.

Posts of *another game* in a thread (``foreign_game:<tid>``) stop posting in that thread.

The outbox asks ``posting_block(tid)`` before it sends anything: whatever process
publishes from this store, nothing goes out while the director has not decided.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from forumbot.store.alarms import Alarm, AlarmsMixin
from forumbot.store.codec import iso

STATE_CONFLICT = "state_conflict"  # alarm kind and key: another state of this game posted here
FOREIGN_GAME = "foreign_game"  # alarm kind; key foreign_game:<tid>: another game posted in tid

_ADOPTED = "identity:adopted"  # JSON {state: {"at", "by", "renewed"}}: states taken over
_COPY = "identity:copy"  # JSON {state: {"at", "by"}}: states the director called another live copy's


class IdentityMixin(AlarmsMixin):
    @property
    def state_id(self) -> str:
        """This state's random id (six hex digits)."""
        value = self.get_meta("state_id")
        if not value:  # pragma: no cover - schema 9 writes it; a store is always migrated
            raise RuntimeError("store has no state_id: schema older than 9")
        return value

    def _json_meta(self, key: str) -> dict[str, Any]:
        text = self.get_meta(key)
        try:
            found = json.loads(text) if text else {}
        except ValueError:
            found = {}
        return found if isinstance(found, dict) else {}

    def adopted_states(self) -> dict[str, dict[str, Any]]:
        """The other states whose posts the director took over as this state's history."""
        return self._json_meta(_ADOPTED)

    def copy_states(self) -> dict[str, dict[str, Any]]:
        """The other states the director said belong to another live copy of this game."""
        return self._json_meta(_COPY)

    def adopt_states(self, states: Iterable[str], *, actor: str, at: datetime) -> dict[str, dict[str, Any]]:
        """Take the posts of ``states`` over as this state's own history. When this state's
        own id is among them (the forum holds posts of this very state that it has no record
        of: the file was restored from an older copy), this state takes a new id, so none
        of its next markers can equal one already on the forum. Returns the adopted states."""
        wanted = sorted(set(states))
        with self.write():
            adopted = self.adopted_states()
            copies = self.copy_states()
            renewed = None
            for state in wanted:
                adopted[state] = {"at": iso(at), "by": actor}
                copies.pop(state, None)
            if self.state_id in wanted:  # adopted above under its old id
                renewed = self._renew_state_id()
            self.set_meta(_ADOPTED, json.dumps(adopted, sort_keys=True))
            self.set_meta(_COPY, json.dumps(copies, sort_keys=True))
            self.audit(actor, "identity.adopted", {"states": wanted, "new_state_id": renewed}, at=at)
        return adopted

    def _renew_state_id(self) -> str:
        """A new random state id (inside the caller's transaction); the old one is adopted
        by the caller. Drafts never sent take markers of the new id."""
        old = self.state_id
        new = old
        while new == old:
            new = secrets.token_hex(3)
        self.set_meta("state_id", new)
        rows = list(self.db.query("SELECT id, marker FROM outbox WHERE attempts = 0 AND state IN"
                                  " ('draft', 'approved')"))
        for row in rows:
            marker = str(row["marker"])
            if f"-{old}-" in marker:
                self.db.conn.execute("UPDATE outbox SET marker = ? WHERE id = ?",
                                     (marker.replace(f"-{old}-", f"-{new}-", 1), row["id"]))
        return new

    def mark_copy(self, states: Iterable[str], *, actor: str, at: datetime) -> None:
        """The director says ``states`` are another live copy's (this config is a copy):
        nothing is taken over; the alarm stays until the config no longer points at them."""
        wanted = sorted(set(states))
        with self.write():
            copies = self.copy_states()
            for state in wanted:
                copies[state] = {"at": iso(at), "by": actor}
            self.set_meta(_COPY, json.dumps(copies, sort_keys=True))
            self.audit(actor, "identity.copy", {"states": wanted}, at=at)

    def posting_block(self, tid: int) -> Alarm | None:
        """The active alarm that forbids posting in thread ``tid`` (another state of this
        game posted in its threads, or another game in this one), or None."""
        conflict = self.alarm(STATE_CONFLICT)
        if conflict is not None:
            return conflict
        return self.alarm(f"{FOREIGN_GAME}:{tid}")

    def game_blocked(self) -> Alarm | None:
        """The alarm that stops the whole game posting (and drafting), or None."""
        return self.alarm(STATE_CONFLICT)


__all__ = ["FOREIGN_GAME", "IdentityMixin", "STATE_CONFLICT"]
