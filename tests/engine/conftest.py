"""Fixtures for the engine's tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import HandClock, Org, make_project  # noqa: E402


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture
def org(tmp_path: Path, clock: HandClock) -> Org:
    return Org(make_project(tmp_path / "project"), clock)
