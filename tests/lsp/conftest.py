"""A small genome for the language server, and a real `hale lsp` process on it."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_client import LspClient
from lsp_genome import write_genome


@pytest.fixture
def genome(tmp_path: Path) -> Path:
    return write_genome(tmp_path / "genome")


@pytest.fixture(scope="module")
def genome_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A genome for tests that only read it (hypothesis runs many examples on one)."""
    return write_genome(tmp_path_factory.mktemp("read") / "genome")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    """(a client of a real `hale lsp` process, the genome root it serves)."""
    root = write_genome(tmp_path_factory.mktemp("lsp") / "genome")
    client = LspClient(root)
    client.initialize(root)
    yield client, root
    assert client.close() == 0
