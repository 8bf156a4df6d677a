"""A genome that builds but whose catalog fails its limits (the memory ceiling,
nested containers) is not served as "no catalog": the last good genome is."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from no_genome_helpers import GREEDY, Running, ask

from hale_runtime.cli import hale
from hale_runtime.memory import open_memory
from hale_runtime.node.fallback import load_or_last_good
from hale_runtime.record import Record
from hale_runtime.record import kinds as k


def test_store_a_genome_over_its_limits_falls_back_to_the_last_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(hale, ["dna", "new", "p"])
    assert made.exit_code == 0, made.output
    root = tmp_path / "p"
    good = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                          text=True, check=True).stdout.strip()  # fmt: skip
    (root / "dna" / "org" / "own_workflows.hl").write_text(GREEDY)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "greedy"],
                   cwd=root, check=True)  # fmt: skip
    monkeypatch.setenv("HALE_MAX_MEMORY", "8M")
    said: list[str] = []
    catalog = load_or_last_good(root, root, said.append)
    assert catalog is not None, said
    assert len(said) == 1 and f"serving the last good genome {good[:7]}" in said[0], said
    assert "memory ceiling" in said[0] or "E04" in said[0], said


def test_store_the_organization_admits_asks_by_the_last_good_genome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The organization itself serves the last good genome's catalog when the one
    it is given passes its limits: an ask is admitted, not refused nor left waiting."""
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(hale, ["dna", "new", "p"]).exit_code == 0
    root = tmp_path / "p"
    (root / "dna" / "org" / "own_workflows.hl").write_text(GREEDY)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "greedy"],
                   cwd=root, check=True)  # fmt: skip
    monkeypatch.setenv("HALE_MAX_MEMORY", "8M")
    memory = root / ".git" / "hale" / "memory.sqlite3"
    monkeypatch.setenv("HALE_DNA_MEMORY", str(memory))
    open_memory(memory).migrate()
    run = Running(root)
    assert run.org.catalog is not None and run.org.engine is not None
    intent = ask(root, "i-000000000001", {"objective": "judge the readme", "judgment": True})
    assert run.until(lambda: Record.open(root).rows(kind=k.INTENT_OFFERED, key=intent))
    assert not Record.open(root).rows(kind=k.INTENT_REFUSED)
    run.org.memory.close()
