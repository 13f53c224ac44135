"""Jinja2 → Discuz BBCode, with player-written text escaped.

Every ``{{ … }}`` in a template is escaped by default (the environment's ``finalize``), so
a player named ``[size=7]饺子`` or a reason containing ``[/table]`` cannot break or restyle
the bot's post. Template authors who build BBCode in Python wrap it in ``BBCode`` to say it
is already safe; the ``bb`` filter is the same escape, for explicit use.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jinja2

DEFAULT_TEMPLATE_DIR = Path(__file__).resolve().parents[1] / "templates"

# Discuz's dhtmlspecialchars keeps numeric entities of 3–5 digits (&#091;), so a bracket
# written as an entity reaches the page as a bracket but is never seen by the BBCode
# parser. "&#" itself is neutralised so a player cannot smuggle an entity of their own.
_ESCAPES = {"[": "&#091;", "]": "&#093;"}
_ENTITY_START = re.compile(r"&#")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LINEBREAKS = re.compile(r"\s*[\r\n\u2028\u2029]+\s*")


class BBCode(str):
    """A string that is already BBCode the bot wrote: printed as is."""


def bb_escape(value: Any) -> str:
    """Escape one value for inclusion in a BBCode post (one line, no live markup)."""
    if value is None:
        return ""
    if isinstance(value, BBCode):
        return value
    text = str(value)
    text = _CONTROL.sub("", text)
    text = _LINEBREAKS.sub(" ", text)
    text = _ENTITY_START.sub("&#038;#", text)
    return BBCode("".join(_ESCAPES.get(ch, ch) for ch in text))


def findpost(tid: int, pid: int, label: Any) -> BBCode:
    """A link to a post that survives floor shifts: Discuz resolves findpost by pid."""
    return BBCode(
        f"[url=forum.php?mod=redirect&goto=findpost&ptid={int(tid)}&pid={int(pid)}]"
        f"{bb_escape(label)}[/url]"
    )


def findpost_d72(tid: int, pid: int, label: Any) -> BBCode:
    """The same link on Discuz! 7.2, which has no forum.php: ``redirect.php``."""
    return BBCode(
        f"[url=redirect.php?goto=findpost&pid={int(pid)}&ptid={int(tid)}]"
        f"{bb_escape(label)}[/url]"
    )


def use_generation(env: jinja2.Environment, generation: str | None) -> None:
    """Links in the bot's posts in the scheme of the forum's Discuz generation ("x3" or
    "7.2"; None: X3, until the forum has been seen)."""
    env.globals["findpost"] = findpost_d72 if generation == "7.2" else findpost


def make_environment(template_dir: Path | None = None) -> jinja2.Environment:
    """Templates from ``template_dir`` first (the director's copies), then the defaults."""
    search = [str(p) for p in (template_dir, DEFAULT_TEMPLATE_DIR) if p is not None]
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(search, encoding="utf-8"),
        finalize=bb_escape,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["bb"] = bb_escape
    env.globals["findpost"] = findpost
    return env


def render(env: jinja2.Environment, name: str, context: dict[str, Any]) -> str:
    text = env.get_template(name).render(**context)
    # Collapse the blank lines template control blocks leave behind; keep one empty line.
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip() + "\n"
