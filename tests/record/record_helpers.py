"""Helpers for the record's tests (imported by conftest and the tests)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from support.projects import make_project  # noqa: F401 (the tests take it from here)

from hale_runtime.record import Record

REPO_ROOT = Path(__file__).resolve().parents[2]


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
