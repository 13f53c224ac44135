"""When the game is over (the desk, ``forumbot status`` and the service say it).

Two ways a game ends (docs/decisions.md, "The director's desk"):

* the director says so — a win (好人/狼人/第三方) or another ending, with a note. Games end
  when a side wins, often before the last configured day; only the director knows the
  roles, so only the director can say it. Kept in the store's meta (``desk:game_over``)
  with an audit line, and taken back the same way (``game.resumed``);
* the last configured day's final count is published: there is no later day in the
  config, so nothing more will be counted (the desk says how to go on if the game does).

While the game is over the desk stops asking for the next night's results or a
successor sheriff (there is no next day), but still shows drafts and failed posts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from engine.state import GameState
from forumbot.game import announce
from forumbot.game.gamelog import DIRECTOR, DirectorError
from forumbot.store.outbox import DraftState
from forumbot.game.runtime import Runtime
from forumbot.wording import hm
from forumbot.wording import WINNER_ZH

META_KEY = "desk:game_over"


@dataclass(frozen=True)
class GameOver:
    how: str  # "recorded" (the director said so) | "win" (the identities' win check) | "last_day"
    text: str  # Chinese, one line
    at: datetime | None = None
    recorded: bool = False


def recorded(rt: Runtime) -> dict | None:
    raw = rt.store.get_meta(META_KEY)
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def game_over(rt: Runtime, state: GameState) -> GameOver | None:
    said = recorded(rt)
    if said is not None:
        at = datetime.fromisoformat(said["at"]) if said.get("at") else None
        note = f"（{said['note']}）" if said.get("note") else ""
        return GameOver("recorded", f"游戏已结束：{WINNER_ZH.get(said.get('winner'), '其他结局')}{note}，"
                                    f"由导演于 {hm(at)} 宣布", at, True)
    if rt.config.identities is not None:
        # The identities' win check on the game as confirmed (SPEC §10.4): the game is
        # over, nothing asks for another night.
        from forumbot.game.nights import NightsError, runtime_chronicle

        try:
            chronicle = runtime_chronicle(rt, state)
        except NightsError:
            chronicle = None  # a game the identities cannot replay: the director says when it ends
        win = chronicle.win if chronicle is not None else None
        if win is not None:
            return GameOver("win", f"游戏已结束：{win.faction.value}获胜（{win.rule}）", win.at)
    if not state.days:
        return None
    last = max(state.days, key=lambda d: d.number)
    final = announce.final_draft(rt.outbox, last.number)
    if final is not None and final.state is DraftState.PUBLISHED:
        return GameOver("last_day", f"游戏已结束：配置的最后一天（第{last.number}日）的最终计票已发布。"
                                    "如果游戏还没有结束，请在配置里加上之后的游戏日",
                        final.published_at)
    return None


def declare(rt: Runtime, winner: str, note: str, now: datetime) -> None:
    if winner not in WINNER_ZH:
        raise DirectorError("请选择结局")
    if recorded(rt) is not None:
        raise DirectorError("已经宣布过游戏结束")
    with rt.store.write():
        rt.store.set_meta(META_KEY, json.dumps({"winner": winner, "note": note, "at": now.isoformat()},
                                               ensure_ascii=False))
        rt.store.audit(DIRECTOR, "game.over", {"winner": winner, "note": note}, at=now)


def resume(rt: Runtime, why: str, now: datetime) -> None:
    if not why.strip():
        raise DirectorError("请说明理由（记入日志）")
    if recorded(rt) is None:
        raise DirectorError("游戏没有被宣布结束")
    with rt.store.write():
        rt.store.set_meta(META_KEY, "")
        rt.store.audit(DIRECTOR, "game.resumed", {"why": why}, at=now)
