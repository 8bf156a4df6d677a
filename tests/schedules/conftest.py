"""Fixtures for the Scheduler's tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from older import old_project  # noqa: E402
from schedule_helpers import (  # noqa: E402
    OVERLAP_WORKFLOWS,
    HandClock,
    Org,
    new_project,
)


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fresh project, copied for each test (a new project costs a genome build)."""
    return new_project(tmp_path_factory.mktemp("template") / "project", OVERLAP_WORKFLOWS)


def _copy(template: Path, target: Path) -> Path:
    import shutil

    shutil.copytree(template, target, symlinks=True)
    return target


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    return _copy(template, tmp_path / "project")


@pytest.fixture(scope="session")
def old_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project made before signing (no genesis), copied for each test that asks
    memory's old word on who may ask."""
    return old_project(tmp_path_factory.mktemp("old-template") / "project", OVERLAP_WORKFLOWS)


@pytest.fixture
def old(old_template: Path, tmp_path: Path) -> Path:
    return _copy(old_template, tmp_path / "old")


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture
def org(project: Path, clock: HandClock) -> Org:
    return Org(project, clock)
