"""Real git repositories for the record's tests: projects, clones and bare remotes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygit2
import pytest
from record_helpers import make_project, stepping_clock

from hale_runtime.record import Record


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


@pytest.fixture
def record(project: Path) -> Record:
    """The store's own tests read rows as written, with no batch's signature row
    between them (signing has its own: test_signed_rows.py)."""
    return Record.open(project, clock=stepping_clock(), who="ann@box:c0ffee00", sign=False)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    pygit2.init_repository(str(path), bare=True)
    return path


@pytest.fixture
def make_clone(tmp_path: Path, remote: Path) -> Callable[[str], Path]:
    """make_clone(name): a project whose `origin` is the bare remote."""

    def make(name: str) -> Path:
        path = make_project(tmp_path / name, clone=f"{name:0<8}"[:8])
        pygit2.Repository(str(path)).remotes.create("origin", str(remote))
        return path

    return make
