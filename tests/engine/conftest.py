"""Fixtures for the engine's tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine_helpers import HandClock, Org, make_project  # noqa: E402


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture
def org(tmp_path: Path, clock: HandClock) -> Org:
    return Org(make_project(tmp_path / "project"), clock)
