"""What a director types, read as the game log takes it: a game time in the forum's time
zone ("20:00", "12-02 20:00", ISO), and a correction of a stored event ("what is not
given is kept"). One reading for the CLI, the desk and the director's PMs."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from forumbot.game.gamelog import DirectorError, EventSpec
from forumbot.game.runtime import Runtime


def parse_at(rt: Runtime, text: str | None) -> datetime | None:
    """A game time as a director types it, in the forum's time zone."""
    if text is None or not text.strip():
        return None
    tz = rt.config.forum.tz
    now = rt.clock.now().astimezone(tz)
    value = text.strip().replace("/", "-")
    try:
        parsed = datetime.fromisoformat(value)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)
    except ValueError:
        pass
    m = re.fullmatch(r"(?:(\d{1,2})-(\d{1,2})\s+)?(\d{1,2}):(\d{2})(?::(\d{2}))?", value)
    if m is None:
        raise DirectorError(f"看不懂的时间“{text}”（例：2026-12-02T20:00、12-02 20:00 或 20:00）")
    month, day, hour, minute, second = m.groups()
    moment = now.replace(hour=int(hour), minute=int(minute), second=int(second or 0), microsecond=0)
    if month:
        moment = moment.replace(month=int(month), day=int(day))
    elif moment > now + timedelta(minutes=1):
        moment -= timedelta(days=1)  # "20:00" typed at 09:00 means yesterday evening
    return moment


def correction_spec(rt: Runtime, event_id: int, *, player: str | None = None, at: datetime | None = None,
                    why: str | None = None, day: int | None = None,
                    players: tuple[str, ...] | None = None) -> EventSpec:
    """An event as stored, with the given fields replaced (for ``correct``)."""
    try:
        old = rt.store.event(event_id)
    except LookupError as exc:
        raise DirectorError(str(exc)) from None
    p = old.payload
    kind = {"accelerate": "accelerated"}.get(old.kind.value, old.kind.value)
    if kind == "retract":
        raise DirectorError("撤销记录不能更正")
    listed = tuple(p.get("players") or p.get("out") or ())
    if players is None and player and kind in ("night", "voters"):
        if len(listed) > 1:
            raise DirectorError("这条事件有多名玩家：请用 --players 给出正确的名单")
        players = (player,)
    return EventSpec(
        kind=kind,
        player=player or p.get("player") or p.get("old"),
        why=why or p.get("why"),
        at=at or old.game_at,
        day=day or (p.get("day") if kind == "voters" else old.day),
        players=listed if players is None else players,
        name=p.get("name") or p.get("new"),
        pid=p.get("pid"),
        note=p.get("note", "") if kind != "void" else p.get("why", ""),
    )
