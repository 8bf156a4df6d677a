"""A fresh record whose first genome does not build, with nothing before it that
does: the node runs all the same (it no longer exits 1), its organization
refuses an ask with why (issue 29 item 9; a good genome landing after it:
test_store_no_genome.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from node_helpers import FAST, HALE, Node, commit, sh, started_nodes

ENV = {**FAST, "HALE_DNA_LEASE_S": "5", "HALE_DNA_ANSWER_WAIT": "30"}
BROKEN = "fn own_workflows(catalog: dna::WorkflowCatalog) -> String {\n    return \n"
OWN = "dna/org/own_workflows.hl"


def hale(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **ENV}
    return subprocess.run([*HALE, *args], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=90)  # fmt: skip


def test_store_a_node_with_no_genome_that_builds_runs_and_refuses_asks(tmp_path: Path):
    assert hale(tmp_path, "dna", "new", "p").returncode == 0
    root = tmp_path / "p"
    sh(root, "git", "checkout", "-q", "--orphan", "fresh")  # a branch of one commit
    (root / OWN).write_text(BROKEN)
    broken = commit(root, "a first genome that does not build")
    with started_nodes() as nodes:
        node: Node = nodes(root, env=ENV)
        node.wait_running()
        assert "no genome has built here before" in node.log(), node.log()
        assert f"genome: {broken[:7]}" in node.log()
        said = hale(root, "dna", "task", "create", "--judgment", "still admitting work?")
        assert said.returncode == 1, said
        assert "task create: refused: no genome loads: " in said.stdout, said
        status = hale(root, "dna", "status").stdout
        assert f"build failed: {broken[:7]} at " in status, status
        assert "; no genome builds, so asks are refused" in status, status
        assert node.stop() == 0
