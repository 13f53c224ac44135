from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support import fixture_dir

# A property's examples are judged by what they find, never by how fast they ran: the
# default 200 ms deadline and the too-slow health check fail on a loaded 2-core machine
# (CI, or five engineers' tests at once) and would make the suite flaky. Per-test
# @settings still choose their example counts; they inherit this profile's deadline.
settings.register_profile(
    "forumbot",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("forumbot")


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
