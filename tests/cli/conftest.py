"""Fixtures for the command line's tests: one project with a schedule that
has occurred (so a task, a process and a Review are there to read), made
once and copied for each test that writes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from schedule_helpers import DAY, START, HandClock, Org, new_project, terms  # noqa: E402


@pytest.fixture(scope="session")
def lived(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose nightly schedule occurred once: a task in the record."""
    root = new_project(tmp_path_factory.mktemp("lived") / "project")
    org = Org(root, HandClock(START))
    org.ask(terms())
    org.run_until(START + DAY)
    assert org.asks("nightly"), "the schedule occurred"
    return root


@pytest.fixture
def project(lived: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(lived, tmp_path / "project", symlinks=True))
