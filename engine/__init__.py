"""Pure game rules: vote validity, tally, ties, cards, game state. No I/O, no clock.

Input is parsed posts (``Ballot``), never text; every decision comes back as a record
that carries its reason.
"""

from engine.activity import PostCounts, Proposal, ProposalKind, post_counts, propose_cards
from engine.ballots import Ballot
from engine.cards import Card, CardError, CardEvent, CardLedger, Decision
from engine.flags import Flag, FlagKind
from engine.reasons import Reason, describe
from engine.report import tally_json
from engine.rules import PRESETS, CardPolicy, RuleSet, RuleSetError, TieRule, Visibility, preset
from engine.rulings import VoteRuling, rule_votes
from engine.state import DayWindow, GameState, OutRecord, StateChange, StateError
from engine.tally import DayResult, TallyResult, TimelineEvent, tally_day

__all__ = [
    "PRESETS",
    "Ballot",
    "Card",
    "CardError",
    "CardEvent",
    "CardLedger",
    "CardPolicy",
    "DayResult",
    "DayWindow",
    "Decision",
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
    "StateChange",
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
