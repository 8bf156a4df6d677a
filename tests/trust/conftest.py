"""A hostile clone's world: a project its Board made, and a stranger.

alice ran `hale dna new`: her key is the record's genesis (the Board while
it is unheld), and she endorsed the session's key for `org`, the identity
the tests' organization writes as (tests/conftest.py). mallory has a key of
her own that nobody endorsed; what she writes reaches this clone as a
commit of raw rows (`forge`), as a push from a second clone would.
"""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from authority_helpers import Person, endorse_the_organization  # noqa: E402
from trust_helpers import STRANGER  # noqa: E402,F401 (the fixtures and tests take it from here)

from hale_runtime.record.identity import CLONE_KEY  # noqa: E402


@pytest.fixture
def alice(tmp_path: Path) -> Person:
    return Person("alice", tmp_path / "home-alice")


@pytest.fixture
def mallory(tmp_path: Path) -> Person:
    return Person("mallory", tmp_path / "home-mallory")


@pytest.fixture
def project(tmp_path: Path, alice: Person, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project alice made (`hale dna new`), the organization's key endorsed."""
    path = tmp_path / "project"
    pygit2.init_repository(str(path), initial_head="main").config[CLONE_KEY] = "c0ffee00"
    made = alice.hale("new", str(path))
    assert made.exit_code == 0, made.output
    monkeypatch.chdir(path)
    endorse_the_organization(alice)
    return path
