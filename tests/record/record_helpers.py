"""Helpers for the record's tests (imported by conftest and the tests)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pygit2

from hale_runtime.record import Record

REPO_ROOT = Path(__file__).resolve().parents[2]


def make_project(path: Path, clone: str = "c0ffee00") -> Path:
    """A git repository holding a genome marker, its clone id fixed."""
    repo = pygit2.init_repository(str(path))
    (path / "dna" / "org").mkdir(parents=True)
    (path / "dna" / "org" / "main.hl").write_text("// the organization\n")
    repo.config["hale.clone"] = clone
    return path


def stepping_clock(start: int = 1_767_225_600_000) -> Callable[[], int]:
    """A clock that moves one second on every call."""
    ticks = itertools.count(start, 1000)
    return lambda: next(ticks)


def run_python(code: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start `python -c code args…` with the project importable."""
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def ids(record: Record, **filters: object) -> list[str]:
    return [row.id for row in record.rows(**filters)]
