"""Fixtures for the asks' tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ask_helpers import Project, make_project  # noqa: E402


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(make_project(tmp_path / "project"))
