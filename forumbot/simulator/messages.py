"""``showmessage`` results: a language key, its text, the values, where it forwards.

Each generation has its own language file (``x3/messages.py`` from X3.5's
``source/language/lang_message.php``, ``d72/messages.py`` from 7.2's
``templates/default/messages.lang.php``); ``Messages.message`` builds an ``Outcome`` from
one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Outcome:
    """One ``showmessage`` result: its key, the text, the JS values, where it forwards."""

    key: str
    params: dict[str, str] = field(default_factory=dict)
    ok: bool = False
    url: str | None = None
    status: int = 200
    text: str = ""
    extra: str = ""  # 7.2's third argument: "NOPERM" (the login box page) or "HALTED"


class Messages:
    """A generation's language file: ``message(key, **values)`` → ``Outcome``."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def message(self, key: str, ok: bool = False, url: str | None = None, status: int = 200,
                text: str | None = None, extra: str = "", **params: object) -> Outcome:
        values = {k: str(v) for k, v in params.items()}
        if text is None:
            text = self.texts[key].format(**values)
        return Outcome(key, values, ok, url, status, text, extra)
