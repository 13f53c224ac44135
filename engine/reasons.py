"""Why a vote post counts or not: one enum of reason codes, shared by the tally, the flag
list, the posted count and the CLI, so they all say the same thing.

``PRECEDENCE`` is the order issue 3 fixes for reporting when several reasons apply: who,
when, format, sequence, target.
"""

from __future__ import annotations

from enum import StrEnum

from parsers.models import DeclarationProblem


class Reason(StrEnum):
    VALID = "valid"
    # the director's own ruling on one post overrides every other
    DIRECTOR_VOID = "director_void"
    # who
    VOTER_NOT_PLAYER = "voter_not_player"
    VOTER_OUT = "voter_out"
    VOTER_NOT_ALLOWED = "voter_not_allowed"  # 冤死: not among those the scapegoat named
    # when
    BEFORE_START = "before_start"
    LATE = "late"
    # format
    NO_TARGET = "no_target"
    BAD_FORMAT = "bad_format"
    TWO_TARGETS = "two_targets"
    MIXED_KINDS = "mixed_kinds"
    NO_REASON = "no_reason"
    # sequence
    VOTE_AFTER_VOTE = "vote_after_vote"
    CHANGE_WITHOUT_VOTE = "change_without_vote"
    CHANGE_WITHOUT_QUOTE = "change_without_quote"
    CHANGE_QUOTES_OTHER_POST = "change_quotes_other_post"
    SECOND_CHANGE = "second_change"
    CHANGE_VOIDED_BY_ACCELERATION = "change_voided_by_acceleration"
    CHANGE_IN_WINDOW = "change_in_window"
    # target
    UNKNOWN_TARGET = "unknown_target"
    AMBIGUOUS_TARGET = "ambiguous_target"
    TARGET_OUT = "target_out"
    # flags only (never a ruling's reason: the first-seen text stands)
    EDITED_TARGET = "edited_target"
    EDITED_BEFORE_SEEN = "edited_before_seen"


PRECEDENCE: tuple[Reason, ...] = (
    Reason.DIRECTOR_VOID,
    Reason.VOTER_NOT_PLAYER,
    Reason.VOTER_OUT,
    Reason.VOTER_NOT_ALLOWED,
    Reason.BEFORE_START,
    Reason.LATE,
    Reason.NO_TARGET,
    Reason.BAD_FORMAT,
    Reason.TWO_TARGETS,
    Reason.MIXED_KINDS,
    Reason.NO_REASON,
    Reason.VOTE_AFTER_VOTE,
    Reason.CHANGE_WITHOUT_VOTE,
    Reason.CHANGE_WITHOUT_QUOTE,
    Reason.CHANGE_QUOTES_OTHER_POST,
    Reason.SECOND_CHANGE,
    Reason.CHANGE_VOIDED_BY_ACCELERATION,
    Reason.CHANGE_IN_WINDOW,
    Reason.UNKNOWN_TARGET,
    Reason.AMBIGUOUS_TARGET,
    Reason.TARGET_OUT,
)

# The parser's format problems, as the engine's reason codes.
FROM_PROBLEM: dict[DeclarationProblem, Reason] = {
    DeclarationProblem.NO_TARGET: Reason.NO_TARGET,
    DeclarationProblem.BAD_FORMAT: Reason.BAD_FORMAT,
    DeclarationProblem.TWO_TARGETS: Reason.TWO_TARGETS,
    DeclarationProblem.MIXED_KINDS: Reason.MIXED_KINDS,
    DeclarationProblem.NO_REASON: Reason.NO_REASON,
}

_TEXT: dict[Reason, tuple[str, str]] = {
    Reason.VALID: ("有效", "valid"),
    Reason.DIRECTOR_VOID: ("导演判定无效", "voided by the director"),
    Reason.VOTER_NOT_PLAYER: ("非玩家角色发帖，不计票", "posted by an account that is not a player"),
    Reason.VOTER_OUT: ("已出局角色投票（诈尸）", "the voter is out"),
    Reason.VOTER_NOT_ALLOWED: ("替罪羊未指定该角色今日投票（冤死）", "not among those the scapegoat named to vote"),
    Reason.BEFORE_START: ("投票开始前发帖", "posted before voting opened"),
    Reason.LATE: ("投票截止后发帖", "posted at or after the deadline"),
    Reason.NO_TARGET: ("没有投票对象", "no target"),
    Reason.BAD_FORMAT: ("投票格式有误（应为 投票对象：名字）", "bad format (expected 投票对象：name)"),
    Reason.TWO_TARGETS: ("写了两个不同的投票对象", "two different targets"),
    Reason.MIXED_KINDS: ("投票与改票对象不一致", "vote and change lines name different targets"),
    Reason.NO_REASON: ("没有投票理由", "no reason line"),
    Reason.VOTE_AFTER_VOTE: ("已投票，再投应为改票", "a second vote after a valid vote (should be a change)"),
    Reason.CHANGE_WITHOUT_VOTE: ("改票前没有有效投票", "a change without a valid vote before it"),
    Reason.CHANGE_WITHOUT_QUOTE: ("改票未引用原投票帖", "a change that does not quote the vote"),
    Reason.CHANGE_QUOTES_OTHER_POST: ("改票引用的不是自己的原投票帖", "a change quoting a post other than the voter's vote"),
    Reason.SECOND_CHANGE: ("只有一次改票机会", "a second change"),
    Reason.CHANGE_VOIDED_BY_ACCELERATION: ("进程加速后所有改票作废", "the day was accelerated: all changes are void"),
    Reason.CHANGE_IN_WINDOW: ("截止前一小时内不得改票", "a change in the last window before the deadline"),
    Reason.UNKNOWN_TARGET: ("投票对象不是玩家", "the target is not a player"),
    Reason.AMBIGUOUS_TARGET: ("投票对象不明确", "the target matches several players"),
    Reason.TARGET_OUT: ("投票对象已出局", "the target is out"),
    Reason.EDITED_TARGET: ("编辑后改变了投票对象，以首次所见为准", "an edit changed the target; the first-seen text stands"),
    Reason.EDITED_BEFORE_SEEN: ("首次看到时已被编辑", "the post was already edited when first seen"),
}


def describe_en(reason: Reason | str | None) -> str:
    """English, for operators' logs only (directors and players read Chinese)."""
    return _TEXT[Reason(reason or Reason.VALID)][1]


def change_window_text(minutes: int) -> str:
    """截止前一小时内不得改票 for 60, 截止前10分钟内不得改票 for 10: the configured window,
    said the way the rules say it."""
    if minutes % 60 == 0 and minutes:
        hours = minutes // 60
        spoken = "一" if hours == 1 else str(hours)
        return f"截止前{spoken}小时内不得改票"
    return f"截止前{minutes}分钟内不得改票"


def describe_zh(reason: Reason | str | None, *, change_window_minutes: int | None = None) -> str:
    """The reason in Chinese, for posts, the desk and the CLI. Texts that quote a
    configured value (the change window) say the configured value."""
    code = Reason(reason or Reason.VALID)
    if code is Reason.CHANGE_IN_WINDOW and change_window_minutes is not None:
        return change_window_text(change_window_minutes)
    return _TEXT[code][0]


def describe(reason: Reason | str | None, *, change_window_minutes: int | None = None) -> str:
    """What a reader sees for a reason code (Chinese; machine codes stay as they are)."""
    return describe_zh(reason, change_window_minutes=change_window_minutes)


def first_reason(reasons: list[Reason]) -> Reason | None:
    """The reason to report when several apply (issue 3's order)."""
    ranked = [r for r in PRECEDENCE if r in reasons]
    return ranked[0] if ranked else None
