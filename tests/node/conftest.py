"""Node fixtures: a forge with a project on it, clones of it, and cleanup of
every node process a test started (by pid, with everything they started)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from node_helpers import Node, clone, make_forge, started_nodes  # noqa: E402


@pytest.fixture
def forge(tmp_path: Path) -> tuple[Path, Path]:
    return make_forge(tmp_path)


@pytest.fixture
def make_clone(tmp_path: Path, forge: tuple[Path, Path]) -> Callable[[str], Path]:
    return lambda name: clone(forge[0], tmp_path / name)


@pytest.fixture
def nodes() -> Iterator[Callable[..., Node]]:
    """nodes(cwd, verb="dev", env=None): a node process, killed with its children at the end."""
    with started_nodes() as start:
        yield start
