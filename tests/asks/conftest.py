"""Fixtures for the asks' tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ask_helpers import Project, make_project  # noqa: E402


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "hale-cache"))
    for name in ("HALE_DNA_MEMORY", "HALE_DNA_NERVES", "HALE_DNA_NODE", "HALE_DNA_OWNER"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(make_project(tmp_path / "project"))
