"""Fixtures for the spine's tests: a project made by `hale dna new` on a bare
forge, clones of it, and node processes killed with their children at the end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from node_helpers import Node, clone, started_nodes  # noqa: E402
from spine_helpers import forge_with_close_month  # noqa: E402


@pytest.fixture
def forge(tmp_path: Path) -> Path:
    return forge_with_close_month(tmp_path)


@pytest.fixture
def make_clone(tmp_path: Path, forge: Path) -> Callable[[str], Path]:
    return lambda name: clone(forge, tmp_path / name)


@pytest.fixture
def nodes() -> Iterator[Callable[..., Node]]:
    """nodes(cwd, verb="dev", env=None): a node process, killed with its children at the end."""
    with started_nodes() as start:
        yield start
