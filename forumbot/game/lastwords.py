"""Last words (遗言, SPEC §10.5) as the bot collects them: who is due to be asked, which
morning announcement carries their words, and how long that announcement waits for them.

* The holders are the rule set's (``engine.night.last_words_holders``: 14人简易 the first
  four out, no red card; 双身份 none). A holder is due once the out is recorded — the
  night confirmed, the vote-out's final count approved — and is asked by PM once
  (``forumbot.notify.nightpm``).
* Their words go into the first morning announcement that lists the out: the one of the
  first day starting at or after it. They are keyed by the night before that morning and
  the player (``last_words`` table), kept once and never changed.
* The wait (docs/decisions.md): the announcement is not drafted while a due holder has not
  answered, until the later of that morning's start and ``WAIT`` after the holder was
  asked; then it is drafted without them. Words that come while it waits for the director
  are put in (the draft is redrafted); words that come after it went out are not posted
  (the director is told).

Secret until posted: the words are never logged; the store's audit says that they came.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from engine.night import last_words_holders
from engine.state import GameState
from forumbot.game.runtime import Runtime

__all__ = ["WAIT", "Due", "due", "posted_words", "wait_note", "waits_for_words", "words_basis", "words_until"]

WAIT = timedelta(minutes=30)  # how long after being asked a holder's words are waited for


@dataclass(frozen=True)
class Due:
    player: str
    night: int  # the night before the morning announcement that carries the words
    day: int  # that announcement's day


def _mode(rt: Runtime):
    return getattr(rt.config, "night_mode", None) if getattr(rt.config, "identities", None) is not None else None


def due(rt: Runtime, state: GameState) -> list[Due]:
    """Every holder whose out is recorded, with the announcement their words go into (a
    holder out after the last configured day's start has none: the game's end post)."""
    mode = _mode(rt)
    if mode is None or mode.last_words_count(mode.composition_of(rt.config.identities)) <= 0:
        return []
    holders = last_words_holders(mode, state, mode.composition_of(rt.config.identities))
    when = {d.player: d.at for d in state.departures() if d.kind == "out"}
    days = sorted(state.days, key=lambda d: d.number)
    found = []
    for player in holders:
        at = when.get(player)
        if at is None:
            continue
        day = next((d.number for d in days if d.start >= at), None)
        if day is not None:
            found.append(Due(player, day - 1, day))
    return found


def posted_words(rt: Runtime, state: GameState, day: int) -> tuple[tuple[str, str], ...]:
    """(player, words) for the announcement of ``day``: the words kept in time, in the
    order the holders went out; a declined 遗言 (empty) is not shown."""
    kept = {w.player: w for w in rt.store.last_words(day - 1)}
    out = []
    for d in due(rt, state):
        w = kept.get(d.player)
        if d.day == day and w is not None and w.text and not w.late:
            out.append((d.player, w.text))
    return tuple(out)


def waits_for_words(rt: Runtime, state: GameState, day: int, now: datetime) -> bool:
    """The announcement of ``day`` is held: a holder due in it has not answered, and the
    later of the morning and ``WAIT`` after asking is still ahead."""
    until = words_until(rt, state, day)
    return until is not None and now < until


def words_until(rt: Runtime, state: GameState, day: int) -> datetime | None:
    """Until when the announcement of ``day`` waits for 遗言 still missing (None: none is):
    per holder the later of the morning and ``WAIT`` after being asked — not asked yet (the
    PM goes out on the notifier's next pass), ``WAIT`` after the out was recorded."""
    try:
        morning = state.day(day).start
    except Exception:  # noqa: BLE001 - no such day: nothing to wait for
        return None
    kept = {w.player: w for w in rt.store.last_words(day - 1)}
    latest: datetime | None = None
    for d in due(rt, state):
        if d.day != day:
            continue
        w = kept.get(d.player)
        if w is not None and w.text is not None:
            continue
        since = w.asked_at if w is not None else _recorded(rt, d.player)
        until = max(morning, since + WAIT) if since is not None else morning
        latest = until if latest is None else max(latest, until)
    return latest


def _recorded(rt: Runtime, player: str) -> datetime | None:
    """When the player's out was entered (the night confirmed, the final count approved)."""
    found = [e.at for e in rt.store.live_events()
             if player == e.payload.get("player") or player in (e.payload.get("out") or ())
             or player in (e.payload.get("players") or ())]
    return max(found) if found else None


def wait_note(rt: Runtime, state: GameState, day: int, now: datetime) -> str | None:
    """For the director: the announcement waits for 遗言 (Chinese), or None."""
    until = words_until(rt, state, day)
    if until is None or now >= until:
        return None
    return f"第{day}日公示在等出局玩家的遗言（站内信），最晚等到 {until:%m-%d %H:%M}，之后起草"


def words_basis(rt: Runtime, day: int) -> str:
    """What of the words the announcement of ``day`` depends on (its redraft basis)."""
    return ",".join(f"{w.player}:{w.pmid}" for w in rt.store.last_words(day - 1) if w.text is not None and not w.late)
