"""Node fixtures: a forge with a project on it, clones of it, and cleanup of
every node process a test started (by pid, with everything they started)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from node_helpers import Node, children_of, clone, make_forge  # noqa: E402


@pytest.fixture
def forge(tmp_path: Path) -> tuple[Path, Path]:
    return make_forge(tmp_path)


@pytest.fixture
def make_clone(tmp_path: Path, forge: tuple[Path, Path]) -> Callable[[str], Path]:
    return lambda name: clone(forge[0], tmp_path / name)


@pytest.fixture
def nodes() -> Iterator[Callable[..., Node]]:
    """nodes(cwd, verb="dev", env=None): a node process, killed with its children at the end."""
    started: list[Node] = []

    def start(cwd: Path, verb: str = "dev", env: dict[str, str] | None = None) -> Node:
        node = Node(cwd, verb, env)
        started.append(node)
        return node

    yield start
    for node in started:
        pids = children_of(node.proc.pid).values()
        node.kill()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGCONT)
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
