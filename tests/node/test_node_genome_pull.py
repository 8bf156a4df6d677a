"""The genome pull: a moved forge stops the node with 75; a genome that does
not build is a `node.build_failed` row and the last good one keeps serving."""

from __future__ import annotations

from node_helpers import hale, push_genome, sh, wait_for

from hale_runtime.memory import open_memory

POLL = {"HALE_DNA_GENOME_POLL": "0.5"}


def genome_line(cwd) -> str:
    status = hale(cwd, "dna", "status")
    assert status.returncode == 0, status.stderr
    return next(line.strip() for line in status.stdout.splitlines() if "genome:" in line)


def test_a_new_genome_is_pulled_and_a_broken_one_is_not_served(forge, make_clone, nodes):
    _, src = forge
    a = make_clone("a")
    first_commit = sh(src, "git", "rev-parse", "HEAD")
    node = nodes(a, env=POLL)
    node.wait_running()
    assert genome_line(a) == f"genome: {first_commit[:7]}"

    purpose = (src / "dna/org/purpose.hl").read_text()
    good = push_genome(src, "dna/org/purpose.hl", purpose + "\n// a new purpose\n")
    assert node.wait(30) == 75, node.log()
    assert "genome moved" in node.log()
    assert "released" in hale(a, "dna", "body").stdout  # the lease was given back

    node = nodes(a, env=POLL)
    node.wait_running()
    assert genome_line(a) == f"genome: {good[:7]}"

    broken = push_genome(src, "dna/org/main.hl", "fn organization( {\n")
    assert node.wait(30) == 75, node.log()
    node = nodes(a, env=POLL)
    node.wait_running()
    assert "does not build" in node.log()
    assert genome_line(a) == f"genome: {good[:7]}"
    failed = hale(a, "dna", "history", "node/", "--kind", "node.build_failed")
    assert broken in failed.stdout and "error" in failed.stdout
    status = hale(a, "dna", "status").stdout
    assert f"build failed: {broken[:7]}" in status
    assert node.stop() == 0


def test_a_poll_of_0_never_pulls(forge, make_clone, nodes):
    """HALE_DNA_GENOME_POLL=0: a moved forge is not looked at; the node ticks on."""
    _, src = forge
    a = make_clone("a")
    first_commit = sh(src, "git", "rev-parse", "HEAD")
    node = nodes(a, env={"HALE_DNA_GENOME_POLL": "0"})
    node.wait_running()
    push_genome(src, "dna/org/purpose.hl", (src / "dna/org/purpose.hl").read_text() + "//\n")
    memory = open_memory(a / ".git/hale/memory.sqlite3")
    ticks: set[int] = set()

    def ticked() -> bool:
        (beat,) = memory.nodes("node")
        ticks.add(beat.props["last_tick"])
        return len(ticks) >= 10

    try:
        wait_for(ticked, 30, "ten ticks", 0.05)  # 2 s: a poll of 0.5 s would have stopped it
    finally:
        memory.close()
    assert node.proc.poll() is None, node.log()
    assert genome_line(a) == f"genome: {first_commit[:7]}"
    assert node.stop() == 0


def test_a_forge_whose_head_names_a_missing_branch_serves_the_branch_the_clone_tracks(
    tmp_path, nodes
):
    """`git init --bare` made `master`; the project pushed `main`. The forge's HEAD
    names nothing, so the node follows the branch the clone tracks."""
    from node_helpers import TINY_GENOME

    forge, proj = tmp_path / "forge.git", tmp_path / "proj"
    sh(tmp_path, "git", "-c", "init.defaultBranch=master", "init", "-q", "--bare", str(forge))
    sh(tmp_path, "git", "init", "-q", "--initial-branch=main", str(proj))
    for rel, text in TINY_GENOME.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    sh(proj, "git", "add", "dna")
    sh(proj, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "genome")
    sh(proj, "git", "remote", "add", "origin", str(forge))
    sh(proj, "git", "push", "-q", "-u", "origin", "main")
    node = nodes(proj, env=POLL)
    node.wait_running()
    assert genome_line(proj) == f"genome: {sh(proj, 'git', 'rev-parse', 'HEAD')[:7]}"
    assert node.stop() == 0, node.log()
