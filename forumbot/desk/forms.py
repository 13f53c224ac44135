"""The desk's event forms: what each offers under the game's rule set, the SPEC §9
default times it shows, and the ``EventSpec`` a submitted form means.

A form is submitted twice: first to see what it does (the confirm page), then — the
same fields, as hidden inputs, with the game time the preview resolved — to do it.
``spec_fields`` writes those hidden inputs and ``spec_from_form`` reads both kinds of
submission, so the change applied is exactly the change previewed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Mapping

from engine.acceleration import AccelerationStatus
from engine.badge import BadgeStatus, Succession
from engine.rules import Quorum, RuleSet, TieRule
from engine.state import GameState
from forumbot.game import director
from forumbot.game import gamelog
from forumbot.wording import EVENT_KIND_ZH, IDENTITY_WHY_CHOICES, OUT_WHY_CHOICES, clean, hm
from forumbot.game.state import day_at
from forumbot.game.gamelog import DirectorError, EventSpec
from forumbot.game.runtime import Runtime

NOBODY = "__none__"  # a select's explicit "no one" (never the empty first option)
NIGHT_SLOTS = 4  # who went out in one night, in order: the wolves, the witch, a hunter, a lover
KINDS = ("out", "identity_lost", "idiot", "sheriff", "scapegoat", "accelerated", "voters", "night", "alias",
         "substitute", "void")
# What each kind's confirm button says.
VERB = {"out": "确认出局", "identity_lost": "确认身份死亡", "idiot": "确认发动【若愚】", "sheriff": "确认设为警长",
        "scapegoat": "确认替罪羊", "accelerated": "确认加速", "voters": "确认可投票名单", "night": "确认夜晚结果",
        "alias": "确认添加别名", "substitute": "确认替补", "void": "确认判废"}


# ---------------------------------------------------------------- what the rule set has


def has_identities(rules: RuleSet) -> bool:
    return rules.identities > 1


def has_scapegoat(rules: RuleSet) -> bool:
    return rules.elimination_tie is TieRule.SCAPEGOAT_THEN_FIRST_REACHED


def has_idiot(rules: RuleSet) -> bool:
    """S10's 白痴【若愚】 (the only seed with an idiot); a custom rule set that excludes a
    revealed idiot from the badge has one too."""
    return rules.name == "s10" or rules.successor_excludes_idiot


def offered_kinds(rules: RuleSet) -> tuple[str, ...]:
    kinds = ["out", "night", "sheriff", "accelerated", "alias", "substitute", "void"]
    if has_identities(rules):
        kinds.append("identity_lost")
    if has_scapegoat(rules):
        kinds += ["scapegoat", "voters"]
    if has_idiot(rules):
        kinds.append("idiot")
    return tuple(kinds)


# ---------------------------------------------------------------- the actions page


def local(at: datetime | None, tz) -> str:
    """A game time as an <input type=datetime-local> value (the forum's zone)."""
    return at.astimezone(tz).strftime("%Y-%m-%dT%H:%M:%S") if at else ""


@dataclass(frozen=True)
class DayTimes:
    number: int
    start: str
    deadline: str
    start_text: str
    deadline_text: str
    started: bool
    ended: bool


@dataclass(frozen=True)
class ActionsView:
    rules: RuleSet
    kinds: tuple[str, ...]
    players: tuple[str, ...]
    living: tuple[str, ...]
    days: tuple[DayTimes, ...]
    today: int | None
    night_day: int | None  # the morning the next night result belongs to
    vote_day: int | None  # the latest day whose vote has ended
    now_local: str
    now_text: str
    badge: BadgeStatus
    badge_text: str
    candidates: tuple[str, ...]
    draw_now: bool
    draw_from_text: str | None
    acceleration: AccelerationStatus | None
    accelerate_day: int | None  # the day the 加速 form confirms (today, if not yet accelerated)
    quorum_text: str
    idiot_players: tuple[str, ...]
    why_choices: tuple[tuple[str, str], ...] = OUT_WHY_CHOICES
    identity_why_choices: tuple[tuple[str, str], ...] = IDENTITY_WHY_CHOICES
    night_slots: int = NIGHT_SLOTS

    def offers(self, kind: str) -> bool:
        return kind in self.kinds

    def defaults(self) -> dict[str, Any]:
        """For desk.js: the default game time per cause and day (SPEC §9)."""
        return {"now": self.now_local, "days": {str(d.number): {"start": d.start, "deadline": d.deadline}
                                                 for d in self.days},
                "today": self.today, "night_day": self.night_day, "vote_day": self.vote_day}


QUORUM_ZH = {
    Quorum.MAJORITY: "本规则：申请加速的玩家超过存活玩家的一半时加速，由你确认",
    Quorum.ALL: "本规则：所有存活角色均同意才可加速，由你确认",
    Quorum.DIRECTOR: "本规则没有规定加速人数：是否加速由你决定",
}


def actions_view(rt: Runtime, state: GameState, status: director.Status, now: datetime) -> ActionsView:
    rules = rt.config.rules
    tz = rt.config.forum.tz
    days = tuple(DayTimes(d.number, local(d.start, tz), local(d.deadline, tz), hm(d.start.astimezone(tz)),
                          hm(d.deadline.astimezone(tz)), d.start <= now, d.deadline <= now)
                 for d in sorted(state.days, key=lambda d: d.number))
    current = day_at(state, now)
    if current is not None:
        current = state.day(current.number)  # state.days do not carry an acceleration event: state.day does
    today = current.number if current else None
    numbers = [d.number for d in days]
    if current is None:
        night_day = numbers[0] if numbers else None
    elif now >= current.deadline and current.number + 1 in numbers:
        night_day = current.number + 1  # voting is over: the coming night is before tomorrow's morning
    else:
        night_day = current.number
    ended = [d.number for d in days if d.ended]
    badge = status.badge or director.badge(rt, now)
    accelerate_day = current.number if current and not current.accelerated and now < current.deadline else None
    living = state.living(now)
    # 若愚 is revealed by the idiot the vote put out: the living (the count not yet
    # approved), and whoever the vote put out.
    idiot_players = tuple(p for p in state.players if p in living or (
        (record := state.out_record(p)) is not None and record.why == "vote"))
    return ActionsView(
        rules=rules, kinds=offered_kinds(rules), players=state.players, living=living, days=days,
        today=today, night_day=night_day, vote_day=ended[-1] if ended else None,
        now_local=local(now, tz), now_text=hm(now.astimezone(tz)),
        badge=badge, badge_text=clean(badge.describe(now)),
        candidates=director.successor_candidates(rt, now),
        draw_now=badge.vacancy is not None and (badge.succession is Succession.DRAW or badge.draw_offered(now)),
        draw_from_text=hm(badge.draw_from.astimezone(tz)) if badge.draw_from and not badge.draw_offered(now) else None,
        acceleration=status.acceleration, accelerate_day=accelerate_day,
        quorum_text=QUORUM_ZH[rules.acceleration_quorum], idiot_players=idiot_players,
    )


# ---------------------------------------------------------------- reading a submitted form


def _text(form: Mapping[str, Any], name: str) -> str:
    value = form.get(name)
    return str(value).strip() if value is not None else ""


def _list(form: Any, name: str) -> list[str]:
    values = form.getlist(name) if hasattr(form, "getlist") else ([form[name]] if name in form else [])
    names: list[str] = []
    for value in values:
        names += [n.strip() for n in re.split(r"[,，、\n]+", str(value)) if n.strip()]
    return names


def _int(form: Mapping[str, Any], name: str, what: str) -> int | None:
    value = _text(form, name)
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise DirectorError(f"{what}应为数字，而不是“{value}”") from None


def parse_time(rt: Runtime, text: str) -> datetime | None:
    """A game time from the form: the datetime-local value (forum's zone), an ISO time, or
    what the CLI accepts (``12-02 20:00``, ``20:00``)."""
    from forumbot.game.entry import parse_at  # the CLI's reading, one place

    return parse_at(rt, text)


def _player(form: Mapping[str, Any], name: str = "player", *, nobody_ok: bool = False) -> str | None:
    value = _text(form, name)
    if value == NOBODY or (nobody_ok and _text(form, "nobody")):
        if not nobody_ok:
            raise DirectorError("请选择一名玩家")
        return None
    if not value:
        raise DirectorError("请先选择玩家（为防误触，名单不预选任何人）")
    return value


def spec_from_form(rt: Runtime, form: Any) -> EventSpec:
    """The event a submitted form means. Refusals (in Chinese) are ``DirectorError``."""
    kind = _text(form, "kind")
    if kind not in KINDS:
        raise DirectorError("未知的操作")
    if kind not in offered_kinds(rt.config.rules):
        raise DirectorError(f"本局规则没有「{EVENT_KIND_ZH.get(kind, kind)}」")
    at = parse_time(rt, _text(form, "at"))
    day = _int(form, "day", "日期")
    note = _text(form, "note")
    if kind in ("out", "identity_lost"):
        why = _text(form, "why")
        allowed = dict(OUT_WHY_CHOICES if kind == "out" else IDENTITY_WHY_CHOICES)
        if why == "card" and _text(form, "from_card"):
            allowed["card"] = "红牌罚下"
        if why not in allowed:
            raise DirectorError("请选择原因")
        return EventSpec(kind, player=_player(form), why=why, day=day, at=at, note=note)
    if kind == "idiot":
        return EventSpec(kind, player=_player(form), at=at, note=note)
    if kind in ("sheriff", "scapegoat"):
        return EventSpec(kind, player=_player(form, nobody_ok=True), at=at, note=note)
    if kind == "accelerated":
        if day is None:
            raise DirectorError("请指定加速哪一日")
        return EventSpec(kind, day=day, at=at, note=note)
    if kind in ("night", "voters"):
        names = _list(form, "players")
        nobody = bool(_text(form, "nobody"))
        if day is None:
            raise DirectorError("请指定是第几日")
        if names and nobody:
            what = "平安夜" if kind == "night" else "无人可投票"
            raise DirectorError(f"既选了玩家又勾选了「{what}」：请只选一种")
        if not names and not nobody:
            raise DirectorError("请选择出局的玩家，或勾选「平安夜」" if kind == "night"
                                else "请勾选可以投票的玩家，或勾选「无人可投票」")
        return EventSpec(kind, day=day, players=tuple(names), at=at, note=note)
    if kind == "alias":
        name = _text(form, "name")
        if not name:
            raise DirectorError("请填写投票里的写法")
        return EventSpec(kind, player=_player(form), name=name)
    if kind == "substitute":
        name = _text(form, "name")
        if not name:
            raise DirectorError("请填写替补账号")
        return EventSpec(kind, player=_player(form), name=name)
    # void
    pid = _int(form, "pid", "pid ")
    if pid is None:
        raise DirectorError("请填写帖子的 pid")
    if not note:
        raise DirectorError("请写明判废理由：理由会和废票一起显示")
    return EventSpec(kind, pid=pid, note=note)


def spec_fields(spec: EventSpec) -> list[tuple[str, str]]:
    """The hidden inputs that make ``spec_from_form`` read ``spec`` back exactly."""
    fields: list[tuple[str, str]] = [("kind", spec.kind)]
    if spec.kind in ("sheriff", "scapegoat"):
        fields.append(("player", spec.player) if spec.player else ("nobody", "1"))
    elif spec.player is not None:
        fields.append(("player", spec.player))
    if spec.why:
        fields.append(("why", spec.why))
        if spec.why == "card":
            fields.append(("from_card", "1"))
    if spec.day is not None:
        fields.append(("day", str(spec.day)))
    if spec.at is not None:
        fields.append(("at", spec.at.isoformat()))
    if spec.kind in ("night", "voters"):
        fields += [("players", p) for p in spec.players]
        if not spec.players:
            fields.append(("nobody", "1"))
    if spec.name:
        fields.append(("name", spec.name))
    if spec.pid is not None:
        fields.append(("pid", str(spec.pid)))
    if spec.note:
        fields.append(("note", spec.note))
    return fields


def resolve(rt: Runtime, spec: EventSpec, now: datetime) -> tuple[EventSpec, str | None]:
    """``spec`` with the game time SPEC §9 gives it when the form left it empty (so the
    confirmation records exactly what was previewed), and a line saying which default."""
    planned = gamelog.plan(rt, spec, now)
    if spec.at is not None or planned.game_at is None:
        return spec, None
    return replace(spec, at=planned.game_at), default_said(spec)


def default_said(spec: EventSpec) -> str:
    if spec.kind in ("out", "identity_lost"):
        return {"night": "夜晚出局默认在次日开始时生效", "vote": "投票出局默认在当日截止时生效"}.get(
            spec.why or "", "白天出局默认为现在")
    return {"night": "夜晚结果在该日开始时生效", "idiot": "【若愚】默认在投票出局的截止时间生效",
            "sheriff": "继任警长默认从警徽空缺时起生效"}.get(spec.kind, "默认为现在")
