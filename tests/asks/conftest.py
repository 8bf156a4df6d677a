"""Fixtures for the asks' tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from ask_helpers import Project, make_project  # noqa: E402


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(make_project(tmp_path / "project"))
