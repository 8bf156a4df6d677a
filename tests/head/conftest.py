"""Fixtures for the head's tests (the asks' helpers, shared)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from ask_helpers import Project, make_project  # noqa: E402

from hale_runtime.head import HeadServer, open_head_for


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(make_project(tmp_path / "project"))


@pytest.fixture
def served(project: Project) -> Iterator[HeadServer]:
    """The project's head on loopback, its address file written (what `dev` starts)."""
    project.memory().close()
    server = HeadServer(
        open_head_for(project.root, str(project.memory_path), "org@box:c0ffee00"),
        root=project.root,
    )
    server.start()
    yield server
    server.stop()
