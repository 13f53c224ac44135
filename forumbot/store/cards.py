"""The card ledger and the bot's card proposals (the bot proposes, the director decides)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from forumbot.store.base import StoreBase
from forumbot.store.codec import iso, parse_time, parse_time_or_none
from forumbot.store.records import CardColor, CardEntry, CardProposal, ProposalState
from forumbot.wording import PROPOSAL_STATE_ZH


class UnknownProposalError(LookupError):
    def __init__(self, proposal_id: int) -> None:
        super().__init__(f"没有判罚提议 #{proposal_id}（提议编号见 forumbot status）")


class ProposalDecidedError(ValueError):
    """The proposal was already accepted or dismissed."""


def _entry(row: dict[str, Any]) -> CardEntry:
    return CardEntry(
        id=row["id"],
        player=row["player"],
        color=CardColor(row["color"]),
        points=row["points"],
        day=row["day"],
        reason=row["reason"],
        actor=row["actor"],
        at=parse_time(row["at"]),
        proposal_id=row["proposal_id"],
        events=tuple(json.loads(row.get("events") or "[]")),
        retracted_at=parse_time_or_none(row.get("retracted_at")),
        retracted_by=row.get("retracted_by"),
        retract_why=row.get("retract_why"),
    )


class CardRetractedError(ValueError):
    """The card was already taken back."""


def _proposal(row: dict[str, Any]) -> CardProposal:
    return CardProposal(
        id=row["id"],
        day=row["day"],
        player=row["player"],
        color=CardColor(row["color"]),
        reason_code=row["reason_code"],
        detail=row["detail"] or "",
        key=row["key"],
        state=ProposalState(row["state"]),
        created_at=parse_time(row["created_at"]),
        decided_by=row["decided_by"],
        decided_at=parse_time_or_none(row["decided_at"]),
        why=row["why"],
        entry_id=row["entry_id"],
    )


class CardsMixin(StoreBase):
    def add_card(
        self,
        player: str,
        color: CardColor | str,
        reason: str,
        *,
        actor: str,
        at: datetime,
        day: int | None = None,
        points: int | None = None,
        proposal_id: int | None = None,
    ) -> CardEntry:
        color = CardColor(color)
        with self.write() as conn:
            cur = conn.execute(
                "INSERT INTO cards (player, color, points, day, reason, actor, at, proposal_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (player, color.value, points, day, reason, actor, iso(at), proposal_id),
            )
            entry_id = int(cur.lastrowid or 0)
            self.audit(
                actor,
                "card.given",
                {"entry": entry_id, "player": player, "color": color.value, "points": points,
                 "day": day, "reason": reason, "proposal": proposal_id},
                at=at,
            )
        return CardEntry(entry_id, player, color, points, day, reason, actor, at, proposal_id)

    def cards(self, *, player: str | None = None, include_retracted: bool = False) -> list[CardEntry]:
        """The ledger's cards in the order given; those taken back only when asked."""
        sql, params = "SELECT * FROM cards WHERE 1 = 1", []
        if player is not None:
            sql += " AND player = ?"
            params.append(player)
        if not include_retracted:
            sql += " AND retracted_at IS NULL"
        return [_entry(r) for r in self.db.query(sql + " ORDER BY id", params)]

    def card(self, entry_id: int) -> CardEntry:
        row = self._one("SELECT * FROM cards WHERE id = ?", (entry_id,))
        if row is None:
            raise LookupError(f"没有编号为 {entry_id} 的判罚")
        return _entry(row)

    def link_card_events(self, entry_id: int, event_ids: list[int]) -> None:
        """Remember which game events card ``entry_id`` caused (in the caller's transaction)."""
        with self.write() as conn:
            conn.execute("UPDATE cards SET events = ? WHERE id = ?", (json.dumps(event_ids), entry_id))

    def retract_card(self, entry_id: int, *, actor: str, at: datetime, why: str) -> CardEntry:
        """Take a card back: it leaves the ledger but stays in its history, audited."""
        with self.write() as conn:
            entry = self.card(entry_id)
            if not entry.standing:
                raise CardRetractedError(f"判罚 #{entry_id} 已于 {iso(entry.retracted_at)} 撤销")
            conn.execute(
                "UPDATE cards SET retracted_at = ?, retracted_by = ?, retract_why = ? WHERE id = ?",
                (iso(at), actor, why, entry_id),
            )
            self.audit(actor, "card.retracted", {"entry": entry_id, "player": entry.player,
                                                 "color": entry.color.value, "why": why}, at=at)
        return self.card(entry_id)

    def propose_card(
        self,
        player: str,
        color: CardColor | str,
        reason_code: str,
        *,
        key: str,
        at: datetime,
        day: int | None = None,
        detail: str = "",
    ) -> tuple[CardProposal, bool]:
        """Propose a card. ``key`` (e.g. ``"no_vote:day2:饺子"``) makes this idempotent:
        a key already used returns the existing proposal and ``False``."""
        color = CardColor(color)
        with self.write() as conn:
            existing = self._one("SELECT * FROM card_proposals WHERE key = ?", (key,))
            if existing is not None:
                return _proposal(existing), False
            cur = conn.execute(
                "INSERT INTO card_proposals (day, player, color, reason_code, detail, key,"
                " state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (day, player, color.value, reason_code, detail, key,
                 ProposalState.PROPOSED.value, iso(at)),
            )
            proposal_id = int(cur.lastrowid or 0)
            self.audit("bot", "card.proposed", {"proposal": proposal_id, "player": player,
                       "color": color.value, "reason": reason_code, "day": day}, at=at)
        return self.proposal(proposal_id), True

    def proposal(self, proposal_id: int) -> CardProposal:
        row = self._one("SELECT * FROM card_proposals WHERE id = ?", (proposal_id,))
        if row is None:
            raise UnknownProposalError(proposal_id)
        return _proposal(row)

    def proposals(self, *, state: ProposalState | str | None = None) -> list[CardProposal]:
        sql, params = "SELECT * FROM card_proposals", []
        if state is not None:
            sql += " WHERE state = ?"
            params.append(ProposalState(state).value)
        return [_proposal(r) for r in self.db.query(sql + " ORDER BY id", params)]

    def _decide(self, proposal_id: int, state: ProposalState, actor: str, at: datetime,
                why: str | None, entry_id: int | None) -> None:
        cur = self.db.conn.execute(
            "UPDATE card_proposals SET state = ?, decided_by = ?, decided_at = ?, why = ?,"
            " entry_id = ? WHERE id = ? AND state = ?",
            (state.value, actor, iso(at), why, entry_id, proposal_id,
             ProposalState.PROPOSED.value),
        )
        if cur.rowcount != 1:
            current = self.proposal(proposal_id)  # raises when unknown
            raise ProposalDecidedError(
                f"判罚提议 #{proposal_id} 已经处理过（{PROPOSAL_STATE_ZH.get(current.state.value, current.state.value)}）"
            )

    def accept_proposal(
        self, proposal_id: int, *, actor: str, at: datetime, reason: str | None = None,
        points: int | None = None, color: CardColor | str | None = None,
    ) -> CardEntry:
        """Accept: the card enters the ledger, in the same transaction — as proposed, or
        as ``color`` (a points game's deduction for a proposal that carried a colour)."""
        with self.write():
            p = self.proposal(proposal_id)
            if p.state is not ProposalState.PROPOSED:
                raise ProposalDecidedError(
                    f"判罚提议 #{proposal_id} 已经处理过（{PROPOSAL_STATE_ZH.get(p.state.value, p.state.value)}）"
                )
            entry = self.add_card(
                p.player, color or p.color, reason or p.detail or p.reason_code, actor=actor, at=at,
                day=p.day, points=points, proposal_id=p.id,
            )
            self._decide(proposal_id, ProposalState.ACCEPTED, actor, at, reason, entry.id)
        return entry

    def dismiss_proposal(
        self, proposal_id: int, *, actor: str, at: datetime, why: str = ""
    ) -> CardProposal:
        with self.write():
            self._decide(proposal_id, ProposalState.DISMISSED, actor, at, why, None)
            self.audit(actor, "card.dismissed", {"proposal": proposal_id, "why": why}, at=at)
        return self.proposal(proposal_id)
