"""`hale dna memory migrate`: migrates and prints the memory and nerves DSNs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hale_runtime.cli import hale
from hale_runtime.memory import open_memory


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "dna/org").mkdir(parents=True)
    (tmp_path / "dna/org/main.hl").write_text("")
    (tmp_path / "dna/core").mkdir()
    monkeypatch.chdir(tmp_path / "dna/core")
    monkeypatch.delenv("HALE_DNA_MEMORY", raising=False)
    monkeypatch.delenv("HALE_DNA_NERVES", raising=False)
    return tmp_path


def migrate(env: dict[str, str] | None = None):
    return CliRunner().invoke(hale, ["dna", "memory", "migrate"], env=env)


def test_migrate_embeds_memory_and_nerves_in_the_project(project):
    done = migrate()
    path = project / ".git/hale/memory.sqlite3"
    assert done.exit_code == 0, done.output
    assert done.output == f"memory: sqlite://{path}\nnerves: sqlite://{path}\n"
    assert migrate().output == done.output
    with open_memory(path) as store:
        assert store.schema_version() == 5


def test_migrate_names_postgresql_from_the_environment(project, pg_dsn, tmp_path):
    nerves = tmp_path / "nerves.sqlite3"
    done = migrate({"HALE_DNA_MEMORY": pg_dsn, "HALE_DNA_NERVES": str(nerves)})
    assert done.exit_code == 0, done.output
    assert done.output == f"memory: {pg_dsn}\nnerves: sqlite://{nerves}\n"
    with open_memory(pg_dsn) as store, open_memory(nerves) as other:
        assert store.schema_version() == other.schema_version() == 5


def test_migrate_hides_the_password_and_fails_in_one_line(project):
    done = migrate({"HALE_DNA_MEMORY": "postgresql://ann:secret@127.0.0.1:1/x"})
    assert done.exit_code == 1
    assert "secret" not in done.output
    assert done.output.startswith("hale: cannot reach memory at postgresql://ann:***@127.0.0.1:1/x")
    assert done.output.count("\n") == 1


def test_migrate_outside_a_project_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = migrate()
    assert done.exit_code == 1
    assert "not inside a hale project" in done.output
