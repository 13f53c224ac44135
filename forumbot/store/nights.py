"""The nights the bot runs (SPEC §10.2–10.3): the actions as they arrived, the players' PMs
read, what each player has been told, and the night's proposals and their confirmation.

Everything here is secret game data (SPEC §10.1): the rows hold who acts with which skill
on whom. None of it is written to the audit log — the audit lines name a row by its id and
say where it came from, never the actor, the skill or the target — and no export reads
these tables.

* ``night_actions`` — append-only: each action with its game time (``at``, when it was
  sent) and its source (``pm`` with the message's pmid, unique; ``director``). The store's
  id is the ``seq`` that orders two actions of one second, so the rulings never depend on
  the order a restart reads them in. Taken back by the director: ``retracted_at`` set.
* ``night_messages`` — every PM of a player the bot has handled (pmid primary key, written
  in the transaction that files its action and queues its answer): read twice, applied once.
* ``night_told`` — what a player or the director has been sent about the nights, by a key
  (``answer:<pmid>``, ``feedback:<night>:<skill>:<player>``, ``identity:<player>``, …), with
  the PM row (``notify_pms``) that carries it: each is queued exactly once.
* ``night_extensions`` — append-only: the director's extensions of one phase of one night
  (the phase by its identity's code, the minutes added), with who, when and why. Not secret
  (a phase's name says nothing of who holds it): audited in full.
* ``night_proposals`` — a night's resolution as proposed, versioned by content (a new
  version only when it changed); ``confirmed`` when the director confirmed one, with the §9
  events it became; ``corrected`` when the director entered the night by hand instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.store.base import StoreBase
from forumbot.store.codec import canonical_json, iso, parse_time, parse_time_or_none, sha256_hex

__all__ = ["LastWords", "NightActionRecord", "NightExtension", "NightProposal", "NightsMixin", "ProposalStateError"]

SOURCES = ("pm", "director", "config")
PROPOSAL_STATES = ("proposed", "confirmed", "corrected", "superseded")


class ProposalStateError(ValueError):
    """A confirmation that cannot be (no proposal, an old version, already decided); Chinese."""


@dataclass(frozen=True)
class NightActionRecord:
    id: int
    night: int
    actor: str
    skill: str  # the engine's code (``engine.night.Skill`` value)
    targets: tuple[str, ...]
    at: datetime  # game time it was sent
    source: str  # pm | director | config
    pmid: int | None
    text: str  # the line as sent (the director's form for an entered one)
    entered_by: str
    entered_at: datetime
    retracted_at: datetime | None = None
    retract_why: str | None = None

    @property
    def by_director(self) -> bool:
        return self.source == "director"


@dataclass(frozen=True)
class NightExtension:
    id: int
    night: int
    phase: str  # the acting identity's code (``engine.night.Identity`` value)
    minutes: int
    at: datetime  # the game time the director made it
    actor: str
    why: str


@dataclass(frozen=True)
class NightProposal:
    id: int
    night: int
    version: int
    hash: str
    data: dict[str, Any]  # the NightResult's §10.6 object (and what the agent adds)
    proposed_at: datetime
    state: str  # proposed | confirmed | corrected | superseded
    decided_at: datetime | None
    decided_by: str | None
    events: tuple[int, ...]  # the §9 events a confirmation entered


@dataclass(frozen=True)
class LastWords:
    """A holder of 遗言 asked by PM (the words once they came; never changed after)."""

    night: int  # the night before the morning announcement that carries them
    player: str
    asked_at: datetime
    text: str | None  # None: not answered yet
    pmid: int | None  # the player's message that carried them
    received_at: datetime | None
    late: bool  # arrived after that announcement had gone out: never posted


def _last_words(r: Mapping[str, Any]) -> LastWords:
    return LastWords(night=r["night"], player=r["player"], asked_at=parse_time(r["asked_at"]), text=r["text"],
                     pmid=r["pmid"], received_at=parse_time_or_none(r["received_at"]), late=bool(r["late"]))


def _action(r: Mapping[str, Any]) -> NightActionRecord:
    return NightActionRecord(
        id=r["id"], night=r["night"], actor=r["actor"], skill=r["skill"],
        targets=tuple(json.loads(r["targets"] or "[]")), at=parse_time(r["at"]), source=r["source"],
        pmid=r["pmid"], text=r["text"] or "", entered_by=r["entered_by"], entered_at=parse_time(r["entered_at"]),
        retracted_at=parse_time_or_none(r["retracted_at"]), retract_why=r["retract_why"])


def _proposal(r: Mapping[str, Any]) -> NightProposal:
    return NightProposal(
        id=r["id"], night=r["night"], version=r["version"], hash=r["hash"], data=json.loads(r["json"]),
        proposed_at=parse_time(r["proposed_at"]), state=r["state"], decided_at=parse_time_or_none(r["decided_at"]),
        decided_by=r["decided_by"], events=tuple(json.loads(r["events"] or "[]")))


class NightsMixin(StoreBase):
    days_revision: int  # DaysMixin's: an extension changes the schedule too
    # -- actions ---------------------------------------------------------------------

    def add_night_action(self, night: int, actor: str, skill: str, targets: Sequence[str], *, at: datetime,
                         source: str, entered_by: str, now: datetime, pmid: int | None = None,
                         text: str = "") -> NightActionRecord:
        """File one action (joins the caller's transaction). A PM's action is filed once:
        the same pmid again returns the row already filed."""
        if source not in SOURCES:
            raise ValueError(f"未知的行动来源 {source!r}")
        with self.write() as conn:
            if pmid is not None:
                row = self._one("SELECT * FROM night_actions WHERE pmid = ?", (pmid,))
                if row is not None:
                    return _action(row)
            cur = conn.execute(
                "INSERT INTO night_actions (night, actor, skill, targets, at, source, pmid, text, entered_by,"
                " entered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (night, actor, skill, json.dumps(list(targets), ensure_ascii=False),
                 iso(at, what="action at"), source, pmid, text, entered_by, iso(now)))
            action_id = int(cur.lastrowid or 0)
            # Secret: the audit says that an action came in, not whose or what.
            self.audit(entered_by, "night.action", {"action": action_id, "night": night, "source": source}, at=now)
        return self.night_action(action_id)

    def night_action(self, action_id: int) -> NightActionRecord:
        row = self._one("SELECT * FROM night_actions WHERE id = ?", (action_id,))
        if row is None:
            raise LookupError(f"没有编号为 {action_id} 的夜晚行动")
        return _action(row)

    def night_actions(self, night: int | None = None, *, include_retracted: bool = False) -> list[NightActionRecord]:
        """The actions in the order they were filed (the judge orders them by game time)."""
        sql, params = "SELECT * FROM night_actions WHERE 1 = 1", []
        if night is not None:
            sql += " AND night = ?"
            params.append(night)
        if not include_retracted:
            sql += " AND retracted_at IS NULL"
        return [_action(r) for r in self.db.query(sql + " ORDER BY id", params)]

    def retract_night_action(self, action_id: int, why: str, *, actor: str, now: datetime) -> NightActionRecord:
        if not why.strip():
            raise ValueError("撤销要写明理由")
        with self.write() as conn:
            found = self.night_action(action_id)
            if found.retracted_at is not None:
                return found
            conn.execute("UPDATE night_actions SET retracted_at = ?, retract_why = ? WHERE id = ?",
                         (iso(now), why, action_id))
            self.audit(actor, "night.action_retracted", {"action": action_id, "night": found.night}, at=now)
        return self.night_action(action_id)

    # -- the players' PMs read -------------------------------------------------------

    def night_message_handled(self, pmid: int) -> bool:
        return self._one("SELECT 1 AS x FROM night_messages WHERE pmid = ?", (pmid,)) is not None

    def night_message_effect(self, pmid: int) -> dict[str, Any] | None:
        """What a handled message did here (None: not handled)."""
        row = self._one("SELECT effect FROM night_messages WHERE pmid = ?", (pmid,))
        return None if row is None else json.loads(row["effect"] or "{}")

    def record_night_message(self, pmid: int, *, from_uid: int, player: str, at: datetime, text: str,
                             effect: Mapping[str, Any], now: datetime) -> bool:
        """Note a player's PM as handled (joins the caller's transaction). False: it was already."""
        with self.write() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO night_messages (pmid, from_uid, player, at, text, effect, handled_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (pmid, from_uid, player, iso(at), text, json.dumps(dict(effect), ensure_ascii=False, sort_keys=True),
                 iso(now)))
            return cur.rowcount == 1

    def night_messages(self, player: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM night_messages", []
        if player is not None:
            sql += " WHERE player = ?"
            params.append(player)
        return [{**r, "effect": json.loads(r["effect"] or "{}")} for r in self.db.query(sql + " ORDER BY pmid", params)]

    # -- told exactly once -----------------------------------------------------------

    def night_told(self, key: str) -> int | None:
        """The PM row that told ``key`` (None: not told)."""
        row = self._one("SELECT pm_id FROM night_told WHERE key = ?", (key,))
        return None if row is None else int(row["pm_id"] or 0)

    def mark_night_told(self, key: str, *, kind: str, to: str, pm_id: int, now: datetime) -> bool:
        """Record that ``key`` was queued in PM row ``pm_id`` (joins the caller's
        transaction, which queued the PM). False: it had been told already."""
        with self.write() as conn:
            cur = conn.execute("INSERT OR IGNORE INTO night_told (key, kind, recipient, pm_id, told_at)"
                               " VALUES (?, ?, ?, ?, ?)", (key, kind, to, pm_id, iso(now)))
            return cur.rowcount == 1

    def night_told_keys(self, prefix: str = "") -> list[str]:
        return [r["key"] for r in self.db.query("SELECT key FROM night_told WHERE key LIKE ? ORDER BY told_at, key",
                                                (prefix + "%",))]

    # -- 遗言 -------------------------------------------------------------------------

    def ask_last_words(self, night: int, player: str, *, now: datetime, pm_id: int) -> bool:
        """Note that ``player`` was asked for 遗言 for the morning after ``night`` (joins the
        caller's transaction, which queued the PM). False: asked already."""
        with self.write() as conn:
            cur = conn.execute("INSERT OR IGNORE INTO last_words (night, player, asked_at, pm_id) VALUES (?, ?, ?, ?)",
                               (night, player, iso(now), pm_id))
            return cur.rowcount == 1

    def keep_last_words(self, night: int, player: str, text: str, *, pmid: int | None, now: datetime,
                        late: bool = False) -> bool:
        """The words, once: False when they were given already (or never asked for)."""
        with self.write() as conn:
            cur = conn.execute("UPDATE last_words SET text = ?, pmid = ?, received_at = ?, late = ?"
                               " WHERE night = ? AND player = ? AND text IS NULL",
                               (text, pmid, iso(now), int(late), night, player))
            if cur.rowcount == 1:
                # Secret until posted: the audit says that they came, not what they say.
                self.audit("player(pm)", "night.last_words", {"night": night, "pmid": pmid, "late": late}, at=now)
            return cur.rowcount == 1

    def last_words(self, night: int | None = None) -> list[LastWords]:
        sql, params = "SELECT * FROM last_words", []
        if night is not None:
            sql += " WHERE night = ?"
            params.append(night)
        return [_last_words(r) for r in self.db.query(sql + " ORDER BY night, asked_at, player", params)]

    def last_words_of(self, player: str) -> LastWords | None:
        row = self._one("SELECT * FROM last_words WHERE player = ? ORDER BY night LIMIT 1", (player,))
        return None if row is None else _last_words(row)

    # -- 双身份: the order of a player's two identities ---------------------------------

    def set_identity_order(self, player: str, first: str, *, at: datetime, entered_by: str, now: datetime,
                           pmid: int | None = None) -> None:
        """``player`` puts ``first`` (an identity code) first; the last word stands."""
        with self.write() as conn:
            conn.execute("INSERT INTO night_orders (player, first, at, pmid, entered_by, entered_at)"
                         " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(player) DO UPDATE SET first = excluded.first,"
                         " at = excluded.at, pmid = excluded.pmid, entered_by = excluded.entered_by,"
                         " entered_at = excluded.entered_at", (player, first, iso(at), pmid, entered_by, iso(now)))
            self.audit(entered_by, "night.identity_order", {"pmid": pmid}, at=now)

    def identity_orders(self) -> dict[str, str]:
        return {r["player"]: r["first"] for r in self.db.query("SELECT player, first FROM night_orders ORDER BY player")}

    # -- the director's extensions ----------------------------------------------------

    def night_extensions(self) -> tuple[NightExtension, ...]:
        return tuple(NightExtension(r["id"], r["night"], r["phase"], r["minutes"], parse_time(r["at"]), r["actor"],
                                    r["why"] or "")
                     for r in self.db.query("SELECT * FROM night_extensions ORDER BY id"))

    def add_night_extension(self, night: int, phase: str, minutes: int, *, at: datetime, actor: str,
                            why: str = "") -> NightExtension:
        with self.write() as conn:
            cur = conn.execute("INSERT INTO night_extensions (night, phase, minutes, at, actor, why)"
                               " VALUES (?, ?, ?, ?, ?, ?)", (night, phase, minutes, iso(at), actor, why))
            made = NightExtension(int(cur.lastrowid or 0), night, phase, minutes, at, actor, why)
            # The nights' phases are part of the schedule ``Runtime.config`` derives again.
            self.days_revision += 1
            self.audit(actor, "night.extend", {"extension": made.id, "night": night, "phase": phase,
                                               "minutes": minutes, "why": why}, at=at)
        return made

    # -- proposals -------------------------------------------------------------------

    def save_night_proposal(self, night: int, data: Mapping[str, Any], *, now: datetime) -> tuple[NightProposal, bool]:
        """Keep night ``night``'s proposal; a new version only when its content changed
        (True), which supersedes an unconfirmed earlier one. A night already decided keeps
        its decision: nothing is saved."""
        text = canonical_json(dict(data))
        digest = sha256_hex(text)
        with self.write() as conn:
            last = self.night_proposal(night)
            if last is not None and (last.hash == digest or last.state in ("confirmed", "corrected")):
                return last, False
            if last is not None:
                conn.execute("UPDATE night_proposals SET state = 'superseded' WHERE id = ?", (last.id,))
            cur = conn.execute(
                "INSERT INTO night_proposals (night, version, hash, json, proposed_at, state)"
                " VALUES (?, ?, ?, ?, ?, 'proposed')",
                (night, (last.version if last else 0) + 1, digest, text, iso(now)))
            self.audit("bot", "night.proposed", {"night": night, "version": (last.version if last else 0) + 1,
                                                 "hash": digest[:12]}, at=now)
            return _proposal(self._one("SELECT * FROM night_proposals WHERE id = ?", (cur.lastrowid,)) or {}), True

    def night_proposal(self, night: int, version: int | None = None) -> NightProposal | None:
        """The latest proposal of ``night`` (or that version)."""
        sql, params = "SELECT * FROM night_proposals WHERE night = ?", [night]
        if version is not None:
            sql += " AND version = ?"
            params.append(version)
        row = self._one(sql + " ORDER BY version DESC LIMIT 1", params)
        return None if row is None else _proposal(row)

    def night_proposals(self) -> list[NightProposal]:
        """The latest proposal of every night, by night."""
        rows = self.db.query("SELECT p.* FROM night_proposals p WHERE p.version = "
                             "(SELECT MAX(version) FROM night_proposals q WHERE q.night = p.night) ORDER BY p.night")
        return [_proposal(r) for r in rows]

    def decide_night_proposal(self, night: int, state: str, *, by: str, now: datetime,
                              version: int | None = None, events: Sequence[int] = ()) -> NightProposal:
        """Mark night ``night``'s latest proposal ``confirmed`` (with the events it became)
        or ``corrected`` (the director entered the night by hand). ``version``: the one the
        director saw — an older one cannot be confirmed."""
        if state not in ("confirmed", "corrected"):
            raise ValueError(state)
        with self.write() as conn:
            last = self.night_proposal(night)
            if last is None:
                raise ProposalStateError(f"第{night}晚还没有结算建议")
            if version is not None and version != last.version:
                raise ProposalStateError(f"第{night}晚的结算建议已更新（现在是第{last.version}版，你看到的是第{version}版）："
                                         "请看过新版再确认")
            if last.state in ("confirmed", "corrected"):
                raise ProposalStateError(f"第{night}晚的结算建议已经{'确认' if last.state == 'confirmed' else '由导演录入'}"
                                         f"（{last.decided_at:%m-%d %H:%M}，{last.decided_by}）")
            conn.execute("UPDATE night_proposals SET state = ?, decided_at = ?, decided_by = ?, events = ?"
                         " WHERE id = ?", (state, iso(now), by, json.dumps(list(events)), last.id))
            self.audit(by, f"night.{state}", {"night": night, "version": last.version, "events": list(events)},
                       at=now)
        found = self.night_proposal(night)
        assert found is not None
        return found
