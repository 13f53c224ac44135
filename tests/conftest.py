from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import fixture_dir


@pytest.fixture(scope="session")
def x3_dir() -> Path:
    """Real Discuz! X3.5 UTF-8 captures."""
    return fixture_dir("discuz-x3")


@pytest.fixture(scope="session")
def gbk_dir() -> Path:
    """Real Discuz! X3.5 GBK captures."""
    return fixture_dir("discuz-x3-gbk")


@pytest.fixture(scope="session")
def large_dir() -> Path:
    """The real 2,001-post thread (201 pages) with truth.csv."""
    return fixture_dir("discuz-x3-large")
