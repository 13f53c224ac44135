"""What happened in the game, with the game time it took effect (SPEC §9).

A ``GameEvent`` is one change to who is in the game: an out, a lost identity (双身份), an
idiot's 【若愚】, a badge passing, the scapegoat, a confirmed acceleration, 冤死's list of
who may vote the next day. The engine never asks when an event was *typed*: ``at`` is
when it took effect in the game, and ``engine.timeline`` derives the state at any moment
from the whole set (python-chess style: the position is a function of the move stack).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from enum import StrEnum


class EventKind(StrEnum):
    OUT = "out"
    IDENTITY_LOST = "identity_lost"  # 双身份: one identity dies; the second one = out
    IDIOT = "idiot"  # S10 【若愚】
    SHERIFF = "sheriff"  # the badge passes (player None: no sheriff)
    SCAPEGOAT = "scapegoat"  # 双身份: whose first identity is 替罪羊
    ACCELERATED = "accelerated"  # a day is accelerated (§3.5)
    VOTERS = "voters"  # 冤死: who may vote on ``day`` (empty: no one)
    # 14人简易 投降: the faction of ``player`` (who proposed it, 狼人阵营可以由阵营中的某一角色发起投降)
    # loses (该阵营优先判负). Only the identities know the faction: engine.night reads it.
    SURRENDER = "surrender"


class OutWhy(StrEnum):
    VOTE = "vote"
    NIGHT = "night"
    CARD = "card"  # 红牌罚下 / 扣满12分罚下
    LOVER = "lover"  # 殉情
    HUNTER = "hunter"  # 猎人【流弹】/【最后一枪】
    OTHER = "other"


# What a director and the players read (announcements, the desk, the CLI).
WHY_ZH: dict[OutWhy, str] = {
    OutWhy.VOTE: "投票出局",
    OutWhy.NIGHT: "夜晚出局",
    OutWhy.CARD: "红牌罚下",
    OutWhy.LOVER: "殉情出局",
    OutWhy.HUNTER: "被猎人带走",
    OutWhy.OTHER: "出局",
}
# The same causes, said of a lost identity (双身份: 身份死亡).
WHY_IDENTITY_ZH: dict[OutWhy, str] = {
    OutWhy.VOTE: "投票身份死亡",
    OutWhy.NIGHT: "夜晚身份死亡",
    OutWhy.CARD: "罚下",
    OutWhy.LOVER: "殉情身份死亡",
    OutWhy.HUNTER: "被猎人带走一层身份",
    OutWhy.OTHER: "身份死亡",
}
KIND_ZH: dict[EventKind, str] = {
    EventKind.OUT: "出局",
    EventKind.IDENTITY_LOST: "身份死亡",
    EventKind.IDIOT: "白痴发动【若愚】",
    EventKind.SHERIFF: "警长",
    EventKind.SCAPEGOAT: "替罪羊",
    EventKind.ACCELERATED: "加速",
    EventKind.VOTERS: "冤死：指定投票人",
    EventKind.SURRENDER: "投降",
}

# Words directors typed for ``why`` before the causes were codes (old stores, configs).
_WHY_WORDS: dict[str, OutWhy] = {
    "投票": OutWhy.VOTE, "投票出局": OutWhy.VOTE, "票出": OutWhy.VOTE,
    "夜晚": OutWhy.NIGHT, "夜晚出局": OutWhy.NIGHT, "夜间": OutWhy.NIGHT, "昨夜": OutWhy.NIGHT,
    "red": OutWhy.CARD, "红牌": OutWhy.CARD, "红牌罚下": OutWhy.CARD, "罚下": OutWhy.CARD,
    "殉情": OutWhy.LOVER, "情侣": OutWhy.LOVER, "猎人": OutWhy.HUNTER, "流弹": OutWhy.HUNTER,
    "其他": OutWhy.OTHER, "出局": OutWhy.OTHER,
}

# The sort key of events with no game time: before everything the state knows about.
BEFORE = datetime.min.replace(tzinfo=timezone.utc)


def parse_why(value: str | OutWhy | None) -> OutWhy:
    """``vote``/``night``/… or the Chinese a director writes (夜晚出局, 红牌罚下 (sent off)…)."""
    if value is None or value == "":
        return OutWhy.OTHER
    if isinstance(value, OutWhy):
        return value
    text = value.strip()
    try:
        return OutWhy(text.lower())
    except ValueError:
        pass
    head = text.split("(")[0].split("（")[0].strip()
    if head in _WHY_WORDS:
        return _WHY_WORDS[head]
    for word, why in _WHY_WORDS.items():
        if word in head:
            return why
    return OutWhy.OTHER


@dataclass(frozen=True)
class GameEvent:
    """One change to the game, in game time.

    ``at`` None means "before the days this game knows about" (a config's starting
    state). ``seq`` orders events at the same moment (the order they were entered, or a
    night's list order); ``ref`` is the store's id, for explanations and corrections.
    """

    kind: EventKind
    at: datetime | None
    player: str | None = None
    why: OutWhy | None = None  # out / identity_lost
    day: int | None = None  # accelerated / voters: the day it is about
    players: tuple[str, ...] = ()  # voters
    note: str = ""  # the director's words
    ref: int | None = None
    seq: tuple[int, ...] = ()
    # out / identity_lost, optional (SPEC §10.6): what took the identity — 杀人, 毒药, 最后一枪,
    # 投票, 红牌, … — where ``why`` is too coarse for the night's rules (an elder out by 毒药
    # costs the witch and the seer their skills; out by 杀人 does not).
    cause: str = ""

    def __post_init__(self) -> None:
        if self.kind in (EventKind.OUT, EventKind.IDENTITY_LOST) and self.why is None:
            object.__setattr__(self, "why", OutWhy.OTHER)

    @property
    def when(self) -> datetime:
        return self.at if self.at is not None else BEFORE

    def phase(self) -> int:
        """Order among events at the same moment: departures other than the vote first
        (白天红牌罚下在被投票出局之前), then 若愚, then the vote's result, then the badge, the
        scapegoat and the day's settings — a successor named at the moment the sheriff
        left comes after the leaving."""
        if self.kind in (EventKind.OUT, EventKind.IDENTITY_LOST):
            return 2 if self.why is OutWhy.VOTE else 0
        return {EventKind.IDIOT: 1, EventKind.SHERIFF: 3, EventKind.SCAPEGOAT: 4}.get(self.kind, 5)

    def sort_key(self) -> tuple:
        # Events with no game time (a config's starting state) keep the order given.
        return (self.when, self.phase() if self.at is not None else 0, self.seq)

    def with_seq(self, *seq: int) -> GameEvent:
        return replace(self, seq=seq)

    def describe(self) -> str:
        """One line in Chinese, for the audit log and the director's screens. ``cause``
        is left out on purpose: 毒药 or 最后一枪 would tell a log reader who holds what."""
        when = f"{self.at:%m-%d %H:%M}" if self.at is not None else "开局前"
        if self.kind is EventKind.OUT:
            what = f"{self.player} {WHY_ZH[self.why or OutWhy.OTHER]}"
        elif self.kind is EventKind.IDENTITY_LOST:
            what = f"{self.player} {WHY_IDENTITY_ZH[self.why or OutWhy.OTHER]}"
        elif self.kind is EventKind.IDIOT:
            what = f"{self.player} 发动【若愚】"
        elif self.kind is EventKind.SHERIFF:
            what = f"警长：{self.player}" if self.player else "警长：无"
        elif self.kind is EventKind.SCAPEGOAT:
            what = f"替罪羊：{self.player}" if self.player else "替罪羊：无"
        elif self.kind is EventKind.ACCELERATED:
            what = f"第{self.day}日加速"
        elif self.kind is EventKind.SURRENDER:
            what = f"{self.player} 所在阵营投降"
        else:
            who = "、".join(self.players) if self.players else "无人"
            what = f"第{self.day}日可投票：{who}"
        return f"{when} {what}" + (f"（{self.note}）" if self.note else "")


def ordered(events: tuple[GameEvent, ...] | list[GameEvent]) -> list[GameEvent]:
    """Events in game order (time, then phase, then entry order)."""
    indexed = sorted(enumerate(events), key=lambda pair: (*pair[1].sort_key(), pair[0]))
    return [e for _, e in indexed]
