"""The last good genome with no remote (`hale dna dev` on the work tree): a
committed genome that does not build is `node.build_failed`, and the node
serves the last one that built, even on its first start; once a newer one
builds, `hale dna status` drops the stale failure."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from node_helpers import FAST, HALE, commit, sh

ENV = {**FAST, "HALE_DNA_LEASE_S": "5", "HALE_DNA_ANSWER_WAIT": "30"}
BROKEN = "fn own_workflows(catalog: dna::WorkflowCatalog) -> String {\n    return \n"


def hale(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **ENV}
    return subprocess.run([*HALE, *args], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=90)  # fmt: skip


def test_reproduction_7_a_broken_genome_serves_the_last_that_built(tmp_path: Path, nodes):
    assert hale(tmp_path, "dna", "new", "p").returncode == 0
    root = tmp_path / "p"
    good = sh(root, "git", "rev-parse", "HEAD")
    own = root / "dna" / "org" / "own_workflows.hl"
    fixed = own.read_text()
    own.write_text(BROKEN)
    broken = commit(root, "a syntax error")

    node = nodes(root, env=ENV)  # its first start: nothing remembered, no remote
    node.wait_running()
    assert "does not build" in node.log() and f"serving {good[:7]}" in node.log()
    status = hale(root, "dna", "status").stdout
    assert f"genome: {good[:7]}\n" in status
    assert f"build failed: {broken[:7]} at " in status and f"; kept {good[:7]}" in status
    said = hale(root, "dna", "task", "create", "--judgment", "still admitting work?")
    assert said.returncode == 0 and " born: ask-judge@1 " in said.stdout, said
    assert node.stop() == 0

    own.write_text(fixed + "\n// fixed\n")
    newer = commit(root, "fixed")
    node = nodes(root, env=ENV)
    node.wait_running()
    status = hale(root, "dna", "status").stdout
    assert f"genome: {newer[:7]} (work tree)" in status
    assert "build failed" not in status  # a newer genome built: the failure is stale
    assert node.stop() == 0
