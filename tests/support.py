"""Where the shared fixtures live, and how tests behave when they are absent.

CI has ``../shared`` beside the checkout; a user's clone may not. Tests that read the
fixtures skip with a clear message when they are absent, and fail instead when
``FORUMBOT_REQUIRE_FIXTURES=1`` (which ``.ci/run`` sets).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("FORUMBOT_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures"


def require_fixtures() -> bool:
    return os.environ.get("FORUMBOT_REQUIRE_FIXTURES") == "1"


def fixture_dir(name: str) -> Path:
    """The fixture set ``name`` (e.g. ``discuz-x3``), or skip/fail when it is absent."""
    path = FIXTURES / name
    if not path.is_dir():
        message = (
            f"shared fixtures not found at {path} "
            "(clone the project beside ../shared to run these tests)"
        )
        if require_fixtures():
            pytest.fail(message + "; FORUMBOT_REQUIRE_FIXTURES=1 makes this a failure")
        pytest.skip(message, allow_module_level=True)
    return path


def fixture_file(name: str, filename: str) -> Path:
    path = fixture_dir(name) / filename
    if not path.exists():
        pytest.fail(f"fixture file missing: {path}")
    return path
