"""Pure game rules: vote validity, tally, ties, cards, game state. No I/O, no clock.

Input is parsed posts (``Ballot``), never text; every decision comes back as a record
that carries its reason.
"""

from engine.activity import PostCounts, Proposal, ProposalKind, post_counts, propose_cards
from engine.badge import BadgeStatus, Succession, badge_status, check_successor, successor_candidates
from engine.ballots import Ballot
from engine.cards import Card, CardError, CardEvent, CardLedger, Decision
from engine.events import EventKind, GameEvent, OutWhy, parse_why
from engine.flags import Flag, FlagKind
from engine.reasons import Reason, describe
from engine.report import tally_json
from engine.rules import PRESETS, CardPolicy, Quorum, RuleSet, RuleSetError, SendoffBadge, TieRule, Visibility, preset
from engine.rulings import VoteRuling, rule_votes
from engine.state import DayWindow, Departure, GameState, Moment, OutRecord, StateError, Vacancy
from engine.tally import DayResult, TallyResult, TimelineEvent, tally_day

__all__ = [
    "PRESETS",
    "BadgeStatus",
    "Ballot",
    "Card",
    "CardError",
    "CardEvent",
    "CardLedger",
    "CardPolicy",
    "DayResult",
    "DayWindow",
    "Decision",
    "Departure",
    "EventKind",
    "GameEvent",
    "Moment",
    "OutWhy",
    "Quorum",
    "SendoffBadge",
    "Succession",
    "Vacancy",
    "badge_status",
    "check_successor",
    "parse_why",
    "successor_candidates",
    "Flag",
    "FlagKind",
    "GameState",
    "OutRecord",
    "PostCounts",
    "Proposal",
    "ProposalKind",
    "Reason",
    "RuleSet",
    "RuleSetError",
    "StateError",
    "TallyResult",
    "TieRule",
    "TimelineEvent",
    "Visibility",
    "VoteRuling",
    "describe",
    "post_counts",
    "preset",
    "propose_cards",
    "rule_votes",
    "tally_day",
    "tally_json",
]
