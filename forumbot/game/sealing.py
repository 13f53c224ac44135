"""The sealed deal (SPEC §10.1, §10.5): the commitment posted at the start, the reveal text
posted verbatim at the end, each drafted once for the progress thread and published through
the outbox like any post the director approves.

The store keeps only what may be kept in the open until the end — the commitment and the
salt (``meta['sealed_deal']``): the salt alone says nothing about who holds what. At the
end the reveal text is rebuilt from the identity file and the salt and must hash to the
stored commitment; if it does not, the identities were changed after the seal and the end
post is not drafted (an alarm says so, naming no identity). 双身份: each player may order
their two identities after the deal, so the reveal is looked for among the orders of each
pair (2^7 hashes) — the deal was the pairs.

The end comes from the identities' own win check on the game as confirmed (``Chronicle``),
or from the director (``forumbot.game.ending``). After it the game is over: the desk, status
and the agent stop asking for nights (``ending.game_over``).
"""

from __future__ import annotations

import itertools
import json
import logging
import random
import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from engine.night import Mode, Sheet, Win
from engine.state import GameState
from forumbot.game.announce import notice_thread
from forumbot.game.dealing import Sealed, sealed
from forumbot.game.render import BBCode, render
from forumbot.game.runtime import Runtime
from forumbot.store.outbox import Draft, DraftKind, DraftState
from forumbot.wording import RULESET_ZH, WINNER_ZH

log = logging.getLogger("forumbot.agent")

META_KEY = "sealed_deal"
SEAL_KEY = "sealed_deal"  # the outbox's dedupe keys: each post exactly once
END_KEY = "game_end"
CHANGED_ALARM = "sealed_deal_changed"

__all__ = ["End", "Seal", "draft_game_end", "end_post_pending", "draft_sealed_deal", "end_of_game", "find_reveal", "seal", "stored_seal",
           "tick"]


@dataclass(frozen=True)
class Seal:
    """What the store keeps of the seal: no identity."""

    commitment: str
    salt: str
    at: datetime


@dataclass(frozen=True)
class End:
    winner: str  # 狼人阵营获胜 / 导演宣布：…
    rule: str  # the seed's sentence that decided it ("" when the director ended it)
    note: str = ""
    at: datetime | None = None


def stored_seal(rt: Runtime) -> Seal | None:
    raw = rt.store.get_meta(META_KEY)
    if not raw:
        return None
    data = json.loads(raw)
    return Seal(data["commitment"], data["salt"], datetime.fromisoformat(data["at"]))


def seal(rt: Runtime, now: datetime, sheet: Sheet | None = None) -> Seal | None:
    """The game's seal, made once: the salt of the identity file (``forumbot deal`` wrote
    it) or a fresh one from the system's randomness, and the commitment to the sheet."""
    found = stored_seal(rt)
    if found is not None:
        return found
    sheet = sheet or rt.config.identities
    mode = rt.config.night_mode
    if sheet is None or mode is None:
        return None
    salt = rt.config.salt or _fresh_salt()
    made = sealed(mode, sheet, salt)
    record = Seal(made.commitment, salt, now)
    with rt.store.write():
        if stored_seal(rt) is None:
            rt.store.set_meta(META_KEY, json.dumps({"commitment": record.commitment, "salt": salt,
                                                    "at": now.isoformat()}))
            rt.store.audit("bot", "deal.sealed", {"commitment": record.commitment}, at=now)
    return stored_seal(rt)


def _fresh_salt() -> str:
    from engine.night import new_salt

    return new_salt(random.SystemRandom())


def find_reveal(mode: Mode, sheet: Sheet, record: Seal) -> Sealed | None:
    """The reveal text of ``sheet`` that hashes to the sealed commitment (any order of each
    player's identities, for 双身份), or None: the sheet is not the one sealed."""
    orders = [sorted(set(itertools.permutations(hand)), key=lambda o: o != hand) for _, hand in sheet.hands]
    if _product(len(o) for o in orders) > 4096:  # 双身份 deals 7 pairs: 128 at most
        orders = [[hand] for _, hand in sheet.hands]
    for choice in itertools.product(*orders):
        candidate = replace(sheet, hands=tuple((p, tuple(h)) for (p, _), h in zip(sheet.hands, choice)))
        made = sealed(mode, candidate, record.salt)
        if made.commitment == record.commitment:
            return made
    return None


def _product(sizes) -> int:
    total = 1
    for n in sizes:
        total *= n
    return total


def _sealed_post(rt: Runtime) -> Draft | None:
    return rt.outbox.by_dedupe_key(SEAL_KEY)


def draft_sealed_deal(rt: Runtime, state: GameState, now: datetime, sheet: Sheet | None = None) -> Draft | None:
    """The commitment for the progress thread, once (its dedupe key), as soon as the game
    has identities and a thread to post in."""
    if rt.config.identities is None:
        return None
    existing = _sealed_post(rt)
    if existing is not None:
        return existing
    from forumbot.game.takeover import posted_elsewhere

    if posted_elsewhere(rt, DraftKind.SEALED_DEAL.value, None, now):  # type: ignore[arg-type]
        return _sealed_post(rt)  # on the forum already (another state of this game's): never again
    tid = notice_thread(state, 1)
    if tid is None:
        return None
    record = seal(rt, now, sheet)
    assert record is not None
    sheet = sheet or rt.config.identities
    body = render(rt.env, "sealed_deal.bbcode.j2", {"s": {
        "commitment": record.commitment, "players": len(sheet.players),
        "ruleset": RULESET_ZH.get(rt.config.rules.name, rt.config.rules.name)}})
    return rt.outbox.create_draft(DraftKind.SEALED_DEAL, tid, body, now=now, dedupe_key=SEAL_KEY)


def end_of_game(rt: Runtime, state: GameState | None = None) -> End | None:
    """The game's end: the identities' win on the game as confirmed, else the director's
    word (``forumbot.game.ending``). None while it goes on."""
    from forumbot.game.ending import recorded
    from forumbot.game.nights import runtime_chronicle

    chronicle = runtime_chronicle(rt, state) if rt.config.identities is not None else None
    win: Win | None = chronicle.win if chronicle is not None else None
    if win is not None:
        return End(f"{win.faction.value}获胜", win.rule, at=win.at)
    said = recorded(rt)
    if said is not None:
        at = datetime.fromisoformat(said["at"]) if said.get("at") else None
        return End(f"导演宣布：{WINNER_ZH.get(said.get('winner'), '其他结局')}", "", str(said.get("note") or ""), at)
    return None


def draft_game_end(rt: Runtime, state: GameState, now: datetime, sheet: Sheet | None = None) -> Draft | None:
    """The end post, once: the winner and the rule, the reveal text verbatim and the
    commitment. Not drafted when the sheet no longer hashes to the seal (an alarm)."""
    if rt.config.identities is None or rt.config.night_mode is None:
        return None
    existing = rt.outbox.by_dedupe_key(END_KEY)
    if existing is not None:
        return existing
    end = end_of_game(rt, state)
    if end is None or announcement_first(rt, state, end, now):
        return None
    from forumbot.game.takeover import posted_elsewhere

    if posted_elsewhere(rt, DraftKind.GAME_END.value, None, now):  # type: ignore[arg-type]
        return rt.outbox.by_dedupe_key(END_KEY)
    last = max((d.number for d in state.days), default=1)
    tid = notice_thread(state, last)
    if tid is None:
        return None
    record = seal(rt, now, sheet)  # a game never sealed is sealed now: the reveal still hashes
    assert record is not None
    made = find_reveal(rt.config.night_mode, sheet or rt.config.identities, record)
    if made is None:
        rt.store.raise_alarm(
            CHANGED_ALARM, CHANGED_ALARM,
            "身份表在封存之后被改动过：按现在的身份文件算出的 SHA-256 与开局时封存的不同，游戏结束帖没有起草。"
            "请恢复开局时的身份文件（forumbot deal --check 检查），机器人随后起草结束帖", at=now)
        log.warning("游戏结束：身份表与封存的承诺不符，结束帖没有起草（见警报）")
        return None
    rt.store.clear_alarm(CHANGED_ALARM, at=now)
    posted = _sealed_post(rt)
    on_forum = posted is not None and posted.state is DraftState.PUBLISHED and posted.pid is not None
    body = render(rt.env, "game_end.bbcode.j2", {"e": {
        "winner": end.winner, "rule": end.rule, "note": end.note,
        "code": code_box(made.reveal), "commitment": made.commitment,
        "sealed_tid": posted.tid if on_forum and posted else None,
        "sealed_pid": posted.pid if on_forum and posted else None}})
    return rt.outbox.create_draft(DraftKind.GAME_END, tid, body, now=now, day=None, dedupe_key=END_KEY)


# How long the end post waits for the morning announcement of the night that ended the
# game (a director who never approves it must not lose the end post).
ANNOUNCEMENT_WAIT = timedelta(hours=12)


def announcement_first(rt: Runtime, state: GameState, end: End, now: datetime) -> bool:
    """A game won in a night: the morning announcement of that night (who died, their
    遗言) goes on the forum before the end post reveals every identity."""
    from forumbot.game.announce import SENT, standing

    if end.at is None or now >= end.at + ANNOUNCEMENT_WAIT:
        return False
    after = [d.number for d in state.days if d.start >= end.at]
    if not after or rt.store.night_result(min(after)) is None:
        return False  # not a night's end (a vote-out, the director's word)
    shown = standing(rt.outbox, "announcement", min(after))
    return shown is None or shown.state not in SENT


_CODE_END = re.compile(r"\[/code", re.I)


def code_box(text: str) -> BBCode:
    """The reveal text for a ``[code]`` box, verbatim: first line right after ``[code]``,
    last right before ``[/code]`` — a line break there is an empty first or last line on
    the page (seen on a real X3.5), and the copy would no longer hash to the commitment.
    Nothing inside a code box is BBCode, so the text is not escaped (an escaped bracket
    shows as ``&#091;`` there); only a ``[/code`` in a name would end the box early, and
    that bracket alone is escaped."""
    return BBCode(_CODE_END.sub("&#091;/code", text.rstrip("\n")))


def end_post_pending(rt: Runtime) -> bool:
    """A game with identities is not finished while its end post is still to be drafted
    or waits for the director (or to be sent): the service keeps giving it passes."""
    if rt.config.identities is None:
        return False
    draft = rt.outbox.by_dedupe_key(END_KEY)
    if draft is None:
        return True
    return draft.state in (DraftState.DRAFT, DraftState.APPROVED, DraftState.FAILED, DraftState.PUBLISHING)


def tick(rt: Runtime, state: GameState, now: datetime) -> list[Draft]:
    """The agent's pass: the seal drafted at the start, the end post at the end. Returns
    the drafts made in this pass."""
    made = []
    for step in (draft_sealed_deal, draft_game_end):
        draft = step(rt, state, now)
        if draft is not None and draft.created_at == now:
            made.append(draft)
    return made
