"""Evidence for a dispute: one day as the bot saw it, in a file anyone can read and
``forumbot tally --evidence`` recounts exactly as the live run did.

A page saved from the forum after the fact holds only a post's edited text; the bot
counted the text it first saw (SPEC §3.3). The evidence file carries what the count
stood on: every version of every post of the day's threads with the time the bot first
saw it and the reads of the pages that carried it, the game's events as they stood
(entered when, by whom, taken back or not), the rule set, the day's window, and the
tally the live run stored. See ``docs/decisions.md`` (Evidence) for the format.

    data = export_day(config, store, day=2, now=now)      # store → dict
    write(data, path)                                     # readable UTF-8 JSON + checksum
    evidence = load(path)                                 # validated; EvidenceError names the key
    check = verify(evidence)                              # recount, compared with the live tally
"""

from __future__ import annotations

from forumbot.evidence.export import export_day
from forumbot.evidence.fileformat import (
    FORMAT,
    FORMAT_VERSION,
    Evidence,
    EvidenceError,
    EvidencePost,
    checksum,
    dumps,
    load,
    parse,
    write,
)
from forumbot.evidence.recount import Check, Difference, compare, recount, verify

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Check",
    "Difference",
    "Evidence",
    "EvidenceError",
    "EvidencePost",
    "checksum",
    "compare",
    "dumps",
    "export_day",
    "load",
    "parse",
    "recount",
    "verify",
    "write",
]
