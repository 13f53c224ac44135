"""What counts as an English sentence a director reads (issue 18 item 11).

A *sentence* is three or more English words in a row — not interrupted by Chinese —
once the things a director types or reads as names are taken out: file paths, URLs,
TOML keys and tables, options, command names, environment variables, identifiers
(``running_count``, ``forumbot.agent.loop``), quoted values without spaces, player names,
and a short list of words every director must know (pid, tid, Discuz, HTTP, the log
levels…). Digits and ASCII punctuation do not end a run: ``no draft #99 in the outbox``
is one sentence of five words; ``第2日 tally {…}, abstain 1, non-voters 1`` is one of
three. Used by the CLI and log crawl (``test_chinese_crawl.py``) and the desk's raw data
(``test_desk_chinese.py``).
"""

from __future__ import annotations

import re
from typing import Iterable

# Words a director may meet in Chinese text that are names, not English prose. Keep it
# short: each entry is a word the director must know (or a code shown beside its Chinese).
ALLOWED = {
    "forumbot", "pid", "tid", "uid", "pmid", "fid", "Discuz", "BBCode", "JSON", "TOML", "HTML", "HTTP",
    "HTTPS", "UTF", "GBK", "ISO", "API", "URL", "PM", "IP", "CSRF", "SQLite", "systemd", "cookie", "formhash",
    "INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL", "Ctrl", "pass", "x3", "X3", "true", "false",
    "auto", "manual", "User-Agent", "Mozilla", "chmod", "mkdir", "sudo", "EDITOR", "nano", "vi",
}

_STRIP = [  # what a director types or reads as a name, not as English prose
    r"(?:https?|ftp)://\S+",  # URLs
    r"\b(?:sha256:)?[0-9a-f]{16,}\b",  # checksums
    r"\b(?=[0-9a-f]*\d)[0-9a-f]+\b",  # short hex ids: a state 「状态 f07c2e」 is not the words f, c, e
    r"\b(?:forum|home|member|misc|logging|api/mobile/index|viewthread|redirect|pm|index)\.php\S*",
    r"\[\[?[A-Za-z_.]+\]\]?(?:\s?#\d+)?(?:（[^）]*）)?(?:\.[A-Za-z_]+)*(?:\[\d+\])?",  # [notify].enabled, [[days]] #1.number
    r"\b[A-Za-z_]+(?= = )",  # a TOML line's key
    r"\b\w+=\S*",  # key=value, FORUMBOT_PASSWORD=…
    r"\bFORUMBOT_[A-Z_]+\b|\$\w+",  # environment variables
    r"(?<![\w-])--?[A-Za-z][\w-]*",  # option names
    r"\S*[/\\]\S*",  # paths and time zones: Asia/Shanghai, ../shared
    r"[\w.-]*\.(?:toml|json|html?|txt|bbcode|db|sqlite|log|lock|php|py)\b",  # file names
    r"\b[A-Za-z]+(?:[_.][A-Za-z0-9]+)+\b",  # identifiers: running_count, forumbot.agent.loop, voter_out
    r"'[^'\s]*'|\"[^\"\s]*\"|「[^」]*」",  # quoted values without spaces (what was typed)
    r"\[/?[a-z]+(?:=[^\]]*)?\]",  # BBCode tags
    r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b",  # class names shown as codes: FloodControl, ThreadClosed
]
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# What ends a run of English words: Chinese (and full-width) text, or a line break.
_BREAK = re.compile(r"[\u3000-\u9fff\uff00-\uffef\n]+")


def english_sentences(text: str, names: Iterable[str] = ()) -> list[str]:
    """The runs of three or more English words left in ``text`` (each as found)."""
    for name in sorted(set(names), key=len, reverse=True):
        if name:
            text = text.replace(name, " ")
    for pattern in _STRIP:
        text = re.sub(pattern, " ", text, flags=re.MULTILINE)
    found = []
    for segment in _BREAK.split(text):
        words = [w for w in _WORD.findall(segment) if w not in ALLOWED and w.strip("'-") not in ALLOWED]
        if len(words) >= 3:
            found.append(" ".join(words))
    return found


__all__ = ["ALLOWED", "english_sentences"]
