"""Turning tallies and decisions into the BBCode the bot posts.

Each function returns the body of one post; the agent hands it to the outbox. The text
comes from the director-editable templates, the data from the SPEC §7 tally JSON.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import jinja2

from engine.reasons import describe_zh
from engine.rules import RuleSet, Visibility
from engine.state import GameState
from forumbot.render import render
from forumbot.views import (
    CARD_NAMES,
    AnnouncementView,
    CardLine,
    CardNoticeView,
    CardTotals,
    FloorRef,
    count_view,
    format_time,
    tie_note,
)


def counts_only(rules: RuleSet, override: bool | None) -> bool:
    if override is not None:
        return override
    return rules.visibility is Visibility.COUNTS_ONLY


def count_body(
    env: jinja2.Environment,
    tally: dict[str, Any],
    *,
    state: GameState,
    rules: RuleSet,
    now: datetime,
    final: bool,
    hide_voters: bool,
    request_by: str | None = None,
) -> str:
    day = state.day(int(tally["day"]))
    view = count_view(
        tally,
        tid=day.vote_thread or 0,
        now=now,
        deadline=day.deadline,
        final=final,
        counts_only=hide_voters,
        sheriff=tally.get("sheriff_going_in") or state.sheriff,
        sheriff_weight=rules.sheriff_weight,
        describe_reason=describe_zh,
        request_by=request_by,
    )
    template = "final_count.bbcode.j2" if final else (
        "count_reply.bbcode.j2" if request_by else "running_count.bbcode.j2"
    )
    return render(env, template, {"count": view})


def announcement_body(
    env: jinja2.Environment,
    *,
    day: int,
    state: GameState,
    previous_tally: dict[str, Any] | None,
    night_out: tuple[str, ...],
    cards: tuple[CardLine, ...],
) -> str:
    vote_day = previous_tally["day"] if previous_tally else None
    result = (previous_tally or {}).get("result") or {}
    elected = result.get("sheriff") if vote_day == 1 else None
    note = tie_note(result) if previous_tally else None
    try:
        window = state.day(day)
        next_deadline = format_time(window.deadline)
    except ValueError:
        next_deadline = None
    view = AnnouncementView(
        day=day,
        vote_day=vote_day,
        voted_out=result.get("out"),
        elected=elected,
        vote_note=note,
        night_out=night_out,
        sheriff=state.sheriff,
        cards=cards,
        alive=state.living(),
        next_deadline=next_deadline,
    )
    return render(env, "announcement.bbcode.j2", {"a": view})


def card_notice_body(
    env: jinja2.Environment,
    *,
    player: str,
    card: str,
    why: str,
    totals: CardTotals,
    floors: tuple[FloorRef, ...] = (),
    sent_off: bool = False,
    badge_to: str | None = None,
    badge_seed: int | None = None,
) -> str:
    view = CardNoticeView(
        player=player,
        card_name=CARD_NAMES.get(card, card),
        why=why,
        totals=totals,
        floors=floors,
        sent_off=sent_off,
        badge_to=badge_to,
        badge_seed=badge_seed,
    )
    return render(env, "card_notice.bbcode.j2", {"c": view})
