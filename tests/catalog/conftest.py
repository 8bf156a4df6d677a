"""Fixtures for the catalog's tests: a new project made by `hale dna new`,
and a runner for `hale …` verbs inside it (click's CliRunner, in process).

Every test gets its own build cache (HALE_CACHE_DIR), so a cached catalog
never hides what a test wrote."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from catalog_helpers import own_source
from click.testing import CliRunner

from hale_runtime.cli import hale


@dataclass
class Result:
    code: int
    out: str
    err: str


@dataclass
class Project:
    root: Path
    monkeypatch: pytest.MonkeyPatch

    def run(self, *args: str, cwd: Path | None = None) -> Result:
        self.monkeypatch.chdir(cwd or self.root)
        r = CliRunner().invoke(hale, list(args))
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            raise r.exception  # a traceback would reach the user: fail the test
        return Result(r.exit_code, r.stdout, r.stderr)

    def own(self, body: str) -> None:
        """Write own_workflows.hl with `body` as the function's body."""
        self.write("dna/org/own_workflows.hl", own_source(body))

    def write(self, rel: str, text: str) -> None:
        (self.root / rel).write_text(text, encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "test")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(hale, ["dna", "new", "p"])
    assert r.exit_code == 0, r.output
    return Project(tmp_path / "p", monkeypatch)
