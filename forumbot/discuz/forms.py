"""An HTML form as a browser submits it: the form page a dialect reads before posting.

Discuz's own forms (7.2's reply, quote and edit forms; X3's edit form) carry hidden
fields the server checks or uses — ``formhash``, ``posttime``, the quote notification
``noticeauthor``/``noticetrimstr`` — and prefill the editor (a quote block). Posting what
the form holds, the way a browser does, keeps the client in step with the forum instead
of with our guess of the field list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape

from bs4 import BeautifulSoup, Tag

__all__ = ["FormPage", "unwrap_ajax"]

_SKIPPED_INPUTS = {"file", "button", "submit", "image", "reset"}


@dataclass
class FormPage:
    """A page with forms, decoded; ``url`` is where it was read (the Referer to send)."""

    text: str
    url: str
    _soup: BeautifulSoup | None = field(default=None, repr=False)

    @property
    def soup(self) -> BeautifulSoup:
        if self._soup is None:
            self._soup = BeautifulSoup(self.text, "lxml")
        return self._soup

    def form(self, form_id: str) -> Tag | None:
        found = self.soup.find("form", id=form_id)
        return found if isinstance(found, Tag) else None

    def action(self, form_id: str) -> str | None:
        form = self.form(form_id)
        action = form.get("action") if form is not None else None
        return unescape(" ".join(str(action).split())) if action else None

    def fields(self, form_id: str) -> dict[str, str]:
        """The form's successful controls in document order, as a browser would send them
        (unchecked boxes and disabled controls left out, textareas with their text)."""
        form = self.form(form_id)
        if form is None:
            return {}
        out: dict[str, str] = {}
        for tag in form.find_all(("input", "textarea", "select")):
            name = tag.get("name")
            if not name or tag.has_attr("disabled"):
                continue
            if tag.name == "textarea":
                out[name] = _textarea_value(tag)
                continue
            if tag.name == "select":
                chosen = tag.find("option", selected=True) or tag.find("option")
                if chosen is not None:
                    out[name] = chosen.get("value", chosen.get_text())
                continue
            kind = (tag.get("type") or "text").lower()
            if kind in _SKIPPED_INPUTS:
                continue
            if kind in ("checkbox", "radio") and not tag.has_attr("checked"):
                continue
            out[name] = tag.get("value", "on" if kind in ("checkbox", "radio") else "")
        return out

    def first_text(self, pattern: re.Pattern[str]) -> str | None:
        m = pattern.search(self.text)
        return m.group(1) if m else None


_CDATA = re.compile(r"^\s*(?:<\?xml[^>]*\?>\s*)?<root>\s*<!\[CDATA\[(.*)\]\]>\s*</root>\s*$", re.S)


def unwrap_ajax(text: str) -> str:
    """The HTML inside an ajax answer (``<root><![CDATA[…]]></root>``); other text as is."""
    m = _CDATA.match(text)
    return m.group(1) if m else text


def _textarea_value(tag: Tag) -> str:
    text = tag.get_text()
    # HTML drops one newline right after <textarea>; browsers submit the rest as is.
    return text[1:] if text.startswith("\n") else text
