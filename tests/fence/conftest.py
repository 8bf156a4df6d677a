"""Fixtures for the fence's tests: the engine's and the node's helpers, reused."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE.parent / "engine", HERE.parent / "node", HERE.parent):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from node_helpers import clone, make_forge, started_nodes  # noqa: E402

__all__ = ["clone", "make_forge", "started_nodes"]


import pytest  # noqa: E402


@pytest.fixture
def forge(tmp_path: Path) -> tuple[Path, Path]:
    return make_forge(tmp_path)


@pytest.fixture
def make_clone(tmp_path: Path, forge: tuple[Path, Path]):
    return lambda name: clone(forge[0], tmp_path / name)


@pytest.fixture
def nodes():
    """nodes(cwd, verb="dev", env=None): a node process, killed with its children at the end."""
    with started_nodes() as start:
        yield start


@pytest.fixture
def org(tmp_path: Path):
    from engine_helpers import HandClock, Org, make_project

    return Org(make_project(tmp_path / "project"), HandClock())
