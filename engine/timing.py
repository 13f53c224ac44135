"""Comparing a post's time with a day's boundaries (SPEC §3.4), honestly.

A post time known to the minute only ("发表于 2026-11-30 21:30") is compared at minute
resolution: shown 21:30 against a 21:30 deadline is late, 21:29 is not. At the same
instant (same second, or same minute for minute-precise posts) a boundary that names the
director's closing post (``deadline_pid``) orders by pid; without one, "at the deadline"
is late, as the rules say (投票截止时间).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from engine.ballots import Ballot
from engine.state import DayWindow


def _truncate(t: datetime, minute: bool) -> datetime:
    if minute:
        return t.replace(second=0, microsecond=0)
    return t.replace(microsecond=0) if t.microsecond else t


def at_or_after(ballot: Ballot, boundary: datetime, boundary_pid: int | None = None) -> bool:
    minute = ballot.minute_precise
    t = _truncate(ballot.at, minute)
    b = _truncate(boundary, minute)
    if t != b:
        return t > b
    if boundary_pid is not None:
        return ballot.pid >= boundary_pid
    return True


def is_before_start(ballot: Ballot, day: DayWindow) -> bool:
    return not at_or_after(ballot, day.start)


def is_late(ballot: Ballot, day: DayWindow) -> bool:
    # The closing post itself is the deadline: posts after it are late, and the closing
    # post's own pid counts as "at" the deadline.
    return at_or_after(ballot, day.deadline, day.deadline_pid)


def in_change_window(ballot: Ballot, day: DayWindow, window_minutes: int) -> bool:
    if window_minutes <= 0:
        return False
    opens = day.deadline - timedelta(minutes=window_minutes)
    return at_or_after(ballot, opens) and not is_late(ballot, day)


def precision_note(ballot: Ballot, boundary: datetime) -> str:
    """Detail text when the comparison was made to the minute only."""
    if not ballot.minute_precise:
        return ""
    same = _truncate(ballot.at, True) == _truncate(boundary, True)
    note = "发帖时间只精确到分钟"
    if same:
        note += f"，与 {boundary.strftime('%H:%M:%S')} 同一分钟"
    return note
