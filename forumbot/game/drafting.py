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
from forumbot.game.render import render
from forumbot.wording import card_said
from forumbot.game.views import (
    CARD_NAMES,
    AccelerationNoticeView,
    AnnouncementView,
    BadgeNoticeView,
    CardNoticeView,
    CardTotals,
    FloorRef,
    count_view,
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
    correction: bool = False,
) -> str:
    day = state.day(int(tally["day"]))
    # The sheriff whose vote weighs double is the badge at the deadline (SPEC §9), as the
    # tally says: a sheriff out since then shows as 警长：空缺, not as the old name.
    sheriff = tally.get("sheriff_at_deadline", tally.get("sheriff_going_in"))
    view = count_view(
        tally,
        tid=day.vote_thread or 0,
        now=now,
        deadline=day.deadline,
        final=final,
        counts_only=hide_voters,
        sheriff=sheriff,
        sheriff_weight=rules.sheriff_weight,
        describe_reason=lambda code: describe_zh(code, change_window_minutes=rules.change_window_minutes),
        request_by=request_by,
        correction=correction,
    )
    template = "final_count.bbcode.j2" if final else (
        "count_reply.bbcode.j2" if request_by else "running_count.bbcode.j2"
    )
    return render(env, template, {"count": view})


def announcement_body(env: jinja2.Environment, view: AnnouncementView) -> str:
    return render(env, "announcement.bbcode.j2", {"a": view})


def acceleration_notice_body(env: jinja2.Environment, view: AccelerationNoticeView) -> str:
    return render(env, "acceleration_notice.bbcode.j2", {"n": view})


def badge_notice_body(env: jinja2.Environment, view: BadgeNoticeView) -> str:
    return render(env, "badge_notice.bbcode.j2", {"n": view})


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
    withdrawn: bool = False,
    points: int | None = None,
    sendoff_points: int | None = None,
) -> str:
    view = CardNoticeView(
        player=player,
        card_name=card_said(card, points) if card == "points" else CARD_NAMES.get(card, card),
        why=why,
        totals=totals,
        floors=floors,
        sent_off=sent_off,
        badge_to=badge_to,
        badge_seed=badge_seed,
        withdrawn=withdrawn,
        points=points,
        sendoff_points=sendoff_points,
    )
    return render(env, "card_notice.bbcode.j2", {"c": view})
