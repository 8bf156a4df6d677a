"""`hale dna new` and `hale dna upgrade`: the layout, git, and what upgrade
may and may not touch."""

from __future__ import annotations

from pathlib import Path

import pygit2
from catalog_helpers import own_source

from hale_runtime.catalog.layout import layout

OWN = own_source(
    """
    // the author's own, with odd spacing kept as written
    let d = catalog.define("close-month", 1, "record", "close the month");
    if len(d) > 0 {   return d; }
    return catalog.leaf("close-month", 1, 0, "post", dna::WorkRequest { objective: "post", requires: "human" }, 1);
    """
)


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_new_writes_the_layout_and_a_first_commit(project):
    assert set(tree(project.root)) == set(layout())
    assert not any(p.startswith("vendor/dna/templates") for p in tree(project.root))
    repo = pygit2.Repository(str(project.root))
    head = repo.head.peel(pygit2.Commit)
    assert head.parents == []
    assert not repo.status()  # everything written is committed
    assert repo.references.get("refs/dna/record") is not None  # the practices are seeded


def test_new_refuses_an_existing_genome(project, snapshot):
    before = tree(project.root)
    r = project.run("dna", "new", str(project.root))
    assert r.code == 1 and r.out == ""
    assert tree(project.root) == before
    assert r.err.replace(str(project.root), "<dir>") == snapshot


def test_new_refuses_inside_a_project(project):
    r = project.run("dna", "new", "sub")
    assert r.code == 1 and not (project.root / "sub").exists()


def test_upgrade_is_a_no_op_on_a_new_project(project, snapshot):
    before = tree(project.root)
    r = project.run("dna", "upgrade")
    assert r.code == 0
    assert tree(project.root) == before
    assert r.out == snapshot


def test_upgrade_rewrites_workflows_and_vendor_and_never_own(project, snapshot):
    project.write("dna/org/own_workflows.hl", OWN)
    own_before = (project.root / "dna/org/own_workflows.hl").read_bytes()
    project.write("dna/org/workflows.hl", "// edited by hand\n")
    project.write("vendor/dna/baseline.hl", "// an older toolchain's baseline\n")
    project.write("vendor/dna/old.hl", "// gone from the toolchain\n")
    (project.root / "vendor/dna/mod.hl").unlink()
    r = project.run("dna", "upgrade")
    assert r.code == 0
    assert r.out == snapshot
    assert (project.root / "dna/org/own_workflows.hl").read_bytes() == own_before
    assert {k: v for k, v in tree(project.root).items() if k != "dna/org/own_workflows.hl"} == {
        k: v for k, v in layout().items() if k != "dna/org/own_workflows.hl"
    }
    again = project.run("dna", "upgrade")
    assert "nothing to change" in again.out
    listing = project.run("dna", "definitions")
    assert listing.code == 0 and "close-month@1  close the month" in listing.out
