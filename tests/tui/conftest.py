"""Fixtures for the debugger's tests: one record made by the engine (see
scenario.py), built once a session, and the toolchain's Scheduler."""

from __future__ import annotations

from pathlib import Path

import pytest
import scenario  # noqa: E402

from hale_runtime.record import Record  # noqa: E402


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scenario.build(tmp_path_factory.mktemp("tui") / "project")


@pytest.fixture(scope="session")
def rows(project: Path) -> list:
    return Record.open(project).rows()


@pytest.fixture(scope="session")
def scheduler():
    from hale_runtime.tui.stepping import load_scheduler

    return load_scheduler(None)


@pytest.fixture(scope="session")
def case_rows(tmp_path_factory: pytest.TempPathFactory) -> list:
    return Record.open(scenario.cases(tmp_path_factory.mktemp("tui") / "cases")).rows()


@pytest.fixture(scope="session")
def reading_rows(tmp_path_factory: pytest.TempPathFactory) -> list:
    return Record.open(scenario.readings(tmp_path_factory.mktemp("tui") / "readings")).rows()
