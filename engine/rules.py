"""Rule sets as data: the four seed rule documents as presets a game config may override.

Every field is a plain value (int, bool, str enum) so a TOML ``[game.rules]`` table maps
onto it one to one. The seed sentence behind each preset value is quoted beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any


class TieRule(StrEnum):
    # S09/S10 【领导】 and 14人简易: the sheriff's target is out if among the tied, else no one.
    SHERIFF_TARGET = "sheriff_target"
    # 双身份: a living scapegoat goes instead, else whoever first reached the top count.
    SCAPEGOAT_THEN_FIRST_REACHED = "scapegoat_then_first_reached"
    # whoever first reached the top count (SPEC §3.7): the day-1 sheriff election rule.
    FIRST_REACHED = "first_reached"
    # a tie puts no one out / elects no one.
    NO_ONE = "no_one"


class CardPolicy(StrEnum):
    LADDER = "ladder"  # 3 blue → yellow, 3 yellow → red, red → sent off
    POINTS = "points"  # 双身份: 累计扣满12分者将予以罚下


class Visibility(StrEnum):
    PUBLIC = "public"  # voters named in running counts
    COUNTS_ONLY = "counts_only"  # S10 高难度投票半公开: counts without voter names


class Quorum(StrEnum):
    """How many acceleration requests make a day accelerated (the director confirms)."""

    MAJORITY = "majority"  # 14人简易: 超过所有存活玩家的二分之一
    ALL = "all"  # 双身份: 如所有角色均同意缩短游戏日
    DIRECTOR = "director"  # S09/S10 say nothing: the director alone decides


class SendoffBadge(StrEnum):
    """What happens to the badge of a sheriff sent off (红牌罚下 / 扣满12分)."""

    DRAW = "draw"  # 14人简易: 红牌罚下的警长警徽随机移交
    SUCCESSOR = "successor"  # S09/S10 【殉职】警长出局后，须选择一名未出局的角色来继任警长
    VACANT = "vacant"  # 双身份: 角色因罚下而离开游戏不触发相应出局技能 — no 【殉职】


class RuleSetError(ValueError):
    """An unknown rule-set name, unknown field or bad value. Names the thing."""


@dataclass(frozen=True)
class RuleSet:
    name: str
    title: str
    sheriff_weight: int = 2
    idiot_weight: int = 0
    elimination_tie: TieRule = TieRule.SHERIFF_TARGET
    sheriff_tie: TieRule = TieRule.FIRST_REACHED
    change_window_minutes: int = 60
    max_changes: int = 1
    acceleration_voids_changes: bool = False
    acceleration_quorum: Quorum = Quorum.DIRECTOR
    require_reason: bool = True
    card_policy: CardPolicy = CardPolicy.LADDER
    blues_per_yellow: int = 3
    yellows_per_red: int = 3
    sendoff_points: int = 12
    lurk_posts_per_day: int = 5
    lurk_posts_per_span: int = 10
    lurk_span_days: int = 3
    # Which threads' posts count against 潜水; a day with none of them proposes no lurking card.
    lurk_threads: tuple[str, ...] = ("discussion",)
    visibility: Visibility = Visibility.PUBLIC
    no_vote_card: str = "yellow"
    # What the bot proposes a card (or, points policy, a deduction) for at a day's end:
    # only the offences the rule set's own text punishes (SPEC §5). The director decides.
    card_proposals: tuple[str, ...] = ("lurking_day", "lurking_span", "no_vote", "zombie", "font", "evidence")
    identities: int = 1  # 双身份: every player has two
    successor_excludes_idiot: bool = False  # S10: （已发动【若愚】的白痴除外）
    sendoff_badge: SendoffBadge = SendoffBadge.SUCCESSOR
    successor_draw_minutes: int = 0  # 14人简易: 关门三十分钟后仍未…警长随机移交 (0: never offered)

    def with_overrides(self, **overrides: Any) -> RuleSet:
        """A copy with some fields replaced; unknown keys and bad values are errors."""
        known = {f.name: f for f in fields(self)}
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise RuleSetError(
                f"规则集没有这个字段：{'、'.join(unknown)}"
                f"（可用：{'、'.join(sorted(k for k in known if k not in ('name', 'title')))}）"
            )
        coerced = {key: _coerce(key, value, known[key].type) for key, value in overrides.items()}
        return replace(self, **coerced)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_ENUMS: dict[str, type[StrEnum]] = {
    "TieRule": TieRule,
    "CardPolicy": CardPolicy,
    "Visibility": Visibility,
    "Quorum": Quorum,
    "SendoffBadge": SendoffBadge,
}
THREAD_ROLES = ("discussion", "vote", "progress")
PROPOSAL_KINDS = ("lurking_day", "lurking_span", "no_vote", "zombie", "font", "evidence")
# Which list-valued field takes which values.
_CHOICES = {"lurk_threads": ("帖子角色（如 [\"discussion\"]）", THREAD_ROLES),
            "card_proposals": ("判罚提议种类（如 [\"zombie\"]）", PROPOSAL_KINDS)}


def _coerce(key: str, value: Any, annotation: Any) -> Any:
    kind = str(annotation)
    if kind in _ENUMS:
        enum = _ENUMS[kind]
        try:
            return enum(value)
        except ValueError:
            choices = "、".join(m.value for m in enum)
            raise RuleSetError(f"{key}: {value!r} 不是可用的值（可用：{choices}）") from None
    if kind.startswith("tuple"):
        what, choices = _CHOICES.get(key, _CHOICES["lurk_threads"])
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise RuleSetError(f"{key}: 应为{what}的列表，实际是 {value!r}")
        bad = [v for v in value if v not in choices]
        if bad:
            raise RuleSetError(f"{key}: {bad[0]!r} 不是可用的值（可用：{'、'.join(choices)}）")
        return tuple(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise RuleSetError(f"{key}: 应为 true 或 false，实际是 {value!r}")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise RuleSetError(f"{key}: 应为 ≥ 0 的整数，实际是 {value!r}")
        return value
    if not isinstance(value, str):
        raise RuleSetError(f"{key}: 应为文本，实际是 {value!r}")
    return value


PRESETS: dict[str, RuleSet] = {
    # 001_…: the same 【领导】 sentence as S10. 【殉职】<锁定技>警长出局后，须选择一名未出局的角色来继任警长。
    # Acceleration: the seed says nothing, so only the director accelerates a day.
    "s09": RuleSet(name="s09", title="官方规则S09暨狼人游戏原版"),
    # 000_…: 【领导】计算投票数量时警长投出的票计为两票，如出现警长投票对象与其他对象得票数相同且为最高，
    # 则警长投票对象出局。否则得票数同为最高的两名角色均不出局，即无人出局。
    # 【若愚】…若白痴发动此技能，则此后白痴投票不计入总票数。
    # 高难度投票半公开、低难度投票全公开 → visibility is a per-game override.
    # 【殉职】<锁定技>警长出局后，须选择一名未出局的角色（已发动【若愚】的白痴除外）来继任警长。
    "s10": RuleSet(name="s10", title="官方规则S10暨狼人游戏论坛版", successor_excludes_idiot=True),
    # 002_…: 平票则警长投票的人出局，警长不投票则无人出局。 白天结束前一个小时不得改票。
    # 进程加速后不允许改票，所有改票作废。 三张【蓝牌】升级为一张【黄牌】 三张【黄牌】升级为一张【红牌】
    # 在未加快进程的单个讨论日不足五帖、或连续三个讨论日均不足十帖
    # 如果在进程帖中申请加速的玩家超过所有存活玩家的二分之一则游戏进程加速。
    # 红牌罚下的警长警徽随机移交。 警长被投票出局，关门三十分钟后仍未与导演取得联系，警长随机移交给在场的一名未出局角色。
    "simple14": RuleSet(name="simple14", title="14人简易规则", acceleration_voids_changes=True,
                        acceleration_quorum=Quorum.MAJORITY, sendoff_badge=SendoffBadge.DRAW,
                        successor_draw_minutes=30),
    # 003_…: 若最高票平票且当前没有人第一身份为替罪羊，则最先达到高票的人第一身份死亡。
    # 累计扣满12分者将予以罚下。 投票过程全程公开。 每个角色将在游戏正式开始前获得两个身份。
    # 如所有角色均同意缩短游戏日，游戏日可能缩短。 角色因罚下而离开游戏不触发相应出局技能。
    # 角色因违反游戏规则，累计扣满12分者将予以罚下 — and the only rule about who may post is
    # 已出局的角色不能继续参与讨论、投票 (罚下的角色不得参与讨论、投票): no lurking rule, no duty
    # to vote (所有未出局角色均可参与投票), no font or evidence rule. So only 诈尸 is proposed,
    # with no number of points: the seed names none, the director decides.
    "dual": RuleSet(
        name="dual",
        title="双身份规则（alpha版）",
        elimination_tie=TieRule.SCAPEGOAT_THEN_FIRST_REACHED,
        card_policy=CardPolicy.POINTS,
        identities=2,
        acceleration_quorum=Quorum.ALL,
        sendoff_badge=SendoffBadge.VACANT,
        card_proposals=("zombie",),
    ),
}


def preset(name: str) -> RuleSet:
    try:
        return PRESETS[name]
    except KeyError:
        raise RuleSetError(
            f"未知的规则集 {name!r}（可选：{'、'.join(PRESETS)}）"
        ) from None
