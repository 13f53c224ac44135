"""Building posts and games for engine tests: real post text, parsed by the real parser."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

from parsers.models import Font, Post, Quote, TimePrecision
from parsers.votes import parse_vote

from engine.ballots import Ballot
from engine.state import DayWindow, GameState

TZ = timezone(timedelta(hours=8))
PLAYERS = ("饺子", "包子", "汤圆", "月饼", "小笼包", "烧卖")
VOTE_TID = 12
TALK_TID = 11


def at(day: int, hh: int, mm: int, ss: int = 0) -> datetime:
    return datetime(2026, 11, day, hh, mm, ss, tzinfo=TZ)


DAY2 = DayWindow(number=2, start=at(29, 9, 30), deadline=at(30, 21, 30),
                 vote_thread=VOTE_TID, discussion_thread=TALK_TID)
DAY1 = DayWindow(number=1, start=at(27, 9, 30), deadline=at(28, 21, 30),
                 vote_thread=10, discussion_thread=9)


def game(*, players: tuple[str, ...] = PLAYERS, sheriff: str | None = None,
         days: tuple[DayWindow, ...] = (DAY1, DAY2), scapegoat: str | None = None,
         **kw: object) -> GameState:
    """A game with the given sheriff and scapegoat from before its first day."""
    state = GameState(players=players, director="导演", bot="计票机器人", days=days, **kw)  # type: ignore[arg-type]
    if sheriff:
        state = state.set_sheriff(sheriff)
    if scapegoat:
        state = state.set_scapegoat(scapegoat)
    return state


def vote(target: str, reason: str = "理由见讨论帖") -> str:
    return f"投票对象：{target}\n投票理由：{reason}"


def change(target: str, reason: str = "改主意了") -> str:
    return f"改票对象：{target}\n改票理由：{reason}"


class Thread:
    """Posts in one thread, one after another (pids and floors count up, time moves on)."""

    def __init__(self, tid: int = VOTE_TID, start: datetime = at(30, 10, 0), role: str = "vote",
                 first_pid: int = 100) -> None:
        self.tid = tid
        self.role = role
        self.clock = start
        self.next_pid = first_pid
        self.next_floor = 2
        self.ballots: list[Ballot] = []

    def post(self, author: str, text: str, *, when: datetime | None = None,
             quotes: tuple[int, ...] = (), minute: bool = False, fonts: tuple[Font, ...] = (),
             images: tuple[str, ...] = (), links: tuple[str, ...] = (),
             edited_at: datetime | None = None) -> Ballot:
        if when is None:
            self.clock += timedelta(minutes=1)
            when = self.clock
        posted = when.replace(second=0) if minute else when
        post = Post(
            tid=self.tid, pid=self.next_pid, floor=self.next_floor, author=author,
            author_uid=None, posted_at=posted,
            time_precision=TimePrecision.MINUTE if minute else TimePrecision.SECOND,
            html=text, text=text,
            quotes=tuple(Quote(pid=q, tid=self.tid, author=None, quoted_at=None, text="") for q in quotes),
            fonts=fonts, images=images, links=links, edited_at=edited_at,
            edited_by=author if edited_at else None,
        )
        self.next_pid += 1
        self.next_floor += 1
        ballot = Ballot(post=post, declaration=parse_vote(text), thread=self.role)
        self.ballots.append(ballot)
        return ballot

    def edit(self, ballot: Ballot, new_text: str, when: datetime) -> Ballot:
        """The same post seen again after an edit: the first-seen version is kept."""
        post = replace(ballot.post, text=new_text, html=new_text, edited_at=when, edited_by=ballot.post.author)
        edited = Ballot(post=post, declaration=parse_vote(new_text), first_seen=ballot.post,
                        first_declaration=ballot.declaration, thread=ballot.thread)
        self.ballots = [edited if b.pid == ballot.pid else b for b in self.ballots]
        return edited
