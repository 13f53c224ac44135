"""Things the director should look at: edits, 诈尸, fonts, pasted evidence, unmatched targets.

Flags never change a count. Each names the floor (and pid) behind it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from parsers.models import Font, Post

from engine.ballots import Ballot
from engine.events import WHY_ZH, parse_why
from engine.reasons import Reason
from engine.state import GameState


class FlagKind(StrEnum):
    EDIT = "edit"
    ZOMBIE = "zombie"  # 诈尸: a post by an out player in a game thread
    FONT = "font"  # 字体: 大红色 or enlarged
    EVIDENCE = "evidence"  # 贴证: images, attachments, links
    TARGET = "target"  # unknown or ambiguous target: add an alias and re-tally


@dataclass(frozen=True)
class Flag:
    kind: FlagKind
    pid: int
    floor: int | None
    player: str | None  # the seat (or the account for non-players)
    detail: str
    thread: str = "vote"
    tid: int | None = None
    reason: Reason | None = None
    candidates: tuple[str, ...] = ()


# Discuz [size=N] runs 1–7; page text is about 14px, so 4 and up (≥18px) is "enlarged".
_ENLARGED_SIZE = 4
_ENLARGED_PX = 18
_RED_NAMES = {"red", "crimson"}
_HEX = re.compile(r"^#?([0-9a-f]{3}|[0-9a-f]{6})$")
_RGB = re.compile(r"^rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$")
_SMILEY = re.compile(r"(static/image/smiley|/smilies?/)", re.I)


def is_red(color: str | None) -> bool:
    """大红色: a named red or a colour whose red channel dominates (#f00, #e60012, rgb(255,0,0))."""
    if not color:
        return False
    value = color.strip().lower()
    if value in _RED_NAMES:
        return True
    rgb: tuple[int, int, int] | None = None
    if m := _HEX.match(value):
        digits = m.group(1)
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        rgb = (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))
    elif m := _RGB.match(value):
        rgb = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return rgb is not None and rgb[0] >= 0xC0 and rgb[1] <= 0x40 and rgb[2] <= 0x40


def is_enlarged(size: str | None) -> bool:
    if not size:
        return False
    value = size.strip().lower()
    number = re.match(r"^\+?(\d+(?:\.\d+)?)", value)
    if not number:
        return value in {"large", "x-large", "xx-large", "larger"}
    n = float(number.group(1))
    if value.endswith("px"):
        return n >= _ENLARGED_PX
    if value.endswith("pt"):
        return n * 4 / 3 >= _ENLARGED_PX
    if value.endswith("em"):
        return n >= 1.3
    if value.startswith("+"):
        return n >= 1
    return n >= _ENLARGED_SIZE


def font_problems(fonts: tuple[Font, ...]) -> list[str]:
    problems = []
    for font in fonts:
        if is_red(font.color):
            problems.append(f"大红色字体（{font.color}）")
        if is_enlarged(font.size):
            problems.append(f"放大字体（字号 {font.size}）")
    return sorted(set(problems))


def evidence_items(post: Post) -> list[str]:
    items = [f"图片 {src}" for src in post.images if not _SMILEY.search(src)]
    items += [f"附件 {a}" for a in post.attachments]
    items += [f"链接 {href}" for href in post.links]
    return items


def post_flags(ballot: Ballot, state: GameState) -> list[Flag]:
    """Flags any game-thread post can raise: 诈尸, fonts, evidence, edits."""
    post = ballot.post
    seat = state.seat_of(post.author)
    who = seat or post.author
    base = dict(pid=post.pid, floor=post.floor, player=who, thread=ballot.thread, tid=post.tid)
    flags: list[Flag] = []
    if seat is not None and state.is_out(seat, post.posted_at):
        record = state.moment(post.posted_at).out[seat]
        when = f"于 {record.at:%m-%d %H:%M} " if record.at is not None else ""
        why = WHY_ZH.get(parse_why(record.why), record.why)
        flags.append(Flag(FlagKind.ZOMBIE, detail=f"{seat} 已{when}出局（{why}），仍在游戏帖发帖", **base))
    if seat is not None:
        problems = font_problems(post.fonts)
        if problems:
            flags.append(Flag(FlagKind.FONT, detail="; ".join(problems), **base))
        items = evidence_items(post)
        if items:
            flags.append(Flag(FlagKind.EVIDENCE, detail="; ".join(items), **base))
    flags.extend(edit_flags(ballot, **base))
    return flags


def edit_flags(ballot: Ballot, **base: object) -> list[Flag]:
    """First-seen text stands; say so when an edit changed the target, or when the first
    view was already an edited post (the original text is unknown)."""
    flags: list[Flag] = []
    first, declaration = ballot.standing
    if ballot.first_seen is not None:
        before = ballot.first_declaration.target if ballot.first_declaration else None
        after = ballot.declaration.target if ballot.declaration else None
        if before != after:
            flags.append(Flag(FlagKind.EDIT, reason=Reason.EDITED_TARGET,
                              detail=f"首次所见投 {before or '（无投票）'}，现为 {after or '（无投票）'}；以首次所见为准",
                              **base))  # type: ignore[arg-type]
    if declaration is not None and first.edited_at is not None:
        by = f"（{first.edited_by}）" if first.edited_by else ""
        flags.append(Flag(FlagKind.EDIT, reason=Reason.EDITED_BEFORE_SEEN,
                          detail=f"首次看到时已于 {first.edited_at:%Y-%m-%d %H:%M} 被编辑{by}，原文未知",
                          **base))  # type: ignore[arg-type]
    return flags


def ruling_flags(rulings: list) -> list[Flag]:
    """Unmatched targets, so the director can add an alias and re-tally."""
    flags = []
    for r in rulings:
        if r.reason in (Reason.UNKNOWN_TARGET, Reason.AMBIGUOUS_TARGET):
            flags.append(Flag(FlagKind.TARGET, pid=r.pid, floor=r.floor, player=r.voter, detail=r.detail,
                              tid=r.ballot.post.tid, reason=r.reason, candidates=r.candidates))
    return flags
