"""加速 requests: who asked in the progress thread, and whether the rule set's quorum is met.

* 14人简易: 如果在进程帖中申请加速的玩家超过所有存活玩家的二分之一则游戏进程加速 — more than half;
* 双身份: 如所有角色均同意缩短游戏日，游戏日可能缩短 — every living player;
* S09/S10 say nothing: requests are listed, the director alone decides.

The engine only counts; the director confirms (an ``accelerated`` event). Players write
requests in many ways and talk *about* acceleration just as often: a negation (不想加速,
没必要加速), a question (谁申请加速了？要不要加速？) or someone else's request reported
(有人申请加速了) is not a request.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from engine.activity import day_posts
from engine.ballots import Ballot
from engine.rules import Quorum, RuleSet
from engine.state import GameState
from parsers.text import own_text, strip_zero_width

# What asks for a shorter day. 加速度 (acceleration, physics) is not one.
_KEYWORD = re.compile(r"加速(?!度)|加快进程|加快游戏|加快节奏|快进|缩短游戏日|缩短白天|提前关门|提前关帖|提前结束今天")
_CLAUSE = re.compile(r"[^，,。．.！!？?；;：:\n～~…、]+[，,。．.！!？?；;：:\n～~…、]*")
# Before the keyword: a negation or refusal (别 — but not 别人).
_NEGATION_BEFORE = re.compile(r"不|没|无需|无须|勿|莫|甭|反对|拒绝|否决|别(?!人)|算了吧")
# After the keyword: the request is dismissed (加速就算了, 加速没意思, 加速个头).
_NEGATION_AFTER = re.compile(r"^[^，,。！!？?]*?(不好|不行吧|没意思|没必要|算了|免了|个屁|个头|什么|干嘛|不了|不要|太早|还早|没到时候)")
# 不加速不行了: a double negation asks.
_DOUBLE_NEGATION = re.compile(r"^[^，,。！!？?]*?(不行|不可|不成)")
_QUESTION = re.compile(r"[？?]|吗|么|呢|谁|什么|怎么|要不要|是否|能不能|可不可以|有没有|为什么|为啥|咋|几个|多少|是不是")
# Someone else's request, reported: 有人申请加速了, 他们说要加速.
_REPORTED = re.compile(r"有人|别人|他们|她们|他说|她说|大家都说|楼上说|刚才谁")


@dataclass(frozen=True)
class AccelerationStatus:
    day: int
    requests: tuple[tuple[str, int, int | None], ...]  # (player, pid, floor), first request each
    living: int
    quorum: Quorum = Quorum.MAJORITY

    @property
    def needed(self) -> int | None:
        """How many requests the rule set needs (None: only the director decides)."""
        if self.quorum is Quorum.MAJORITY:
            return self.living // 2 + 1  # more than half
        if self.quorum is Quorum.ALL:
            return self.living
        return None

    @property
    def enough(self) -> bool:
        needed = self.needed
        return needed is not None and len(self.requests) >= needed

    def describe(self) -> str:
        """One line in Chinese for the director."""
        who = "、".join(f"{p}（{f}楼）" if f else p for p, _, f in self.requests) or "无"
        if self.quorum is Quorum.DIRECTOR:
            return f"加速申请 {len(self.requests)} 人：{who}；本规则未规定人数，由导演决定"
        rule = "超过存活玩家的一半" if self.quorum is Quorum.MAJORITY else "所有存活角色均同意"
        state = "已达到" if self.enough else "未达到"
        return (f"加速申请 {len(self.requests)}/{self.living} 人（需要 {self.needed} 人，{rule}），"
                f"{state}：{who}")


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", strip_zero_width(own_text(text)))
    return re.sub(r"\s+", "", text)


def _clause_says(clause: str) -> str | None:
    """'ask', 'refuse' or None for a clause that does not mention acceleration."""
    match = _KEYWORD.search(clause)
    if match is None:
        return None
    before, after = clause[: match.start()], clause[match.end():]
    if _QUESTION.search(clause):
        return "question"
    if _NEGATION_BEFORE.search(before):
        if _DOUBLE_NEGATION.search(after):
            return "ask"
        return "refuse"
    if _NEGATION_AFTER.search(after):
        return "refuse"
    if _REPORTED.search(before):
        return "reported"
    return "ask"


def is_request(text: str) -> bool:
    """A post asking to accelerate: some clause asks, and none refuses or questions it."""
    said = [s for s in (_clause_says(c) for c in _CLAUSE.findall(_normal(text))) if s is not None]
    return "ask" in said and "refuse" not in said


def acceleration_requests(ballots: list[Ballot] | tuple[Ballot, ...], state: GameState, day: int,
                          rules: RuleSet | None = None, at: datetime | None = None) -> AccelerationStatus:
    """Requests in the day's progress thread by players in the game when they asked and
    still in it at ``at`` (default: the deadline), counted against the living then."""
    window = state.day(day)
    when = at if at is not None and at < window.deadline else window.deadline
    still = state.moment(when, before=at is None or at >= window.deadline)
    seen: dict[str, tuple[str, int, int | None]] = {}
    for ballot, role in day_posts(ballots, window):
        if role != "progress":
            continue
        seat = state.seat_of(ballot.post.author)
        if seat is None or state.is_out(seat, ballot.at) or still.is_out(seat) or seat in seen:
            continue
        if is_request(ballot.post.text):
            seen[seat] = (seat, ballot.pid, ballot.floor)
    living = sum(1 for p in state.players if not still.is_out(p))
    quorum = rules.acceleration_quorum if rules is not None else Quorum.MAJORITY
    return AccelerationStatus(day, tuple(seen.values()), living, quorum)
