"""The engine's input record: one post as the rules see it (already parsed, never text)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from parsers.models import Post, TimePrecision, VoteDeclaration

THREAD_ROLES = ("vote", "discussion", "progress")


@dataclass(frozen=True)
class Ballot:
    """One post with what its own text declares.

    ``declaration`` comes from ``parsers.votes.parse_vote(post.text, plain=True)`` (None: not a vote
    post). When later edits were observed, ``first_seen``/``first_declaration`` hold the
    version the bot saw first: that text stands (修改错别字不算做改票).
    """

    post: Post
    declaration: VoteDeclaration | None
    first_seen: Post | None = None
    first_declaration: VoteDeclaration | None = None
    thread: str = "vote"  # "vote" | "discussion" | "progress"

    @property
    def pid(self) -> int:
        return self.post.pid

    @property
    def floor(self) -> int | None:
        return self.post.floor

    @property
    def at(self) -> datetime:
        return self.post.posted_at

    @property
    def minute_precise(self) -> bool:
        return self.post.time_precision == TimePrecision.MINUTE

    @property
    def standing(self) -> tuple[Post, VoteDeclaration | None]:
        """The post and declaration the rules use: the first-seen version when there is one."""
        if self.first_seen is not None:
            return self.first_seen, self.first_declaration
        return self.post, self.declaration

    def order_key(self) -> tuple[datetime, int]:
        """Post-time order, pid order within the same time (pid order is floor order in a
        thread, and stays defined when a floor is unknown or shifted by a deletion)."""
        return (self.post.posted_at, self.post.pid)


def in_post_order(ballots: list[Ballot] | tuple[Ballot, ...]) -> list[Ballot]:
    """Ballots in post order, one per pid (the last one given wins: it is the newest view)."""
    by_pid: dict[int, Ballot] = {}
    for ballot in ballots:
        by_pid[ballot.pid] = ballot
    return sorted(by_pid.values(), key=Ballot.order_key)
