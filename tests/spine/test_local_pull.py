"""Issue 32 item 8: with no remote, the local default branch is the forge. A
new commit there is a pull (exit 75), and a pulled genome that does not build
is `node.build_failed` with the last good one served, as with a forge."""

from __future__ import annotations

from pathlib import Path

from node_helpers import commit, hale, sh

POLL = {"HALE_DNA_GENOME_POLL": "0.3", "HALE_DNA_LEASE_S": "5"}
BROKEN = "fn own_workflows(catalog: dna::WorkflowCatalog) -> String {\n    return \n"


def test_a_commit_on_the_local_branch_is_a_pull_built_by_the_same_rule(tmp_path: Path, nodes):
    assert hale(tmp_path, "dna", "new", "p").returncode == 0
    root = tmp_path / "p"
    good = sh(root, "git", "rev-parse", "HEAD")
    node = nodes(root, env=POLL)
    node.wait_running()
    (root / "dna/org/own_workflows.hl").write_text(BROKEN)
    broken = commit(root, "a syntax error")
    assert node.wait(60) == 75, node.log()
    assert f"the genome moved on the local branch main: {good[:7]} -> {broken[:7]}" in node.log()

    node = nodes(root, env=POLL)  # the pull: it does not build, so the last good one serves
    node.wait_running()
    assert "does not build" in node.log() and f"serving {good[:7]}" in node.log()
    status = hale(root, "dna", "status").stdout
    assert f"build failed: {broken[:7]} at " in status and f"genome: {good[:7]}" in status
    assert node.stop() == 0
