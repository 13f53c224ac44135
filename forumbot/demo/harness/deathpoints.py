"""Named moments at which the agent SIGKILLs itself, for the crash tests' "after X was
done, before Y": the statement that would do Y is about to run (``agent_main
--death-points FILE``).

The file says each point's name and a regular expression searched in every SQL statement
the agent's store runs (as SQLite expands it, the values bound in). A point fires once
per value of its ``key`` group (once in all without one): the fired keys are written back
to the file before the kill, so the restarted agent goes past the moment it died at.
Killing at the statement's start leaves its transaction uncommitted, as a kill there does.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
from pathlib import Path

__all__ = ["DeathPoints", "fired", "write_points"]


def write_points(path: Path, points: dict[str, str]) -> None:
    path.write_text(json.dumps({"points": points, "fired": []}, ensure_ascii=False), encoding="utf-8")


def fired(path: Path) -> list[str]:
    """``name:key`` of each point that fired so far, in order."""
    return list(json.loads(path.read_text(encoding="utf-8"))["fired"]) if path.exists() else []


class DeathPoints:
    def __init__(self, path: Path) -> None:
        self.path = path
        doc = json.loads(path.read_text(encoding="utf-8"))
        self.points = {name: re.compile(rx, re.S) for name, rx in doc["points"].items()}
        self.fired: list[str] = list(doc["fired"])

    def install(self, conn: sqlite3.Connection) -> None:
        conn.set_trace_callback(self._statement)

    def _statement(self, sql: str) -> None:
        for name, pattern in self.points.items():
            found = pattern.search(sql)
            if found is None:
                continue
            key = f"{name}:{found.group('key') if 'key' in pattern.groupindex else ''}"
            if key in self.fired:
                continue
            self.fired.append(key)
            doc = {"points": {n: p.pattern for n, p in self.points.items()}, "fired": self.fired}
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self.path)
            os.kill(os.getpid(), signal.SIGKILL)
