"""Fixtures for the Scheduler's tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schedule_helpers import OVERLAP_WORKFLOWS, HandClock, Org, new_project  # noqa: E402


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fresh project, copied for each test (a new project costs a genome build)."""
    return new_project(tmp_path_factory.mktemp("template") / "project", OVERLAP_WORKFLOWS)


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "project"
    shutil.copytree(template, target, symlinks=True)
    return target


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture
def org(project: Path, clock: HandClock) -> Org:
    return Org(project, clock)
