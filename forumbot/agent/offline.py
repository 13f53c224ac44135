"""Recount a day from saved thread pages (SPEC §7): pages → posts → ballots → tally.

The same steps the agent takes over the network, minus the network: pages are read with
``parsers.pages.read_page``, each post's own text is parsed with ``parsers.votes.parse_vote``
and the engine rules on the result. The game is built the way the agent builds it
(``forumbot.game.state.build_state``): the config's starting state and its ``[[events]]`` in game
time (SPEC §9), with no stored events — so a config listing what the agent's store holds
gives the agent's tally.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parsers.errors import PageParseError
from parsers.models import Post
from parsers.pages import read_page_files
from parsers.votes import parse_vote

from engine.ballots import Ballot
from engine.report import tally_json
from engine.state import GameState
from engine.tally import TallyResult, tally_day
from forumbot.config.gamefile import ConfigError, GameConfig, load_config
from forumbot.game.nights import secrets_view, win_after_day, with_vote_out
from forumbot.game.state import build_state
from forumbot.wording import os_error_zh


class OfflineTallyError(ValueError):
    """A page that cannot be read, or a day that is not configured. Names the thing."""


@dataclass(frozen=True)
class OfflineTally:
    config: GameConfig
    day: int
    result: TallyResult
    posts_read: int

    def as_json(self, *, secrets: bool = False) -> dict[str, Any]:
        """SPEC §7's object; with identities, ``win`` (§10.6: the win check after this
        day's result). ``secrets``: also ``secrets`` (every identity, the nights' actions)
        — the director's own screen only."""
        state = build_state(self.config, [])
        report = tally_json(self.result, state, self.day, self.config.rules)
        if self.config.identities is not None:
            result = report.get("result") or {}
            out = result.get("out") if result.get("effect") != "idiot" else None
            checked = win_after_day(self.config, state, self.day, out)
            report["win"] = checked.to_json() if checked is not None else None
            if secrets:
                report["secrets"] = secrets_view(self.config, with_vote_out(state, self.day, out),
                                                 at=state.day(self.day).deadline)
        return report


def read_posts(paths: Iterable[str | Path], config: GameConfig) -> list[Post]:
    """Every post on the pages, once each, in post order."""
    try:
        posts = read_page_files(paths, tz=config.forum.tz)
    except PageParseError as exc:
        raise OfflineTallyError(str(exc)) from None
    except OSError as exc:
        raise OfflineTallyError(f"{exc.filename}: 无法读取：{os_error_zh(exc)}") from None
    return sorted(posts, key=lambda p: (p.posted_at, p.pid))


def thread_roles(state: GameState, day: int) -> dict[int, str]:
    """tid → role; the asked day's threads win over other days' (a shared thread)."""
    roles: dict[int, str] = {}
    for window in state.days:
        if window.number != day:
            roles.update(window.threads())
    roles.update(state.day(day).threads())
    return roles


def to_ballots(posts: Iterable[Post], roles: dict[int, str]) -> list[Ballot]:
    ballots = []
    for post in posts:
        role = roles.get(post.tid)
        if role is None:
            continue  # not a game thread of this config
        declaration = parse_vote(post.text, plain=True) if post.notice is None and post.text else None
        ballots.append(Ballot(post=post, declaration=declaration, thread=role))
    return ballots


def offline_tally(config_path: str | Path, day: int, pages: Sequence[str | Path]) -> OfflineTally:
    """Load the config, read the pages, tally ``day``. Raises ConfigError/OfflineTallyError."""
    config = load_config(config_path)
    if not pages:
        raise OfflineTallyError("没有给出页面（--pages 文件…）")
    config.day(day)  # names the configured days when ``day`` is not one of them
    posts = read_posts(pages, config)
    ballots = to_ballots(posts, thread_roles(config.state, day))
    vote_tid = config.day(day).vote_thread
    if vote_tid is not None and not any(b.post.tid == vote_tid for b in ballots):
        tids = sorted({p.tid for p in posts})
        raise OfflineTallyError(
            f"这些页面都不是第{day}日投票帖（tid {vote_tid}）的；页面里的帖子是 tid {'、'.join(map(str, tids))}"
        )
    state = build_state(config, [])
    return OfflineTally(config, day, tally_day(ballots, state, day, config.rules), len(posts))


__all__ = ["ConfigError", "OfflineTally", "OfflineTallyError", "offline_tally", "read_posts", "to_ballots"]
