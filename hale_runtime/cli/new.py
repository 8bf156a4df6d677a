"""`hale dna new [DIR]`: a new project, with its genome, git and seeded record.

Refuses, writing nothing, when DIR (or a folder above it) already holds a
genome. Otherwise writes the layout (templates and the vendored `dna`
package, genome.layout()), makes DIR a git repository (or uses the one it
is) with a first commit of those files, registers this user's key as the
record's genesis (it holds the Board until the Board is filled) and seeds
the record's practices, each put up for the Board's Review.
"""

from __future__ import annotations

from pathlib import Path

import click

from hale_runtime.cli.common import fail


@click.command("new")
@click.argument("directory", required=False, default=".")
def new(directory: str) -> None:
    """Write a new genome in DIRECTORY (default: here) and make it a git repository."""
    from hale_runtime.catalog.layout import ToolchainIncomplete, layout

    target = Path(directory)
    _refuse_existing(target)
    try:
        files = layout()
    except ToolchainIncomplete as incomplete:
        fail(f"{incomplete}; nothing written")
    for rel, data in files.items():
        file = target / rel
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
    commit = _first_commit(target, sorted(files))
    genesis, seeded = _seed(target)
    click.echo(f"new genome in {directory}: {len(files)} files, first commit {commit}")
    click.echo(
        "  dna/org/main.hl, workflows.hl, own_workflows.hl, models.hl, charter.hl, purpose.hl"
    )
    click.echo("  dna/core/scheduler.hl, dna/compose.yaml, vendor/dna")
    click.echo(f"  {genesis}")
    click.echo(
        f"  record: {seeded} seeded practice(s), each waiting for the Board (`hale dna review`)"
    )
    click.echo(
        "next: `hale dna definitions` lists the catalog; your own go in dna/org/own_workflows.hl"
    )


def _refuse_existing(target: Path) -> None:
    from hale_runtime.catalog.layout import existing_genome
    from hale_runtime.project import NotAProject, find_root

    if target.exists() and not target.is_dir():
        fail(f"{target} is a file, not a folder; nothing written")
    found = existing_genome(target) if target.exists() else None
    if found:
        fail(f"a genome is already in {target} ({found}/ exists); nothing written")
    try:
        root = find_root(target if target.exists() else target.parent)
    except NotAProject:
        return
    fail(f"{target} is inside the hale project at {root}; nothing written")


def _first_commit(target: Path, paths: list[str]) -> str:
    """Commit `paths` as the first commit of `target`'s repository; its short id."""
    import pygit2

    if (target / ".git").exists():
        repo = pygit2.Repository(str(target))
    else:
        repo = pygit2.init_repository(str(target), initial_head="main")
    for rel in paths:
        repo.index.add(rel)
    repo.index.write()
    tree = repo.index.write_tree()
    try:
        sig = repo.default_signature
    except (KeyError, pygit2.GitError):
        sig = pygit2.Signature("hale", "hale@localhost")
    parents = [] if repo.head_is_unborn else [repo.head.target]
    oid = repo.create_commit("HEAD", sig, sig, "hale dna new: the genome", tree, parents)
    return str(oid)[:7]


def _seed(target: Path) -> tuple[str, int]:
    """The record's genesis (this user's key) and its seeded practices."""
    from hale_runtime.cli.keys import make_genesis
    from hale_runtime.record import Record, RecordError, seed_practices

    try:
        record = Record.open(target)
        genesis = make_genesis(record)
        return genesis, len(seed_practices(record))
    except RecordError as exc:
        fail(f"the genome is written and committed, but the record refused its practices: {exc}")
