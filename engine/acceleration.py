"""加速 requests: who asked, and whether more than half of the living players did.

14人简易: 如果在进程帖中申请加速的玩家超过所有存活玩家的二分之一则游戏进程加速。 The engine
only counts; the director confirms (``forumbot accelerate``), after which all the day's
changes are void.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.activity import day_posts
from engine.ballots import Ballot
from engine.state import GameState
from parsers.text import own_text, strip_zero_width

REQUEST_WORDS = ("加速", "加快进程")
REFUSALS = ("不加速", "不要加速", "反对加速", "别加速", "不同意加速")


@dataclass(frozen=True)
class AccelerationStatus:
    day: int
    requests: tuple[tuple[str, int, int | None], ...]  # (player, pid, floor), first request each
    living: int

    @property
    def needed(self) -> int:
        """The smallest number that is more than half of the living players."""
        return self.living // 2 + 1

    @property
    def enough(self) -> bool:
        return len(self.requests) >= self.needed


def is_request(text: str) -> bool:
    """A post asking to accelerate: it says 加速 and does not say it is against it."""
    words = strip_zero_width(own_text(text)).replace(" ", "")
    if any(no in words for no in REFUSALS):
        return False
    return any(word in words for word in REQUEST_WORDS)


def acceleration_requests(ballots: list[Ballot] | tuple[Ballot, ...], state: GameState, day: int) -> AccelerationStatus:
    window = state.day(day)
    seen: dict[str, tuple[str, int, int | None]] = {}
    for ballot, role in day_posts(ballots, window):
        if role != "progress":
            continue
        seat = state.seat_of(ballot.post.author)
        if seat is None or state.is_out(seat, ballot.at) or seat in seen:
            continue
        if is_request(ballot.post.text):
            seen[seat] = (seat, ballot.pid, ballot.floor)
    return AccelerationStatus(day, tuple(seen.values()), len(state.living(window.deadline)))
