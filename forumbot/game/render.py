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

DEFAULT_TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "templates"

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


# What a forum address may not hold inside ``[url=…]``: 7.2 takes no blank, "[", quote or
# apostrophe there, X3.5 no line break, "[", quote or apostrophe; "]" would end the tag.
_UNSAFE_IN_URL = re.compile(r"[\s\[\]\"']")


def forum_root(base_url: str | None) -> str | None:
    """The forum's address as the start of a link: ending in "/", nothing in it that
    would end the ``[url=…]`` early (percent-encoded). None without an address."""
    base = (base_url or "").strip()
    if not base:
        return None
    base = _UNSAFE_IN_URL.sub(lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode()), base)
    return base if base.endswith("/") else base + "/"


def post_path(generation: str | None, tid: int, pid: int) -> str:
    """Where the forum's findpost redirect lives: X3's ``forum.php?mod=redirect``, 7.2's
    ``redirect.php`` (7.2 has no forum.php). Either follows the pid to its floor."""
    if generation == "7.2":
        return f"redirect.php?goto=findpost&pid={int(pid)}&ptid={int(tid)}"
    return f"forum.php?mod=redirect&goto=findpost&ptid={int(tid)}&pid={int(pid)}"


def thread_path(generation: str | None, tid: int) -> str:
    if generation == "7.2":
        return f"viewthread.php?tid={int(tid)}"
    return f"forum.php?mod=viewthread&tid={int(tid)}"


class PostLinks:
    """``findpost(tid, pid, label)`` in the templates: a link to a post that survives
    floor shifts (Discuz resolves findpost by pid).

    Absolute, from ``[forum].base_url``: Discuz! 7.2 makes a link only of an address that
    starts with a scheme (``http://`` …), ``www.`` or ``mailto:`` — a relative
    ``[url=redirect.php?…]`` stays raw text on its pages. X3 takes either (it puts the
    site's address before a relative one), so both generations get the absolute form.
    Relative only when no address is known (a config without ``base_url`` posts nothing)."""

    def __init__(self, generation: str | None = None, base_url: str | None = None) -> None:
        self.generation = generation  # "x3" or "7.2"; None: X3, until the forum is seen
        self.root = forum_root(base_url)

    def url(self, tid: int, pid: int) -> str:
        return (self.root or "") + post_path(self.generation, tid, pid)

    def __call__(self, tid: int, pid: int, label: Any) -> BBCode:
        return BBCode(f"[url={self.url(tid, pid)}]{bb_escape(label)}[/url]")


def findpost(tid: int, pid: int, label: Any) -> BBCode:
    """A relative X3 link to a post (see ``PostLinks`` for the one the bot posts)."""
    return PostLinks("x3")(tid, pid, label)


def findpost_d72(tid: int, pid: int, label: Any) -> BBCode:
    """A relative 7.2 link to a post (see ``PostLinks``: 7.2 shows it as raw text)."""
    return PostLinks("7.2")(tid, pid, label)


def post_links(env: jinja2.Environment) -> PostLinks:
    links = env.globals.get("findpost")
    if not isinstance(links, PostLinks):
        links = PostLinks()
        env.globals["findpost"] = links
    return links


def use_generation(env: jinja2.Environment, generation: str | None) -> None:
    """Links in the bot's posts in the scheme of the forum's Discuz generation ("x3" or
    "7.2"; None: X3, until the forum has been seen)."""
    post_links(env).generation = generation


def use_base_url(env: jinja2.Environment, base_url: str | None) -> None:
    """Links in the bot's posts start with the forum's address (``[forum].base_url``)."""
    post_links(env).root = forum_root(base_url)


def make_environment(template_dir: Path | None = None, *, base_url: str | None = None,
                     generation: str | None = None) -> jinja2.Environment:
    """Templates from ``template_dir`` first (the director's copies), then the defaults;
    links to posts built on ``base_url`` in ``generation``'s scheme (``PostLinks``)."""
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
    env.globals["findpost"] = PostLinks(generation, base_url)
    return env


def render(env: jinja2.Environment, name: str, context: dict[str, Any]) -> str:
    text = env.get_template(name).render(**context)
    # Collapse the blank lines template control blocks leave behind; keep one empty line.
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip() + "\n"
