"""A genome that builds but whose catalog fails its limits (the memory ceiling,
nested containers) is not served as "no catalog": the last good genome is."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from no_genome_helpers import GREEDY

from hale_runtime.cli import hale
from hale_runtime.node.fallback import load_or_last_good


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
