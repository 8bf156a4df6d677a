"""Fixtures for the spine's tests: a project made by `hale dna new` on a bare
forge, clones of it, and node processes killed with their children at the end."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "node"))
from node_helpers import Node, clone  # noqa: E402
from spine_helpers import make_forge, stop_all  # noqa: E402


@pytest.fixture
def forge(tmp_path: Path) -> Path:
    return make_forge(tmp_path)


@pytest.fixture
def make_clone(tmp_path: Path, forge: Path) -> Callable[[str], Path]:
    return lambda name: clone(forge, tmp_path / name)


@pytest.fixture
def nodes() -> Iterator[Callable[..., Node]]:
    """nodes(cwd, verb="dev", env=None): a node process, killed with its children at the end."""
    started: list[Node] = []

    def start(cwd: Path, verb: str = "dev", env: dict[str, str] | None = None) -> Node:
        node = Node(cwd, verb, env)
        started.append(node)
        return node

    yield start
    stop_all(started)
