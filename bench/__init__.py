"""Benchmarks: ``python -m bench`` (``make bench``) runs every ``bench/<name>.py``.

Protocol: each bench module exposes ``run() -> list[dict]``; each dict has the keys
``benchmark``, ``figure``, ``value`` (float), ``unit``, ``reference`` (what the figure is
compared with), ``ratio`` (float or None) and ``goal`` (str). A module whose inputs are
missing returns a row made by :func:`skipped` instead of raising.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["FIXTURES", "ROW_KEYS", "fixture_dir", "skipped"]

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(os.environ.get("FORUMBOT_SHARED", REPO.parent / "shared")) / "fixtures"
ROW_KEYS = ("benchmark", "figure", "value", "unit", "reference", "ratio", "goal")


def fixture_dir(name: str) -> Path | None:
    """``../shared/fixtures/<name>``, or None when it is not there."""
    path = FIXTURES / name
    return path if path.is_dir() else None


def skipped(benchmark: str, reason: str, goal: str = "") -> dict[str, object]:
    """The row a bench module returns when it cannot run here."""
    return {
        "benchmark": benchmark,
        "figure": f"skipped: {reason}",
        "value": float("nan"),
        "unit": "",
        "reference": "",
        "ratio": None,
        "goal": goal,
    }
