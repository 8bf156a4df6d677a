"""Two people on one record: two homes, two keys, one project."""

from __future__ import annotations

from pathlib import Path

import pytest
from authority_helpers import Person, endorse_the_organization

from hale_runtime.record.identity import CLONE_KEY


@pytest.fixture
def alice(tmp_path: Path) -> Person:
    return Person("alice", tmp_path / "home-alice")


@pytest.fixture
def mallory(tmp_path: Path) -> Person:
    return Person("mallory", tmp_path / "home-mallory")


@pytest.fixture
def project(tmp_path: Path, alice: Person, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project alice made (`hale dna new`): her key is the record's genesis."""
    import pygit2

    path = tmp_path / "project"
    pygit2.init_repository(str(path), initial_head="main").config[CLONE_KEY] = "c0ffee00"
    result = alice.hale("new", str(path))
    assert result.exit_code == 0, result.output
    monkeypatch.chdir(path)
    endorse_the_organization(alice)
    return path
