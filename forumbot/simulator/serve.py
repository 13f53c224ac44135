"""Build the forum ``forumbot simulate`` serves: a script's, or the demo game."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forumbot.simulator.clock import ForumClock, WallClock
from forumbot.simulator.core import Simulator
from forumbot.simulator.script import ScriptError, apply_script, demo_script, load_script


@dataclass(frozen=True)
class PreparedForum:
    sim: Simulator
    accounts: list[tuple[str, str]]  # (name, password) to print for the person at the browser
    source: str  # "demo" or the script path


def prepare_forum(port: int = 8080, gbk: bool = False, script: str | Path | None = None,
                  ppp: int | None = None, clock: ForumClock | None = None,
                  host: str = "127.0.0.1", discuz: str | None = None) -> PreparedForum:
    """A simulator filled from ``script`` (or the demo game), not yet listening.

    ``discuz`` ("x3" or "7.2") and ``gbk`` win over the script's ``[site]``; the demo game
    is the same in both generations."""
    data = load_script(script) if script is not None else demo_script()
    site = data.get("site", {})
    charset = "gbk" if gbk else str(site.get("charset", "utf-8"))
    per_page = ppp or int(site.get("posts_per_page", 10))
    generation = discuz or str(site.get("discuz", "x3"))
    try:
        sim = Simulator(clock=clock or WallClock(), charset=charset,
                        posts_per_page=per_page, host=host, port=port, discuz=generation)
    except ValueError as exc:
        raise ScriptError(str(exc)) from exc
    apply_script(sim, data)
    accounts = [(str(u["name"]), str(u["password"])) for u in data.get("users", [])]
    return PreparedForum(sim, accounts, str(script) if script else "demo")
